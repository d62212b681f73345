"""Build the CTC NAT encoder ONNX graph and its manifest (contract: export/README.md, "CTC NAT models").

    python -m export ctc-nat export/trained/ctc-nat-en-de --out models/ctc-nat-en-de
    python -m export ctc-nat --random --out models/tiny-ctc-nat      # random weights, the same tokenizer (tests)

The encoder: token embedding + learned position embedding (the table size is the position limit), per layer
RMSNorm -> q/k/v -> com.microsoft MultiHeadAttention (bidirectional, key padding mask) -> o, RMSNorm -> SwiGLU MLP,
then the final RMSNorm and the output head tied to the embedding. Every position predicts a token of the
vocabulary, which includes <blank>.

    inputs:  input_ids      int64 [batch, positions]  upsampled source (source tokens with <mask> inserted), <pad>
             attention_mask int64 [batch, positions]  1 for real positions, 0 for padding
    outputs: logits         float32 [batch, positions, V]     V = vocab, or the output vocabulary's size
             token_ids      int64   [batch, positions]        argmax of each position, as token ids

`token_ids` lets greedy CTC decoding read one id per position instead of [positions x V] scores (the engine asks
ONNX Runtime for that output alone). `--output-vocab FILE` (a recipe's target_vocab.json: every token id the
training targets contain, plus <blank>) restricts the output head to those rows: `logits` column j is token
`ctc.output_ids[j]` of the manifest and `token_ids` maps the argmax back through it inside the graph. Tokens that
never occur in a training target are never a CTC target, so the head only ever learned to score them down.

`--shortlist FILE` (a table of `python -m export nat-shortlist`, export/nat_shortlist.py) adds two inputs,
    output_columns       int64 [columns]        the logits columns to compute (each in 0..V-1; the engine feeds a
                                                batch's shortlist, the union over its sentences, sorted, <blank>'s
                                                column included, or all of 0..V-1)
    output_columns_mask  uint8 [rows, columns]  rows = batch (row i: the columns sentence i may choose, its own
                                                shortlist) or 1 (one row for all); ones = no restriction
and `logits` becomes [batch, positions, columns] (column i scores column `output_columns[i]` of the full head) and
`token_ids` is each position's argmax over its sentence's allowed columns, mapped back through output_columns (and
output_ids) in the graph: a sentence's output is the same alone and in any batch. The q8_0 head computes only
those columns (MatMulGgml's optional `columns` input); fp32 gathers the head's columns first. The table is copied
next to the model and listed in the manifest (`ctc.shortlist`: file, sha256, top_k, frequent, vocab).

Weights come from the recipe's model.safetensors (export/train_ctc_nat.py) or are drawn at random.
"""
from __future__ import annotations

import json
import os
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper

from .checkpoint_safetensors import read_safetensors
from .ggml_blocks import ggml_encode
from .graph_decoder import MS, OPSET, SPECRT, _Graph, save_model
from .manifest import FORMAT, FORMAT_VERSION, sha256_file
from .quantize import pack_weight

DEFAULT_TOKENIZER = os.path.join(os.path.dirname(__file__), "trained", "tokenizer-en-de", "tokenizer.json")


def read_weights(folder: str) -> tuple:
    """(weights {name: float32}, nat settings from MANIFEST.json, dims) of a recipe output folder."""
    w = read_safetensors(os.path.join(folder, "model.safetensors"))
    with open(os.path.join(folder, "MANIFEST.json")) as f:
        man = json.load(f)
    if man.get("model") != "ctc-nat":
        raise ValueError(f"{folder}/MANIFEST.json: model is {man.get('model')!r}, expected 'ctc-nat'")
    return w, man


def random_weights(vocab: int, dim: int, heads: int, ffn: int, layers: int, positions: int, seed: int) -> dict:
    """Random weights with the recipe's names (for tests; outputs are meaningless but deterministic)."""
    rng = np.random.default_rng(seed)
    w = {"embed.weight": rng.normal(0, 0.3, (vocab, dim)), "pos.weight": rng.normal(0, 0.3, (positions, dim)),
         "norm.weight": 1 + rng.normal(0, 0.1, dim)}
    for i in range(layers):
        p = f"layers.{i}."
        for n, shape in (("q_proj", (dim, dim)), ("k_proj", (dim, dim)), ("v_proj", (dim, dim)),
                         ("o_proj", (dim, dim)), ("gate_proj", (ffn, dim)), ("up_proj", (ffn, dim)),
                         ("down_proj", (dim, ffn))):
            w[p + n + ".weight"] = rng.normal(0, 1 / np.sqrt(shape[1]), shape)
        w[p + "input_layernorm.weight"] = 1 + rng.normal(0, 0.1, dim)
        w[p + "post_attention_layernorm.weight"] = 1 + rng.normal(0, 0.1, dim)
    return {k: v.astype(np.float32) for k, v in w.items()}


def dims_of(w: dict, heads: int) -> dict:
    vocab, dim = w["embed.weight"].shape
    layers = 1 + max(int(k.split(".")[1]) for k in w if k.startswith("layers."))
    return {"vocab_size": int(vocab), "hidden_size": int(dim), "intermediate_size": int(w["layers.0.gate_proj.weight"].shape[0]),
            "num_layers": layers, "num_heads": heads, "head_dim": dim // heads,
            "max_position_embeddings": int(w["pos.weight"].shape[0]), "rms_norm_eps": 1e-6}


PRECISIONS = ("fp32", "int8", "q8_0")


def build_graph(w: dict, dims: dict, precision: str = "fp32", output_ids=None,
                fused_layers: bool = True, shortlist: bool = False) -> onnx.ModelProto:
    """The encoder graph. precision int8: every projection and the output head as 8-bit MatMulNBits (block 32,
    round-to-nearest) with int8 activations (accuracy_level 4). precision q8_0: the same layers as GGML Q8_0 blocks
    (block 32, round-to-nearest, fp16 scale) on the engine's own operators (the AVX-512 VNNI panel kernel where the
    CPU has it; runs only in specrt, not in Python's onnxruntime): each layer one ai.specrt::EncoderLayerGgml node
    (fused_layers, the default) or ~14 nodes around ai.specrt::MatMulGgml; the head a MatMulGgml. output_ids: the
    output vocabulary (sorted token ids), or None for the whole vocabulary. shortlist: the `output_columns` input
    restricting the head (module docstring; fp32 and q8_0)."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}")
    if shortlist and precision == "int8":
        raise ValueError("--shortlist needs precision fp32 or q8_0 (MatMulNBits cannot select columns)")
    head_rows = w["embed.weight"] if output_ids is None else w["embed.weight"][np.asarray(output_ids, np.int64)]
    width = head_rows.shape[0]
    g = _Graph()
    eps, H = dims["rms_norm_eps"], dims["num_heads"]
    emb = g.init("embed.weight", w["embed.weight"])
    x = g.op("Gather", [emb, "input_ids"], name="embed/Gather", axis=0)
    t = g.op("Shape", ["input_ids"], name="positions/Shape", start=1, end=2)
    pos = g.op("Slice", [g.init("pos.weight", w["pos.weight"]), g.init("zero", np.array([0], np.int64)), t,
                         g.init("axis0", np.array([0], np.int64))], name="positions/Slice")
    x = g.op("Add", [x, pos], name="embed/AddPositions")
    mask = g.op("Cast", ["attention_mask"], name="attention_mask/Cast", to=TensorProto.INT32)

    def linear(inp, name, outputs=None, columns=None):
        if precision == "q8_0":
            n, k = w[name].shape
            blocks = ggml_encode(np.asarray(w[name], np.float32), "Q8_0")
            ins = [inp, g.init(name + ".ggml_blocks", blocks)] + ([columns] if columns else [])
            return g.op("MatMulGgml", ins, domain=SPECRT, name=name, K=k, N=n, ggml_type="Q8_0", outputs=outputs)
        if precision == "int8":
            p = pack_weight(w[name], 8)
            ins = [inp, g.init(name + ".qweight", p.b), g.init(name + ".scales", p.scales)]
            if p.zero_points is not None:
                ins.append(g.init(name + ".zero_points", p.zero_points))
            return g.op("MatMulNBits", ins, domain=MS, name=name, K=p.k, N=p.n, bits=8, block_size=p.block_size,
                        accuracy_level=4, outputs=outputs)
        return g.op("MatMul", [inp, g.init(name + ".T", np.ascontiguousarray(w[name].T))], name=name)

    def fused(inp, names, name):
        """Q8_0 only: the matrices `names` stacked along N in one MatMulGgml, then split back."""
        stacked = np.concatenate([np.asarray(w[n], np.float32) for n in names], 0)
        n, k = stacked.shape
        y = g.op("MatMulGgml", [inp, g.init(name + ".ggml_blocks", ggml_encode(stacked, "Q8_0"))], domain=SPECRT,
                 name=name, K=k, N=n, ggml_type="Q8_0")
        sizes = g.init(name + ".split", np.array([w[m].shape[0] for m in names], np.int64))
        return g.op("Split", [y, sizes], n_out=len(names), name=name + "/Split", axis=-1)

    def fused_layer(x, p):
        """One ai.specrt::EncoderLayerGgml: the whole layer below in one node (Q/K/V and gate/up stacked along N as
        in fused()). Why: as ~14 nodes the small model's batch-1 pass spent about half its time outside the matmul
        kernel (node dispatch, Split copies, allocations); engine/kernels/encoder_layer.rs has the numbers."""
        def blocks(names, name):
            stacked = np.concatenate([np.asarray(w[n], np.float32) for n in names], 0)
            return g.init(name + ".ggml_blocks", ggml_encode(stacked, "Q8_0"))
        ins = [x, mask, g.init(p + "input_layernorm.weight", w[p + "input_layernorm.weight"]),
               blocks([p + n + ".weight" for n in ("q_proj", "k_proj", "v_proj")], p + "qkv_proj"),
               blocks([p + "o_proj.weight"], p + "o_proj.weight"),
               g.init(p + "post_attention_layernorm.weight", w[p + "post_attention_layernorm.weight"]),
               blocks([p + "gate_proj.weight", p + "up_proj.weight"], p + "gate_up_proj"),
               blocks([p + "down_proj.weight"], p + "down_proj.weight")]
        return g.op("EncoderLayerGgml", ins, domain=SPECRT, name=p + "layer", hidden=dims["hidden_size"],
                    num_heads=H, ffn=dims["intermediate_size"], epsilon=float(eps), ggml_type="Q8_0")

    for i in range(dims["num_layers"]):
        p = f"layers.{i}."
        if precision == "q8_0" and fused_layers:
            x = fused_layer(x, p)
            continue
        h = g.op("RMSNormalization", [x, g.init(p + "input_layernorm.weight", w[p + "input_layernorm.weight"])],
                 name=p + "attn_norm", axis=-1, epsilon=eps)
        if precision == "q8_0":
            # One MatMulGgml for Q, K and V (and one for gate and up, below): the activations are quantized once
            # instead of three times and the pool gets one larger call; each output column depends only on its own
            # weights, so the split outputs are bit-identical to three separate projections.
            q, k, v = fused(h, [p + n + ".weight" for n in ("q_proj", "k_proj", "v_proj")], p + "qkv_proj")
        else:
            q, k, v = (linear(h, p + n + ".weight") for n in ("q_proj", "k_proj", "v_proj"))
        a = g.op("MultiHeadAttention", [q, k, v, "", mask], domain=MS, name=p + "attention", num_heads=H)
        x = g.op("Add", [x, linear(a, p + "o_proj.weight")], name=p + "attn_residual")
        h = g.op("RMSNormalization", [x, g.init(p + "post_attention_layernorm.weight",
                                                w[p + "post_attention_layernorm.weight"])],
                 name=p + "ffn_norm", axis=-1, epsilon=eps)
        if precision == "q8_0":
            gate, up = fused(h, [p + "gate_proj.weight", p + "up_proj.weight"], p + "gate_up_proj")
        else:
            gate, up = linear(h, p + "gate_proj.weight"), linear(h, p + "up_proj.weight")
        act = g.op("Mul", [g.op("Mul", [gate, g.op("Sigmoid", [gate], name=p + "mlp/Sigmoid")], name=p + "mlp/SiLU"),
                           up], name=p + "mlp/GLU")
        x = g.op("Add", [x, linear(act, p + "down_proj.weight")], name=p + "mlp_residual")
    h = g.op("RMSNormalization", [x, g.init("norm.weight", w["norm.weight"])], name="final_norm", axis=-1,
             epsilon=eps)
    if precision in ("int8", "q8_0"):
        w = dict(w, **{"lm_head.weight": head_rows})
        # The head writes the graph output itself: ONNX Runtime runs every node whatever outputs a call asks for,
        # and an Identity here copied [positions x vocabulary] floats on every pass (18% of the small model's
        # greedy pass in an ONNX Runtime profile, although greedy decoding reads only token_ids).
        # With a shortlist the head computes only the columns `output_columns` (MatMulGgml's third input).
        linear(h, "lm_head.weight", outputs=["logits"], columns="output_columns" if shortlist else None)
    else:
        head = g.init("lm_head.weight.T", np.ascontiguousarray(head_rows.T))
        if shortlist:
            head = g.op("Gather", [head, "output_columns"], name="lm_head/GatherColumns", axis=1)
        g.op("MatMul", [h, head], name="lm_head", outputs=["logits"])
    # The token id of each logits column: output_ids (or the identity), then through output_columns.
    column_ids = None if output_ids is None else g.init("output_ids", np.asarray(output_ids, np.int64))
    if shortlist:
        column_ids = "output_columns" if column_ids is None else g.op(
            "Gather", [column_ids, "output_columns"], name="output_columns/GatherIds", axis=0)
    if precision == "q8_0":
        # The engine's ArgMaxRows (first maximum, mapped through output_ids in the same node): ONNX Runtime's
        # ArgMax + Gather were ~10% of the small model's greedy pass in its profile. q8_0 graphs run only in the
        # engine anyway (MatMulGgml). With a shortlist its third input restricts each sentence to its own columns.
        ins = ["logits"] if column_ids is None else ["logits", column_ids]
        if shortlist:
            ins.append("output_columns_mask")
        g.op("ArgMaxRows", ins, domain=SPECRT, name="token_ids/ArgMaxRows", outputs=["token_ids"])
    elif column_ids is None:
        g.op("ArgMax", ["logits"], name="token_ids/ArgMax", outputs=["token_ids"], axis=-1, keepdims=0)
    else:
        scores = "logits"
        if shortlist:
            # each sentence's disallowed columns to -inf before the argmax ([rows, 1, columns] broadcasts over the
            # positions; rows = batch or 1)
            allowed = g.op("Cast", ["output_columns_mask"], name="output_columns_mask/Cast", to=TensorProto.BOOL)
            allowed = g.op("Unsqueeze", [allowed, g.init("axis1", np.array([1], np.int64))],
                           name="output_columns_mask/Unsqueeze")
            scores = g.op("Where", [allowed, "logits", g.init("neg_inf", np.array(-np.inf, np.float32))],
                          name="output_columns_mask/Where")
        column = g.op("ArgMax", [scores], name="token_ids/ArgMax", axis=-1, keepdims=0)
        g.op("Gather", [column_ids, column], name="token_ids/Gather", outputs=["token_ids"], axis=0)
    i64, f32 = TensorProto.INT64, TensorProto.FLOAT
    inputs = [helper.make_tensor_value_info("input_ids", i64, ["batch", "positions"]),
              helper.make_tensor_value_info("attention_mask", i64, ["batch", "positions"])]
    if shortlist:
        inputs.append(helper.make_tensor_value_info("output_columns", i64, ["columns"]))
        inputs.append(helper.make_tensor_value_info("output_columns_mask", TensorProto.UINT8, ["mask_rows", "columns"]))
    graph = helper.make_graph(
        g.nodes, "specrt_ctc_nat", inputs,
        [helper.make_tensor_value_info("logits", f32, ["batch", "positions", "columns" if shortlist else width]),
         helper.make_tensor_value_info("token_ids", i64, ["batch", "positions"])],
        initializer=g.inits)
    opsets = [helper.make_opsetid("", OPSET), helper.make_opsetid(MS, 1)]
    if precision == "q8_0":
        opsets.append(helper.make_opsetid(SPECRT, 1))
    model = helper.make_model(graph, opset_imports=opsets, producer_name="specrt-export")
    model.ir_version = 11
    return model


def read_output_vocab(path: str, vocab: int, blank_id: int) -> list:
    """The sorted ids of an output-vocabulary file (`{"ids": [...]}`), checked: in range, and <blank> among them."""
    with open(path, encoding="utf-8") as f:
        ids = sorted(set(int(i) for i in json.load(f)["ids"]))
    if not ids or ids[0] < 0 or ids[-1] >= vocab:
        raise ValueError(f"{path}: ids must lie in [0, {vocab})")
    if blank_id not in ids:
        raise ValueError(f"{path}: the output vocabulary must contain <blank> (id {blank_id})")
    return ids


def read_shortlist(path: str, vocab: int, blank_id: int) -> dict:
    """The table of `python -m export nat-shortlist`, checked against the model: format, vocabulary, ids in range,
    <blank> always in."""
    from .nat_shortlist import FORMAT, VERSION
    with open(path, encoding="utf-8") as f:
        t = json.load(f)
    if t.get("format") != FORMAT or t.get("version") != VERSION:
        raise ValueError(f"{path}: not a {FORMAT} v{VERSION} table (format {t.get('format')!r}, version "
                         f"{t.get('version')!r}); make one with `python -m export nat-shortlist`")
    if t.get("vocab") != vocab:
        raise ValueError(f"{path}: key `vocab` is {t.get('vocab')}, the model's vocabulary is {vocab}")
    ids = list(t["always"]) + [i for r in t["rows"].values() for i in r] + [int(s) for s in t["rows"]]
    if any(not 0 <= int(i) < vocab for i in ids):
        raise ValueError(f"{path}: ids must lie in [0, {vocab})")
    if blank_id not in t["always"]:
        raise ValueError(f"{path}: key `always` must contain <blank> (id {blank_id})")
    return t


def reference_logits(w: dict, dims: dict, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """numpy float64 reference of the graph (for the parity tests)."""
    eps, H = dims["rms_norm_eps"], dims["num_heads"]
    f = {k: v.astype(np.float64) for k, v in w.items()}
    b, t = ids.shape
    x = f["embed.weight"][ids] + f["pos.weight"][:t][None]

    def rms(v, wt):
        return v / np.sqrt((v * v).mean(-1, keepdims=True) + eps) * wt
    for i in range(dims["num_layers"]):
        p = f"layers.{i}."
        h = rms(x, f[p + "input_layernorm.weight"])
        q, k, v = (h @ f[p + n + ".weight"].T for n in ("q_proj", "k_proj", "v_proj"))
        split = lambda m: m.reshape(b, t, H, -1).transpose(0, 2, 1, 3)  # noqa: E731
        q, k, v = split(q), split(k), split(v)
        s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(q.shape[-1])
        s = np.where(mask[:, None, None, :] > 0, s, -1e30)
        s = np.exp(s - s.max(-1, keepdims=True))
        s /= s.sum(-1, keepdims=True)
        a = (s @ v).transpose(0, 2, 1, 3).reshape(b, t, -1)
        x = x + a @ f[p + "o_proj.weight"].T
        h = rms(x, f[p + "post_attention_layernorm.weight"])
        gate = h @ f[p + "gate_proj.weight"].T
        x = x + ((gate / (1 + np.exp(-gate))) * (h @ f[p + "up_proj.weight"].T)) @ f[p + "down_proj.weight"].T
    return rms(x, f["norm.weight"]) @ f["embed.weight"].T


def export_ctc_nat(out_dir: str, w: dict, dims: dict, tokenizer_json: str, nat: dict, source: dict,
                   check: bool = True, precision: str = "fp32", output_vocab: str | None = None,
                   fused_layers: bool = True, shortlist: str | None = None) -> dict:
    """Write model.onnx (+ .data), tokenizer.json and manifest.json; returns the manifest. output_vocab: a
    target_vocab.json restricting the output head (module docstring), or None for the whole vocabulary.
    fused_layers: q8_0 layers as one EncoderLayerGgml node each (build_graph). shortlist: a table of
    `python -m export nat-shortlist`, copied into the folder as shortlist.json (module docstring)."""
    from tokenizers import Tokenizer  # the exporter's venv has it (requirements.txt)

    t0 = time.time()
    os.makedirs(out_dir, exist_ok=True)
    tok = Tokenizer.from_str(tokenizer_json)

    def tid(s):
        i = tok.token_to_id(s)
        if i is None:
            raise ValueError(f"the tokenizer has no {s!r} token")
        return i
    if tok.get_vocab_size() != dims["vocab_size"]:
        raise ValueError(f"tokenizer vocab {tok.get_vocab_size()} != embedding rows {dims['vocab_size']}")
    output_ids = None if output_vocab is None else read_output_vocab(output_vocab, dims["vocab_size"], tid("<blank>"))
    width = dims["vocab_size"] if output_ids is None else len(output_ids)
    table = None if shortlist is None else read_shortlist(shortlist, dims["vocab_size"], tid("<blank>"))
    files = save_model(build_graph(w, dims, precision, output_ids, fused_layers, table is not None), out_dir)
    if table is not None:
        target = os.path.join(out_dir, "shortlist.json")
        if os.path.abspath(shortlist) != os.path.abspath(target):
            with open(shortlist, "rb") as src, open(target, "wb") as dst:
                dst.write(src.read())
        files.append("shortlist.json")
    if check:
        from .pipeline import check_model
        check_model(os.path.join(out_dir, files[0]))
    with open(os.path.join(out_dir, "tokenizer.json"), "w", encoding="utf-8") as f:
        f.write(tokenizer_json)
    files.append("tokenizer.json")
    io = {"inputs": [{"name": "input_ids", "dtype": "int64", "shape": ["batch", "positions"]},
                     {"name": "attention_mask", "dtype": "int64", "shape": ["batch", "positions"]}]
          + ([{"name": "output_columns", "dtype": "int64", "shape": ["columns"]},
              {"name": "output_columns_mask", "dtype": "uint8", "shape": ["mask_rows", "columns"]}]
             if table is not None else []),
          "outputs": [{"name": "logits", "dtype": "float32",
                       "shape": ["batch", "positions", "columns" if table is not None else width]},
                      {"name": "token_ids", "dtype": "int64", "shape": ["batch", "positions"]}]}
    manifest = {
        "format": FORMAT, "format_version": FORMAT_VERSION, "kind": "ctc_nat",
        "source": source, "architecture": "ctc_nat_encoder", "dims": dims,
        "tokens": {"bos_id": None, "eos_id": tid("</s>"), "pad_id": tid("<pad>"), "stop_ids": [], "add_bos": False},
        "ctc": {"blank_id": tid("<blank>"), "mask_id": tid("<mask>"), "pad_id": tid("<pad>"),
                "upsample": {"policy": "mask_insertion", "rate": float(nat["rate"]),
                             "position_limit": dims["max_position_embeddings"],
                             "placement": "source token i at position floor(i * L / n); <mask> elsewhere",
                             "length": "L = min(max(round(rate * n), n), position_limit)"},
                "task": nat.get("task"),
                **({} if output_ids is None else {"output_ids": output_ids,
                                                  "output_vocab": {"file": os.path.basename(output_vocab),
                                                                   "sha256": sha256_file(output_vocab)}}),
                **({} if table is None else {"shortlist": {
                    "file": "shortlist.json", "sha256": sha256_file(os.path.join(out_dir, "shortlist.json")),
                    "vocab": table["vocab"], "top_k": table["top_k"], "frequent": table["frequent"],
                    "input": "output_columns"}})},
        "chat_template": None,
        "precision": {"weights": precision, "notes": [
            "fp32 MatMul; trained weights stored as fp16" if precision == "fp32" else
            "8-bit MatMulNBits (block 32, round-to-nearest from the fp16 weights), int8 activations (accuracy_level 4)"
            if precision == "int8" else
            "GGML Q8_0 blocks (block 32, round-to-nearest from the fp16 weights) on ai.specrt MatMulGgml"
            + (" and EncoderLayerGgml (one node per layer)" if fused_layers else "")
            + ", int8 activations per 32-block; runs only in the specrt engine"]},
        "graph": {"file": "model.onnx", "external_data": "model.onnx.data", **io},
        "files": {n: sha256_file(os.path.join(out_dir, n)) for n in sorted(files)},
    }
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print(f"[export] wrote CTC NAT {out_dir} in {time.time() - t0:.1f}s", file=sys.stderr)
    return manifest


def main_export(a) -> None:
    """`python -m export ctc-nat` entry."""
    if a.random:
        w = random_weights(vocab=_vocab(a.tokenizer), dim=a.dim, heads=a.heads, ffn=a.ffn, layers=a.layers,
                           positions=a.positions, seed=a.seed)
        dims = dims_of(w, a.heads)
        nat = {"rate": a.rate, "task": "none (random weights, tests only)"}
        source = {"format": "random", "seed": a.seed}
        with open(a.tokenizer, encoding="utf-8") as f:
            tok_json = f.read()
    else:
        if not a.path:
            raise SystemExit("give the recipe's output folder, or --random")
        w, man = read_weights(a.path)
        dims = dims_of(w, man["architecture"]["heads"])
        nat = {"rate": man["nat"]["rate"], "task": man.get("task")}
        with open(os.path.join(a.path, "tokenizer.json"), encoding="utf-8") as f:
            tok_json = f.read()
        source = {"format": "specrt-recipe", "path": os.path.abspath(a.path),
                  "files": {"model.safetensors": sha256_file(os.path.join(a.path, "model.safetensors"))},
                  "training": {k: man["training"].get(k) for k in ("preset", "steps_done", "pairs_seen",
                                                                   "wall_seconds")}}
    if a.rate_override:
        nat["rate"] = a.rate_override
    export_ctc_nat(a.out, w, dims, tok_json, nat, source, check=not a.no_check, precision=a.precision,
                   output_vocab=a.output_vocab, fused_layers=not a.unfused_layers, shortlist=a.shortlist)
    print(a.out)


def _vocab(tokenizer_path: str) -> int:
    with open(tokenizer_path, encoding="utf-8") as f:
        tok = json.load(f)
    ids = list(tok["model"]["vocab"].values()) + [t["id"] for t in tok.get("added_tokens", [])]
    return max(ids) + 1

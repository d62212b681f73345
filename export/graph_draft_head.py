"""Trained draft heads (CTC drafter, Medusa, EAGLE-style): ONNX graphs, numpy references, manifests.

    python -m export draft-head export/trained/smollm2-ctc-head --target models/smollm2-135m-instruct-int4 \\
        --out models/smollm2-135m-instruct-int4-ctc-head
    python -m export draft-head --random --target models/tiny-fp32 --kind ctc --out models/tiny-fp32-ctc-head

The contract (inputs, outputs, manifest keys, semantics) is export/README.md, "The draft-head contract". Weights
are the recipe's (export/train_draft_head.py; fp16 safetensors, names below) or drawn at random for tests. Every
graph is plain fp32 ONNX (opset 23: RMSNormalization; attention written out with MatMul/Softmax so the numpy
reference and the graph are op-for-op the same math). numpy + onnx only. `--precision q8_0` writes every matrix
(projections and the output head) as GGML Q8_0 blocks on the engine's ai.specrt::MatMulGgml instead (block 32,
round-to-nearest, fp16 scale: the int8 panel kernel), a quarter of the bytes a head call streams at 1-4 rows;
`--precision q4_1` the same as Q4_1 blocks (a scale and an offset per 32 weights: 0.625 bytes per weight), for heads
whose call is bound by the bytes it streams (docs/HEADS.md, "The head as one operator").

Weight names (matrices are (out, in), like torch.nn.Linear):
  all kinds:  lm_head.weight [Vd(+1 for ctc), H]
  medusa:     norm.weight [H]; heads.{j}.weight [H, H], heads.{j}.bias [H]  (j < N)
  ctc:        in_norm.weight [H]; window_pos [W, H]; slots [N, H]; attn_norm.weight; q_proj/k_proj/v_proj/o_proj
              .weight [H, H]; ffn_norm.weight; gate_proj/up_proj .weight [F, H]; down_proj.weight [H, F];
              out_norm.weight
  eagle:      embed.weight [Vd + 1, H] (row Vd = UNK); hidden_norm.weight [H]; fc.weight [H, 2H], fc.bias [H];
              then the ctc names attn_norm ... down_proj; out_norm.weight
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper

from .ggml_blocks import ggml_encode
from .graph_decoder import MS, OPSET, SPECRT, _Graph, save_model
from .manifest import FORMAT, FORMAT_VERSION, sha256_file

KINDS = ("ctc", "medusa", "eagle")
PRECISIONS = ("fp32", "q8_0", "q4_1")
# The block precisions: every matrix as GGML blocks of this type on the engine's kernels.
BLOCK_TYPES = {"q8_0": "Q8_0", "q4_1": "Q4_1"}
EPS = 1e-5
ROPE_THETA = 10000.0
STOP_IDS = (0, 1, 2)
# The weights an EAGLE head trained with `--target-rows` takes from its target instead of storing (EAGLE-1's frozen
# embedding and LM head): row i of both is the target's output-head row of draft id i, the embedding's extra UNK
# row (id Vd) is their mean. `target_rows_weights` rebuilds them; the recipe and the exporter share it.
TARGET_ROWS = ("embed.weight", "lm_head.weight")


# ---------------------------------------------------------------------------------------------------------------
# Target binding

def target_source_sha256(target_manifest: dict) -> str:
    """The sha256 that binds a head to its target checkpoint, equal for every precision exported from it:
    the sha256 of the checkpoint file when the manifest's `source.files` names exactly one file (a GGUF);
    otherwise (random tiny models, multi-file HF folders) the sha256 of the canonical JSON of the `source`
    object without its machine-dependent `path` (json.dumps(sort_keys=True, separators=(",", ":")))."""
    src = target_manifest["source"]
    files = src.get("files") or {}
    if len(files) == 1:
        return next(iter(files.values()))
    canon = {k: v for k, v in src.items() if k != "path"}
    return hashlib.sha256(json.dumps(canon, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def read_target(target_dir: str) -> dict:
    with open(os.path.join(target_dir, "manifest.json")) as f:
        m = json.load(f)
    if m.get("kind") != "decoder":
        raise ValueError(f"{target_dir}: kind {m.get('kind')!r}, a head binds to a decoder")
    return {"source_sha256": target_source_sha256(m),
            "tokenizer_sha256": sha256_file(os.path.join(target_dir, "tokenizer.json")),
            "hidden_size": m["dims"]["hidden_size"], "vocab_size": m["dims"]["vocab_size"]}


def target_head_rows(target_dir: str) -> tuple:
    """(output-head rows [V, H] float32, final-norm weight [H]) read from the target's ONNX graph (float LM head
    if there is one, else the float embedding table, which SmolLM2 ties to its head)."""
    from onnx import numpy_helper

    m = onnx.load(os.path.join(target_dir, "model.onnx"))
    inits = {t.name: t for t in m.graph.initializer}
    name = "lm_head.weight" if "lm_head.weight" in inits and inits["lm_head.weight"].data_type == 1 \
        else "embed_tokens.weight"
    return (numpy_helper.to_array(inits[name]).astype(np.float32),
            numpy_helper.to_array(inits["final_norm.weight"]).astype(np.float32))


# ---------------------------------------------------------------------------------------------------------------
# Draft vocabulary and CTC labels (pure functions, shared with the training recipe and the tests)

def build_draft_vocab(target_argmax: np.ndarray, size: int, vocab_size: int, always=STOP_IDS) -> list:
    """The `size` most frequent target ids among the target's argmax predictions (ties: lower id first), always
    including `always`; returned sorted by target id (draft id i -> target id vocab[i])."""
    counts = np.bincount(np.asarray(target_argmax, np.int64), minlength=vocab_size).astype(np.int64)
    keep = set(int(i) for i in always if i < vocab_size)
    order = np.lexsort((np.arange(vocab_size), -counts))  # by count desc, then id asc
    for i in order:
        if len(keep) >= size:
            break
        keep.add(int(i))
    return sorted(keep)


def draft_index(vocab: list, vocab_size: int) -> np.ndarray:
    """target id -> draft id table, -1 outside the draft vocabulary."""
    t = np.full(vocab_size, -1, np.int64)
    t[np.asarray(vocab, np.int64)] = np.arange(len(vocab))
    return t


def coverage(target_ids: np.ndarray, vocab: list, vocab_size: int) -> float:
    """Fraction of target_ids inside the draft vocabulary."""
    idx = draft_index(vocab, vocab_size)
    return float((idx[np.asarray(target_ids, np.int64)] >= 0).mean()) if len(target_ids) else 0.0


def ctc_labels(argmax: np.ndarray, t: int, length: int, index: np.ndarray, stop_ids=(0, 2)) -> list:
    """CTC label of committed position t: the target's next tokens after the bonus x_{t+1}, i.e. the target's
    argmax at positions t+1 .. t+length (argmax[i] predicts x_{i+1}, so these are x_{t+2} .. x_{t+1+length}),
    as DRAFT ids. The label ends early at the sequence end, after a stop token (kept), or before a token outside
    the draft vocabulary (dropped: the head cannot emit it). May be empty."""
    out = []
    for i in range(t + 1, min(t + 1 + length, len(argmax))):
        tok = int(argmax[i])
        d = int(index[tok])
        if d < 0:
            break
        out.append(d)
        if tok in stop_ids:
            break
    return out


def ctc_collapse(frames, blank: int) -> list:
    """Greedy CTC: merge repeats, drop blanks."""
    out, prev = [], None
    for f in frames:
        f = int(f)
        if f != prev and f != blank:
            out.append(f)
        prev = f
    return out


def ctc_min_frames(label: list) -> int:
    """Frames CTC needs for a label: its length plus one blank between each pair of equal neighbours."""
    return len(label) + sum(1 for a, b in zip(label, label[1:]) if a == b)


# ---------------------------------------------------------------------------------------------------------------
# Random weights (tests, engine fixtures)

def random_weights(kind: str, H: int, vd: int, slots: int, window: int, ffn: int, seed: int,
                   head_rows: np.ndarray | None = None, final_norm: np.ndarray | None = None) -> dict:
    """Small random weights with the recipe's names. When head_rows ([Vd, H], the target's output-head rows of the
    draft vocabulary) is given, the output matrix starts from it (and the output norm from the target's final
    norm): the heads then behave like the target's own head applied to (nearly) the input hidden state, i.e.
    they propose the target's next token again, which is sometimes right (repeats, runs of spaces/punctuation)."""
    rng = np.random.default_rng(seed)
    s = 0.02
    ones = np.ones(H, np.float32)
    fn = ones if final_norm is None else final_norm.astype(np.float32)
    out_rows = head_rows if head_rows is not None else rng.normal(0, 1 / np.sqrt(H), (vd, H))
    w = {}
    if kind == "medusa":
        w["norm.weight"] = fn
        for j in range(slots):
            w[f"heads.{j}.weight"] = rng.normal(0, s, (H, H))
            w[f"heads.{j}.bias"] = rng.normal(0, s, H)
        w["lm_head.weight"] = out_rows
    else:
        if kind == "ctc":
            w["in_norm.weight"] = ones
            w["window_pos"] = rng.normal(0, s, (window, H))
            w["slots"] = rng.normal(0, s, (slots, H))
            blank = rng.normal(0, 1 / np.sqrt(H), (1, H))
            w["lm_head.weight"] = np.concatenate([out_rows, blank], 0)
        else:
            w["embed.weight"] = rng.normal(0, s, (vd + 1, H))
            w["hidden_norm.weight"] = ones
            fc = rng.normal(0, s, (H, 2 * H))
            fc[:, H:] += np.eye(H)  # start as "pass the hidden state through"
            w["fc.weight"] = fc
            w["fc.bias"] = np.zeros(H)
            w["lm_head.weight"] = out_rows
        for n in ("attn_norm", "ffn_norm"):
            w[n + ".weight"] = ones
        for n in ("q_proj", "k_proj", "v_proj", "o_proj"):
            w[n + ".weight"] = rng.normal(0, s, (H, H))
        w["gate_proj.weight"] = rng.normal(0, s, (ffn, H))
        w["up_proj.weight"] = rng.normal(0, s, (ffn, H))
        w["down_proj.weight"] = rng.normal(0, s, (H, ffn))
        w["out_norm.weight"] = fn
    return {k: np.asarray(v, np.float32) for k, v in w.items()}


# ---------------------------------------------------------------------------------------------------------------
# numpy reference (float64); same math as the graphs and the torch modules

def _rms(x, w):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + EPS) * w


def _silu(x):
    return x / (1 + np.exp(-x))


def _attend(q, k, v, heads: int, bias):
    """q [Sq, H], k/v [Sk, H], additive bias [Sq, Sk] -> [Sq, H]."""
    sq, hd = q.shape[0], q.shape[1] // heads
    qh = q.reshape(sq, heads, hd).transpose(1, 0, 2)
    kh = k.reshape(-1, heads, hd).transpose(1, 0, 2)
    vh = v.reshape(-1, heads, hd).transpose(1, 0, 2)
    s = qh @ kh.transpose(0, 2, 1) / np.sqrt(hd) + bias
    s = np.exp(s - s.max(-1, keepdims=True))
    s /= s.sum(-1, keepdims=True)
    return (s @ vh).transpose(1, 0, 2).reshape(sq, -1)


def rope_tables(hd: int, n: int, theta: float = ROPE_THETA) -> tuple:
    inv = 1.0 / theta ** (np.arange(0, hd, 2, dtype=np.float64) / hd)
    ang = np.outer(np.arange(n, dtype=np.float64), inv)
    ang = np.concatenate([ang, ang], -1)
    return np.cos(ang), np.sin(ang)


def _rope(x, heads, cos, sin):
    """rotate_half rotary per head; x [S, H]."""
    s, hd = x.shape[0], x.shape[1] // heads
    xh = x.reshape(s, heads, hd)
    a, b = xh[..., : hd // 2], xh[..., hd // 2:]
    rot = np.concatenate([-b, a], -1)
    return (xh * cos[:s, None] + rot * sin[:s, None]).reshape(s, -1)


def _block(f, x, mem, heads, bias, rope=None):
    """Pre-norm block: x += o(attn(q(norm x), k/v(mem or norm x))), x += SwiGLU(norm x)."""
    h = _rms(x, f["attn_norm.weight"])
    m = h if mem is None else np.concatenate([mem, h], 0)
    q, k, v = h @ f["q_proj.weight"].T, m @ f["k_proj.weight"].T, m @ f["v_proj.weight"].T
    if rope is not None:
        q, k = _rope(q, heads, *rope), _rope(k, heads, *rope)
    x = x + _attend(q, k, v, heads, bias) @ f["o_proj.weight"].T
    h = _rms(x, f["ffn_norm.weight"])
    return x + (_silu(h @ f["gate_proj.weight"].T) * (h @ f["up_proj.weight"].T)) @ f["down_proj.weight"].T


def reference(kind: str, w: dict, cfg: dict, hidden: np.ndarray, mask=None, input_ids=None) -> dict:
    """Outputs of one head call (batch 1, no batch axis): medusa logits [N, Vd]; ctc logits [N, Vd+1];
    eagle {features [S, H], logits [S, Vd]} for EVERY row (the training view; the ONNX graph returns the last row,
    which equals row S-1 here because attention is causal). input_ids are TARGET ids (eagle)."""
    f = {k: v.astype(np.float64) for k, v in w.items()}
    hidden = np.asarray(hidden, np.float64)
    if kind == "medusa":
        x = _rms(hidden.reshape(-1)[None], f["norm.weight"])
        r = np.concatenate([x + _silu(x @ f[f"heads.{j}.weight"].T + f[f"heads.{j}.bias"])
                            for j in range(cfg["slots"])], 0)
        return {"logits": r @ f["lm_head.weight"].T}
    heads = cfg["heads"]
    if kind == "ctc":
        W, N = cfg["window"], cfg["slots"]
        mask = np.ones(W) if mask is None else np.asarray(mask, np.float64)
        kv = _rms(hidden, f["in_norm.weight"])
        x = f["slots"] + kv[-1][None]
        mem = kv + f["window_pos"]
        bias = np.concatenate([(1 - mask) * -1e9, np.zeros(N)])[None]
        x = _block(f, x, mem, heads, bias)
        return {"logits": _rms(x, f["out_norm.weight"]) @ f["lm_head.weight"].T}
    S = hidden.shape[0]
    index = np.asarray(cfg["index"])
    rows = index[np.asarray(input_ids, np.int64)]
    rows = np.where(rows < 0, f["embed.weight"].shape[0] - 1, rows)
    x = np.concatenate([f["embed.weight"][rows], _rms(hidden, f["hidden_norm.weight"])], -1)
    x = x @ f["fc.weight"].T + f["fc.bias"]
    bias = np.triu(np.full((S, S), -1e9), 1)
    x = _block(f, x, None, heads, bias, rope=rope_tables(cfg["hidden_size"] // heads, S))
    return {"features": x, "logits": _rms(x, f["out_norm.weight"]) @ f["lm_head.weight"].T}


# ---------------------------------------------------------------------------------------------------------------
# ONNX graphs

def _matmul(g, x, m, name, weight, outputs=None):
    """x @ m.T for a weight m of shape (out, in) named `weight`: an fp32 MatMul (initializer weight.T), or
    MatMulGgml over GGML blocks (weight.ggml_blocks) when the graph is built at a block precision (g.precision:
    q8_0, q4_1)."""
    kw = {} if outputs is None else {"outputs": outputs}
    block_type = BLOCK_TYPES.get(getattr(g, "precision", "fp32"))
    if block_type:
        n, k = m.shape
        if k % 32:
            raise ValueError(f"{name}: {block_type} needs an input width that is a multiple of 32, got {k}")
        blocks = ggml_encode(np.asarray(m, np.float32), block_type)
        return g.op("MatMulGgml", [x, g.init(weight + ".ggml_blocks", blocks)], domain=SPECRT, name=name, K=k, N=n,
                    ggml_type=block_type, **kw)
    return g.op("MatMul", [x, g.init(weight + ".T", np.ascontiguousarray(m.T))], name=name, **kw)


def _lin(g, x, w, name, bias=None):
    y = _matmul(g, x, w[name], name, name)
    if bias is not None:
        y = g.op("Add", [y, g.init(bias, w[bias])], name=bias)
    return y


def _norm(g, x, w, name):
    return g.op("RMSNormalization", [x, g.init(name, w[name])], name=name + "/RMS", axis=-1, epsilon=EPS)


def _heads_split(g, x, heads, hd, name):
    """[1, S, H] -> [1, heads, S, hd]."""
    r = g.op("Reshape", [x, g.init(name + ".shape", np.array([1, -1, heads, hd], np.int64))], name=name + "/R")
    return g.op("Transpose", [r], name=name + "/T", perm=[0, 2, 1, 3])


def _g_rope(g, x, cos, sin, hd, name):
    """x [1, heads, S, hd] with cos/sin [S, hd] (broadcast) -> rotate_half rotary."""
    a, b = g.op("Split", [x, g.init(name + ".split", np.array([hd // 2, hd // 2], np.int64))], n_out=2,
                name=name + "/Split", axis=-1)
    rot = g.op("Concat", [g.op("Neg", [b], name=name + "/Neg"), a], name=name + "/Rot", axis=-1)
    return g.op("Add", [g.op("Mul", [x, cos], name=name + "/MulCos"), g.op("Mul", [rot, sin], name=name + "/MulSin")],
                name=name + "/Rope")


def _g_block(g, w, x, mem, heads, H, bias, rope=None, last_only=False):
    """The pre-norm block of `_block`. last_only (eagle): queries, residual and MLP for the LAST row only, keys and
    values over every row (with causal attention the last row sees them all: no mask, bias None); rope is then
    (cos, sin, cos_last, sin_last). Returns [1, 1, H] instead of [1, S, H]."""
    hd = H // heads
    h = _norm(g, x, w, "attn_norm.weight")
    m = h if mem is None else g.op("Concat", [mem, h], name="memory/Concat", axis=1)
    if last_only:
        last = (g.init("row.last.start", np.array([-1], np.int64)), g.init("row.last.end", np.array([2**62], np.int64)),
                g.init("row.axis", np.array([1], np.int64)))
        x = g.op("Slice", [x, *last], name="x/LastRow")
        hq = g.op("Slice", [h, *last], name="h/LastRow")
    else:
        hq = h
    q = _heads_split(g, _lin(g, hq, w, "q_proj.weight"), heads, hd, "q")
    k = _heads_split(g, _lin(g, m, w, "k_proj.weight"), heads, hd, "k")
    v = _heads_split(g, _lin(g, m, w, "v_proj.weight"), heads, hd, "v")
    if rope is not None:
        qrope = rope[2:] if last_only else rope[:2]
        q, k = _g_rope(g, q, *qrope, hd, "q_rope"), _g_rope(g, k, *rope[:2], hd, "k_rope")
    kt = g.op("Transpose", [k], name="k/KT", perm=[0, 1, 3, 2])
    s = g.op("MatMul", [q, kt], name="attn/QK")
    s = g.op("Mul", [s, g.init("attn.scale", np.array(1 / np.sqrt(hd), np.float32))], name="attn/Scale")
    if bias is not None:
        s = g.op("Add", [s, bias], name="attn/Bias")
    p = g.op("Softmax", [s], name="attn/Softmax", axis=-1)
    a = g.op("MatMul", [p, v], name="attn/PV")
    a = g.op("Transpose", [a], name="attn/T", perm=[0, 2, 1, 3])
    a = g.op("Reshape", [a, g.init("attn.out_shape", np.array([1, -1, H], np.int64))], name="attn/Merge")
    x = g.op("Add", [x, _lin(g, a, w, "o_proj.weight")], name="attn/Residual")
    h = _norm(g, x, w, "ffn_norm.weight")
    gate = _lin(g, h, w, "gate_proj.weight")
    act = g.op("Mul", [g.op("Mul", [gate, g.op("Sigmoid", [gate], name="mlp/Sigmoid")], name="mlp/SiLU"),
                       _lin(g, h, w, "up_proj.weight")], name="mlp/GLU")
    return g.op("Add", [x, _lin(g, act, w, "down_proj.weight")], name="mlp/Residual")


def io_spec(kind: str, cfg: dict) -> dict:
    """Graph inputs/outputs as written into manifest.graph (batch is always 1; "seq" = S <= window for eagle)."""
    H, N, W, vd = cfg["hidden_size"], cfg["slots"], cfg["window"], cfg["draft_vocab_size"]
    f, i = "float32", "int64"
    if kind == "medusa":
        return {"inputs": [{"name": "hidden_states", "dtype": f, "shape": [1, 1, H]}],
                "outputs": [{"name": "logits", "dtype": f, "shape": [1, N, vd]}]}
    if kind == "ctc":
        return {"inputs": [{"name": "hidden_states", "dtype": f, "shape": [1, W, H]},
                           {"name": "hidden_mask", "dtype": i, "shape": [1, W]}],
                "outputs": [{"name": "logits", "dtype": f, "shape": [1, N, vd + 1]}]}
    # eagle: the outputs are the newest (last) pair's row only
    return {"inputs": [{"name": "hidden_states", "dtype": f, "shape": [1, "seq", H]},
                       {"name": "input_ids", "dtype": i, "shape": [1, "seq"]}],
            "outputs": [{"name": "features", "dtype": f, "shape": [1, 1, H]},
                        {"name": "logits", "dtype": f, "shape": [1, 1, vd]}]}


def _fused_eagle(g, w, cfg, table, block_type: str = "Q8_0") -> None:
    """The whole EAGLE head as one ai.specrt::EagleHeadGgml node (engine/kernels/eagle_head.rs): the same math as
    the node-by-node graph below, Q/K/V and gate/up stacked along N, every matrix `block_type`. Why: as ~50 ONNX nodes a call
    spent a third of its time in per-node dispatch, and the engine's kernel also remembers the pairs of recent calls
    (docs/HEADS.md, "The head as one operator")."""
    def blocks(names, name):
        stacked = np.concatenate([np.asarray(w[n], np.float32) for n in names], 0)
        if stacked.shape[1] % 32:
            raise ValueError(f"{name}: {block_type} needs an input width that is a multiple of 32, got {stacked.shape[1]}")
        return g.init(name + ".ggml_blocks", ggml_encode(stacked, block_type))
    vec = lambda n: g.init(n, np.asarray(w[n], np.float32))
    ins = ["hidden_states", "input_ids", g.init("draft_index", table), g.init("embed.weight", w["embed.weight"]),
           vec("hidden_norm.weight"), blocks(["fc.weight"], "fc.weight"), vec("fc.bias"), vec("attn_norm.weight"),
           blocks(["q_proj.weight", "k_proj.weight", "v_proj.weight"], "qkv_proj"), blocks(["o_proj.weight"], "o_proj.weight"),
           vec("ffn_norm.weight"), blocks(["gate_proj.weight", "up_proj.weight"], "gate_up_proj"),
           blocks(["down_proj.weight"], "down_proj.weight"), vec("out_norm.weight"),
           blocks(["lm_head.weight"], "lm_head.weight")]
    g.op("EagleHeadGgml", ins, n_out=2, domain=SPECRT, name="eagle_head", outputs=["features", "logits"],
         hidden=cfg["hidden_size"], num_heads=cfg["heads"], ffn=int(w["gate_proj.weight"].shape[0]),
         vocab=int(w["lm_head.weight"].shape[0]), epsilon=float(EPS), rope_theta=float(ROPE_THETA), ggml_type=block_type)


def build_graph(kind: str, w: dict, cfg: dict, precision: str = "fp32", fused: bool = True) -> onnx.ModelProto:
    """The head's graph. A block precision (q8_0, q4_1) + fused (the default) writes an EAGLE head as one
    ai.specrt::EagleHeadGgml node; fused=False keeps it node by node around MatMulGgml (for comparisons)."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}")
    g = _Graph()
    g.precision = precision
    H, N, W = cfg["hidden_size"], cfg["slots"], cfg["window"]
    if kind == "eagle" and precision in BLOCK_TYPES and fused:
        table = np.asarray(cfg["index"], np.int64).copy()
        table[table < 0] = w["embed.weight"].shape[0] - 1
        _fused_eagle(g, w, cfg, table, BLOCK_TYPES[precision])
    elif kind == "medusa":
        x = _norm(g, "hidden_states", w, "norm.weight")  # [1, 1, H]
        cat = np.concatenate([w[f"heads.{j}.weight"] for j in range(N)], 0)  # [N*H, H]
        y = _matmul(g, x, cat, "heads/MatMul", "heads.weight")
        y = g.op("Add", [y, g.init("heads.bias", np.concatenate([w[f"heads.{j}.bias"] for j in range(N)]))],
                 name="heads/Bias")
        y = g.op("Mul", [y, g.op("Sigmoid", [y], name="heads/Sigmoid")], name="heads/SiLU")
        y = g.op("Reshape", [y, g.init("heads.shape", np.array([1, N, H], np.int64))], name="heads/Reshape")
        r = g.op("Add", [y, x], name="heads/Residual")
        _matmul(g, r, w["lm_head.weight"], "lm_head", "lm_head.weight", outputs=["logits"])
    elif kind == "ctc":
        kv = _norm(g, "hidden_states", w, "in_norm.weight")  # [1, W, H]
        last = g.op("Slice", [kv, g.init("last.start", np.array([-1], np.int64)),
                              g.init("last.end", np.array([W], np.int64)), g.init("last.axis", np.array([1], np.int64))],
                    name="last/Slice")
        x = g.op("Add", [g.init("slots", w["slots"][None]), last], name="slots/Add")
        mem = g.op("Add", [kv, g.init("window_pos", w["window_pos"][None])], name="window/Pos")
        mf = g.op("Cast", ["hidden_mask"], name="mask/Cast", to=TensorProto.FLOAT)
        neg = g.op("Mul", [g.op("Sub", [g.init("one", np.array(1, np.float32)), mf], name="mask/Not"),
                           g.init("neg_inf", np.array(-1e9, np.float32))], name="mask/Neg")
        bias = g.op("Concat", [neg, g.init("slot_bias", np.zeros((1, N), np.float32))], name="mask/Concat", axis=1)
        bias = g.op("Reshape", [bias, g.init("bias.shape", np.array([1, 1, 1, W + N], np.int64))],
                    name="mask/Reshape")
        x = _g_block(g, w, x, mem, cfg["heads"], H, bias)
        h = _norm(g, x, w, "out_norm.weight")
        _matmul(g, h, w["lm_head.weight"], "lm_head", "lm_head.weight", outputs=["logits"])
    else:
        heads, hd = cfg["heads"], H // cfg["heads"]
        table = np.asarray(cfg["index"], np.int64).copy()
        table[table < 0] = w["embed.weight"].shape[0] - 1
        rows = g.op("Gather", [g.init("draft_index", table), "input_ids"], name="draft_index/Gather", axis=0)
        e = g.op("Gather", [g.init("embed.weight", w["embed.weight"]), rows], name="embed/Gather", axis=0)
        hn = _norm(g, "hidden_states", w, "hidden_norm.weight")
        x = g.op("Concat", [e, hn], name="fc/Concat", axis=-1)
        x = _lin(g, x, w, "fc.weight", "fc.bias")
        # Only the newest pair's feature and logits are computed (the engine reads nothing else): the output
        # matrix dominates a call, so the cost no longer grows with S in it (docs/HEADS.md, measured).
        S = g.op("Shape", ["input_ids"], name="seq/Shape", start=1, end=2)
        S1 = g.op("Sub", [S, g.init("one_i64", np.array([1], np.int64))], name="seq/Last")
        zero = g.init("zero", np.array([0], np.int64))
        axis0 = g.init("axis0", np.array([0], np.int64))
        cos_t, sin_t = (g.init(n, t.astype(np.float32)) for n, t in zip(("rope.cos", "rope.sin"), rope_tables(hd, W)))
        cos = g.op("Slice", [cos_t, zero, S, axis0], name="rope/cos")
        sin = g.op("Slice", [sin_t, zero, S, axis0], name="rope/sin")
        cos_last = g.op("Slice", [cos_t, S1, S, axis0], name="rope/cos_last")
        sin_last = g.op("Slice", [sin_t, S1, S, axis0], name="rope/sin_last")
        x = _g_block(g, w, x, None, heads, H, None, rope=(cos, sin, cos_last, sin_last), last_only=True)
        g.op("Identity", [x], name="features/Identity", outputs=["features"])
        h = _norm(g, x, w, "out_norm.weight")
        _matmul(g, h, w["lm_head.weight"], "lm_head", "lm_head.weight", outputs=["logits"])
    spec = io_spec(kind, cfg)
    dt = {"float32": TensorProto.FLOAT, "int64": TensorProto.INT64}
    graph = helper.make_graph(
        g.nodes, f"specrt_{kind}_head",
        [helper.make_tensor_value_info(s["name"], dt[s["dtype"]], s["shape"]) for s in spec["inputs"]],
        [helper.make_tensor_value_info(s["name"], dt[s["dtype"]], s["shape"]) for s in spec["outputs"]],
        initializer=g.inits)
    opsets = [helper.make_opsetid("", OPSET), helper.make_opsetid(MS, 1)]
    if precision in BLOCK_TYPES:
        opsets.append(helper.make_opsetid(SPECRT, 1))
    model = helper.make_model(graph, opset_imports=opsets, producer_name="specrt-export")
    model.ir_version = 11
    return model


# ---------------------------------------------------------------------------------------------------------------
# Export

def export_head(out_dir: str, kind: str, w: dict, cfg: dict, vocab: list, target: dict, source: dict,
                coverage_info: dict, check: bool = True, label_len: int | None = None, precision: str = "fp32",
                fused: bool = True) -> dict:
    """Write model.onnx (+ .data), draft_vocab.json and manifest.json; returns the manifest. fused: see
    build_graph."""
    t0 = time.time()
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}")
    vd = len(vocab)
    if w["lm_head.weight"].shape != (vd + (1 if kind == "ctc" else 0), cfg["hidden_size"]):
        raise ValueError(f"lm_head {w['lm_head.weight'].shape} does not fit Vd={vd}, H={cfg['hidden_size']}")
    if cfg["hidden_size"] != target["hidden_size"]:
        raise ValueError(f"head hidden size {cfg['hidden_size']} != target's {target['hidden_size']}")
    if max(vocab) >= target["vocab_size"] or len(set(vocab)) != vd:
        raise ValueError("draft vocabulary ids must be unique target ids")
    cfg = dict(cfg, draft_vocab_size=vd, index=draft_index(vocab, target["vocab_size"]))
    os.makedirs(out_dir, exist_ok=True)
    files = save_model(build_graph(kind, w, cfg, precision, fused), out_dir)
    one_node = kind == "eagle" and precision in BLOCK_TYPES and fused
    if check and precision == "fp32":
        onnx.checker.check_model(os.path.join(out_dir, files[0]), full_check=True)
    elif check:
        # The checker's full check runs shape inference, which knows no ai.specrt operator.
        onnx.checker.check_model(os.path.join(out_dir, files[0]))
    with open(os.path.join(out_dir, "draft_vocab.json"), "w") as f:
        json.dump([int(i) for i in vocab], f)
        f.write("\n")
    files.append("draft_vocab.json")
    head = {"kind": kind, "slots": cfg["slots"], "window": cfg["window"], "draft_vocab_size": vd,
            "blank_id": vd if kind == "ctc" else None}
    if kind != "medusa":
        head["num_heads"] = cfg["heads"]
        head["intermediate_size"] = cfg["ffn"]
    if kind == "eagle":
        head["rope_theta"] = ROPE_THETA
        head["unk_row"] = vd
    if kind == "ctc" and label_len:
        head["label_len"] = int(label_len)
    manifest = {
        "format": FORMAT, "format_version": FORMAT_VERSION, "kind": "draft_head",
        "head": head, "target": target,
        "draft_vocab": {"file": "draft_vocab.json", "size": vd, **coverage_info},
        "graph": {"file": "model.onnx", "external_data": "model.onnx.data", **io_spec(kind, cfg)},
        "precision": {"weights": precision, "notes": [
            "fp32 MatMul (trained weights stored as fp16)" if precision == "fp32" else
            f"GGML {BLOCK_TYPES.get(precision)} blocks (block 32, round-to-nearest from the fp16 weights) on ai.specrt "
            "MatMulGgml, int8 activations per 32-block (the engine's panel kernel)" + (
                "; the whole head one ai.specrt EagleHeadGgml node (engine/kernels/eagle_head.rs)" if one_node else
                "")]},
        "source": source,
        "files": {n: sha256_file(os.path.join(out_dir, n)) for n in sorted(files)},
    }
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print(f"[export] wrote {kind} draft head {out_dir} in {time.time() - t0:.1f}s", file=sys.stderr)
    return manifest


# ctc: the CTC drafter's public configuration (6 slot frames, 3-token labels); every kind drafts up to 3 tokens
# after the bonus token (DRAFTERS.md: chains of ~2 drafts are the sweet spot on these CPUs)
DEFAULTS = {"ctc": dict(slots=6, window=8, heads=8, ffn=1536), "medusa": dict(slots=3, window=1),
            "eagle": dict(slots=3, window=16, heads=9, ffn=1536)}


def random_head(target_dir: str, kind: str, out_dir: str, seed: int = 0, draft_vocab_size: int | None = None,
                check: bool = True, precision: str = "fp32", fused: bool = True) -> dict:
    """A random-weight head bound to target_dir (engine tests). The draft vocabulary is the stop ids plus the
    lowest target ids up to draft_vocab_size (default: half the target vocabulary, at most 8192); the output
    matrix starts from the target's own head rows (see random_weights)."""
    tgt = read_target(target_dir)
    V, H = tgt["vocab_size"], tgt["hidden_size"]
    vd = draft_vocab_size or min(8192, V // 2)
    vocab = sorted(set(STOP_IDS) | set(range(vd)))[:vd]
    rows, fnorm = target_head_rows(target_dir)
    d = dict(DEFAULTS[kind])
    if kind != "medusa":
        d["heads"] = 4 if H % 4 == 0 and H < 256 else d["heads"]
        d["ffn"] = min(d["ffn"], 2 * H)
    w = random_weights(kind, H, vd, d["slots"], d["window"], d.get("ffn", 0), seed, rows[vocab], fnorm)
    cfg = dict(d, hidden_size=H)
    source = {"recipe": "random", "seed": seed, "init": "output rows = the target's head rows of the draft "
              "vocabulary, output norm = the target's final norm; everything else N(0, 0.02)"}
    return export_head(out_dir, kind, w, cfg, vocab, tgt, source, {"coverage": None}, check=check, precision=precision,
                       fused=fused)


def target_rows_weights(head_rows: np.ndarray, vocab: list) -> dict:
    """The `TARGET_ROWS` weights of a `--target-rows` EAGLE head from the target's output-head rows [V, H]: rounded
    through float16 first, as the training cache stores them, so the export holds what the head was trained with."""
    rows = np.asarray(head_rows)[np.asarray(vocab, np.int64)].astype(np.float16).astype(np.float32)
    return {"embed.weight": np.concatenate([rows, rows.mean(0, keepdims=True)], 0), "lm_head.weight": rows}


def read_folder(folder: str) -> tuple:
    """(MANIFEST, draft vocabulary, weights float32) of a recipe output folder as stored: a `--target-rows` head's
    embedding and output rows are not among the weights ([`read_trained`] adds them from the target)."""
    from .compact_weights import read_weights

    with open(os.path.join(folder, "MANIFEST.json")) as f:
        man = json.load(f)
    with open(os.path.join(folder, "draft_vocab.json")) as f:
        vocab = json.load(f)
    return man, vocab, read_weights(os.path.join(folder, "model.safetensors"))


def read_trained(folder: str, target_dir: str | None = None) -> tuple:
    """(kind, weights float32, cfg, vocab, MANIFEST) of a recipe output folder (fp16 weights as the recipe writes
    them, or compacted by export/compact_weights.py). A head trained with `--target-rows` stores no embedding or
    output rows: they are read from `target_dir` (the target it is bound to), which it then needs."""
    man, vocab, w = read_folder(folder)
    cfg = dict(man["architecture"])
    missing = [n for n in cfg.get("target_rows") or () if n not in w]
    if missing:
        if target_dir is None:
            raise ValueError(f"{folder}: {missing} come from the target (trained with --target-rows); give the "
                             "target folder")
        w.update(target_rows_weights(target_head_rows(target_dir)[0], vocab))
    return man["head"]["kind"], w, cfg, vocab, man


def main_export(a) -> None:
    """`python -m export draft-head` entry."""
    if a.random:
        if not a.kind:
            raise SystemExit("--random needs --kind")
        random_head(a.target, a.kind, a.out, seed=a.seed, draft_vocab_size=a.draft_vocab_size,
                    check=not a.no_check, precision=a.precision, fused=not getattr(a, "unfused_layers", False))
    else:
        if not a.path:
            raise SystemExit("give the recipe's output folder (export/trained/smollm2-<kind>-head), or --random")
        tgt = read_target(a.target)
        with open(os.path.join(a.path, "MANIFEST.json")) as f:
            trained_for = json.load(f)["target"]
        for k in ("source_sha256", "tokenizer_sha256", "hidden_size", "vocab_size"):
            if trained_for[k] != tgt[k]:
                raise SystemExit(f"{a.path} was trained for another target: {k} {trained_for[k]} != {tgt[k]} "
                                 f"of {a.target}")
        # checked first: a --target-rows head takes its embedding and output rows from this target
        kind, w, cfg, vocab, man = read_trained(a.path, a.target)
        source = {"recipe": "export/train_draft_head.py", "path": os.path.abspath(a.path),
                  "weights_sha256": sha256_file(os.path.join(a.path, "model.safetensors")),
                  "steps": man["training"]["steps_done"], "wall_seconds": man["training"]["wall_seconds"],
                  "offline_eval": man.get("eval")}
        cov = {k: man["draft_vocab"][k] for k in ("coverage", "coverage_train", "measured_on")
               if k in man["draft_vocab"]}
        export_head(a.out, kind, w, cfg, vocab, tgt, source, cov, check=not a.no_check,
                    label_len=man["head"].get("label_len"), precision=a.precision, fused=not getattr(a, "unfused_layers", False))
    print(a.out)

"""How to run GGML Q4_1 weights (value = d*q + m per 32-block) in ONNX Runtime's MatMulNBits: measured, not guessed.

    python -m export.bench_q4_1 ops [--threads 2] [--layers 30] [--rounds 5] [--json OUT]
    python -m export.bench_q4_1 variant SRC_DIR OUT_DIR --mode float-zp|blocksum-rows
    python -m export.bench_q4_1 nll --model fp32=DIR --model int4=DIR ... --ref fp32 [--chunks 64] [--json OUT]
    python -m export.bench_q4_1 chunks --tokenizer DIR [--chunks 64] [--chunk 256] --out FILE.json

`ops` times every way of expressing Q4_1 on SmolLM2-135M's real projection shapes (30 copies of each, one
session per variant and shape, the variants interleaved round by round so background load hits all alike) at
M = 1 (decode) and M = 32 (prefill), and checks each against a float64 reference of d*q + m:
- `uint8-zp`: MatMulNBits with an integer zero point round(-m/d) (NOT Q4_1: the speed floor, lossy);
- `float-zp`: MatMulNBits with a float zero point -m/d, d*(q - (-m/d)) = d*q + m, i.e. Q4_1 in one node;
- `offset`: what the exporter writes: zero point 0 + Reshape/ReduceSum(x over 32-blocks)/MatMul(m^T)/Add;
- `blocksum-rows`: the 32-block sums of x as nb extra 0/1 indicator rows of the same MatMulNBits (so they come
  from the same int8-quantized x, like llama.cpp's Q4_1 x Q8_1 dot product), then Split/MatMul(m^T)/Add.
Prints a table and writes JSON (the CPU named). `variant` rewrites an exported int4 folder whose projections carry
the offset term into one of the other forms, for whole-model timing (`python -m export bench A B`).
`nll`: held-out NLL (export.space_quality's chunks) of several folders, each paired with a reference (the fp32
export = the GGUF's own dequantized weights): the difference with its standard error, and the largest logit
difference. `chunks` writes the same held-out chunks as token ids for a model folder's tokenizer, for the engine's
own measurement (examples/rust/heldout_nll.rs, which runs the engine's custom kernels Python cannot load).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from .quantize import BLOCK, _pack_codes, _pack_zero_points
from .train_space import cpu_name  # (torch is imported there lazily: fine in .venv, as export.space_quality does)

MS = "com.microsoft"
# SmolLM2-135M: (name, K, N) of the four projections of a layer (q|k|v and gate|up are packed in the export).
SHAPES = (("qkv", 576, 960), ("o", 576, 576), ("gate_up", 576, 3072), ("down", 1536, 576))
VARIANTS = ("uint8-zp", "float-zp", "offset", "blocksum-rows")


def log(msg: str) -> None:
    print(f"[bench_q4_1] {msg}", file=sys.stderr, flush=True)


def random_q4_1(rng, n: int, k: int) -> dict:
    """Random Q4_1-like blocks: codes 0..15, d > 0, m ~ the block minimum (negative, like real weights)."""
    nb = k // BLOCK
    d = rng.uniform(0.002, 0.02, (n, nb)).astype(np.float16).astype(np.float32)
    m = (-d * rng.uniform(4.0, 11.0, (n, nb))).astype(np.float16).astype(np.float32)
    q = rng.integers(0, 16, (n, nb, BLOCK)).astype(np.uint8)
    return {"q": q, "d": d, "m": m}


def q4_1_float_zero_point(d: np.ndarray, m: np.ndarray) -> tuple:
    """(scale, float zero point) with scale*(q - zp) = d*q + m. A block with d == 0 holds m everywhere; it gets
    scale -m and zero point 1 over codes that must then be 0 (returned as the mask of such blocks)."""
    flat = d == 0
    scale = np.where(flat, -m, d).astype(np.float32)
    zp = np.where(flat, 1.0, -m / np.where(flat, 1.0, d)).astype(np.float32)
    return scale, zp, flat


def _nbits(g: list, inits: list, x: str, name: str, q: np.ndarray, scale: np.ndarray, zp, acc: int) -> str:
    """Append one 4-bit MatMulNBits node (q [N, nb, 32] codes, scale [N, nb], zp uint8 [N, nb] / float / None)."""
    n, nb, _ = q.shape
    ins = [x, f"{name}.B", f"{name}.scales"]
    inits += [numpy_helper.from_array(_pack_codes(q, 4), f"{name}.B"),
              numpy_helper.from_array(np.ascontiguousarray(scale.reshape(-1).astype(np.float32)), f"{name}.scales")]
    if zp is not None:
        arr = zp.reshape(-1).astype(np.float32) if zp.dtype == np.float32 else _pack_zero_points(zp, 4)
        inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), f"{name}.zp"))
        ins.append(f"{name}.zp")
    g.append(helper.make_node("MatMulNBits", ins, [f"{name}.y"], name=f"{name}/MatMulNBits", domain=MS, K=nb * BLOCK,
                              N=n, bits=4, block_size=BLOCK, accuracy_level=acc))
    return f"{name}.y"


def projection(g: list, inits: list, x: str, name: str, w: dict, variant: str, acc: int = 4) -> str:
    """Nodes computing x @ (d*q + m)^T in the given variant; returns the output name."""
    q, d, m = w["q"], w["d"], w["m"]
    n, nb, _ = q.shape
    if variant == "uint8-zp":
        zp = np.clip(np.rint(-m / np.where(d == 0, 1, d)), 0, 15).astype(np.uint8)
        return _nbits(g, inits, x, name, q, d, zp, acc)
    if variant == "float-zp":
        scale, zp, flat = q4_1_float_zero_point(d, m)
        return _nbits(g, inits, x, name, np.where(flat[..., None], 0, q).astype(np.uint8), scale, zp, acc)
    mt = numpy_helper.from_array(np.ascontiguousarray(m.T.astype(np.float32)), f"{name}.offset_t")
    inits.append(mt)
    if variant == "offset":
        y = _nbits(g, inits, x, name, q, d, np.zeros((n, nb), np.uint8), acc)
        inits += [numpy_helper.from_array(np.array([0, 0, nb, BLOCK], np.int64), f"{name}.block_shape"),
                  numpy_helper.from_array(np.array([-1], np.int64), f"{name}.block_axes")]
        g += [helper.make_node("Reshape", [x, f"{name}.block_shape"], [f"{name}.xb"], name=f"{name}/BlockReshape"),
              helper.make_node("ReduceSum", [f"{name}.xb", f"{name}.block_axes"], [f"{name}.s"], keepdims=0,
                               name=f"{name}/BlockSum")]
    elif variant == "blocksum-rows":
        ind = (np.arange(nb)[:, None, None] == np.arange(nb)[None, :, None]).repeat(BLOCK, -1).astype(np.uint8)
        qa = np.concatenate([q, ind])
        sa = np.concatenate([d, np.ones((nb, nb), np.float32)])
        ya = _nbits(g, inits, x, name, qa, sa, np.zeros((n + nb, nb), np.uint8), acc)
        inits.append(numpy_helper.from_array(np.array([n, nb], np.int64), f"{name}.split"))
        y = f"{name}.y0"
        g.append(helper.make_node("Split", [ya, f"{name}.split"], [y, f"{name}.s"], axis=-1, name=f"{name}/Split"))
    else:
        raise ValueError(f"unknown variant {variant!r}")
    g += [helper.make_node("MatMul", [f"{name}.s", f"{name}.offset_t"], [f"{name}.off"], name=f"{name}/OffsetMatMul"),
          helper.make_node("Add", [y, f"{name}.off"], [f"{name}.out"], name=f"{name}/AddOffset")]
    return f"{name}.out"


def shape_model(weights: list, k: int, variant: str) -> onnx.ModelProto:
    """One graph: every copy in `weights` applied to the same input x [1, M, K], outputs summed (one output)."""
    g, inits = [], []
    outs = [projection(g, inits, "x", f"p{i}", w, variant) for i, w in enumerate(weights)]
    g.append(helper.make_node("Sum", outs, ["y"], name="Sum"))
    n = weights[0]["q"].shape[0]
    graph = helper.make_graph(g, f"q4_1_{variant}", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, "M", k])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, "M", n])], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid(MS, 1)])
    model.ir_version = 10
    return model


def _session(model: onnx.ModelProto, threads: int):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])


def bench_ops(threads: int, layers: int, rounds: int, reps: int, ms: tuple, seed: int = 0) -> dict:
    """Per shape and M: ms per `layers` copies (one step's worth) for every variant, plus the error vs float64."""
    rng = np.random.default_rng(seed)
    rows = []
    for name, k, n in SHAPES:
        weights = [random_q4_1(rng, n, k) for _ in range(layers)]
        sessions = {v: _session(shape_model(weights, k, v), threads) for v in VARIANTS}
        for m_rows in ms:
            x = rng.standard_normal((1, m_rows, k)).astype(np.float32)
            ref = np.zeros((m_rows, n), np.float64)
            for w in weights:
                eff = (w["d"][..., None].astype(np.float64) * w["q"] + w["m"][..., None]).reshape(n, k)
                ref += x[0].astype(np.float64) @ eff.T
            times = {v: [] for v in VARIANTS}
            err = {}
            for v, s in sessions.items():
                y = s.run(None, {"x": x})[0][0]
                err[v] = float(np.abs(y - ref).max() / np.abs(ref).max())
                for _ in range(3):
                    s.run(None, {"x": x})
            for _ in range(rounds):
                for v, s in sessions.items():
                    t0 = time.perf_counter()
                    for _ in range(reps):
                        s.run(None, {"x": x})
                    times[v].append((time.perf_counter() - t0) / reps * 1e3)
            for v in VARIANTS:
                rows.append({"shape": name, "K": k, "N": n, "M": m_rows, "variant": v,
                             "ms_median": round(statistics.median(times[v]), 4), "ms_best": round(min(times[v]), 4),
                             "max_rel_error": err[v]})
            log(f"{name} M={m_rows}: " + ", ".join(f"{v} {statistics.median(times[v]):.3f} ms" for v in VARIANTS))
        del sessions
    return {"cpu": cpu_name(), "threads": threads, "layers": layers, "rounds": rounds, "reps": reps,
            "onnxruntime": __import__("onnxruntime").__version__, "rows": rows}


def print_table(res: dict) -> None:
    """Markdown table: ms per step (all copies) per variant, and the ratio to the current `offset` export."""
    print(f"\nQ4_1 in MatMulNBits, {res['layers']} copies per shape, {res['threads']} threads, ORT "
          f"{res['onnxruntime']}, {res['cpu']} (median of {res['rounds']} rounds x {res['reps']} runs)\n")
    print("| shape (K x N) | M | " + " | ".join(VARIANTS) + " | max rel. error (" + ", ".join(VARIANTS) + ") |")
    print("|---|---|" + "---|" * len(VARIANTS) + "---|")
    by = {}
    for r in res["rows"]:
        by.setdefault((r["shape"], r["K"], r["N"], r["M"]), {})[r["variant"]] = r
    for (name, k, n, m_rows), vs in by.items():
        base = vs["offset"]["ms_median"]
        cells = [f"{vs[v]['ms_median']:.3f} ms ({vs[v]['ms_median'] / base:.2f}x)" for v in VARIANTS]
        errs = ", ".join(f"{vs[v]['max_rel_error']:.1e}" for v in VARIANTS)
        print(f"| {name} ({k} x {n}) | {m_rows} | " + " | ".join(cells) + f" | {errs} |")


# -- rewriting an exported folder ------------------------------------------------------------------------------
def rewrite_offsets(model: onnx.ModelProto, mode: str) -> int:
    """Replace every `<p>/BlockReshape..AddOffset` offset term of an exported graph by `mode`; returns the count."""
    g = model.graph
    inits = {t.name: t for t in g.initializer}
    nodes = {nd.name: nd for nd in g.node}
    drop, new_nodes, new_inits, count = set(), [], [], 0
    for nd in g.node:
        p = nd.name[: -len("/MatMulNBits")] if nd.op_type == "MatMulNBits" else None
        if p is None or f"{p}.offset_t" not in inits or f"{p}/BlockSum" not in nodes:  # only the exporter's form
            new_nodes.append(nd)
            continue
        count += 1
        attrs = {a.name: helper.get_attribute_value(a) for a in nd.attribute}
        n, nb = attrs["N"], attrs["K"] // BLOCK
        packed = numpy_helper.to_array(inits[nd.input[1]])
        q = np.stack([packed & 0x0F, packed >> 4], -1).reshape(n, nb, BLOCK)
        d = numpy_helper.to_array(inits[nd.input[2]]).reshape(n, nb)
        m = numpy_helper.to_array(inits[f"{p}.offset_t"]).T
        sub = []
        projection(sub, new_inits, nd.input[0], f"{p}.{mode}", {"q": q, "d": d, "m": m}, mode, acc=attrs["accuracy_level"])
        sub[-1].output[0] = nodes[f"{p}/AddOffset"].output[0]  # the last new node writes what the offset Add wrote
        new_nodes += sub
        drop |= {f"{p}/BlockReshape", f"{p}/BlockSum", f"{p}/OffsetMatMul", f"{p}/AddOffset"}
    keep = [_copy(nd) for nd in new_nodes if nd.name not in drop]
    used = {i for nd in keep for i in nd.input}
    kept_inits = [_copy(t) for t in list(g.initializer) + new_inits if t.name in used]
    del g.node[:]
    g.node.extend(keep)
    del g.initializer[:]
    g.initializer.extend(kept_inits)
    return count


def _copy(msg):
    """A detached copy of a protobuf message (the graph's repeated fields are cleared and refilled)."""
    out = type(msg)()
    out.CopyFrom(msg)
    return out


def make_variant(src: str, out: str, mode: str) -> int:
    """Copy exported folder `src` to `out` with its offset terms rewritten (model.onnx + .data, manifest note)."""
    from .graph_decoder import save_model

    model = onnx.load(os.path.join(src, "model.onnx"))
    count = rewrite_offsets(model, mode)
    if not count:
        raise SystemExit(f"{src}: no Q4_1 offset terms to rewrite (export it with the offset form)")
    os.makedirs(out, exist_ok=True)
    save_model(model, out)
    shutil.copy(os.path.join(src, "tokenizer.json"), out)
    with open(os.path.join(src, "manifest.json")) as f:
        manifest = json.load(f)
    manifest.setdefault("precision", {}).setdefault("notes", []).append(
        f"bench_q4_1 variant: {count} offset terms rewritten as {mode} (measurement copy, not a release export)")
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
    return count


# -- numerics on a real model -----------------------------------------------------------------------------------
def chunk_nll(dec, ids: list) -> tuple:
    """(mean next-token NLL of one chunk, its logits [len-1, V]) in one prefill."""
    logits = dec.forward(ids, np.arange(len(ids)), 0)[:-1].astype(np.float64)
    mx = logits.max(-1, keepdims=True)
    lse = mx[:, 0] + np.log(np.exp(logits - mx).sum(-1))
    return float(np.mean(lse - logits[np.arange(len(ids) - 1), ids[1:]])), logits


def compare_nll(models: dict, ref: str, n_chunks: int, chunk: int, threads: int) -> dict:
    """Held-out NLL per model (the chunks of export.space_quality: prose + stdlib code, held-out split) and, per
    model, the paired NLL difference to `ref` with its standard error over chunks and the largest logit
    difference to `ref` at any position."""
    import tempfile

    from tokenizers import Tokenizer

    from .ort_runner import OrtDecoder
    from .space_quality import heldout_chunks

    tok = Tokenizer.from_file(os.path.join(models[ref], "tokenizer.json"))
    chunks, src = heldout_chunks(tok, n_chunks, chunk, tempfile.mkdtemp(prefix="specrt-q41-"))
    decs = {name: OrtDecoder(d, capacity=chunk + 8, threads=threads) for name, d in models.items()}
    per = {name: [] for name in models}
    max_diff = {name: 0.0 for name in models}
    for i, ids in enumerate(chunks):
        ref_nll, ref_logits = chunk_nll(decs[ref], ids)
        for name, dec in decs.items():
            v, logits = (ref_nll, ref_logits) if name == ref else chunk_nll(dec, ids)
            per[name].append(v)
            max_diff[name] = max(max_diff[name], float(np.abs(logits - ref_logits).max()))
        log(f"chunk {i + 1}/{len(chunks)}")
    out = {"cpu": cpu_name(), "threads": threads, "chunks": len(chunks), "chunk_tokens": chunk, "sources": src,
           "reference": ref, "models": {}}
    for name in models:
        diff = np.array(per[name]) - np.array(per[ref])
        out["models"][name] = {"dir": models[name], "nll": round(float(np.mean(per[name])), 5),
                               "diff_vs_ref": round(float(diff.mean()), 5),
                               "diff_se": round(float(diff.std(ddof=1) / np.sqrt(len(diff))), 5) if len(diff) > 1 else None,
                               "max_abs_logit_diff_vs_ref": round(max_diff[name], 4)}
    return out


def print_nll(res: dict) -> None:
    """Markdown table of compare_nll."""
    print(f"\nHeld-out NLL, {res['chunks']} chunks x {res['chunk_tokens']} tokens, reference {res['reference']}, "
          f"{res['cpu']}\n")
    print("| model | NLL (nats/token) | minus reference (+- 2 s.e.) | max logit diff vs reference |")
    print("|---|---|---|---|")
    for name, r in res["models"].items():
        se = f" +- {2 * r['diff_se']:.4f}" if r["diff_se"] is not None else ""
        print(f"| {name} | {r['nll']:.4f} | {r['diff_vs_ref']:+.4f}{se} | {r['max_abs_logit_diff_vs_ref']:.3f} |")


def main(argv=None) -> int:
    """CLI (see the module docstring)."""
    ap = argparse.ArgumentParser(prog="python -m export.bench_q4_1")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("ops", help="time the Q4_1 forms on SmolLM2's projection shapes")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--layers", type=int, default=30, help="copies per shape (SmolLM2 has 30 layers)")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--m", default="1,32", help="rows of x (1 = decode)")
    p.add_argument("--json", default=None)
    p = sub.add_parser("variant", help="rewrite an exported folder's offset terms into another form")
    p.add_argument("src")
    p.add_argument("out")
    p.add_argument("--mode", choices=[v for v in VARIANTS if v != "offset"], required=True,
                   help="uint8-zp is NOT Q4_1 (lossy): the speed ceiling of a one-node form")
    p = sub.add_parser("nll", help="held-out NLL and logit differences of exported folders vs a reference")
    p.add_argument("--model", action="append", required=True, help="NAME=DIR (repeatable)")
    p.add_argument("--ref", required=True, help="the NAME all others are compared with (e.g. the fp32 export)")
    p.add_argument("--chunks", type=int, default=64)
    p.add_argument("--chunk", type=int, default=256)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--json", default=None)
    p = sub.add_parser("chunks", help="write the held-out chunks as token ids (for examples/rust/heldout_nll.rs)")
    p.add_argument("--tokenizer", required=True, help="a model folder with tokenizer.json")
    p.add_argument("--chunks", type=int, default=64)
    p.add_argument("--chunk", type=int, default=256)
    p.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    if a.cmd == "chunks":
        import tempfile

        from tokenizers import Tokenizer

        from .space_quality import heldout_chunks

        tok = Tokenizer.from_file(os.path.join(a.tokenizer, "tokenizer.json"))
        chunks, src = heldout_chunks(tok, a.chunks, a.chunk, tempfile.mkdtemp(prefix="specrt-chunks-"))
        _write_json(a.out, {"chunks": [list(map(int, c)) for c in chunks], "chunk_tokens": a.chunk, "sources": src})
        log(f"wrote {len(chunks)} chunks of {a.chunk} tokens to {a.out}")
        return 0
    if a.cmd == "nll":
        models = dict(m.split("=", 1) for m in a.model)
        if a.ref not in models:
            ap.error(f"--ref {a.ref} is not one of the --model names {sorted(models)}")
        res = compare_nll(models, a.ref, a.chunks, a.chunk, a.threads)
        print_nll(res)
        _write_json(a.json, res)
        return 0
    if a.cmd == "variant":
        log(f"rewrote {make_variant(a.src, a.out, a.mode)} offset terms -> {a.out}")
        return 0
    res = bench_ops(a.threads, a.layers, a.rounds, a.reps, tuple(int(v) for v in a.m.split(",")))
    print_table(res)
    _write_json(a.json, res)
    return 0


def _write_json(path, res: dict) -> None:
    if path:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w") as f:
            json.dump(res, f, indent=2)
        log(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())

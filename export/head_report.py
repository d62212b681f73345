"""Figures for docs/HEADS.md: head-call timings vs one target decode step, and the training curves.

    python -m export.head_report time --target models/smollm2-135m-instruct-int4 HEAD_DIR... [--json OUT]
    python -m export.head_report plot export/trained/smollm2-*-head --out docs/heads_training.png

`time`: onnxruntime 1.31.1 CPU, one session per (model, thread count), models interleaved round by round; a head
call is what the engine runs once per draft (ctc, medusa: one call per round; eagle: one call per depth, timed
at S = 1 and at S = window, its largest input); the target step is one single-token decode at context 256 with
the shared KV buffer (export/ort_runner.py, as the engine runs it). Median and best of the rounds.
`plot`: loss curves from the heads' MANIFEST.json (matplotlib, .venv).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np


def _session(path, threads):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return ort.InferenceSession(os.path.join(path, "model.onnx"), so, providers=["CPUExecutionProvider"])


def _feeds(man, S=None):
    rng = np.random.default_rng(0)
    feeds = {}
    for i in man["graph"]["inputs"]:
        shape = [S if d == "seq" else d for d in i["shape"]]
        if i["dtype"] == "float32":
            feeds[i["name"]] = rng.normal(0, 1, shape).astype(np.float32)
        elif i["name"] == "hidden_mask":
            feeds[i["name"]] = np.ones(shape, np.int64)
        else:
            feeds[i["name"]] = rng.integers(3, 1000, shape).astype(np.int64)
    return feeds


def time_heads(target: str, heads: list, threads=(1, 2), reps: int = 50, rounds: int = 5, sizes=None) -> dict:
    """Median/best ms of each head call and of one target step, interleaved round by round. `sizes`: the S an
    eagle head is timed at (default 1 and its window). Two heads of one kind are told apart by their folder."""
    from .ort_runner import OrtDecoder
    out = {"load_avg_start": os.getloadavg()[0], "threads": {}}
    mans = []
    for h in heads:
        with open(os.path.join(h, "manifest.json")) as f:
            mans.append((h, json.load(f)))
    kinds = [m["head"]["kind"] for _, m in mans]
    for th in threads:
        dec = OrtDecoder(target, capacity=300, threads=th)
        ctx = [int(t) for t in np.random.default_rng(0).integers(3, 5000, 256)]
        dec.forward(ctx, np.arange(256), 0, logits_indices=[255])
        cases = []
        for h, man in mans:
            sess = _session(h, th)
            kind = man["head"]["kind"]
            ss = [None] if kind != "eagle" else (sizes or [1, man["head"]["window"]])
            tag = f" [{os.path.basename(os.path.normpath(h))}]" if kinds.count(kind) > 1 else ""
            for S in ss:
                cases.append((kind + (f" S={S}" if S else "") + tag, sess, _feeds(man, S)))
        res = {name: [] for name, _, _ in cases}
        res["target decode step"] = []
        for name, sess, feeds in cases:
            for _ in range(5):
                sess.run(None, feeds)
        for _ in range(rounds):
            ts = []
            for _ in range(reps):
                t0 = time.perf_counter()
                dec.forward([7], [256], 256, logits_indices=[0])
                ts.append(time.perf_counter() - t0)
            res["target decode step"].append(float(np.median(ts)))
            for name, sess, feeds in cases:
                ts = []
                for _ in range(reps):
                    t0 = time.perf_counter()
                    sess.run(None, feeds)
                    ts.append(time.perf_counter() - t0)
                res[name].append(float(np.median(ts)))
        step = float(np.median(res["target decode step"]))
        out["threads"][th] = {k: {"ms_median": round(1000 * float(np.median(v)), 3),
                                  "ms_best": round(1000 * float(np.min(v)), 3),
                                  "share_of_target_step": round(float(np.median(v)) / step, 3)}
                              for k, v in res.items()}
        print(f"[head-report] threads {th}: {json.dumps(out['threads'][th])}", file=sys.stderr, flush=True)
    out["load_avg_end"] = os.getloadavg()[0]
    return out


def label(man: dict) -> str:
    """A head's name in plots and tables: its kind, and the EAGLE CTC term's weight when it was trained with one
    (the ablation's two arms are both `eagle`)."""
    w = man["training"]["args"].get("ctc_weight")
    return man["head"]["kind"] + (f" + {w} x CTC" if w else "")


def plot(folders: list, out: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(folders), figsize=(5 * len(folders), 3.6))
    axes = np.atleast_1d(axes)
    for ax, d in zip(axes, folders):
        with open(os.path.join(d, "MANIFEST.json")) as f:
            man = json.load(f)
        c = man["loss_curve"]
        x = [p["seconds"] / 60 for p in c]
        ax.plot(x, [p["loss"] for p in c], label="loss (optimised)")
        if man["head"]["kind"] == "eagle":
            ax.plot(x, [p["parts"][0] for p in c], label="feature SmoothL1", alpha=0.7)
            ax.plot(x, [p["parts"][1] for p in c], label="soft CE", alpha=0.7)
            if len(c[0]["parts"]) > 2:  # --ctc-weight: the auxiliary CTC term, before its weight
                w = man["training"]["args"].get("ctc_weight")
                ax.plot(x, [p["parts"][2] for p in c], label=f"CTC (x {w} in the loss)", alpha=0.7)
        if man["head"]["kind"] == "medusa":
            for j in range(len(c[0]["parts"])):
                ax.plot(x, [p["parts"][j] for p in c], label=f"CE depth {j + 2 - 1}", alpha=0.5, lw=0.8)
        ev = man["eval"]["cumulative"]
        ax.set_title(f"{label(man)}: {man['training']['steps_done']} steps; held-out chain accept "
                     + "/".join(f"{v:.2f}" for v in ev), fontsize=8)
        threads = man["training"].get("threads", 1)
        # the training loss steps down at each epoch boundary where a head starts to memorise its cache
        epochs = man["training"].get("epochs")
        ax.set_xlabel(f"minutes ({threads} thread{'s' if threads != 1 else ''}"
                      + (f", {epochs:.1f} epochs" if epochs else "") + ")")
        ax.set_yscale("log")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(out)


# SmolLM2 int4 verify cost T(w)/T(1) for w = 1..4 tokens in one pass (docs/BENCHMARKS / DRAFTERS.md, measured)
T_RATIO = {1: 1.0, 2: 1.01, 3: 1.15, 4: 1.30}


def summary(folders: list, timing: str | None) -> str:
    """Markdown tables for docs/HEADS.md from the heads' MANIFESTs and a `time --json` file."""
    mans = []
    for d in folders:
        with open(os.path.join(d, "MANIFEST.json")) as f:
            mans.append(json.load(f))
    lines = ["| head | steps | positions seen (epochs) | wall min | loss first -> last | stopped by |", "|---|---|---|---|---|---|"]
    for m in mans:
        c, t = m["loss_curve"], m["training"]
        lines.append(f"| {label(m)} | {t['steps_done']} | {t['positions_seen']:,} ({t['epochs']:.2f}) | "
                     f"{t['wall_seconds'] / 60:.1f} | {c[0]['loss']:.3f} -> {np.mean([p['loss'] for p in c[-4:]]):.3f} "
                     f"| {m['stopped_by']} |")
    lines += ["", "| head | depth-1 top-1 | depth-2 | depth-3 | cumulative 1 / 2 / 3 | mean accepted (chain of 3) | oracle |",
              "|---|---|---|---|---|---|---|"]
    for m in mans:
        e = m["eval"]
        lines.append(f"| {label(m)} | " + " | ".join(f"{v:.3f}" for v in e["depth_top1"]) + " | "
                     + " / ".join(f"{v:.3f}" for v in e["cumulative"]) + f" | {e['mean_accepted_chain3']:.3f} | "
                     + " / ".join(f"{v:.3f}" for v in e["oracle_in_vocab"]) + " |")
    if timing:
        with open(timing) as f:
            tm = json.load(f)
        th = tm["threads"]
        keys = list(next(iter(th.values())).keys())
        lines += ["", "| call | " + " | ".join(f"{k} thread(s): ms (median / best), share of a target step" for k in th) + " |",
                  "|---|" + "---|" * len(th)]
        for k in keys:
            lines.append(f"| {k} | " + " | ".join(f"{v[k]['ms_median']:.2f} / {v[k]['ms_best']:.2f}, "
                                                   f"{v[k]['share_of_target_step']:.2f}" for v in th.values()) + " |")
        # chain estimate: tokens per target-step-equivalent = (1 + sum cum[:k]) / (T(k+1) + cost of k drafts)
        lines += ["", "| head | k = 1 | k = 2 | k = 3 | (estimated speed vs plain decoding, " + "2 threads)" + " |",
                  "|---|---|---|---|---|"]
        t2 = th.get("2") or th.get(2) or next(iter(th.values()))
        for m in mans:
            kind, cum = m["head"]["kind"], m["eval"]["cumulative"]
            row = []
            for k in (1, 2, 3):
                if kind == "eagle":
                    c = k * t2["eagle S=16"]["share_of_target_step"]
                else:
                    c = t2[kind]["share_of_target_step"]
                row.append(f"{(1 + sum(cum[:k])) / (T_RATIO[k + 1] + c):.2f}x")
            lines.append(f"| {kind} | " + " | ".join(row) + " | |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("time")
    t.add_argument("heads", nargs="+")
    t.add_argument("--target", required=True)
    t.add_argument("--threads", default="1,2")
    t.add_argument("--reps", type=int, default=50)
    t.add_argument("--rounds", type=int, default=5)
    t.add_argument("--json", default=None)
    t.add_argument("--sizes", default=None, help="eagle: comma-separated S to time (default: 1 and the window)")
    q = sub.add_parser("summary")
    q.add_argument("folders", nargs="+")
    q.add_argument("--timing", default=None)
    p = sub.add_parser("plot")
    p.add_argument("folders", nargs="+")
    p.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    if a.cmd == "summary":
        print(summary(a.folders, a.timing))
        return 0
    if a.cmd == "plot":
        plot(a.folders, a.out)
        return 0
    sizes = [int(x) for x in a.sizes.split(",")] if a.sizes else None
    res = time_heads(a.target, a.heads, tuple(int(x) for x in a.threads.split(",")), a.reps, a.rounds, sizes)
    s = json.dumps(res, indent=2)
    print(s)
    if a.json:
        with open(a.json, "w") as f:
            f.write(s + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

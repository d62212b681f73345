#!/usr/bin/env python3
"""Draws issue 14's ratios for several runs of the same benchmarks (docs/BENCHMARKS.md 11e): specrt / llama.cpp
decode on SmolLM2 and Qwen2.5-Coder-1.5B, llama.cpp / specrt ms per token at 2,000 cached tokens (higher is
better everywhere), and the CTC NAT's batch-1 speedup over its AR baseline / 10, each against its target line.

    python3 scripts/plot_peer_runs.py --run "A: as it came=/tmp/run-a" --run "C: after=bench-out" \
        --out docs/img/zen3-runs.png

A run folder holds what `make bench-kernels`, `make bench-qwen-kernels` and the small3 NAT bench write:
kernels-smollm2/results.json, peer-smollm2-kernels.json, kernels-qwen/results.json, peer-qwen-kernels.json,
nat-small3/results.json. Ratios are computed inside each run (specrt and llama.cpp ran one after the other).
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from export.compare_peer import comparison  # noqa: E402  (the repository root: the same rows as the peer tables)


def ratios(folder: str) -> dict:
    def load(*parts):
        with open(os.path.join(folder, *parts)) as f:
            return json.load(f)

    out = {}
    for model, bench, peer, pipeline in [
        ("SmolLM2-135M", "kernels-smollm2", "peer-smollm2-kernels.json", "smollm2-int4-ggml-ar"),
        ("Qwen2.5-Coder-1.5B", "kernels-qwen", "peer-qwen-kernels.json", "qwen1.5b-ggml-ar"),
    ]:
        rows = {name: (mine, theirs) for name, mine, theirs, _ in comparison(load(bench, "results.json"), load(peer), pipeline)}
        mine, theirs = rows["decode tokens/s"]
        out[f"{model}\ndecode"] = mine / theirs
        mine, theirs = next(v for name, v in rows.items() if name.startswith("ms/token at context 2000"))
        out[f"{model}\nlatency @2000"] = theirs / mine
    nat = next(x for x in load("nat-small3", "results.json")["results"] if x["strategy"] == "nat" and x["decode"] == "greedy")
    out["CTC NAT\nvs AR / 10"] = nat["latency_speedup_vs_ar"] / 10.0
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", action="append", required=True, help='"LABEL=FOLDER", in order')
    ap.add_argument("--title", default="")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = [(r.split("=", 1)[0], ratios(r.split("=", 1)[1])) for r in a.run]
    keys = list(runs[0][1])
    targets = {k: (1.0 if ("latency" in k or "NAT" in k) else 1.2) for k in keys}
    width = 0.8 / len(runs)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for i, (label, vals) in enumerate(runs):
        xs = [j + (i - (len(runs) - 1) / 2) * width for j in range(len(keys))]
        bars = ax.bar(xs, [vals[k] for k in keys], width, label=label)
        ax.bar_label(bars, fmt="%.2f", fontsize=8)
    for j, k in enumerate(keys):
        ax.hlines(targets[k], j - 0.45, j + 0.45, colors="black", linestyles="dashed", linewidth=1)
    ax.set_xticks(range(len(keys)), keys, fontsize=8)
    ax.set_ylabel("ratio (higher is better; dashed: issue 14 target)")
    ax.set_title(a.title or "issue 14 ratios, runs of one session")
    ax.legend(fontsize=8)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    fig.savefig(a.out, dpi=120)
    for label, vals in runs:
        print(label, {k.replace("\n", " "): round(v, 3) for k, v in vals.items()})
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

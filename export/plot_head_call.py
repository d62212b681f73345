"""Draw the draft-head call cost by depth from examples/rust/head_call.rs JSON files (one bar group per head).

    python -m export.plot_head_call bench-out/head-call-smollm2.json bench-out/head-call-qwen.json \\
        --out docs/img/head-call.png

One panel per file (heads of one target share a scale), one bar per head and depth, microseconds per call (medians).
Needs matplotlib (installed by `make bench`).
"""
import argparse
import json
import os


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+", help="head_call JSON files")
    ap.add_argument("--out", required=True, help="the PNG to write")
    a = ap.parse_args()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    docs = [json.load(open(f)) for f in a.files]
    fig, axes = plt.subplots(1, len(docs), figsize=(6.5 * len(docs), 4.2), squeeze=False)
    for ax, doc, path in zip(axes[0], docs, a.files):
        heads = doc["heads"]
        depths = max(len(h["us_by_depth"]) for h in heads)
        width = 0.8 / len(heads)
        for i, h in enumerate(heads):
            xs = [d + (i - (len(heads) - 1) / 2) * width for d in range(depths)]
            ax.bar(xs, h["us_by_depth"], width, label=h["head"])
            for x, us in zip(xs, h["us_by_depth"]):
                ax.annotate(f"{us:.0f}", (x, us), ha="center", va="bottom", fontsize=7)
        ax.set_xticks(range(depths), [f"depth {d + 1}" + (" (cold)" if d == 0 else "") for d in range(depths)])
        ax.set_ylabel("microseconds per head call (median)")
        ax.set_title(f"{os.path.basename(path)}: {doc['threads']} threads, {doc['sweep_mb']} MB swept per round, "
                     f"{doc['cpu']}", fontsize=8)
        ax.legend(fontsize=7)
        ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    fig.savefig(a.out, dpi=110)
    print(a.out)


if __name__ == "__main__":
    main()

"""Draw PNG charts from a `specrt bench` results.json.

    python -m export.plot_bench bench-out/speculative-smollm2/results.json [--out DIR]

Writes, next to results.json (or into --out):
  speedup.png     speedup per pipeline and category (bars): vs AR of the same target and numerics, and (when the
                  run has it) vs the fastest AR of the run
  acceptance-depth.png  cumulative acceptance by depth (share of drafting rounds accepting >= d drafts) per
                  speculative pipeline (e.g. per draft-head kind), one panel per category
  throughput.png  tokens/s per pipeline (overall), AR and strategy side by side
  latency.png     decode ms/token against context length (when the run measured it)
  nat-quality-speed.png   for a NAT benchmark (settings.kind == "nat"): BLEU against ms per sentence
Needs matplotlib (installed by `make bench`).
"""
import argparse
import json
import os
import sys


def plot_nat(plt, data, out: str, title: str) -> None:
    """nat-quality-speed.png: BLEU against ms per sentence (log scale) for every measured run of a NAT benchmark
    (NAT greedy/beam at batch 1 and batched, the AR baseline at batch 1)."""
    runs = data.get("runs", [])
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    for r in runs:
        single = r["run"].endswith("batch 1")
        ms = r["mean_ms_per_sentence"] if single else 1e3 / max(r["sentences_per_second"], 1e-9)
        color = "#999999" if r["run"].startswith("ar") else "#3b7dd8"
        ax.scatter([ms], [r["bleu"]], color=color, marker="s" if single else "o", s=60)
        # batch-1 labels above the point, batched ones below: the two sit at nearly the same BLEU
        ax.annotate(f'{r["run"]}\nBLEU {r["bleu"]:.2f}, chrF {r["chrf"]:.1f}', (ms, r["bleu"]), fontsize=7,
                    xytext=(6, 6 if single else -22), textcoords="offset points")
    ax.margins(x=0.25, y=0.25)
    ax.set_xscale("log")
    ax.set_xlabel("ms per sentence (batch 1: latency; batched: wall time / sentences)")
    ax.set_ylabel("BLEU (sacrebleu defaults, held-out pairs)")
    s = data.get("settings", {})
    ax.set_title(f"{title}: quality vs speed, {s.get('sentences', '?')} sentences (grey = AR baseline)", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "nat-quality-speed.png"), dpi=110)
    plt.close(fig)


def plot_speedup(plt, spec, out: str, title: str) -> None:
    """speedup.png: bars per pipeline and category; a second panel against the run's fastest AR when the
    results carry `speedup_vs_fastest_ar` (specrt bench since issue 12)."""
    pipelines = sorted({r["pipeline"] for r in spec}, key=lambda p: [r["pipeline"] for r in spec].index(p))
    categories = sorted({r["category"] for r in spec})
    keys = [("speedup_vs_ar", "speedup vs AR (same target and numerics)")]
    if all("speedup_vs_fastest_ar" in r for r in spec):
        keys.append(("speedup_vs_fastest_ar", "speedup vs the fastest AR of the run"))
    w = min(16, max(8, 1.1 * len(pipelines) + 2))
    fig, axes = plt.subplots(1, len(keys), figsize=(w * len(keys) * 0.75 if len(keys) > 1 else w, 5.5), squeeze=False)
    width = 0.8 / max(1, len(categories))
    for ax, (key, label) in zip(axes[0], keys):
        for ci, cat in enumerate(categories):
            xs, ys = [], []
            for pi, p in enumerate(pipelines):
                r = next((r for r in spec if r["pipeline"] == p and r["category"] == cat), None)
                if r:
                    xs.append(pi + ci * width)
                    ys.append(r[key])
            ax.bar(xs, ys, width, label=cat)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks([i + width * (len(categories) - 1) / 2 for i in range(len(pipelines))])
        ax.set_xticklabels(pipelines, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel(label)
        ax.set_title(f"{title}: {label}, per category", fontsize=9)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "speedup.png"), dpi=110)
    plt.close(fig)


def plot_acceptance_by_depth(plt, spec, out: str, title: str) -> None:
    """acceptance-depth.png: per category (overall included), one line per speculative pipeline: the share of
    drafting rounds that accepted at least d draft tokens (results' `acceptance_by_depth`)."""
    from matplotlib.ticker import MaxNLocator

    spec = [r for r in spec if r.get("acceptance_by_depth")]
    if not spec:
        return
    categories = sorted({r["category"] for r in spec}, key=lambda c: (c == "overall", c))
    fig, axes = plt.subplots(1, len(categories), figsize=(4.2 * len(categories), 4.2), squeeze=False, sharey=True)
    for ax, cat in zip(axes[0], categories):
        for r in (r for r in spec if r["category"] == cat):
            depth = r["acceptance_by_depth"]
            ax.plot(range(1, len(depth) + 1), depth, marker="o", label=f'{r["pipeline"]} (tau {r["tau"]:.2f})')
        ax.set_xlabel("depth d (draft tokens after the pending one)")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(f"{title}: {cat}", fontsize=9)
        ax.set_ylim(0, 1)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    axes[0][0].set_ylabel("share of drafting rounds accepting >= d")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "acceptance-depth.png"), dpi=110)
    plt.close(fig)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(args.results) as f:
        data = json.load(f)
    out = args.out or os.path.dirname(os.path.abspath(args.results))
    os.makedirs(out, exist_ok=True)
    rows = data["results"]
    title = os.path.basename(os.path.dirname(os.path.abspath(args.results)))
    if data.get("settings", {}).get("kind") == "nat":
        plot_nat(plt, data, out, title)
        return 0

    spec = [r for r in rows if r["strategy"] != "ar" and r["category"] != "overall"]
    if spec:
        plot_speedup(plt, spec, out, title)
        plot_acceptance_by_depth(plt, [r for r in rows if r["strategy"] != "ar"], out, title)

    overall = [r for r in rows if r["category"] == "overall"] or rows
    if overall:
        labels = [f'{r["pipeline"]}\n[{r["strategy"]}]' for r in overall]
        fig, ax = plt.subplots(figsize=(max(8, 0.9 * len(overall)), 5))
        bars = ax.bar(range(len(overall)), [r["tokens_per_second"] for r in overall],
                      color=["#999999" if r["strategy"] == "ar" else "#3b7dd8" for r in overall])
        for b, r in zip(bars, overall):
            ax.text(b.get_x() + b.get_width() / 2, b.get_height(), f'tau {r["tau"]:.2f}', ha="center", va="bottom", fontsize=7)
        ax.set_xticks(range(len(overall)))
        ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=7)
        ax.set_ylabel("tokens/s (generation, prefill included)")
        ax.set_title(f"{title}: throughput (grey = AR)")
        fig.tight_layout()
        fig.savefig(os.path.join(out, "throughput.png"), dpi=110)
        plt.close(fig)

    lat = data.get("latency") or []
    if lat:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for p in sorted({l["pipeline"] for l in lat}):
            pts = sorted((l["context"], l["median_ms"]) for l in lat if l["pipeline"] == p)
            ax.plot([c for c, _ in pts], [m for _, m in pts], marker="o", label=p)
        for peer in data.get("peers", []):
            pts = sorted((int(c), m) for c, m in peer["latency_ms_by_context"].items())
            ax.plot([c for c, _ in pts], [m for _, m in pts], marker="s", linestyle="--", label=peer["label"])
        ax.set_xscale("log", base=2)
        ax.set_xlabel("tokens in the KV cache")
        ax.set_ylabel("median ms per decoded token")
        ax.set_title(f"{title}: decode latency vs context")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "latency.png"), dpi=110)
        plt.close(fig)
    # HSDDW: entropy thresholds of every level over the first generation of each HSDDW pipeline.
    records_path = os.path.join(os.path.dirname(os.path.abspath(args.results)), "records.jsonl")
    if os.path.exists(records_path):
        firsts = {}
        with open(records_path) as f:
            for line in f:
                r = json.loads(line)
                levels = (r.get("details") or {}).get("levels") if isinstance(r.get("details"), dict) else None
                if r.get("strategy") == "hsddw" and levels and r["pipeline"] not in firsts:
                    firsts[r["pipeline"]] = (r, levels)
        if firsts:
            fig, axes = plt.subplots(1, len(firsts), figsize=(6 * len(firsts), 4.2), squeeze=False)
            for ax, (pipe, (r, levels)) in zip(axes[0], firsts.items()):
                for lv in levels:
                    traj = lv.get("tau_trajectory") or []
                    if traj:
                        ax.step([t[0] for t in traj], [t[1] for t in traj], where="post", label=f'{lv["name"]} (tau)')
                ax.set_yscale("symlog", linthresh=0.1)
                ax.set_xlabel("target calls")
                ax.set_ylabel("entropy threshold (nats)")
                ax.set_title(f'{pipe}: {r.get("category")} {r.get("id")}', fontsize=9)
                ax.legend(fontsize=8)
            fig.tight_layout()
            fig.savefig(os.path.join(out, "thresholds.png"), dpi=110)
            plt.close(fig)
    print(f"plots written to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

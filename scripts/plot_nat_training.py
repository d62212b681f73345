#!/usr/bin/env python3
"""Draws the CTC NAT latency models' training (docs/BENCHMARKS.md section 5): dev BLEU (greedy, 500 dev pairs)
against training steps and against wall minutes, one line per trained folder, from each folder's MANIFEST.json
(written by export/train_ctc_nat.py: `evals` per 500 steps, `loss_curve` with seconds).

    python3 scripts/plot_nat_training.py export/trained/ctc-nat-en-de-small3 export/trained/ctc-nat-en-de-small2 \
        --out docs/img/nat-latency-models-training.png
"""
import argparse
import json
import os


def curves(folder: str):
    with open(os.path.join(folder, "MANIFEST.json")) as f:
        m = json.load(f)
    seconds = {p["step"]: p["seconds"] for p in m["loss_curve"]}
    steps = sorted(seconds)
    evals = [e for e in m["evals"] if "dev_bleu_greedy" in e]

    def minutes_at(step):
        # the loss curve is logged every 50 steps: the nearest logged step at or before the eval
        at = max((s for s in steps if s <= step), default=steps[0])
        return seconds[at] / 60

    a = m["architecture"]
    t = m["training"]
    label = (f"{os.path.basename(folder)}: {a['layers']} layers x {a['dim']}, {a['parameters'] / 1e6:.1f}M, "
             f"{'bf16' if t.get('bf16') else 'fp32'}, {t['steps_done']} steps")
    return label, [e["step"] for e in evals], [minutes_at(e["step"]) for e in evals], [e["dev_bleu_greedy"] for e in evals]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (by_step, by_time) = plt.subplots(1, 2, figsize=(11, 4.2))
    for folder in a.folders:
        label, steps, minutes, bleu = curves(folder)
        by_step.plot(steps, bleu, marker="o", ms=3, label=label)
        by_time.plot(minutes, bleu, marker="o", ms=3, label=label)
    by_step.set_xlabel("training step (64 pairs)")
    by_time.set_xlabel("wall minutes (each on its own machine)")
    for ax in (by_step, by_time):
        ax.set_ylabel("dev BLEU, greedy (500 pairs)")
        ax.grid(alpha=0.3)
    by_step.legend(fontsize=7, loc="lower right")
    fig.suptitle("CTC NAT latency models: dev BLEU during training")
    fig.tight_layout()
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    fig.savefig(a.out, dpi=110)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()

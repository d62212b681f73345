"""Offline acceptance of draft heads on the engine's OWN trajectories: is a gap between a head's offline figures and
its in-engine acceptance a bug or a change of data?

    specrt bench --config configs/bench/head-gap-smollm2.yaml --out bench-out/head-gap   # writes records.jsonl
    python -m export.head_gap --records bench-out/head-gap/records.jsonl --pipeline smollm2-int4-ggml-ar \\
        --target models/smollm2-135m-instruct-int4-hs \\
        --head models/smollm2-135m-instruct-int4-medusa-head ... [--json OUT]

The records of one AR pipeline hold each prompt and the token ids the engine generated greedily (the tokens a
lossless speculative pipeline must reproduce). For each record this runs the hidden-states TARGET export (the
graph the heads were trained on; onnxruntime, one pass over prompt + output) and then every head exactly as the
engine's drafter calls it (engine/strategy/speculative/head.rs; beam 1, top-k 1, i.e. one chain per round):
- medusa: the newest hidden state -> argmax of each row;
- ctc: the `window` newest states, left-padded with zeros and masked, -> greedy CTC collapse of the frames;
- eagle: the window of (hidden state, next token) pairs, drafting depth by depth with its own feature and token
  fed back, the oldest pair dropped once the window is full.
Draft j (1-based) of the round whose newest committed position is t (pending token x_{t+1}) is right when it
equals x_{t+1+j} of the trajectory. Reported per category and overall, for a chain of `--depth`:
- `depth_top1` (draft j right, whatever came before), `cumulative` (drafts 1..j all right: what the engine's
  `per position` column measures for a static chain), `mean_accepted` over every position t of the outputs;
- `rounds`: the engine's round structure replayed (a round accepts its longest right prefix, the bonus follows,
  the next round starts after it): `tau` = tokens per target call, comparable with the bench's tau of a static
  chain of the same depth with the payoff guard off.
The same numbers on the heads' held-out training split are in their MANIFEST (`offline_eval`).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

from .head_data import chatml


def log(msg: str) -> None:
    print(f"[head-gap] {msg}", file=sys.stderr, flush=True)


def load_records(path: str, pipeline: str) -> list:
    """The AR records of `pipeline` (strategy `ar`), with their prompts and output ids."""
    out = []
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if r.get("pipeline") == pipeline and r.get("strategy") == "ar":
                if "output_ids" not in r or "prompt" not in r:
                    raise SystemExit(f"{path}: record {r.get('id')} has no prompt/output_ids (a bench from before "
                                     "records carried them: run `specrt bench` again)")
                out.append(r)
    if not out:
        names = sorted({json.loads(line).get("pipeline") for line in open(path)})
        raise SystemExit(f"{path}: no AR records of pipeline `{pipeline}` (pipelines there: {names})")
    return out


class Head:
    """One exported draft head (its manifest, draft vocabulary and ONNX session), called as the engine calls it."""

    def __init__(self, folder: str, threads: int):
        import onnxruntime as ort

        with open(os.path.join(folder, "manifest.json")) as f:
            self.manifest = json.load(f)
        if self.manifest.get("kind") != "draft_head":
            raise SystemExit(f"{folder}/manifest.json: kind is {self.manifest.get('kind')!r}, not draft_head")
        h = self.manifest["head"]
        self.name = os.path.basename(os.path.normpath(folder))
        self.kind, self.slots, self.window = h["kind"], h["slots"], h["window"]
        self.vd = h["draft_vocab_size"]
        with open(os.path.join(folder, self.manifest["draft_vocab"]["file"])) as f:
            self.to_target = np.asarray(json.load(f), np.int64)
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        self.sess = ort.InferenceSession(os.path.join(folder, self.manifest["graph"]["file"]), so,
                                         providers=["CPUExecutionProvider"])
        self.outputs = [o.name for o in self.sess.get_outputs()]

    def chain(self, hidden: np.ndarray, tokens: np.ndarray, t: int, depth: int) -> list:
        """The engine's one-chain draft (target ids) for the round whose newest committed position is t:
        hidden[i] is the target's state at position i, tokens[i + 1] the token after it."""
        W, H = self.window, hidden.shape[1]
        lo = max(0, t - W + 1)
        if self.kind == "medusa":
            lg = self.sess.run(["logits"], {"hidden_states": hidden[t][None, None].astype(np.float32)})[0][0]
            return [int(self.to_target[i]) for i in lg.argmax(-1)[:depth]]
        if self.kind == "ctc":
            n = t + 1 - lo
            x = np.zeros((1, W, H), np.float32)
            x[0, W - n:] = hidden[lo:t + 1]
            mask = np.zeros((1, W), np.int64)
            mask[0, W - n:] = 1
            frames = self.sess.run(["logits"], {"hidden_states": x, "hidden_mask": mask})[0][0].argmax(-1)
            seq, prev = [], None
            for f in frames:
                if f != prev and f != self.vd:
                    seq.append(int(self.to_target[f]))
                prev = f
            return seq[:depth]
        # eagle
        x = hidden[lo:t + 1].astype(np.float32)
        ids = np.asarray(tokens[lo + 1:t + 2], np.int64)
        chain = []
        for d in range(min(depth, self.slots)):
            outs = dict(zip(self.outputs, self.sess.run(None, {"hidden_states": x[None], "input_ids": ids[None]})))
            lg = outs["logits"].reshape(-1, self.vd)[-1]
            tok = int(self.to_target[int(lg.argmax())])
            chain.append(tok)
            feat = outs["features"].reshape(-1, H)[-1]
            if len(ids) == W:
                x, ids = x[1:], ids[1:]
            x = np.concatenate([x, feat[None]], 0)
            ids = np.concatenate([ids, [tok]])
        return chain


def measure(records: list, target: str, heads: list, depth: int, threads: int) -> dict:
    from tokenizers import Tokenizer

    from .ort_runner import OrtDecoder

    tok = Tokenizer.from_file(os.path.join(target, "tokenizer.json"))
    per = {h.name: {} for h in heads}  # head -> category -> accumulators
    agree = [0, 0]
    t0 = time.time()
    for n, r in enumerate(records):
        prompt = tok.encode(chatml(r["prompt"], None) if r["chat"] else r["prompt"]).ids
        out = [int(x) for x in r["output_ids"]]
        seq = np.asarray(prompt + out, np.int64)
        P, L = len(prompt), len(seq)
        if len(out) < 2:
            continue
        dec = OrtDecoder(target, capacity=L + 8, threads=threads)
        logits, hidden = dec.forward(seq, np.arange(L), 0, return_hidden=True)
        # How closely the Python target (ONNX Runtime's kernels) follows the engine's trajectory.
        am = logits.argmax(-1)
        agree[0] += int((am[P - 1:L - 1] == seq[P:]).sum())
        agree[1] += L - P
        for h in heads:
            acc = per[h.name].setdefault(r["category"], {"hit": np.zeros(depth), "cum": np.zeros(depth),
                                                          "valid": np.zeros(depth), "rounds": 0, "tokens": 0})
            drafts = {}
            for t in range(P - 1, L - 2):  # pending = seq[t + 1] is an output token with at least one after it
                c = h.chain(hidden, seq, t, depth)
                drafts[t] = c
                ok = True
                for j in range(depth):
                    if t + 2 + j >= L:
                        break
                    acc["valid"][j] += 1
                    right = j < len(c) and c[j] == seq[t + 2 + j]
                    acc["hit"][j] += right
                    ok = ok and right
                    acc["cum"][j] += ok
            # The engine's rounds: start after the prompt, accept the right prefix, then the bonus.
            t = P - 1
            while t < L - 2:
                c = drafts.get(t, [])
                a = 0
                while a < len(c) and t + 2 + a < L and c[a] == seq[t + 2 + a]:
                    a += 1
                acc["rounds"] += 1
                acc["tokens"] += a + 1
                t += a + 1
        log(f"record {n + 1}/{len(records)} ({r['category']}, {L - P} tokens), {time.time() - t0:.0f} s")
    result = {"target": target, "depth": depth, "records": len(records),
              "target_agreement": round(agree[0] / max(1, agree[1]), 4), "heads": {}}
    for h in heads:
        cats = per[h.name]
        total = {k: sum(c[k] for c in cats.values()) for k in ("hit", "cum", "valid", "rounds", "tokens")}
        rows = {}
        for name, c in list(cats.items()) + [("overall", total)]:
            v = np.maximum(c["valid"], 1)
            rows[name] = {"depth_top1": [round(float(x), 4) for x in c["hit"] / v],
                          "cumulative": [round(float(x), 4) for x in c["cum"] / v],
                          "mean_accepted": round(float(c["cum"].sum() / max(1, c["valid"][0])), 4),
                          "tau": round(c["tokens"] / max(1, c["rounds"]), 4), "positions": int(c["valid"][0])}
        src = h.manifest.get("source", "")
        result["heads"][h.name] = {"kind": h.kind, "by_category": rows,
                                   "offline_eval_of_training": src if isinstance(src, dict) else str(src)[:400]}
    return result


def markdown(res: dict) -> str:
    lines = [f"target {res['target']}; its argmax equals the engine's output token at "
             f"{100 * res['target_agreement']:.1f}% of positions",
             "", "| head | category | positions | depth top-1 | cumulative | mean accepted | tau (rounds) |",
             "|---|---|---|---|---|---|---|"]
    pct = lambda xs: "/".join(f"{100 * x:.0f}" for x in xs)  # noqa: E731
    for name, h in res["heads"].items():
        for cat, r in h["by_category"].items():
            lines.append(f"| {name} | {cat} | {r['positions']} | {pct(r['depth_top1'])}% | {pct(r['cumulative'])}% | "
                         f"{r['mean_accepted']:.3f} | {r['tau']:.3f} |")
    if any("engine" in h or "held_out_cumulative" in h for h in res["heads"].values()):
        lines += ["", "| head | engine: cumulative | engine tau | offline, same trajectories | offline tau | "
                      "held-out training split |", "|---|---|---|---|---|---|"]
        for name, h in res["heads"].items():
            e, o, held = h.get("engine"), h["by_category"]["overall"], h.get("held_out_cumulative")
            engine = f"{pct(e['cumulative'])}% | {e['tau']:.3f}" if e else "- | -"
            lines.append(f"| {name} | {engine} | {pct(o['cumulative'])}% | {o['tau']:.3f} | "
                         f"{pct(held) + '%' if held else '-'} |")
    return "\n".join(lines)


def engine_figures(results_json: str, pipelines: list, heads: list) -> dict:
    """head name -> the bench's overall row of the pipeline drafting with it (`--engine-pipeline`, in --head order):
    cumulative acceptance by depth and tau."""
    with open(results_json) as f:
        rows = json.load(f)["results"]
    out = {}
    for name, head in zip(pipelines, heads):
        row = next((r for r in rows if r["pipeline"] == name and r["strategy"] != "ar" and r["category"] == "overall"),
                   None)
        if row is None:
            raise SystemExit(f"{results_json}: no overall speculative row of pipeline `{name}`")
        out[head.name] = {"cumulative": [round(x, 4) for x in row["acceptance_by_depth"]], "tau": round(row["tau"], 4)}
    return out


def plot(res: dict, path: str) -> None:
    """Cumulative acceptance by depth per head: in the engine, offline on the same trajectories, and on the head's
    held-out training split (its MANIFEST), side by side."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    heads = list(res["heads"])
    fig, axes = plt.subplots(1, len(heads), figsize=(4 * len(heads), 3.4), sharey=True, squeeze=False)
    for ax, name in zip(axes[0], heads):
        h = res["heads"][name]
        series = [("engine", h.get("engine", {}).get("cumulative")),
                  ("offline, same trajectories", h["by_category"]["overall"]["cumulative"]),
                  ("held-out training split", h.get("held_out_cumulative"))]
        series = [(label, ys) for label, ys in series if ys]
        w = 0.8 / len(series)
        for i, (label, ys) in enumerate(series):
            ax.bar([d + i * w for d in range(len(ys))], [100 * y for y in ys], w, label=label)
        ax.set_xticks([d + 0.4 - w / 2 for d in range(res["depth"])], [f"depth {d + 1}" for d in range(res["depth"])])
        ax.set_title(f"{h['kind']} ({name.replace('smollm2-135m-instruct-', '')})", fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel("chain accepted up to depth (%)")
    axes[0][0].legend(fontsize=8)
    fig.suptitle("Draft heads: cumulative acceptance of a chain of drafts (make head-gap)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    log(f"wrote {path}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m export.head_gap", description=__doc__.split("\n\n")[0])
    p.add_argument("--records", required=True, help="records.jsonl of a `specrt bench` run")
    p.add_argument("--pipeline", required=True, help="the AR pipeline whose outputs are the trajectories")
    p.add_argument("--target", required=True, help="the hidden-states target export the heads belong to")
    p.add_argument("--head", action="append", required=True, help="an exported draft head folder (repeatable)")
    p.add_argument("--depth", type=int, default=3, help="drafts per round (a chain)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--json", help="write the figures here")
    p.add_argument("--engine-pipeline", action="append", default=[],
                   help="the bench pipeline drafting with each --head (same order): its in-engine figures from the "
                        "results.json next to --records join the table and the plot")
    p.add_argument("--plot", help="write a PNG: engine vs offline vs held-out split, per head")
    a = p.parse_args(argv)
    if a.engine_pipeline and len(a.engine_pipeline) != len(a.head):
        p.error("--engine-pipeline: one per --head, in the same order")
    records = load_records(a.records, a.pipeline)
    heads = [Head(h, a.threads) for h in a.head]
    res = measure(records, a.target, heads, a.depth, a.threads)
    if a.engine_pipeline:
        eng = engine_figures(os.path.join(os.path.dirname(os.path.abspath(a.records)), "results.json"),
                             a.engine_pipeline, heads)
        for name, fig in eng.items():
            res["heads"][name]["engine"] = fig
    for h in heads:
        held = h.manifest.get("source", {})
        held = held.get("offline_eval", {}) if isinstance(held, dict) else {}
        if held.get("cumulative"):
            res["heads"][h.name]["held_out_cumulative"] = held["cumulative"][:a.depth]
    print(markdown(res))
    if a.plot:
        plot(res, a.plot)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

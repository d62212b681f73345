"""What prompt lookup can still gain, and which term of tokens/s = tau / verify cost holds it back: the AR
trajectories of a `specrt bench` run replayed through the n-gram drafter, the window policy and a measured pass
cost curve, with no target call.

    specrt bench --config configs/bench/hybrid-lookup-smollm2.yaml --out bench-out/X      # records.jsonl
    python -m export.lookup_replay --records bench-out/X/records.jsonl --pipeline smollm2-int4-ggml-ar \\
        --target models/smollm2-135m-instruct-int4-ggml --corpus models/smollm2-lookup-corpus \\
        --curve engine=~/.cache/specrt/cost/<file>.json --curve quiet=bench-out/pass-cost.json [--json OUT]

Greedy verification is deterministic: the drafts of a round are accepted exactly while they equal the AR tokens
that follow, so on the AR trajectory a drafter's acceptance can be replayed offline. The time is modelled: a
round verifying n drafts costs the curve's (n + 1)-token pass in one-token steps, a round without drafts one step;
modelled speedup = tokens / steps (decode only: no prefill, no per-round overhead outside the pass).

The drafter and the policy mirror the engine's (engine/strategy/speculative/ngram.rs `NgramDrafter::draft`,
corpus.rs `LookupCorpus::draft`, window.rs `CostModel`; the payoff guard, which rarely stops lookup, is not
modelled); the report puts the replay's tau next to the engine's own tau from the same records (the shipped
pipeline, `--engine-pipeline`) so a drift of the mirror shows. Rows:
- `shipped`: the settings of configs/smollm2-ngram.yaml (n 8..2, match ratio 1, window 1024, corpus of 2 tokens,
  cost-model window k 1..12);
- `perfect stop`: the same continuations (up to 12 tokens, match ratio off) cut to their right prefix before
  verification: what a drafter that knew where its continuation goes wrong would reach; the ceiling of lookup;
- `no corpus`, `n_min 1` (one-token matches drafted), `corpus 1/2`: single changes, to show what each is worth;
- `by match length`: the acceptance of draft j given drafts < j were right, by the longest match of the context's
  suffix (not capped at n_max): what a confidence model of lookup could use.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import random
import sys

from .head_data import chatml, default_system
from .head_gap import load_records
from .lookup_corpus import DOCUMENT_END, read as read_corpus  # noqa: F401 (DOCUMENT_END re-exported for tests)


def log(msg: str) -> None:
    print(f"[lookup-replay] {msg}", file=sys.stderr, flush=True)


# ---- the engine's drafter, window policy and cost curve, mirrored ------------------------------------------------

def find_match(ctx: list, k: int, n_max: int = 8, n_min: int = 2, window: int = 1024):
    """`NgramDrafter::find_match`: the longest (n_max..n_min), then most recent, earlier occurrence of the context's
    suffix; returns (n, start of the occurrence, continuation of at most k tokens) or None."""
    length = len(ctx)
    start = max(0, length - window) if window else 0
    for n in range(n_max, n_min - 1, -1):
        if length < n + 1:
            continue
        pattern = ctx[length - n:]
        j = length - n
        while j > start:
            j -= 1
            if ctx[j:j + n] == pattern:
                cont = ctx[j + n:min(j + n + k, length)]
                if cont:
                    return n, j, cont
    return None


def match_length(ctx: list, occurrence: int, n: int, cap: int = 64) -> int:
    """How far the match at `occurrence` (n tokens) extends backwards, up to `cap` tokens."""
    t = n
    while t < cap and occurrence - (t - n) - 1 >= 0 and ctx[occurrence - (t - n) - 1] == ctx[len(ctx) - t - 1]:
        t += 1
    return t


class Corpus:
    """`LookupCorpus`: for each n-gram (n_min..n_max) the most frequent continuation and how often any was seen."""

    def __init__(self, documents: list, n_min: int = 2, n_max: int = 4, max_tokens: int = 2, min_count: int = 2,
                 min_share: float = 0.5):
        self.n_min, self.n_max, self.max_tokens = n_min, n_max, max_tokens
        self.min_count, self.min_share = min_count, min_share
        counts = collections.defaultdict(collections.Counter)
        for doc in documents:
            for n in range(n_min, n_max + 1):
                for i in range(len(doc) - n):
                    counts[tuple(doc[i:i + n])][doc[i + n]] += 1
        # (token, count, total); ties to the smaller id as in corpus.rs
        self.index = {key: (min(c.items(), key=lambda kv: (-kv[1], kv[0])) + (sum(c.values()),))
                      for key, c in counts.items()}

    def draft(self, ctx: list, k: int) -> list:
        out, tail = [], list(ctx[-self.n_max:])
        for _ in range(min(k, self.max_tokens)):
            hit = None
            for n in range(min(self.n_max, len(tail)), self.n_min - 1, -1):
                hit = self.index.get(tuple(tail[-n:]))
                if hit:
                    break
            if not hit:
                break
            token, count, total = hit
            if total < self.min_count or count < self.min_share * (total + 1):
                break
            out.append(token)
            tail = (tail + [token])[-self.n_max:]
        return out


class Curve:
    """A pass cost curve in one-token steps, linear between measured sizes and past the last (cost.rs `seconds`)."""

    def __init__(self, points: list):
        points = sorted(points)
        one = points[0][1]
        self.points = [(n, s / one) for n, s in points]

    @classmethod
    def load(cls, path: str) -> "Curve":
        """The engine's cached curve (`{"points": [[tokens, seconds], ...]}`), examples/pass_cost's JSON (its
        chains of the first model), or `RESULTS.json@PIPELINE`: the target passes a `specrt bench` run counted in
        that pipeline's decode (its non-AR `overall` row; sizes with fewer than 20 passes are left out)."""
        path, _, pipeline = path.partition("@")
        with open(os.path.expanduser(path)) as f:
            d = json.load(f)
        if pipeline:
            rows = [r for r in d["results"] if r["pipeline"] == pipeline and r["strategy"] != "ar"]
            row = next((r for r in rows if r["category"] == "overall"), rows[0] if rows else None)
            if row is None or not row.get("target_passes"):
                raise SystemExit(f"{path}: no counted target passes for pipeline `{pipeline}`")
            return cls([(p["tokens"], p["mean_ms"]) for p in row["target_passes"] if p["calls"] >= 20 or p["tokens"] == 1])
        if "points" in d:
            return cls([(int(n), float(s)) for n, s in d["points"]])
        passes = [p for p in d["passes"] if p["pass"].startswith("chain")]
        first = passes[0]["model"]
        return cls([(p["tokens"], p["ms"]) for p in passes if p["model"] == first])

    def steps(self, n: int) -> float:
        p = self.points
        if len(p) == 1:
            return p[0][1]
        i = max(1, next((i for i, (m, _) in enumerate(p) if m >= n), len(p) - 1))
        (n0, s0), (n1, s1) = p[i - 1], p[i]
        return s0 + (s1 - s0) * (n - n0) / max(n1 - n0, 1)


class CostModel:
    """window.rs `CostModel` with the draft's own cost taken as zero (lookup costs microseconds)."""

    def __init__(self, curve: Curve, k_min: int = 1, k_max: int = 12, alpha: float = 0.3):
        self.curve, self.k_min, self.k_max, self.alpha, self.a = curve, k_min, k_max, alpha, 0.6

    @staticmethod
    def expected(a: float, k: int) -> float:
        return k + 1.0 if abs(1.0 - a) < 1e-9 else (1.0 - a ** (k + 1)) / (1.0 - a)

    def next_k(self) -> int:
        a = min(max(self.a, 0.0), 0.999)
        best, rate = self.k_min, 0.0
        for k in range(self.k_min, self.k_max + 1):
            r = self.expected(a, k) / max(self.curve.steps(k + 1), 1e-9)
            if r > rate:
                best, rate = k, r
        return best

    def observe(self, drafted: int, accepted: int) -> None:
        if drafted:
            trials = accepted + (1 if accepted < drafted else 0)
            self.a += self.alpha * (accepted / max(trials, 1) - self.a)


# ---- the replay -------------------------------------------------------------------------------------------------

def replay(trajectories: list, curve: Curve, corpus: Corpus | None, n_min: int = 2, match_ratio: float = 1.0,
           perfect_stop: bool = False) -> dict:
    """Every trajectory (category, prompt ids, output ids) decoded round by round with the drafter; per category:
    tokens, target calls, modelled steps, rounds that drafted."""
    per = collections.defaultdict(lambda: {"tokens": 0, "calls": 0, "steps": 0.0, "drafting_rounds": 0})
    for category, prompt, out in trajectories:
        policy = CostModel(curve)
        i = 1  # out[0] comes from the prefill
        while i < len(out):
            ctx = prompt + out[:i]
            room = len(out) - i - 1  # drafting past the last token is wasted (the engine's `budget`)
            k = 12 if perfect_stop else policy.next_k()
            k = min(k, room)
            draft: list = []
            if k > 0:
                m = find_match(ctx, k, n_min=n_min)
                if m:
                    n, _, cont = m
                    draft = cont if perfect_stop or match_ratio <= 0 else cont[:max(1, int(match_ratio * n))]
                elif corpus is not None:
                    draft = corpus.draft(ctx, k if not perfect_stop else 12)
                draft = draft[:k]
            a = 0
            while a < len(draft) and draft[a] == out[i + a]:
                a += 1
            if perfect_stop:
                draft = draft[:a]
            c = per[category]
            c["tokens"] += a + 1
            c["calls"] += 1
            c["steps"] += curve.steps(len(draft) + 1)
            c["drafting_rounds"] += bool(draft)
            if draft and not perfect_stop:
                policy.observe(len(draft), a)
            i += a + 1
    return summarize(per)


def summarize(per: dict) -> dict:
    res = {}
    total = {"tokens": 0, "calls": 0, "steps": 0.0, "drafting_rounds": 0}
    for cat, c in sorted(per.items()):
        for key in total:
            total[key] += c[key]
        res[cat] = figures(c)
    res["overall"] = figures(total)
    return res


def figures(c: dict) -> dict:
    return {"tokens": c["tokens"], "calls": c["calls"], "tau": c["tokens"] / max(c["calls"], 1), "speedup": c["tokens"] / max(c["steps"], 1e-9),
            "drafting_rounds": c["drafting_rounds"] / max(c["calls"], 1)}


def acceptance_by_match_length(trajectories: list, corpus: Corpus | None) -> dict:
    """P(draft j right | drafts < j right) by the longest match behind the context's suffix, on rounds that draft
    up to 12 tokens of the continuation and advance as the shipped drafter would (match ratio 1)."""
    buckets = [(2, 2), (3, 3), (4, 5), (6, 8), (9, 16), (17, 64)]
    counts = collections.defaultdict(lambda: [0, 0])
    for _, prompt, out in trajectories:
        i = 1
        while i < len(out):
            ctx = prompt + out[:i]
            k = min(12, len(out) - i - 1)
            if k <= 0:
                break
            m = find_match(ctx, k)
            if m:
                n, occ, draft = m
                t = match_length(ctx, occ, n)
                label = next(f"{lo}-{hi}" if lo != hi else str(lo) for lo, hi in buckets if lo <= t <= hi)
                shipped = max(1, n)
            else:
                draft = corpus.draft(ctx, 12) if corpus else []
                label, shipped = "corpus", 2
            a = 0
            while a < len(draft) and draft[a] == out[i + a]:
                a += 1
            for j in range(min(len(draft), a + 1)):
                c = counts[(label, min(j + 1, 6))]
                c[0] += 1
                c[1] += j < a
            i += min(a, shipped) + 1
    table = collections.defaultdict(dict)
    for (label, j), (n, ok) in counts.items():
        table[label][f"{j}" if j < 6 else "6+"] = {"n": n, "p": ok / n}
    return dict(table)


def engine_tau(records_path: str, pipeline: str | None) -> dict:
    """The engine's own tau per category for `pipeline` (a speculative pipeline of the same records)."""
    if not pipeline:
        return {}
    per = collections.defaultdict(lambda: [0, 0])
    with open(records_path) as f:
        for line in f:
            r = json.loads(line)
            if r.get("pipeline") == pipeline and r.get("strategy") != "ar":
                per[r["category"]][0] += r["new_tokens"]
                per[r["category"]][1] += r["target_calls"]
    out = {cat: t / max(c, 1) for cat, (t, c) in per.items()}
    if per:
        out["overall"] = sum(t for t, _ in per.values()) / max(sum(c for _, c in per.values()), 1)
    return out


def trajectories_of(records: list, target: str) -> list:
    """(category, prompt ids, output ids) per record, the prompt tokenized as the engine's bench prompts it
    (raw completion, or the target's ChatML with its default system prompt)."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(os.path.join(target, "tokenizer.json"))
    system = default_system(target) if any(r["chat"] for r in records) else None
    out, seen = [], set()
    for r in records:
        if r["id"] in seen:  # one trajectory per prompt (warmup and repeats are the same greedy tokens)
            continue
        seen.add(r["id"])
        text = chatml(r["prompt"], None, system) if r["chat"] else r["prompt"]
        out.append((r["category"], tok.encode(text, add_special_tokens=False).ids, list(r["output_ids"])))
    return out


def markdown(report: dict) -> str:
    cats = [c for c in report["rows"][0]["figures"] if c != "overall"] + ["overall"]
    lines = []
    for curve in report["curves"]:
        lines.append(f"\ncurve `{curve}` (one-token steps: "
                     + ", ".join(f"{n}: {s:.2f}" for n, s in report["curves"][curve]) + ")\n")
        lines.append("| row | " + " | ".join(f"{c} tau / modelled speedup" for c in cats) + " |")
        lines.append("|---|" + "---|" * len(cats))
        for row in report["rows"]:
            if row["curve"] != curve:
                continue
            cells = [f"{row['figures'][c]['tau']:.2f} / {row['figures'][c]['speedup']:.2f}x" for c in cats]
            lines.append(f"| {row['name']} | " + " | ".join(cells) + " |")
    if report["engine_tau"]:
        lines.append("\nengine tau of the same records: "
                     + ", ".join(f"{c} {t:.2f}" for c, t in sorted(report["engine_tau"].items())))
    lines.append("\n| match length | " + " | ".join(f"draft {j}" for j in ["1", "2", "3", "4", "5", "6+"]) + " |")
    lines.append("|---|" + "---|" * 6)
    order = ["corpus", "2", "3", "4-5", "6-8", "9-16", "17-64"]
    for label, row in sorted(report["by_match_length"].items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else 99):
        cells = [f"{row[j]['p']:.2f} ({row[j]['n']})" if j in row else "" for j in ["1", "2", "3", "4", "5", "6+"]]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(report: dict, path: str) -> None:
    """Left: modelled speedup per category, shipped vs perfect stop, for each curve. Right: acceptance of draft j
    (given drafts < j right) by the length of the match behind the context's suffix."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
    cats = [c for c in report["rows"][0]["figures"] if c != "overall"] + ["overall"]
    bars = [(r["curve"], r["name"], r["figures"]) for r in report["rows"]
            if r["name"] in ("shipped", "perfect stop (ceiling)")]
    w = 0.8 / max(len(bars), 1)
    for i, (curve, name, fig_) in enumerate(bars):
        left.bar([c + i * w for c in range(len(cats))], [fig_[c]["speedup"] for c in cats], w,
                 label=f"{name}, `{curve}` curve")
    left.axhline(1.0, color="k", lw=0.6)
    left.set_ylim(0, 1.35 * max((f[c]["speedup"] for _, _, f in bars for c in cats), default=1.0))
    left.set_xticks([c + 0.4 - w / 2 for c in range(len(cats))], cats)
    left.set_ylabel("modelled decode speedup vs AR")
    left.legend(fontsize=7, ncol=2, loc="upper center")
    left.grid(axis="y", alpha=0.3)
    left.set_title("prompt lookup, replayed", fontsize=9)
    depths = ["1", "2", "3", "4", "5", "6+"]
    order = ["corpus", "2", "3", "4-5", "6-8", "9-16", "17-64"]
    for label, row in sorted(report["by_match_length"].items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else 99):
        xs = [j for j, d in enumerate(depths) if d in row and row[d]["n"] >= 10]
        right.plot([x + 1 for x in xs], [100 * row[depths[x]]["p"] for x in xs], marker="o", label=label)
    right.set_xticks(range(1, 7), depths)
    right.set_xlabel("draft position")
    right.set_ylabel("right, given the earlier drafts right (%)")
    right.legend(title="match length", fontsize=7, title_fontsize=7)
    right.grid(alpha=0.3)
    right.set_title("acceptance by how far the match extends", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    log(f"wrote {path}")


def main(argv=None) -> int:
    """The CLI; an unreadable input (missing file, broken JSON, a curve without the expected fields) is a one-line
    error naming it, not a traceback."""
    try:
        return run(argv)
    except (OSError, ValueError, KeyError, IndexError) as e:
        raise SystemExit(f"lookup_replay: {type(e).__name__}: {e}")


def run(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m export.lookup_replay", description=__doc__.split("\n\n")[0])
    p.add_argument("--records", required=True, help="records.jsonl of a specrt bench run")
    p.add_argument("--pipeline", required=True, help="the AR pipeline whose trajectories are replayed")
    p.add_argument("--engine-pipeline", help="the shipped lookup pipeline of the same run (its tau is printed beside)")
    p.add_argument("--target", required=True, help="the target's model folder (tokenizer.json)")
    p.add_argument("--corpus", help="the lookup corpus folder of the shipped pipeline")
    p.add_argument("--curve", action="append", required=True,
                   help="NAME=PATH: an engine cost-curve cache file or examples/pass_cost JSON (repeatable)")
    p.add_argument("--seed", type=int, default=0, help="for the corpus halving row")
    p.add_argument("--json", help="write the report here")
    p.add_argument("--plot", help="draw the report as a PNG here (needs matplotlib)")
    a = p.parse_args(argv)
    curves = {}  # first: a bad curve is reported before the replay's slow parts
    for spec in a.curve:
        name, _, path = spec.partition("=")
        if not path:
            raise SystemExit(f"--curve {spec}: expected NAME=PATH")
        curves[name] = Curve.load(path)
    trajectories = trajectories_of(load_records(a.records, a.pipeline), a.target)
    log(f"{len(trajectories)} trajectories, {sum(len(t[2]) for t in trajectories)} tokens")
    docs = read_corpus(a.corpus) if a.corpus else []
    corpus = Corpus(docs) if docs else None
    rng = random.Random(a.seed)
    half = Corpus([d for d in docs if rng.random() < 0.5]) if docs else None
    rows = []
    for name, curve in curves.items():
        variants = [("shipped", dict(corpus=corpus)), ("perfect stop (ceiling)", dict(corpus=corpus, perfect_stop=True)),
                    ("no corpus", dict(corpus=None)), ("corpus 1/2", dict(corpus=half)),
                    ("n_min 1", dict(corpus=corpus, n_min=1)), ("match ratio 2", dict(corpus=corpus, match_ratio=2.0))]
        for row, kw in variants:
            if corpus is None and row in ("no corpus", "corpus 1/2"):
                continue  # without a corpus the shipped row is the no-corpus one
            log(f"{name}: {row}")
            rows.append({"curve": name, "name": row, "figures": replay(trajectories, curve, **kw)})
    report = {"records": a.records, "pipeline": a.pipeline, "curves": {n: c.points for n, c in curves.items()},
              "rows": rows, "engine_tau": engine_tau(a.records, a.engine_pipeline),
              "by_match_length": acceptance_by_match_length(trajectories, corpus)}
    print(markdown(report))
    if a.json:
        os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
        with open(a.json, "w") as f:
            json.dump(report, f, indent=1)
        log(f"wrote {a.json}")
    if a.plot:
        plot(report, a.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())

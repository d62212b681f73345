"""Time exported folders with onnxruntime + IOBinding (shared KV buffer), as the engine would run them.

Several folders are timed INTERLEAVED in one process (round r of every model before round r+1), so background
load hits all of them alike; both the median and the best round are reported (on a busy machine the best round
is the better estimate of the uncontended speed).
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

from .ort_runner import OrtDecoder


def _decode_round(dec: OrtDecoder, prompt: list, n_tokens: int) -> float:
    P = len(prompt)
    logits = dec.forward(prompt, np.arange(P), 0, logits_indices=[P - 1])
    t0 = time.perf_counter()
    for _ in range(n_tokens):
        t = int(np.argmax(logits[-1]))
        logits = dec.forward([t], [P], P, logits_indices=[0])
        P += 1
    return n_tokens / (time.perf_counter() - t0)


def _k_cost(dec: OrtDecoder, rng, context: int, k: int, reps: int) -> list:
    ids = [int(t) for t in rng.integers(3, min(dec.vocab, 5000), k)]
    pos = np.arange(context, context + k)
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        dec.forward(ids, pos, context)  # logits for all k rows, like a verify step
        times.append(time.perf_counter() - t0)
    return times


def bench(model_dirs, threads: int = 2, n_tokens: int = 128, rounds: int = 3, context: int = 256,
          ks=(1, 2, 4, 8, 16), reps: int = 10) -> list:
    """Greedy decode tok/s over n_tokens and ms of one k-token forward at `context`, per model dir."""
    if isinstance(model_dirs, str):
        model_dirs = [model_dirs]
    decs = [OrtDecoder(d, capacity=max(context + max(ks), 32 + n_tokens) + 8, threads=threads) for d in model_dirs]
    rng = np.random.default_rng(0)
    prompt = [int(t) for t in rng.integers(3, min(decs[0].vocab, 5000), 16)]
    ctx_ids = [int(t) for t in rng.integers(3, min(decs[0].vocab, 5000), context)]
    speeds = [[] for _ in decs]
    kt = [{k: [] for k in ks} for _ in decs]
    for dec in decs:
        dec.greedy(prompt, 8)  # warm-up (allocations, thread pool)
    for r in range(rounds):
        for i, dec in enumerate(decs):
            speeds[i].append(_decode_round(dec, prompt, n_tokens))
            dec.forward(ctx_ids, np.arange(context), 0, logits_indices=[context - 1])
            for k in ks:
                kt[i][k] += _k_cost(dec, rng, context, k, reps)
            print(f"[bench] round {r + 1} {os.path.basename(model_dirs[i].rstrip('/'))}: "
                  f"{speeds[i][-1]:.1f} tok/s", file=sys.stderr)
    out = []
    for i, d in enumerate(model_dirs):
        out.append({"model": d, "threads": threads, "load_avg_end": os.getloadavg()[0],
                    "decode_tok_s_median": round(float(np.median(speeds[i])), 1),
                    "decode_tok_s_best": round(float(np.max(speeds[i])), 1),
                    "k_forward_context": context,
                    "k_forward_ms_median": {k: round(1000 * float(np.median(v)), 2) for k, v in kt[i].items()},
                    "k_forward_ms_best": {k: round(1000 * float(np.min(v)), 2) for k, v in kt[i].items()}})
    return out

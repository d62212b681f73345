"""Time an exported folder with onnxruntime + IOBinding (shared KV buffer), as the engine would run it."""
from __future__ import annotations

import sys
import time

import numpy as np

from .ort_runner import OrtDecoder


def bench(model_dir: str, threads: int = 2, n_tokens: int = 128, rounds: int = 3, context: int = 256,
          ks=(1, 2, 4, 8, 16), reps: int = 20) -> dict:
    """Greedy decode speed (tok/s, median of `rounds`) and the cost of one k-token forward at `context`."""
    dec = OrtDecoder(model_dir, capacity=max(context + max(ks), 32 + n_tokens) + 8, threads=threads)
    vocab = dec.vocab
    rng = np.random.default_rng(0)
    prompt = [int(t) for t in rng.integers(3, min(vocab, 5000), 16)]
    dec.greedy(prompt, 8)  # warm-up (allocations, thread pool)
    speeds = []
    for r in range(rounds):
        P = len(prompt)
        logits = dec.forward(prompt, np.arange(P), 0, logits_indices=[P - 1])
        t0 = time.perf_counter()
        for _ in range(n_tokens):
            t = int(np.argmax(logits[-1]))
            logits = dec.forward([t], [P], P, logits_indices=[0])
            P += 1
        speeds.append(n_tokens / (time.perf_counter() - t0))
        print(f"[bench] round {r + 1}: {speeds[-1]:.1f} tok/s", file=sys.stderr)
    ctx_ids = [int(t) for t in rng.integers(3, min(vocab, 5000), context)]
    dec.forward(ctx_ids, np.arange(context), 0, logits_indices=[context - 1])
    kcost = {}
    for k in ks:
        ids = [int(t) for t in rng.integers(3, min(vocab, 5000), k)]
        pos = np.arange(context, context + k)
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            dec.forward(ids, pos, context)  # logits for all k rows, like a verify step
            times.append(time.perf_counter() - t0)
        kcost[k] = round(1000 * float(np.median(times)), 2)
    return {"model": model_dir, "threads": threads, "decode_tok_s": round(float(np.median(speeds)), 1),
            "decode_rounds": [round(s, 1) for s in speeds], "k_forward_ms_at_context": context,
            "k_forward_ms": kcost}

"""SPACE training samples: one answer sequence with mask groups packed after it (numpy only; no torch).

A sequence is prompt + answer (causal; every answer token carries the plain next-token label, which is the SFT
half that keeps the model's behaviour). After it come G mask groups of k masks each. A group belongs to an OWNER,
a real token at index o of the sequence, and reproduces what the engine feeds at decode time after that token
(docs/METHODS.md, SPACE; the decoding segment is b, [M x k], c1, [M x k], ...):
- mask j (1..k) of the group sees the sequence up to and including o, and masks 1..j of its own group; nothing
  else sees it (real tokens never see masks, so the packed groups do not change the plain-SFT part);
- its position is (visible tokens - 1) = o + j, the position the token it stands in for would have;
- its label is the token at o + 1 + j: the owner itself predicts o + 1, the masks o + 2 .. o + k + 1, so a group
  together with its owner covers y[s : s + k + 1] (the paper's "prompt + y[:s] + [MASK] x (k+1), labels
  y[:s+k+1]" with the owner's own prediction counted as the first of the k + 1).
Owners are answer positions (o from the last prompt token to the second-to-last token); a label past the end of
the sequence is IGNORE. Packing G groups costs k*G extra tokens instead of G separate copies of the sequence.
"""
from __future__ import annotations

import numpy as np

IGNORE = -100


def pick_owners(n_prompt: int, n_seq: int, groups: int, rng: np.random.Generator) -> np.ndarray:
    """Up to `groups` distinct owner indices in [n_prompt - 1, n_seq - 2], sorted."""
    lo, hi = n_prompt - 1, n_seq - 2
    if hi < lo or groups <= 0:
        return np.zeros(0, dtype=np.int64)
    cand = np.arange(lo, hi + 1)
    return np.sort(rng.choice(cand, size=min(groups, len(cand)), replace=False)).astype(np.int64)


def pack(seq: list, n_prompt: int, owners, k: int, mask_id: int) -> dict:
    """ids, positions, labels (int64 [N]), kind (0 real, j = mask j), visible (bool [N, N], row = query)."""
    if k < 1:
        raise ValueError(f"SPACE k must be >= 1, got {k}")
    L, G = len(seq), len(owners)
    N = L + G * k
    ids = np.full(N, mask_id, dtype=np.int64)
    ids[:L] = seq
    pos = np.zeros(N, dtype=np.int64)
    pos[:L] = np.arange(L)
    labels = np.full(N, IGNORE, dtype=np.int64)
    labels[max(n_prompt - 1, 0):L - 1] = np.asarray(seq[max(n_prompt, 1):L], dtype=np.int64)
    kind = np.zeros(N, dtype=np.int64)
    vis = np.zeros((N, N), dtype=bool)
    vis[:L, :L] = np.tril(np.ones((L, L), dtype=bool))
    for g, o in enumerate(owners):
        o = int(o)
        if not n_prompt - 1 <= o <= L - 2:
            raise ValueError(f"owner {o} outside the answer (prompt {n_prompt}, sequence {L})")
        base = L + g * k
        for j in range(1, k + 1):
            r = base + j - 1
            pos[r] = o + j
            kind[r] = j
            if o + 1 + j < L:
                labels[r] = seq[o + 1 + j]
            vis[r, :o + 1] = True
            vis[r, base:r + 1] = True
    return {"ids": ids, "positions": pos, "labels": labels, "kind": kind, "visible": vis}


def collate(samples: list, pad_id: int = 0) -> dict:
    """Right-pad packed samples to one width; pads see only themselves and carry IGNORE labels."""
    B, N = len(samples), max(len(s["ids"]) for s in samples)
    out = {"ids": np.full((B, N), pad_id, np.int64), "positions": np.zeros((B, N), np.int64),
           "labels": np.full((B, N), IGNORE, np.int64), "kind": np.zeros((B, N), np.int64),
           "visible": np.zeros((B, N, N), bool)}
    for b, s in enumerate(samples):
        n = len(s["ids"])
        for key in ("ids", "positions", "labels", "kind"):
            out[key][b, :n] = s[key]
        out["visible"][b, :n, :n] = s["visible"]
        out["visible"][b, np.arange(n, N), np.arange(n, N)] = True
    return out


def collate_split(samples: list, pad_id: int = 0) -> dict:
    """The same packed samples as two blocks, for two calls through a KV cache: "real" (every sample's real tokens,
    right-padded to Lmax, causal) and "mask" (its mask groups, right-padded to Mmax; their visibility has the real
    columns first, then the mask block's own columns at Lmax..). With adapters on mask rows only, the real block
    computes the frozen base model, so training runs it without gradients and back-propagates through the mask
    block alone (about half the work of a fused fwd+bwd on ~250 real + 96 mask tokens).
    Pads see only themselves and carry IGNORE labels, as in `collate`."""
    B = len(samples)
    lens = [int((s["kind"] == 0).sum()) for s in samples]
    L, M = max(lens), max(len(s["ids"]) - n for s, n in zip(samples, lens))
    real = {"ids": np.full((B, L), pad_id, np.int64), "positions": np.zeros((B, L), np.int64),
            "labels": np.full((B, L), IGNORE, np.int64), "visible": np.zeros((B, L, L), bool)}
    mask = {"ids": np.full((B, M), pad_id, np.int64), "positions": np.zeros((B, M), np.int64),
            "labels": np.full((B, M), IGNORE, np.int64), "kind": np.zeros((B, M), np.int64),
            "visible": np.zeros((B, M, L + M), bool)}
    for b, (s, n) in enumerate(zip(samples, lens)):
        if (s["kind"][:n] != 0).any():
            raise ValueError("a packed sample must hold its real tokens first, then its mask groups")
        m = len(s["ids"]) - n
        for key in ("ids", "positions", "labels"):
            real[key][b, :n] = s[key][:n]
            mask[key][b, :m] = s[key][n:]
        mask["kind"][b, :m] = s["kind"][n:]
        real["visible"][b, :n, :n] = s["visible"][:n, :n]
        real["visible"][b, np.arange(n, L), np.arange(n, L)] = True
        mask["visible"][b, :m, :n] = s["visible"][n:, :n]
        mask["visible"][b, :m, L:L + m] = s["visible"][n:, n:]
        mask["visible"][b, np.arange(m, M), L + np.arange(m, M)] = True
    return {"real": real, "mask": mask}

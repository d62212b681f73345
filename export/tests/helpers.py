"""Test helpers: token-tree masks and GGML block encoders (to build exact-conversion fixtures)."""
from __future__ import annotations

import numpy as np


def tree_bias(parents: list, past: int) -> np.ndarray:
    """Additive bias [S, past + S] for a token tree in topological order (parent -1 = child of the context)."""
    S = len(parents)
    bias = np.full((S, past + S), -1e9, np.float32)
    bias[:, :past] = 0.0
    for i in range(S):
        j = i
        while j != -1:
            bias[i, past + j] = 0.0
            j = parents[j]
    return bias


def tree_depths(parents: list) -> list:
    d = []
    for p in parents:
        d.append(0 if p == -1 else d[p] + 1)
    return d


def _f16_bytes(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float16).reshape(*x.shape, 1).view(np.uint8)


def ggml_encode(w: np.ndarray, ggml_type: str) -> np.ndarray:
    """Encode float (out, in) as GGML Q4_0 / Q4_1 / Q8_0 blocks (uint8 [out, in/32*bytes]), llama.cpp-style."""
    n, k = w.shape
    b = w.reshape(n, k // 32, 32).astype(np.float32)
    if ggml_type == "Q8_0":
        d = np.abs(b).max(-1) / 127
        q = np.rint(b / np.where(d == 0, 1, d)[..., None]).astype(np.int8)
        blocks = np.concatenate([_f16_bytes(d), q.view(np.uint8)], axis=-1)
    elif ggml_type == "Q4_0":
        idx = np.abs(b).argmax(-1)
        mx = np.take_along_axis(b, idx[..., None], -1)[..., 0]
        d = mx / -8
        q = np.clip(np.rint(b / np.where(d == 0, 1, d)[..., None]) + 8, 0, 15).astype(np.uint8)
        blocks = np.concatenate([_f16_bytes(d), q[..., :16] | (q[..., 16:] << 4)], axis=-1)
    elif ggml_type == "Q4_1":
        lo, hi = b.min(-1), b.max(-1)
        d = (hi - lo) / 15
        q = np.clip(np.rint((b - lo[..., None]) / np.where(d == 0, 1, d)[..., None]), 0, 15).astype(np.uint8)
        blocks = np.concatenate([_f16_bytes(d), _f16_bytes(lo), q[..., :16] | (q[..., 16:] << 4)], axis=-1)
    else:
        raise ValueError(ggml_type)
    return np.ascontiguousarray(blocks.reshape(n, -1))


def quantize_checkpoint(ck, matrix_type: str, embed_type: str = "Q8_0"):
    """Copy of a float Checkpoint whose matrices are GGML QuantTensors (like a GGUF file would give)."""
    import dataclasses

    from export.checkpoint import QuantTensor

    def qt(w, t):
        return QuantTensor(t, w.shape, ggml_encode(w, t))

    layers = [dataclasses.replace(L, q=qt(L.q, matrix_type), k=qt(L.k, matrix_type), v=qt(L.v, matrix_type),
                                  o=qt(L.o, matrix_type), gate=qt(L.gate, matrix_type), up=qt(L.up, matrix_type),
                                  down=qt(L.down, matrix_type)) for L in ck.layers]
    return dataclasses.replace(ck, layers=layers, embed=qt(ck.embed, embed_type),
                               lm_head=None if ck.lm_head is None else qt(ck.lm_head, embed_type),
                               source_quantization=f"{matrix_type}+{embed_type}")

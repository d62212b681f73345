"""Test helpers: token-tree masks and GGML block encoders (to build exact-conversion fixtures)."""
from __future__ import annotations

import numpy as np

from export.ggml_blocks import ggml_encode  # noqa: F401  (re-exported for the tests)


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

"""Encode float (out, in) matrices as GGML blocks, for test fixtures and the tiny K-quant model: Q4_0 / Q4_1 / Q8_0
(32 weights per block) and Q4_K / Q6_K (256-weight super-blocks, the types of a Q4_K_M GGUF such as
Qwen2.5-Coder's). A plain round-to-nearest encoder, not llama.cpp's search for the best scales: what matters here
is valid bytes in the exact layout the engine's kernels and gguf-py's dequantizer read (tested against gguf-py's
`dequantize`, which implements llama.cpp's `dequantize_row_*`)."""
from __future__ import annotations

import numpy as np


def _f16_bytes(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float16).reshape(*x.shape, 1).view(np.uint8)


def _safe(d: np.ndarray) -> np.ndarray:
    return np.where(d == 0, 1, d)


def _q4_k(b: np.ndarray) -> np.ndarray:
    """b: [blocks, 8, 32] float -> [blocks, 144] bytes. value = d * sc_j * q - dmin * m_j (q 4-bit, sc/m 6-bit)."""
    lo = np.minimum(b.min(-1), 0)                      # the min term only subtracts
    scale = (b.max(-1) - lo) / 15
    d = (scale.max(-1) / 63).astype(np.float16).astype(np.float32)
    dmin = ((-lo).max(-1) / 63).astype(np.float16).astype(np.float32)
    sc = np.clip(np.rint(scale / _safe(d)[:, None]), 0, 63).astype(np.uint8)
    m = np.clip(np.rint(-lo / _safe(dmin)[:, None]), 0, 63).astype(np.uint8)
    step = (d[:, None] * sc)[..., None]
    q = np.clip(np.rint((b + (dmin[:, None] * m)[..., None]) / _safe(step)), 0, 15).astype(np.uint8)
    # the 12 scale bytes, inverse of get_scale_min_k4: j < 4 in the low 6 bits of bytes j (scale) and j + 4
    # (min); j >= 4 as low nibbles in byte j + 4 with their top 2 bits in the top 2 bits of bytes j - 4 / j
    s = np.zeros((b.shape[0], 12), np.uint8)
    s[:, 0:4] = sc[:, 0:4] | ((sc[:, 4:8] >> 4) << 6)
    s[:, 4:8] = m[:, 0:4] | ((m[:, 4:8] >> 4) << 6)
    s[:, 8:12] = (sc[:, 4:8] & 0x0F) | ((m[:, 4:8] & 0x0F) << 4)
    # 32-byte group g: sub-block 2g in the low nibbles, 2g + 1 in the high nibbles
    qs = (q[:, 0::2] | (q[:, 1::2] << 4)).reshape(b.shape[0], 128)
    return np.concatenate([_f16_bytes(d), _f16_bytes(dmin), s, qs], axis=-1)


def _q6_k(b: np.ndarray) -> np.ndarray:
    """b: [blocks, 256] float -> [blocks, 210] bytes. value = d * sc_i * (q - 32), one int8 scale per 16."""
    h = b.reshape(b.shape[0], 16, 16)
    scale = np.abs(h).max(-1) / 32
    d = (scale.max(-1) / 127).astype(np.float16).astype(np.float32)
    sc = np.clip(np.rint(scale / _safe(d)[:, None]), -128, 127).astype(np.int8)
    step = (d[:, None] * sc.astype(np.float32))[..., None]
    q = (np.clip(np.rint(h / _safe(step)), -32, 31) + 32).astype(np.uint8).reshape(b.shape[0], 2, 4, 32)
    # per 128-weight half: ql[0:32] = q0 | q2 << 4, ql[32:64] = q1 | q3 << 4, qh = q0>>4 | q1>>4 << 2 | ...
    ql = np.concatenate([(q[:, :, 0] & 15) | ((q[:, :, 2] & 15) << 4), (q[:, :, 1] & 15) | ((q[:, :, 3] & 15) << 4)],
                        axis=-1).reshape(b.shape[0], 128)
    qh = ((q[:, :, 0] >> 4) | ((q[:, :, 1] >> 4) << 2) | ((q[:, :, 2] >> 4) << 4) | ((q[:, :, 3] >> 4) << 6))
    return np.concatenate([ql, qh.reshape(b.shape[0], 64), sc.view(np.uint8), _f16_bytes(d)], axis=-1)


def ggml_encode(w: np.ndarray, ggml_type: str) -> np.ndarray:
    """Encode float (out, in) as GGML blocks: uint8 [out, in / block_weights * block_bytes], llama.cpp's layout."""
    n, k = w.shape
    if ggml_type in ("Q4_K", "Q6_K"):
        if k % 256:
            raise ValueError(f"{ggml_type} needs in-features divisible by 256, got {k}")
        sb = w.reshape(n * k // 256, 256).astype(np.float32)
        blocks = _q4_k(sb.reshape(-1, 8, 32)) if ggml_type == "Q4_K" else _q6_k(sb)
        return np.ascontiguousarray(blocks.reshape(n, -1))
    b = w.reshape(n, k // 32, 32).astype(np.float32)
    if ggml_type == "Q8_0":
        d = np.abs(b).max(-1) / 127
        q = np.rint(b / _safe(d)[..., None]).astype(np.int8)
        blocks = np.concatenate([_f16_bytes(d), q.view(np.uint8)], axis=-1)
    elif ggml_type == "Q4_0":
        idx = np.abs(b).argmax(-1)
        mx = np.take_along_axis(b, idx[..., None], -1)[..., 0]
        d = mx / -8
        q = np.clip(np.rint(b / _safe(d)[..., None]) + 8, 0, 15).astype(np.uint8)
        blocks = np.concatenate([_f16_bytes(d), q[..., :16] | (q[..., 16:] << 4)], axis=-1)
    elif ggml_type == "Q4_1":
        lo, hi = b.min(-1), b.max(-1)
        d = (hi - lo) / 15
        q = np.clip(np.rint((b - lo[..., None]) / _safe(d)[..., None]), 0, 15).astype(np.uint8)
        blocks = np.concatenate([_f16_bytes(d), _f16_bytes(lo), q[..., :16] | (q[..., 16:] << 4)], axis=-1)
    else:
        raise ValueError(ggml_type)
    return np.ascontiguousarray(blocks.reshape(n, -1))

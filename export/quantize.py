"""Pack weights for ONNX Runtime's MatMulNBits (com.microsoft), block size 32, 4 or 8 bits.

MatMulNBits computes W[n, k] = scale[n, blk] * (q[n, k] - zp[n, blk]) with an INTEGER zero point.
Exact conversions from GGML blocks:
- Q8_0 -> 8 bit: q = int8 + 128, zp = 128 (the op's default), scale = d.
- Q4_0 -> 4 bit: q = nibble, zp = 8 (default), scale = d.   (-> 8 bit the same with an explicit zp of 8)
- Q4_1 -> 4 or 8 bit: value is d*q + m with an arbitrary float offset m. An integer zero point cannot hold m,
  so we store q with zp = 0 and return m separately as a per-block OFFSET: the graph adds
  blocksum(x) @ offset^T, which equals sum_k x_k * m[n, k // 32] exactly (see RECIPES.md; re-quantizing Q4_1
  to RTN int4 destroys blocks whose weights all have one sign).
Everything else (float weights, Q8_0 -> 4 bit, K-quants) is re-quantized round-to-nearest from float, and the
error against the float source is reported.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from .checkpoint import QuantTensor, Weight, as_float, split_blocks

BLOCK = 32


@dataclass
class PackedMatrix:
    """MatMulNBits initializers for one (N, K) weight, plus the float matrix the graph effectively uses."""

    bits: int
    n: int
    k: int
    b: np.ndarray  # uint8 [N, K/32, 32*bits/8]
    scales: np.ndarray  # float32 [N * K/32]
    zero_points: Optional[np.ndarray]  # uint8 packed, or None for the default 2^(bits-1)
    offset: Optional[np.ndarray]  # float32 [N, K/32] per-block additive term (Q4_1), or None
    effective: np.ndarray  # float32 (N, K): scale*(q-zp)+offset, what the graph multiplies by
    exact: bool  # True when `effective` equals the checkpoint's own dequantized weight bit for bit
    error: Optional[dict] = None  # {"max_abs", "max_rel", "rel_rms"} for re-quantized weights
    block_size: int = BLOCK


def _pack_codes(q: np.ndarray, bits: int) -> np.ndarray:
    """[N, nb, 32] integer codes -> [N, nb, 32*bits/8] uint8 (4 bit: element 2i low nibble, 2i+1 high)."""
    q = q.astype(np.uint8)
    if bits == 8:
        return np.ascontiguousarray(q)
    return np.ascontiguousarray(q[..., 0::2] | (q[..., 1::2] << 4))


def _pack_zero_points(zp: np.ndarray, bits: int) -> np.ndarray:
    """[N, nb] integer zero points -> MatMulNBits layout (4 bit: two per byte, each row padded to a byte)."""
    zp = zp.astype(np.uint8)
    if bits == 8:
        return zp.reshape(-1)
    n, nb = zp.shape
    if nb % 2:
        zp = np.concatenate([zp, np.zeros((n, 1), np.uint8)], axis=1)
    return (zp[:, 0::2] | (zp[:, 1::2] << 4)).reshape(-1)


def _error(effective: np.ndarray, ref: np.ndarray) -> dict:
    d = np.abs(effective - ref)
    amax = float(np.abs(ref).max()) or 1.0
    return {"max_abs": float(d.max()), "max_rel": float(d.max()) / amax,
            "rel_rms": float(np.sqrt(np.mean(d * d)) / (np.sqrt(np.mean(ref * ref)) or 1.0))}


def _finish(bits, q, scale, zp_int, offset, exact, ref=None, explicit_zp=True):
    """Assemble a PackedMatrix from codes q [N, nb, 32], scale/zp/offset [N, nb]."""
    n, nb, _ = q.shape
    eff = scale[..., None] * (q.astype(np.float32) - zp_int[..., None].astype(np.float32))
    if offset is not None:
        eff = eff + offset[..., None]
    eff = eff.reshape(n, nb * BLOCK).astype(np.float32)
    return PackedMatrix(
        bits=bits, n=n, k=nb * BLOCK, b=_pack_codes(q, bits),
        scales=np.ascontiguousarray(scale.astype(np.float32).reshape(-1)),
        zero_points=_pack_zero_points(zp_int, bits) if explicit_zp else None,
        offset=None if offset is None else np.ascontiguousarray(offset.astype(np.float32)),
        effective=eff, exact=exact, error=None if ref is None else _error(eff, ref))


def quantize_rtn(w: np.ndarray, bits: int) -> PackedMatrix:
    """Round-to-nearest from float (N, K): 8 bit symmetric (zp 128), 4 bit asymmetric with integer zp."""
    n, k = w.shape
    if k % BLOCK:
        raise ValueError(f"K={k} is not a multiple of the block size {BLOCK}")
    wb = w.reshape(n, k // BLOCK, BLOCK).astype(np.float32)
    if bits == 8:
        scale = np.abs(wb).max(-1) / 127.0
        scale = np.where(scale == 0, 1.0, scale).astype(np.float32)
        q = np.clip(np.rint(wb / scale[..., None]), -127, 127) + 128
        zp = np.full(scale.shape, 128, np.uint8)
        return _finish(8, q, scale, zp, None, False, ref=w, explicit_zp=False)
    # 4 bit: the block range must contain 0 because the zero point is an integer code.
    lo = np.minimum(wb.min(-1), 0.0)
    hi = np.maximum(wb.max(-1), 0.0)
    scale = ((hi - lo) / 15.0).astype(np.float32)
    scale = np.where(scale == 0, 1.0, scale).astype(np.float32)
    zp = np.clip(np.rint(-lo / scale), 0, 15)
    q = np.clip(np.rint(wb / scale[..., None]) + zp[..., None], 0, 15)
    return _finish(4, q, scale, zp, None, False, ref=w)


def pack_weight(w: Weight, bits: int, requantize: bool = False) -> PackedMatrix:
    """Best MatMulNBits representation of `w` for `bits` (exact from Q4_0/Q4_1/Q8_0 where possible).

    requantize=True forces round-to-nearest from the dequantized float weight (never exact; faster for
    Q4_1 -> int4 because it drops the offset term, but see the module docstring for why that is unsafe).
    """
    if bits not in (4, 8):
        raise ValueError("bits must be 4 or 8")
    if isinstance(w, QuantTensor) and not requantize:
        t = w.ggml_type
        if t == "Q8_0" and bits == 8:
            p = split_blocks(t, w.blocks, w.shape)
            q = p["q"].astype(np.int16) + 128
            return _finish(8, q, p["d"], np.full(p["d"].shape, 128, np.uint8), None, True, explicit_zp=False)
        if t == "Q4_0":
            p = split_blocks(t, w.blocks, w.shape)
            zp = np.full(p["d"].shape, 8, np.uint8)
            return _finish(bits, p["q"], p["d"], zp, None, True, explicit_zp=(bits == 8))
        if t == "Q4_1":
            p = split_blocks(t, w.blocks, w.shape)
            zp = np.zeros(p["d"].shape, np.uint8)
            return _finish(bits, p["q"], p["d"], zp, p["m"], True)
    return quantize_rtn(as_float(w), bits)


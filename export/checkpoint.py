"""Checkpoint-independent model description shared by the readers and the graph builder.

Both readers (GGUF, safetensors, and the random tiny model) produce a `Checkpoint`: a `DecoderConfig` plus
weights in Hugging Face layout (matrices are (out_features, in_features), q/k rows in rotate_half order).
A weight is either a float32 numpy array or a `QuantTensor` that keeps the raw GGML blocks so that the
quantizer can convert Q4_0/Q4_1/Q8_0 exactly instead of re-quantizing a dequantized copy.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Optional, Union

import numpy as np

# GGML block formats we understand bit-exactly: name -> (elements per block, bytes per block).
GGML_BLOCKS = {"Q4_0": (32, 18), "Q4_1": (32, 20), "Q8_0": (32, 34)}


@dataclass
class DecoderConfig:
    """Dimensions and hyper-parameters of a Llama-family decoder (Llama, Mistral, Qwen2)."""

    architecture: str  # "llama" | "qwen2" | "mistral"
    vocab_size: int
    hidden_size: int
    intermediate_size: int
    num_layers: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    max_position_embeddings: int
    rope_theta: float
    rms_norm_eps: float
    tie_word_embeddings: bool
    attention_bias: bool = False  # q/k/v projections carry a bias (Qwen2)

    def to_dict(self) -> dict:
        """Plain dict (JSON-serialisable)."""
        return dataclasses.asdict(self)


@dataclass
class QuantTensor:
    """A GGML block-quantized matrix in HF (out, in) orientation.

    `blocks` is uint8 [out, in // 32 * bytes_per_block]: one row of blocks per output feature, exactly as
    stored in the GGUF file (rows may have been reordered, which is exact because blocks run along `in`).
    """

    ggml_type: str
    shape: tuple  # (out, in)
    blocks: np.ndarray

    def dequantize(self) -> np.ndarray:
        """float32 (out, in) matrix, computed exactly as llama.cpp does (fp16 scales widened to fp32)."""
        return dequantize_blocks(self.ggml_type, self.blocks, self.shape)

    def take_rows(self, index: np.ndarray) -> "QuantTensor":
        """A row-permuted/sliced copy (exact: quantization blocks never span rows)."""
        return QuantTensor(self.ggml_type, (len(index), self.shape[1]), np.ascontiguousarray(self.blocks[index]))


Weight = Union[np.ndarray, QuantTensor]


@dataclass
class LayerWeights:
    """One decoder layer. Matrices are (out, in); norms are [hidden]; biases optional."""

    attn_norm: np.ndarray
    q: Weight
    k: Weight
    v: Weight
    o: Weight
    ffn_norm: np.ndarray
    gate: Weight
    up: Weight
    down: Weight
    q_bias: Optional[np.ndarray] = None
    k_bias: Optional[np.ndarray] = None
    v_bias: Optional[np.ndarray] = None


@dataclass
class Checkpoint:
    """A whole decoder: config, weights, tokenizer material and provenance."""

    config: DecoderConfig
    embed: Weight  # (vocab, hidden)
    layers: list
    final_norm: np.ndarray
    lm_head: Optional[Weight]  # None when tied to `embed`
    # tokenizer.json text (HF tokenizers format) and special-token facts for the manifest
    tokenizer_json: Optional[str] = None
    bos_id: Optional[int] = None
    eos_id: Optional[int] = None
    pad_id: Optional[int] = None
    add_bos: bool = False
    chat_template: Optional[str] = None
    vocab_tokens: Optional[list] = None  # id -> token string, used to find stop tokens
    source: dict = field(default_factory=dict)  # {"path", "format", "files": {name: sha256}}
    source_quantization: str = "none"


def _f16_at(blocks: np.ndarray, offset: int) -> np.ndarray:
    """Read the fp16 at byte `offset` of every block as float32 (blocks: [..., nb, bytes])."""
    return blocks[..., offset:offset + 2].copy().view(np.float16)[..., 0].astype(np.float32)


def split_blocks(ggml_type: str, blocks: np.ndarray, shape: tuple) -> dict:
    """Decode raw GGML blocks into integer codes and per-block parameters (all vectorized).

    Returns {"q": uint8/int8 [out, nb, 32] codes in element order, "d": fp32 [out, nb],
    "m": fp32 [out, nb] (Q4_1 only)}. Value = d * (q - 8) for Q4_0, d * q + m for Q4_1, d * q for Q8_0.
    """
    n_el, n_bytes = GGML_BLOCKS[ggml_type]
    rows, cols = shape
    nb = cols // n_el
    b = blocks.reshape(rows, nb, n_bytes)
    if ggml_type == "Q8_0":
        return {"d": _f16_at(b, 0), "q": b[..., 2:].view(np.int8)}
    qoff = 2 if ggml_type == "Q4_0" else 4
    qs = b[..., qoff:qoff + 16]
    # GGML nibble order: byte j holds element j (low nibble) and element j + 16 (high nibble).
    q = np.concatenate([qs & 0x0F, qs >> 4], axis=-1)
    out = {"d": _f16_at(b, 0), "q": q}
    if ggml_type == "Q4_1":
        out["m"] = _f16_at(b, 2)
    return out


def dequantize_blocks(ggml_type: str, blocks: np.ndarray, shape: tuple) -> np.ndarray:
    """Dequantize Q4_0/Q4_1/Q8_0 blocks to float32 (out, in); other types go through `gguf.quants`."""
    if ggml_type not in GGML_BLOCKS:
        import gguf  # only needed for the exotic types

        qtype = gguf.GGMLQuantizationType[ggml_type]
        return gguf.quants.dequantize(blocks, qtype).reshape(shape).astype(np.float32)
    p = split_blocks(ggml_type, blocks, shape)
    q = p["q"].astype(np.float32)
    if ggml_type == "Q4_0":
        w = p["d"][..., None] * (q - 8.0)
    elif ggml_type == "Q4_1":
        w = p["d"][..., None] * q + p["m"][..., None]
    else:
        w = p["d"][..., None] * q
    return w.reshape(shape).astype(np.float32)


def as_float(w: Weight) -> np.ndarray:
    """float32 view of a weight whatever its storage."""
    return w.dequantize() if isinstance(w, QuantTensor) else np.asarray(w, dtype=np.float32)

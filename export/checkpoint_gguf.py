"""Read a GGUF file (llama / mistral / qwen2 architectures) into a `Checkpoint`.

Quantized tensors keep their raw GGML blocks (`QuantTensor`) so Q4_0/Q4_1/Q8_0 can be converted exactly.
For architecture `llama` (and `mistral`) llama.cpp's converter permuted the q/k rows so that GGML's
interleaved rope works; we undo that permutation here so every checkpoint reaches the graph builder in
Hugging Face layout and the graph uses rotate_half rope (GroupQueryAttention rotary_interleaved=0).
"""
from __future__ import annotations

import os
import sys

import numpy as np

from .checkpoint import Checkpoint, DecoderConfig, LayerWeights, QuantTensor
from .manifest import sha256_file

# Architectures whose q/k rows llama.cpp permuted (convert_hf_to_gguf.py LlamaModel.permute).
PERMUTED_ARCHS = {"llama", "mistral"}
SUPPORTED_ARCHS = {"llama", "mistral", "qwen2"}


def _field(reader, key, default=None):
    f = reader.fields.get(key)
    if f is None:
        return default
    v = f.contents()
    return v


def unpermute_rows(n_rows: int, n_head: int) -> np.ndarray:
    """Row index that maps llama.cpp's permuted q/k layout back to HF's rotate_half layout.

    The converter did `w.reshape(n_head, 2, hd/2, in).swapaxes(1, 2)`: within a head, HF row (half h, i)
    went to GGUF row (i, half h). So HF row r = head*hd + h*hd/2 + i is GGUF row head*hd + 2*i + h.
    """
    hd = n_rows // n_head
    head, rest = np.divmod(np.arange(n_rows), hd)
    h, i = np.divmod(rest, hd // 2)
    return head * hd + 2 * i + h


def _tensor(reader_tensor):
    """GGUF tensor -> float32 array or QuantTensor, in (out, in) orientation."""
    t = reader_tensor
    shape = tuple(int(x) for x in reversed(t.shape))  # GGUF lists dims innermost-first
    tname = t.tensor_type.name
    if tname == "F32":
        return np.asarray(t.data, dtype=np.float32).reshape(shape)
    if tname == "F16":
        return np.asarray(t.data).view(np.float16).astype(np.float32).reshape(shape)
    if tname == "BF16":
        raw = np.asarray(t.data).view(np.uint16).astype(np.uint32) << 16
        return raw.view(np.float32).reshape(shape)
    if len(shape) == 1:
        import gguf

        return gguf.quants.dequantize(t.data, t.tensor_type).reshape(shape).astype(np.float32)
    return QuantTensor(tname, shape, np.ascontiguousarray(np.asarray(t.data).reshape(shape[0], -1)))


def read_config(reader) -> DecoderConfig:
    """DecoderConfig from GGUF metadata keys `{arch}.*`."""
    arch = _field(reader, "general.architecture")
    if arch not in SUPPORTED_ARCHS:
        raise ValueError(f"unsupported GGUF architecture {arch!r} (supported: {sorted(SUPPORTED_ARCHS)})")
    scaling = _field(reader, f"{arch}.rope.scaling.type")
    if scaling not in (None, "none"):
        raise ValueError(f"rope scaling {scaling!r} is not supported by this exporter")
    hidden = int(_field(reader, f"{arch}.embedding_length"))
    heads = int(_field(reader, f"{arch}.attention.head_count"))
    tokens = _field(reader, "tokenizer.ggml.tokens") or []
    vocab = _field(reader, f"{arch}.vocab_size")
    names = {t.name for t in reader.tensors}
    return DecoderConfig(
        architecture=arch,
        vocab_size=int(vocab) if vocab is not None else len(tokens),
        hidden_size=hidden,
        intermediate_size=int(_field(reader, f"{arch}.feed_forward_length")),
        num_layers=int(_field(reader, f"{arch}.block_count")),
        num_heads=heads,
        num_kv_heads=int(_field(reader, f"{arch}.attention.head_count_kv", heads)),
        head_dim=int(_field(reader, f"{arch}.attention.key_length", hidden // heads)),
        max_position_embeddings=int(_field(reader, f"{arch}.context_length", 2048)),
        rope_theta=float(str(np.float32(_field(reader, f"{arch}.rope.freq_base", 10000.0)))),
        # GGUF stores float32: take the shortest decimal that is that float32 (9.99999975e-06 -> 1e-05)
        rms_norm_eps=float(str(np.float32(_field(reader, f"{arch}.attention.layer_norm_rms_epsilon", 1e-5)))),
        tie_word_embeddings="output.weight" not in names,
        attention_bias="blk.0.attn_q.bias" in names,
    )


def load_gguf(path: str, build_tokenizer: bool = True, unpermute: bool = True) -> Checkpoint:
    """Read a GGUF file into a Checkpoint (weights in HF layout, raw quantized blocks kept).

    unpermute=False keeps llama.cpp's q/k row order (only for tests of the permutation itself).
    """
    import gguf

    from .tokenizer_build import tokenizer_from_gguf

    print(f"[gguf] reading {path}", file=sys.stderr)
    reader = gguf.GGUFReader(path)
    cfg = read_config(reader)
    t = {rt.name: rt for rt in reader.tensors}

    def get(name):
        if name not in t:
            raise KeyError(f"GGUF tensor {name!r} missing")
        return _tensor(t[name])

    def opt(name):
        return _tensor(t[name]) if name in t else None

    permute = unpermute and cfg.architecture in PERMUTED_ARCHS
    layers = []
    for i in range(cfg.num_layers):
        p = f"blk.{i}."
        q, k = get(p + "attn_q.weight"), get(p + "attn_k.weight")
        qb, kb = opt(p + "attn_q.bias"), opt(p + "attn_k.bias")
        if permute:
            iq = unpermute_rows(cfg.num_heads * cfg.head_dim, cfg.num_heads)
            ik = unpermute_rows(cfg.num_kv_heads * cfg.head_dim, cfg.num_kv_heads)
            q = q.take_rows(iq) if isinstance(q, QuantTensor) else q[iq]
            k = k.take_rows(ik) if isinstance(k, QuantTensor) else k[ik]
            qb = None if qb is None else qb[iq]
            kb = None if kb is None else kb[ik]
        layers.append(LayerWeights(
            attn_norm=get(p + "attn_norm.weight"), q=q, k=k, v=get(p + "attn_v.weight"),
            o=get(p + "attn_output.weight"), ffn_norm=get(p + "ffn_norm.weight"),
            gate=get(p + "ffn_gate.weight"), up=get(p + "ffn_up.weight"), down=get(p + "ffn_down.weight"),
            q_bias=qb, k_bias=kb, v_bias=opt(p + "attn_v.bias"),
        ))
    qtypes = sorted({rt.tensor_type.name for rt in reader.tensors if len(rt.shape) > 1})
    ck = Checkpoint(
        config=cfg, embed=get("token_embd.weight"), layers=layers, final_norm=get("output_norm.weight"),
        lm_head=None if cfg.tie_word_embeddings else get("output.weight"),
        source={"path": os.path.abspath(path), "format": "gguf",
                "files": {os.path.basename(path): sha256_file(path)}},
        source_quantization="+".join(qtypes),
    )
    ck.chat_template = _field(reader, "tokenizer.chat_template")
    ck.bos_id = _field(reader, "tokenizer.ggml.bos_token_id")
    ck.eos_id = _field(reader, "tokenizer.ggml.eos_token_id")
    ck.pad_id = _field(reader, "tokenizer.ggml.padding_token_id")
    ck.add_bos = bool(_field(reader, "tokenizer.ggml.add_bos_token", False))
    ck.vocab_tokens = list(_field(reader, "tokenizer.ggml.tokens") or [])
    if build_tokenizer:
        ck.tokenizer_json = tokenizer_from_gguf(reader)
    return ck

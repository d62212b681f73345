"""Read a Hugging Face model folder (config.json + *.safetensors + tokenizer files) into a `Checkpoint`.

Supports Llama, Mistral and Qwen2 (q/k/v bias). numpy only: the safetensors header is parsed directly and the
data memory-mapped, because the library's numpy API cannot represent bfloat16 (converted here to float32 by
shifting the 16 bits into the high half of a uint32).
"""
from __future__ import annotations

import glob
import json
import os
import struct
import sys

import numpy as np

from .checkpoint import Checkpoint, DecoderConfig, LayerWeights
from .manifest import sha256_file

_DTYPES = {"F32": np.float32, "F16": np.float16, "F64": np.float64, "BF16": np.uint16}
SUPPORTED = {"llama", "mistral", "qwen2"}


def read_safetensors(path: str) -> dict:
    """{name: float32 array} for every tensor of one .safetensors file (memory-mapped, bf16/f16 widened)."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dt = info["dtype"]
        if dt not in _DTYPES:
            raise ValueError(f"{path}: tensor {name} has unsupported dtype {dt}")
        a, b = info["data_offsets"]
        arr = np.frombuffer(data[a:b], dtype=np.dtype(_DTYPES[dt]).newbyteorder("<")).reshape(info["shape"])
        if dt == "BF16":
            arr = (arr.astype(np.uint32) << 16).view(np.float32)
        out[name] = arr.astype(np.float32)
    return out


def read_config(cfg: dict) -> DecoderConfig:
    """DecoderConfig from a HF config.json dict."""
    mt = cfg.get("model_type")
    if mt not in SUPPORTED:
        raise ValueError(f"unsupported model_type {mt!r} (supported: {sorted(SUPPORTED)})")
    if cfg.get("rope_scaling"):
        raise ValueError(f"rope_scaling {cfg['rope_scaling']!r} is not supported by this exporter")
    heads = int(cfg["num_attention_heads"])
    hidden = int(cfg["hidden_size"])
    return DecoderConfig(
        architecture=mt, vocab_size=int(cfg["vocab_size"]), hidden_size=hidden,
        intermediate_size=int(cfg["intermediate_size"]), num_layers=int(cfg["num_hidden_layers"]),
        num_heads=heads, num_kv_heads=int(cfg.get("num_key_value_heads") or heads),
        head_dim=int(cfg.get("head_dim") or hidden // heads),
        max_position_embeddings=int(cfg.get("max_position_embeddings", 2048)),
        rope_theta=float(cfg.get("rope_theta", 10000.0)), rms_norm_eps=float(cfg.get("rms_norm_eps", 1e-6)),
        tie_word_embeddings=bool(cfg.get("tie_word_embeddings", False)),
        attention_bias=(mt == "qwen2") or bool(cfg.get("attention_bias", False)))


def _first_id(v):
    return v[0] if isinstance(v, list) and v else v


def load_safetensors(folder: str) -> Checkpoint:
    """Read a HF folder into a Checkpoint; the folder must contain tokenizer.json (copied verbatim)."""
    with open(os.path.join(folder, "config.json")) as f:
        raw_cfg = json.load(f)
    cfg = read_config(raw_cfg)
    files = sorted(glob.glob(os.path.join(folder, "*.safetensors")))
    if not files:
        raise FileNotFoundError(f"no *.safetensors in {folder}")
    t = {}
    for p in files:
        print(f"[safetensors] reading {p}", file=sys.stderr)
        t.update(read_safetensors(p))

    def get(name):
        if name not in t:
            raise KeyError(f"tensor {name!r} missing from {folder}")
        return t[name]

    layers = []
    for i in range(cfg.num_layers):
        p = f"model.layers.{i}."
        a = p + "self_attn."
        layers.append(LayerWeights(
            attn_norm=get(p + "input_layernorm.weight"), q=get(a + "q_proj.weight"), k=get(a + "k_proj.weight"),
            v=get(a + "v_proj.weight"), o=get(a + "o_proj.weight"), ffn_norm=get(p + "post_attention_layernorm.weight"),
            gate=get(p + "mlp.gate_proj.weight"), up=get(p + "mlp.up_proj.weight"), down=get(p + "mlp.down_proj.weight"),
            q_bias=t.get(a + "q_proj.bias"), k_bias=t.get(a + "k_proj.bias"), v_bias=t.get(a + "v_proj.bias")))
    cfg.attention_bias = layers[0].q_bias is not None
    tied = cfg.tie_word_embeddings or "lm_head.weight" not in t
    cfg.tie_word_embeddings = tied
    ck = Checkpoint(config=cfg, embed=get("model.embed_tokens.weight"), layers=layers,
                    final_norm=get("model.norm.weight"), lm_head=None if tied else get("lm_head.weight"),
                    source={"path": os.path.abspath(folder), "format": "safetensors",
                            "files": {os.path.basename(p): sha256_file(p) for p in files}},
                    source_quantization="none")
    tok_path = os.path.join(folder, "tokenizer.json")
    if not os.path.exists(tok_path):
        raise FileNotFoundError(f"{folder} has no tokenizer.json")
    with open(tok_path, encoding="utf-8") as f:
        ck.tokenizer_json = f.read()
    tok = json.loads(ck.tokenizer_json)
    vocab = tok.get("model", {}).get("vocab", {})
    tokens = [None] * max([cfg.vocab_size] + [i + 1 for i in vocab.values()])
    for s, i in vocab.items():
        tokens[i] = s
    for a in tok.get("added_tokens", []):
        if a["id"] < len(tokens):
            tokens[a["id"]] = a["content"]
    ck.vocab_tokens = tokens
    tc = {}
    tc_path = os.path.join(folder, "tokenizer_config.json")
    if os.path.exists(tc_path):
        with open(tc_path) as f:
            tc = json.load(f)
    gen = {}
    if os.path.exists(os.path.join(folder, "generation_config.json")):
        with open(os.path.join(folder, "generation_config.json")) as f:
            gen = json.load(f)

    def tok_id(v):
        if isinstance(v, dict):
            v = v.get("content")
        return tokens.index(v) if isinstance(v, str) and v in tokens else None

    ck.chat_template = tc.get("chat_template")
    bos = _first_id(gen.get("bos_token_id", raw_cfg.get("bos_token_id")))
    ck.bos_id = bos if bos is not None else tok_id(tc.get("bos_token"))
    eos = tok_id(tc.get("eos_token"))
    ck.eos_id = eos if eos is not None else _first_id(gen.get("eos_token_id", raw_cfg.get("eos_token_id")))
    ck.pad_id = tok_id(tc.get("pad_token"))
    ck.add_bos = bool(tc.get("add_bos_token", False))
    return ck

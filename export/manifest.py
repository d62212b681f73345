"""Write `manifest.json`, the machine-readable half of the contract in export/README.md."""
from __future__ import annotations

import hashlib
import json
import os
from typing import Optional

FORMAT = "specrt-model"
FORMAT_VERSION = 1
STOP_TOKEN_STRINGS = ("<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<end_of_turn>")


def sha256_file(path: str) -> str:
    """Hex sha256 of a file, streamed in 4 MiB chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            h.update(chunk)
    return h.hexdigest()


def stop_ids(eos_id: Optional[int], vocab_tokens: Optional[list]) -> list:
    """eos plus every conventional end-of-turn token present in the vocabulary (sorted, unique)."""
    ids = set() if eos_id is None else {int(eos_id)}
    if vocab_tokens:
        index = {t: i for i, t in enumerate(vocab_tokens) if t in STOP_TOKEN_STRINGS}
        ids.update(index.values())
    return sorted(ids)


def space_entry(vocab_size: int, k: int, adapter: Optional[str] = None) -> dict:
    """The manifest's `space` object: the mask token is input-only and sits right past the logits (id V).
    adapter: "mask_only" (low-rank path on mask rows: real tokens = the base model) or "merged"; None = omitted."""
    if not 1 <= int(k) <= 16:
        raise ValueError(f"SPACE k must be in 1..16, got {k}")
    return {"mask_token_id": int(vocab_size), "k": int(k), **({"adapter": adapter} if adapter else {})}


def write_manifest(out_dir: str, ck, result, files: list, layers_kept: Optional[int], hidden_states: bool,
                   space_k: Optional[int] = None, space_adapter: Optional[str] = None) -> dict:
    """Assemble and write manifest.json for a decoder export; returns the dict.

    space_k: the graph carries the SPACE mask token (id vocab_size) trained for groups of k masks.
    space_adapter: the `space.adapter` key ("mask_only" | "merged"; None leaves it out).
    """
    cfg = ck.config
    dims = {k: getattr(cfg, k) for k in ("vocab_size", "hidden_size", "intermediate_size", "num_layers", "num_heads",
                                         "num_kv_heads", "head_dim", "max_position_embeddings", "rope_theta",
                                         "rms_norm_eps", "tie_word_embeddings")}
    # the graph holds only the kept layers: that is the number of KV buffers the engine allocates
    dims["num_layers"] = layers_kept if layers_kept is not None else cfg.num_layers
    dims["attention_bias"] = cfg.attention_bias
    precision = dict(result.precision)
    precision["source_quantization"] = ck.source_quantization
    precision["notes"] = list(result.notes)
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "kind": "decoder",
        "source": dict(ck.source, source_num_layers=cfg.num_layers),
        "architecture": cfg.architecture,
        "dims": dims,
        "tokens": {"bos_id": ck.bos_id, "eos_id": ck.eos_id, "pad_id": ck.pad_id,
                   "stop_ids": stop_ids(ck.eos_id, ck.vocab_tokens), "add_bos": bool(ck.add_bos)},
        "chat_template": ck.chat_template,
        "precision": precision,
        "graph": {"file": "model.onnx", "external_data": "model.onnx.data",
                  "inputs": result.inputs, "outputs": result.outputs},
        "kv_cache": {"layout": "shared_buffer", "shape": ["batch", cfg.num_kv_heads, "capacity", cfg.head_dim],
                     "dtype": precision["kv_dtype"],
                     "key_input": "past_key.{layer}", "value_input": "past_value.{layer}",
                     "key_output": "present_key.{layer}", "value_output": "present_value.{layer}"},
        "hidden_states": bool(hidden_states),
        "layers_kept": layers_kept,
        **({"space": space_entry(cfg.vocab_size, space_k, space_adapter)} if space_k is not None else {}),
        "files": {name: sha256_file(os.path.join(out_dir, name)) for name in sorted(files)},
    }
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2, ensure_ascii=False)
        f.write("\n")
    return manifest

"""Merge a SPACE training artifact (export/trained/smollm2-space) into a checkpoint for export (numpy only).

    python -m export smollm2 --space export/trained/smollm2-space --out models/smollm2-135m-instruct-int8-space

The artifact (export/train_space.py) holds float16 LoRA factors per layer for the fused q|k|v and gate|up
projections and for o and down, and the mask token's embedding row. The merge is W' = W + (B @ A) * alpha / rank
in float32 on the dequantized base weight (the fused deltas split by rows: q | k | v, gate | up), so the merged
float weights ARE the trained model (export/tests/test_space_merge.py compares the export's logits with the
trained torch model's, stored in probe.safetensors). The merged matrices are float, so `--precision auto` exports
them at int8 (round-to-nearest, block 32); int4 round-to-nearest would snap most small deltas back onto the
base's Q4_1 grid (docs/SPACE.md has the measurement). The artifact's base GGUF sha256 must match the checkpoint.
"""
from __future__ import annotations

import json
import os

import numpy as np

from .checkpoint import Checkpoint, as_float


class SpaceArtifactError(ValueError):
    """A SPACE artifact that does not fit the checkpoint (names the file and the key)."""


def load_artifact(path: str) -> tuple:
    """(tensors as float32 numpy, MANIFEST dict) of an artifact folder."""
    from safetensors.numpy import load_file

    man_path = os.path.join(path, "MANIFEST.json")
    ad_path = os.path.join(path, "adapter.safetensors")
    for p in (man_path, ad_path):
        if not os.path.exists(p):
            raise SpaceArtifactError(f"{p}: missing (not a SPACE artifact folder; see export/train_space.py)")
    with open(man_path) as f:
        man = json.load(f)
    for key in ("k", "lora"):
        if key not in man:
            raise SpaceArtifactError(f"{man_path}: key {key!r} missing")
    return {k: v.astype(np.float32) for k, v in load_file(ad_path).items()}, man


def merge(ck: Checkpoint, tensors: dict, man: dict, where: str = "adapter.safetensors") -> tuple:
    """Checkpoint with the LoRA deltas added (float32 matrices) -> (checkpoint, mask_row, k). `ck` is modified."""
    c = ck.config
    want = man.get("base", {}).get("gguf_sha256")
    have = next(iter(ck.source.get("files", {}).values()), None)
    if want and have and want != have:
        raise SpaceArtifactError(f"MANIFEST.json: base.gguf_sha256 {want[:16]}... != the checkpoint's {have[:16]}...")
    scale = float(man["lora"]["alpha"]) / float(man["lora"]["rank"])
    q_out, kv_out, F_ = c.num_heads * c.head_dim, c.num_kv_heads * c.head_dim, c.intermediate_size

    def delta(i: int, name: str, shape: tuple) -> np.ndarray:
        a_key, b_key = f"layers.{i}.{name}.lora_a", f"layers.{i}.{name}.lora_b"
        for key in (a_key, b_key):
            if key not in tensors:
                raise SpaceArtifactError(f"{where}: tensor {key!r} missing")
        a, b = tensors[a_key], tensors[b_key]
        d = (b @ a) * scale
        if d.shape != shape:
            raise SpaceArtifactError(f"{where}: {b_key} @ {a_key} has shape {d.shape}, the model needs {shape}")
        return d

    if len([key for key in tensors if key.endswith(".qkv.lora_a")]) != len(ck.layers):
        raise SpaceArtifactError(f"{where}: adapters for {len(ck.layers)} layers expected")
    for i, L in enumerate(ck.layers):
        H = c.hidden_size
        d = delta(i, "qkv", (q_out + 2 * kv_out, H))
        L.q = as_float(L.q) + d[:q_out]
        L.k = as_float(L.k) + d[q_out:q_out + kv_out]
        L.v = as_float(L.v) + d[q_out + kv_out:]
        L.o = as_float(L.o) + delta(i, "o", (H, q_out))
        d = delta(i, "gate_up", (2 * F_, H))
        L.gate = as_float(L.gate) + d[:F_]
        L.up = as_float(L.up) + d[F_:]
        L.down = as_float(L.down) + delta(i, "down", (H, F_))
    row = tensors.get("mask_row")
    if row is None or row.shape != (c.hidden_size,):
        raise SpaceArtifactError(f"{where}: tensor 'mask_row' missing or not [{c.hidden_size}]")
    ck.source = dict(ck.source, space_artifact=where)
    return ck, row, int(man["k"])


def merge_folder(ck: Checkpoint, path: str) -> tuple:
    """load_artifact + merge: (checkpoint, mask_row, k)."""
    tensors, man = load_artifact(path)
    return merge(ck, tensors, man, where=os.path.join(path, "adapter.safetensors"))


def requant_report(path: str, layers: int = 30) -> dict:
    """How much of the trained delta each export precision keeps, over the first `layers` layers' matrices:
    kept = <Q(W + d) - W, d> / |d|^2 (1 = all of it) and noise = |Q(W + d) - (W + d)| / |d| (quantization error
    relative to the delta), for int8 and int4 round-to-nearest (export/quantize.py), W = the exact base."""
    from .checkpoint_gguf import load_gguf
    from .quantize import quantize_rtn
    from .smollm2 import smollm2_gguf_path

    base = load_gguf(smollm2_gguf_path(), build_tokenizer=False)
    merged, _, _ = merge_folder(load_gguf(smollm2_gguf_path(), build_tokenizer=False), path)
    acc = {8: [0.0, 0.0, 0.0], 4: [0.0, 0.0, 0.0]}  # sum <q - w, d>, sum |q - w'|^2, sum |d|^2
    for lb, lm in list(zip(base.layers, merged.layers))[:layers]:
        for name in ("q", "k", "v", "o", "gate", "up", "down"):
            w, wm = as_float(getattr(lb, name)), getattr(lm, name)
            d = (wm - w).astype(np.float64)
            for bits in (8, 4):
                q = quantize_rtn(wm, bits).effective.astype(np.float64)
                acc[bits][0] += float(((q - w) * d).sum())
                acc[bits][1] += float(((q - wm) ** 2).sum())
                acc[bits][2] += float((d * d).sum())
    return {f"int{b}": {"kept": round(s[0] / s[2], 4), "noise_over_delta": round((s[1] / s[2]) ** 0.5, 3)}
            for b, s in acc.items()}


if __name__ == "__main__":
    import sys

    print(json.dumps(requant_report(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 30), indent=2))

"""A SPACE training artifact (export/trained/smollm2-space) for export: low-rank factors or a merge (numpy only).

    python -m export smollm2 --space export/trained/smollm2-space --out models/smollm2-135m-instruct-int4-space

Mask-only artifacts (MANIFEST "adapter": "mask_only", the default since the second run) are NOT merged:
`lowrank_folder` returns per layer and projection the factors (A^T, B^T * alpha / rank) in float32, and
export/graph_decoder.py adds them as a low-rank path gated to the mask rows, so the base weights stay exactly
the plain export's (int4 Q4_1 included).

The artifact (export/train_space.py) holds float16 LoRA factors per layer for the fused q|k|v and gate|up
projections and for o and down, and the mask token's embedding row. `merge_folder` is the first run's way (merged
artifacts, or `--space-adapter merged` for a comparison): the merge is W' = W + (B @ A) * alpha / rank
in float32 on the dequantized base weight (the fused deltas split by rows: q | k | v, gate | up), so the merged
float weights ARE the trained model (export/tests/test_space_train.py compares the export's logits with the
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


ADAPTER_MODES = ("mask_only", "merged")


def adapter_mode(man: dict, where: str = "MANIFEST.json") -> str:
    """The artifact's adapter mode; artifacts written before the key existed were trained merged."""
    mode = man.get("adapter", "merged")
    if mode not in ADAPTER_MODES:
        raise SpaceArtifactError(f"{where}: key 'adapter' is {mode!r}, expected one of {ADAPTER_MODES}")
    return mode


def _factors(ck: Checkpoint, tensors: dict, man: dict, where: str):
    """Checks the artifact against `ck` -> factors(i, name, shape) giving (A [r, in], B * alpha / rank [out, r])."""
    c = ck.config
    want = man.get("base", {}).get("gguf_sha256")
    have = next(iter(ck.source.get("files", {}).values()), None)
    if want and have and want != have:
        raise SpaceArtifactError(f"MANIFEST.json: base.gguf_sha256 {want[:16]}... != the checkpoint's {have[:16]}...")
    scale = float(man["lora"]["alpha"]) / float(man["lora"]["rank"])
    if len([key for key in tensors if key.endswith(".qkv.lora_a")]) != len(ck.layers):
        raise SpaceArtifactError(f"{where}: adapters for {len(ck.layers)} layers expected")
    row = tensors.get("mask_row")
    if row is None or row.shape != (c.hidden_size,):
        raise SpaceArtifactError(f"{where}: tensor 'mask_row' missing or not [{c.hidden_size}]")

    def factors(i: int, name: str, shape: tuple) -> tuple:
        a_key, b_key = f"layers.{i}.{name}.lora_a", f"layers.{i}.{name}.lora_b"
        for key in (a_key, b_key):
            if key not in tensors:
                raise SpaceArtifactError(f"{where}: tensor {key!r} missing")
        a, b = tensors[a_key], tensors[b_key]
        if a.ndim != 2 or b.ndim != 2 or a.shape[0] != b.shape[1] or (b.shape[0], a.shape[1]) != shape:
            raise SpaceArtifactError(f"{where}: {b_key} {b.shape} @ {a_key} {a.shape} does not give the model's {shape}")
        return a, b * np.float32(scale)

    return factors, row


def _shapes(ck: Checkpoint) -> dict:
    """(out, in) of each adapted projection: fused q|k|v, o, fused gate|up, down."""
    c = ck.config
    H, q_out, kv_out, F_ = c.hidden_size, c.num_heads * c.head_dim, c.num_kv_heads * c.head_dim, c.intermediate_size
    return {"qkv": (q_out + 2 * kv_out, H), "o": (H, q_out), "gate_up": (2 * F_, H), "down": (H, F_)}


def lowrank(ck: Checkpoint, tensors: dict, man: dict, where: str = "adapter.safetensors") -> tuple:
    """The artifact as a gated low-rank path -> (per layer {projection: (A^T [in, r], B^T * alpha / rank [r, out])}
    float32, mask_row, k). `ck` is not modified: the base weights stay the checkpoint's."""
    factors, row = _factors(ck, tensors, man, where)
    shapes = _shapes(ck)
    layers = []
    for i in range(len(ck.layers)):
        layers.append({name: tuple(np.ascontiguousarray(t.T, dtype=np.float32) for t in factors(i, name, shp))
                       for name, shp in shapes.items()})
    return layers, row, int(man["k"])


def lowrank_folder(ck: Checkpoint, path: str) -> tuple:
    """load_artifact + lowrank: (layers, mask_row, k)."""
    tensors, man = load_artifact(path)
    return lowrank(ck, tensors, man, where=os.path.join(path, "adapter.safetensors"))


def merge(ck: Checkpoint, tensors: dict, man: dict, where: str = "adapter.safetensors") -> tuple:
    """Checkpoint with the LoRA deltas added (float32 matrices) -> (checkpoint, mask_row, k). `ck` is modified."""
    c = ck.config
    factors, row = _factors(ck, tensors, man, where)
    shapes = _shapes(ck)
    q_out, kv_out, F_ = c.num_heads * c.head_dim, c.num_kv_heads * c.head_dim, c.intermediate_size

    def delta(i: int, name: str, shape: tuple) -> np.ndarray:
        a, bs = factors(i, name, shape)
        return bs @ a

    for i, L in enumerate(ck.layers):
        d = delta(i, "qkv", shapes["qkv"])
        L.q = as_float(L.q) + d[:q_out]
        L.k = as_float(L.k) + d[q_out:q_out + kv_out]
        L.v = as_float(L.v) + d[q_out + kv_out:]
        L.o = as_float(L.o) + delta(i, "o", shapes["o"])
        d = delta(i, "gate_up", shapes["gate_up"])
        L.gate = as_float(L.gate) + d[:F_]
        L.up = as_float(L.up) + d[F_:]
        L.down = as_float(L.down) + delta(i, "down", shapes["down"])
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

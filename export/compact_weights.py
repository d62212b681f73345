"""Compact storage for committed trained weights: large matrices as GGML Q8_0 blocks (int8 codes + an fp16 scale
per 32 weights, ~1.06 bytes per weight instead of fp16's 2).

    python -m export.compact_weights export/trained/smollm2-medusa-head     # rewrites model.safetensors in place

Why: trained draft heads are committed so `make test` never trains (export/trained/README.md), and a head's fp16
file is 11-17 MB. Q8_0 is also the form the engine runs them in (`python -m export draft-head --precision q8_0`):
re-encoding the decoded weights gives back exactly the stored blocks (a block's largest code is +-127, so its
scale survives the round trip), so the q8_0 exports, and every figure measured on them, are unchanged bit for
bit. The fp32 export of a compacted head uses the decoded weights (within ~0.56 of its block's scale step of the
fp16 ones: half a step, plus 127 codes times the scale's fp16 rounding).

Layout: a matrix `name` [n, k] (k a multiple of 32, at least MIN_ELEMENTS weights) becomes `name.q8_0_codes` int8
[n, k] and `name.q8_0_scales` float16 [n, k / 32]; every other tensor is kept as stored. `read_weights` returns
{name: float32} for either form; the file's metadata says `{"specrt_storage": "q8_0"}`.
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np

from .ggml_blocks import ggml_encode
from .manifest import sha256_file

CODES, SCALES = ".q8_0_codes", ".q8_0_scales"
# Smaller tensors (norms, biases) stay as they are: they are a few KB and not worth a lossy step.
MIN_ELEMENTS = 65536


def q8_0_parts(w: np.ndarray) -> tuple:
    """(codes int8 [n, k], scales float16 [n, k / 32]) of a float matrix: exactly ggml_encode's Q8_0 blocks."""
    n, k = w.shape
    blocks = ggml_encode(np.asarray(w, np.float32), "Q8_0").reshape(n, k // 32, 34)
    scales = np.ascontiguousarray(blocks[..., :2]).view(np.float16).reshape(n, k // 32)
    codes = np.ascontiguousarray(blocks[..., 2:]).view(np.int8).reshape(n, k)
    return codes, scales


def decode(codes: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """float32 [n, k] of Q8_0 parts: code x its block's scale."""
    n, k = codes.shape
    return (codes.reshape(n, k // 32, 32).astype(np.float32) * scales.astype(np.float32)[..., None]).reshape(n, k)


def compact_tensors(tensors: dict) -> dict:
    """The stored form of {name: array}: large matrices as Q8_0 parts, the rest unchanged."""
    out = {}
    for name, a in tensors.items():
        if a.ndim == 2 and a.shape[1] % 32 == 0 and a.size >= MIN_ELEMENTS and a.dtype.kind == "f":
            out[name + CODES], out[name + SCALES] = q8_0_parts(a)
        else:
            out[name] = np.ascontiguousarray(a)
    return out


def read_weights(path: str) -> dict:
    """{name: float32} of a weights file in either storage (plain, or with Q8_0 parts)."""
    from safetensors.numpy import load_file

    raw = load_file(path)
    out = {}
    for name, a in raw.items():
        if name.endswith(SCALES):
            continue
        if name.endswith(CODES):
            base = name[: -len(CODES)]
            if base + SCALES not in raw:
                raise ValueError(f"{path}: {name} has no {base + SCALES}")
            out[base] = decode(a, raw[base + SCALES])
        else:
            out[name] = a.astype(np.float32)
    return out


def compact_folder(folder: str) -> dict:
    """Rewrites folder/model.safetensors in compact storage and updates MANIFEST.json (file sha256, `storage`)."""
    from safetensors.numpy import load_file, save_file

    path = os.path.join(folder, "model.safetensors")
    raw = load_file(path)
    if any(n.endswith(CODES) for n in raw):
        raise SystemExit(f"{path} is already compact")
    before = os.path.getsize(path)
    save_file(compact_tensors(raw), path + ".tmp", metadata={"specrt_storage": "q8_0"})
    os.replace(path + ".tmp", path)
    man_path = os.path.join(folder, "MANIFEST.json")
    with open(man_path) as f:
        man = json.load(f)
    man["storage"] = {"format": "q8_0", "by": "python -m export.compact_weights", "fp16_bytes": before,
                      "bytes": os.path.getsize(path), "min_elements": MIN_ELEMENTS,
                      "fp16_sha256": man.get("sha256", {}).get("model.safetensors"),
                      "note": "matrices as GGML Q8_0 parts; q8_0 exports are bit-identical to the fp16 file's"}
    man.setdefault("sha256", {})["model.safetensors"] = sha256_file(path)
    with open(man_path, "w") as f:
        json.dump(man, f, indent=1)  # as export/train_draft_head.py writes it
    print(f"[compact] {path}: {before / 1e6:.1f} MB -> {os.path.getsize(path) / 1e6:.1f} MB", file=sys.stderr)
    return man


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python -m export.compact_weights FOLDER (with model.safetensors and MANIFEST.json)")
    compact_folder(sys.argv[1])

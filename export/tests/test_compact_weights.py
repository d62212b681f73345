"""Compact storage of committed trained weights (export/compact_weights.py): large matrices as Q8_0 parts whose
re-encoding gives back the stored blocks exactly, so every q8_0 export of a compacted head equals the fp16 head's."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from export.compact_weights import CODES, SCALES, compact_folder, q8_0_parts, read_weights
from export.ggml_blocks import ggml_encode
from export.manifest import sha256_file

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MEDUSA = os.path.join(ROOT, "export", "trained", "smollm2-medusa-head")


def _folder(tmp_path, tensors: dict) -> str:
    from safetensors.numpy import save_file

    save_file(tensors, str(tmp_path / "model.safetensors"))
    (tmp_path / "MANIFEST.json").write_text(json.dumps({"sha256": {"model.safetensors": "old"}}))
    return str(tmp_path)


def test_compacting_keeps_the_q8_0_blocks_and_leaves_small_tensors_alone(tmp_path):
    rng = np.random.default_rng(0)
    big = (rng.normal(0, 0.05, (512, 256)) * np.exp(rng.normal(0, 1, (512, 1)))).astype(np.float16)
    big[3, :32] = 0  # an all-zero block
    small = rng.normal(0, 1, (64,)).astype(np.float16)
    odd = rng.normal(0, 1, (300, 250)).astype(np.float16)  # K not a multiple of 32: kept as stored
    folder = _folder(tmp_path, {"big": big, "small": small, "odd": odd})
    man = compact_folder(folder)
    path = os.path.join(folder, "model.safetensors")
    assert man["sha256"]["model.safetensors"] == sha256_file(path) and man["storage"]["format"] == "q8_0"
    from safetensors.numpy import load_file

    raw = load_file(path)
    assert set(raw) == {"big" + CODES, "big" + SCALES, "small", "odd"}
    assert np.array_equal(raw["small"], small) and np.array_equal(raw["odd"], odd)
    w = read_weights(path)
    blocks = ggml_encode(big.astype(np.float32), "Q8_0")
    # what the q8_0 export writes from the decoded weights is the fp16 matrix's own encoding, bit for bit
    assert np.array_equal(ggml_encode(w["big"], "Q8_0"), blocks)
    # the decoded weights are within half a scale step of the fp16 ones plus 127 x the scale's own fp16 rounding
    # (codes are rounded against the unrounded scale), and not equal to them (it is lossy)
    codes, scales = q8_0_parts(big)
    step = np.repeat(scales.astype(np.float32), 32, axis=1)
    assert np.all(np.abs(w["big"] - big.astype(np.float32)) <= (0.5 + 127 * 2.0**-11) * step + 1e-7)
    assert not np.array_equal(w["big"], big.astype(np.float32))
    assert w["small"].dtype == np.float32 and np.array_equal(w["small"], small.astype(np.float32))
    with pytest.raises(SystemExit, match="already compact"):
        compact_folder(folder)


def test_codes_without_scales_are_refused(tmp_path):
    from safetensors.numpy import save_file

    path = str(tmp_path / "w.safetensors")
    save_file({"m" + CODES: np.zeros((4, 32), np.int8)}, path)
    with pytest.raises(ValueError, match="has no m.q8_0_scales"):
        read_weights(path)


def test_the_committed_medusa_head_is_compact_and_its_manifest_matches():
    path = os.path.join(MEDUSA, "model.safetensors")
    with open(os.path.join(MEDUSA, "MANIFEST.json")) as f:
        man = json.load(f)
    assert man["storage"]["format"] == "q8_0" and man["sha256"]["model.safetensors"] == sha256_file(path)
    assert os.path.getsize(path) < 7_000_000
    w = read_weights(path)
    assert w["lm_head.weight"].shape == (8192, 576) and w["heads.0.weight"].shape == (576, 576)
    from safetensors.numpy import load_file

    raw = load_file(path)
    stored = np.concatenate([raw["lm_head.weight" + SCALES][..., None].view(np.uint8).reshape(8192, 18, 2),
                             raw["lm_head.weight" + CODES].view(np.uint8).reshape(8192, 18, 32)], -1)
    assert np.array_equal(ggml_encode(w["lm_head.weight"], "Q8_0"), stored.reshape(8192, -1))

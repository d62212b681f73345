"""Hugging Face folder round trip: write a tiny model as safetensors (+ config.json, tokenizer.json), export,
compare the graph with the numpy reference on the weights as read back."""
from __future__ import annotations

import os

import numpy as np
import pytest

from export.checkpoint_safetensors import load_safetensors
from export.ort_runner import OrtDecoder
from export.pipeline import export_checkpoint
from export.reference_numpy import ReferenceDecoder
from export.tiny import tiny_checkpoint, write_hf_folder

PROMPT = [10, 20, 30, 40, 300]


@pytest.mark.parametrize("dtype,qkv_bias,tie,precision", [
    ("float32", False, False, "fp32"),
    ("bfloat16", True, True, "fp32"),  # Qwen2-style bias + tied head, bf16 storage
    ("float32", False, True, "int4"),
])
def test_safetensors_round_trip(tmp_path, dtype, qkv_bias, tie, precision):
    ck = tiny_checkpoint(seed=3, qkv_bias=qkv_bias, tie=tie)
    hf = tmp_path / "hf"
    write_hf_folder(ck, str(hf), dtype=dtype)
    back = load_safetensors(str(hf))
    assert back.config == ck.config
    if dtype == "float32":
        np.testing.assert_array_equal(back.layers[1].down, ck.layers[1].down)
    else:  # bf16 keeps the top 16 bits
        assert np.abs(back.embed - ck.embed).max() <= np.abs(ck.embed).max() * 2 ** -7
    assert back.eos_id == 2 and back.pad_id == 0 and back.chat_template == ck.chat_template
    out = tmp_path / "onnx"
    manifest, res = export_checkpoint(back, str(out), precision=precision, accuracy_level=0)
    assert manifest["source"]["format"] == "safetensors" and "model.safetensors" in manifest["source"]["files"]
    assert manifest["dims"]["tie_word_embeddings"] is tie
    with open(out / "tokenizer.json") as f:
        assert f.read() == ck.tokenizer_json
    dec, ref = OrtDecoder(str(out), capacity=16), ReferenceDecoder(res.effective, capacity=16)
    np.testing.assert_allclose(dec.forward(PROMPT, np.arange(5), 0), ref.forward(PROMPT, np.arange(5), 0),
                               atol=1e-4, rtol=0)
    np.testing.assert_allclose(dec.forward([7], [5], 5), ref.forward([7], [5], 5), atol=1e-4, rtol=0)
    if precision == "fp32":  # fp32 export: the graph's effective weights are the checkpoint's as read
        np.testing.assert_array_equal(res.effective.layers[0].q, back.layers[0].q)
        np.testing.assert_array_equal(res.effective.lm_head, back.lm_head if not tie else back.embed)
    assert os.path.exists(out / "manifest.json")

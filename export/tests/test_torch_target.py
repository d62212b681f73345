"""export/torch_target.py, the torch form of the target that fills the draft-head cache (runs where torch is: the
training venv, `make test-train-heads`; skipped in .venv).

- float32: logits and hidden states equal the fp32 ONNX export's (the decoder contract's `hidden_states`, before
  the final norm) on a Qwen2-style tiny model (q/k/v biases, grouped-query attention); negative control: the same
  comparison against another seed's export is far off;
- bfloat16 (what the cache uses): the argmax agrees with the export at most positions, and `agreement()` reports it.
"""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")  # only the training venv has torch
pytest.importorskip("onnxruntime")

from export.pipeline import export_checkpoint  # noqa: E402
from export.tiny import tiny_checkpoint  # noqa: E402
from export.torch_target import TorchTarget, agreement  # noqa: E402

IDS = [5, 40, 71, 300, 17, 99, 256, 3, 120, 77, 8, 200, 31, 64, 2, 150] * 3


@pytest.fixture(scope="module")
def qwen_like(tmp_path_factory):
    ck = tiny_checkpoint(seed=3, qkv_bias=True)
    out = str(tmp_path_factory.mktemp("tiny-qwen-hs"))
    export_checkpoint(ck, out, precision="fp32", hidden_states=True)
    other = str(tmp_path_factory.mktemp("tiny-qwen-hs-other"))
    export_checkpoint(tiny_checkpoint(seed=4, qkv_bias=True), other, precision="fp32", hidden_states=True)
    return ck, out, other


def _ort(model_dir, ids):
    from export.ort_runner import OrtDecoder

    return OrtDecoder(model_dir, capacity=len(ids) + 8, threads=1).forward(ids, np.arange(len(ids)), 0,
                                                                            return_hidden=True)


def test_float32_matches_the_export(qwen_like):
    ck, out, other = qwen_like
    logits, hidden = TorchTarget(ck, dtype="float32").forward(IDS)
    ref_logits, ref_hidden = _ort(out, IDS)
    assert logits.shape == ref_logits.shape and hidden.shape == ref_hidden.shape
    err = np.abs(hidden - ref_hidden).max() / np.abs(ref_hidden).max()
    assert err < 1e-4, err
    assert np.abs(logits - ref_logits).max() / np.abs(ref_logits).max() < 1e-4
    assert (logits.argmax(-1) == ref_logits.argmax(-1)).all()
    # negative control: another model's states are nowhere near
    _, other_hidden = _ort(other, IDS)
    assert np.abs(hidden - other_hidden).max() / np.abs(other_hidden).max() > 100 * err


def test_bfloat16_agrees_and_reports_it(qwen_like):
    ck, out, _ = qwen_like
    r = agreement(TorchTarget(ck, dtype="bfloat16"), out, IDS)
    assert r["positions"] == len(IDS)
    assert r["argmax_agreement"] >= 0.9, r
    assert 0 < r["hidden_rel_error"] < 0.05, r

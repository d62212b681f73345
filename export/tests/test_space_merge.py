"""The committed SPACE artifact (export/trained/smollm2-space) merged into a SmolLM2 export is the trained model.

probe.safetensors holds the trained torch model's logits (float16 adapter, exactly the committed one) on a fixed
SPACE segment: an owner token, the token after it, and the owner's k masks. The fp32 export of the merged
checkpoint must reproduce them (float32 rounding only; measured max |diff| is in the assertion message); the int8
export within its quantization error on the argmax. Negative control: the base export (no merge) gives other
logits for the same real tokens. Errors: an artifact for another GGUF or with a missing tensor is refused.
"""
from __future__ import annotations

import copy
import json
import os

import numpy as np
import pytest

from export.ort_runner import OrtDecoder

pytestmark = pytest.mark.smollm2

# SPECRT_SPACE_ARTIFACT: check another artifact folder (e.g. a run in progress) against the same contract
ART = os.environ.get("SPECRT_SPACE_ARTIFACT") or os.path.join(os.path.dirname(__file__), "..", "trained",
                                                             "smollm2-space")


@pytest.fixture(scope="module")
def artifact():
    if not os.path.exists(os.path.join(ART, "MANIFEST.json")):
        pytest.fail(f"{ART}: the SPACE artifact is committed with the recipe; it is missing")
    from safetensors.numpy import load_file

    with open(os.path.join(ART, "MANIFEST.json")) as f:
        return json.load(f), load_file(os.path.join(ART, "probe.safetensors"))


@pytest.fixture(scope="module")
def merged_export(tmp_path_factory, smollm2_ck):
    from export.pipeline import export_checkpoint
    from export.space_merge import merge_folder

    ck, row, k = merge_folder(copy.deepcopy(smollm2_ck), ART)
    out = {}
    for precision in ("fp32", "int8"):
        d = str(tmp_path_factory.mktemp(f"smollm2-space-{precision}"))
        export_checkpoint(ck, d, precision=precision, accuracy_level=0 if precision == "fp32" else 4, check=False,
                          mask_row=row, space_k=k)
        out[precision] = d
    return out


def ort_probe(model_dir: str, probe: dict, with_masks: bool = True) -> np.ndarray:
    """The probe's rows: prefix cached first, then the segment (the engine's shape; GroupQueryAttention ignores
    position_ids when nothing is cached). without masks: only the owner and the token after it."""
    o = int(probe["rows"][0])
    ids, pos = probe["ids"], probe["positions"]
    bias = np.where(probe["visible"].astype(bool), 0.0, -1e9).astype(np.float32)
    end = len(ids) if with_masks else o + 2
    dec = OrtDecoder(model_dir, capacity=len(ids) + 8, threads=1)
    dec.forward(ids[:o], pos[:o], 0)
    return dec.forward(ids[o:end], pos[o:end], o, bias=bias[o:end, :end])


def test_manifest_names_mask_and_k(merged_export, artifact):
    man, _ = artifact
    with open(os.path.join(merged_export["int8"], "manifest.json")) as f:
        m = json.load(f)
    assert m["space"] == {"mask_token_id": 49152, "k": man["k"]}
    assert m["dims"]["vocab_size"] == 49152


def test_fp32_merge_reproduces_the_trained_model(merged_export, artifact, smollm2_export):
    _, probe = artifact
    want = probe["logits"].astype(np.float32)
    got = ort_probe(merged_export["fp32"], probe)
    diff = float(np.abs(got - want).max())
    assert diff < 2e-3, f"max |logit diff| {diff}"
    assert (got.argmax(-1) == want.argmax(-1)).all()
    # negative control: the unmerged base model's logits for the same real tokens differ clearly
    base = ort_probe(smollm2_export("fp32", 4)[0], probe, with_masks=False)
    assert float(np.abs(base - want[:2]).max()) > 20 * max(diff, 1e-4)


def test_int8_merge_keeps_the_argmax(merged_export, artifact):
    _, probe = artifact
    want = probe["logits"].astype(np.float32)
    got = ort_probe(merged_export["int8"], probe)
    assert float(np.abs(got - want).max()) < 3.0  # int8 weights + int8 activations: measured 1.22
    assert (got.argmax(-1) == want.argmax(-1)).mean() >= 0.8


def test_artifact_for_another_base_or_with_a_missing_tensor_is_refused(smollm2_ck):
    from export.space_merge import SpaceArtifactError, load_artifact, merge

    tensors, man = load_artifact(ART)
    bad = dict(man, base={"gguf_sha256": "0" * 64})
    with pytest.raises(SpaceArtifactError, match="gguf_sha256"):
        merge(copy.deepcopy(smollm2_ck), tensors, bad)
    t = dict(tensors)
    del t["layers.3.down.lora_b"]
    with pytest.raises(SpaceArtifactError, match="layers.3.down.lora_b"):
        merge(copy.deepcopy(smollm2_ck), t, man)

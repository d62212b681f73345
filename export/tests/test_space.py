"""SPACE exports (issue 13): the mask token is one extra input-only embedding row at id vocab_size.

Checks the contract the engine relies on: the manifest's `space` entry, logits width unchanged, the mask id
accepted as input (and matching the numpy reference), real tokens computed exactly as without the row, and the
negative controls (a plain export refuses the mask id; the id past the mask is refused; bad k is refused).
"""
from __future__ import annotations

import numpy as np
import pytest

from export.manifest import space_entry
from export.ort_runner import OrtDecoder
from export.reference_numpy import ReferenceDecoder
from export.tiny import tiny_checkpoint, tiny_mask_row

PROMPT = [40, 71, 300, 5, 17, 99, 256, 3, 120]


@pytest.fixture(scope="module")
def space_export(tmp_path_factory, tiny_ck):
    """The default tiny model with the mask row, k = 4: (dir, manifest, BuildResult)."""
    from export.pipeline import export_checkpoint

    out = str(tmp_path_factory.mktemp("tiny-space"))
    manifest, res = export_checkpoint(tiny_ck, out, precision="fp32", accuracy_level=0, mask_row=tiny_mask_row(64),
                                      space_k=4)
    return out, manifest, res


def test_manifest_names_the_mask_and_k(space_export):
    _, manifest, _ = space_export
    assert manifest["space"] == {"mask_token_id": manifest["dims"]["vocab_size"], "k": 4}


def test_plain_export_has_no_space_entry(tiny_export):
    _, manifest, _ = tiny_export("fp32", 0)
    assert "space" not in manifest


def test_mask_input_matches_reference_and_logits_keep_vocab(space_export):
    out, manifest, res = space_export
    V = manifest["dims"]["vocab_size"]
    dec, ref = OrtDecoder(out, capacity=64), ReferenceDecoder(res.effective, capacity=64)
    ids = PROMPT + [V, V, V]
    a = dec.forward(ids, np.arange(len(ids)), 0)
    b = ref.forward(ids, np.arange(len(ids)), 0)
    assert a.shape == (len(ids), V)
    np.testing.assert_allclose(a, b, atol=1e-4, rtol=0)


def test_real_tokens_equal_the_plain_export_bitwise(space_export, tiny_export):
    plain = OrtDecoder(tiny_export("fp32", 0)[0], capacity=64)
    space = OrtDecoder(space_export[0], capacity=64)
    np.testing.assert_array_equal(plain.forward(PROMPT, np.arange(len(PROMPT)), 0),
                                  space.forward(PROMPT, np.arange(len(PROMPT)), 0))


def test_ids_past_the_table_are_refused(space_export, tiny_export):
    V = space_export[1]["dims"]["vocab_size"]
    with pytest.raises(Exception):  # negative control: a plain export has no row V
        OrtDecoder(tiny_export("fp32", 0)[0], capacity=16).forward([V], [0], 0)
    with pytest.raises(Exception):
        OrtDecoder(space_export[0], capacity=16).forward([V + 1], [0], 0)


def test_tied_float_head_keeps_vocab_rows(tmp_path):
    from export.pipeline import export_checkpoint

    ck = tiny_checkpoint(seed=0, tie=True)
    manifest, res = export_checkpoint(ck, str(tmp_path), precision="fp32", accuracy_level=0,
                                      mask_row=tiny_mask_row(64), space_k=2)
    V = manifest["dims"]["vocab_size"]
    logits = OrtDecoder(str(tmp_path), capacity=16).forward([5, V], [0, 1], 0)
    assert logits.shape == (2, V)
    np.testing.assert_array_equal(res.effective.lm_head, ck.embed)


@pytest.mark.parametrize("k", [0, 17])
def test_bad_k_is_refused(k):
    with pytest.raises(ValueError, match="1..16"):
        space_entry(384, k)


def test_mask_row_and_k_come_together(tmp_path):
    from export.pipeline import export_checkpoint

    with pytest.raises(ValueError, match="both"):
        export_checkpoint(tiny_checkpoint(seed=0), str(tmp_path), space_k=4)

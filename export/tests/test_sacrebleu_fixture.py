"""tests/fixtures/sacrebleu_parity.json (the Rust BLEU/chrF parity fixture) must agree with sacrebleu itself."""
from __future__ import annotations

import json
import math

import pytest

sacrebleu = pytest.importorskip("sacrebleu")

from export import sacrebleu_fixture  # noqa: E402

TOL = 1e-9


def _load() -> list[dict]:
    with open(sacrebleu_fixture.FIXTURE, encoding="utf-8") as f:
        return json.load(f)


CASES = _load()


def test_sacrebleu_version_is_pinned():
    assert sacrebleu.__version__ == sacrebleu_fixture.SACREBLEU_VERSION


def test_case_names_unique_and_fixture_small():
    names = [c["name"] for c in CASES]
    assert len(names) == len(set(names))
    assert len(names) >= 15
    with open(sacrebleu_fixture.FIXTURE, "rb") as f:
        assert len(f.read()) < 200_000


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_fixture_scores_match_sacrebleu(case):
    hyps, refs = case["hypotheses"], case["references"]
    assert len(hyps) == len(refs) > 0
    bleu = sacrebleu.corpus_bleu(hyps, [refs])
    chrf = sacrebleu.corpus_chrf(hyps, [refs])
    assert math.isclose(case["bleu"], bleu.score, rel_tol=0, abs_tol=TOL), case["name"]
    assert math.isclose(case["chrf"], chrf.score, rel_tol=0, abs_tol=TOL), case["name"]
    for got, want in zip(case["bleu_precisions"], bleu.precisions, strict=True):
        assert math.isclose(got, want, rel_tol=0, abs_tol=TOL), case["name"]
    assert math.isclose(case["bleu_brevity_penalty"], bleu.bp, rel_tol=0, abs_tol=TOL), case["name"]
    assert (case["bleu_hyp_len"], case["bleu_ref_len"]) == (bleu.sys_len, bleu.ref_len), case["name"]


def test_synthetic_cases_match_the_generator():
    """The script's synthetic inputs are what the fixture holds (the translation-pairs case needs .cache data)."""
    stored = {c["name"]: (c["hypotheses"], c["references"]) for c in CASES}
    generated = sacrebleu_fixture.synthetic_cases()
    assert set(stored) - {sacrebleu_fixture.REAL_CASE} == {name for name, _, _ in generated}
    for name, hyps, refs in generated:
        assert stored[name] == (hyps, refs), f"{name}: rerun python -m export.sacrebleu_fixture"

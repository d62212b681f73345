"""SPACE training samples (export/space_samples.py): packed mask groups against hand-written expectations.

numpy only (runs in .venv). The torch checks of the recipe (packing = separate decode-time segments, determinism
from a seed) are in test_space_train.py and run where torch is importable (.cache/venv-train; `make test-train-space`).
"""
from __future__ import annotations

import numpy as np
import pytest

from export.space_samples import IGNORE, collate, pack, pick_owners

SEQ = [10, 11, 12, 13, 14, 15]  # prompt = first 2 tokens, answer = 12..15
M = 99
X = IGNORE


def rows(vis: np.ndarray) -> list:
    return [list(np.flatnonzero(r)) for r in vis]


def test_pack_two_groups_k2_by_hand():
    s = pack(SEQ, 2, [1, 3], 2, M)
    assert list(s["ids"]) == [10, 11, 12, 13, 14, 15, M, M, M, M]
    # real tokens at 0..5; owner 1's masks stand in for positions 2, 3; owner 3's for 4, 5
    assert list(s["positions"]) == [0, 1, 2, 3, 4, 5, 2, 3, 4, 5]
    # real rows predict the next answer token; owner o's mask j predicts o + 1 + j (past the end: ignored)
    assert list(s["labels"]) == [X, 12, 13, 14, 15, X, 13, 14, 15, X]
    assert list(s["kind"]) == [0, 0, 0, 0, 0, 0, 1, 2, 1, 2]
    assert rows(s["visible"]) == [
        [0], [0, 1], [0, 1, 2], [0, 1, 2, 3], [0, 1, 2, 3, 4], [0, 1, 2, 3, 4, 5],  # causal, never a mask
        [0, 1, 6], [0, 1, 6, 7],  # owner 1's group: context up to the owner, its own earlier masks
        [0, 1, 2, 3, 8], [0, 1, 2, 3, 8, 9],  # owner 3's group: the other group stays hidden
    ]


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 6])
def test_group_rule_for_every_k(k):
    seq = list(range(100, 120))
    owners = [3, 7, 18]
    s = pack(seq, 4, owners, k, M)
    L = len(seq)
    assert len(s["ids"]) == L + 3 * k
    for g, o in enumerate(owners):
        for j in range(1, k + 1):
            r = L + g * k + j - 1
            assert s["positions"][r] == o + j  # visible tokens - 1
            assert s["labels"][r] == (seq[o + 1 + j] if o + 1 + j < L else IGNORE)
            assert list(np.flatnonzero(s["visible"][r])) == list(range(o + 1)) + list(range(L + g * k, r + 1))
    assert not s["visible"][:L, L:].any()  # no real token sees a mask


def test_owner_outside_answer_and_bad_k_are_errors():
    with pytest.raises(ValueError, match="owner 0 outside"):
        pack(SEQ, 2, [0], 2, M)  # before the last prompt token
    with pytest.raises(ValueError, match="owner 5 outside"):
        pack(SEQ, 2, [5], 2, M)  # the last token has nothing after it to predict
    with pytest.raises(ValueError, match="k must be >= 1"):
        pack(SEQ, 2, [1], 0, M)


def test_pick_owners_range_distinct_seeded():
    a = pick_owners(5, 40, 8, np.random.default_rng(3))
    b = pick_owners(5, 40, 8, np.random.default_rng(3))
    c = pick_owners(5, 40, 8, np.random.default_rng(4))
    assert list(a) == list(b) and list(a) != list(c)
    assert len(set(a)) == 8 and a.min() >= 4 and a.max() <= 38
    assert list(pick_owners(5, 7, 8, np.random.default_rng(0))) == [4, 5]  # fewer candidates than groups
    assert len(pick_owners(5, 5, 8, np.random.default_rng(0))) == 0


def test_collate_pads_see_only_themselves():
    a, b = pack(SEQ, 2, [1], 2, M), pack(SEQ[:4], 2, [], 2, M)
    c = collate([a, b])
    assert c["ids"].shape == (2, 8)
    assert list(c["labels"][1]) == [X, 12, 13, X, X, X, X, X]
    assert rows(c["visible"][1])[4:] == [[4], [5], [6], [7]]
    assert (c["visible"][0] == a["visible"]).all()

"""Parsing functions of export/datasets.py on tiny in-memory fixtures (no network, no downloads)."""
from __future__ import annotations

import gzip
import hashlib
import json

import pytest

from export import datasets as ds

KEYS = {"id", "category", "prompt", "chat"}


def _jsonl(rows) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def _check_uniform(recs, category, chat):
    for r in recs:
        assert set(r) == KEYS
        assert r["category"] == category and r["chat"] is chat
        assert isinstance(r["id"], str) and isinstance(r["prompt"], str) and r["prompt"]


def test_humaneval():
    stub = 'def add(a, b):\n    """Add two numbers."""\n'
    rows = [{"task_id": "HumanEval/0", "prompt": stub, "entry_point": "add", "canonical_solution": "    return a + b\n",
             "test": "assert add(1, 2) == 3"},
            {"task_id": "HumanEval/1", "prompt": "def f():\n", "canonical_solution": "", "test": ""}]
    recs = ds.parse_humaneval(gzip.compress(_jsonl(rows).encode()))
    _check_uniform(recs, "humaneval", chat=False)
    assert [r["id"] for r in recs] == ["HumanEval/0", "HumanEval/1"]
    assert recs[0]["prompt"] == stub  # the stub verbatim, no solution


def test_humaneval_missing_prompt():
    with pytest.raises(ValueError):
        ds.parse_humaneval(gzip.compress(_jsonl([{"task_id": "HumanEval/9"}]).encode()))


def test_mt_bench_first_turn_and_category_id():
    text = _jsonl([{"question_id": 81, "category": "writing", "turns": ["Write a blog post.", "Rewrite it."]},
                   {"question_id": 101, "category": "reasoning", "turns": ["Who is first?"]}]) + "\n"
    recs = ds.parse_mt_bench(text)
    _check_uniform(recs, "mt_bench", chat=True)
    assert [(r["id"], r["prompt"]) for r in recs] == [("writing/81", "Write a blog post."),
                                                      ("reasoning/101", "Who is first?")]


def test_gsm8k():
    text = _jsonl([{"id": "gsm8k-test-0013", "source": "gsm8k", "prompt": "How many apples?", "expected": "18"},
                   {"id": "gsm8k-test-0014", "question": "How many pears?"}])
    recs = ds.parse_gsm8k(text)
    _check_uniform(recs, "gsm8k", chat=True)
    assert [r["prompt"] for r in recs] == ["How many apples?", "How many pears?"]
    assert "18" not in recs[0]["prompt"]  # the answer never leaks into the prompt


def test_detokenize():
    assert ds.detokenize("( Itagaki et al . , 2007 ) .") == "(Itagaki et al., 2007)."
    assert ds.detokenize("it does n't work , really !") == "it doesn't work, really!"


def test_truncate_sentences():
    s = ["one two three.", "four five.", "six seven eight nine."]
    assert ds.truncate_sentences(s, 5) == "one two three. four five."  # whole sentences only
    assert ds.truncate_sentences(s, 4) == "one two three."
    assert ds.truncate_sentences(["a b c d e f"], 3) == "a b c"  # an over-long first sentence is cut
    assert ds.truncate_sentences([], 3) == ""


def test_aclsum():
    paper = {"id": "P06-1112", "title": "T",
             "sentences": {"abstract": ["Abstract only ."], "introduction": ["We study X .", "It works ( 90 % ) ."],
                           "conclusion": []}}
    no_intro = {"id": "E09-1056", "sentences": {"abstract": ["Short abstract ."], "introduction": []}}
    long_intro = {"id": "D11-1132", "sentences": {"introduction": ["w " * 200 + ".", "x " * 200 + "."]}}
    recs = ds.parse_aclsum({"train": _jsonl([paper]), "test": _jsonl([no_intro, long_intro])}, max_words=300)
    _check_uniform(recs, "summarization", chat=True)
    assert [r["id"] for r in recs] == ["train/P06-1112", "test/E09-1056", "test/D11-1132"]
    assert recs[0]["prompt"] == ds.SUMMARY_PREFIX + "We study X. It works (90%)."
    assert recs[1]["prompt"] == ds.SUMMARY_PREFIX + "Short abstract."
    body = recs[2]["prompt"][len(ds.SUMMARY_PREFIX):]
    assert len(body.split()) <= 300 and "x" not in body


def test_aclsum_empty_paper_fails():
    with pytest.raises(ValueError):
        ds.parse_aclsum({"val": _jsonl([{"id": "X", "sentences": {"abstract": [], "introduction": []}}])})


def test_js_md5():
    assert ds.js_md5("plain ascii") == hashlib.md5(b"plain ascii").hexdigest()
    # JavaScript md5 keeps the low byte of each UTF-16 code unit: "€" (U+20AC) -> 0xAC
    assert ds.js_md5("5 €") == hashlib.md5(b"5 \xac").hexdigest()


def _pair(en, de="Deutsch.", good=True):
    return en, [de, ds.js_md5(en) if good else "0" * 32]


def test_translation_selection_rule():
    pairs = [_pair("Too short."),  # 2 words: skipped
             _pair("This sentence is long enough to keep."),
             _pair("This one has a bad hash and is skipped.", good=False),
             _pair("Prices rose by 5 € in the market today."),
             _pair("A third usable sentence for the set."),
             _pair("Never reached because the count is met.")]
    en, de = [p[0] for p in pairs], [p[1] for p in pairs]
    recs = ds.parse_translation(en, de, source="package/builds/doc-0.json", count=3, min_words=5, max_words=60)
    _check_uniform(recs, "translation", chat=True)
    assert [r["id"] for r in recs] == ["doc-0.json:1", "doc-0.json:3", "doc-0.json:4"]
    assert recs[0]["prompt"] == ds.TRANSLATION_PREFIX + "This sentence is long enough to keep."


def test_translation_misaligned_or_short():
    en = [f"Sentence number {i} is here now." for i in range(10)]
    de = [["x", ds.js_md5(s)] for s in en]
    with pytest.raises(ValueError, match="not aligned"):
        ds.parse_translation(en, de[:-1], count=3)
    with pytest.raises(ValueError, match="not aligned"):  # shifted by one: every md5 misses
        ds.parse_translation(en[1:] + en[:1], de, count=3)
    with pytest.raises(ValueError, match="only 10 usable"):
        ds.parse_translation(en, de, count=20)


def test_closest_version():
    assert ds.closest_version("0.3.3", ["0.3.1", "0.3.3", "0.4.0"]) == "0.3.3"
    assert ds.closest_version("0.3.3", ["0.3.1", "0.3.2", "0.4.0"]) == "0.3.2"
    assert ds.closest_version("26.3", ["26.10", "27.0"]) == "26.10"
    assert ds.closest_version("1.0", []) is None

"""The lookup corpus writer (export/lookup_corpus.py): the file layout the engine reads (engine/strategy/speculative/
corpus.rs), the tokenizer binding, the split filter and refusals; the committed SmolLM2 corpus is bound to the
tokenizer of the export the shipped configs name."""
from __future__ import annotations

import argparse
import json
import os
import struct

import pytest

from export.lookup_corpus import DOCUMENT_END, main
from export.manifest import sha256_file

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _args(data, target, out, split="train", lead=2):
    return argparse.Namespace(data=data, target=target, out=out, split=split, lead=lead)


def _write_jsonl(path, records):
    with open(path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")


def test_writes_documents_the_engine_reads(tmp_path, tiny_export):
    target, manifest, _ = tiny_export("fp32")
    data = tmp_path / "data.jsonl"
    _write_jsonl(data, [
        {"split": "train", "prompt_ids": [1, 2, 3, 4], "answer_ids": [10, 11, 12]},
        {"split": "eval", "prompt_ids": [1], "answer_ids": [99, 98]},  # held out: not in the corpus
        {"tokens": [20, 21]},  # no split: kept
        {"text": "hello"},
    ])
    out = tmp_path / "corpus"
    assert main(_args([str(data)], target, str(out))) == 0
    m = json.loads((out / "corpus.json").read_text())
    assert m["format"] == "specrt-lookup-corpus" and m["format_version"] == 1
    assert m["tokenizer_sha256"] == manifest["files"]["tokenizer.json"]
    assert m["tokens_sha256"] == sha256_file(str(out / "tokens.bin"))
    raw = (out / "tokens.bin").read_bytes()
    ids = list(struct.unpack(f"<{len(raw) // 4}I", raw))
    docs, cur = [], []
    for t in ids:
        if t == DOCUMENT_END:
            docs.append(cur)
            cur = []
        else:
            cur.append(t)
    docs.append(cur)
    assert docs[0] == [3, 4, 10, 11, 12], "the last --lead prompt ids, then the answer"
    assert docs[1] == [20, 21]
    assert len(docs) == 3 and len(docs[2]) > 0, "the text record tokenized"
    assert m["documents"] == 3 and m["tokens"] == sum(len(d) for d in docs)
    assert m["sources"]["files"]["data.jsonl"]["skipped_other_splits"] == 1
    listed = json.loads((out / "MANIFEST.json").read_text())["sha256"]
    assert listed == {n: sha256_file(str(out / n)) for n in ("corpus.json", "tokens.bin")}
    # --split all keeps the held-out record too.
    assert main(_args([str(data)], target, str(tmp_path / "all"), split="all")) == 0
    assert json.loads((tmp_path / "all" / "corpus.json").read_text())["documents"] == 4


def test_self_distillation_records_a_base_corpus_and_the_bench_exclusion(tmp_path, tiny_export, monkeypatch):
    # export/head_data.py's self-distillation records (`answer` text, `prompt` in front when present, `tokens` a
    # count) are read; --base keeps an existing corpus's documents first; --exclude-bench drops a text document
    # sharing an 8-word shingle with a bench prompt (the prompts are stubbed here: no registry fetch in a unit test).
    import export.head_data as head_data

    target, _, _ = tiny_export("fp32")
    base_data = tmp_path / "base.jsonl"
    _write_jsonl(base_data, [{"tokens": [5, 6, 7]}])
    assert main(_args([str(base_data)], target, str(tmp_path / "base"))) == 0
    bench = "write a python function that returns the sum of two integers a and b"
    monkeypatch.setattr(head_data, "bench_prompts", lambda tmp: ([bench], [{"registry": "stub"}]))
    data = tmp_path / "self_distill.jsonl"
    _write_jsonl(data, [
        {"id": "a/1", "answer": "hi there", "tokens": 2, "by": "engine"},
        {"id": "c/1", "prompt": "def f(x):", "answer": " return x", "tokens": 2, "by": "engine"},
        {"id": "c/2", "prompt": "# " + bench.upper() + "\n", "answer": "pass", "tokens": 1, "by": "engine"},
    ])
    args = argparse.Namespace(**vars(_args([str(data)], target, str(tmp_path / "plus"))), base=str(tmp_path / "base"),
                              exclude_bench=True)
    assert main(args) == 0
    from export.lookup_corpus import read

    docs = read(str(tmp_path / "plus"))
    assert docs[0] == [5, 6, 7], "the base corpus first"
    assert len(docs) == 3, "the contaminated record is dropped"
    m = json.loads((tmp_path / "plus" / "corpus.json").read_text())
    assert m["sources"]["files"]["self_distill.jsonl"]["dropped_bench_overlap"] == 1
    assert m["sources"]["base"]["documents"] == 1 and m["sources"]["bench_exclusion"]["bench_prompts"] == 1
    assert "--base" in json.loads((tmp_path / "plus" / "MANIFEST.json").read_text())["how"]
    # The control: without --exclude-bench the record stays; --base must not be --out.
    assert main(argparse.Namespace(**vars(_args([str(data)], target, str(tmp_path / "all"))))) == 0
    assert len(read(str(tmp_path / "all"))) == 3
    with pytest.raises(SystemExit, match="another folder"):
        main(argparse.Namespace(**vars(_args([str(data)], target, str(tmp_path / "base"))), base=str(tmp_path / "base")))


def test_refuses_ids_outside_the_vocabulary_and_unknown_records(tmp_path, tiny_export):
    target, manifest, _ = tiny_export("fp32")
    data = tmp_path / "data.jsonl"
    _write_jsonl(data, [{"tokens": [1, manifest["dims"]["vocab_size"]]}])
    with pytest.raises(SystemExit, match="outside"):
        main(_args([str(data)], target, str(tmp_path / "c")))
    _write_jsonl(data, [{"prompt": "no ids"}])
    with pytest.raises(SystemExit, match=r"data.jsonl:1: a record needs"):
        main(_args([str(data)], target, str(tmp_path / "c")))


def test_the_committed_corpus_matches_the_default_target():
    corpus = os.path.join(ROOT, "export", "trained", "smollm2-lookup-corpus", "corpus.json")
    target = os.path.join(ROOT, "models", "smollm2-135m-instruct-int4-ggml", "manifest.json")
    if not os.path.isfile(target):
        pytest.skip("the SmolLM2 engine-kernel export is not built (make fixtures)")
    with open(corpus, encoding="utf-8") as f:
        c = json.load(f)
    with open(target, encoding="utf-8") as f:
        t = json.load(f)
    assert c["tokenizer_sha256"] == t["files"]["tokenizer.json"]
    assert c["vocab_size"] == t["dims"]["vocab_size"]

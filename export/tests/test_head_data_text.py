"""`head_data text` (export/head_data.py build_text) offline: the registries (bench prompts, stdlib code, AlpacaEval,
prose) replaced by small in-memory documents, so the document filter itself is what is tested: the bench exclusion,
the self-distilled answers replacing reference answers, and `--self-distilled-only` (fine-tuning data)."""
import json
import os

from export import head_data

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TINY = os.path.join(ROOT, "models", "tiny-fp32")


def _stub_registries(monkeypatch):
    bench = "def add(a, b):\n    \"\"\"Return the sum of a and b, exactly as the bench prompt says it.\"\"\""
    # the tiny model's template has no system prompt; the chat rendering is not what is tested here
    monkeypatch.setattr(head_data, "default_system", lambda target: head_data.SYSTEM)
    monkeypatch.setattr(head_data, "bench_prompts", lambda tmp: ([bench], [{"registry": "stub"}]))
    monkeypatch.setattr(head_data, "code_docs", lambda n: ([
        {"id": "code/a.py", "source": "code", "text": "import os\nprint(os.getcwd())\n"},
        {"id": "code/bench.py", "source": "code", "text": bench + "\n    return a + b\n"},
    ], {"registry": "stub"}))

    def instructions(tmp, system=head_data.SYSTEM):
        recs = [("alpaca_eval/0", "Name a colour.", "Blue."), ("alpaca_eval/1", "Count to three.", "1, 2, 3.")]
        return [{"id": i, "source": "instructions", "instruction": q, "answer": r, "text": head_data.chatml(q, r, system)}
                for i, q, r in recs], {"registry": "stub"}
    monkeypatch.setattr(head_data, "instruction_docs", instructions)
    monkeypatch.setattr(head_data, "prose_docs", lambda tmp, n: ([
        {"id": "prose/0", "source": "prose", "text": "The river ran quietly past the old mill."}], {"registry": "stub"}))


def _docs(out):
    with open(os.path.join(out, "docs.jsonl")) as f:
        return {d["id"]: d for d in map(json.loads, f)}


def test_self_distilled_only_keeps_just_the_targets_own_outputs(monkeypatch, tmp_path):
    _stub_registries(monkeypatch)
    out = str(tmp_path)
    with open(os.path.join(out, "self_distill.jsonl"), "w") as f:
        f.write(json.dumps({"id": "alpaca_eval/1", "answer": "One, two, three.", "tokens": 6, "by": "engine"}) + "\n")
    with open(os.path.join(out, "self_distill_code.jsonl"), "w") as f:
        f.write(json.dumps({"id": "stdlib/x", "prompt": "def f():\n", "answer": "    return 1\n", "tokens": 5}) + "\n")
    base = ["text", "--out", out, "--target", TINY, "--self-distill"]
    # the control: without the flag every source is kept (the bench-overlapping file dropped), the answered
    # instruction carries the target's answer
    assert head_data.main(base) == 0
    docs = _docs(out)
    assert set(docs) == {"stdlib/x", "code/a.py", "alpaca_eval/0", "alpaca_eval/1", "prose/0"}
    assert docs["alpaca_eval/1"]["self_distilled"] and not docs["alpaca_eval/0"]["self_distilled"]
    # with it: only the target's own answer and completion
    assert head_data.main(base + ["--self-distilled-only"]) == 0
    docs = _docs(out)
    assert set(docs) == {"stdlib/x", "alpaca_eval/1"} and all(d["self_distilled"] for d in docs.values())
    meta = json.load(open(os.path.join(out, "SOURCES.json")))
    assert meta["self_distilled_only"] and meta["self_distilled_answers"] == 1


def test_self_distilled_only_without_self_distill_is_refused(tmp_path):
    import pytest
    with pytest.raises(SystemExit):
        head_data.main(["text", "--out", str(tmp_path), "--target", TINY, "--self-distilled-only"])
    assert not (tmp_path / "docs.jsonl").exists()

"""HumanEval execution of export/space_quality.py: the sandboxed runner and the completion cut (no model)."""
from __future__ import annotations

from export.space_quality import cut_at_stop, run_program

STUB = "def add(a, b):\n    \"\"\"Sum.\"\"\"\n"
TEST = "\n\ndef check(f):\n    assert f(2, 3) == 5\n\ncheck(add)\n"


def test_correct_completion_passes_and_wrong_one_fails():
    assert run_program(STUB + "    return a + b\n" + TEST, timeout=10) == "passed"
    assert run_program(STUB + "    return a - b\n" + TEST, timeout=10) == "failed"  # negative control


def test_endless_program_is_stopped_by_the_time_limit():
    assert run_program(STUB + "    while True:\n        pass\n" + TEST, timeout=2) == "timeout"


def test_program_runs_in_an_empty_folder_without_the_environment():
    prog = "import os, sys\nassert os.listdir('.') == ['prog.py']\nassert 'HOME' not in os.environ\n"
    assert run_program(prog, timeout=10) == "passed"


def test_completion_is_cut_at_the_next_top_level_block():
    text = "    return a + b\n\n\ndef other():\n    pass\n"
    assert cut_at_stop(text) == "    return a + b\n\n"
    assert cut_at_stop("    return 1\n") == "    return 1\n"
    assert cut_at_stop("    x = 1\n# comment\nprint(x)") == "    x = 1"


def test_chat_answer_code_block_and_program():
    from export.space_quality import code_block, program_for

    answer = "Here it is:\n```python\ndef add(a, b):\n    return a + b\n```\nDone."
    assert code_block(answer) == "def add(a, b):\n    return a + b\n"
    assert code_block("no fence at all") == "no fence at all"
    problem = {"prompt": "from typing import List\n\n" + STUB, "test": "def check(f):\n    assert f(2, 3) == 5\n",
               "entry_point": "add"}
    assert run_program(program_for(problem, code_block(answer), "chat"), timeout=10) == "passed"
    wrong = answer.replace("a + b", "a * b")
    assert run_program(program_for(problem, code_block(wrong), "chat"), timeout=10) == "failed"
    # a body-only answer continues the stub
    assert run_program(program_for(problem, "    return a + b\n", "chat"), timeout=10) == "passed"

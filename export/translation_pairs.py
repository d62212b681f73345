"""English->German sentence pairs for the CTC NAT recipe, from npm nlp-corpus@4.4.0 + de-corpus@0.0.1 (MIT).

    python -m export.translation_pairs --out .cache/translation-pairs

Writes train.jsonl, dev.jsonl and test.jsonl ({"id", "en", "de"} per line) and SOURCES.json (archives, sha256,
counts). Every doc-N.json of both packages is read; a pair is kept when the German entry's stored md5 proves the
positional alignment (datasets.js_md5) and both sides are non-empty. Pairs are de-duplicated on the English
sentence, then split by a hash of the English sentence, so the split never depends on file order and a repeated
sentence can never sit in both train and test:

    md5(en) % 50 == 0  -> test  (~2%, ~1,900 pairs; never trained on)
    md5(en) % 50 == 1  -> dev   (~2%, early checks during training)
    otherwise          -> train

The German side is machine translation (like the distilled data NAT models are usually trained on).
Third-party data: never commit what this writes.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import tarfile
import tempfile

from .datasets import fetch, js_md5

SPLIT_MODULUS = 50
TEST_BUCKET = 0
DEV_BUCKET = 1
DOC_RE = re.compile(r"^package/builds/doc-(\d+)\.json$")


def split_of(en: str) -> str:
    """The split a pair belongs to, from its English side only (stable across runs and machines)."""
    bucket = int(hashlib.md5(en.encode("utf-8")).hexdigest(), 16) % SPLIT_MODULUS
    if bucket == TEST_BUCKET:
        return "test"
    if bucket == DEV_BUCKET:
        return "dev"
    return "train"


def align(en_docs: dict, de_docs: dict) -> tuple[list, dict]:
    """{doc name: English list} x {doc name: German list} -> (pairs, counters). See the module doc for the rules."""
    pairs, seen = [], set()
    counts = {"entries": 0, "md5_mismatch": 0, "empty": 0, "duplicate": 0}
    for name in sorted(en_docs, key=lambda n: int(DOC_RE.match(n).group(1))):
        en_doc, de_doc = en_docs[name], de_docs.get(name)
        if de_doc is None or len(de_doc) != len(en_doc):
            raise ValueError(f"{name}: English and German files are not aligned "
                             f"({len(en_doc)} vs {len(de_doc) if de_doc is not None else 'missing'})")
        for i, (en, de) in enumerate(zip(en_doc, de_doc)):
            counts["entries"] += 1
            if not isinstance(en, str) or not isinstance(de, list) or len(de) < 2 or not isinstance(de[0], str):
                raise ValueError(f"{name}[{i}]: unexpected entry layout")
            if js_md5(en) != de[1]:
                counts["md5_mismatch"] += 1
                continue
            en_s, de_s = " ".join(en.split()), " ".join(de[0].split())
            if not en_s or not de_s:
                counts["empty"] += 1
                continue
            if en_s in seen:
                counts["duplicate"] += 1
                continue
            seen.add(en_s)
            pairs.append({"id": f"{name.rsplit('/', 1)[-1]}:{i}", "en": en_s, "de": de_s})
    if counts["entries"] and counts["md5_mismatch"] > 0.5 * counts["entries"]:
        raise ValueError(f"{counts['md5_mismatch']}/{counts['entries']} md5 mismatches: the packages are not aligned")
    return pairs, counts


def _read_docs(path: str) -> dict:
    out = {}
    with tarfile.open(path) as t:
        for m in t.getmembers():
            if DOC_RE.match(m.name):
                out[m.name] = json.loads(t.extractfile(m).read().decode("utf-8"))
    if not out:
        raise RuntimeError(f"{path}: no package/builds/doc-N.json members (layout changed?)")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=".cache/translation-pairs")
    ap.add_argument("--force", action="store_true", help="rebuild even when the output exists")
    a = ap.parse_args(argv)
    done = os.path.join(a.out, "SOURCES.json")
    if os.path.exists(done) and not a.force:
        print(f"[pairs] {a.out} exists (--force to rebuild)", file=sys.stderr)
        return 0
    os.makedirs(a.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        en_src = fetch("npm", "nlp-corpus", "4.4.0", tmp)
        de_src = fetch("npm", "de-corpus", "0.0.1", tmp)
        pairs, counts = align(_read_docs(en_src["path"]), _read_docs(de_src["path"]))
    splits = {"train": [], "dev": [], "test": []}
    for p in pairs:
        splits[split_of(p["en"])].append(p)
    for name, recs in splits.items():
        tmp_path = os.path.join(a.out, f"{name}.jsonl.tmp")
        with open(tmp_path, "w", encoding="utf-8") as f:
            for r in recs:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        os.replace(tmp_path, os.path.join(a.out, f"{name}.jsonl"))
    for s in (en_src, de_src):
        s.pop("path", None)
    meta = {"sources": [en_src, de_src], "counts": counts, "split_rule": "md5(en) % 50: 0 test, 1 dev, else train",
            "pairs": {k: len(v) for k, v in splits.items()}}
    with open(done, "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=2)
    print(f"[pairs] {json.dumps(meta['pairs'])} (entries {counts['entries']}, md5 mismatches "
          f"{counts['md5_mismatch']}, duplicates {counts['duplicate']}) -> {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

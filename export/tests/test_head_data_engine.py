"""The draft-head cache through the engine (`head_data cache --backend engine`, examples/rust/head_cache.rs): the
engine's rows equal ONNX Runtime's on the same float graph, a whole cache run writes what the trainer reads, and
bad input (no binary, a target without hidden states) is a clear error. Needs the example binary, which
`cargo test` builds (target/debug/examples/head_cache); `make test` runs the cargo tests first."""
import json
import os

import numpy as np
import pytest

from export import head_data
from export.head_data import EngineTarget
from export.ort_runner import OrtDecoder
from export.tests.conftest import need

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TINY_HS = os.path.join(ROOT, "models", "tiny-fp32-hs")
TINY = os.path.join(ROOT, "models", "tiny-fp32")


@pytest.fixture(scope="module")
def binary(head_cache_binary):
    return head_cache_binary


def test_engine_rows_equal_onnxruntime_on_the_same_graph(binary):
    rng = np.random.default_rng(0)
    ids = [int(t) for t in rng.integers(0, 300, size=120)]
    eng = EngineTarget(binary, TINY_HS, threads=1)
    try:
        r = eng.forward(ids)
        shifted = eng.forward(ids[1:] + ids[:1])
    finally:
        eng.close()
    logits, hidden = OrtDecoder(TINY_HS, capacity=264, threads=1).forward(ids, np.arange(len(ids)), 0, return_hidden=True)
    assert (eng.hidden, eng.vocab) == (hidden.shape[1], logits.shape[1])
    assert (r.argmax == logits.argmax(-1)).all()
    top = np.sort(logits, -1)[:, ::-1][:, :8]
    assert np.abs(r.topk_logits - top).max() < 1e-4 * max(1.0, np.abs(top).max())
    assert (np.take_along_axis(logits, r.topk_ids, -1) == r.topk_logits).all()
    assert np.abs(r.hidden - hidden).max() < 1e-4 * max(1.0, np.abs(hidden).max())
    # negative control: other tokens give other rows (the comparison above can fail)
    assert np.abs(shifted.hidden - hidden).max() > 1e-2


def test_a_cache_run_through_the_engine_writes_what_the_trainer_reads(binary, tmp_path):
    rng = np.random.default_rng(1)
    docs = [{"id": f"doc/{i}", "source": src, "split": "train", "ids": [int(t) for t in rng.integers(0, 300, size=n)]}
            for i, (src, n) in enumerate([("code", 300), ("instructions", 90), ("prose", 70), ("code", 40)])]
    with open(tmp_path / "docs.jsonl", "w") as f:
        f.writelines(json.dumps(d) + "\n" for d in docs)
    (tmp_path / "SOURCES.json").write_text("{}")
    rc = head_data.main(["cache", "--backend", "engine", "--engine-bin", binary, "--target", TINY_HS, "--out",
                         str(tmp_path), "--threads", "1", "--max-tokens", "2000", "--eval-tokens", "0"])
    assert rc == 0
    idx = json.load(open(tmp_path / "index.json"))
    assert idx["final"] and idx["target"]["backend"] == "engine" and idx["hidden_size"] == 64
    # every document's tokens (all but the last 8 of each, as the cache cuts them) in chunks of <= 256
    assert idx["tokens"] == sum(c["length"] for c in idx["chunks"]) > 0
    assert all(c["length"] <= head_data.CHUNK for c in idx["chunks"])
    tokens, arg = np.load(tmp_path / "tokens.npy"), np.load(tmp_path / "argmax.npy")
    hid = np.load(tmp_path / "hidden.npy")
    assert np.load(tmp_path / "target_head.npy").shape == (384, 64)
    dec = OrtDecoder(TINY_HS, capacity=264, threads=1)
    for c in idx["chunks"][:3]:
        o, n = c["offset"], c["length"]
        lo, ho = dec.forward(list(tokens[o:o + n]), np.arange(n), 0, return_hidden=True)
        assert (arg[o:o + n] == lo.argmax(-1)).all()
        assert np.abs(hid[o:o + n].astype(np.float32) - ho).max() < 2e-3 * max(1.0, np.abs(ho).max())


def test_bad_engine_input_is_a_clear_error(binary, tmp_path):
    with pytest.raises(SystemExit, match="not a file"):
        EngineTarget(str(tmp_path / "no-such-binary"), TINY_HS)
    need(os.path.join(TINY, "manifest.json"), "make fixtures")
    eng = EngineTarget(binary, TINY, threads=1)  # loads: the error comes with the first pass
    with pytest.raises(SystemExit, match="head_cache exited"):
        eng.forward([1, 2, 3])

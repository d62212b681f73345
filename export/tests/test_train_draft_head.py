"""The draft-head recipe end to end on the tiny target (export/train_draft_head.py; runs where torch is, i.e. in the
training venv: `make test-train-heads`): an engine-made cache, a short EAGLE run with `--target-rows`, the saved
folder without the target's rows, and the export that reads them back. Needs the head_cache example binary
(`cargo test` or `cargo build --release --example head_cache`) and `make fixtures` (conftest.head_cache_binary)."""
import json
import os

import numpy as np
import pytest

pytest.importorskip("torch")  # only the training venv has torch

from export import graph_draft_head as gdh  # noqa: E402
from export import head_data  # noqa: E402
from export import train_draft_head  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TINY_HS = os.path.join(ROOT, "models", "tiny-fp32-hs")


def test_eagle_with_target_rows_trains_saves_without_them_and_exports(head_cache_binary, tmp_path):
    rng = np.random.default_rng(3)
    docs = [{"id": f"doc/{i}", "source": src, "split": split, "ids": [int(t) for t in rng.integers(0, 300, size=n)]}
            for i, (src, split, n) in enumerate([("code", "train", 400), ("prose", "train", 200),
                                                  ("code", "eval", 120), ("prose", "eval", 80)])]
    cache = tmp_path / "cache"
    cache.mkdir()
    with open(cache / "docs.jsonl", "w") as f:
        f.writelines(json.dumps(d) + "\n" for d in docs)
    (cache / "SOURCES.json").write_text(json.dumps({"sources": {}, "bench_exclusion": {}, "split": "test"}))
    assert head_data.main(["cache", "--backend", "engine", "--engine-bin", head_cache_binary, "--target", TINY_HS,
                           "--out", str(cache), "--threads", "1", "--max-tokens", "3000", "--eval-tokens", "400"]) == 0
    out = tmp_path / "head"
    rc = train_draft_head.main(["train", "--kind", "eagle", "--target-rows", "--heads", "4", "--ffn", "96",
                                "--cache", str(cache), "--target", TINY_HS, "--draft-vocab", "96", "--steps", "12",
                                "--warmup", "2", "--batch", "4", "--eval-positions", "20", "--out", str(out)])
    assert rc == 0
    man = json.load(open(out / "MANIFEST.json"))
    assert man["architecture"]["target_rows"] == list(gdh.TARGET_ROWS)
    from safetensors.numpy import load_file
    stored = load_file(str(out / "model.safetensors"))
    assert not set(gdh.TARGET_ROWS) & set(stored) and "fc.weight" in stored
    # read back: the rows are the target's (the recipe kept them frozen)
    _, w, _, vocab, _ = gdh.read_trained(str(out), TINY_HS)
    rows = gdh.target_head_rows(TINY_HS)[0].astype(np.float16).astype(np.float32)[vocab]
    assert np.array_equal(w["lm_head.weight"], rows)
    # and the trained part moved (the run did train): fc is no longer its pass-through start
    H = rows.shape[1]
    assert np.abs(w["fc.weight"][:, H:] - np.eye(H)).max() > 1e-3
    x = tmp_path / "export"

    import argparse
    gdh.main_export(argparse.Namespace(path=str(out), target=TINY_HS, out=str(x), random=False, no_check=False,
                                       precision="fp32"))
    assert json.load(open(x / "manifest.json"))["head"]["kind"] == "eagle"

    # --init: fine-tuning starts from the saved head (its vocabulary and architecture kept, recorded in MANIFEST)
    tuned = tmp_path / "tuned"
    assert train_draft_head.main(["train", "--kind", "eagle", "--target-rows", "--init", str(out), "--cache", str(cache),
                                  "--target", TINY_HS, "--steps", "1", "--warmup", "1", "--lr", "1e-9", "--batch", "4",
                                  "--eval-positions", "20", "--out", str(tuned)]) == 0
    tman = json.load(open(tuned / "MANIFEST.json"))
    assert json.load(open(tuned / "draft_vocab.json")) == vocab
    assert tman["architecture"]["heads"] == 4 and tman["training"]["init"]["from"] == str(out)
    again = load_file(str(tuned / "model.safetensors"))
    assert np.abs(again["fc.weight"].astype(np.float32) - stored["fc.weight"].astype(np.float32)).max() < 1e-2
    # the control: a fresh start (fc a pass-through) is far from the saved head, so "close" above means "started there"
    assert np.abs(w["fc.weight"][:, H:] - np.eye(H)).max() > 1e-3
    # --ctc-weight: the auxiliary CTC term is a third loss part, finite and positive; its blank is not exported
    aux = tmp_path / "aux"
    assert train_draft_head.main(["train", "--kind", "eagle", "--target-rows", "--heads", "4", "--ffn", "96",
                                  "--ctc-weight", "0.01", "--cache", str(cache), "--target", TINY_HS,
                                  "--draft-vocab", "96", "--steps", "3", "--warmup", "1", "--batch", "4",
                                  "--log-every", "1", "--eval-positions", "20", "--out", str(aux)]) == 0
    parts = [c["parts"] for c in json.load(open(aux / "MANIFEST.json"))["loss_curve"]]
    assert all(len(p) == 3 and 0 < p[2] < 1e3 for p in parts)
    assert set(load_file(str(aux / "model.safetensors"))) == set(stored)
    # a wrong --init is refused before the cache is read (the cache path here does not even exist)
    with pytest.raises(SystemExit, match="a eagle head, this run trains medusa"):
        train_draft_head.main(["train", "--kind", "medusa", "--init", str(out), "--cache", str(tmp_path / "none"),
                               "--target", TINY_HS, "--steps", "1", "--out", str(tmp_path / "wrong")])


def test_target_rows_is_refused_for_other_kinds(tmp_path):
    # before any data is read: the cache path does not even exist
    with pytest.raises(SystemExit, match="--target-rows is for --kind eagle"):
        train_draft_head.main(["train", "--kind", "medusa", "--target-rows", "--cache", str(tmp_path / "none"),
                               "--target", TINY_HS, "--out", str(tmp_path / "h")])


def test_eagle_ctc_term_is_the_ctc_loss_of_its_windows_by_brute_force():
    # --ctc-weight's term on a 3-token draft vocabulary + blank, frames 3, stride 2: every alignment enumerated
    import itertools

    import torch
    torch.manual_seed(0)
    b, s, vd, frames = 2, 6, 3, 3
    logits, blank = torch.randn(b, s, vd), torch.randn(b, s)
    labels = {(0, 0): [1, 2], (0, 2): [0], (1, 0): [2, 2], (1, 2): []}  # (1, 2) empty: skipped
    loss, used = train_draft_head.eagle_ctc_term(logits, blank, lambda r, j: labels[(r, j)], frames=frames, stride=2)
    assert used == 3
    lp = torch.log_softmax(torch.cat([logits, blank[..., None]], -1), -1).double()

    def nll(r, j, label):
        total = 0.0
        for path in itertools.product(range(vd + 1), repeat=frames):
            if gdh.ctc_collapse(path, blank=vd) == label:
                total += float(torch.exp(sum(lp[r, j + f, path[f]] for f in range(frames))))
        return -np.log(total)

    # torch's "mean" reduction divides each window's loss by its label length, then averages over windows
    want = np.mean([nll(r, j, lb) / len(lb) for (r, j), lb in labels.items() if lb])
    assert abs(float(loss) - want) < 1e-5
    # the control: the same frames against another label give another loss
    other, _ = train_draft_head.eagle_ctc_term(logits, blank, lambda r, j: labels[(r, j)][::-1] or [], frames=frames,
                                               stride=2)
    assert abs(float(other) - want) > 1e-3
    assert train_draft_head.eagle_ctc_term(logits, blank, lambda r, j: [], frames=frames)[0] is None


def test_ctc_weight_is_refused_for_other_kinds_and_below_zero(tmp_path):
    common = ["--cache", str(tmp_path / "none"), "--target", TINY_HS, "--out", str(tmp_path / "h")]
    with pytest.raises(SystemExit, match="--ctc-weight is for --kind eagle"):
        train_draft_head.main(["train", "--kind", "ctc", "--ctc-weight", "0.01", *common])
    with pytest.raises(SystemExit, match="must be >= 0"):
        train_draft_head.main(["train", "--kind", "eagle", "--ctc-weight", "-1", *common])

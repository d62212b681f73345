"""export/head_gap.py: the offline replay of a bench's trajectories through a target and its draft heads. Checks
the bookkeeping with oracle heads (a head that always drafts the trajectory accepts every draft; one that never
does accepts none) and that each real head is called the way the trainer's numpy reference computes it."""
import json
import os

import numpy as np
import pytest

from export import graph_draft_head as gdh
from export import head_gap
from export.head_data import chatml
from export.ort_runner import OrtDecoder

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TINY_HS = os.path.join(ROOT, "models", "tiny-fp32-hs")
needs_fixture = pytest.mark.skipif(not os.path.exists(os.path.join(TINY_HS, "manifest.json")), reason="make fixtures")


def _records(tmp_path, n_new=24):
    """Two AR records whose outputs are the tiny target's own greedy continuations (as the bench writes them)."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(os.path.join(TINY_HS, "tokenizer.json"))
    path = tmp_path / "records.jsonl"
    with open(path, "w") as f:
        for i, (prompt, chat) in enumerate([("Write a haiku about rivers.", True), ("def add(a, b):", False)]):
            ids = tok.encode(chatml(prompt, None) if chat else prompt).ids
            out = OrtDecoder(TINY_HS, capacity=len(ids) + n_new + 8, threads=1).greedy(ids, n_new)
            for pipeline, strategy in [("p", "ar"), ("p", "speculative"), ("other", "ar")]:
                f.write(json.dumps({"pipeline": pipeline, "strategy": strategy, "category": f"c{i}", "id": str(i),
                                    "prompt": prompt, "chat": chat, "output_ids": out}) + "\n")
    return str(path)


class _Oracle:
    """A fake head: drafts the trajectory itself (right) or tokens that never occur (wrong)."""

    def __init__(self, name, right):
        self.name, self.kind, self.right, self.manifest = name, "medusa", right, {}

    def chain(self, hidden, tokens, t, depth):
        return [int(x) for x in tokens[t + 2:t + 2 + depth]] if self.right else [-1] * depth


@needs_fixture
def test_oracle_heads_bound_the_figures(tmp_path):
    recs = head_gap.load_records(_records(tmp_path), "p")
    assert len(recs) == 2 and all(r["strategy"] == "ar" for r in recs)
    res = head_gap.measure(recs, TINY_HS, [_Oracle("right", True), _Oracle("wrong", False)], depth=3, threads=1)
    # The Python target follows its own greedy outputs exactly (same graph, same kernels).
    assert res["target_agreement"] == 1.0
    right = res["heads"]["right"]["by_category"]["overall"]
    wrong = res["heads"]["wrong"]["by_category"]["overall"]
    assert right["cumulative"] == [1.0, 1.0, 1.0] and right["depth_top1"] == [1.0, 1.0, 1.0]
    assert wrong["cumulative"] == [0.0, 0.0, 0.0] and wrong["mean_accepted"] == 0.0 and wrong["tau"] == 1.0
    # 24 outputs: rounds of 3 drafts + bonus from the first output on; the last round is cut by the end.
    assert 3.5 < right["tau"] <= 4.0 and right["mean_accepted"] > 2.8
    assert right["positions"] == wrong["positions"] == 2 * (24 - 1)
    assert set(res["heads"]["right"]["by_category"]) == {"c0", "c1", "overall"}


@needs_fixture
@pytest.mark.parametrize("kind", ["medusa", "ctc", "eagle"])
def test_heads_are_called_like_the_reference(kind, tmp_path):
    gdh.random_head(TINY_HS, kind, str(tmp_path / "head"), seed=3)
    head = head_gap.Head(str(tmp_path / "head"), threads=1)
    rng = np.random.default_rng(0)
    H = head.manifest["target"]["hidden_size"]
    hidden = rng.normal(0, 2, (20, H)).astype(np.float32)
    tokens = rng.integers(3, head.manifest["target"]["vocab_size"], 21)
    chain = head.chain(hidden, tokens, t=4, depth=3)
    assert 0 < len(chain) <= 3 and all(int(c) in set(head.to_target.tolist()) for c in chain)
    if kind == "medusa":
        lg = head.sess.run(["logits"], {"hidden_states": hidden[4][None, None]})[0][0]
        assert chain == [int(head.to_target[i]) for i in lg.argmax(-1)[:3]]
    elif kind == "ctc":
        # t = 4 < window: the oldest rows are zero padding, masked; the same call with garbage in the padding
        # rows must draft the same chain (the engine pads with zeros, the mask is what hides them).
        W = head.window
        x = np.zeros((1, W, H), np.float32)
        x[0, W - 5:] = hidden[:5]
        x[0, :W - 5] = 7.0
        m = np.zeros((1, W), np.int64)
        m[0, W - 5:] = 1
        frames = head.sess.run(["logits"], {"hidden_states": x, "hidden_mask": m})[0][0].argmax(-1)
        assert chain == [int(head.to_target[d]) for d in gdh.ctc_collapse(frames, blank=head.vd)][:3]
    else:
        # Depth 1 reads the committed pairs only: (h_i, x_{i+1}) for i <= t.
        outs = head.sess.run(["logits"], {"hidden_states": hidden[:5][None], "input_ids": tokens[1:6][None].astype(np.int64)})
        assert chain[0] == int(head.to_target[int(outs[0].reshape(-1, head.vd)[-1].argmax())])


def test_old_records_are_a_clear_error(tmp_path):
    path = tmp_path / "records.jsonl"
    path.write_text(json.dumps({"pipeline": "p", "strategy": "ar", "id": "x"}) + "\n")
    with pytest.raises(SystemExit, match="no prompt/output_ids"):
        head_gap.load_records(str(path), "p")
    with pytest.raises(SystemExit, match="pipelines there"):
        head_gap.load_records(str(path), "nope")


def test_engine_figures_join_the_offline_ones(tmp_path):
    rows = [{"pipeline": "p-chain3", "strategy": "ar", "category": "overall", "tau": 1.0, "acceptance_by_depth": []},
            {"pipeline": "p-chain3", "strategy": "speculative", "category": "mt_bench", "tau": 9.0,
             "acceptance_by_depth": [0.9]},
            {"pipeline": "p-chain3", "strategy": "speculative", "category": "overall", "tau": 1.3,
             "acceptance_by_depth": [0.31, 0.07, 0.01]}]
    (tmp_path / "results.json").write_text(json.dumps({"results": rows}))
    fake = _Oracle("h", True)
    got = head_gap.engine_figures(str(tmp_path / "results.json"), ["p-chain3"], [fake])
    assert got == {"h": {"cumulative": [0.31, 0.07, 0.01], "tau": 1.3}}
    with pytest.raises(SystemExit, match="no overall speculative row of pipeline `nope`"):
        head_gap.engine_figures(str(tmp_path / "results.json"), ["nope"], [fake])
    res = {"target": "t", "depth": 3, "records": 1, "target_agreement": 1.0,
           "heads": {"h": {"kind": "medusa", "engine": got["h"], "held_out_cumulative": [0.4, 0.1, 0.05],
                           "by_category": {"overall": {"depth_top1": [0.3, 0.2, 0.1], "cumulative": [0.3, 0.06, 0.01],
                                                       "mean_accepted": 0.37, "tau": 1.31, "positions": 10}}}}}
    md = head_gap.markdown(res)
    assert "| h | 31/7/1% | 1.300 | 30/6/1% | 1.310 | 40/10/5% |" in md
    pytest.importorskip("matplotlib")
    head_gap.plot(res, str(tmp_path / "gap.png"))
    assert (tmp_path / "gap.png").stat().st_size > 1000

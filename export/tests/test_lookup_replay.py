"""export/lookup_replay.py: the offline replay of prompt lookup over a bench's AR trajectories. The mirrored drafter
must draft what the engine's does (the cases of engine/strategy/speculative/ngram.rs and corpus.rs unit tests),
and the replay's bookkeeping must follow greedy verification: a trajectory that repeats itself is drafted and
accepted, one that never repeats is decoded one token per call, and the perfect-stop ceiling is never below the
shipped row."""
import json

from export import lookup_replay as lr


def test_ngram_matching_mirrors_the_engine():
    # ngram.rs `proposes_what_followed_the_last_match` and `prefers_longer_ngrams_and_the_most_recent_match`
    ctx = [9, 1, 2, 3, 4, 5, 6, 7, 1, 2, 3]
    assert lr.find_match(ctx, 2, n_max=3, n_min=1)[2] == [4, 5]
    assert lr.find_match([2, 3, 10, 8, 3, 11, 2, 3], 1, n_max=2, n_min=1)[2] == [10]
    assert lr.find_match([5, 3, 10, 8, 3, 11, 3], 1, n_max=2, n_min=1)[2] == [11]
    assert lr.find_match([7, 8, 1, 2, 3, 7], 2, n_max=1, n_min=1, window=3) is None
    # the match behind a 2-token suffix extends backwards as far as the text repeats
    ctx = [1, 2, 3, 4, 5, 9, 1, 2, 3, 4, 5]
    n, occ, cont = lr.find_match(ctx, 4)
    assert (n, occ, cont) == (5, 0, [9, 1, 2, 3]), "the longest n first (n_max 8 caps it, 5 tokens repeat here)"
    assert lr.match_length(ctx, occ, n) == 5
    assert lr.match_length([0, 1, 2, 3, 7, 0, 1, 2, 3], 2, 2) == 4, "[2, 3] at 2, preceded by the same 0 1"


def test_corpus_drafting_mirrors_the_engine():
    # corpus.rs `drafts_the_most_frequent_continuation_and_extends_it` and `thresholds_and_caps_stop_drafting`
    docs = [[1, 2, 3, 4], [1, 2, 3, 4], [7, 1, 2, 3], [1, 2, 9]]
    c = lr.Corpus(docs, n_min=2, n_max=3, max_tokens=3, min_count=2, min_share=0.5)
    assert c.draft([5, 1, 2], 8) == [3, 4]
    c = lr.Corpus([[1, 2, 3], [1, 2, 4]], n_min=2, n_max=3, max_tokens=3, min_count=1, min_share=0.5)
    assert c.draft([1, 2], 4) == [], "1 of 2 is below half of total + 1"
    c = lr.Corpus([[1, 2, 3, 4, 5, 6]] * 3, n_min=2, n_max=3, max_tokens=2, min_count=1, min_share=0.5)
    assert c.draft([1, 2], 9) == [3, 4], "max_tokens caps the draft"


def test_curves_read_both_formats(tmp_path):
    engine = tmp_path / "engine.json"
    engine.write_text(json.dumps({"points": [[1, 0.004], [2, 0.005], [4, 0.006]]}))
    curve = lr.Curve.load(str(engine))
    assert curve.steps(1) == 1.0 and curve.steps(2) == 1.25 and abs(curve.steps(3) - 1.375) < 1e-12
    assert abs(curve.steps(6) - 1.75) < 1e-12, "linear past the last point, as cost.rs extrapolates"
    pc = tmp_path / "pc.json"
    pc.write_text(json.dumps({"passes": [{"model": "m", "pass": "chain 1", "tokens": 1, "ms": 4.0},
                                         {"model": "m", "pass": "chain 2", "tokens": 2, "ms": 5.0},
                                         {"model": "other", "pass": "chain 1", "tokens": 1, "ms": 9.0}]}))
    assert lr.Curve.load(str(pc)).points == [(1, 1.0), (2, 1.25)]
    results = tmp_path / "results.json"
    passes = [{"tokens": 1, "calls": 900, "mean_ms": 4.0}, {"tokens": 2, "calls": 300, "mean_ms": 5.0},
              {"tokens": 5, "calls": 3, "mean_ms": 50.0}, {"tokens": 9, "calls": 40, "mean_ms": 12.0}]
    results.write_text(json.dumps({"results": [
        {"pipeline": "lookup", "strategy": "ar", "category": "overall", "target_passes": [passes[0]]},
        {"pipeline": "lookup", "strategy": "speculative", "category": "code", "target_passes": passes[:1]},
        {"pipeline": "lookup", "strategy": "speculative", "category": "overall", "target_passes": passes}]}))
    assert lr.Curve.load(f"{results}@lookup").points == [(1, 1.0), (2, 1.25), (9, 3.0)], "3 passes are too few"


def test_the_replay_follows_greedy_verification():
    flat = lr.Curve([(1, 1.0), (16, 1.0)])  # verification free: any right draft is pure gain
    prompt = list(range(100, 140))
    copying = [("copy", prompt, prompt[:30])]  # the output repeats the prompt: lookup drafts it
    fresh = [("fresh", prompt, list(range(200, 230)))]  # nothing repeats: no drafts at all
    shipped = lr.replay(copying + fresh, flat, None)
    assert shipped["fresh"]["tau"] == 1.0 and shipped["fresh"]["drafting_rounds"] == 0.0
    assert shipped["copy"]["tau"] > 2.0 and shipped["copy"]["speedup"] == shipped["copy"]["tau"]
    ceiling = lr.replay(copying + fresh, flat, None, perfect_stop=True)
    assert ceiling["copy"]["tau"] >= shipped["copy"]["tau"]
    # a costly verify pass: the same drafts, lower modelled speedup, and the ceiling above the shipped row
    steep = lr.Curve([(1, 1.0), (2, 1.5), (13, 7.0)])
    assert lr.replay(copying, steep, None)["copy"]["speedup"] < shipped["copy"]["speedup"]
    assert lr.replay(copying, steep, None, perfect_stop=True)["copy"]["speedup"] >= lr.replay(copying, steep, None)["copy"]["speedup"]


def test_tokens_are_conserved():
    """Every output token after the prefill's first is counted once: one bonus per call plus its accepted drafts,
    whatever the drafter does; a drafting call is a call."""
    prompt = [5, 6, 7, 8, 5, 6, 7, 9, 5, 6]
    out = [7, 8, 5, 6, 7, 9, 1, 5, 6, 7, 8, 2, 3]
    per = {}
    curve = lr.Curve([(1, 1.0), (2, 1.1), (13, 3.0)])
    for kw in [{}, {"perfect_stop": True}, {"n_min": 1}, {"match_ratio": 0.0}]:
        res = lr.replay([("c", prompt, out)], curve, lr.Corpus([[1, 2, 3]] * 3, max_tokens=2), **kw)
        assert res["c"]["tokens"] == len(out) - 1, kw
        assert abs(res["c"]["tau"] - res["c"]["tokens"] / res["c"]["calls"]) < 1e-12, kw
        per[str(kw)] = res["c"]["tau"]
    assert per[str({"perfect_stop": True})] >= per[str({})]


def test_the_report_rows_follow_the_corpus(tmp_path, monkeypatch):
    """Without a corpus every row but the corpus ones is replayed (the shipped row is then the corpus-free one);
    with one, all of them."""
    records = tmp_path / "records.jsonl"
    with open(records, "w") as f:
        for pipeline, strategy in [("ar", "ar"), ("lookup", "speculative")]:
            f.write(json.dumps({"pipeline": pipeline, "strategy": strategy, "category": "code", "id": "0",
                                "prompt": "p", "chat": False, "output_ids": [1, 2, 3, 1, 2, 3, 1, 2, 3],
                                "new_tokens": 9, "target_calls": 5}) + "\n")
    curve = tmp_path / "curve.json"
    curve.write_text(json.dumps({"points": [[1, 1.0], [13, 2.0]]}))
    monkeypatch.setattr(lr, "trajectories_of", lambda recs, target: [("code", [1, 2, 3], r["output_ids"]) for r in recs])
    out = tmp_path / "report.json"
    base = ["--records", str(records), "--pipeline", "ar", "--engine-pipeline", "lookup", "--target", "unused",
            "--curve", f"c={curve}", "--json", str(out)]
    assert lr.main(base) == 0
    report = json.loads(out.read_text())
    assert [r["name"] for r in report["rows"]] == ["shipped", "perfect stop (ceiling)", "n_min 1", "match ratio 2"]
    assert report["engine_tau"]["code"] == 9 / 5
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    import numpy as np
    np.asarray([1, 2, 3, 4, lr.DOCUMENT_END, 1, 2, 3, 4], dtype="<u4").tofile(corpus / "tokens.bin")
    (corpus / "corpus.json").write_text(json.dumps({"tokens_file": "tokens.bin"}))
    assert lr.main(base + ["--corpus", str(corpus)]) == 0
    names = [r["name"] for r in json.loads(out.read_text())["rows"]]
    assert names == ["shipped", "perfect stop (ceiling)", "no corpus", "corpus 1/2", "n_min 1", "match ratio 2"]


def test_the_plot_is_drawn(tmp_path):
    import pytest
    pytest.importorskip("matplotlib")
    flat = lr.Curve([(1, 1.0), (16, 1.0)])
    trajectories = [("code", list(range(100, 140)), list(range(100, 130)))]
    rows = [{"curve": "flat", "name": name, "figures": lr.replay(trajectories, flat, None, perfect_stop=stop)}
            for name, stop in [("shipped", False), ("perfect stop (ceiling)", True)]]
    report = {"rows": rows, "by_match_length": lr.acceptance_by_match_length(trajectories, None)}
    assert report["by_match_length"]["17-64"]["1"]["p"] == 1.0, "a copied prompt: long matches, always right"
    out = tmp_path / "ceiling.png"
    lr.plot(report, str(out))
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_unreadable_inputs_are_one_line_errors(tmp_path):
    import pytest
    records = tmp_path / "records.jsonl"
    records.write_text(json.dumps({"pipeline": "ar", "strategy": "ar", "category": "c", "id": "0", "prompt": "p",
                                  "chat": False, "output_ids": [1, 2]}) + "\n")
    with pytest.raises(SystemExit, match="nope.json"):
        lr.main(["--records", str(records), "--pipeline", "ar", "--target", str(tmp_path), "--curve",
                 f"c={tmp_path / 'nope.json'}"])
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(SystemExit, match="lookup_replay: JSONDecodeError"):
        lr.main(["--records", str(records), "--pipeline", "ar", "--target", str(tmp_path), "--curve", f"c={bad}"])
    with pytest.raises(SystemExit, match="expected NAME=PATH"):
        lr.main(["--records", str(records), "--pipeline", "ar", "--target", str(tmp_path), "--curve", "c"])

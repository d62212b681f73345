"""CTC NAT export (graph_ctc_nat), the recipe's upsampling rule (same cases as engine/nat/upsample.rs), the
translation-pair alignment/split rules and the output shortlist table (nat_shortlist)."""
from __future__ import annotations

import hashlib
import json
import os

import numpy as np
import onnx
import onnxruntime as ort

import pytest

from export.graph_ctc_nat import (DEFAULT_TOKENIZER, _vocab, dims_of, export_ctc_nat, random_weights,
                                  read_output_vocab, reference_logits)
from export.nat_shortlist import build_table, shortlist
from export.train_ctc_nat import upsample, upsample_length
from export.translation_pairs import align, split_of

M = 99


def test_upsampling_matches_the_engine_cases():
    assert upsample([1, 2, 3], 2.0, 100, M) == [1, M, 2, M, 3, M]
    assert upsample([1, 2], 3.0, 100, M) == [1, M, M, 2, M, M]
    assert upsample([1, 2, 3, 4], 1.5, 100, M) == [1, 2, M, 3, 4, M]
    out = upsample(list(range(30)), 3.0, 64, M)
    assert len(out) == 64 and [t for t in out if t != M] == list(range(30))
    assert upsample(list(range(64)), 2.0, 64, M) == list(range(64))
    # halves round away from zero (Rust f64::round), not to even (Python round)
    assert upsample_length(5, 2.5, 100) == 13 and upsample_length(3, 2.5, 100) == 8


def _random_export(out, dim: int, ffn: int, seed: int, precision: str = "fp32", output_vocab=None, shortlist=None):
    """Random 2-layer, 2-head encoder over the en-de tokenizer, exported to `out`: (weights, dims, tokenizer
    text, manifest, session)."""
    vocab = _vocab(DEFAULT_TOKENIZER)
    w = random_weights(vocab=vocab, dim=dim, heads=2, ffn=ffn, layers=2, positions=40, seed=seed)
    dims = dims_of(w, 2)
    with open(DEFAULT_TOKENIZER, encoding="utf-8") as f:
        tok = f.read()
    man = export_ctc_nat(str(out), w, dims, tok, {"rate": 2.0}, {"format": "random"}, precision=precision,
                         output_vocab=output_vocab, shortlist=shortlist)
    s = ort.InferenceSession(os.path.join(out, "model.onnx"), providers=["CPUExecutionProvider"])
    return w, dims, tok, man, s


def test_export_matches_the_numpy_reference_with_padding(tmp_path):
    w, dims, tok, man, s = _random_export(tmp_path, dim=32, ffn=48, seed=3)
    vocab = dims["vocab_size"]
    assert man["kind"] == "ctc_nat" and man["ctc"]["upsample"]["position_limit"] == 40
    ids_of = json.loads(tok)
    specials = {t["content"]: t["id"] for t in ids_of["added_tokens"]}
    assert man["ctc"]["blank_id"] == specials["<blank>"] and man["ctc"]["mask_id"] == specials["<mask>"]
    rng = np.random.default_rng(0)
    ids = rng.integers(0, vocab, (3, 21))
    mask = np.ones((3, 21), np.int64)
    mask[1, 12:] = 0
    mask[2, 4:] = 0
    got = s.run(None, {"input_ids": ids, "attention_mask": mask})[0]
    ref = reference_logits(w, dims, ids, mask)
    for b, n in enumerate([21, 12, 4]):
        assert np.abs(got[b, :n] - ref[b, :n]).max() < 1e-3
        # padding never leaks into real positions: the same sentence alone gives the same logits
        alone = s.run(None, {"input_ids": ids[b:b + 1, :n], "attention_mask": np.ones((1, n), np.int64)})[0]
        assert np.abs(alone[0] - got[b, :n]).max() < 1e-4


def test_token_ids_are_the_argmax_and_the_output_vocab_keeps_its_columns_exactly(tmp_path):
    _, dims, _, man, full = _random_export(tmp_path / "full", dim=32, ffn=48, seed=5)
    assert [o["name"] for o in man["graph"]["outputs"]] == ["logits", "token_ids"]
    blank = man["ctc"]["blank_id"]
    rng = np.random.default_rng(1)
    keep = sorted(set(rng.choice(dims["vocab_size"], 3000, replace=False).tolist()) | {blank})
    vocab_file = tmp_path / "target_vocab.json"
    vocab_file.write_text(json.dumps({"ids": keep[::-1]}))  # any order on disk; the export sorts
    _, _, _, man_s, short = _random_export(tmp_path / "short", dim=32, ffn=48, seed=5, output_vocab=str(vocab_file))
    assert man_s["ctc"]["output_ids"] == keep
    assert man_s["graph"]["outputs"][0]["shape"][-1] == len(keep)
    feed = {"input_ids": rng.integers(0, dims["vocab_size"], (2, 17)), "attention_mask": np.ones((2, 17), np.int64)}
    logits, ids = full.run(None, feed)
    assert (ids == logits.argmax(-1)).all()
    logits_s, ids_s = short.run(None, feed)
    assert np.array_equal(logits_s, logits[..., keep])  # the same columns, bit for bit
    assert (ids_s == np.asarray(keep)[logits_s.argmax(-1)]).all()
    # negative control: random weights do score tokens outside the list highest somewhere
    assert (ids_s != ids).any()


def test_an_output_vocab_without_blank_or_out_of_range_is_refused(tmp_path):
    f = tmp_path / "v.json"
    f.write_text(json.dumps({"ids": [1, 2, 3]}))
    with pytest.raises(ValueError, match="blank"):
        read_output_vocab(str(f), 10, 5)
    f.write_text(json.dumps({"ids": [5, 10]}))
    with pytest.raises(ValueError, match=r"\[0, 10\)"):
        read_output_vocab(str(f), 10, 5)


def _js_md5(s: str) -> str:
    u = s.encode("utf-16-le")
    return hashlib.md5(bytes(u[0::2])).hexdigest()


def test_pairs_are_aligned_by_md5_deduplicated_and_split_by_source():
    en = {"package/builds/doc-0.json": ["A cat.", "A dog.", "A cat.", "Misaligned."],
          "package/builds/doc-1.json": ["Third  sentence here."]}
    de = {"package/builds/doc-0.json": [["Eine Katze.", _js_md5("A cat.")], ["Ein Hund.", _js_md5("A dog.")],
                                        ["Eine Katze!", _js_md5("A cat.")], ["Falsch.", "0" * 32]],
          "package/builds/doc-1.json": [["Dritter  Satz hier.", _js_md5("Third  sentence here.")]]}
    pairs, counts = align(en, de)
    assert [p["en"] for p in pairs] == ["A cat.", "A dog.", "Third sentence here."]  # whitespace normalised
    assert pairs[2]["de"] == "Dritter Satz hier." and pairs[0]["id"] == "doc-0.json:0"
    assert counts["md5_mismatch"] == 1 and counts["duplicate"] == 1
    # the split is a pure function of the English side
    assert {split_of(p["en"]) for p in pairs} <= {"train", "dev", "test"}
    assert split_of("A cat.") == split_of("A cat.")
    buckets = [split_of(f"sentence {i}") for i in range(5000)]
    assert 0.01 < buckets.count("test") / 5000 < 0.03


def test_int8_export_stays_close_to_the_float_model(tmp_path):
    w, dims, _, man, s = _random_export(tmp_path, dim=64, ffn=128, seed=5, precision="int8")
    vocab = dims["vocab_size"]
    assert man["precision"]["weights"] == "int8"
    ids = np.random.default_rng(1).integers(0, vocab, (2, 30))
    mask = np.ones((2, 30), np.int64)
    got = s.run(None, {"input_ids": ids, "attention_mask": mask})[0]
    ref = reference_logits(w, dims, ids, mask)
    # 8-bit weights and int8 activations: close, not equal; the argmax (what greedy CTC reads) mostly agrees
    rel = np.abs(got - ref).max() / np.abs(ref).max()
    assert rel < 0.05, rel
    assert (got.argmax(-1) == ref.argmax(-1)).mean() > 0.9


def _random_q8_0_export(tmp_path, fused_layers: bool):
    """(weights, dims, manifest) of a random 2-layer width-64 q8_0 export written to tmp_path."""
    w = random_weights(vocab=_vocab(DEFAULT_TOKENIZER), dim=64, heads=2, ffn=128, layers=2, positions=40, seed=5)
    dims = dims_of(w, 2)
    with open(DEFAULT_TOKENIZER, encoding="utf-8") as f:
        tok = f.read()
    man = export_ctc_nat(str(tmp_path), w, dims, tok, {"rate": 2.0}, {"format": "random"}, precision="q8_0",
                         fused_layers=fused_layers)
    return w, dims, man


def test_q8_0_unfused_export_writes_the_blocks_the_engine_kernel_reads(tmp_path):
    # precision q8_0 with --unfused-layers: every projection and the head become ai.specrt::MatMulGgml over GGML Q8_0 blocks (the engine
    # runs them; Python's onnxruntime cannot, so the graph is checked here and decoded in tests/nat_translation.rs)
    from export.ggml_blocks import ggml_encode

    w, dims, man = _random_q8_0_export(tmp_path, fused_layers=False)
    assert man["precision"]["weights"] == "q8_0" and "MatMulGgml" in man["precision"]["notes"][0]
    model = onnx.load(os.path.join(tmp_path, "model.onnx"))
    assert not [n for n in model.graph.node if n.op_type == "EncoderLayerGgml"]
    nodes = [n for n in model.graph.node if n.op_type == "MatMulGgml"]
    # per layer: Q/K/V stacked in one node, O, gate/up stacked, down; plus the head
    assert len(nodes) == 2 * 4 + 1 and all(n.domain == "ai.specrt" for n in nodes)
    assert not [n for n in model.graph.node if n.op_type in ("MatMul", "MatMulNBits")]
    inits = {i.name: onnx.numpy_helper.to_array(i) for i in model.graph.initializer}
    q = next(n for n in nodes if n.name == "layers.0.qkv_proj")
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in q.attribute}
    assert attrs == {"K": 64, "N": 3 * 64, "ggml_type": b"Q8_0"}
    qkv = np.concatenate([w[f"layers.0.{n}_proj.weight"] for n in "qkv"], 0).astype(np.float32)
    assert np.array_equal(inits[q.input[1]], ggml_encode(qkv, "Q8_0"))
    # a Q8_0 block row holds one output column's 32 weights: stacking matrices stacks their blocks
    assert np.array_equal(inits[q.input[1]][: inits[q.input[1]].shape[0] // 3],
                          ggml_encode(w["layers.0.q_proj.weight"].astype(np.float32), "Q8_0"))
    assert any(o.domain == "ai.specrt" for o in model.opset_import)
    # the head writes `logits` itself (no Identity copy of the scores) and the engine's ArgMaxRows makes token_ids
    assert not [n for n in model.graph.node if n.op_type in ("Identity", "ArgMax")]
    head = next(n for n in nodes if n.name == "lm_head.weight")
    assert list(head.output) == ["logits"]
    am = [n for n in model.graph.node if n.op_type == "ArgMaxRows"]
    assert len(am) == 1 and am[0].domain == "ai.specrt" and list(am[0].output) == ["token_ids"]
    assert am[0].input[0] == "logits"


def test_q8_0_export_fuses_each_layer_into_one_engine_node(tmp_path):
    # The default q8_0 graph: per layer one ai.specrt::EncoderLayerGgml over the layer's norms and Q8_0 blocks (Q/K/V
    # and gate/up stacked along N, the same blocks the unfused graph's MatMulGgml nodes read), then the final norm,
    # a MatMulGgml head writing `logits` and ArgMaxRows writing `token_ids`.
    from export.ggml_blocks import ggml_encode

    w, dims, man = _random_q8_0_export(tmp_path, fused_layers=True)
    assert "EncoderLayerGgml" in man["precision"]["notes"][0]
    model = onnx.load(os.path.join(tmp_path, "model.onnx"))
    ops = [n.op_type for n in model.graph.node]
    assert ops.count("EncoderLayerGgml") == 2 and ops.count("MatMulGgml") == 1
    assert not {"MultiHeadAttention", "Split", "Sigmoid", "MatMul", "MatMulNBits"} & set(ops)
    inits = {i.name: onnx.numpy_helper.to_array(i) for i in model.graph.initializer}
    layer = next(n for n in model.graph.node if n.name == "layers.1.layer")
    assert layer.domain == "ai.specrt" and len(layer.input) == 8
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in layer.attribute}
    assert attrs["hidden"] == 64 and attrs["num_heads"] == 2 and attrs["ffn"] == 128 and attrs["ggml_type"] == b"Q8_0"
    assert abs(attrs["epsilon"] - dims["rms_norm_eps"]) < 1e-12
    # inputs: X, mask (int32), attn_norm, qkv, o, ffn_norm, gate_up, down
    assert np.array_equal(inits[layer.input[2]], w["layers.1.input_layernorm.weight"])
    assert np.array_equal(inits[layer.input[5]], w["layers.1.post_attention_layernorm.weight"])
    stacked = {3: ["q_proj", "k_proj", "v_proj"], 4: ["o_proj"], 6: ["gate_proj", "up_proj"], 7: ["down_proj"]}
    for i, names in stacked.items():
        m = np.concatenate([w[f"layers.1.{n}.weight"] for n in names], 0).astype(np.float32)
        assert np.array_equal(inits[layer.input[i]], ggml_encode(m, "Q8_0")), names
    first = next(n for n in model.graph.node if n.name == "layers.0.layer")
    assert list(layer.input[:1]) == list(first.output)  # layers chain through X
    mask = next(n for n in model.graph.node if n.op_type == "Cast")
    assert layer.input[1] == mask.output[0] and onnx.helper.get_attribute_value(mask.attribute[0]) == onnx.TensorProto.INT32


def test_shortlist_table_from_a_tiny_corpus():
    # vocab 12; specials 0 (<pad>) and 1 (<blank>). Target 10 is in every pair (the frequent word); source 2
    # translates to 5 (3 of 3 pairs) and co-occurs once with 6; source 3 to 6; source 4 is never seen.
    src = [[2, 3], [2], [2, 3], [3]]
    tgt = [[10, 5, 6], [10, 5], [10, 5, 6, 6], [10, 6, 7]]
    t = build_table(src, tgt, 12, top_k=2, frequent=1, specials=[0, 1])
    assert t["always"] == [0, 1, 10]  # F = 1 most frequent target + the specials
    # p(t|s): s=2: 5 -> 3/3, 6 -> 2/3 (10 is in `always`, so its slot goes to the next word)
    assert t["rows"]["2"] == [5, 6]
    # s=3: 6 -> 3/3, then 5 (2/3) before 7 (1/3)
    assert t["rows"]["3"] == [6, 5]
    assert "4" not in t["rows"]
    assert shortlist(t, [2]) == [0, 1, 5, 6, 10]
    assert shortlist(t, [4, 4]) == [0, 1, 10]  # an unseen source token adds nothing
    assert shortlist(t, [2, 3]) == [0, 1, 5, 6, 10]
    # ties break on the lower id, so the table is a pure function of the pairs
    t1 = build_table([[2], [2]], [[9], [8]], 12, top_k=1, frequent=0, specials=[1])
    assert t1["rows"]["2"] == [8] and t1["always"] == [1]
    assert build_table(src, tgt, 12, 2, 1, [0, 1]) == t


def test_a_shortlist_export_computes_only_the_fed_columns(tmp_path):
    # fp32 graph with `output_columns` (the q8_0 graph's MatMulGgml runs only in the engine: tests/nat_translation.rs)
    vocab = _vocab(DEFAULT_TOKENIZER)
    rng = np.random.default_rng(2)
    table = build_table([rng.integers(0, vocab, 6).tolist() for _ in range(50)],
                        [rng.integers(0, vocab, 6).tolist() for _ in range(50)], vocab, 4, 16, [5])
    table["format"], table["version"] = "specrt-nat-shortlist", 1
    f = tmp_path / "table.json"
    f.write_text(json.dumps(table))
    _, dims, _, man, full = _random_export(tmp_path / "full", dim=32, ffn=48, seed=5)
    _, _, _, man_s, short = _random_export(tmp_path / "sl", dim=32, ffn=48, seed=5, shortlist=str(f))
    blank = man_s["ctc"]["blank_id"]
    sl = man_s["ctc"]["shortlist"]
    assert sl["file"] == "shortlist.json" and sl["top_k"] == 4 and sl["frequent"] == 16 and sl["vocab"] == vocab
    assert sl["sha256"] == man_s["files"]["shortlist.json"]
    assert [i["name"] for i in man_s["graph"]["inputs"]] == ["input_ids", "attention_mask", "output_columns",
                                                             "output_columns_mask"]
    feed = {"input_ids": rng.integers(0, vocab, (2, 17)), "attention_mask": np.ones((2, 17), np.int64)}
    logits, ids = full.run(None, feed)
    cols = np.asarray(shortlist(table, feed["input_ids"].ravel().tolist()), np.int64)
    assert blank in cols and len(cols) < vocab // 10
    ones = np.ones((1, len(cols)), np.uint8)
    logits_s, ids_s = short.run(None, dict(feed, output_columns=cols, output_columns_mask=ones))
    assert logits_s.shape == (2, 17, len(cols))
    assert np.abs(logits_s - logits[..., cols]).max() < 1e-4  # fp32: the gathered MatMul may round differently
    assert (ids_s == cols[logits_s.argmax(-1)]).all()
    all_logits, all_ids = short.run(None, dict(feed, output_columns=np.arange(vocab, dtype=np.int64),
                                               output_columns_mask=np.ones((1, vocab), np.uint8)))
    assert (all_ids == ids).all() and np.abs(all_logits - logits).max() < 1e-4
    assert (ids_s != ids).any()  # negative control: the restriction changes some argmax
    # per-sentence rows of the mask: sentence b chooses only among its own columns
    own = [set(shortlist(table, feed["input_ids"][b].tolist())) for b in range(2)]
    mask = np.array([[c in own[b] for c in cols] for b in range(2)], np.uint8)
    assert 0 < mask.sum() < mask.size
    _, ids_m = short.run(None, dict(feed, output_columns=cols, output_columns_mask=mask))
    for b in range(2):
        mine = cols[mask[b] > 0]
        assert (ids_m[b] == mine[logits[b][:, mine].argmax(-1)]).all()
    bad = dict(table, vocab=vocab - 1)
    f.write_text(json.dumps(bad))
    with pytest.raises(ValueError, match="vocab"):
        _random_export(tmp_path / "bad", dim=32, ffn=48, seed=5, shortlist=str(f))

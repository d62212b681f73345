"""Draft heads (export/graph_draft_head.py): ONNX graph == numpy reference for every kind on random weights,
manifest fields, the draft vocabulary mapping, CTC label construction, bench exclusion. No torch needed
(the torch-vs-reference check runs only where torch is importable, i.e. in the training venv)."""
import json
import os

import numpy as np
import onnxruntime as ort
import pytest

from export import graph_draft_head as gdh
from export.head_data import BenchFilter, chatml, default_system, split_of

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TINY = os.path.join(ROOT, "models", "tiny-fp32")


def _session(path):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    return ort.InferenceSession(os.path.join(path, "model.onnx"), so, providers=["CPUExecutionProvider"])


def _cfg(kind, H=48, V=300, vd=120):
    d = dict(gdh.DEFAULTS[kind], hidden_size=H)
    if kind != "medusa":
        d["heads"], d["ffn"] = 4, 96
    vocab = sorted(set(range(0, 2 * vd, 2)) | {0, 1})[:vd]
    d["draft_vocab_size"] = len(vocab)
    d["index"] = gdh.draft_index(vocab, V)
    return d, vocab


def _graph_rows(kind, ref_out):
    """The reference rows the graph returns: eagle computes only the newest pair's row (the last), the other kinds
    every row."""
    return ref_out[-1:] if kind == "eagle" else ref_out


def _inputs(kind, cfg, rng, V=300, S=5, pad=0):
    H, W = cfg["hidden_size"], cfg["window"]
    if kind == "medusa":
        return {"hidden_states": rng.normal(0, 3, (1, 1, H)).astype(np.float32)}
    if kind == "ctc":
        h = rng.normal(0, 3, (1, W, H)).astype(np.float32)
        m = np.ones((1, W), np.int64)
        h[:, :pad] = 0
        m[:, :pad] = 0
        return {"hidden_states": h, "hidden_mask": m}
    return {"hidden_states": rng.normal(0, 3, (1, S, H)).astype(np.float32),
            "input_ids": rng.integers(0, V, (1, S)).astype(np.int64)}


@pytest.mark.parametrize("kind", gdh.KINDS)
def test_graph_matches_reference(kind, tmp_path):
    V = 300
    cfg, vocab = _cfg(kind, V=V)
    rng = np.random.default_rng(1)
    w = gdh.random_weights(kind, cfg["hidden_size"], len(vocab), cfg["slots"], cfg["window"], cfg.get("ffn", 0), 3)
    w = {k: (v + rng.normal(0, 0.05, v.shape)).astype(np.float32) for k, v in w.items()}  # not near-identity
    target = {"source_sha256": "0" * 64, "tokenizer_sha256": "1" * 64, "hidden_size": cfg["hidden_size"],
              "vocab_size": V}
    gdh.export_head(str(tmp_path), kind, w, {k: v for k, v in cfg.items() if k not in ("index", "draft_vocab_size")},
                    vocab, target, {"recipe": "test"}, {"coverage": None})
    sess = _session(str(tmp_path))
    cases = [dict(pad=0), dict(pad=3)] if kind == "ctc" else [dict(S=1), dict(S=5), dict(S=cfg["window"])]
    for case in cases:
        feeds = _inputs(kind, cfg, rng, V=V, **case)
        if kind == "eagle":
            feeds["input_ids"][0, 0] = 1  # an id outside the draft vocabulary -> UNK row
            feeds["input_ids"][0, -1] = vocab[-1]
        outs = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))
        ref = gdh.reference(kind, w, cfg, feeds["hidden_states"][0], mask=feeds.get("hidden_mask", [None])[0],
                            input_ids=feeds.get("input_ids", [None])[0])
        for name, r in ref.items():
            got, r = outs[name][0], _graph_rows(kind, r)
            assert got.shape == r.shape, (name, got.shape, r.shape)
            assert np.abs(got - r).max() < 1e-4 * max(1.0, np.abs(r).max()), (kind, case, name, np.abs(got - r).max())


def test_eagle_graph_returns_the_newest_row_only(tmp_path):
    """The EAGLE graph computes the output head for the last pair only, and that row is the reference's row S-1
    (not row 0, nor a row of a shorter input): checked for several S against rows that differ."""
    V = 300
    cfg, vocab = _cfg("eagle", V=V)
    w = gdh.random_weights("eagle", cfg["hidden_size"], len(vocab), cfg["slots"], cfg["window"], cfg["ffn"], 4)
    target = {"source_sha256": "0" * 64, "tokenizer_sha256": "1" * 64, "hidden_size": cfg["hidden_size"],
              "vocab_size": V}
    man = gdh.export_head(str(tmp_path), "eagle", w, {k: v for k, v in cfg.items() if k not in ("index", "draft_vocab_size")},
                          vocab, target, {"recipe": "test"}, {"coverage": None})
    assert [o["shape"][1] for o in man["graph"]["outputs"]] == [1, 1]
    sess = _session(str(tmp_path))
    rng = np.random.default_rng(7)
    for S in (1, 4, cfg["window"]):
        feeds = _inputs("eagle", cfg, rng, V=V, S=S)
        feats, logits = sess.run(["features", "logits"], feeds)
        assert feats.shape == (1, 1, cfg["hidden_size"]) and logits.shape == (1, 1, len(vocab)), (S, feats.shape)
        ref = gdh.reference("eagle", w, cfg, feeds["hidden_states"][0], input_ids=feeds["input_ids"][0])
        tol = 1e-4 * max(1.0, np.abs(ref["logits"]).max())
        assert np.abs(logits[0, 0] - ref["logits"][-1]).max() < tol
        if S > 1:  # negative control: the first row (what a wrong slice would return) is far from it
            assert np.abs(logits[0, 0] - ref["logits"][0]).max() > 100 * tol


def test_ctc_padding_is_ignored(tmp_path):
    cfg, vocab = _cfg("ctc")
    w = gdh.random_weights("ctc", cfg["hidden_size"], len(vocab), cfg["slots"], cfg["window"], cfg["ffn"], 0)
    rng = np.random.default_rng(0)
    feeds = _inputs("ctc", cfg, rng, pad=5)
    a = gdh.reference("ctc", w, cfg, feeds["hidden_states"][0], mask=feeds["hidden_mask"][0])["logits"]
    h = feeds["hidden_states"].copy()
    h[:, :5] = rng.normal(0, 5, h[:, :5].shape)
    b = gdh.reference("ctc", w, cfg, h[0], mask=feeds["hidden_mask"][0])["logits"]
    assert np.abs(a - b).max() < 1e-9


def test_eagle_is_causal():
    cfg, vocab = _cfg("eagle")
    w = gdh.random_weights("eagle", cfg["hidden_size"], len(vocab), cfg["slots"], cfg["window"], cfg["ffn"], 0)
    rng = np.random.default_rng(0)
    f = _inputs("eagle", cfg, rng, S=6)
    full = gdh.reference("eagle", w, cfg, f["hidden_states"][0], input_ids=f["input_ids"][0])
    part = gdh.reference("eagle", w, cfg, f["hidden_states"][0, :4], input_ids=f["input_ids"][0, :4])
    assert np.abs(full["logits"][:4] - part["logits"]).max() < 1e-9
    assert np.abs(full["features"][:4] - part["features"]).max() < 1e-9


@pytest.mark.skipif(not os.path.exists(os.path.join(TINY, "manifest.json")), reason="make fixtures")
@pytest.mark.parametrize("kind", gdh.KINDS)
def test_random_head_for_tiny_target(kind, tmp_path):
    man = gdh.random_head(TINY, kind, str(tmp_path), seed=0)
    with open(os.path.join(TINY, "manifest.json")) as f:
        tm = json.load(f)
    assert man["format"] == "specrt-model" and man["format_version"] == 1 and man["kind"] == "draft_head"
    h = man["head"]
    assert h["kind"] == kind and h["slots"] == gdh.DEFAULTS[kind]["slots"]
    assert h["window"] == (1 if kind == "medusa" else gdh.DEFAULTS[kind]["window"])
    assert h["blank_id"] == (h["draft_vocab_size"] if kind == "ctc" else None)
    t = man["target"]
    assert t["hidden_size"] == tm["dims"]["hidden_size"] and t["vocab_size"] == tm["dims"]["vocab_size"]
    assert t["source_sha256"] == gdh.target_source_sha256(tm) and len(t["source_sha256"]) == 64
    from export.manifest import sha256_file
    assert t["tokenizer_sha256"] == sha256_file(os.path.join(TINY, "tokenizer.json"))
    for name, digest in man["files"].items():
        assert sha256_file(os.path.join(tmp_path, name)) == digest
    assert set(man["files"]) == {"model.onnx", "model.onnx.data", "draft_vocab.json"}
    with open(os.path.join(tmp_path, "draft_vocab.json")) as f:
        vocab = json.load(f)
    assert len(vocab) == h["draft_vocab_size"] and vocab == sorted(set(vocab)) and {0, 1, 2} <= set(vocab)
    sess = _session(str(tmp_path))
    assert [i.name for i in sess.get_inputs()] == [s["name"] for s in man["graph"]["inputs"]]
    assert [o.name for o in sess.get_outputs()] == [s["name"] for s in man["graph"]["outputs"]]
    cfg = dict(gdh.DEFAULTS[kind], hidden_size=h.get("hidden_size", t["hidden_size"]))
    rng = np.random.default_rng(0)
    cfg["window"] = h["window"]
    out = sess.run(None, _inputs(kind, cfg, rng, V=t["vocab_size"]))
    last = out[-1]
    assert np.isfinite(last).all() and np.abs(last).max() < 1e3
    width = h["draft_vocab_size"] + (1 if kind == "ctc" else 0)
    assert last.shape[-1] == width


@pytest.mark.skipif(not os.path.exists(os.path.join(TINY, "manifest.json")), reason="make fixtures")
@pytest.mark.parametrize("kind", gdh.KINDS)
def test_q8_0_head_writes_every_matrix_as_the_blocks_the_engine_kernel_reads(kind, tmp_path):
    # --precision q8_0: every projection and the output head become ai.specrt::MatMulGgml over GGML Q8_0 blocks of
    # the same weights (the engine runs them, Python's onnxruntime cannot: tests/draft_heads.rs decodes with them);
    # the float export of the same seed is the negative control (no MatMulGgml, fp32 MatMuls of the same shapes).
    from export.ggml_blocks import ggml_encode
    import onnx

    # (eagle node by node here; its default one-node export is the next test's)
    man = gdh.random_head(TINY, kind, str(tmp_path / "q8"), seed=0, precision="q8_0", fused=False)
    assert man["precision"]["weights"] == "q8_0" and "MatMulGgml" in man["precision"]["notes"][0]
    model = onnx.load(os.path.join(tmp_path, "q8", "model.onnx"))
    ggml = [n for n in model.graph.node if n.op_type == "MatMulGgml"]
    assert ggml and all(n.domain == "ai.specrt" for n in ggml)
    assert any(o.domain == "ai.specrt" for o in model.opset_import)
    fp = onnx.load(os.path.join(tmp_path, "fp", "model.onnx")) if gdh.random_head(TINY, kind, str(tmp_path / "fp"), seed=0) else None
    weight_matmuls = [n for n in fp.graph.node if n.op_type == "MatMul" and n.input[1].endswith(".T")]
    assert len(weight_matmuls) == len(ggml) and not [n for n in fp.graph.node if n.op_type == "MatMulGgml"]
    # Only attention's activation x activation products stay float MatMuls.
    assert all(not n.input[1].endswith(".T") for n in model.graph.node if n.op_type == "MatMul")
    inits = {i.name: onnx.numpy_helper.to_array(i) for i in fp.graph.initializer}
    qinits = {i.name: onnx.numpy_helper.to_array(i) for i in model.graph.initializer}
    head = next(n for n in ggml if n.name == "lm_head")
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in head.attribute}
    w = inits["lm_head.weight.T"].T
    assert attrs == {"K": w.shape[1], "N": w.shape[0], "ggml_type": b"Q8_0"}
    assert np.array_equal(qinits[head.input[1]], ggml_encode(np.ascontiguousarray(w), "Q8_0"))


def test_q8_0_eagle_head_is_one_node_with_the_stacked_blocks_and_the_graph_contract(tmp_path):
    # The default q8_0 EAGLE export: one ai.specrt::EagleHeadGgml node (engine/kernels/eagle_head.rs) whose inputs
    # are the graph inputs, the draft index, the float vectors and the Q8_0 blocks of the same weights (Q|K|V and
    # gate|up stacked along N); the graph's inputs and outputs are the contract's, as the node-by-node export's
    # (the negative control: it has no EagleHeadGgml and the same interface).
    from export.ggml_blocks import ggml_encode
    import onnx

    man = gdh.random_head(TINY, "eagle", str(tmp_path / "one"), seed=0, precision="q8_0")
    assert "EagleHeadGgml" in man["precision"]["notes"][0]
    model = onnx.load(os.path.join(tmp_path, "one", "model.onnx"))
    (node,) = model.graph.node
    assert (node.op_type, node.domain) == ("EagleHeadGgml", "ai.specrt") and list(node.output) == ["features", "logits"]
    assert list(node.input[:2]) == ["hidden_states", "input_ids"] and len(node.input) == 15
    unfused_man = gdh.random_head(TINY, "eagle", str(tmp_path / "nodes"), seed=0, precision="q8_0", fused=False)
    unfused = onnx.load(os.path.join(tmp_path, "nodes", "model.onnx"))
    assert not [n for n in unfused.graph.node if n.op_type == "EagleHeadGgml"] and len(unfused.graph.node) > 40
    assert man["graph"] == unfused_man["graph"]
    assert [i.name for i in model.graph.input] == [i.name for i in unfused.graph.input]
    inits = {i.name: onnx.numpy_helper.to_array(i) for i in model.graph.initializer}
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    H, F, vd = man["target"]["hidden_size"], man["head"]["intermediate_size"], man["head"]["draft_vocab_size"]
    assert attrs["hidden"] == H and attrs["ffn"] == F and attrs["vocab"] == vd and attrs["num_heads"] == man["head"]["num_heads"]
    assert attrs["ggml_type"] == b"Q8_0" and attrs["rope_theta"] == man["head"]["rope_theta"]
    # The blocks are the node-by-node graph's, stacked: Q|K|V from its three MatMulGgml weights, lm_head as is.
    uinits = {i.name: onnx.numpy_helper.to_array(i) for i in unfused.graph.initializer}
    qkv = np.concatenate([uinits[f"{n}.weight.ggml_blocks"] for n in ("q_proj", "k_proj", "v_proj")], 0)
    assert np.array_equal(inits[node.input[8]], qkv)
    assert np.array_equal(inits[node.input[14]], uinits["lm_head.weight.ggml_blocks"])
    assert np.array_equal(inits[node.input[2]], uinits["draft_index"]) and inits[node.input[3]].shape == (vd + 1, H)
    assert inits[node.input[11]].shape[0] == 2 * F


def test_q4_1_heads_write_every_matrix_as_q4_1_blocks(tmp_path):
    # --precision q4_1: the same graphs with Q4_1 blocks (the one-node EAGLE head's ggml_type, each MatMulGgml of
    # the node-by-node one); the negative control is the q8_0 export of the same seed (other bytes, Q8_0 type).
    from export.ggml_blocks import ggml_encode
    import onnx

    man = gdh.random_head(TINY, "eagle", str(tmp_path / "q4"), seed=0, precision="q4_1")
    assert man["precision"]["weights"] == "q4_1" and "Q4_1 blocks" in man["precision"]["notes"][0]
    (node,) = onnx.load(os.path.join(tmp_path, "q4", "model.onnx")).graph.node
    assert onnx.helper.get_attribute_value(next(a for a in node.attribute if a.name == "ggml_type")) == b"Q4_1"
    nodes = onnx.load(os.path.join(tmp_path, "q4n", "model.onnx")) if gdh.random_head(
        TINY, "eagle", str(tmp_path / "q4n"), seed=0, precision="q4_1", fused=False) else None
    ggml = [n for n in nodes.graph.node if n.op_type == "MatMulGgml"]
    types = {onnx.helper.get_attribute_value(a) for n in ggml for a in n.attribute if a.name == "ggml_type"}
    assert ggml and types == {b"Q4_1"}
    fp = gdh.random_head(TINY, "eagle", str(tmp_path / "fp"), seed=0)
    fp_model = onnx.load(os.path.join(tmp_path, "fp", "model.onnx"))
    fp_inits = {i.name: onnx.numpy_helper.to_array(i) for i in fp_model.graph.initializer}
    q4_inits = {i.name: onnx.numpy_helper.to_array(i) for i in nodes.graph.initializer}
    w = np.ascontiguousarray(fp_inits["lm_head.weight.T"].T)
    assert np.array_equal(q4_inits["lm_head.weight.ggml_blocks"], ggml_encode(w, "Q4_1"))
    assert not np.array_equal(q4_inits["lm_head.weight.ggml_blocks"].ravel()[:64], ggml_encode(w, "Q8_0").ravel()[:64])
    assert fp["precision"]["weights"] == "fp32"


def test_source_sha256_rules():
    gguf = {"source": {"path": "/a/x.gguf", "format": "gguf", "files": {"x.gguf": "ab" * 32}, "source_num_layers": 30}}
    assert gdh.target_source_sha256(gguf) == "ab" * 32
    tiny = {"source": {"format": "tiny-random", "seed": 0, "files": {}, "source_num_layers": 2}}
    moved = {"source": dict(tiny["source"], path="/elsewhere")}
    assert gdh.target_source_sha256(tiny) == gdh.target_source_sha256(moved)
    assert gdh.target_source_sha256(tiny) != gdh.target_source_sha256({"source": dict(tiny["source"], seed=1)})
    # pinned: the engine computes the same bytes (sorted keys, no whitespace) for models/tiny-fp32
    assert gdh.target_source_sha256(tiny) == "43c19a6ed949c012395458a944b960fdfd3fcf4a03cd9d499f3c100351894fc4"


def test_draft_vocab_mapping():
    argmax = np.array([5, 5, 5, 7, 7, 9, 3, 3, 3, 3, 11])
    vocab = gdh.build_draft_vocab(argmax, 5, 20)
    assert vocab == [0, 1, 2, 3, 5]  # stop ids always, then the most frequent (3: 4x, 5: 3x)
    vocab = gdh.build_draft_vocab(argmax, 6, 20)
    assert vocab == [0, 1, 2, 3, 5, 7]
    idx = gdh.draft_index(vocab, 20)
    assert idx[7] == 5 and idx[9] == -1 and idx[0] == 0
    assert all(vocab[idx[t]] == t for t in vocab)
    assert gdh.coverage(np.array([3, 5, 9, 11]), vocab, 20) == 0.5


def test_ctc_labels():
    vocab = [0, 1, 2, 10, 11, 12, 13]
    idx = gdh.draft_index(vocab, 20)
    #               position: 0   1   2   3   4   5   6
    argmax = np.array([10, 11, 12, 13, 10, 11, 12])
    # at t = 0 the bonus token is argmax[0]; the label is argmax[1..4] as draft ids
    assert gdh.ctc_labels(argmax, 0, 4, idx) == [idx[11], idx[12], idx[13], idx[10]]
    assert gdh.ctc_labels(argmax, 3, 4, idx) == [idx[10], idx[11], idx[12]]  # runs off the end
    assert gdh.ctc_labels(argmax, 6, 4, idx) == []
    stop = np.array([10, 11, 2, 12, 13])
    assert gdh.ctc_labels(stop, 0, 4, idx) == [idx[11], idx[2]]  # ends after a stop token (kept)
    oov = np.array([10, 11, 15, 12])
    assert gdh.ctc_labels(oov, 0, 4, idx) == [idx[11]]  # 15 is outside the draft vocabulary
    assert gdh.ctc_min_frames([3, 3, 4]) == 4 and gdh.ctc_min_frames([3, 4, 5]) == 3
    assert gdh.ctc_collapse([7, 7, 3, 7, 4, 4, 7, 4], blank=7) == [3, 4, 4]


def test_bench_prompts_are_excluded():
    he = 'def has_close_elements(numbers: List[float], threshold: float) -> bool:\n    """ Check if in given list ' \
         'of numbers, are any two numbers closer to each other than\n    given threshold.\n    """\n'
    mt = "Compose an engaging travel blog post about a recent trip to Hawaii, highlighting cultural experiences " \
         "and must-see attractions."
    f = BenchFilter([he, mt])
    assert f.is_contaminated("# utils\n" + he + "    return False\n")
    assert f.is_contaminated(chatml(mt.upper(), "Aloha!"))  # case and whitespace do not hide it
    assert f.is_contaminated("  ".join(mt.split()))
    assert not f.is_contaminated(chatml("Write a travel blog post about Hawaii.", "Aloha!"))
    assert not f.is_contaminated("def close_elements(xs):\n    return sorted(xs)\n")


QWEN_TEMPLATE = (  # the shape of Qwen2.5's template: the tools branch splits the system turn over several literals
    "{%- if tools %}\n    {{- '<|im_start|>system\\n' }}\n    {%- if messages[0]['role'] == 'system' %}\n"
    "        {{- messages[0]['content'] }}\n    {%- else %}\n"
    "        {{- 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.' }}\n    {%- endif %}\n"
    "{%- else %}\n    {%- if messages[0]['role'] == 'system' %}\n"
    "        {{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}\n    {%- else %}\n"
    "        {{- '<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\\n' }}\n"
    "    {%- endif %}\n{%- endif %}\n")


@pytest.mark.parametrize("template,system", [
    (QWEN_TEMPLATE, "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."),
    ("{{ '<|im_start|>system\\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\\n' }}",
     "You are a helpful AI assistant named SmolLM, trained by Hugging Face"),
])
def test_default_system_prompt_is_read_from_the_target_template(template, system, tmp_path):
    # the instruction documents must carry the system turn the engine's --chat renders; a pattern that spans
    # template code (the Qwen template's "' + messages[0]['content'] + '") would silently poison them
    (tmp_path / "manifest.json").write_text(json.dumps({"chat_template": template}))
    assert default_system(str(tmp_path)) == system
    assert chatml("Hi", None, system).startswith(f"<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\nHi")


def test_a_template_without_a_default_system_prompt_is_refused(tmp_path):
    (tmp_path / "manifest.json").write_text(json.dumps({"chat_template": "{{ messages[0]['content'] }}"}))
    with pytest.raises(SystemExit, match="no default ChatML system prompt"):
        default_system(str(tmp_path))


def test_split_is_stable():
    assert split_of("alpaca_eval/0") == split_of("alpaca_eval/0")
    share = np.mean([split_of(f"doc/{i}") == "eval" for i in range(4000)])
    assert 0.03 < share < 0.07


def test_torch_matches_reference():
    torch = pytest.importorskip("torch")  # only in the training venv
    from export.train_draft_head import parity_random
    for kind in gdh.KINDS:
        assert parity_random(kind) < 1e-4, kind
    del torch


SMOL = os.path.join(ROOT, "models", "smollm2-135m-instruct-int4")


@pytest.mark.smollm2
@pytest.mark.parametrize("kind", gdh.KINDS)
def test_trained_head_exports_and_matches_reference(kind, tmp_path):
    """The committed recipe output exports with .venv only, binds to the int4 target, and the graph equals the
    numpy reference on the trained weights."""
    folder = os.path.join(ROOT, "export", "trained", f"smollm2-{kind}-head")
    if not os.path.exists(os.path.join(folder, "MANIFEST.json")):
        pytest.skip(f"{folder} not trained yet")
    if not os.path.exists(os.path.join(SMOL, "manifest.json")):
        if os.environ.get("SPECRT_REQUIRE_REAL"):
            pytest.fail("make fixtures")
        pytest.skip("make fixtures")

    class A:
        path, target, out, random, no_check, precision = folder, SMOL, str(tmp_path), False, False, "fp32"
    gdh.main_export(A)
    with open(os.path.join(tmp_path, "manifest.json")) as f:
        man = json.load(f)
    _, w, cfg, vocab, rec = gdh.read_trained(folder)
    assert man["target"] == gdh.read_target(SMOL) == rec["target"]
    assert man["head"]["draft_vocab_size"] == len(vocab) and man["draft_vocab"]["coverage"] > 0.8
    cfg["index"] = gdh.draft_index(vocab, man["target"]["vocab_size"])
    cfg["draft_vocab_size"] = len(vocab)
    rng = np.random.default_rng(0)
    feeds = _inputs(kind, cfg, rng, V=man["target"]["vocab_size"], S=6, pad=2)
    sess = _session(str(tmp_path))
    outs = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))
    ref = gdh.reference(kind, w, cfg, feeds["hidden_states"][0], mask=feeds.get("hidden_mask", [None])[0],
                        input_ids=feeds.get("input_ids", [None])[0])
    for name, r in ref.items():
        r = _graph_rows(kind, r)
        assert outs[name][0].shape == r.shape, (name, outs[name][0].shape, r.shape)
        assert np.abs(outs[name][0] - r).max() < 1e-4 * max(1.0, np.abs(r).max()), name


@pytest.mark.skipif(not os.path.exists(os.path.join(TINY, "manifest.json")), reason="make fixtures")
def test_target_rows_eagle_takes_its_embedding_and_output_rows_from_the_target(tmp_path):
    """An EAGLE head trained with --target-rows stores no embedding or output rows; reading it needs the target,
    and the export then holds the target's own rows of the draft vocabulary (fp16-rounded, as the cache holds
    them), the embedding's UNK row their mean, and still equals the numpy reference."""
    from safetensors.numpy import save_file

    tgt = gdh.read_target(TINY)
    H, V = tgt["hidden_size"], tgt["vocab_size"]
    rows_all, fnorm = gdh.target_head_rows(TINY)
    vocab = sorted(set(range(0, V, 3)) | set(gdh.STOP_IDS))[:96]
    cfg = dict(gdh.DEFAULTS["eagle"], hidden_size=H, heads=4, ffn=2 * H, target_rows=list(gdh.TARGET_ROWS))
    w = gdh.random_weights("eagle", H, len(vocab), cfg["slots"], cfg["window"], cfg["ffn"], 0, rows_all[vocab], fnorm)
    folder = tmp_path / "trained"
    folder.mkdir()
    save_file({k: v.astype(np.float16) for k, v in w.items() if k not in gdh.TARGET_ROWS},
              str(folder / "model.safetensors"))
    (folder / "draft_vocab.json").write_text(json.dumps(vocab))
    man = {"head": {"kind": "eagle"}, "architecture": cfg, "target": tgt, "draft_vocab": {"coverage": 0.9},
           "training": {"steps_done": 0, "wall_seconds": 0.0}}
    (folder / "MANIFEST.json").write_text(json.dumps(man))
    with pytest.raises(ValueError, match="--target-rows"):
        gdh.read_trained(str(folder))  # negative control: without the target the rows are missing
    _, got, _, _, _ = gdh.read_trained(str(folder), TINY)
    expect = rows_all.astype(np.float16).astype(np.float32)[vocab]
    assert np.array_equal(got["lm_head.weight"], expect)
    assert np.array_equal(got["embed.weight"][:-1], expect)
    assert np.allclose(got["embed.weight"][-1], expect.mean(0))

    class A:
        path, target, out, random, no_check, precision = str(folder), TINY, str(tmp_path / "out"), False, False, "fp32"
    gdh.main_export(A)
    cfg_x = dict(cfg, index=gdh.draft_index(vocab, V), draft_vocab_size=len(vocab))
    feeds = _inputs("eagle", cfg_x, np.random.default_rng(0), V=V, S=6)
    sess = _session(A.out)
    outs = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))
    ref = gdh.reference("eagle", got, cfg_x, feeds["hidden_states"][0], input_ids=feeds["input_ids"][0])
    for name, r in ref.items():
        r = _graph_rows("eagle", r)
        assert np.abs(outs[name][0] - r).max() < 1e-4 * max(1.0, np.abs(r).max()), name


def test_self_distill_needs_the_engine_and_its_config_together():
    # bad flags are a clear argparse error (exit 2), before any data is fetched
    import pytest

    from export import head_data

    for argv in (["self-distill", "--engine", "target/release/specrt"], ["self-distill", "--engine-config", "x.yaml"]):
        with pytest.raises(SystemExit) as e:
            head_data.main(argv)
        assert e.value.code == 2

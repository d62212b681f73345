"""Tiny random model: ONNX graph (run exactly as the engine runs it) vs the numpy reference.

Tolerances: fp32 and int8/int4 with accuracy_level 0 must match the float32 reference within 1e-4 absolute
on logits of magnitude ~10 (observed ~1e-5: only summation order differs). accuracy_level 4 quantizes
activations to int8, so it is only checked loosely (argmax agreement, 10% of the logit scale).
"""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from export.ort_runner import OrtDecoder
from export.reference_numpy import ReferenceDecoder

from .helpers import quantize_checkpoint, tree_bias, tree_depths

ATOL = 1e-4
PROMPT = [40, 71, 300, 5, 17, 99, 256, 3, 120]


def _prompt_and_steps(dec, ref, steps=(7, 200, 33, 380, 2)):
    """Prefill PROMPT then decode `steps` one token at a time; yields (ort logits, ref logits) per call."""
    P = len(PROMPT)
    yield dec.forward(PROMPT, np.arange(P), 0), ref.forward(PROMPT, np.arange(P), 0)
    for t in steps:
        yield dec.forward([t], [P], P), ref.forward([t], [P], P)
        P += 1


@pytest.mark.parametrize("precision", ["fp32", "int8", "int4"])
def test_prompt_and_decode_match_reference(tiny_export, precision):
    out, _, res = tiny_export(precision, 0)
    dec, ref = OrtDecoder(out, capacity=64), ReferenceDecoder(res.effective, capacity=64)
    for a, b in _prompt_and_steps(dec, ref):
        np.testing.assert_allclose(a, b, atol=ATOL, rtol=0)
    # the shared buffer holds exactly the reference's cache
    n = len(PROMPT) + 5
    for i in range(len(dec.k)):
        np.testing.assert_allclose(dec.k[i][0, :, :n], ref.k_cache[i][:, :n], atol=1e-5)
        np.testing.assert_allclose(dec.v[i][0, :, :n], ref.v_cache[i][:, :n], atol=1e-5)


@pytest.mark.parametrize("precision", ["int8", "int4"])
def test_accuracy_level_4_close(tiny_export, precision):
    out, _, res = tiny_export(precision, 4)
    dec, ref = OrtDecoder(out, capacity=64), ReferenceDecoder(res.effective, capacity=64)
    for a, b in _prompt_and_steps(dec, ref):
        scale = np.abs(b).max()
        assert np.abs(a - b).max() < 0.1 * scale
        assert np.mean(a.argmax(-1) == b.argmax(-1)) >= 0.8


def test_new_kv_lands_in_slots_p_to_p_plus_s(tiny_export):
    """Past and present are one buffer: slots P..P+S-1 get the new K/V, nothing else changes."""
    out, _, res = tiny_export("fp32", 0)
    dec, ref = OrtDecoder(out, capacity=40), ReferenceDecoder(res.effective, capacity=40)
    P = len(PROMPT)
    dec.forward(PROMPT, np.arange(P), 0)
    ref.forward(PROMPT, np.arange(P), 0)
    for a in dec.k + dec.v:
        a[:, :, P:] = 7.0  # sentinel in every slot past the context
    before = [a.copy() for a in dec.k + dec.v]
    new = [11, 12, 13]
    dec.forward(new, np.arange(P, P + 3), P)
    ref.forward(new, np.arange(P, P + 3), P)
    for i, a in enumerate(dec.k + dec.v):
        np.testing.assert_array_equal(a[:, :, :P], before[i][:, :, :P])  # context untouched
        np.testing.assert_array_equal(a[:, :, P + 3:], before[i][:, :, P + 3:])  # slots after untouched
        cache = (ref.k_cache if i < len(dec.k) else ref.v_cache)[i % len(dec.k)]
        np.testing.assert_allclose(a[0, :, P:P + 3], cache[:, P:P + 3], atol=1e-5)


def test_tree_verify_equals_sequential_paths_and_compaction(tiny_export):
    out, _, _ = tiny_export("fp32", 0)
    #            0   1  2  3  4   5  6   7
    parents = [-1, 0, 0, 1, 2, -1, 5, 3]
    tokens = [30, 31, 32, 33, 34, 35, 36, 37]
    P = len(PROMPT)
    dec = OrtDecoder(out, capacity=64)
    dec.forward(PROMPT, np.arange(P), 0)
    pos = P + np.array(tree_depths(parents))
    tree_logits = dec.forward(tokens, pos, P, bias=tree_bias(parents, P))
    seq = OrtDecoder(out, capacity=64)
    seq.forward(PROMPT, np.arange(P), 0)
    for node in range(len(parents)):
        path = []
        j = node
        while j != -1:
            path.insert(0, j)
            j = parents[j]
        for d, n in enumerate(path):  # decode the path token by token from P (rollback between paths)
            logits = seq.forward([tokens[n]], [P + d], P + d)
        np.testing.assert_allclose(tree_logits[node], logits[0], atol=ATOL, rtol=0)
    # accept path 0 -> 1 -> 3 -> 7: copy those rows down to P.. and keep decoding
    accepted = [0, 1, 3, 7]
    dec.compact([P + n for n in accepted], P)
    nxt = 50
    got = dec.forward([nxt], [P + 4], P + 4)
    for d, n in enumerate(accepted):
        seq.forward([tokens[n]], [P + d], P + d)
    want = seq.forward([nxt], [P + 4], P + 4)
    np.testing.assert_allclose(got, want, atol=ATOL, rtol=0)


@pytest.mark.parametrize("precision", ["fp32", "int4"])
def test_k_token_forward_equals_single_steps_at_accuracy_0(tiny_export, precision):
    """The exact mode: a k-token verify forward gives the logits of k single-token decode steps.
    (With accuracy_level 4 this does NOT hold: SmolLM2 rows differ by up to ~1.4 and argmax can flip.)"""
    out, _, _ = tiny_export(precision, 0)
    P, new = len(PROMPT), [11, 222, 33, 300, 5, 6]
    dec = OrtDecoder(out, capacity=32)
    dec.forward(PROMPT, np.arange(P), 0)
    k_rows = dec.forward(new, np.arange(P, P + 6), P)
    singles = np.concatenate([dec.forward([t], [P + i], P + i) for i, t in enumerate(new)])
    np.testing.assert_allclose(k_rows, singles, atol=ATOL, rtol=0)


def test_rollback_equals_fresh_run(tiny_export):
    out, _, _ = tiny_export("fp32", 0)
    P = len(PROMPT)
    dec = OrtDecoder(out, capacity=64)
    dec.forward(PROMPT, np.arange(P), 0)
    for i, t in enumerate([5, 6, 7, 8, 9]):  # write slots P..P+4
        dec.forward([t], [P + i], P + i)
    got = dec.forward([100, 101], [P + 2, P + 3], P + 2)  # roll back to P+2 and take another branch
    fresh = OrtDecoder(out, capacity=64)
    want = fresh.forward(PROMPT + [5, 6, 100, 101], np.arange(P + 4), 0)[-2:]
    np.testing.assert_allclose(got, want, atol=ATOL, rtol=0)


def test_logits_indices_and_hidden_states(tiny_export):
    out, manifest, res = tiny_export("fp32", 0, hidden_states=True)
    assert manifest["hidden_states"] is True
    assert manifest["graph"]["outputs"][-1] == {"name": "hidden_states", "dtype": "float32",
                                                "shape": ["batch", "seq", 64]}
    dec, ref = OrtDecoder(out, capacity=32), ReferenceDecoder(res.effective, capacity=32)
    P = len(PROMPT)
    logits, hidden = dec.forward(PROMPT, np.arange(P), 0, logits_indices=[P - 1, 2], return_hidden=True)
    want, want_h = ref.forward(PROMPT, np.arange(P), 0, return_hidden=True)
    assert logits.shape == (2, 384)
    np.testing.assert_allclose(logits, want[[P - 1, 2]], atol=ATOL, rtol=0)
    np.testing.assert_allclose(hidden, want_h, atol=ATOL, rtol=0)


def test_keep_layers_drafter(tiny_export):
    out, manifest, res = tiny_export("fp32", 0, layers=1)
    assert manifest["layers_kept"] == 1 and manifest["dims"]["num_layers"] == 1
    assert len(res.effective.layers) == 1
    dec, ref = OrtDecoder(out, capacity=32), ReferenceDecoder(res.effective, capacity=32)
    assert len(dec.k) == 1
    for a, b in _prompt_and_steps(dec, ref, steps=(4, 5)):
        np.testing.assert_allclose(a, b, atol=ATOL, rtol=0)


def test_greedy_is_not_degenerate_and_matches_reference(tiny_export):
    out, _, res = tiny_export("fp32", 0)
    ort_tokens = OrtDecoder(out, capacity=128).greedy(PROMPT, 64)
    ref_tokens = ReferenceDecoder(res.effective, capacity=128).greedy(PROMPT, 64)
    assert ort_tokens == ref_tokens
    assert len(set(ort_tokens)) >= 24, ort_tokens


@pytest.mark.parametrize("mtype,bits", [("Q4_0", 4), ("Q4_1", 4), ("Q4_1", 8), ("Q4_0", 8)])
def test_exact_conversion_from_ggml_blocks(tmp_path, tiny_ck, mtype, bits):
    """GGML Q4_0/Q4_1 matrices + a Q8_0 embedding convert bit-exactly (Q4_1 via the offset term)."""
    from export.checkpoint import as_float
    from export.pipeline import export_checkpoint

    qck = quantize_checkpoint(tiny_ck, mtype)
    manifest, res = export_checkpoint(qck, str(tmp_path), precision=f"int{bits}", accuracy_level=0)
    assert manifest["precision"]["exact_conversion"] is True
    assert manifest["precision"]["requantized"] == []
    for L, E in zip(qck.layers, res.effective.layers):
        np.testing.assert_array_equal(E.q, as_float(L.q))
        np.testing.assert_array_equal(E.down, as_float(L.down))
    np.testing.assert_array_equal(res.effective.lm_head, as_float(qck.lm_head))
    dec, ref = OrtDecoder(str(tmp_path), capacity=32), ReferenceDecoder(qck, capacity=32)
    for a, b in _prompt_and_steps(dec, ref, steps=(8, 9)):
        np.testing.assert_allclose(a, b, atol=ATOL, rtol=0)


def test_requantized_weights_report_error(tiny_export):
    _, manifest, _ = tiny_export("int4", 0)
    rq = manifest["precision"]["requantized"]
    assert rq and all(0 < r["max_abs"] and r["rel_rms"] < 0.2 for r in rq)
    assert any("re-quantized" in n for n in manifest["precision"]["notes"])


def test_fp16_export_builds_and_passes_shape_inference(tiny_export):
    """fp16 is for GPUs; here we only require onnx.checker + strict shape inference (done by the exporter)."""
    out, manifest, _ = tiny_export("fp16", 0)
    assert manifest["kv_cache"]["dtype"] == "float16"
    kinds = {i["name"]: i["dtype"] for i in manifest["graph"]["inputs"]}
    assert kinds["past_key.0"] == "float16" and kinds["attention_bias"] == "float32"


def test_manifest_contract(tiny_export):
    out, manifest, _ = tiny_export("fp32", 0)
    with open(os.path.join(out, "manifest.json")) as f:
        m = json.load(f)
    assert m == json.loads(json.dumps(manifest))
    assert m["format"] == "specrt-model" and m["format_version"] == 1 and m["kind"] == "decoder"
    assert m["tokens"]["stop_ids"] == [0, 2] and m["tokens"]["add_bos"] is False
    assert "<|im_start|>" in m["chat_template"]
    names = [i["name"] for i in m["graph"]["inputs"]]
    assert names[:6] == ["input_ids", "position_ids", "attention_bias", "seqlens_k", "total_sequence_length",
                         "logits_indices"]
    assert names[6:] == ["past_key.0", "past_value.0", "past_key.1", "past_value.1"]
    assert m["graph"]["inputs"][2]["shape"] == ["batch", 1, "seq", "past_plus_seq"]
    assert m["graph"]["inputs"][4]["shape"] == []
    assert m["graph"]["outputs"][0] == {"name": "logits", "dtype": "float32", "shape": ["batch", "rows", 384]}
    assert set(m["files"]) == {"model.onnx", "model.onnx.data", "tokenizer.json"}
    # the graph's declared I/O is the manifest's
    import onnx

    g = onnx.load(os.path.join(out, "model.onnx"), load_external_data=False).graph
    assert [i.name for i in g.input] == names
    assert [o.name for o in g.output] == [o["name"] for o in m["graph"]["outputs"]]


def test_tiny_is_deterministic(tiny_ck):
    from export.tiny import tiny_checkpoint

    again = tiny_checkpoint(seed=0)
    np.testing.assert_array_equal(again.embed, tiny_ck.embed)
    assert again.tokenizer_json == tiny_ck.tokenizer_json
    assert not np.array_equal(tiny_checkpoint(seed=1).embed, tiny_ck.embed)

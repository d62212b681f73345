"""`--linear-kernel ggml`: the exporter writes the GGUF's Q4_0/Q4_1/Q8_0 blocks verbatim into ai.specrt::MatMulGgml
nodes (the engine's batch-invariant kernel, engine/kernels/), falls back to MatMulNBits for anything else, and says
so in the manifest. The numerics are tested in Rust (engine/kernels unit tests, tests/ggml_kernel.rs): Python's
onnxruntime does not know the operator."""
from __future__ import annotations

import numpy as np
import pytest

from export.graph_decoder import SPECRT, build_decoder
from export.tiny import tiny_checkpoint

from .helpers import quantize_checkpoint


def _ops(model, op_type):
    return [n for n in model.graph.node if n.op_type == op_type]


def _inits(model):
    from onnx import numpy_helper
    return {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}


@pytest.mark.parametrize("matrix_type", ["Q4_0", "Q4_1", "Q8_0"])
def test_ggml_blocks_are_written_verbatim(matrix_type):
    ck = quantize_checkpoint(tiny_checkpoint(seed=3, layers=2), matrix_type, embed_type="Q8_0")
    res = build_decoder(ck, precision="int4", linear_kernel="ggml")
    nodes = _ops(res.model, "MatMulGgml")
    # per layer: q|k|v, o, gate|up, down; plus the LM head (tied Q8_0 embedding)
    assert len(nodes) == 4 * 2 + 1
    assert not _ops(res.model, "MatMulNBits")
    assert all(n.domain == SPECRT for n in nodes)
    assert SPECRT in {o.domain for o in res.model.opset_import}
    inits = _inits(res.model)
    L0 = ck.layers[0]
    qkv = next(n for n in nodes if n.name.startswith("layers.0.") and "qkv" in n.name)
    blob = inits[qkv.input[1]]
    want = np.concatenate([w.blocks.reshape(w.shape[0], -1) for w in (L0.q, L0.k, L0.v)])
    np.testing.assert_array_equal(blob, want)  # the file's bytes, not a re-packing
    attrs = {a.name: a for a in qkv.attribute}
    assert attrs["ggml_type"].s.decode() == matrix_type
    assert attrs["K"].i == L0.q.shape[1] and attrs["N"].i == want.shape[0]
    assert res.precision["linear_kernel"] == "ggml" and res.precision["exact_conversion"]
    # the effective weights the manifest's checks use are the blocks' own dequantization
    np.testing.assert_array_equal(res.effective.layers[0].o, L0.o.dequantize())


def test_weights_the_kernel_cannot_take_fall_back_to_matmulnbits():
    # A float checkpoint has no GGML blocks: every projection stays MatMulNBits (re-quantized) and no custom
    # domain is imported; the default kernel never writes MatMulGgml.
    ck = tiny_checkpoint(seed=3, layers=2)
    res = build_decoder(ck, precision="int4", linear_kernel="ggml")
    assert not _ops(res.model, "MatMulGgml") and _ops(res.model, "MatMulNBits")
    assert SPECRT not in {o.domain for o in res.model.opset_import}
    q = quantize_checkpoint(ck, "Q4_1")
    assert not _ops(build_decoder(q, precision="int4").model, "MatMulGgml")
    with pytest.raises(ValueError, match="linear_kernel"):
        build_decoder(q, precision="int4", linear_kernel="cublas")


def test_attention_kernel_specrt_keeps_the_gqa_node_contract():
    ck = quantize_checkpoint(tiny_checkpoint(seed=3, layers=2), "Q4_1")
    gqa = build_decoder(ck, precision="int4", linear_kernel="ggml")
    ours = build_decoder(ck, precision="int4", linear_kernel="ggml", attention_kernel="specrt")
    a, b = _ops(gqa.model, "GroupQueryAttention"), _ops(ours.model, "BatchInvariantAttention")
    assert len(a) == len(b) == 2 and not _ops(ours.model, "GroupQueryAttention")
    for x, y in zip(a, b):
        # same inputs, outputs and attributes: the engine's op is a drop-in for GroupQueryAttention
        assert list(x.input) == list(y.input) and list(x.output) == list(y.output)
        assert {t.name: t.i for t in x.attribute} == {t.name: t.i for t in y.attribute}
        assert y.domain == SPECRT
    assert ours.precision["attention_kernel"] == "specrt" and gqa.precision["attention_kernel"] == "gqa"
    # the float export can use it too (its numerics are then batch-invariant in the engine)
    f = build_decoder(tiny_checkpoint(seed=3, layers=2), precision="fp32", attention_kernel="specrt")
    assert _ops(f.model, "BatchInvariantAttention") and SPECRT in {o.domain for o in f.model.opset_import}
    with pytest.raises(ValueError, match="attention_kernel"):
        build_decoder(ck, precision="int4", attention_kernel="flash")


@pytest.mark.parametrize("ggml_type", ["Q4_K", "Q6_K", "Q4_0", "Q4_1", "Q8_0"])
def test_the_block_encoder_writes_the_layout_gguf_py_reads(ggml_type):
    # gguf-py's dequantize implements llama.cpp's dequantize_row_*: the encoder's bytes must decode to the
    # weights they encode (round-to-nearest error only), so fixtures built from them are real GGML blocks
    import gguf

    from export.ggml_blocks import ggml_encode
    w = (np.random.default_rng(4).standard_normal((6, 512)) * 0.05).astype(np.float32)
    blocks = ggml_encode(w, ggml_type)
    back = gguf.quants.dequantize(blocks, gguf.GGMLQuantizationType[ggml_type]).reshape(w.shape)
    bits = {"Q4_K": 4, "Q6_K": 6, "Q4_0": 4, "Q4_1": 4, "Q8_0": 8}[ggml_type]
    assert np.abs(back - w).max() < np.abs(w).max() * 2.0 ** (2 - bits)
    # negative control: a shifted byte decodes to something else
    bad = blocks.copy()
    bad[:, 20] ^= 0x11
    assert not np.array_equal(gguf.quants.dequantize(bad, gguf.GGMLQuantizationType[ggml_type]), back.reshape(-1))


def test_k_quants_are_written_verbatim_and_mixed_groups_split_by_type():
    # Q4_K_M mixes types inside q|k|v (attn_v in Q6_K on every other layer): one node per type run + Concat,
    # each node the file's bytes.
    from export.tiny import as_q4_k_m
    ck = as_q4_k_m(tiny_checkpoint(seed=2, layers=2, hidden=256, ffn=512, head_dim=64))
    res = build_decoder(ck, precision="int4", linear_kernel="ggml")
    nodes = _ops(res.model, "MatMulGgml")
    types = {n.name: next(a.s.decode() for a in n.attribute if a.name == "ggml_type") for n in nodes}
    assert sorted(types.values()).count("Q6_K") == 3 and not _ops(res.model, "MatMulNBits")
    concat = [n for n in _ops(res.model, "Concat") if n.name.startswith("layers.0.")]
    assert len(concat) == 1 and len(concat[0].input) == 2
    inits = _inits(res.model)
    L0 = ck.layers[0]
    parts = [n for n in nodes if n.name.startswith("layers.0.") and "qkv" in n.name]
    assert [types[n.name] for n in parts] == ["Q4_K", "Q6_K"]
    np.testing.assert_array_equal(inits[parts[0].input[1]], np.concatenate([L0.q.blocks, L0.k.blocks]))
    np.testing.assert_array_equal(inits[parts[1].input[1]], L0.v.blocks)
    assert res.precision["exact_conversion"]
    np.testing.assert_array_equal(res.effective.layers[0].v, L0.v.dequantize())
    # the K-quant encoder refuses in-features that are no whole number of 256-weight super-blocks
    with pytest.raises(ValueError, match="divisible by 256"):
        as_q4_k_m(tiny_checkpoint(seed=2, layers=1))


def test_an_fp16_kv_cache_under_float32_activations_needs_the_engine_attention():
    from onnx import TensorProto
    ck = quantize_checkpoint(tiny_checkpoint(seed=3, layers=2), "Q4_1")
    res = build_decoder(ck, precision="int4", linear_kernel="ggml", attention_kernel="specrt", kv_dtype="fp16")
    assert len(_ops(res.model, "BatchInvariantAttentionF16Kv")) == 2 and not _ops(res.model, "BatchInvariantAttention")
    kv = [t for t in list(res.model.graph.input) + list(res.model.graph.output) if "_key." in t.name or "_value." in t.name]
    assert kv and all(t.type.tensor_type.elem_type == TensorProto.FLOAT16 for t in kv)
    assert res.precision["kv_dtype"] == "float16"
    logits = next(t for t in res.model.graph.output if t.name == "logits")
    assert logits.type.tensor_type.elem_type == TensorProto.FLOAT  # activations stay float32
    # ONNX Runtime's GroupQueryAttention takes the cache in the activations' type: refused, with the reason
    with pytest.raises(ValueError, match="attention_kernel specrt"):
        build_decoder(ck, precision="int4", kv_dtype="fp16")
    assert build_decoder(ck, precision="int4").precision["kv_dtype"] == "float32"


def test_a_space_adapter_runs_inside_matmulggml_as_q8_0_factors():
    # SPACE's mask-only adapter on the engine kernels: inputs 3-5 of each MatMulGgml (A and B^T as Q8_0 blocks,
    # B^T re-laid column block by column block, and the bool mask-row flags), none of the four float nodes per
    # projection; the MatMulNBits export keeps the float path (negative control).
    from export.ggml_blocks import ggml_encode
    from export.graph_decoder import lowrank_up_blocks
    from export.tiny import tiny_mask_row

    ck = quantize_checkpoint(tiny_checkpoint(seed=3, layers=2), "Q4_1", embed_type="Q8_0")
    cfg, rng, r = ck.config, np.random.default_rng(0), 4
    H, F = cfg.hidden_size, cfg.intermediate_size
    q_out, kv_out = cfg.num_heads * cfg.head_dim, cfg.num_kv_heads * cfg.head_dim
    shapes = {"qkv": (H, q_out + 2 * kv_out), "o": (q_out, H), "gate_up": (H, 2 * F), "down": (F, H)}
    lowrank = [{p: (rng.standard_normal((i, r)).astype(np.float32), rng.standard_normal((r, o)).astype(np.float32))
                for p, (i, o) in shapes.items()} for _ in range(2)]
    row = tiny_mask_row(H)
    res = build_decoder(ck, precision="int4", linear_kernel="ggml", mask_row=row, lowrank=lowrank)
    nodes = [n for n in _ops(res.model, "MatMulGgml") if not n.name.startswith("lm_head")]
    adapted = [n for n in nodes if len(n.input) == 6]
    assert len(adapted) == 8 and len(nodes) == 8, [n.name for n in nodes]
    assert not [n for n in res.model.graph.node if "/space/" in n.name], "the float low-rank nodes are gone"
    inits = _inits(res.model)
    qkv = next(n for n in adapted if n.name.startswith("layers.0.") and "qkv" in n.name)
    assert qkv.input[2] == ""  # no column selection
    a_t, b_t = lowrank[0]["qkv"]
    np.testing.assert_array_equal(inits[qkv.input[3]], ggml_encode(np.ascontiguousarray(a_t.T), "Q8_0"))
    up = inits[qkv.input[4]]
    assert up.shape == (b_t.shape[1] // 32, r * 34)
    rows_major = ggml_encode(b_t, "Q8_0").reshape(r, -1, 34)
    np.testing.assert_array_equal(up[1, 34 * 2:34 * 3], rows_major[2, 1])  # block (j = 2, column block 1)
    gate = next(n for n in res.model.graph.node if n.output[0] == qkv.input[5])
    assert gate.op_type == "Equal"  # bool, straight from input_ids == mask id
    assert any("MatMulGgml" in note and "mask-token rows" in note for note in res.notes)
    with pytest.raises(ValueError, match="multiple of 32"):
        lowrank_up_blocks(np.zeros((4, 40), np.float32))
    # negative control: the MatMulNBits export of the same adapter keeps the float gated path
    plain = build_decoder(ck, precision="int4", mask_row=row, lowrank=lowrank)
    assert [n for n in plain.model.graph.node if n.name.endswith("/space/Add")]

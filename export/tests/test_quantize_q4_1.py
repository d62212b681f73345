"""The ways of running GGML Q4_1 (d*q + m per 32-block) in MatMulNBits that export/bench_q4_1.py measures: each
exact form equals d*q + m, the lossy integer zero point does not, and rewriting an exported folder keeps its
logits (tiny shapes, float activations; the speed itself is a benchmark, never a test)."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from export import bench_q4_1 as bq
from export.ort_runner import OrtDecoder
from export.reference_numpy import ReferenceDecoder

from .helpers import quantize_checkpoint


def _blocks(seed=0, n=24, k=96):
    w = bq.random_q4_1(np.random.default_rng(seed), n, k)
    w["d"][0, 0] = 0.0  # a constant block (GGML writes d = 0 when max == min): must stay exact
    return w


def _eff(w):
    n, nb, _ = w["q"].shape
    return (w["d"][..., None].astype(np.float64) * w["q"] + w["m"][..., None]).reshape(n, nb * 32)


def test_float_zero_point_is_q4_1():
    w = _blocks()
    scale, zp, flat = bq.q4_1_float_zero_point(w["d"], w["m"])
    q = np.where(flat[..., None], 0, w["q"])
    got = (scale[..., None] * (q - zp[..., None])).reshape(_eff(w).shape)
    np.testing.assert_allclose(got, _eff(w), rtol=1e-5, atol=1e-7)
    # negative control: the opposite sign of the zero point (+m/d) is not Q4_1
    wrong = (scale[..., None] * (q + zp[..., None])).reshape(_eff(w).shape)
    assert np.abs(wrong - _eff(w)).max() > 0.01


def _run(variant, w, x, acc=0):
    g, inits = [], []
    y = bq.projection(g, inits, "x", "p", w, variant, acc=acc)
    n, nb, _ = w["q"].shape
    graph = helper.make_graph(g, "t", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, "M", nb * 32])],
                              [helper.make_tensor_value_info(y, TensorProto.FLOAT, [1, "M", n])], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid(bq.MS, 1)])
    model.ir_version = 10
    onnx.checker.check_model(model)
    return bq._session(model, 1).run(None, {"x": x})[0][0], len(g)


@pytest.mark.parametrize("variant,nodes", [("float-zp", 1), ("offset", 5), ("blocksum-rows", 4)])
def test_exact_forms_match_q4_1_in_onnxruntime(variant, nodes):
    w = _blocks(1)
    x = np.random.default_rng(2).standard_normal((1, 3, 96)).astype(np.float32)
    y, n_nodes = _run(variant, w, x)
    ref = x[0].astype(np.float64) @ _eff(w).T
    assert n_nodes == nodes
    np.testing.assert_allclose(y, ref, rtol=0, atol=1e-4 * np.abs(ref).max())


def test_integer_zero_point_is_not_q4_1():
    """Negative control for the parity above: rounding -m/d to an integer code (what uint8 zero points allow)."""
    w = _blocks(1)
    x = np.random.default_rng(2).standard_normal((1, 3, 96)).astype(np.float32)
    y, _ = _run("uint8-zp", w, x)
    ref = x[0].astype(np.float64) @ _eff(w).T
    assert np.abs(y - ref).max() > 1e-2 * np.abs(ref).max()


@pytest.mark.parametrize("mode", ["float-zp", "blocksum-rows"])
def test_variant_rewrite_keeps_the_exported_model(tmp_path, tiny_ck, mode):
    from export.pipeline import export_checkpoint

    qck = quantize_checkpoint(tiny_ck, "Q4_1")
    src, dst = tmp_path / "offset", tmp_path / mode
    export_checkpoint(qck, str(src), precision="int4", accuracy_level=0)
    assert bq.make_variant(str(src), str(dst), mode) == 2 * 4  # qkv, o, gate_up, down per layer
    g = onnx.load(str(dst / "model.onnx"), load_external_data=False).graph
    assert not [n for n in g.node if n.op_type == "ReduceSum" or n.name.endswith(("_proj/BlockSum", "_proj/AddOffset"))]
    ref = ReferenceDecoder(qck, capacity=32)
    dec = OrtDecoder(str(dst), capacity=32)
    ids = [40, 71, 300, 5, 17]
    np.testing.assert_allclose(dec.forward(ids, np.arange(5), 0), ref.forward(ids, np.arange(5), 0), atol=1e-4, rtol=0)
    # a folder without offset terms is refused instead of copied unchanged
    with pytest.raises(SystemExit, match="no Q4_1 offset terms"):
        bq.make_variant(str(dst), str(tmp_path / "again"), mode)

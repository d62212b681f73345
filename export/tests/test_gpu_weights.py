"""gpu.safetensors (export/gpu_weights.py) and the CUDA-math reference (export/gpu_reference.py) on tiny models.

What is checked and why the tolerances are what they are:
- layout: names, shapes, dtypes, metadata and the manifest entry are exactly the contract; fused tensors equal
  the checkpoint's q|k|v and gate|up rounded to float16 bit for bit.
- parity: NumpyGpuReference (float16 weights widened to float32) vs the ONNX graph of the SAME float16-rounded
  weights run with onnxruntime as the engine runs it: 1e-3 absolute on logits of magnitude ~10 (observed ~1e-5;
  only summation order differs). Against the original float32 export the float16
  rounding itself shows (observed ~3e-2 over prefill + 5 steps), so that comparison is loose (0.15) plus greedy
  agreement.
- negative controls: the same parity check on files with k/v swapped, gate/up swapped, or q rows in llama.cpp's
  interleaved order must FAIL by a wide margin, so the parity test can catch a layout bug.
- the dims check names exactly the mismatching key, and a failed run changes nothing in the folder.
- torch: TorchGpuReference equals NumpyGpuReference within 1e-4 (in-process when torch imports, and through the
  CLI with the repo's torch venv .cache/venv-train when it exists; skipped otherwise).
"""
from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from export.__main__ import main as export_main
from export.gpu_reference import NumpyGpuReference
from export.gpu_reference import main as reference_main
from export.gpu_weights import INT_KEYS, read_safetensors, write_gpu_weights, write_safetensors
from export.manifest import sha256_file
from export.ort_runner import OrtDecoder
from export.pipeline import export_checkpoint
from export.reference_numpy import ReferenceDecoder
from export.tiny import tiny_checkpoint

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ATOL = 1e-3
PROMPTS = [[40, 71, 300, 5, 17, 99, 256, 3, 120], [1, 2, 3], [260, 7, 7, 7, 150, 383]]
STEPS = (7, 200, 33, 380, 2)


def _f16(w):
    return np.asarray(w, np.float32).astype(np.float16).astype(np.float32)


def f16_rounded(ck):
    """Copy of a float checkpoint whose matrices are rounded to float16 (norms/biases stay float32): the
    weights gpu.safetensors holds, in a form the ONNX exporter and ReferenceDecoder take."""
    layers = [dataclasses.replace(L, q=_f16(L.q), k=_f16(L.k), v=_f16(L.v), o=_f16(L.o), gate=_f16(L.gate),
                                  up=_f16(L.up), down=_f16(L.down)) for L in ck.layers]
    return dataclasses.replace(ck, layers=layers, embed=_f16(ck.embed),
                               lm_head=None if ck.lm_head is None else _f16(ck.lm_head))


def run_pair(a, b, prompt, steps=STEPS):
    """Prefill `prompt` then decode `steps` on two decoders (forward(ids, positions, past) or forward(ids, past));
    returns the largest absolute logit difference over all rows."""
    def fwd(dec, ids, P):
        if isinstance(dec, NumpyGpuReference) or type(dec).__name__ == "TorchGpuReference":
            return dec.forward(ids, P)
        return dec.forward(ids, np.arange(P, P + len(ids)), P)

    worst = np.abs(fwd(a, prompt, 0) - fwd(b, prompt, 0)).max()
    P = len(prompt)
    for t in steps:
        worst = max(worst, np.abs(fwd(a, [t], P) - fwd(b, [t], P)).max())
        P += 1
    return float(worst)


@pytest.fixture(scope="module")
def tiny_gpu(tmp_path_factory):
    """`python -m export tiny` (the Makefile's models/tiny-fp32 flags) + `gpu-weights --tiny`, via the CLI code."""
    d = str(tmp_path_factory.mktemp("tiny-gpu"))
    assert export_main(["tiny", "--out", d]) == 0
    assert export_main(["gpu-weights", "--tiny", "--model-dir", d]) == 0
    return d


@pytest.fixture(scope="module")
def rounded_dir(tmp_path_factory):
    """fp32 ONNX export of the same tiny checkpoint with float16-rounded matrices."""
    d = str(tmp_path_factory.mktemp("tiny-f16-rounded"))
    export_checkpoint(f16_rounded(tiny_checkpoint(seed=0)), d, precision="fp32", check=False)
    return d


def test_layout_and_manifest(tiny_gpu):
    ck = tiny_checkpoint(seed=0)
    t, meta = read_safetensors(os.path.join(tiny_gpu, "gpu.safetensors"))
    V, H, F, NH, KVH, D = 384, 64, 128, 4, 2, 16
    want = {"embed": ("float16", (V, H)), "final_norm": ("float32", (H,)), "lm_head": ("float16", (V, H))}
    for i in range(2):
        want.update({f"layers.{i}.attn_norm": ("float32", (H,)), f"layers.{i}.ffn_norm": ("float32", (H,)),
                     f"layers.{i}.qkv": ("float16", ((NH + 2 * KVH) * D, H)), f"layers.{i}.o": ("float16", (H, NH * D)),
                     f"layers.{i}.gate_up": ("float16", (2 * F, H)), f"layers.{i}.down": ("float16", (H, F))})
    assert {k: (str(v.dtype), v.shape) for k, v in t.items()} == want
    assert meta["format"] == "specrt-gpu-weights" and meta["version"] == "1" and meta["source"].startswith("tiny:")
    # contents: fused blocks in the documented order, float16 round-to-nearest of the checkpoint, bit for bit
    L = ck.layers[1]
    np.testing.assert_array_equal(t["layers.1.qkv"], np.concatenate([L.q, L.k, L.v]).astype(np.float16))
    np.testing.assert_array_equal(t["layers.1.gate_up"], np.concatenate([L.gate, L.up]).astype(np.float16))
    np.testing.assert_array_equal(t["layers.1.down"], L.down.astype(np.float16))
    np.testing.assert_array_equal(t["lm_head"], ck.lm_head.astype(np.float16))
    np.testing.assert_array_equal(t["layers.1.ffn_norm"], L.ffn_norm)
    m = json.load(open(os.path.join(tiny_gpu, "manifest.json")))
    assert m["gpu_weights"] == "gpu.safetensors"
    assert sorted(m["files"]) == ["gpu.safetensors", "model.onnx", "model.onnx.data", "tokenizer.json"]
    for name, digest in m["files"].items():  # the new entry is right and the old ones still match their files
        assert sha256_file(os.path.join(tiny_gpu, name)) == digest, name
    # the official reader (when installed) agrees with ours: the file is plain safetensors
    st = pytest.importorskip("safetensors.numpy")
    for k, v in st.load_file(os.path.join(tiny_gpu, "gpu.safetensors")).items():
        np.testing.assert_array_equal(v, t[k])


@pytest.mark.parametrize("prompt", PROMPTS)
def test_reference_matches_onnx_of_the_same_f16_weights(tiny_gpu, rounded_dir, prompt):
    ref, dec = NumpyGpuReference(tiny_gpu, capacity=64), OrtDecoder(rounded_dir, capacity=64)
    assert run_pair(ref, dec, prompt) < ATOL
    # the KV cache holds what the engine's cache holds (rotate_half-roped K, plain V)
    n = len(prompt) + len(STEPS)
    for i in range(len(dec.k)):
        np.testing.assert_allclose(ref.k_cache[i, :, :n], dec.k[i][0, :, :n], atol=1e-4)
        np.testing.assert_allclose(ref.v_cache[i, :, :n], dec.v[i][0, :, :n], atol=1e-4)


def test_rope_tables_equal_the_graphs_rope_cache():
    """The reference's rope is bit-identical to the ONNX graph's tables (also at long positions, where a float32
    angle would drift by ~1e-4 rad)."""
    from export.gpu_reference import rope_tables
    from export.graph_decoder import rope_cache

    cos, sin = rope_cache(64, 10000.0, 8192)
    pos = np.array([0, 1, 17, 2047, 4096, 8191])
    c, s = rope_tables(64, 10000.0, pos)
    np.testing.assert_array_equal(c, cos[pos])
    np.testing.assert_array_equal(s, sin[pos])


def test_reference_matches_reference_decoder(tiny_gpu):
    """An independent numpy implementation (export/reference_numpy.py) on the f16-rounded checkpoint."""
    ref = NumpyGpuReference(tiny_gpu, capacity=64)
    other = ReferenceDecoder(f16_rounded(tiny_checkpoint(seed=0)), capacity=64)
    assert run_pair(ref, other, PROMPTS[0]) < 1e-4


def test_reference_close_to_original_fp32_export(tiny_gpu):
    """Against the float32 graph the float16 rounding shows, but stays small and greedy decoding agrees."""
    diff = run_pair(NumpyGpuReference(tiny_gpu, capacity=64), OrtDecoder(tiny_gpu, capacity=64), PROMPTS[0])
    assert 1e-5 < diff < 0.15  # > 1e-5: the reference really runs the float16 weights
    compared = 0
    for p in PROMPTS:
        r = NumpyGpuReference(tiny_gpu, capacity=64).greedy(p, 12)
        ort = OrtDecoder(tiny_gpu, capacity=64).greedy(p, 12)
        # compare up to the first near-tie (a gap under 0.05 may legitimately flip under float16 rounding)
        k = next((j for j, g in enumerate(r["top2_gap"]) if g < 0.05), 12)
        assert r["tokens"][:k] == ort[:k]
        compared += k
    assert compared >= 12  # not vacuous


def _corrupt(t: dict, how: str) -> dict:
    t = {k: np.array(v) for k, v in t.items()}
    NH, KVH, D, F = 4, 2, 16, 128
    if how == "swap_k_v":  # layer 0: k rows <-> v rows (same size)
        qkv = t["layers.0.qkv"]
        q, k, v = qkv[:NH * D], qkv[NH * D:(NH + KVH) * D], qkv[(NH + KVH) * D:]
        t["layers.0.qkv"] = np.concatenate([q, v, k])
    elif how == "swap_gate_up":  # layer 1: silu(up) * gate instead of silu(gate) * up
        gu = t["layers.1.gate_up"]
        t["layers.1.gate_up"] = np.concatenate([gu[F:], gu[:F]])
    elif how == "interleaved_q_rows":  # layer 0 q rows in llama.cpp's GGUF order (rope pairs (2i, 2i+1))
        from export.checkpoint_gguf import unpermute_rows

        idx = np.argsort(unpermute_rows(NH * D, NH))  # inverse of the reader's un-permutation
        t["layers.0.qkv"] = np.concatenate([t["layers.0.qkv"][:NH * D][idx], t["layers.0.qkv"][NH * D:]])
    elif how == "swap_norms":  # layer 0: attn_norm <-> ffn_norm
        t["layers.0.attn_norm"], t["layers.0.ffn_norm"] = t["layers.0.ffn_norm"], t["layers.0.attn_norm"]
    else:
        raise ValueError(how)
    return t


@pytest.mark.parametrize("how", ["swap_k_v", "swap_gate_up", "interleaved_q_rows", "swap_norms"])
def test_negative_control_layout_bugs_fail_parity(tiny_gpu, rounded_dir, tmp_path, how):
    """The parity check above is meaningful: each of these layout bugs breaks it by far more than ATOL."""
    shutil.copy(os.path.join(tiny_gpu, "manifest.json"), tmp_path / "manifest.json")
    t, meta = read_safetensors(os.path.join(tiny_gpu, "gpu.safetensors"))
    write_safetensors(str(tmp_path / "gpu.safetensors"), _corrupt(t, how), meta)
    diff = run_pair(NumpyGpuReference(str(tmp_path), capacity=64), OrtDecoder(rounded_dir, capacity=64), PROMPTS[0])
    assert diff > 50 * ATOL, f"{how}: max diff {diff} - the parity test would not notice this bug"


def test_qkv_bias_and_tied_head(tmp_path):
    """Qwen2-style q/k/v biases (layers.i.qkv_bias) and a tied head (no lm_head: logits use embed)."""
    ck = tiny_checkpoint(seed=4, qkv_bias=True, tie=True)
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    export_checkpoint(ck, a, precision="fp32", check=False)
    write_gpu_weights(ck, a, "test:bias+tied", progress=False)
    export_checkpoint(f16_rounded(ck), b, precision="fp32", check=False)
    t, _ = read_safetensors(os.path.join(a, "gpu.safetensors"))
    assert "lm_head" not in t
    L = ck.layers[0]
    assert t["layers.0.qkv_bias"].dtype == np.float32
    np.testing.assert_array_equal(t["layers.0.qkv_bias"], np.concatenate([L.q_bias, L.k_bias, L.v_bias]))
    for p in PROMPTS:
        assert run_pair(NumpyGpuReference(a, capacity=64), OrtDecoder(b, capacity=64), p) < ATOL
    # negative control: dropping the biases must show
    t = {k: np.array(v) for k, v in t.items()}
    t["layers.0.qkv_bias"][:] = 0
    write_safetensors(os.path.join(a, "gpu.safetensors"), t)
    assert run_pair(NumpyGpuReference(a, capacity=64), OrtDecoder(b, capacity=64), PROMPTS[0]) > 50 * ATOL


def test_layer_skip_export_writes_the_kept_layers(tmp_path):
    d = str(tmp_path / "skip")
    assert export_main(["tiny", "--keep-layers", "1", "--out", d, "--no-check"]) == 0
    assert export_main(["gpu-weights", "--tiny", "--model-dir", d]) == 0
    t, _ = read_safetensors(os.path.join(d, "gpu.safetensors"))
    assert sorted({k.split(".")[1] for k in t if k.startswith("layers.")}) == ["0"]
    assert run_pair(NumpyGpuReference(d, capacity=64), OrtDecoder(d, capacity=64), PROMPTS[0]) < 0.15


@pytest.mark.parametrize("flags,key", [(["--ffn", "96"], "intermediate_size"), (["--heads", "8"], "num_heads"),
                                       (["--kv-heads", "4"], "num_kv_heads"), (["--head-dim", "8"], "head_dim"),
                                       (["--hidden", "32"], "hidden_size"), (["--vocab", "400"], "vocab_size"),
                                       (["--layers", "3"], "num_layers"), (["--tie"], "tie_word_embeddings"),
                                       (["--seed", "1"], "source.seed")])
def test_mismatch_names_the_key_and_changes_nothing(tiny_gpu, tmp_path, capsys, flags, key):
    d = tmp_path / "m"
    shutil.copytree(tiny_gpu, d)
    before = {n: (d / n).read_bytes() for n in os.listdir(d)}
    capsys.readouterr()
    assert export_main(["gpu-weights", "--tiny", *flags, "--model-dir", str(d)]) == 2
    err = capsys.readouterr().err
    assert "error" in err and key in err, err
    named = {k for k in INT_KEYS + ("tie_word_embeddings", "source.seed") if f"{k}:" in err}
    assert named == {key}, err  # exactly the mismatching key, nothing else
    assert {n: (d / n).read_bytes() for n in os.listdir(d)} == before


def test_source_xor_tiny(tiny_gpu):
    with pytest.raises(SystemExit):
        export_main(["gpu-weights", "--model-dir", tiny_gpu])
    with pytest.raises(SystemExit):
        export_main(["gpu-weights", "smollm2", "--tiny", "--model-dir", tiny_gpu])


def test_reference_cli(tiny_gpu, rounded_dir, tmp_path):
    (tmp_path / "p.json").write_text(json.dumps(PROMPTS))
    out = tmp_path / "ref.json"
    assert reference_main([tiny_gpu, "--prompts", str(tmp_path / "p.json"), "--new-tokens", "6",
                           "--out", str(out)]) == 0
    r = json.loads(out.read_text())
    assert r["backend"] == "numpy" and r["device"] == "cpu" and r["model"] == tiny_gpu
    for p, got in zip(PROMPTS, r["prompts"]):
        assert got["prompt"] == p and len(got["tokens"]) == 6 and len(got["top2_gap"]) == 6
        assert min(got["top2_gap"]) >= 0 and len(got["first_logits"]) == 384
        dec = OrtDecoder(rounded_dir, capacity=64)
        first = dec.forward(p, np.arange(len(p)), 0)[-1]
        np.testing.assert_allclose(got["first_logits"], first, atol=ATOL, rtol=0)
        assert got["tokens"] == OrtDecoder(rounded_dir, capacity=64).greedy(p, 6)


def test_torch_matches_numpy(tiny_gpu):
    pytest.importorskip("torch")
    from export.gpu_reference import TorchGpuReference

    for p in PROMPTS:
        a = NumpyGpuReference(tiny_gpu, capacity=64)
        b = TorchGpuReference(tiny_gpu, capacity=64)
        assert run_pair(a, b, p) < 1e-4


def test_torch_cli_in_torch_venv(tiny_gpu, tmp_path):
    """Same check through the CLI with the repo's torch venv (torch is not in .venv); skipped without it."""
    py = os.environ.get("SPECRT_TORCH_PYTHON", os.path.join(ROOT, ".cache", "venv-train", "bin", "python"))
    if not os.path.exists(py):
        pytest.skip(f"no torch python at {py} (set SPECRT_TORCH_PYTHON)")
    (tmp_path / "p.json").write_text(json.dumps(PROMPTS))
    outs = {}
    for backend, exe in (("torch", py), ("numpy", sys.executable)):
        out = tmp_path / f"{backend}.json"
        r = subprocess.run([exe, "-m", "export.gpu_reference", tiny_gpu, "--prompts", str(tmp_path / "p.json"),
                            "--new-tokens", "8", "--out", str(out), "--backend", backend],
                           cwd=ROOT, capture_output=True, text=True, env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
        assert r.returncode == 0, r.stderr
        outs[backend] = json.loads(out.read_text())
    assert outs["torch"]["backend"] == "torch"
    for a, b in zip(outs["torch"]["prompts"], outs["numpy"]["prompts"]):
        assert a["tokens"] == b["tokens"]
        np.testing.assert_allclose(a["first_logits"], b["first_logits"], atol=1e-4, rtol=0)
        np.testing.assert_allclose(a["top2_gap"], b["top2_gap"], atol=1e-4, rtol=0)


@pytest.mark.smollm2
def test_smollm2_gpu_weights(smollm2_export, tmp_path):
    """The real model through `gpu-weights smollm2`: Q4_1 dequantized to float16 stays close to the fp32 graph
    (observed 0.03 on logits up to ~37) and greedy decoding agrees."""
    src, _, _ = smollm2_export("fp32")
    d = tmp_path / "smol"
    d.mkdir()
    for name in ("manifest.json", "model.onnx", "tokenizer.json"):
        shutil.copy(os.path.join(src, name), d / name)
    try:  # 540 MB: share it (a hard link; onnxruntime refuses external data behind a symlink out of the folder)
        os.link(os.path.join(src, "model.onnx.data"), d / "model.onnx.data")
    except OSError:
        shutil.copy(os.path.join(src, "model.onnx.data"), d / "model.onnx.data")
    assert export_main(["gpu-weights", "smollm2", "--model-dir", str(d)]) == 0
    t, meta = read_safetensors(str(d / "gpu.safetensors"))
    assert meta["source"].startswith("smollm2:") and "lm_head" not in t
    assert t["layers.29.qkv"].shape == (576 + 2 * 192, 576)
    p = [1, 9690, 198, 2683, 314, 253, 5356, 30, 2, 198, 1, 4093, 198]
    ref, dec = NumpyGpuReference(str(d), capacity=64), OrtDecoder(str(d), capacity=64)
    assert np.abs(ref.forward(p, 0) - dec.forward(p, np.arange(len(p)), 0)).max() < 0.1
    r = NumpyGpuReference(str(d), capacity=64).greedy(p, 16)
    ort = OrtDecoder(str(d), capacity=64).greedy(p, 16)
    k = next((j for j, g in enumerate(r["top2_gap"]) if g < 0.02), 16)
    assert k >= 4 and r["tokens"][:k] == ort[:k]

"""SPACE training recipe on the tiny random model (torch; runs in .cache/venv-train: `make test-train-space`).

- a packed batch computes every mask group exactly as its own decode-time segment (context up to the owner, then
  k masks at positions owner+1..owner+k, causal) and every real token exactly as plain causal decoding; negative
  control: letting one mask see one token past its owner changes its logits;
- mask-only adapters (the default): with random nonzero A/B every real-token row's logits equal the base model's
  bitwise, masks in the batch or not (negative control: the same adapters merged change them);
- the split training batch (real block without gradients through a KV cache, then the mask block) gives the fused
  call's mask logits and losses;
- training is deterministic from the seed (two runs equal, another seed differs) and lowers the loss; mask-only
  training leaves the held-out next-token NLL exactly the base's;
- the float16 artifact round trip leaves the model the artifact describes;
- a warm start (--init) loads a saved adapter exactly and refuses one of another k or tensor shape, by name.
"""
from __future__ import annotations

import argparse

import numpy as np
import pytest

torch = pytest.importorskip("torch")  # only the training venv has torch

from export.space_model import NEG, SpaceDecoder  # noqa: E402
from export.space_samples import pack  # noqa: E402
from export.space_samples import collate, collate_split  # noqa: E402
from export.train_space import add_train_args, evaluate, fp16_roundtrip, load_init, losses, split_losses, to_torch, train_loop  # noqa: E402

SEQ = [40, 71, 300, 5, 17, 99, 256, 3, 120, 77, 8, 200, 31]


def tiny_model(tiny_ck, seed=0, adapter="mask_only"):
    m = SpaceDecoder(tiny_ck, rank=4, alpha=8, seed=seed, adapter=adapter)
    g = torch.Generator().manual_seed(seed + 100)
    with torch.no_grad():  # a non-trivial adapter and mask row (B = 0 at init would hide LoRA bugs)
        for mod in m.lora:
            for lora in mod.values():
                lora.b.copy_(torch.randn(lora.b.shape, generator=g) * 0.2)
        m.mask_row.copy_(torch.randn(m.mask_row.shape, generator=g))
    return m.eval()


def run(m, ids, pos, vis):
    bias = torch.where(torch.as_tensor(vis), 0.0, NEG)[None, None].float()
    with torch.no_grad():
        return m(torch.as_tensor(ids)[None], torch.as_tensor(pos)[None], bias)[0]


def causal(n):
    return np.tril(np.ones((n, n), bool))


@pytest.mark.parametrize("k", [1, 3, 5])
def test_packed_groups_equal_separate_segments(tiny_ck, k):
    m = tiny_model(tiny_ck)
    owners = [3, 6, 10]
    s = pack(SEQ, 4, owners, k, m.mask_id)
    packed = run(m, s["ids"], s["positions"], s["visible"])
    L = len(SEQ)
    plain = run(m, SEQ, np.arange(L), causal(L))
    assert torch.allclose(packed[:L], plain, atol=1e-5)
    for g, o in enumerate(owners):
        ids = SEQ[:o + 1] + [m.mask_id] * k
        alone = run(m, ids, np.arange(o + 1 + k), causal(o + 1 + k))
        got = packed[L + g * k:L + (g + 1) * k]
        assert torch.allclose(got, alone[o + 1:], atol=1e-5), (k, o, float((got - alone[o + 1:]).abs().max()))
    # negative control: one extra visible token (the one right after owner 6) changes that group's logits
    vis = s["visible"].copy()
    vis[L + k, 7] = True
    leaked = run(m, s["ids"], s["positions"], vis)
    assert float((leaked[L + k] - packed[L + k]).abs().max()) > 1e-3


def test_mask_only_real_rows_are_the_base_model_bitwise(tiny_ck):
    m = tiny_model(tiny_ck)
    s = pack(SEQ, 4, [3, 6, 10], 3, m.mask_id)
    L = len(SEQ)
    gated = run(m, s["ids"], s["positions"], s["visible"])
    m.use_lora = False
    base = run(m, s["ids"], s["positions"], s["visible"])
    plain = run(m, SEQ, np.arange(L), causal(L))
    m.use_lora = True
    assert torch.equal(gated[:L], base[:L])
    assert torch.equal(run(m, SEQ, np.arange(L), causal(L)), plain)  # no mask in the input at all
    assert float((gated[L:] - base[L:]).abs().max()) > 1e-2  # the adapters do act on the masks
    merged = tiny_model(tiny_ck, adapter="merged")  # negative control: the same A/B on every row
    assert float((run(merged, s["ids"], s["positions"], s["visible"])[:L] - base[:L]).abs().max()) > 1e-2


def test_split_batch_equals_the_fused_call(tiny_ck):
    m = tiny_model(tiny_ck)
    samples = [pack(SEQ, 4, [3, 6, 10], 3, m.mask_id), pack(SEQ[:9], 2, [2, 5], 3, m.mask_id),
               pack(SEQ[:7], 3, [], 3, m.mask_id)]  # different lengths, one without groups
    fused = losses(m, to_torch(collate(samples)), 3)
    split = split_losses(m, collate_split(samples), 3)
    assert abs(float(fused["ar"].detach()) - float(split["ar"])) < 1e-5
    assert abs(float(fused["mask"].detach()) - float(split["mask"].detach())) < 1e-5
    assert fused["hits"] == split["hits"] and fused["n_mask"] == split["n_mask"] == 12
    assert split["mask"].requires_grad and not split["ar"].requires_grad
    # negative control: the mask block's visibility is used (group 2's first mask now also sees group 1's first)
    sb = collate_split(samples)
    sb["mask"]["visible"][0, 3, len(SEQ) + 0] = True
    assert abs(float(split_losses(m, sb, 3)["mask"].detach()) - float(split["mask"].detach())) > 1e-4


def args(**kw):
    p = argparse.ArgumentParser()
    add_train_args(p)
    a = p.parse_args([])
    a.ckpt_minutes = 1e9
    for key, v in kw.items():
        setattr(a, key, v)
    return a


def synthetic(n=12, seed=0):
    """Sequences with a learnable pattern (each answer counts up by 3 mod 300): (seq, n_prompt, id)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        start = int(rng.integers(0, 300))
        seq = [int(x) for x in rng.integers(0, 384, 4)] + [(start + 3 * j) % 300 for j in range(20)]
        out.append((seq, 4, f"s{i}"))
    return out


def train_tiny(tiny_ck, seed, steps, adapter="mask_only"):
    torch.manual_seed(seed)
    m = SpaceDecoder(tiny_ck, rank=4, alpha=8, seed=seed, adapter=adapter)
    st = train_loop(m, synthetic(), args(seed=seed, steps=steps, k=3, groups=4, batch=4, lr=3e-3, lr_mask=1e-2,
                                         warmup=1), deadline=float("inf"), state={})
    return m, st


def test_training_is_deterministic_from_the_seed_and_learns(tiny_ck):
    m1, s1 = train_tiny(tiny_ck, 0, 3)
    m2, s2 = train_tiny(tiny_ck, 0, 3)
    m3, _ = train_tiny(tiny_ck, 1, 3)
    a, b, c = m1.trainable_state(), m2.trainable_state(), m3.trainable_state()
    assert all(torch.equal(a[key], b[key]) for key in a)
    assert [r["ar"] for r in s1["curve"]] == [r["ar"] for r in s2["curve"]]
    assert not all(torch.equal(a[key], c[key]) for key in a)  # negative control: the seed matters
    _, long = train_tiny(tiny_ck, 0, 30, adapter="merged")
    first, last = long["curve"][0], long["curve"][-1]
    assert last["mask"] < first["mask"] - 0.5 and last["ar"] < first["ar"] - 0.5


def test_mask_only_training_learns_the_masks_and_keeps_the_base(tiny_ck):
    ev = synthetic()[:4]  # training sequences, other owners: 30 steps on a random tiny model do not generalise
    fresh = SpaceDecoder(tiny_ck, rank=4, alpha=8, seed=0)
    before = evaluate(fresh, ev, 3, 4, fresh.mask_id, 2)
    m, st = train_tiny(tiny_ck, 0, 30)
    after = evaluate(m, ev, 3, 4, m.mask_id, 2)
    assert after["mask_nll"] < before["mask_nll"] - 0.5
    assert after["ar_nll"] == before["ar_nll"] and after["top1_by_slot"][0] == before["top1_by_slot"][0]


def test_fp16_roundtrip_is_the_artifact(tiny_ck):
    m = tiny_model(tiny_ck)
    sd = fp16_roundtrip(m)
    assert all(v.dtype == torch.float16 for v in sd.values())
    st = m.trainable_state()
    assert all(torch.equal(st[key], sd[key].float()) for key in sd)


def save_adapter(m, folder, k=3, **manifest):
    import json

    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    save_file({key: v.contiguous() for key, v in fp16_roundtrip(m).items()}, str(folder / "adapter.safetensors"))
    (folder / "MANIFEST.json").write_text(json.dumps({"k": k, "mask_token_id": m.mask_id, **manifest}))


def test_warm_start_loads_the_adapter_and_refuses_a_mismatch(tiny_ck, tmp_path):
    trained = tiny_model(tiny_ck, seed=3)
    save_adapter(trained, tmp_path / "a", training={"steps": 7})
    fresh = SpaceDecoder(tiny_ck, rank=4, alpha=8, seed=0)
    info = load_init(fresh, str(tmp_path / "a"), 3)
    want, got = trained.trainable_state(), fresh.trainable_state()
    assert all(torch.equal(want[key], got[key]) for key in want) and info["steps"] == 7
    # negative controls: another k, another LoRA rank (tensor shapes), by name
    with pytest.raises(SystemExit, match="k=4"):
        load_init(SpaceDecoder(tiny_ck, rank=4, alpha=8, seed=0), str(tmp_path / "a"), 4)
    with pytest.raises(SystemExit, match=r"tensor layers\.0\..*lora_a"):
        load_init(SpaceDecoder(tiny_ck, rank=2, alpha=8, seed=0), str(tmp_path / "a"), 3)


def test_merged_export_equals_the_trained_model(tiny_ck, tmp_path):
    """Artifact (float16 LoRA + mask row + probe) -> merge -> fp32 ONNX export: logits equal the torch model's on
    the probe segment; negative control: the same export without the deltas (base + mask row) does not."""
    import copy

    from safetensors.numpy import load_file

    from export.ort_runner import OrtDecoder
    from export.pipeline import export_checkpoint
    from export.space_merge import merge_folder
    from export.train_space import probe_segment, save_artifact

    m = tiny_model(tiny_ck, adapter="merged")
    sd = fp16_roundtrip(m)
    man = {"k": 3, "lora": {"rank": 4, "alpha": 8}, "base": {}}
    art = str(tmp_path / "art")
    save_artifact(art, m, sd, probe_segment(SEQ, 4, 3, m.mask_id), man, curve=[])
    probe = load_file(f"{art}/probe.safetensors")
    vis = probe["visible"].astype(bool)
    bias = np.where(vis, 0.0, -1e9).astype(np.float32)

    def export_logits(ck, mask_row, k, name):
        out = str(tmp_path / name)
        manifest, _ = export_checkpoint(ck, out, precision="fp32", accuracy_level=0, mask_row=mask_row, space_k=k)
        assert manifest["space"] == {"mask_token_id": m.mask_id, "k": 3}
        dec = OrtDecoder(out, capacity=64, threads=1)
        return ort_probe(dec, probe)

    ck, row, k = merge_folder(copy.deepcopy(tiny_ck), art)
    got = export_logits(ck, row, k, "merged")
    np.testing.assert_allclose(got, probe["logits"], atol=2e-4, rtol=0)
    base = export_logits(copy.deepcopy(tiny_ck), row, k, "base")
    assert np.abs(base - probe["logits"]).max() > 0.05


def ort_probe(dec, probe: dict) -> np.ndarray:
    """The probe's logit rows from an ONNX export: prefix first, then the segment with the prefix cached (as the
    engine runs it; GroupQueryAttention ignores position_ids when nothing is cached)."""
    o = int(probe["rows"][0])
    bias = np.where(probe["visible"].astype(bool), 0.0, -1e9).astype(np.float32)
    dec.forward(probe["ids"][:o], probe["positions"][:o], 0)
    return dec.forward(probe["ids"][o:], probe["positions"][o:], o, bias=bias[o:])


def test_gated_export_equals_the_trained_model(tiny_ck, tmp_path):
    """Mask-only artifact -> low-rank path gated to mask rows in an fp32 ONNX export: the probe's mask rows equal
    the torch model's, its real rows equal the same export without the adapter bitwise; negative control: the
    export without the adapter misses the trained mask rows."""
    from safetensors.numpy import load_file

    from export.ort_runner import OrtDecoder
    from export.pipeline import export_checkpoint
    from export.space_merge import lowrank_folder
    from export.train_space import probe_segment, save_artifact

    m = tiny_model(tiny_ck)
    sd = fp16_roundtrip(m)
    man = {"k": 3, "lora": {"rank": 4, "alpha": 8}, "base": {}, "adapter": "mask_only"}
    art = str(tmp_path / "art")
    save_artifact(art, m, sd, probe_segment(SEQ, 4, 3, m.mask_id), man, curve=[])
    probe = load_file(f"{art}/probe.safetensors")
    layers, row, k = lowrank_folder(tiny_ck, art)

    def export_logits(name, **kw):
        out = str(tmp_path / name)
        manifest, _ = export_checkpoint(tiny_ck, out, precision="fp32", accuracy_level=0, mask_row=row, space_k=k, **kw)
        return manifest, ort_probe(OrtDecoder(out, capacity=64, threads=1), probe)

    manifest, got = export_logits("gated", space_lowrank=layers)
    assert manifest["space"] == {"mask_token_id": m.mask_id, "k": 3, "adapter": "mask_only"}
    np.testing.assert_allclose(got, probe["logits"], atol=2e-4, rtol=0)
    _, bare = export_logits("bare")
    assert np.array_equal(got[:2], bare[:2])  # the owner and the token after it: real rows
    assert np.abs(bare[2:] - probe["logits"][2:]).max() > 0.05

"""Write `gpu.safetensors`: the weights of an exported decoder in the layout the native CUDA backend reads.

Role: the ONNX folder (model.onnx) is what the CPU/onnxruntime engine runs; the CUDA backend does not read the
graph, it reads plain matrices. This module takes the SAME checkpoint the folder was exported from (GGUF,
Hugging Face safetensors, SmolLM2, or the random tiny model), checks it against the folder's manifest.json, and
adds `DIR/gpu.safetensors` plus `"gpu_weights": "gpu.safetensors"` and its sha256 in the manifest's `files` map.

Layout (the contract, also in export/CONTRACT.md "GPU weights"): every matrix is (out_features, in_features)
row-major float16 (dequantized to float32 first, then rounded to nearest float16); norms and biases are float32.
q/k rows are in Hugging Face rotate_half order (the GGUF reader already undid llama.cpp's permutation).

    embed [V, H] f16, final_norm [H] f32, lm_head [V, H] f16 (only when the head is not tied),
    layers.{i}.attn_norm [H] f32, layers.{i}.qkv [(NH + 2 KVH) D, H] f16 (q rows, then k, then v),
    layers.{i}.qkv_bias [(NH + 2 KVH) D] f32 (only with q/k/v biases, e.g. Qwen2), layers.{i}.o [H, NH D] f16,
    layers.{i}.ffn_norm [H] f32, layers.{i}.gate_up [2 F, H] f16 (gate rows, then up), layers.{i}.down [H, F] f16.

`__metadata__` = {"format": "specrt-gpu-weights", "version": "1", "source": <where the weights came from>}.
All float32 tensors are stored before the float16 ones so every float32 tensor starts 4-byte aligned (the
safetensors format forbids gaps between tensors, so alignment can only come from the order).

The file is streamed (headers are computable from the config alone), one layer in memory at a time, so a
1.5B-parameter model needs about one layer of float32 scratch on top of the checkpoint itself.
"""
from __future__ import annotations

import json
import math
import os
import struct
import sys
from typing import Callable, Iterable, Optional

import numpy as np

from .checkpoint import Checkpoint, as_float
from .manifest import sha256_file

FILE = "gpu.safetensors"
FORMAT = "specrt-gpu-weights"
VERSION = "1"
# dims keys that must agree exactly between the checkpoint config and manifest["dims"]
INT_KEYS = ("vocab_size", "hidden_size", "intermediate_size", "num_layers", "num_heads", "num_kv_heads", "head_dim")
# further dims the CUDA backend reads from the manifest: a disagreement would silently change the math
EXTRA_KEYS = ("tie_word_embeddings", "attention_bias", "rope_theta", "rms_norm_eps")
_DTYPES = {"F16": np.dtype("<f2"), "F32": np.dtype("<f4")}
F16_MAX = float(np.finfo(np.float16).max)


class GpuWeightsError(ValueError):
    """The checkpoint cannot be written for this model folder (mismatch, overflow, bad source)."""


# ---- safetensors I/O (numpy only: no torch, no safetensors package needed) -----------------------------------

def write_safetensors_streamed(path: str, specs: list, produce: Callable[[str], np.ndarray],
                               metadata: Optional[dict] = None, order: Optional[Iterable[str]] = None) -> None:
    """Write a safetensors file whose tensors are produced one at a time.

    specs: [(name, "F16"|"F32", shape)] in file order (data offsets follow this order). produce(name) returns the
    array for `name`; it is called in `order` (default: file order) so a caller can build several tensors of one
    layer together. Data is written to `path + ".tmp"` and renamed at the end: a crash never leaves a truncated
    file under the real name.
    """
    header, offsets, off = {}, {}, 0
    for name, dt, shape in specs:
        n = int(np.prod(shape, dtype=np.int64)) * _DTYPES[dt].itemsize
        header[name] = {"dtype": dt, "shape": [int(s) for s in shape], "data_offsets": [off, off + n]}
        offsets[name] = off
        off += n
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)  # data section starts 8-byte aligned
    base = 8 + len(h)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        f.truncate(base + off)
        for name in (order if order is not None else [s[0] for s in specs]):
            meta = header[name]
            a = np.ascontiguousarray(produce(name), dtype=_DTYPES[meta["dtype"]])
            if list(a.shape) != meta["shape"]:
                raise GpuWeightsError(f"{name}: produced shape {list(a.shape)} != planned {meta['shape']}")
            f.seek(base + offsets[name])
            f.write(a.tobytes())
    os.replace(tmp, path)


def write_safetensors(path: str, tensors: dict, metadata: Optional[dict] = None) -> None:
    """Write a dict of float16/float32 arrays (float32 first, then float16; insertion order within each)."""
    def kind(a):
        return "F16" if np.asarray(a).dtype == np.float16 else "F32"

    specs = [(n, kind(a), np.shape(a)) for n, a in tensors.items() if kind(a) == "F32"]
    specs += [(n, kind(a), np.shape(a)) for n, a in tensors.items() if kind(a) == "F16"]
    write_safetensors_streamed(path, specs, tensors.__getitem__, metadata)


def read_safetensors(path: str) -> tuple:
    """({name: read-only numpy array backed by a memory map}, metadata dict) of a F16/F32 safetensors file."""
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    meta = header.pop("__metadata__", {}) or {}
    mm = np.memmap(path, dtype=np.uint8, mode="r")
    out = {}
    for name, t in header.items():
        if t["dtype"] not in _DTYPES:
            raise GpuWeightsError(f"{path}: tensor {name} has unsupported dtype {t['dtype']}")
        a, b = t["data_offsets"]
        out[name] = mm[8 + n + a:8 + n + b].view(_DTYPES[t["dtype"]]).reshape(t["shape"])
    return out, meta


# ---- the layout ----------------------------------------------------------------------------------------------

def tensor_specs(dims: dict, n_layers: int, tied: bool, qkv_bias: bool) -> list:
    """[(name, dtype, shape)] of gpu.safetensors in file order (float32 first). `dims` as in manifest["dims"]."""
    V, H, F = dims["vocab_size"], dims["hidden_size"], dims["intermediate_size"]
    NH, KVH, D = dims["num_heads"], dims["num_kv_heads"], dims["head_dim"]
    qkv = (NH + 2 * KVH) * D
    f32 = [("final_norm", "F32", (H,))]
    f16 = [("embed", "F16", (V, H))] + ([] if tied else [("lm_head", "F16", (V, H))])
    for i in range(n_layers):
        p = f"layers.{i}."
        f32 += [(p + "attn_norm", "F32", (H,)), (p + "ffn_norm", "F32", (H,))]
        if qkv_bias:
            f32.append((p + "qkv_bias", "F32", (qkv,)))
        f16 += [(p + "qkv", "F16", (qkv, H)), (p + "o", "F16", (H, NH * D)),
                (p + "gate_up", "F16", (2 * F, H)), (p + "down", "F16", (H, F))]
    return f32 + f16


def _to_f16(name: str, w: np.ndarray) -> np.ndarray:
    """float32 -> float16 (round to nearest even); refuses values float16 cannot hold instead of writing inf."""
    w = np.asarray(w, np.float32)
    peak = float(np.max(np.abs(w))) if w.size else 0.0
    if not math.isfinite(peak) or peak > F16_MAX:
        raise GpuWeightsError(f"{name}: max |w| = {peak:g} does not fit float16 (max {F16_MAX:g})")
    return w.astype(np.float16)


def check_against_manifest(ck: Checkpoint, manifest: dict) -> int:
    """Raise GpuWeightsError naming every key where the checkpoint disagrees with the manifest.

    Returns the number of layers to write: manifest["dims"]["num_layers"], which is the kept prefix for a
    layer-skip export (`--layers N`); then the checkpoint's layer count is compared with source.source_num_layers.
    """
    c, d = ck.config, manifest.get("dims", {})
    kept = manifest.get("layers_kept")
    bad = []
    for k in INT_KEYS + EXTRA_KEYS:
        mine = getattr(c, k)
        if k == "num_layers" and kept is not None:
            theirs, where = manifest.get("source", {}).get("source_num_layers"), "manifest source.source_num_layers"
        else:
            theirs, where = d.get(k), f"manifest dims.{k}"
        if theirs is None:
            if k in INT_KEYS:
                bad.append(f"{k}: missing from the manifest")
            continue
        if isinstance(mine, float) or isinstance(theirs, float):
            same = math.isclose(float(mine), float(theirs), rel_tol=1e-6, abs_tol=0.0)
        else:
            same = mine == theirs
        if not same:
            bad.append(f"{k}: checkpoint {mine!r} != {where} {theirs!r}")
    # same dims but another checkpoint would pass the checks above: compare the source's identity when known
    src, msrc = ck.source or {}, manifest.get("source", {}) or {}
    if src.get("files") and msrc.get("files") and src["files"] != msrc["files"]:
        bad.append(f"source.files: checkpoint {src['files']} != manifest {msrc['files']}")
    if src.get("format") == "tiny-random" and msrc.get("format") == "tiny-random" \
            and src.get("seed") != msrc.get("seed"):
        bad.append(f"source.seed: checkpoint {src.get('seed')!r} != manifest {msrc.get('seed')!r}")
    if bad:
        raise GpuWeightsError("checkpoint does not match the model folder's manifest.json: " + "; ".join(bad))
    n = int(d["num_layers"])
    if n > len(ck.layers):
        raise GpuWeightsError(f"num_layers: manifest wants {n} layers, the checkpoint has {len(ck.layers)}")
    return n


def write_gpu_weights(ck: Checkpoint, model_dir: str, source: str, progress: bool = True) -> dict:
    """Check `ck` against DIR/manifest.json, write DIR/gpu.safetensors, update the manifest; returns the manifest.

    On any error nothing in DIR is changed (the file is written under a temporary name first).
    """
    mpath = os.path.join(model_dir, "manifest.json")
    with open(mpath, encoding="utf-8") as f:
        manifest = json.load(f)
    if manifest.get("kind", "decoder") != "decoder":
        raise GpuWeightsError(f"{model_dir} is a {manifest.get('kind')!r} folder, gpu weights need a decoder")
    n_layers = check_against_manifest(ck, manifest)
    c = ck.config
    tied = ck.lm_head is None
    has_bias = ck.layers[0].q_bias is not None
    specs = tensor_specs(manifest["dims"], n_layers, tied, has_bias)
    log = (lambda m: print(f"[gpu-weights] {m}", file=sys.stderr)) if progress else (lambda m: None)
    log(f"{source}: {n_layers} layers, hidden {c.hidden_size}, vocab {c.vocab_size}, "
        f"{'tied' if tied else 'untied'} head{', qkv bias' if has_bias else ''} -> {os.path.join(model_dir, FILE)}")

    layer_cache: dict = {}

    def layer_tensors(i: int) -> dict:
        """All tensors of layer i, built together (the fused q|k|v and gate|up need several source weights)."""
        L, p = ck.layers[i], f"layers.{i}."
        t = {p + "attn_norm": np.asarray(L.attn_norm, np.float32), p + "ffn_norm": np.asarray(L.ffn_norm, np.float32),
             p + "qkv": _to_f16(p + "qkv", np.concatenate([as_float(L.q), as_float(L.k), as_float(L.v)], axis=0)),
             p + "o": _to_f16(p + "o", as_float(L.o)),
             p + "gate_up": _to_f16(p + "gate_up", np.concatenate([as_float(L.gate), as_float(L.up)], axis=0)),
             p + "down": _to_f16(p + "down", as_float(L.down))}
        if has_bias:
            t[p + "qkv_bias"] = np.concatenate([L.q_bias, L.k_bias, L.v_bias]).astype(np.float32)
        return t

    def produce(name: str) -> np.ndarray:
        if name == "embed":
            return _to_f16(name, as_float(ck.embed))
        if name == "lm_head":
            return _to_f16(name, as_float(ck.lm_head))
        if name == "final_norm":
            return np.asarray(ck.final_norm, np.float32)
        i = int(name.split(".")[1])
        if i not in layer_cache:
            layer_cache.clear()  # keep one layer in memory
            layer_cache[i] = layer_tensors(i)
            log(f"layer {i + 1}/{n_layers}")
        return layer_cache[i][name]

    # write layer by layer (both the f32 and the f16 parts of a layer from one build), embed/head first
    order = ["final_norm", "embed"] + ([] if tied else ["lm_head"])
    for i in range(n_layers):
        order += [s[0] for s in specs if s[0].startswith(f"layers.{i}.")]
    write_safetensors_streamed(os.path.join(model_dir, FILE), specs, produce,
                               {"format": FORMAT, "version": VERSION, "source": source}, order=order)
    manifest["gpu_weights"] = FILE
    files = dict(manifest.get("files", {}))
    files[FILE] = sha256_file(os.path.join(model_dir, FILE))
    manifest["files"] = {k: files[k] for k in sorted(files)}  # manifest.py writes the map sorted
    tmp = mpath + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2, ensure_ascii=False)
        f.write("\n")
    os.replace(tmp, mpath)
    log(f"wrote {FILE} ({os.path.getsize(os.path.join(model_dir, FILE)) / 2**20:.1f} MiB) and updated manifest.json")
    return manifest


def load_source(source: str) -> tuple:
    """(Checkpoint, source label) for SOURCE = a .gguf path, the word `smollm2`, or a HF safetensors folder."""
    if source == "smollm2":
        from .checkpoint_gguf import load_gguf
        from .smollm2 import smollm2_gguf_path

        path = smollm2_gguf_path()
        return load_gguf(path, build_tokenizer=False), f"smollm2:{os.path.abspath(path)}"
    if os.path.isdir(source):
        from .checkpoint_safetensors import load_safetensors

        return load_safetensors(source), f"safetensors:{os.path.abspath(source)}"
    if os.path.isfile(source):
        from .checkpoint_gguf import load_gguf

        # the tokenizer already sits in the folder; building it from the GGUF vocabulary is wasted work
        return load_gguf(source, build_tokenizer=False), f"gguf:{os.path.abspath(source)}"
    raise GpuWeightsError(f"source {source!r} is neither a GGUF file, a safetensors folder nor 'smollm2'")


def tiny_source_label(kw: dict) -> str:
    """Source label of a `--tiny` checkpoint: every argument of tiny_checkpoint, so it can be rebuilt."""
    return "tiny:" + ",".join(f"{k}={kw[k]}" for k in sorted(kw))

"""Reference forward of exactly the math the native CUDA backend does, read from DIR/gpu.safetensors.

Role: the oracle the CUDA kernels are checked against. It reads only what the CUDA backend reads (manifest.json
dims + gpu.safetensors, layout in export/gpu_weights.py) and spells out every numerical choice:

- weights: float16 in the file, widened to float32; every activation and every operation in float32
  (no TF32 in the torch version; the KV cache is float32);
- RMSNorm: x / sqrt(mean(x^2) + eps) * w;
- rope (rotate_half, Hugging Face layout): inv_freq[i] = 1 / theta^(2i/D) for i in 0..D/2, angle = pos *
  inv_freq[i], cos and sin all in float64, then cast to float32: exactly export.graph_decoder.rope_cache (what
  the ONNX graph uses) and the host-side tables of engine/backend/cuda/decoder.rs. (A float32 angle would drift
  by up to ~pos * 2^-24 rad, 1e-4 at position 2048.) out = [x1 cos - x2 sin, x2 cos + x1 sin] with x1/x2 the
  two halves of a head;
- attention: q/k/v = x @ qkv^T (+ qkv_bias) split q|k|v, rope on q and k, grouped-query (query head h reads
  kv head h // (NH / KVH)), scores * 1/sqrt(D), causal mask, softmax with the row max subtracted;
- MLP: SwiGLU down(silu(gate) * up) with silu(g) = g / (1 + exp(-g)), gate|up from the fused gate_up;
- final RMSNorm, then logits = x @ lm_head^T (or embed^T when the head is tied), float32.

Two implementations with one API: `NumpyGpuReference` (always available) and `TorchGpuReference` (torch imported
lazily; CUDA when available, else CPU). CLI:

    python -m export.gpu_reference DIR --prompts FILE.json --new-tokens N --out ref.json [--backend torch|numpy]

FILE.json is a list of token-id lists; each is greedy-decoded (argmax, ties to the lowest id) for N tokens with a
KV cache; ref.json = {"model", "backend", "device", "prompts": [{"prompt", "tokens", "first_logits" (the logits
after the prompt), "top2_gap" (per generated token: best minus second-best logit it was picked from)}]}.

Only numpy (and optionally torch) is imported: the module runs in a torch venv without onnx.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Optional

import numpy as np

from .gpu_weights import FILE, read_safetensors

F32 = np.float32


def load_model(model_dir: str) -> tuple:
    """(manifest dict, {name: float32 array}) of a folder with gpu.safetensors (float16 widened to float32)."""
    with open(os.path.join(model_dir, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    name = manifest.get("gpu_weights", FILE)
    path = os.path.join(model_dir, name)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path} missing: run `python -m export gpu-weights SOURCE --model-dir {model_dir}`")
    raw, _ = read_safetensors(path)
    # np.array copies: the arrays are private, writable float32 (never views of the read-only memory map)
    return manifest, {k: np.array(v, dtype=F32) for k, v in raw.items()}


def rope_tables(head_dim: int, theta: float, positions) -> tuple:
    """(cos, sin) float32 [len(positions), D/2] for rotate_half rope, computed in float64 and then cast: the rows
    of export.graph_decoder.rope_cache (not imported: that module needs onnx, this one runs in a torch venv)."""
    inv_freq = 1.0 / (theta ** (np.arange(0, head_dim, 2, dtype=np.float64) / head_dim))
    ang = np.outer(np.asarray(positions, dtype=np.float64), inv_freq)
    return np.cos(ang).astype(F32), np.sin(ang).astype(F32)


class _Base:
    """Shared state: dims from the manifest, KV cache bookkeeping, greedy decoding."""

    def __init__(self, model_dir: str, capacity: Optional[int] = None):
        self.model_dir = model_dir
        self.manifest, w = load_model(model_dir)
        d = self.dims = self.manifest["dims"]
        self.V, self.H, self.F = d["vocab_size"], d["hidden_size"], d["intermediate_size"]
        self.NH, self.KVH, self.D = d["num_heads"], d["num_kv_heads"], d["head_dim"]
        self.n_layers = d["num_layers"]
        self.eps = F32(d["rms_norm_eps"])
        self.theta = float(d["rope_theta"])
        self.capacity = capacity or min(int(d.get("max_position_embeddings", 2048)), 2048)
        self.tied = "lm_head" not in w
        if self.tied != bool(d.get("tie_word_embeddings", self.tied)):
            raise ValueError(f"{model_dir}: manifest tie_word_embeddings={d.get('tie_word_embeddings')} but "
                             f"gpu.safetensors {'lacks' if self.tied else 'has'} lm_head")
        self._load(w)

    def _load(self, w: dict) -> None:
        raise NotImplementedError

    def forward(self, ids, past_len: int, positions=None) -> np.ndarray:
        """Run S new tokens after `past_len` cached ones (K/V written to slots past_len..); logits [S, V] f32."""
        raise NotImplementedError

    def greedy(self, prompt, n_new: int) -> dict:
        """Greedy-decode n_new tokens after `prompt` from an empty cache.

        Returns {"prompt", "tokens", "first_logits", "top2_gap"}; top2_gap[j] is the margin of tokens[j] over the
        runner-up in the logits it was chosen from (a small gap flags a near-tie that float noise could flip).
        """
        prompt = [int(t) for t in prompt]
        if len(prompt) + n_new > self.capacity:
            raise ValueError(f"prompt {len(prompt)} + {n_new} new tokens exceed capacity {self.capacity}")
        logits = self.forward(prompt, 0)[-1]
        first = logits.astype(F32).tolist()
        tokens, gaps, P = [], [], len(prompt)
        for j in range(n_new):
            t = int(np.argmax(logits))  # first maximum = ties go to the lowest id
            top2 = np.partition(logits, -2)[-2:]
            tokens.append(t)
            gaps.append(float(top2[1] - top2[0]))
            if j + 1 < n_new:  # the last token's logits are never needed
                logits = self.forward([t], P)[-1]
                P += 1
        return {"prompt": prompt, "tokens": tokens, "first_logits": first, "top2_gap": gaps}


class NumpyGpuReference(_Base):
    """float32 numpy forward (batch 1) with a float32 KV cache [layers, KVH, capacity, D]."""

    backend = "numpy"
    device = "cpu"

    def _load(self, w: dict) -> None:
        self.w = w
        self.head = w["embed"] if self.tied else w["lm_head"]
        shape = (self.n_layers, self.KVH, self.capacity, self.D)
        self.k_cache = np.zeros(shape, F32)
        self.v_cache = np.zeros(shape, F32)

    def _rms(self, x, w):
        return (x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + self.eps)).astype(F32) * w

    def _rope(self, x, pos):
        """x [heads, S, D] rotated by int positions pos [S]."""
        cos, sin = rope_tables(self.D, self.theta, pos)
        cos, sin = cos[None], sin[None]
        half = self.D // 2
        x1, x2 = x[..., :half], x[..., half:]
        return np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1)

    def forward(self, ids, past_len: int, positions=None) -> np.ndarray:
        w, NH, KVH, D = self.w, self.NH, self.KVH, self.D
        ids = np.asarray(ids, np.int64)
        S, P = len(ids), past_len
        T = P + S
        if T > self.capacity:
            raise ValueError(f"context {T} exceeds capacity {self.capacity}")
        pos = np.arange(P, T) if positions is None else np.asarray(positions, np.int64)
        mask = np.where(np.arange(T)[None, :] <= (P + np.arange(S))[:, None], F32(0), F32(-np.inf))
        scale = F32(1.0 / np.sqrt(D))
        h = w["embed"][ids]
        for i in range(self.n_layers):
            p = f"layers.{i}."
            x = self._rms(h, w[p + "attn_norm"])
            qkv = x @ w[p + "qkv"].T
            if p + "qkv_bias" in w:
                qkv = qkv + w[p + "qkv_bias"]
            q, k, v = np.split(qkv, [NH * D, (NH + KVH) * D], axis=-1)
            q = self._rope(q.reshape(S, NH, D).transpose(1, 0, 2), pos)
            self.k_cache[i, :, P:T] = self._rope(k.reshape(S, KVH, D).transpose(1, 0, 2), pos)
            self.v_cache[i, :, P:T] = v.reshape(S, KVH, D).transpose(1, 0, 2)
            group = NH // KVH
            kk = np.repeat(self.k_cache[i, :, :T], group, axis=0)
            vv = np.repeat(self.v_cache[i, :, :T], group, axis=0)
            s = (q @ kk.transpose(0, 2, 1)) * scale + mask[None]
            s = np.exp(s - s.max(-1, keepdims=True))
            a = (s / s.sum(-1, keepdims=True)) @ vv  # [NH, S, D]
            h = h + a.transpose(1, 0, 2).reshape(S, NH * D) @ w[p + "o"].T
            x = self._rms(h, w[p + "ffn_norm"])
            g, u = np.split(x @ w[p + "gate_up"].T, 2, axis=-1)
            h = h + ((g / (F32(1) + np.exp(-g))) * u) @ w[p + "down"].T
        return (self._rms(h, w["final_norm"]) @ self.head.T).astype(F32)


class TorchGpuReference(_Base):
    """The same forward in torch float32 (CUDA when available, else CPU); returns numpy logits."""

    backend = "torch"

    def __init__(self, model_dir: str, capacity: Optional[int] = None, device: Optional[str] = None):
        import torch

        self.torch = torch
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        # true float32 matmuls: TF32 would round the inputs to 10 mantissa bits and break the 1e-4 parity
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        torch.set_float32_matmul_precision("highest")
        super().__init__(model_dir, capacity)

    def _load(self, w: dict) -> None:
        t = self.torch
        self.w = {k: t.from_numpy(np.ascontiguousarray(v)).to(self.device) for k, v in w.items()}
        self.head = self.w["embed"] if self.tied else self.w["lm_head"]
        shape = (self.n_layers, self.KVH, self.capacity, self.D)
        self.k_cache = t.zeros(shape, dtype=t.float32, device=self.device)
        self.v_cache = t.zeros_like(self.k_cache)

    def _rms(self, x, w):
        return x / self.torch.sqrt((x * x).mean(-1, keepdim=True) + float(self.eps)) * w

    def _rope(self, x, pos):
        t = self.torch
        # the same float64 tables as numpy (torch's float32 cos/sin of a float32 angle would differ slightly)
        cos, sin = (t.from_numpy(a).to(self.device)[None] for a in rope_tables(self.D, self.theta, pos.cpu().numpy()))
        half = self.D // 2
        x1, x2 = x[..., :half], x[..., half:]
        return t.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)

    def forward(self, ids, past_len: int, positions=None) -> np.ndarray:
        t, w, NH, KVH, D = self.torch, self.w, self.NH, self.KVH, self.D
        with t.no_grad():
            ids = t.as_tensor(np.asarray(ids, np.int64), device=self.device)
            S, P = ids.shape[0], past_len
            T = P + S
            if T > self.capacity:
                raise ValueError(f"context {T} exceeds capacity {self.capacity}")
            pos = (t.arange(P, T, device=self.device) if positions is None
                   else t.as_tensor(np.asarray(positions, np.int64), device=self.device))
            allowed = t.arange(T, device=self.device)[None, :] <= (P + t.arange(S, device=self.device))[:, None]
            mask = t.zeros((S, T), dtype=t.float32, device=self.device).masked_fill(~allowed, float("-inf"))
            scale = float(np.float32(1.0 / np.sqrt(D)))
            h = w["embed"][ids]
            for i in range(self.n_layers):
                p = f"layers.{i}."
                x = self._rms(h, w[p + "attn_norm"])
                qkv = x @ w[p + "qkv"].T
                if p + "qkv_bias" in w:
                    qkv = qkv + w[p + "qkv_bias"]
                q, k, v = t.split(qkv, [NH * D, KVH * D, KVH * D], dim=-1)
                q = self._rope(q.reshape(S, NH, D).transpose(0, 1), pos)
                self.k_cache[i, :, P:T] = self._rope(k.reshape(S, KVH, D).transpose(0, 1), pos)
                self.v_cache[i, :, P:T] = v.reshape(S, KVH, D).transpose(0, 1)
                group = NH // KVH
                kk = self.k_cache[i, :, :T].repeat_interleave(group, dim=0)
                vv = self.v_cache[i, :, :T].repeat_interleave(group, dim=0)
                s = (q @ kk.transpose(1, 2)) * scale + mask[None]
                s = t.exp(s - s.amax(-1, keepdim=True))
                a = (s / s.sum(-1, keepdim=True)) @ vv
                h = h + a.transpose(0, 1).reshape(S, NH * D) @ w[p + "o"].T
                x = self._rms(h, w[p + "ffn_norm"])
                g, u = t.chunk(x @ w[p + "gate_up"].T, 2, dim=-1)
                h = h + ((g / (1 + t.exp(-g))) * u) @ w[p + "down"].T
            logits = self._rms(h, w["final_norm"]) @ self.head.T
            return logits.float().cpu().numpy()


def make_reference(model_dir: str, backend: str = "numpy", capacity: Optional[int] = None):
    """NumpyGpuReference or TorchGpuReference for `model_dir`."""
    if backend == "torch":
        return TorchGpuReference(model_dir, capacity)
    if backend == "numpy":
        return NumpyGpuReference(model_dir, capacity)
    raise ValueError(f"unknown backend {backend!r} (torch | numpy)")


def main(argv=None) -> int:
    """CLI entry point (see the module docstring)."""
    ap = argparse.ArgumentParser(prog="python -m export.gpu_reference",
                                 description="greedy reference decode of DIR/gpu.safetensors (the CUDA backend's math)")
    ap.add_argument("model_dir")
    ap.add_argument("--prompts", required=True, help="JSON file: a list of lists of token ids")
    ap.add_argument("--new-tokens", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--backend", choices=["torch", "numpy"], default="numpy")
    a = ap.parse_args(argv)
    with open(a.prompts) as f:
        prompts = json.load(f)
    if not isinstance(prompts, list) or not all(isinstance(p, list) and p for p in prompts):
        ap.error("--prompts must hold a list of non-empty lists of token ids")
    capacity = max(len(p) for p in prompts) + a.new_tokens
    ref = make_reference(a.model_dir, a.backend, capacity)
    print(f"[gpu-reference] {a.model_dir}: backend {ref.backend} on {ref.device}, {len(prompts)} prompts, "
          f"{a.new_tokens} new tokens each", file=sys.stderr)
    results = []
    for n, p in enumerate(prompts):
        t0 = time.time()
        results.append(ref.greedy(p, a.new_tokens))
        print(f"[gpu-reference] prompt {n + 1}/{len(prompts)}: {len(p)} tokens + {a.new_tokens} in "
              f"{time.time() - t0:.2f}s", file=sys.stderr)
    with open(a.out, "w") as f:
        json.dump({"model": a.model_dir, "backend": ref.backend, "device": str(ref.device), "prompts": results}, f)
    print(a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

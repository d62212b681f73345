"""Plain numpy float32 forward with Hugging Face semantics, used as the parity oracle in tests.

rotate_half rope, grouped-query attention, causal order plus an optional additive bias (token trees), a KV
cache with explicit past length (rollback = pass a smaller past_len). It reads a float `Checkpoint` — pass
`BuildResult.effective` so that int8/int4 parity measures graph errors, not quantization error.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .checkpoint import Checkpoint, as_float
from .graph_decoder import rope_cache

F32 = np.float32


class ReferenceDecoder:
    """Stateful numpy decoder (batch 1) with a KV cache of `capacity` slots per layer."""

    def __init__(self, ck: Checkpoint, capacity: int = 512):
        c = self.cfg = ck.config
        self.embed = as_float(ck.embed)
        # store transposed (in, out) copies once so every step is a plain x @ W
        t = lambda w: np.ascontiguousarray(as_float(w).T)  # noqa: E731
        self.layers = []
        for L in ck.layers:
            self.layers.append(dict(
                attn_norm=L.attn_norm.astype(F32), ffn_norm=L.ffn_norm.astype(F32),
                q=t(L.q), k=t(L.k), v=t(L.v), o=t(L.o), gate=t(L.gate), up=t(L.up), down=t(L.down),
                qb=L.q_bias, kb=L.k_bias, vb=L.v_bias))
        self.final_norm = ck.final_norm.astype(F32)
        self.head = t(ck.lm_head if ck.lm_head is not None else ck.embed)
        self.cos, self.sin = rope_cache(c.head_dim, c.rope_theta, c.max_position_embeddings)
        n = len(self.layers)
        self.k_cache = np.zeros((n, c.num_kv_heads, capacity, c.head_dim), F32)
        self.v_cache = np.zeros_like(self.k_cache)

    def _rms(self, x, w):
        var = np.mean(x * x, axis=-1, keepdims=True)
        return (x / np.sqrt(var + F32(self.cfg.rms_norm_eps))).astype(F32) * w

    def _rope(self, x, pos):
        """x [heads, S, D] rotated by positions pos [S] (rotate_half convention)."""
        half = x.shape[-1] // 2
        cos, sin = self.cos[pos][None], self.sin[pos][None]
        x1, x2 = x[..., :half], x[..., half:]
        return np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1)

    def forward(self, ids, positions, past_len: int, bias: Optional[np.ndarray] = None,
                return_hidden: bool = False):
        """Run S new tokens after `past_len` cached ones; writes their K/V into slots past_len.. .

        ids, positions: [S] ints. bias: additive [S, past_len + S] on top of causal order.
        Returns logits [S, V] (and the pre-final-norm hidden states [S, H] when return_hidden).
        """
        c = self.cfg
        ids = np.asarray(ids, np.int64)
        pos = np.asarray(positions, np.int64)
        S, P, D = len(ids), past_len, c.head_dim
        T = P + S
        NH, KVH = c.num_heads, c.num_kv_heads
        group = NH // KVH
        scale = F32(1.0 / np.sqrt(D))
        mask = np.where(np.arange(T)[None, :] <= (P + np.arange(S))[:, None], F32(0), F32(-np.inf))
        if bias is not None:
            mask = mask + np.asarray(bias, F32)
        h = self.embed[ids]
        for li, L in enumerate(self.layers):
            x = self._rms(h, L["attn_norm"])
            q, k, v = x @ L["q"], x @ L["k"], x @ L["v"]
            if L["qb"] is not None:
                q, k, v = q + L["qb"], k + L["kb"], v + L["vb"]
            q = self._rope(q.reshape(S, NH, D).transpose(1, 0, 2), pos)
            k = self._rope(k.reshape(S, KVH, D).transpose(1, 0, 2), pos)
            self.k_cache[li, :, P:T] = k
            self.v_cache[li, :, P:T] = v.reshape(S, KVH, D).transpose(1, 0, 2)
            kk = np.repeat(self.k_cache[li, :, :T], group, axis=0)
            vv = np.repeat(self.v_cache[li, :, :T], group, axis=0)
            s = (q @ kk.transpose(0, 2, 1)) * scale + mask[None]
            s = np.exp(s - s.max(-1, keepdims=True))
            a = (s / s.sum(-1, keepdims=True)) @ vv  # [NH, S, D]
            h = h + a.transpose(1, 0, 2).reshape(S, NH * D) @ L["o"]
            x = self._rms(h, L["ffn_norm"])
            g = x @ L["gate"]
            h = h + ((g / (F32(1) + np.exp(-g))) * (x @ L["up"])) @ L["down"]
        logits = self._rms(h, self.final_norm) @ self.head
        return (logits, h) if return_hidden else logits

    def greedy(self, prompt_ids, n_new: int) -> list:
        """Greedy-decode n_new tokens after the prompt (fresh cache from position 0)."""
        logits = self.forward(prompt_ids, np.arange(len(prompt_ids)), 0)
        out, P = [], len(prompt_ids)
        for _ in range(n_new):
            t = int(np.argmax(logits[-1]))
            out.append(t)
            logits = self.forward([t], [P], P)
            P += 1
        return out

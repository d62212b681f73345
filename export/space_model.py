"""PyTorch (CPU) Llama-family decoder for SPACE training: frozen base weights, LoRA adapters, one mask-token row.

Role: the model export/train_space.py fine-tunes and export/space_data.py generates with. Its math is the ONNX
graph's (export/graph_decoder.py): RMSNorm x / sqrt(mean(x^2) + eps) * w, rotate_half rope with float64 tables
cast to float32, grouped-query attention with an additive bias [B, 1, S, past + S] (0 visible, -1e9 hidden),
SwiGLU MLP, final norm, tied or separate LM head. Every call takes explicit positions and an explicit bias, so a
training batch can pack mask groups with the same visibility and positions the engine's SPACE segment uses.

Trainable parts: LoRA on the fused q|k|v and gate|up projections and on o and down (delta = B @ A * alpha / r, B
initialised to zero so step 0 is the base model), and `mask_row`, the embedding of the mask token.

Adapter modes (`adapter=`): "mask_only" (the default) gates every LoRA delta per row, out = W x + g * delta(x)
with g = 1 exactly where the input id is the mask token and 0 elsewhere, so a real token computes exactly the
base model (x * 0 = 0, W x + 0 = W x) and SPACE stays lossless against the BASE model; "merged" adds the delta on
every row (the first committed run's mode, kept for comparison: real tokens change, docs/SPACE.md). The mask token's
id is the base vocabulary size: it has an input embedding only; the LM head keeps the base vocabulary, so no
logit can ever name it (the contract in export/README.md). torch is imported lazily by the callers' venv.
"""
from __future__ import annotations

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from .checkpoint import Checkpoint, as_float

NEG = -1e9
# LoRA targets per layer: name -> (rows of the fused weight it adapts are computed from the config)
LORA_TARGETS = ("qkv", "o", "gate_up", "down")
# Adapter modes: the delta on mask rows only (real tokens = the base model) or on every row (a merge into W).
ADAPTER_MODES = ("mask_only", "merged")


def rope_tables(head_dim: int, theta: float, max_pos: int) -> tuple:
    """cos/sin [max_pos, head_dim // 2] in float64 cast to float32, exactly export.graph_decoder.rope_cache."""
    inv = 1.0 / theta ** (np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)
    ang = np.arange(max_pos, dtype=np.float64)[:, None] * inv[None, :]
    return torch.from_numpy(np.cos(ang).astype(np.float32)), torch.from_numpy(np.sin(ang).astype(np.float32))


class Lora(nn.Module):
    """delta(x) = (x @ A^T) @ B^T * scale; B starts at zero so the adapted model starts as the base model."""

    def __init__(self, n_in: int, n_out: int, rank: int, alpha: float, gen: torch.Generator):
        super().__init__()
        self.a = nn.Parameter(torch.randn(rank, n_in, generator=gen) / n_in ** 0.5)
        self.b = nn.Parameter(torch.zeros(n_out, rank))
        self.scale = alpha / rank

    def forward(self, x):
        return (x @ self.a.t()) @ self.b.t() * self.scale

    def delta(self) -> torch.Tensor:
        """The dense (n_out, n_in) weight delta this adapter adds."""
        return (self.b @ self.a) * self.scale


class SpaceDecoder(nn.Module):
    """Frozen base decoder + LoRA + mask-token row. `forward(ids, positions, bias, cache)` -> logits."""

    def __init__(self, ck: Checkpoint, rank: int = 16, alpha: float = 32.0, seed: int = 0, max_pos: int = 4096,
                 adapter: str = "mask_only"):
        super().__init__()
        if adapter not in ADAPTER_MODES:
            raise ValueError(f"adapter must be one of {ADAPTER_MODES}, got {adapter!r}")
        self.adapter = adapter
        c = ck.config
        self.cfg = c
        self.vocab = c.vocab_size
        self.mask_id = c.vocab_size
        self.NH, self.KVH, self.D, self.eps = c.num_heads, c.num_kv_heads, c.head_dim, float(c.rms_norm_eps)
        gen = torch.Generator().manual_seed(seed)
        f = lambda w: torch.from_numpy(np.require(as_float(w), np.float32, ["C", "W"]))  # noqa: E731
        embed = f(ck.embed)
        self.register_buffer("embed", embed, persistent=False)
        self.register_buffer("head", embed if ck.lm_head is None else f(ck.lm_head), persistent=False)
        self.register_buffer("final_norm", f(ck.final_norm), persistent=False)
        self.base = []  # per layer: dict of frozen tensors (plain attributes: never trained, never saved)
        self.lora = nn.ModuleList()
        H, q_out, kv_out = c.hidden_size, c.num_heads * c.head_dim, c.num_kv_heads * c.head_dim
        for L in ck.layers:
            qkv = torch.cat([f(L.q), f(L.k), f(L.v)], 0)
            bias = None
            if L.q_bias is not None:
                bias = torch.cat([f(L.q_bias), f(L.k_bias), f(L.v_bias)], 0)
            self.base.append({"attn_norm": f(L.attn_norm), "qkv": qkv, "qkv_bias": bias, "o": f(L.o),
                              "ffn_norm": f(L.ffn_norm), "gate_up": torch.cat([f(L.gate), f(L.up)], 0),
                              "down": f(L.down)})
            F_ = c.intermediate_size
            self.lora.append(nn.ModuleDict({
                "qkv": Lora(H, q_out + 2 * kv_out, rank, alpha, gen), "o": Lora(q_out, H, rank, alpha, gen),
                "gate_up": Lora(H, 2 * F_, rank, alpha, gen), "down": Lora(F_, H, rank, alpha, gen)}))
        # The mask row starts at the mean embedding: a neutral input the adapters learn to read.
        self.mask_row = nn.Parameter(embed.mean(0).clone())
        self.cos, self.sin = rope_tables(c.head_dim, c.rope_theta, max_pos)
        self.use_lora = True

    # -----------------------------------------------------------------------------------------------------------
    def _rms(self, x, w):
        return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + self.eps) * w

    def _rope(self, x, pos):  # x [B, h, S, D], pos [B, S]
        cos, sin = self.cos[pos][:, None], self.sin[pos][:, None]
        h = self.D // 2
        x1, x2 = x[..., :h], x[..., h:]
        return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1)

    def _lin(self, x, i: int, name: str, gate, bias=None):
        y = x @ self.base[i][name].t()
        if bias is not None:
            y = y + bias
        if self.use_lora:
            # gated input, as the export's graph computes it: a real row's delta is 0 @ A^T @ B^T = 0 exactly
            y = y + self.lora[i][name](x if gate is None else x * gate)
        return y

    def gate(self, ids):
        """[B, S, 1] float32: 1 at mask-token rows, 0 elsewhere; None in the "merged" mode (delta on every row)."""
        return (ids == self.mask_id)[..., None].float() if self.adapter == "mask_only" else None

    def embed_ids(self, ids):
        """Embeddings of ids [B, S]; the mask id reads `mask_row`."""
        is_mask = (ids == self.mask_id)[..., None]
        e = self.embed[ids.clamp(max=self.vocab - 1)]
        return torch.where(is_mask, self.mask_row.to(e.dtype), e)

    def forward(self, ids, positions, bias, cache=None, cache_len: int = 0, logits_index=None):
        """ids/positions [B, S] int64, bias [B, 1, S, cache_len + S] additive float32.

        cache: optional list of (k, v) tensors [B, KVH, T_max, D] per layer, written at cache_len..cache_len+S.
        logits_index: optional [B, n] positions whose logits are returned (default all) -> [B, n, vocab].
        """
        B, S = ids.shape
        x = self.embed_ids(ids)
        gate = self.gate(ids)
        NH, KVH, D = self.NH, self.KVH, self.D
        for i, b in enumerate(self.base):
            h = self._rms(x, b["attn_norm"])
            qkv = self._lin(h, i, "qkv", gate, b["qkv_bias"])
            q, k, v = qkv.split([NH * D, KVH * D, KVH * D], -1)
            q = self._rope(q.view(B, S, NH, D).transpose(1, 2), positions)
            k = self._rope(k.view(B, S, KVH, D).transpose(1, 2), positions)
            v = v.view(B, S, KVH, D).transpose(1, 2)
            if cache is not None:
                ck_, cv_ = cache[i]
                ck_[:, :, cache_len:cache_len + S] = k
                cv_[:, :, cache_len:cache_len + S] = v
                k, v = ck_[:, :, :cache_len + S], cv_[:, :, :cache_len + S]
            rep = NH // KVH
            k = k.repeat_interleave(rep, 1)
            v = v.repeat_interleave(rep, 1)
            a = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
            x = x + self._lin(a.transpose(1, 2).reshape(B, S, NH * D), i, "o", gate)
            h = self._rms(x, b["ffn_norm"])
            g, u = self._lin(h, i, "gate_up", gate).chunk(2, -1)
            x = x + self._lin(F.silu(g) * u, i, "down", gate)
        if logits_index is not None:
            x = torch.gather(x, 1, logits_index[..., None].expand(-1, -1, x.shape[-1]))
        return self._rms(x, self.final_norm) @ self.head.t()

    def new_cache(self, batch: int, capacity: int) -> list:
        """Zeroed KV cache for `forward(cache=...)`."""
        z = lambda: torch.zeros(batch, self.KVH, capacity, self.D)  # noqa: E731
        return [(z(), z()) for _ in self.base]

    # -----------------------------------------------------------------------------------------------------------
    def trainable_state(self) -> dict:
        """The artifact: LoRA factors (name -> tensor) and the mask row."""
        out = {"mask_row": self.mask_row.detach().clone()}
        for i, m in enumerate(self.lora):
            for name, l in m.items():
                out[f"layers.{i}.{name}.lora_a"] = l.a.detach().clone()
                out[f"layers.{i}.{name}.lora_b"] = l.b.detach().clone()
        return out

    def load_trainable(self, sd: dict) -> None:
        """Inverse of trainable_state (tensors are copied in, dtype widened to float32)."""
        with torch.no_grad():
            self.mask_row.copy_(sd["mask_row"].float())
            for i, m in enumerate(self.lora):
                for name, l in m.items():
                    l.a.copy_(sd[f"layers.{i}.{name}.lora_a"].float())
                    l.b.copy_(sd[f"layers.{i}.{name}.lora_b"].float())


def causal_left_padded(lengths: list, width: int) -> tuple:
    """Positions [B, W] and bias [B, 1, W, W] for a left-padded batch of prompts (rows of `lengths` tokens in a
    width-W block): causal among real tokens, pads hidden (a pad row sees itself so no row is all -inf)."""
    B = len(lengths)
    pos = torch.zeros(B, width, dtype=torch.long)
    bias = torch.full((B, 1, width, width), NEG)
    causal = torch.tril(torch.ones(width, width, dtype=torch.bool))
    for r, n in enumerate(lengths):
        pad = width - n
        pos[r, pad:] = torch.arange(n)
        vis = causal.clone()
        vis[:, :pad] = False
        vis[torch.arange(pad), torch.arange(pad)] = True
        bias[r, 0][vis] = 0.0
    return pos, bias

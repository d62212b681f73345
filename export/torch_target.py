"""The target decoder in PyTorch, for the draft-head cache (`python -m export.head_data cache --backend torch`).

Role: teacher-forced passes over training chunks (positions 0..n-1, no KV cache) that return what the head recipe
stores per position: the last layer's residual stream (the decoder contract's `hidden_states` output, i.e. BEFORE
the final norm) and the logits. It reads the checkpoint the target was exported from (the GGUF's own blocks,
dequantized exactly, export/checkpoint_gguf.py), so labels and states come from the same weights the engine runs.

Why not ONNX Runtime, as for SmolLM2: on a 2-vCPU Xeon (AMX) the int4 Qwen2.5-Coder-1.5B graph took ~7 s per
256-token chunk at 2 intra-op threads (~35-60 tokens/s), which leaves a 40-minute cache at ~100k positions. Here
the matrix products run in bfloat16 (oneDNN's AMX / AVX512-BF16 kernels where the CPU has them) with the residual
stream, norms, rotary and softmax statistics in float32; the figures are in docs/HEADS.md (Qwen section).

Numerics, stated: weights = the checkpoint's dequantized values rounded to bfloat16 (8-bit mantissa) for the
matrix products; activations enter each product in bfloat16, accumulate in float32. The engine's int4 kernels
quantize activations to int8 instead, so a label can differ from the engine's argmax where the top two logits
are nearly tied; `agreement()` measures that against the ONNX export on the same chunk (docs/HEADS.md).

Rotary: rotate_half (Hugging Face layout, which load_gguf restores), tables in float64 then float32, exactly
export.graph_decoder.rope_cache. Attention: grouped-query, causal, scale 1/sqrt(head_dim).
"""
from __future__ import annotations

import numpy as np

from .checkpoint import Checkpoint, as_float


class TorchTarget:
    """`forward(ids) -> (logits [n, V] float32, hidden [n, H] float32)` for one chunk starting at position 0."""

    def __init__(self, ck: Checkpoint, dtype: str = "bfloat16", threads: int = 1, max_pos: int = 4096):
        import torch

        torch.set_num_threads(threads)
        self.torch = torch
        self.dt = {"bfloat16": torch.bfloat16, "float32": torch.float32}[dtype]
        c = ck.config
        self.cfg = c
        self.NH, self.KVH, self.D, self.eps = c.num_heads, c.num_kv_heads, c.head_dim, float(c.rms_norm_eps)

        def mat(w):  # [out, in] -> [in, out] in the product dtype, contiguous for x @ W
            return torch.from_numpy(np.ascontiguousarray(as_float(w).T)).to(self.dt)

        def vec(w):
            return torch.from_numpy(np.asarray(as_float(w), np.float32).copy())

        self.embed = torch.from_numpy(np.require(as_float(ck.embed), np.float32, ["C"]))
        self.head = mat(ck.embed if ck.lm_head is None else ck.lm_head)  # [H, V]
        self.final_norm = vec(ck.final_norm)
        self.layers = []
        for L in ck.layers:
            qkv = np.concatenate([as_float(L.q), as_float(L.k), as_float(L.v)], 0)
            bias = None
            if L.q_bias is not None:
                bias = torch.from_numpy(np.concatenate([L.q_bias, L.k_bias, L.v_bias]).astype(np.float32))
            self.layers.append({
                "attn_norm": vec(L.attn_norm), "qkv": mat(qkv), "qkv_bias": bias, "o": mat(L.o),
                "ffn_norm": vec(L.ffn_norm),
                "gate_up": mat(np.concatenate([as_float(L.gate), as_float(L.up)], 0)), "down": mat(L.down)})
        from .space_model import rope_tables  # the torch tables of the SPACE recipe: graph_decoder.rope_cache's

        self.cos, self.sin = rope_tables(self.D, c.rope_theta, max_pos)

    def _rms(self, x, w):
        return x * self.torch.rsqrt((x * x).mean(-1, keepdim=True) + self.eps) * w

    def _mm(self, x, w):
        return (x.to(self.dt) @ w).float()

    def _rope(self, x, n):  # x [h, n, D]
        cos, sin = self.cos[:n], self.sin[:n]
        h = self.D // 2
        x1, x2 = x[..., :h], x[..., h:]
        return self.torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1)

    def forward(self, ids) -> tuple:
        torch = self.torch
        F = torch.nn.functional
        with torch.inference_mode():
            t = torch.as_tensor(np.asarray(ids, np.int64))
            n = t.shape[0]
            x = self.embed[t]  # [n, H] float32
            q_out, kv_out = self.NH * self.D, self.KVH * self.D
            for L in self.layers:
                a = self._mm(self._rms(x, L["attn_norm"]), L["qkv"])
                if L["qkv_bias"] is not None:
                    a = a + L["qkv_bias"]
                q = a[:, :q_out].view(n, self.NH, self.D).transpose(0, 1)
                k = a[:, q_out:q_out + kv_out].view(n, self.KVH, self.D).transpose(0, 1)
                v = a[:, q_out + kv_out:].view(n, self.KVH, self.D).transpose(0, 1)
                q, k = self._rope(q, n), self._rope(k, n)
                rep = self.NH // self.KVH
                k, v = k.repeat_interleave(rep, 0), v.repeat_interleave(rep, 0)
                o = F.scaled_dot_product_attention(q.to(self.dt), k.to(self.dt), v.to(self.dt), is_causal=True)
                x = x + self._mm(o.transpose(0, 1).reshape(n, q_out), L["o"])
                gu = self._mm(self._rms(x, L["ffn_norm"]), L["gate_up"])
                g, u = gu.chunk(2, -1)
                x = x + self._mm(F.silu(g) * u, L["down"])
            logits = self._mm(self._rms(x, self.final_norm), self.head)
            return logits.numpy(), x.numpy()

    def head_rows(self) -> np.ndarray:
        """The output head's rows [V, H] as float16 (the heads' output matrices start from them)."""
        return self.head.float().T.contiguous().numpy().astype(np.float16)


def agreement(torch_target: TorchTarget, ort_dir: str, ids: list, threads: int = 1) -> dict:
    """Argmax agreement and hidden-state error of TorchTarget against the ONNX export `ort_dir` on one chunk."""
    from .ort_runner import OrtDecoder

    dec = OrtDecoder(ort_dir, capacity=len(ids) + 8, threads=threads)
    lo, ho = dec.forward(ids, np.arange(len(ids)), 0, return_hidden=True)
    lt, ht = torch_target.forward(ids)
    rel = float(np.linalg.norm(ht - ho) / max(np.linalg.norm(ho), 1e-12))
    return {"positions": len(ids), "argmax_agreement": float((lo.argmax(-1) == lt.argmax(-1)).mean()),
            "hidden_rel_error": rel}

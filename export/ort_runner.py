"""Run an exported decoder with onnxruntime exactly the way the engine does (IOBinding, one shared KV buffer).

For every layer one preallocated numpy array [B, KVH, C, D] is wrapped as an OrtValue (no copy: the OrtValue
aliases the numpy memory) and bound as BOTH `past_key.i` (input) and `present_key.i` (output).
GroupQueryAttention then detects past == present and writes the new K/V into slots P..P+S-1 in place.
Rolling back is just passing a smaller P; compacting a tree path is a row copy inside the numpy array.
"""
from __future__ import annotations

import json
import os
from typing import Optional

import numpy as np


class OrtDecoder:
    """A model folder (or .onnx path + manifest) loaded into onnxruntime with shared-buffer KV binding."""

    def __init__(self, model_dir: str, capacity: int = 512, threads: int = 2, batch: int = 1):
        import onnxruntime as ort

        with open(os.path.join(model_dir, "manifest.json")) as f:
            self.manifest = json.load(f)
        d = self.manifest["dims"]
        self.n_layers, self.vocab = d["num_layers"], d["vocab_size"]
        kv_dtype = np.float16 if self.manifest["kv_cache"]["dtype"] == "float16" else np.float32
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        self.sess = ort.InferenceSession(os.path.join(model_dir, self.manifest["graph"]["file"]), so,
                                         providers=["CPUExecutionProvider"])
        self.capacity, self.batch = capacity, batch
        shape = (batch, d["num_kv_heads"], capacity, d["head_dim"])
        self.k = [np.zeros(shape, kv_dtype) for _ in range(self.n_layers)]
        self.v = [np.zeros(shape, kv_dtype) for _ in range(self.n_layers)]
        self.io = self.sess.io_binding()
        self.has_hidden = self.manifest.get("hidden_states", False)
        # get_outputs() returns outputs in binding order (a re-bound name keeps its slot): bind logits and
        # hidden_states first so they are always outputs 0 and 1
        self.io.bind_output("logits", "cpu")
        if self.has_hidden:
            self.io.bind_output("hidden_states", "cpu")
        self._kv_ort = []
        for i in range(self.n_layers):
            kv = ort.OrtValue.ortvalue_from_numpy(self.k[i]), ort.OrtValue.ortvalue_from_numpy(self.v[i])
            self._kv_ort.append(kv)  # keep the OrtValues alive alongside the numpy arrays they alias
            self.io.bind_ortvalue_input(f"past_key.{i}", kv[0])
            self.io.bind_ortvalue_output(f"present_key.{i}", kv[0])
            self.io.bind_ortvalue_input(f"past_value.{i}", kv[1])
            self.io.bind_ortvalue_output(f"present_value.{i}", kv[1])

    def forward(self, ids, positions, past_len: int, bias: Optional[np.ndarray] = None,
                logits_indices=None, return_hidden: bool = False):
        """One graph run over S new tokens (batch 1) after `past_len` cached ones.

        bias: additive [S, past_len + S] (default all zeros = plain causal). logits_indices default: all rows.
        Returns logits [L, V] (and hidden_states [S, H] when return_hidden).
        """
        ids = np.asarray(ids, np.int64).reshape(1, -1)
        S = ids.shape[1]
        T = past_len + S
        if T > self.capacity:
            raise ValueError(f"context {T} exceeds capacity {self.capacity}")
        pos = np.asarray(positions, np.int64).reshape(1, S)
        if bias is None:
            bias = np.zeros((S, T), np.float32)
        bias = np.asarray(bias, np.float32).reshape(1, 1, S, T)
        li = np.arange(S, dtype=np.int64) if logits_indices is None else np.asarray(logits_indices, np.int64)
        io = self.io
        io.bind_cpu_input("input_ids", ids)
        io.bind_cpu_input("position_ids", pos)
        io.bind_cpu_input("attention_bias", bias)
        io.bind_cpu_input("seqlens_k", np.array([T - 1], np.int32))
        io.bind_cpu_input("total_sequence_length", np.array(T, np.int32))
        io.bind_cpu_input("logits_indices", li)
        io.bind_output("logits", "cpu")
        if self.has_hidden:
            io.bind_output("hidden_states", "cpu")
        self.sess.run_with_iobinding(io)
        outs = io.get_outputs()
        logits = outs[0].numpy()[0]
        if return_hidden:
            return logits, (outs[1].numpy()[0] if self.has_hidden else None)
        return logits

    def compact(self, src_slots, dst_start: int):
        """Copy KV rows src_slots -> dst_start.. in every layer (accepting a tree path)."""
        src = np.asarray(src_slots)
        for a in self.k + self.v:
            a[:, :, dst_start:dst_start + len(src)] = a[:, :, src].copy()

    def greedy(self, prompt_ids, n_new: int) -> list:
        """Greedy decode (prefill + n_new single-token steps), logits only for the last row."""
        P = len(prompt_ids)
        logits = self.forward(prompt_ids, np.arange(P), 0, logits_indices=[P - 1])
        out = []
        for _ in range(n_new):
            t = int(np.argmax(logits[-1]))
            out.append(t)
            logits = self.forward([t], [P], P, logits_indices=[0])
            P += 1
        return out

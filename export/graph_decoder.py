"""Build the specrt decoder ONNX graph (see export/README.md for the I/O contract).

Per layer: RMSNorm (fused with the residual add via com.microsoft SkipSimplifiedLayerNormalization), one packed
QKV projection, GroupQueryAttention (com.microsoft) with in-op rotary (rotate_half, explicit position_ids), an
additive attention_bias and a past/present KV buffer that the engine binds to ONE preallocated allocation,
output projection, SwiGLU MLP with packed gate/up. Then the final norm, a Gather of the requested rows
(`logits_indices`) and the LM head. Precisions: fp32 (MatMul), int8/int4 (MatMulNBits), fp16 (GPU only).

SPACE exports with a mask-only adapter (export/space_merge.py `lowrank`) add to each of the four projections a
low-rank path gated to the mask rows: gate = Cast(Equal(input_ids, mask_id)) as [B, T, 1], computed once, then
y = W x + ((x * gate) @ A^T) @ (B^T * alpha / r). A real token's path is exactly 0, so its logits are the plain
export's bit for bit, and the base weights stay as the plain export packs them (int4 Q4_1 + offset included).
With `--linear-kernel ggml` the path runs inside MatMulGgml instead (inputs 3-5: A and B^T as Q8_0 blocks, and the
bool mask-row flags), on the mask rows only: four graph nodes per projection cost the export's one-token step ~29%.
"""
from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass, field, replace
from typing import Optional

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from .checkpoint import Checkpoint, LayerWeights, QuantTensor, as_float
from .ggml_blocks import ggml_encode
from .quantize import PackedMatrix, pack_weight

OPSET = 23  # RMSNormalization is an opset-23 op; ORT 1.31 implements opset 23
MS = "com.microsoft"
# The engine's own operators (engine/backend/onnxruntime/block_matmul_op.rs); only the Rust engine runs them.
SPECRT = "ai.specrt"
GGML_KERNEL_TYPES = ("Q4_0", "Q4_1", "Q8_0", "Q4_K", "Q6_K")
LINEAR_KERNELS = ("matmulnbits", "ggml")
ATTENTION_KERNELS = ("gqa", "specrt", "plain")
PRECISIONS = ("fp32", "fp16", "int8", "int4")


def rope_cache(head_dim: int, theta: float, max_pos: int) -> tuple:
    """cos/sin caches [max_pos, head_dim/2] (float32) for rotate_half rope, computed in float64."""
    inv_freq = 1.0 / (theta ** (np.arange(0, head_dim, 2, dtype=np.float64) / head_dim))
    ang = np.outer(np.arange(max_pos, dtype=np.float64), inv_freq)
    return np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)


@dataclass
class BuildResult:
    """The ONNX model plus what the manifest and the parity tests need."""

    model: onnx.ModelProto
    effective: Checkpoint  # float32 weights exactly as the graph uses them (for reference_numpy)
    inputs: list  # [{"name", "dtype", "shape"}]
    outputs: list
    notes: list = field(default_factory=list)
    precision: dict = field(default_factory=dict)


# Initializers written straight to the external data file while a graph is built (see stream_external_data).
_STREAM: Optional[dict] = None
# Tensors of at least this many bytes go to the external data file (onnx.save_model's size_threshold below);
# those of at least ALIGN_FROM start at a multiple of ALIGN (as onnx aligns them, for memory mapping).
EXTERNAL_FROM, ALIGN_FROM, ALIGN = 1024, 1 << 20, 4096


@contextlib.contextmanager
def stream_external_data(out_dir: str, name: str = "model.onnx"):
    """While active, every large initializer a _Graph creates is appended to `out_dir/<name>.data` at once and only
    a reference stays in memory; save_model then writes the graph alone. Why: a graph held its weights twice more
    (the TensorProtos, then onnx's external-data conversion at save), which put the fp32 export of
    Qwen2.5-Coder-1.5B (6.2 GB of weights) past the 24 GB of these machines; streamed, its peak is the
    checkpoint and the float copy the reference checks keep (BuildResult.effective)."""
    global _STREAM
    location = name + ".data"
    with open(os.path.join(out_dir, location), "wb") as f:
        _STREAM = {"file": f, "location": location, "offset": 0, "dir": out_dir}
        try:
            yield
        finally:
            _STREAM = None


def _streamed_tensor(name: str, arr: np.ndarray) -> TensorProto:
    """A TensorProto whose bytes were appended to the active stream (little-endian, row-major)."""
    a = np.ascontiguousarray(arr)
    if a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("<"))
    f = _STREAM["file"]
    offset = _STREAM["offset"]
    if a.nbytes >= ALIGN_FROM and offset % ALIGN:
        pad = ALIGN - offset % ALIGN
        f.write(b"\0" * pad)
        offset += pad
    f.write(a.tobytes())
    _STREAM["offset"] = offset + a.nbytes
    t = TensorProto()
    t.name = name
    t.data_type = helper.np_dtype_to_tensor_dtype(a.dtype)
    t.dims.extend(a.shape)
    t.data_location = TensorProto.EXTERNAL
    for key, value in (("location", _STREAM["location"]), ("offset", str(offset)), ("length", str(a.nbytes))):
        entry = t.external_data.add()
        entry.key, entry.value = key, value
    return t


class _Graph:
    """Tiny helper around onnx.helper that tracks nodes, initializers and unique names."""

    def __init__(self):
        self.nodes, self.inits, self._n = [], [], 0

    def init(self, name: str, arr: np.ndarray) -> str:
        a = np.asarray(arr)
        if _STREAM is not None and a.nbytes >= EXTERNAL_FROM and a.dtype != object:
            self.inits.append(_streamed_tensor(name, a))
        else:
            self.inits.append(numpy_helper.from_array(np.ascontiguousarray(a), name))
        return name

    def op(self, op_type: str, inputs: list, n_out: int = 1, domain: str = "", name: Optional[str] = None,
           outputs: Optional[list] = None, **attrs):
        self._n += 1
        base = name or f"{op_type}_{self._n}"
        outs = outputs or [f"{base}/out{i}" for i in range(n_out)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=base, domain=domain or None, **attrs))
        return outs[0] if len(outs) == 1 else outs


def lowrank_up_blocks(b_t: np.ndarray) -> np.ndarray:
    """B^T [r, N] as Q8_0 blocks along N, stored column block by column block: uint8 [N / 32, r * 34], block
    (j, b) at row b, slot j (MatMulGgml's input 4, engine/kernels/low_rank.rs: a column task reads one contiguous
    run instead of r scattered rows)."""
    r, n = b_t.shape
    if n % 32:
        raise ValueError(f"low-rank B^T has {n} columns, not a multiple of 32")
    blocks = ggml_encode(np.ascontiguousarray(b_t, np.float32), "Q8_0").reshape(r, n // 32, 34)
    return np.ascontiguousarray(blocks.transpose(1, 0, 2).reshape(n // 32, r * 34))


def _concat_packed(parts: list) -> PackedMatrix:
    """Concatenate PackedMatrix parts along N (rows): exact, every row is independent in MatMulNBits."""
    if len(parts) == 1:
        return parts[0]
    bits = parts[0].bits
    zps = None
    if any(p.zero_points is not None for p in parts):
        # materialize the op's default zero point (2^(bits-1)) for parts that relied on it
        zps = []
        for p in parts:
            if p.zero_points is not None:
                zps.append(p.zero_points)
            else:
                nb = p.k // p.block_size
                zp = np.full((p.n, nb), 1 << (bits - 1), np.uint8)
                if bits == 4:
                    if nb % 2:
                        zp = np.concatenate([zp, np.zeros((p.n, 1), np.uint8)], 1)
                    zp = (zp[:, 0::2] | (zp[:, 1::2] << 4))
                zps.append(zp.reshape(-1))
        zps = np.concatenate(zps)
    offs = None
    if any(p.offset is not None for p in parts):
        offs = np.concatenate([p.offset if p.offset is not None
                               else np.zeros((p.n, p.k // p.block_size), np.float32) for p in parts])
    err = [p.error for p in parts if p.error]
    return PackedMatrix(
        bits=bits, n=sum(p.n for p in parts), k=parts[0].k, b=np.concatenate([p.b for p in parts]),
        scales=np.concatenate([p.scales for p in parts]), zero_points=zps, offset=offs,
        effective=np.concatenate([p.effective for p in parts]), exact=all(p.exact for p in parts),
        error=None if not err else {k: max(e[k] for e in err) for k in err[0]})


class _Builder:
    def __init__(self, ck: Checkpoint, precision: str, accuracy_level: int, requantize: bool,
                 lm_head_bits: Optional[int], linear_kernel: str = "matmulnbits", attention_kernel: str = "gqa",
                 kv_dtype: str = "auto"):
        if linear_kernel not in LINEAR_KERNELS:
            raise ValueError(f"linear_kernel must be one of {LINEAR_KERNELS}")
        if attention_kernel not in ATTENTION_KERNELS:
            raise ValueError(f"attention_kernel must be one of {ATTENTION_KERNELS}")
        self.linear_kernel, self.attention_kernel = linear_kernel, attention_kernel
        if kv_dtype not in ("auto", "fp16"):
            raise ValueError("kv_dtype must be auto or fp16")
        if kv_dtype == "fp16" and attention_kernel != "specrt" and precision != "fp16":
            raise ValueError("kv_dtype fp16 with float32 activations needs attention_kernel specrt (GroupQueryAttention "
                             "takes the cache in the activations' type)")
        # fp16 exports keep everything in fp16; otherwise the cache is fp32 unless asked for fp16
        self.kv_f16 = precision == "fp16" or kv_dtype == "fp16"
        self.ggml_nodes = {}  # ggml_type -> MatMulGgml nodes written
        self.nbits_nodes = 0  # MatMulNBits nodes written
        self.ck, self.cfg = ck, ck.config
        self.precision, self.acc, self.requantize = precision, accuracy_level, requantize
        self.bits = {"int8": 8, "int4": 4}.get(precision)
        if self.bits is None:
            self.lm_head_bits = None
        else:
            # Default LM head: 8 bit with accuracy_level 4 (exact for Q8_0, ~1 ms); with accuracy_level 0 a float
            # Gemm, because 8-bit MatMulNBits at accuracy_level 0 is a slow fallback on CPU (~90 ms for 49k x 576).
            if lm_head_bits is None:
                lm_head_bits = 8 if accuracy_level == 4 else 32
            self.lm_head_bits = None if lm_head_bits == 32 else lm_head_bits
        self.fdtype = np.float16 if precision == "fp16" else np.float32
        self.tdtype = TensorProto.FLOAT16 if precision == "fp16" else TensorProto.FLOAT
        self.g = _Graph()
        self.errors = []  # (tensor name, error dict) for re-quantized weights
        self.exact_all = True
        self.offset_terms = 0
        self.lowrank_in_kernel = 0  # projections whose SPACE adapter runs inside MatMulGgml (inputs 3-5)
        self.space_is_mask: Optional[str] = None  # bool [B, T], set by build() for a SPACE adapter
        self.space_gate: Optional[str] = None  # float [B, T, 1], made on first use by _gated_lowrank

    # -- linear layers ---------------------------------------------------------------------------------
    def linear(self, x: str, weights: list, name: str, bias: Optional[np.ndarray] = None,
               bits: Optional[int] = None, lowrank: Optional[tuple] = None) -> tuple:
        """x @ concat(weights)^T (+ bias) (+ the gated low-rank path when `lowrank` = (A^T, B^T * s) is given).
        Returns (output name, effective float32 (N, K) matrix of the base weights)."""
        g = self.g
        bits = self.bits if bits is None else bits
        if bits is None:
            w = np.concatenate([as_float(w) for w in weights]) if len(weights) > 1 else as_float(weights[0])
            wt = g.init(f"{name}.weight_t", w.T.astype(self.fdtype))
            y = g.op("MatMul", [x, wt], name=f"{name}/MatMul")
            eff = w.astype(self.fdtype).astype(np.float32)
        elif self._ggml_kernel_takes(weights):
            # The GGUF blocks verbatim, multiplied by the engine's batch-invariant kernel (exact by construction).
            # A fused group (q|k|v, gate|up) whose parts have different types (Q4_K_M files store some attn_v as
            # Q6_K) becomes one node per type run, concatenated: a block row never mixes formats.
            runs = []
            for w in weights:
                if runs and runs[-1][0] == w.ggml_type:
                    runs[-1][1].append(w)
                else:
                    runs.append((w.ggml_type, [w]))
            a_name = None
            if lowrank is not None:
                self._check_lowrank(name, *lowrank)
                # A [r, K] as Q8_0 blocks, shared by the type runs (export/ggml_blocks.py, llama.cpp's layout)
                a_name = g.init(f"{name}.space_a_q8_0", ggml_encode(np.ascontiguousarray(lowrank[0].T), "Q8_0"))
            outs, col = [], 0
            for i, (t, part) in enumerate(runs):
                blocks = np.ascontiguousarray(np.concatenate([w.blocks.reshape(w.shape[0], -1) for w in part]))
                n, k = blocks.shape[0], part[0].shape[1]
                suffix = "" if len(runs) == 1 else f".{i}"
                ins = [x, g.init(f"{name}{suffix}.ggml_blocks", blocks)]
                if lowrank is not None:
                    # The SPACE adapter inside the node, on the mask rows only (inputs 3-5 of MatMulGgml): one node
                    # per projection instead of four, and a step without masks reads one flag per row.
                    b_t = lowrank[1]
                    ins += ["", a_name,
                            g.init(f"{name}{suffix}.space_b_t_q8_0", lowrank_up_blocks(b_t[:, col:col + n])),
                            self.space_is_mask]
                outs.append(g.op("MatMulGgml", ins, domain=SPECRT, name=f"{name}{suffix}/MatMulGgml", K=k, N=n,
                                 ggml_type=t))
                self.ggml_nodes[t] = self.ggml_nodes.get(t, 0) + 1
                col += n
            y = outs[0] if len(outs) == 1 else g.op("Concat", outs, name=f"{name}/Concat", axis=-1)
            eff = np.concatenate([w.dequantize() for w in weights])
            if lowrank is not None:
                self.lowrank_in_kernel += 1
                lowrank = None  # applied inside the node
        else:
            p = _concat_packed([pack_weight(w, bits, self.requantize) for w in weights])
            if p.error:
                self.errors.append((name, p.error))
            self.exact_all &= p.exact
            ins = [x, g.init(f"{name}.qweight", p.b), g.init(f"{name}.scales", p.scales)]
            if p.zero_points is not None:
                ins.append(g.init(f"{name}.zero_points", p.zero_points))
            self.nbits_nodes += 1
            y = g.op("MatMulNBits", ins, domain=MS, name=f"{name}/MatMulNBits", K=p.k, N=p.n, bits=bits,
                     block_size=p.block_size, accuracy_level=self.acc)
            if p.offset is not None:
                # exact Q4_1 offset: sum_k x_k m[n, k//32] = (blocksum of x) @ m^T. Costs ~25% of decode speed
                # (4 small ops per projection; a MatMul with a 0/1 block-indicator matrix instead of
                # Reshape+ReduceSum measured no faster).
                self.offset_terms += 1
                nb = p.k // p.block_size
                shp = g.init(f"{name}.block_shape", np.array([0, 0, nb, p.block_size], np.int64))
                xb = g.op("Reshape", [x, shp], name=f"{name}/BlockReshape")
                axes = g.init(f"{name}.block_axes", np.array([-1], np.int64))
                s = g.op("ReduceSum", [xb, axes], name=f"{name}/BlockSum", keepdims=0)
                mt = g.init(f"{name}.offset_t", p.offset.T.astype(np.float32))
                off = g.op("MatMul", [s, mt], name=f"{name}/OffsetMatMul")
                y = g.op("Add", [y, off], name=f"{name}/AddOffset")
            eff = p.effective
        if bias is not None:
            b = g.init(f"{name}.bias", bias.astype(self.fdtype))
            y = g.op("Add", [y, b], name=f"{name}/AddBias")
        if lowrank is not None:
            y = self._gated_lowrank(x, y, name, *lowrank)
        return y, eff

    def _ggml_kernel_takes(self, weights: list) -> bool:
        """True when `--linear-kernel ggml` can run these weights as they are: GGML blocks of kernel types (a K-quant
        needs K to be a whole number of 256-weight super-blocks)."""
        if self.linear_kernel != "ggml" or self.requantize:
            return False
        if not all(isinstance(w, QuantTensor) and w.ggml_type in GGML_KERNEL_TYPES for w in weights):
            return False
        return all(w.shape[1] % (256 if w.ggml_type.endswith("_K") else 32) == 0 for w in weights)

    @staticmethod
    def _check_lowrank(name: str, a_t: np.ndarray, b_t: np.ndarray) -> None:
        if a_t.ndim != 2 or b_t.ndim != 2 or a_t.shape[1] != b_t.shape[0]:
            raise ValueError(f"{name}: low-rank factors {a_t.shape} x {b_t.shape} do not chain")

    def _gated_lowrank(self, x: str, y: str, name: str, a_t: np.ndarray, b_t: np.ndarray) -> str:
        """y + ((x * gate) @ A^T) @ B^T: the SPACE adapter on mask rows only (gate = 0 rows add exactly 0)."""
        g = self.g
        self._check_lowrank(name, a_t, b_t)
        if self.space_gate is None:
            gate = g.op("Cast", [self.space_is_mask], name="space/GateCast", to=self.tdtype)
            self.space_gate = g.op("Unsqueeze", [gate, g.init("space.gate_axes", np.array([-1], np.int64))],
                                   name="space/Gate")
        xg = g.op("Mul", [x, self.space_gate], name=f"{name}/space/Gate")
        z = g.op("MatMul", [xg, g.init(f"{name}.space_a_t", a_t.astype(self.fdtype))], name=f"{name}/space/A")
        z = g.op("MatMul", [z, g.init(f"{name}.space_b_t", b_t.astype(self.fdtype))], name=f"{name}/space/B")
        return g.op("Add", [y, z], name=f"{name}/space/Add")

    # -- the GPU form: standard ONNX operators only ---------------------------------------------------------
    def _skip_norm(self, a: str, residual: str, weight: str, name: str, eps: float,
                   sum_name: Optional[str] = None) -> tuple:
        """(RMSNorm(a + residual), a + residual): ONNX Runtime's fused SkipSimplifiedLayerNormalization, or for the
        plain form an Add and the opset-23 RMSNormalization (operators TensorRT's ONNX parser implements)."""
        g = self.g
        if self.attention_kernel != "plain":
            outs = [f"{name}/out", "", "", sum_name or f"{name}/sum"]
            x, _, _, h = g.op("SkipSimplifiedLayerNormalization", [a, residual, weight], domain=MS, name=name,
                              outputs=outs, epsilon=eps)
            return x, h
        h = g.op("Add", [a, residual], name=f"{name}/Add", outputs=[sum_name or f"{name}/sum"])
        x = g.op("RMSNormalization", [h, weight], name=name, axis=-1, epsilon=eps)
        return x, h

    def _plain_shared(self, cos_n: str, sin_n: str, D: int) -> dict:
        """Per-graph values of the plain attention, built once: the new tokens' KV slots, the rotary tables at
        their positions, and the causal part of the mask (GroupQueryAttention applies causal order itself, and
        the contract's attention_bias is on top of it; export/CONTRACT.md)."""
        if getattr(self, "_plain", None) is not None:
            return self._plain
        g, i64 = self.g, np.int64
        made = {}

        def c(n, v):  # one int64 constant per name, shared by every layer
            if n not in made:
                made[n] = g.init(f"plain.{n}", np.array(v, i64))
            return made[n]
        seq = g.op("Shape", ["input_ids"], name="plain/seq", start=1, end=2)  # [1]
        total = g.op("Cast", [g.op("Reshape", ["total_sequence_length", c("one_shape", [1])], name="plain/total1")],
                     name="plain/total", to=TensorProto.INT64)  # [1]
        # past = seqlens_k + 1 - seq (seqlens_k = total - 1 for the one sequence; using it keeps the input live)
        past = g.op("Sub", [g.op("Add", [g.op("Cast", ["seqlens_k"], name="plain/seqlens", to=TensorProto.INT64),
                                          c("one", [1])], name="plain/seqlens1"), seq], name="plain/past")
        scalar = lambda x, n: g.op("Squeeze", [x, c("axis0", [0])], name=f"plain/{n}")  # noqa: E731
        past_s, total_s, seq_s = scalar(past, "past_s"), scalar(total, "total_s"), scalar(seq, "seq_s")
        slots = g.op("Range", [past_s, total_s, c("step", 1)], name="plain/slots")  # [S]
        # rotary: [B, 1, S, D] tables (rotate_half layout: the half-table twice)
        def table(cache, n):
            t = g.op("Gather", [cache, "position_ids"], name=f"plain/{n}/Gather", axis=0)  # [B, S, D/2]
            t = g.op("Concat", [t, t], name=f"plain/{n}/Concat", axis=-1)
            return g.op("Unsqueeze", [t, c("axis1", [1])], name=f"plain/{n}/Unsqueeze")
        # causal: new row r sees cached/new slot j iff j <= past + r; float32 [S, T]
        rows = g.op("Unsqueeze", [g.op("Range", [c("zero", 0), seq_s, c("step", 1)], name="plain/rows0"),
                                  c("axis_last", [1])], name="plain/rows1")
        rows = g.op("Add", [rows, past], name="plain/rows")
        cols = g.op("Range", [c("zero", 0), total_s, c("step", 1)], name="plain/cols")
        hidden = g.op("Greater", [cols, rows], name="plain/hidden")
        causal = g.op("Where", [hidden, g.init("plain.neg", np.array(-1e9, np.float32)),
                                g.init("plain.zero_f", np.array(0.0, np.float32))], name="plain/causal")
        bias = g.op("Add", ["attention_bias", causal], name="plain/bias")  # [B, 1, S, T] float32
        self._plain = {"slots": slots, "total": total, "cos": table(cos_n, "cos"), "sin": table(sin_n, "sin"),
                       "bias": bias, "c": c}
        return self._plain

    def _plain_attention(self, qkv: str, i: int, cos_n: str, sin_n: str, NH: int, KVH: int, D: int) -> str:
        """Grouped-query attention over the shared KV buffer in standard ONNX operators: rotary (rotate_half),
        the new keys/values scattered into slots past..past+S of the cache (ScatterElements, written to
        present_key/value, which the engine binds to the same buffer as past_key/value), scores over slots
        0..total in float32 with the causal order and the contract's additive bias, softmax, values. Same math as
        GroupQueryAttention; runs in ONNX Runtime (CPU, CUDA) and parses in TensorRT."""
        g, p = self.g, f"layers.{i}/attn"
        sh = self._plain_shared(cos_n, sin_n, D)
        c = sh["c"]
        f32 = TensorProto.FLOAT
        q, k, v = g.op("Split", [qkv, c(f"split{i}", [NH * D, KVH * D, KVH * D])], n_out=3, name=f"{p}/Split",
                       axis=-1)

        def heads(x, n, name):
            x = g.op("Reshape", [x, c(f"heads{n}", [0, 0, n, D])], name=f"{p}/{name}/Reshape")
            return g.op("Transpose", [x], name=f"{p}/{name}/Transpose", perm=[0, 2, 1, 3])  # [B, n, S, D]

        def rotary(x, name):
            x1 = g.op("Slice", [x, c("h0", [0]), c("h1", [D // 2]), c("axis3", [3])], name=f"{p}/{name}/x1")
            x2 = g.op("Slice", [x, c("h1", [D // 2]), c("h2", [D]), c("axis3", [3])], name=f"{p}/{name}/x2")
            rh = g.op("Concat", [g.op("Neg", [x2], name=f"{p}/{name}/Neg"), x1], name=f"{p}/{name}/rot", axis=3)
            return g.op("Add", [g.op("Mul", [x, sh["cos"]], name=f"{p}/{name}/cos"),
                                g.op("Mul", [rh, sh["sin"]], name=f"{p}/{name}/sin")], name=f"{p}/{name}/rope")

        qh, kh, vh = rotary(heads(q, NH, "q"), "q"), rotary(heads(k, KVH, "k"), "k"), heads(v, KVH, "v")
        idx = g.op("Reshape", [sh["slots"], c("slot_shape", [1, 1, -1, 1])], name=f"{p}/slots")
        idx = g.op("Expand", [idx, g.op("Shape", [kh], name=f"{p}/k_shape")], name=f"{p}/slot_index")
        pk = g.op("ScatterElements", [f"past_key.{i}", idx, kh], name=f"{p}/write_k", axis=2,
                  outputs=[f"present_key.{i}"])
        pv = g.op("ScatterElements", [f"past_value.{i}", idx, vh], name=f"{p}/write_v", axis=2,
                  outputs=[f"present_value.{i}"])

        def cached(x, name):
            x = g.op("Slice", [x, c("zero1", [0]), sh["total"], c("axis2", [2])], name=f"{p}/{name}/Slice")
            if NH != KVH:  # every KV head serves NH / KVH query heads
                x = g.op("Unsqueeze", [x, c("axis2", [2])], name=f"{p}/{name}/Unsqueeze")
                x = g.op("Expand", [x, c("group", [1, 1, NH // KVH, 1, 1])], name=f"{p}/{name}/Expand")
                x = g.op("Reshape", [x, c("grouped", [0, NH, -1, D])], name=f"{p}/{name}/Reshape")
            return g.op("Cast", [x], name=f"{p}/{name}/Cast", to=f32)  # [B, NH, T, D]

        kc, vc = cached(pk, "K"), cached(pv, "V")
        qf = g.op("Cast", [qh], name=f"{p}/q/Cast", to=f32)
        scores = g.op("MatMul", [qf, g.op("Transpose", [kc], name=f"{p}/K/T", perm=[0, 1, 3, 2])], name=f"{p}/QK")
        scores = g.op("Mul", [scores, g.init(f"plain.scale.{i}", np.array(1.0 / np.sqrt(D), np.float32))],
                      name=f"{p}/scale")
        scores = g.op("Add", [scores, sh["bias"]], name=f"{p}/mask")
        probs = g.op("Softmax", [scores], name=f"{p}/Softmax", axis=-1)
        out = g.op("MatMul", [probs, vc], name=f"{p}/PV")  # [B, NH, S, D]
        out = g.op("Transpose", [out], name=f"{p}/out/Transpose", perm=[0, 2, 1, 3])
        out = g.op("Reshape", [out, c("merge", [0, 0, NH * D])], name=f"{p}/out/Reshape")
        return g.op("Cast", [out], name=f"{p}/out/Cast", to=self.tdtype)

    # -- whole graph -------------------------------------------------------------------------------------
    def build(self, n_layers: int, hidden_states: bool, mask_row: Optional[np.ndarray] = None,
              lowrank: Optional[list] = None) -> BuildResult:
        cfg, ck, g = self.cfg, self.ck, self.g
        H, D, NH, KVH = cfg.hidden_size, cfg.head_dim, cfg.num_heads, cfg.num_kv_heads
        if D % 16:
            raise ValueError(f"head_dim {D} must be a multiple of 16 (GroupQueryAttention do_rotary)")
        kv_t = TensorProto.FLOAT16 if self.kv_f16 else self.tdtype
        f32 = TensorProto.FLOAT
        inputs = [
            ("input_ids", TensorProto.INT64, ["batch", "seq"]),
            ("position_ids", TensorProto.INT64, ["batch", "seq"]),
            ("attention_bias", f32, ["batch", 1, "seq", "past_plus_seq"]),
            ("seqlens_k", TensorProto.INT32, ["batch"]),
            ("total_sequence_length", TensorProto.INT32, []),
            ("logits_indices", TensorProto.INT64, ["rows"]),
        ]
        for i in range(n_layers):
            inputs.append((f"past_key.{i}", kv_t, ["batch", KVH, "capacity", D]))
            inputs.append((f"past_value.{i}", kv_t, ["batch", KVH, "capacity", D]))
        outputs = [("logits", f32, ["batch", "rows", cfg.vocab_size])]
        for i in range(n_layers):
            outputs.append((f"present_key.{i}", kv_t, ["batch", KVH, "capacity", D]))
            outputs.append((f"present_value.{i}", kv_t, ["batch", KVH, "capacity", D]))
        if hidden_states:
            outputs.append(("hidden_states", f32, ["batch", "seq", H]))

        eps = float(cfg.rms_norm_eps)
        embed = as_float(ck.embed)
        vocab_embed = embed  # the rows the LM head may share (tied heads): never the SPACE mask row
        if mask_row is not None:
            # SPACE: one extra input-only token (id = vocab_size) with an embedding row and no logit, so no
            # pipeline can ever emit it (docs/METHODS.md, SPACE)
            row = np.asarray(mask_row, np.float32).reshape(1, -1)
            if row.shape[1] != H:
                raise ValueError(f"SPACE mask embedding has {row.shape[1]} values, hidden_size is {H}")
            embed = np.concatenate([embed, row])
        if lowrank is not None:
            if mask_row is None:
                raise ValueError("a SPACE low-rank adapter needs the mask row")
            if len(lowrank) < n_layers:
                raise ValueError(f"SPACE low-rank adapter has {len(lowrank)} layers, the graph {n_layers}")
            # [B, T, 1]: 1.0 at mask-token rows; every adapted projection multiplies its input by it
            is_mask = g.op("Equal", ["input_ids", g.init("space.mask_token_id", np.array(cfg.vocab_size, np.int64))],
                           name="space/IsMask")
            self.space_is_mask = is_mask  # bool [B, T]: MatMulGgml's lowrank_gate, and the float gate's source
        emb_name = g.init("embed_tokens.weight", embed.astype(self.fdtype))
        h = g.op("Gather", [emb_name, "input_ids"], name="embed/Gather", axis=0)
        cos, sin = rope_cache(D, cfg.rope_theta, cfg.max_position_embeddings)
        cos_n = g.init("rope.cos_cache", cos.astype(self.fdtype))
        sin_n = g.init("rope.sin_cache", sin.astype(self.fdtype))
        bias_in = "attention_bias"
        if self.precision == "fp16":
            bias_in = g.op("Cast", ["attention_bias"], name="attention_bias/Cast", to=TensorProto.FLOAT16)

        layers_eff = []
        x = g.op("RMSNormalization", [h, g.init("layers.0.attn_norm.weight", ck.layers[0].attn_norm.astype(
            self.fdtype))], name="layers.0/attn_norm", axis=-1, epsilon=eps)
        for i in range(n_layers):
            L: LayerWeights = ck.layers[i]
            print(f"[graph] layer {i + 1}/{n_layers}", file=sys.stderr)
            p = f"layers.{i}"
            qkv_bias = None
            if L.q_bias is not None:
                qkv_bias = np.concatenate([L.q_bias, L.k_bias, L.v_bias]).astype(np.float32)
            lr = lowrank[i] if lowrank is not None else {}
            qkv, w_qkv = self.linear(x, [L.q, L.k, L.v], f"{p}.attn.qkv_proj", bias=qkv_bias, lowrank=lr.get("qkv"))
            if self.attention_kernel == "plain":
                attn = self._plain_attention(qkv, i, cos_n, sin_n, NH, KVH, D)
            else:
                # The engine's BatchInvariantAttention takes GroupQueryAttention's inputs, outputs and attributes.
                specrt_op = ("BatchInvariantAttentionF16Kv" if self.kv_f16 and self.precision != "fp16"
                             else "BatchInvariantAttention")
                attn_op, attn_dom = ((specrt_op, SPECRT) if self.attention_kernel == "specrt"
                                     else ("GroupQueryAttention", MS))
                attn = g.op(attn_op,
                            [qkv, "", "", f"past_key.{i}", f"past_value.{i}", "seqlens_k", "total_sequence_length",
                             cos_n, sin_n, "position_ids", bias_in],
                            domain=attn_dom, name=f"{p}/{attn_op}",
                            outputs=[f"{p}/attn_out", f"present_key.{i}", f"present_value.{i}"],
                            num_heads=NH, kv_num_heads=KVH, do_rotary=1, rotary_interleaved=0)[0]
            o, w_o = self.linear(attn, [L.o], f"{p}.attn.o_proj", lowrank=lr.get("o"))
            x, h = self._skip_norm(o, h, g.init(f"{p}.ffn_norm.weight", L.ffn_norm.astype(self.fdtype)),
                                   f"{p}/ffn_norm", eps)
            gu, w_gu = self.linear(x, [L.gate, L.up], f"{p}.mlp.gate_up_proj", lowrank=lr.get("gate_up"))
            gate, up = g.op("Split", [gu], n_out=2, name=f"{p}/mlp/Split", axis=-1, num_outputs=2)
            act = g.op("Mul", [g.op("Mul", [gate, g.op("Sigmoid", [gate], name=f"{p}/mlp/Sigmoid")],
                                    name=f"{p}/mlp/SiLU"), up], name=f"{p}/mlp/GLU")
            d, w_d = self.linear(act, [L.down], f"{p}.mlp.down_proj", lowrank=lr.get("down"))
            last = i == n_layers - 1
            norm_w = ck.final_norm if last else ck.layers[i + 1].attn_norm
            norm_name = "final_norm.weight" if last else f"layers.{i + 1}.attn_norm.weight"
            sum_name = "hidden_states" if (last and hidden_states and self.precision != "fp16") else None
            x, h = self._skip_norm(d, h, g.init(norm_name, norm_w.astype(self.fdtype)), f"{p}/next_norm", eps,
                                   sum_name or f"{p}/residual_out")
            if last and hidden_states and self.precision == "fp16":
                g.op("Cast", [h], name="hidden_states/Cast", outputs=["hidden_states"], to=f32)
            nq, nk = NH * D, KVH * D
            gate_w, up_w = w_gu[:cfg.intermediate_size], w_gu[cfg.intermediate_size:]
            layers_eff.append(LayerWeights(
                attn_norm=L.attn_norm.astype(self.fdtype).astype(np.float32),
                q=w_qkv[:nq], k=w_qkv[nq:nq + nk], v=w_qkv[nq + nk:], o=w_o,
                ffn_norm=L.ffn_norm.astype(self.fdtype).astype(np.float32), gate=gate_w, up=up_w, down=w_d,
                q_bias=None if qkv_bias is None else qkv_bias[:nq],
                k_bias=None if qkv_bias is None else qkv_bias[nq:nq + nk],
                v_bias=None if qkv_bias is None else qkv_bias[nq + nk:]))

        sel = g.op("Gather", [x, "logits_indices"], name="logits/Gather", axis=1)
        head_w = ck.lm_head if ck.lm_head is not None else ck.embed
        if self.lm_head_bits is None:
            # float head: Gemm with transB reuses the [V, H] table (shared with the embedding when tied)
            if ck.lm_head is None and mask_row is None:
                w_name, head_eff = emb_name, embed.astype(self.fdtype).astype(np.float32)
            elif ck.lm_head is None:
                # tied, but the table has the mask row: the head gets its own copy of the vocabulary rows
                head_eff = vocab_embed.astype(self.fdtype)
                w_name = g.init("lm_head.weight", head_eff)
                head_eff = head_eff.astype(np.float32)
            else:
                head_eff = as_float(head_w).astype(self.fdtype)
                w_name = g.init("lm_head.weight", head_eff)
                head_eff = head_eff.astype(np.float32)
            a2 = g.op("Reshape", [sel, g.init("lm_head.in_shape", np.array([-1, H], np.int64))],
                      name="lm_head/Flatten")
            y2 = g.op("Gemm", [a2, w_name], name="lm_head/Gemm", transB=1)
            shp = g.op("Shape", [sel], name="lm_head/Shape", start=0, end=2)
            full = g.op("Concat", [shp, g.init("lm_head.vocab", np.array([cfg.vocab_size], np.int64))],
                        name="lm_head/OutShape", axis=0)
            logits = g.op("Reshape", [y2, full], name="lm_head/Unflatten")
        else:
            logits, head_eff = self.linear(sel, [head_w], "lm_head", bits=self.lm_head_bits)
        if self.precision == "fp16":
            g.op("Cast", [logits], name="logits/Cast", outputs=["logits"], to=f32)
        else:
            g.op("Identity", [logits], name="logits/Identity", outputs=["logits"])

        def vi(name, t, shape):
            return helper.make_tensor_value_info(name, t, shape)

        graph = helper.make_graph(g.nodes, "specrt_decoder", [vi(*a) for a in inputs], [vi(*a) for a in outputs],
                                  initializer=g.inits)
        opsets = [helper.make_opsetid("", OPSET), helper.make_opsetid(MS, 1)]
        if self.ggml_nodes or self.attention_kernel == "specrt":
            opsets.append(helper.make_opsetid(SPECRT, 1))
        model = helper.make_model(graph, opset_imports=opsets, producer_name="specrt-export")
        model.ir_version = 10 if OPSET < 23 else 11

        eff_cfg = replace(cfg, num_layers=n_layers)
        effective = Checkpoint(config=eff_cfg, embed=embed.astype(self.fdtype).astype(np.float32),
                               layers=layers_eff, final_norm=ck.final_norm.astype(self.fdtype).astype(np.float32),
                               lm_head=head_eff)
        dt = {TensorProto.INT64: "int64", TensorProto.INT32: "int32", TensorProto.FLOAT: "float32",
              TensorProto.FLOAT16: "float16"}
        io = lambda lst: [{"name": n, "dtype": dt[t], "shape": s} for n, t, s in lst]  # noqa: E731
        notes = []
        if self.ggml_nodes:
            kinds = ", ".join(f"{c} x {t}" for t, c in sorted(self.ggml_nodes.items()))
            notes.append(f"linear layers: ai.specrt MatMulGgml over the GGUF blocks as stored ({kinds}); int8 "
                         "activations per 32-block; batch-invariant; runs only in the specrt engine")
        if self.lowrank_in_kernel:
            notes.append(f"SPACE: the float low-rank adapter runs inside MatMulGgml on mask-token rows only "
                         f"({self.lowrank_in_kernel} projections; real tokens compute exactly the base weights)")
        if self.attention_kernel == "specrt":
            notes.append("attention: ai.specrt BatchInvariantAttention (GroupQueryAttention's contract, one query row at a "
                         "time: a decode step equals a row of a verification pass); runs only in the specrt engine")
        if self.kv_f16 and self.precision != "fp16":
            notes.append("KV cache in float16 (keys and values rounded once when written; float32 activations)")
        if self.bits and self.nbits_nodes:
            head = f"{self.lm_head_bits}-bit MatMulNBits" if self.lm_head_bits else "float32 Gemm"
            notes.append(f"linear layers: MatMulNBits {self.bits}-bit, block 32, accuracy_level {self.acc}; "
                         f"LM head {head}")
            if self.acc == 0 and 8 in (self.bits, self.lm_head_bits):
                notes.append("WARNING: 8-bit MatMulNBits with accuracy_level 0 runs a slow fallback on ORT 1.31 CPU "
                             "(measured ~5 tok/s for SmolLM2); use accuracy_level 4 or fp32")
            if self.offset_terms:
                notes.append(f"{self.offset_terms} projections carry the exact Q4_1 per-block offset term "
                             "(zero point 0 + ReduceSum(x over 32-blocks) @ m^T)")
            if lowrank is not None:
                notes.append("SPACE: a float low-rank adapter on q|k|v, o, gate|up and down, gated to mask-token rows "
                             "(real tokens compute exactly the base weights)")
            if self.exact_all:
                notes.append("all quantized weights are bit-exact conversions of the checkpoint's blocks")
            if self.errors:
                worst_abs = max(self.errors, key=lambda e: e[1]["max_abs"])
                worst_rel = max(self.errors, key=lambda e: e[1]["rel_rms"])
                notes.append(f"re-quantized {len(self.errors)} projections round-to-nearest: worst max_abs "
                             f"{worst_abs[1]['max_abs']:.3g} ({worst_abs[0]}), max_rel "
                             f"{max(e[1]['max_rel'] for e in self.errors):.3g}, worst rel_rms "
                             f"{worst_rel[1]['rel_rms']:.3g} ({worst_rel[0]})")
        notes.append("embedding table stored as " + ("float16" if self.precision == "fp16" else "float32")
                     + " (dequantized exactly from the checkpoint)")
        precision = {"weights": self.precision, "block_size": 32 if self.bits else None,
                     "accuracy_level": self.acc if self.bits else None,
                     "lm_head_bits": self.lm_head_bits,
                     "kv_dtype": "float16" if self.kv_f16 else "float32",
                     "exact_conversion": bool(self.bits) and self.exact_all,
                     "linear_kernel": self.linear_kernel if self.bits else None,
                     "attention_kernel": self.attention_kernel,
                     "requantized": [{"tensor": n, **e} for n, e in self.errors]}
        return BuildResult(model=model, effective=effective, inputs=io(inputs), outputs=io(outputs), notes=notes,
                           precision=precision)


def build_decoder(ck: Checkpoint, precision: str = "fp32", accuracy_level: int = 4, layers: Optional[int] = None,
                  hidden_states: bool = False, requantize: bool = False,
                  lm_head_bits: Optional[int] = None, mask_row: Optional[np.ndarray] = None,
                  lowrank: Optional[list] = None, linear_kernel: str = "matmulnbits",
                  attention_kernel: str = "gqa", kv_dtype: str = "auto") -> BuildResult:
    """Build the decoder graph for `ck`.

    precision: fp32 | fp16 | int8 | int4. accuracy_level: MatMulNBits activation precision (0 = as input
    type, 4 = int8 activations; faster, not bit-identical between 1-token and k-token forwards).
    layers: keep only the first N decoder layers (+ final norm + LM head). hidden_states: add the output.
    requantize: RTN from float even where an exact conversion exists. lm_head_bits: LM head of int exports:
    4 or 8 (MatMulNBits) or 32 (float Gemm sharing the embedding table); default 8 at accuracy_level 4 (exact
    from Q8_0, ~1 ms), 32 at accuracy_level 0 (8-bit MatMulNBits at level 0 is a slow CPU fallback).
    mask_row: SPACE mask token embedding [hidden]: appended as input id vocab_size (no logit; logits keep V).
    lowrank: SPACE mask-only adapter, per layer {"qkv"|"o"|"gate_up"|"down": (A^T, B^T * alpha / r)} (float32;
    export/space_merge.py `lowrank`), added as a path gated to the mask rows; needs mask_row.
    linear_kernel (int4/int8 only): "matmulnbits" (ONNX Runtime's op; runs anywhere) or "ggml" (the engine's
    ai.specrt::MatMulGgml over the GGUF's Q4_0/Q4_1/Q8_0/Q4_K/Q6_K blocks as stored: exact, batch-invariant, runs only in
    the specrt engine; other weights fall back to MatMulNBits). attention_kernel: "gqa" (ONNX Runtime's
    GroupQueryAttention) or "specrt" (the engine's BatchInvariantAttention: same contract, one row at a time, so a
    one-token step equals a row of a k-token pass; runs only in the specrt engine). kv_dtype: "auto" (the
    activations' type) or "fp16" (a float16 cache under float32 activations; needs attention_kernel "specrt",
    whose BatchInvariantAttentionF16Kv reads it: half the bytes a long context reads per token).
    """
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}")
    n = ck.config.num_layers if layers is None else int(layers)
    if not 1 <= n <= ck.config.num_layers:
        raise ValueError(f"--layers must be in 1..{ck.config.num_layers}")
    if precision in ("fp32", "fp16"):
        lm_head_bits = None
    return _Builder(ck, precision, accuracy_level, requantize, lm_head_bits, linear_kernel, attention_kernel,
                    kv_dtype).build(n, hidden_states, mask_row, lowrank)


def save_model(model: onnx.ModelProto, out_dir: str, name: str = "model.onnx") -> list:
    """Save with all weights in one external data file `<name>.data`; returns the written file names. A graph built
    under stream_external_data(out_dir) already has its weights there: only the graph is written."""
    path = os.path.join(out_dir, name)
    data = name + ".data"
    streamed = any(t.data_location == TensorProto.EXTERNAL for t in model.graph.initializer)
    if streamed:
        onnx.save_model(model, path)
        return [name, data]
    if os.path.exists(os.path.join(out_dir, data)):
        os.remove(os.path.join(out_dir, data))  # onnx appends to an existing data file
    onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True, location=data,
                    size_threshold=1024)
    return [name, data]

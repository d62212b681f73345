"""Write one model folder: model.onnx (+ .data), tokenizer.json, manifest.json (see export/README.md)."""
from __future__ import annotations

import os
import sys
import time
from typing import Optional

import onnx

from .checkpoint import Checkpoint
from .graph_decoder import BuildResult, build_decoder, save_model, stream_external_data
from .manifest import write_manifest


def check_model(path: str) -> None:
    """onnx.checker (full, with external data) + strict shape inference; raises on failure."""
    onnx.checker.check_model(path, full_check=False)
    onnx.shape_inference.infer_shapes_path(path, path + ".inferred", strict_mode=True)
    os.remove(path + ".inferred")


def _warn_tokenizer(tokenizer_json: str) -> None:
    """Encode->decode a few strings when `tokenizers` is installed; warn (do not fail) on a mismatch."""
    try:
        from .tokenizer_build import check_round_trip

        bad = check_round_trip(tokenizer_json)
    except ImportError:
        return
    for s, back in bad:
        print(f"[export] WARNING tokenizer round trip changed {s!r} -> {back!r}", file=sys.stderr)


def resolve_precision(ck: Checkpoint) -> str:
    """The CPU default: int4 when every decoder matrix is Q4_0/Q4_1 (exact 4-bit conversion, fastest exact
    choice: SmolLM2 Q4_1 120 tok/s vs int8 94 on 2 cores), otherwise int8 (near-lossless RTN from float or
    exact from Q8_0; int4 RTN from float loses ~9% rel. RMS per weight)."""
    from .checkpoint import QuantTensor

    mats = [w for L in ck.layers for w in (L.q, L.k, L.v, L.o, L.gate, L.up, L.down)]
    if all(isinstance(w, QuantTensor) and w.ggml_type in ("Q4_0", "Q4_1") for w in mats):
        return "int4"
    return "int8"


def export_checkpoint(ck: Checkpoint, out_dir: str, precision: str = "fp32", accuracy_level: int = 4,
                      layers: Optional[int] = None, hidden_states: bool = False, requantize: bool = False,
                      lm_head_bits: Optional[int] = None, check: bool = True, mask_row=None,
                      space_k: Optional[int] = None, space_lowrank: Optional[list] = None,
                      linear_kernel: str = "matmulnbits", attention_kernel: str = "gqa", kv_dtype: str = "auto") -> tuple:
    """Build the graph for `ck` and write the folder. Returns (manifest dict, BuildResult).

    precision: fp32 | fp16 | int8 | int4 | auto (see resolve_precision). mask_row + space_k: a SPACE export
    (the mask token's embedding row [hidden] and the group size it was trained with; both or neither).
    space_lowrank: the mask-only adapter (export/space_merge.py `lowrank`), a low-rank path gated to mask rows;
    without it a SPACE export is merged (or, for the tiny test model, has no adapter at all).
    """
    if (mask_row is None) != (space_k is None):
        raise ValueError("a SPACE export needs both mask_row and space_k")
    if space_lowrank is not None and space_k is None:
        raise ValueError("a SPACE low-rank adapter needs mask_row and space_k")
    os.makedirs(out_dir, exist_ok=True)
    if precision == "auto":
        precision = resolve_precision(ck)
        print(f"[export] precision auto -> {precision}", file=sys.stderr)
    t0 = time.time()
    with stream_external_data(out_dir):
        res: BuildResult = build_decoder(ck, precision=precision, accuracy_level=accuracy_level, layers=layers,
                                         hidden_states=hidden_states, requantize=requantize,
                                         lm_head_bits=lm_head_bits, mask_row=mask_row, lowrank=space_lowrank,
                                         linear_kernel=linear_kernel, attention_kernel=attention_kernel,
                                         kv_dtype=kv_dtype)
    print(f"[export] graph built in {time.time() - t0:.1f}s; saving", file=sys.stderr)
    files = save_model(res.model, out_dir)
    if check:
        check_model(os.path.join(out_dir, files[0]))
        print("[export] onnx checker + shape inference passed", file=sys.stderr)
    if ck.tokenizer_json is None:
        raise ValueError("checkpoint has no tokenizer")
    with open(os.path.join(out_dir, "tokenizer.json"), "w", encoding="utf-8") as f:
        f.write(ck.tokenizer_json)
    _warn_tokenizer(ck.tokenizer_json)
    files.append("tokenizer.json")
    manifest = write_manifest(out_dir, ck, res, files, layers_kept=layers, hidden_states=hidden_states,
                              space_k=space_k, space_adapter="mask_only" if space_lowrank is not None else None)
    print(f"[export] wrote {out_dir} in {time.time() - t0:.1f}s", file=sys.stderr)
    return manifest, res

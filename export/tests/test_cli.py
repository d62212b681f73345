"""CLI smoke test: `python -m export tiny` writes a complete folder; `auto` precision picks int4 only for Q4 sources."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from export.pipeline import resolve_precision

from .helpers import quantize_checkpoint

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_cli_tiny(tmp_path):
    out = tmp_path / "m"
    r = subprocess.run([sys.executable, "-m", "export", "tiny", "--out", str(out), "--precision", "int8",
                        "--layers", "3", "--keep-layers", "2", "--hidden-states"],
                       cwd=ROOT, capture_output=True, text=True, env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
    assert r.returncode == 0, r.stderr
    m = json.loads((out / "manifest.json").read_text())
    assert m["dims"]["num_layers"] == 2 and m["source"]["source_num_layers"] == 3 and m["layers_kept"] == 2
    assert m["precision"]["weights"] == "int8" and m["hidden_states"] is True
    assert sorted(os.listdir(out)) == ["manifest.json", "model.onnx", "model.onnx.data", "tokenizer.json"]


def test_auto_precision(tiny_ck):
    assert resolve_precision(tiny_ck) == "int8"
    assert resolve_precision(quantize_checkpoint(tiny_ck, "Q4_1")) == "int4"
    assert resolve_precision(quantize_checkpoint(tiny_ck, "Q8_0")) == "int8"

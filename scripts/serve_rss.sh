#!/usr/bin/env bash
# Measures the memory of `specrt serve` (docs/DEPLOY.md "Sizing"): starts the server on a free 127.0.0.1 port
# with CONFIG, sends REQUESTS chat requests (max_tokens 64) to each served pipeline, then one completion with a
# ~1,950-token prompt (near the 2048-token context: its prefill, attention over the whole prompt at once, is the
# peak), printing the process's VmRSS and VmHWM (peak RSS) from /proc/PID/status after each step.
#   scripts/serve_rss.sh [BIN] [CONFIG] [REQUESTS]
# default: target/release/specrt configs/server.yaml 5
set -euo pipefail
BIN=${1:-target/release/specrt}
CONFIG=${2:-configs/server.yaml}
REQUESTS=${3:-5}
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
LOG=$(mktemp)
"$BIN" serve --config "$CONFIG" --host 127.0.0.1 --port "$PORT" 2>"$LOG" &
PID=$!
trap 'kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; rm -f "$LOG"' EXIT
for _ in $(seq 1 600); do
  curl -sf -m 2 "http://127.0.0.1:$PORT/health" >/dev/null && break
  kill -0 "$PID" 2>/dev/null || { cat "$LOG"; exit 1; }
  sleep 0.1
done
mem() { awk -v what="$1" '$1 == "VmRSS:" || $1 == "VmHWM:" { printf "%s %s %.1f MiB\n", what, $1, $2 / 1024 }' "/proc/$PID/status"; }
mem "loaded, before any request:"
MODELS=$(curl -sf -m 5 "http://127.0.0.1:$PORT/v1/models" | python3 -c 'import json, sys; print(" ".join(m["id"] for m in json.load(sys.stdin)["data"]))')
for m in $MODELS; do
  for i in $(seq 1 "$REQUESTS"); do
    curl -sf -m 120 "http://127.0.0.1:$PORT/v1/chat/completions" -H 'content-type: application/json' \
      -d "{\"model\": \"$m\", \"max_tokens\": 64, \"messages\": [{\"role\": \"user\", \"content\": \"Request $i: write a short poem about the sea and explain it.\"}]}" >/dev/null
  done
done
mem "after $REQUESTS requests to each of: $MODELS:"
LONG=$(python3 -c 'print("The quick brown fox jumps over the lazy dog. " * 195)')
for m in $MODELS; do
  python3 -c 'import json, sys; print(json.dumps({"model": sys.argv[1], "prompt": sys.argv[2], "max_tokens": 64}))' "$m" "$LONG" |
    curl -sf -m 300 "http://127.0.0.1:$PORT/v1/completions" -H 'content-type: application/json' --data-binary @- |
    python3 -c 'import json, sys; print("long prompt:", json.load(sys.stdin)["usage"])'
done
mem "after one ~1,950-token prompt to each:"

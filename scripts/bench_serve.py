#!/usr/bin/env python3
"""Load benchmark of `specrt serve` on a NAT pipeline: sentences/s and p50/p99 latency at 1, 8 and 32 concurrent
clients, dynamic batching on vs off, in one run on one machine (so the ratios are comparable). Prints a table and
writes JSON. Standard library only.

    make nat-models && cargo build --release
    python3 scripts/bench_serve.py [--bin target/release/specrt] [--config configs/ctc-nat-en-de.yaml]
                                   [--seconds 6] [--out bench-out/serve-nat.json]

Each client sends one sentence per request (`/v1/completions`, `prompt` a string) in a closed loop, cycling
through a fixed pool of sentences; latency is per request, measured by the client. "off" serves the same pipeline
with `max_batch_sentences: 1` (each request runs alone); "on" uses the server defaults (window 3 ms, up to the
pipeline's `batch_size` sentences per pass) unless --window-ms / --max-batch say otherwise.
"""

import argparse
import http.client
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

SENTENCES = [
    "The committee approved the report.",
    "I would like to thank the President.",
    "This film is very good.",
    "We must protect the environment for our children.",
    "The government has adopted new measures to support small businesses.",
    "The meeting will take place in Geneva next year.",
    "Water is important.",
    "The Commission has presented its proposal.",
    "We need a common European policy on energy.",
    "I agree with the rapporteur.",
    "The vote will take place tomorrow at noon.",
    "This is a very important question for our citizens.",
    "The situation in the region remains difficult.",
    "Thank you very much for your attention.",
    "We cannot accept this amendment.",
    "The Council must take its responsibility.",
    "Young people need better jobs.",
    "The price of oil has risen sharply.",
    "Many people have lost their homes.",
    "My group supports this resolution.",
    "The minutes of the previous sitting have been distributed.",
    "The budget for next year is too small.",
    "Human rights must be respected everywhere.",
    "The report contains many good proposals.",
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_name():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def start_server(binary, config, nat_section, workers):
    port = free_port()
    tmp = tempfile.mkdtemp(prefix="bench-serve-")
    server_yaml = os.path.join(tmp, "server.yaml")
    with open(server_yaml, "w") as f:
        f.write(f"host: 127.0.0.1\nport: {port}\nworkers: {workers}\nqueue_capacity: 1024\n")
        f.write(f"pipelines:\n  - config: {os.path.abspath(config)}\n{nat_section}")
    proc = subprocess.Popen([binary, "serve", "--config", server_yaml, "--log-format", "off"], stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline:
        if proc.poll() is not None:
            sys.exit(f"server exited: {proc.stderr.read()}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1) as r:
                if r.status == 200:
                    return proc, port
        except OSError:
            time.sleep(0.2)
    proc.kill()
    sys.exit("server did not become healthy within 120 s")


def one_request(conn, model, sentence):
    body = json.dumps({"model": model, "prompt": sentence})
    conn.request("POST", "/v1/completions", body, {"Content-Type": "application/json"})
    r = conn.getresponse()
    data = r.read()
    if r.status != 200:
        raise RuntimeError(f"status {r.status}: {data[:200]!r}")
    return json.loads(data)


def load(port, model, clients, seconds):
    """Closed loop: each client sends its next request when the previous one is answered."""
    latencies, errors = [], []
    lock = threading.Lock()
    start_at = time.perf_counter() + 0.2
    stop_at = start_at + seconds

    def client(k):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        mine, i = [], k
        while time.perf_counter() < start_at:
            time.sleep(0.001)
        while True:
            t0 = time.perf_counter()
            if t0 >= stop_at:
                break
            try:
                one_request(conn, model, SENTENCES[i % len(SENTENCES)])
                mine.append(time.perf_counter() - t0)
            except Exception as e:  # noqa: BLE001 - counted, reported
                with lock:
                    errors.append(str(e))
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            i += clients
        with lock:
            latencies.extend(mine)
        conn.close()

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = max(time.perf_counter(), stop_at) - start_at
    latencies.sort()

    def pct(p):
        return latencies[min(len(latencies) - 1, int(p / 100 * len(latencies)))] * 1e3 if latencies else float("nan")

    return {"clients": clients, "requests": len(latencies), "errors": len(errors), "seconds": elapsed,
            "sentences_per_second": len(latencies) / elapsed, "p50_ms": pct(50), "p99_ms": pct(99)}


def batch_stats(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        text = r.read().decode()
    sums = {}
    for line in text.splitlines():
        for name in ("specrt_batch_requests_sum", "specrt_batch_requests_count"):
            if line.startswith(name + "{"):
                sums[name] = float(line.rsplit(" ", 1)[1])
    count = sums.get("specrt_batch_requests_count", 0)
    return sums.get("specrt_batch_requests_sum", 0) / count if count else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="target/release/specrt")
    ap.add_argument("--config", default="configs/ctc-nat-en-de.yaml")
    ap.add_argument("--model", default="ctc-nat-en-de", help="the served name")
    ap.add_argument("--seconds", type=float, default=6.0, help="measured time per cell")
    ap.add_argument("--clients", default="1,8,32")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--window-ms", type=float, default=None)
    ap.add_argument("--max-batch", type=int, default=None)
    ap.add_argument("--out", default="bench-out/serve-nat.json")
    args = ap.parse_args()
    on = "    nat:\n"
    if args.window_ms is not None:
        on += f"      batch_window_ms: {args.window_ms}\n"
    if args.max_batch is not None:
        on += f"      max_batch_sentences: {args.max_batch}\n"
    if on == "    nat:\n":
        on = ""
    modes = [("off", "    nat:\n      max_batch_sentences: 1\n"), ("on", on)]
    rows = []
    for mode, section in modes:
        proc, port = start_server(args.bin, args.config, section, args.workers)
        try:
            load(port, args.model, 4, 1.0)  # warm-up: first passes allocate
            for c in [int(x) for x in args.clients.split(",")]:
                before = batch_stats(port)
                row = load(port, args.model, c, args.seconds)
                row["batching"] = mode
                row["mean_requests_per_batch_overall"] = round(batch_stats(port), 2) if mode == "on" else 1.0
                del before
                rows.append(row)
                print(f"  {mode:>3} c={c:>2}: {row['sentences_per_second']:.1f} sent/s, p50 {row['p50_ms']:.1f} ms, "
                      f"p99 {row['p99_ms']:.1f} ms, errors {row['errors']}", file=sys.stderr)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    by = {(r["batching"], r["clients"]): r for r in rows}
    print(f"\nspecrt serve, {args.model}, workers {args.workers}, CPU: {cpu_name()} ({os.cpu_count()} cores), {args.seconds:.0f} s per cell")
    print("| clients | batching | sentences/s | p50 ms | p99 ms | errors | on/off sentences/s |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        off = by.get(("off", r["clients"]))
        ratio = f"{r['sentences_per_second'] / off['sentences_per_second']:.2f}x" if r["batching"] == "on" and off else ""
        print(f"| {r['clients']} | {r['batching']} | {r['sentences_per_second']:.1f} | {r['p50_ms']:.1f} | {r['p99_ms']:.1f} | {r['errors']} | {ratio} |")
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"binary": args.bin, "config": args.config, "cpu": cpu_name(), "cores": os.cpu_count(), "workers": args.workers,
                   "seconds_per_cell": args.seconds, "rows": rows}, f, indent=2)
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()

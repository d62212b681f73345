"""Side-by-side table of specrt and llama.cpp on the same GGUF weights.

    python -m export.compare_peer --specrt bench-out/foundation/results.json --pipeline smollm2-int4-ar \
        --peer bench-out/peer-smollm2.json [--json OUT]

Reads one pipeline's `overall` AR row and latency rows from a `specrt bench` results.json and a
`export/bench_peer.py` JSON, prints a Markdown table with the ratio specrt / llama.cpp, and optionally writes it
as JSON. Both files should come from the same `make bench-peer` run (same machine, same load). The table header
names what decides whether the peer was fair: the CPU, llama.cpp's build flags and CMake args, and the
extra-buffer (weight repack) setting with its reason.
"""
import argparse
import json
import sys


def peer_header(p: dict) -> list:
    """Lines naming the peer's machine and build (older peer JSONs without these fields print `unknown`)."""
    cpu = p.get("cpu") or {}
    build = p.get("build") or {}
    cmake = build.get("cmake_args") if build else None
    return [
        f"- CPU: {cpu.get('model', 'unknown')}; SIMD flags: {' '.join(cpu.get('simd', [])) or 'unknown'}",
        f"- llama.cpp: llama-cpp-python {p.get('version', '?')}, built with CMake args "
        f"{cmake if cmake else '(none: llama.cpp defaults)' if build else 'unknown (no build record)'}",
        f"- llama.cpp build flags: {p.get('system_info', 'unknown')}",
        f"- extra buffer types (weight repack): {p.get('extra_bufts', 'unknown')}"
        + (f" ({p['extra_bufts_why']})" if p.get("extra_bufts_why") else ""),
    ]


def comparison(s: dict, p: dict, pipeline: str):
    """The rows `(metric, specrt, llama.cpp, higher_is_better)` of one pipeline's `overall` AR row and latency rows
    (`s`: a results.json) against a peer JSON `p`; None when the pipeline has no AR rows."""
    rows = [r for r in s["results"] if r["pipeline"] == pipeline and r["strategy"] == "ar"]
    row = next((r for r in rows if r["category"] == "overall"), rows[0] if rows else None)
    if row is None:
        return None
    table = [
        ("decode tokens/s", row["decode_tokens_per_second"], p["decode_tokens_per_second_mean"], True),
        ("prefill tokens/s", row["prefill_tokens_per_second"], p["prefill_tokens_per_second_mean"], True),
    ]
    lat = {l["context"]: l["median_ms"] for l in s.get("latency", []) if l["pipeline"] == pipeline}
    for ctx, ms in sorted(lat.items()):
        peer_ms = p.get("latency_ms_by_context", {}).get(str(ctx))
        if peer_ms is None:
            # The peer measured 2048 where specrt measured 2000 (its capacity is 2048): compare the nearest, but
            # only a near one (within 64 tokens); a peer run without that context gets no row.
            near = min(p.get("latency_ms_by_context", {}) or {"0": None}, key=lambda c: abs(int(c) - ctx))
            peer_ms = p["latency_ms_by_context"].get(near) if abs(int(near) - ctx) <= 64 else None
            label = f"ms/token at context {ctx} (llama.cpp at {near})"
        else:
            label = f"ms/token at context {ctx}"
        if peer_ms is not None:
            table.append((label, ms, peer_ms, False))
    return table


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--specrt", required=True)
    ap.add_argument("--pipeline", required=True)
    ap.add_argument("--peer", required=True)
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    s = json.load(open(a.specrt))
    p = json.load(open(a.peer))
    table = comparison(s, p, a.pipeline)
    if table is None:
        print(f"no AR rows for pipeline {a.pipeline}", file=sys.stderr)
        return 1
    for line in peer_header(p):
        print(line)
    print()
    print(f"| {a.pipeline} vs llama.cpp ({p.get('version', '?')}, {p.get('threads')} threads) | specrt | llama.cpp | specrt / llama.cpp |")
    print("|---|---|---|---|")
    out = []
    for name, mine, peer, higher_better in table:
        ratio = mine / peer if peer else float("nan")
        print(f"| {name} | {mine:.1f} | {peer:.1f} | {ratio:.2f}x{'' if higher_better else ' (lower is better)'} |")
        out.append({"metric": name, "specrt": mine, "llama_cpp": peer, "ratio": ratio})
    if a.json:
        with open(a.json, "w") as f:
            keys = ("engine", "version", "gguf", "sha256", "threads", "extra_bufts", "extra_bufts_why", "system_info",
                    "build", "cpu")
            json.dump({"pipeline": a.pipeline, "peer": {k: p.get(k) for k in keys}, "rows": out}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())

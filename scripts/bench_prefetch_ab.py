#!/usr/bin/env python3
"""A/B of the panel kernels' software prefetch, per instruction set, in alternating processes (docs/KERNELS.md).

    python3 scripts/bench_prefetch_ab.py --config configs/bench/prefetch-ab-smollm2.yaml --rounds 3 \
        --json bench-out/prefetch-ab/smollm2.json

`SPECRT_PREFETCH_BYTES` and `SPECRT_NO_AVX512` are read once per process, so every (instruction set, distance)
cell is its own `specrt bench` process; the cells run in turns, round by round, with the order rotating, so a
drift of the machine hits every cell alike. Prints a table (median decode tok/s per cell, its ratio to the same
instruction set without prefetch) and writes JSON with every run. Exits non-zero if a run fails.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from export.bench_peer import cpu_info  # noqa: E402  (the repository root, for the CPU record the peers write)


def run_cell(binary: str, config: str, isa: str, prefetch: int, out: str) -> dict:
    env = dict(os.environ, SPECRT_PREFETCH_BYTES=str(prefetch), SPECRT_NO_AVX512="1" if isa == "avx2" else "0")
    proc = subprocess.run([binary, "bench", "--config", config, "--out", out], env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-4000:])
        raise SystemExit(f"bench_prefetch_ab: {isa} prefetch={prefetch}: specrt bench exited {proc.returncode}")
    rows = json.load(open(os.path.join(out, "results.json")))["results"]
    overall = [r for r in rows if r["category"] == "overall"] or rows
    r = overall[0]
    return {"isa": isa, "prefetch": prefetch, "decode_tps": r["decode_tokens_per_second"],
            "prefill_tps": r["prefill_tokens_per_second"], "tps": r["tokens_per_second"], "pipeline": r["pipeline"]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", required=True, help="a bench matrix with one AR pipeline")
    ap.add_argument("--binary", default="target/release/specrt")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--isa", default="avx512,avx2", help="comma-separated: avx512 (the CPU's best), avx2")
    ap.add_argument("--prefetch", default="0,2048", help="comma-separated distances in bytes")
    ap.add_argument("--json", required=True)
    a = ap.parse_args(argv)
    cells = [(i, int(p)) for i in a.isa.split(",") for p in a.prefetch.split(",")]
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for rnd in range(a.rounds):
            order = cells[rnd % len(cells):] + cells[:rnd % len(cells)]
            for isa, pf in order:
                r = run_cell(a.binary, a.config, isa, pf, os.path.join(tmp, f"{isa}-{pf}-{rnd}"))
                r["round"] = rnd
                runs.append(r)
                print(f"[prefetch-ab] round {rnd + 1}/{a.rounds} {isa:6} prefetch {pf:5}: decode {r['decode_tps']:.1f} tok/s",
                      file=sys.stderr, flush=True)
    table = []
    for isa, pf in cells:
        d = [r["decode_tps"] for r in runs if r["isa"] == isa and r["prefetch"] == pf]
        p = [r["prefill_tps"] for r in runs if r["isa"] == isa and r["prefetch"] == pf]
        table.append({"isa": isa, "prefetch": pf, "decode_tps_median": statistics.median(d), "decode_tps": d,
                      "prefill_tps_median": statistics.median(p)})
    # each cell against the same instruction set without prefetch (itself when no 0 cell was asked for)
    off = {t["isa"]: t for t in table if t["prefetch"] == 0}
    for row in table:
        row["decode_vs_no_prefetch"] = row["decode_tps_median"] / off.get(row["isa"], row)["decode_tps_median"]
    cpu = cpu_info()
    print(f"CPU: {cpu['model']} ({' '.join(cpu['simd'])}); {a.config}; {a.rounds} rounds, cells alternating")
    print("| instruction set | prefetch bytes | decode tok/s (median) | runs | vs no prefetch | prefill tok/s (median) |")
    print("|---|---|---|---|---|---|")
    for t in table:
        print(f"| {t['isa']} | {t['prefetch']} | {t['decode_tps_median']:.1f} | "
              f"{' / '.join(f'{x:.1f}' for x in t['decode_tps'])} | {t['decode_vs_no_prefetch']:.2f}x | {t['prefill_tps_median']:.1f} |")
    os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
    json.dump({"cpu": cpu["model"], "cpu_simd": cpu["simd"], "config": a.config, "rounds": a.rounds, "table": table, "runs": runs},
              open(a.json, "w"), indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())

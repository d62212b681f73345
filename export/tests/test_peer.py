"""The llama.cpp peer's fairness record: which extra-buffer setting `auto` picks and why, the build record, and the
header compare_peer prints from it (pure logic; the peer itself needs .cache/venv-peer, see `make peer`)."""
from __future__ import annotations

import json
import subprocess
import sys

from export import bench_peer, compare_peer

NATIVE_AMX_BUILD = "CPU : SSE3 = 1 | AVX = 1 | AVX2 = 1 | AVX512 = 1 | AVX512_VNNI = 1 | AMX_INT8 = 1 | REPACK = 1 |"
NO_AMX_BUILD = "CPU : SSE3 = 1 | AVX = 1 | AVX2 = 1 | AVX512 = 1 | AVX512_VNNI = 1 | REPACK = 1 |"
EPYC = {"model": "AMD EPYC", "flags": ["avx2", "fma"], "amx": False, "simd": ["avx2", "fma"]}
XEON = {"model": "Intel Xeon", "flags": ["avx512f", "amx_tile", "amx_int8"], "amx": True,
        "simd": ["avx512f", "amx_tile", "amx_int8"]}


def test_auto_keeps_llama_cpp_defaults_where_they_work():
    assert bench_peer.choose_extra_bufts("auto", EPYC, NO_AMX_BUILD)[0] is True
    # an AMX CPU with a build that has no AMX path (the Makefile's AMX-off PEER_CMAKE_ARGS) keeps the repack
    on, why = bench_peer.choose_extra_bufts("auto", XEON, NO_AMX_BUILD)
    assert on is True and "no AMX path" in why


def test_auto_turns_them_off_only_where_the_amx_path_would_crash():
    on, why = bench_peer.choose_extra_bufts("auto", XEON, NATIVE_AMX_BUILD)
    assert on is False and "20824" in why and "PEER_CMAKE_ARGS" in why
    # control: the same build string on a CPU without AMX is not the crashing case
    assert bench_peer.choose_extra_bufts("auto", EPYC, NATIVE_AMX_BUILD)[0] is True


def test_explicit_setting_wins_and_says_so():
    assert bench_peer.choose_extra_bufts("on", XEON, NATIVE_AMX_BUILD) == (True, "set by --extra-bufts on")
    assert bench_peer.choose_extra_bufts("off", EPYC, NO_AMX_BUILD) == (False, "set by --extra-bufts off")


def test_cpu_info_reads_this_machine():
    cpu = bench_peer.cpu_info()
    assert cpu["model"] and cpu["flags"], cpu
    assert cpu["amx"] == ("amx_tile" in cpu["flags"])
    assert all(f in cpu["flags"] for f in cpu["simd"])


def test_build_record_is_read_from_the_running_venv(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    assert bench_peer.build_info() is None  # no record: reported as unknown, never guessed
    (tmp_path / "specrt-peer-build.json").write_text(json.dumps({"llama_cpp_python": "0.3.36", "cmake_args": "-DX=1"}))
    assert bench_peer.build_info()["cmake_args"] == "-DX=1"


def test_without_llama_cpp_the_script_refuses_clearly():
    if bench_peer.llama_cpp is not None:
        return  # running inside the peer venv: nothing to refuse
    r = subprocess.run([sys.executable, bench_peer.__file__, "--gguf", "x.gguf"], capture_output=True, text=True)
    assert r.returncode != 0 and "venv-peer" in r.stderr


def test_compare_header_names_cpu_build_and_repack_setting(tmp_path, capsys):
    peer = {"version": "0.3.36", "threads": 2, "system_info": NO_AMX_BUILD, "cpu": EPYC,
            "build": {"llama_cpp_python": "0.3.36", "cmake_args": ""}, "extra_bufts": "on",
            "extra_bufts_why": "auto: on (llama.cpp's default; no AMX on this CPU)",
            "decode_tokens_per_second_mean": 100.0, "prefill_tokens_per_second_mean": 400.0,
            "latency_ms_by_context": {"64": 9.0, "2048": 20.0}}
    specrt = {"results": [{"pipeline": "p", "strategy": "ar", "category": "overall", "decode_tokens_per_second": 110.0,
                           "prefill_tokens_per_second": 800.0}],
              "latency": [{"pipeline": "p", "context": c, "median_ms": ms} for c, ms in ((64, 9.9), (512, 11.0), (2000, 19.0))]}
    (tmp_path / "peer.json").write_text(json.dumps(peer))
    (tmp_path / "specrt.json").write_text(json.dumps(specrt))
    out_json = tmp_path / "cmp.json"
    assert compare_peer.main(["--specrt", str(tmp_path / "specrt.json"), "--pipeline", "p", "--peer",
                              str(tmp_path / "peer.json"), "--json", str(out_json)]) == 0
    text = capsys.readouterr().out
    assert "AMD EPYC" in text and "(none: llama.cpp defaults)" in text and "REPACK = 1" in text
    assert "extra buffer types (weight repack): on (auto: on" in text
    assert "| decode tokens/s | 110.0 | 100.0 | 1.10x |" in text
    # 2000 is compared with the peer's 2048 (specrt's capacity is 2048); 512 has no peer value near it: no row
    assert "| ms/token at context 2000 (llama.cpp at 2048) | 19.0 | 20.0 | 0.95x (lower is better) |" in text
    assert "context 512" not in text
    saved = json.loads(out_json.read_text())["peer"]
    assert saved["cpu"]["model"] == "AMD EPYC" and saved["extra_bufts_why"].startswith("auto")
    # an old peer JSON (no record) says unknown instead of inventing defaults
    assert "unknown (no build record)" in "\n".join(compare_peer.peer_header({"version": "0.3.36"}))

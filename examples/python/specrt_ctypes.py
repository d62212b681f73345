#!/usr/bin/env python3
"""A ctypes host of the specrt C ABI: load a pipeline, stream a generation, print its statistics.

    python3 examples/python/specrt_ctypes.py PIPELINE.yaml [PROMPT] [MAX_TOKENS]

`load_library` declares every function of engine/include/specrt.h; examples/python/translate.py uses it for NAT
(translation) pipelines.

The library is target/release/libspecrt.so (build it with `cargo build --release`) or $SPECRT_LIB.
"""

import ctypes as C
import os
import sys
from pathlib import Path

ABI_VERSION = 1  # SPECRT_ABI_VERSION of engine/include/specrt.h
OK = 0

ROOT = Path(__file__).resolve().parents[2]
CALLBACK = C.CFUNCTYPE(C.c_int, C.c_char_p, C.c_size_t, C.c_void_p)


class SpecrtError(RuntimeError):
    pass


def load_library(path=None):
    lib = C.CDLL(str(path or os.environ.get("SPECRT_LIB") or ROOT / "target/release/libspecrt.so"))
    P = C.c_void_p
    sigs = {
        "specrt_version": ([], C.c_char_p),
        "specrt_abi_version": ([], C.c_uint32),
        "specrt_last_error": ([], C.c_char_p),
        "specrt_status_name": ([C.c_int], C.c_char_p),
        "specrt_pipeline_load_file": ([C.c_char_p, C.POINTER(P)], C.c_int),
        "specrt_pipeline_load_yaml": ([C.c_char_p, C.c_char_p, C.POINTER(P)], C.c_int),
        "specrt_pipeline_free": ([C.POINTER(P)], C.c_int),
        "specrt_pipeline_cancel": ([P], C.c_int),
        "specrt_request_new": ([C.POINTER(P)], C.c_int),
        "specrt_request_free": ([C.POINTER(P)], C.c_int),
        "specrt_request_set_prompt": ([P, C.c_char_p], C.c_int),
        "specrt_request_set_chat": ([P, C.c_int], C.c_int),
        "specrt_request_set_max_tokens": ([P, C.c_int64], C.c_int),
        "specrt_request_set_temperature": ([P, C.c_double], C.c_int),
        "specrt_request_set_top_p": ([P, C.c_double], C.c_int),
        "specrt_request_set_top_k": ([P, C.c_int64], C.c_int),
        "specrt_request_set_seed": ([P, C.c_uint64], C.c_int),
        "specrt_request_add_stop": ([P, C.c_char_p], C.c_int),
        "specrt_request_set_sources": ([P, C.POINTER(C.c_char_p), C.c_size_t], C.c_int),
        "specrt_generate": ([P, P, CALLBACK, P, C.POINTER(P)], C.c_int),
        "specrt_result_free": ([C.POINTER(P)], C.c_int),
        "specrt_result_text": ([P, C.POINTER(C.c_char_p)], C.c_int),
        "specrt_result_get_f64": ([P, C.c_char_p, C.POINTER(C.c_double)], C.c_int),
        "specrt_result_get_i64": ([P, C.c_char_p, C.POINTER(C.c_int64)], C.c_int),
        "specrt_result_get_string": ([P, C.c_char_p, C.POINTER(C.c_char_p)], C.c_int),
        "specrt_result_output_count": ([P, C.POINTER(C.c_size_t)], C.c_int),
        "specrt_result_output_text": ([P, C.c_size_t, C.POINTER(C.c_void_p), C.POINTER(C.c_size_t)], C.c_int),
        "specrt_shutdown": ([], C.c_int),
    }
    for name, (args, res) in sigs.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = args, res
    if lib.specrt_abi_version() != ABI_VERSION:
        raise SpecrtError(f"libspecrt ABI {lib.specrt_abi_version()}, this host speaks {ABI_VERSION}")
    return lib


def check(lib, status, what):
    if status != OK:
        name = lib.specrt_status_name(status).decode()
        raise SpecrtError(f"{what}: {name}: {lib.specrt_last_error().decode()}")


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    prompt = argv[2] if len(argv) > 2 else "The capital of France is"
    max_tokens = int(argv[3]) if len(argv) > 3 else 32
    lib = load_library()
    print(f"specrt {lib.specrt_version().decode()}", file=sys.stderr)
    pipeline, request, result = C.c_void_p(), C.c_void_p(), C.c_void_p()
    try:
        check(lib, lib.specrt_pipeline_load_file(argv[1].encode(), C.byref(pipeline)), "load")
        check(lib, lib.specrt_request_new(C.byref(request)), "request")
        check(lib, lib.specrt_request_set_prompt(request, prompt.encode()), "prompt")
        check(lib, lib.specrt_request_set_max_tokens(request, max_tokens), "max_tokens")

        pending = bytearray()  # a piece is whole UTF-8, but decode defensively anyway

        @CALLBACK
        def on_piece(piece, length, _user):
            pending.extend(C.string_at(piece, length))
            sys.stdout.write(pending.decode("utf-8", "replace"))
            sys.stdout.flush()
            pending.clear()
            return 0

        check(lib, lib.specrt_generate(pipeline, request, on_piece, None, C.byref(result)), "generate")
        print()
        s, f, i = C.c_char_p(), C.c_double(), C.c_int64()
        stats = {}
        for key in ("strategy", "finish_reason"):
            check(lib, lib.specrt_result_get_string(result, key.encode(), C.byref(s)), key)
            stats[key] = s.value.decode()
        for key in ("prompt_tokens", "new_tokens", "target_calls", "drafted", "accepted"):
            check(lib, lib.specrt_result_get_i64(result, key.encode(), C.byref(i)), key)
            stats[key] = i.value
        for key in ("tau", "acceptance_rate", "prefill_tokens_per_second", "decode_tokens_per_second"):
            check(lib, lib.specrt_result_get_f64(result, key.encode(), C.byref(f)), key)
            stats[key] = round(f.value, 3)
        # An unknown key is an error with a readable message, not a crash.
        status = lib.specrt_result_get_f64(result, b"no_such_key", C.byref(f))
        assert status != OK and b"unknown result key" in lib.specrt_last_error()
        print(" ".join(f"{k}={v}" for k, v in stats.items()), file=sys.stderr)
        return 0
    except SpecrtError as e:
        print(e, file=sys.stderr)
        return 1
    finally:
        lib.specrt_result_free(C.byref(result))
        lib.specrt_request_free(C.byref(request))
        lib.specrt_pipeline_free(C.byref(pipeline))
        lib.specrt_shutdown()  # last: joins ONNX Runtime's thread pool before the interpreter exits


if __name__ == "__main__":
    sys.exit(main(sys.argv))

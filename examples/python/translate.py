#!/usr/bin/env python3
"""Translates sentences with a NAT (translation) pipeline through the C ABI from Python (ctypes): one batch in,
one output per sentence, each with its own status. The Python twin of examples/c/translate.c.

    python3 examples/python/translate.py PIPELINE.yaml [SENTENCES.txt]      (default: stdin)

Every non-empty line is one sentence (as `specrt generate` reads a NAT prompt), passed to the library as the
bytes it is (so a line that is not UTF-8 fails alone, with SPECRT_INVALID_UTF8). stdout gets one line per
sentence: its translation, or an empty line when that sentence failed, whose status and message go to stderr.
The library is target/release/libspecrt.so or $SPECRT_LIB (see specrt_ctypes.py).
"""

import ctypes as C
import sys

from specrt_ctypes import CALLBACK, OK, SpecrtError, check, load_library


def translate(lib, pipeline, sentences):
    """Translates `sentences` (a list of bytes) on a loaded NAT pipeline; returns one (text, None) or
    (None, "STATUS: message") per sentence, and the result's statistics."""
    request, result = C.c_void_p(), C.c_void_p()
    try:
        check(lib, lib.specrt_request_new(C.byref(request)), "request")
        array = (C.c_char_p * len(sentences))(*sentences)
        check(lib, lib.specrt_request_set_sources(request, array, len(sentences)), "sources")
        # No stream callback: NAT writes every output in one pass.
        check(lib, lib.specrt_generate(pipeline, request, CALLBACK(), None, C.byref(result)), "generate")
        count = C.c_size_t()
        check(lib, lib.specrt_result_output_count(result, C.byref(count)), "output_count")
        outputs = []
        for i in range(count.value):
            text, length = C.c_void_p(), C.c_size_t()
            status = lib.specrt_result_output_text(result, i, C.byref(text), C.byref(length))
            if status == OK:
                outputs.append((C.string_at(text, length.value).decode("utf-8"), None))
            else:
                name = lib.specrt_status_name(status).decode()
                outputs.append((None, f"{name}: {lib.specrt_last_error().decode()}"))
        stats, i64, s = {}, C.c_int64(), C.c_char_p()
        for key in ("failed_sentences", "prompt_tokens", "new_tokens"):
            check(lib, lib.specrt_result_get_i64(result, key.encode(), C.byref(i64)), key)
            stats[key] = i64.value
        check(lib, lib.specrt_result_get_string(result, b"decode", C.byref(s)), "decode")
        stats["decode"] = s.value.decode()
        return outputs, stats
    finally:
        lib.specrt_result_free(C.byref(result))
        lib.specrt_request_free(C.byref(request))


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    data = open(argv[2], "rb").read() if len(argv) > 2 else sys.stdin.buffer.read()
    sentences = [line.strip(b" \t\r") for line in data.split(b"\n")]
    sentences = [s for s in sentences if s]
    lib = load_library()
    pipeline = C.c_void_p()
    try:
        check(lib, lib.specrt_pipeline_load_file(argv[1].encode(), C.byref(pipeline)), "load")
        outputs, stats = translate(lib, pipeline, sentences)
        for i, (text, error) in enumerate(outputs):
            if error is not None:
                print(f"sentence {i} failed: {error}", file=sys.stderr)
            sys.stdout.write((text or "") + "\n")
        print(f"[nat/{stats['decode']}] sentences={len(outputs)} failed={stats['failed_sentences']} "
              f"source_tokens={stats['prompt_tokens']} new_tokens={stats['new_tokens']}", file=sys.stderr)
        return 0
    except SpecrtError as e:
        print(e, file=sys.stderr)
        return 1
    finally:
        lib.specrt_pipeline_free(C.byref(pipeline))
        lib.specrt_shutdown()  # last: joins ONNX Runtime's thread pool before the interpreter exits


if __name__ == "__main__":
    sys.exit(main(sys.argv))

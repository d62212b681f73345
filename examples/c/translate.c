/* Translates sentences with a NAT (translation) pipeline through the C ABI: one batch in, one output per
 * sentence, each with its own status.
 *
 *   translate PIPELINE.yaml [SENTENCES.txt]      (default: stdin)
 *
 * Every non-empty line is one sentence (as `specrt generate` reads a NAT prompt). stdout gets one line per
 * sentence: its translation, or an empty line when that sentence failed (invalid UTF-8, too long, ...), whose
 * status and message go to stderr; the other sentences are translated all the same. Statistics go to stderr.
 * Exit status 0 when the call succeeded (even if single sentences failed), 1 otherwise. */
#define _POSIX_C_SOURCE 200809L /* getline */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specrt.h"

static int fail(const char *what, specrt_status status) {
    fprintf(stderr, "%s failed: %s: %s\n", what, specrt_status_name((int)status), specrt_last_error());
    return 1;
}

/* Reads the non-empty lines of `in` (newline stripped) into a growing array; returns the count, or -1. */
static long read_sentences(FILE *in, char ***out) {
    char **lines = NULL, *line = NULL;
    size_t cap = 0, n = 0, size = 0;
    ssize_t len;
    while ((len = getline(&line, &size, in)) >= 0) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
        size_t start = strspn(line, " \t");
        if (line[start] == '\0') continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            char **grown = realloc(lines, cap * sizeof *lines);
            if (!grown) break;
            lines = grown;
        }
        lines[n++] = line; /* ownership moves to the array */
        line = NULL;
        size = 0;
    }
    free(line);
    *out = lines;
    return (long)n;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s PIPELINE.yaml [SENTENCES.txt]\n", argv[0]);
        return 2;
    }
    if (specrt_abi_version() != SPECRT_ABI_VERSION) {
        fprintf(stderr, "libspecrt ABI %u, this program was built for %u\n", specrt_abi_version(), SPECRT_ABI_VERSION);
        return 1;
    }
    FILE *in = argc > 2 ? fopen(argv[2], "rb") : stdin;
    if (!in) {
        perror(argv[2]);
        return 1;
    }
    char **sentences = NULL;
    long count = read_sentences(in, &sentences);
    if (in != stdin) fclose(in);

    specrt_pipeline *pipeline = NULL;
    specrt_request *request = NULL;
    specrt_result *result = NULL;
    specrt_status st;
    int rc = 1;

    if ((st = specrt_pipeline_load_file(argv[1], &pipeline)) != SPECRT_OK) { fail("specrt_pipeline_load_file", st); goto done; }
    if ((st = specrt_request_new(&request)) != SPECRT_OK) { fail("specrt_request_new", st); goto done; }
    /* The whole batch in one call; the library copies the strings. count 0 or > SPECRT_MAX_SOURCES fails here. */
    if ((st = specrt_request_set_sources(request, (const char *const *)sentences, (size_t)count)) != SPECRT_OK) {
        fail("specrt_request_set_sources", st);
        goto done;
    }
    if ((st = specrt_generate(pipeline, request, NULL, NULL, &result)) != SPECRT_OK) { fail("specrt_generate", st); goto done; }

    size_t outputs = 0;
    if ((st = specrt_result_output_count(result, &outputs)) != SPECRT_OK) { fail("specrt_result_output_count", st); goto done; }
    for (size_t i = 0; i < outputs; ++i) {
        const char *text = NULL;
        size_t len = 0;
        st = specrt_result_output_text(result, i, &text, &len);
        if (st == SPECRT_OK) {
            fwrite(text, 1, len, stdout);
        } else {
            fprintf(stderr, "sentence %zu failed: %s: %s\n", i, specrt_status_name((int)st), specrt_last_error());
        }
        fputc('\n', stdout);
    }
    int64_t failed = 0, source_tokens = 0, new_tokens = 0;
    double seconds = 0;
    const char *decode = NULL;
    if (specrt_result_get_i64(result, "failed_sentences", &failed) != SPECRT_OK ||
        specrt_result_get_i64(result, "prompt_tokens", &source_tokens) != SPECRT_OK ||
        specrt_result_get_i64(result, "new_tokens", &new_tokens) != SPECRT_OK ||
        specrt_result_get_f64(result, "decode_seconds", &seconds) != SPECRT_OK ||
        specrt_result_get_string(result, "decode", &decode) != SPECRT_OK) {
        fprintf(stderr, "reading statistics failed: %s\n", specrt_last_error());
        goto done;
    }
    fprintf(stderr, "[nat/%s] sentences=%zu failed=%lld source_tokens=%lld new_tokens=%lld ms=%.1f\n", decode, outputs,
            (long long)failed, (long long)source_tokens, (long long)new_tokens, seconds * 1e3);
    rc = 0;

done:
    specrt_result_free(&result);
    specrt_request_free(&request);
    specrt_pipeline_free(&pipeline);
    specrt_shutdown(); /* last: joins ONNX Runtime's thread pool before exit */
    for (long i = 0; i < count; ++i) free(sentences[i]);
    free(sentences);
    return rc;
}

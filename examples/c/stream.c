/* Streams a generation from a specrt pipeline and prints its statistics through the result getters.
 *
 *   stream PIPELINE.yaml [PROMPT] [MAX_TOKENS]
 *
 * The text goes to stdout as it is generated; the statistics go to stderr. Exit status 0 on success. */
#include <stdio.h>
#include <stdlib.h>

#include "specrt.h"

static int on_piece(const char *piece, size_t len, void *user_data) {
    size_t *pieces = (size_t *)user_data;
    fwrite(piece, 1, len, stdout);
    fflush(stdout);
    ++*pieces;
    return 0; /* nonzero would stop the generation */
}

static int fail(const char *what, specrt_status status) {
    fprintf(stderr, "%s failed: %s: %s\n", what, specrt_status_name((int)status), specrt_last_error());
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s PIPELINE.yaml [PROMPT] [MAX_TOKENS]\n", argv[0]);
        return 2;
    }
    const char *prompt = argc > 2 ? argv[2] : "The capital of France is";
    long max_tokens = argc > 3 ? atol(argv[3]) : 32;
    if (specrt_abi_version() != SPECRT_ABI_VERSION) {
        fprintf(stderr, "libspecrt ABI %u, this program was built for %u\n", specrt_abi_version(), SPECRT_ABI_VERSION);
        return 1;
    }
    fprintf(stderr, "specrt %s\n", specrt_version());

    specrt_pipeline *pipeline = NULL;
    specrt_request *request = NULL;
    specrt_result *result = NULL;
    specrt_status st;
    int rc = 1;

    if ((st = specrt_pipeline_load_file(argv[1], &pipeline)) != SPECRT_OK) return fail("specrt_pipeline_load_file", st);
    if ((st = specrt_request_new(&request)) != SPECRT_OK) { fail("specrt_request_new", st); goto done; }
    if ((st = specrt_request_set_prompt(request, prompt)) != SPECRT_OK) { fail("specrt_request_set_prompt", st); goto done; }
    if ((st = specrt_request_set_max_tokens(request, max_tokens)) != SPECRT_OK) { fail("specrt_request_set_max_tokens", st); goto done; }

    size_t pieces = 0;
    if ((st = specrt_generate(pipeline, request, on_piece, &pieces, &result)) != SPECRT_OK) { fail("specrt_generate", st); goto done; }
    printf("\n");

    const char *finish = NULL, *strategy = NULL;
    int64_t prompt_tokens = 0, new_tokens = 0;
    double tau = 0, decode_tps = 0, prefill_tps = 0;
    if (specrt_result_get_string(result, "finish_reason", &finish) != SPECRT_OK ||
        specrt_result_get_string(result, "strategy", &strategy) != SPECRT_OK ||
        specrt_result_get_i64(result, "prompt_tokens", &prompt_tokens) != SPECRT_OK ||
        specrt_result_get_i64(result, "new_tokens", &new_tokens) != SPECRT_OK ||
        specrt_result_get_f64(result, "tau", &tau) != SPECRT_OK ||
        specrt_result_get_f64(result, "prefill_tokens_per_second", &prefill_tps) != SPECRT_OK ||
        specrt_result_get_f64(result, "decode_tokens_per_second", &decode_tps) != SPECRT_OK) {
        fprintf(stderr, "reading statistics failed: %s\n", specrt_last_error());
        goto done;
    }
    fprintf(stderr, "strategy=%s finish_reason=%s pieces=%zu prompt_tokens=%lld new_tokens=%lld tau=%.2f prefill_tok_s=%.1f decode_tok_s=%.1f\n",
            strategy, finish, pieces, (long long)prompt_tokens, (long long)new_tokens, tau, prefill_tps, decode_tps);
    rc = 0;

done:
    specrt_result_free(&result);
    specrt_request_free(&request);
    specrt_pipeline_free(&pipeline);
    /* Last: releases ONNX Runtime's environment and joins its thread pool before the process exits. */
    specrt_shutdown();
    return rc;
}

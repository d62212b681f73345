/* Loads a speculative pipeline (e.g. configs/smollm2-ngram.yaml), generates greedily, and prints what
 * speculative decoding bought: tau (tokens committed per target call), the draft acceptance rate, and
 * decode tokens per second.
 *
 *   speculative_stats PIPELINE.yaml [PROMPT] [MAX_TOKENS] */
#include <stdio.h>
#include <stdlib.h>

#include "specrt.h"

#define CHECK(call)                                                                                  \
    do {                                                                                             \
        specrt_status st_ = (call);                                                                  \
        if (st_ != SPECRT_OK) {                                                                      \
            fprintf(stderr, "%s: %s: %s\n", #call, specrt_status_name((int)st_), specrt_last_error()); \
            goto done;                                                                               \
        }                                                                                            \
    } while (0)

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s PIPELINE.yaml [PROMPT] [MAX_TOKENS]\n", argv[0]);
        return 2;
    }
    const char *prompt = argc > 2 ? argv[2]
                                  : "Repeat this list exactly: apples, pears, plums, apples, pears, plums, apples, pears, plums.";
    long max_tokens = argc > 3 ? atol(argv[3]) : 64;
    specrt_pipeline *pipeline = NULL;
    specrt_request *request = NULL;
    specrt_result *result = NULL;
    int rc = 1;

    CHECK(specrt_pipeline_load_file(argv[1], &pipeline));
    CHECK(specrt_request_new(&request));
    CHECK(specrt_request_set_prompt(request, prompt));
    CHECK(specrt_request_set_max_tokens(request, max_tokens));
    CHECK(specrt_request_set_temperature(request, 0.0));
    CHECK(specrt_generate(pipeline, request, NULL, NULL, &result));

    const char *strategy = NULL, *text = NULL, *per_position = NULL;
    double tau = 0, acceptance = 0, decode_tps = 0;
    int64_t drafted = 0, accepted = 0, target_calls = 0, new_tokens = 0;
    CHECK(specrt_result_text(result, &text));
    CHECK(specrt_result_get_string(result, "strategy", &strategy));
    CHECK(specrt_result_get_string(result, "acceptance_per_position", &per_position));
    CHECK(specrt_result_get_f64(result, "tau", &tau));
    CHECK(specrt_result_get_f64(result, "acceptance_rate", &acceptance));
    CHECK(specrt_result_get_f64(result, "decode_tokens_per_second", &decode_tps));
    CHECK(specrt_result_get_i64(result, "drafted", &drafted));
    CHECK(specrt_result_get_i64(result, "accepted", &accepted));
    CHECK(specrt_result_get_i64(result, "target_calls", &target_calls));
    CHECK(specrt_result_get_i64(result, "new_tokens", &new_tokens));

    printf("text: %s\n", text);
    printf("strategy: %s\n", strategy);
    printf("new_tokens: %lld in %lld target calls\n", (long long)new_tokens, (long long)target_calls);
    printf("tau: %.2f\n", tau);
    printf("acceptance: %.1f%% (%lld/%lld), per position %s\n", 100.0 * acceptance, (long long)accepted, (long long)drafted, per_position);
    printf("decode tokens/s: %.1f\n", decode_tps);
    rc = 0;

done:
    specrt_result_free(&result);
    specrt_request_free(&request);
    specrt_pipeline_free(&pipeline);
    /* Last: releases ONNX Runtime's environment and joins its thread pool before the process exits. */
    specrt_shutdown();
    return rc;
}

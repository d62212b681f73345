/* What a host may and may not do with a pipeline while it generates (and a check that the library keeps its
 * promises; tests/c_examples.rs runs it, also under valgrind):
 *
 *   callbacks PIPELINE.yaml
 *
 * 1. Inside the stream callback, specrt_generate and specrt_pipeline_free on the same pipeline return
 *    SPECRT_REENTRANT and do nothing (the first would wait for itself, the second would free the pipeline under
 *    the running generation); specrt_pipeline_cancel is allowed there.
 * 2. specrt_pipeline_free from another thread while a generation runs cancels it, waits for it, then frees.
 * 3. specrt_shutdown is refused (SPECRT_BUSY) while a pipeline is loaded; once everything is freed it releases
 *    ONNX Runtime's environment and joins its thread pool, and every later call but the version getters,
 *    specrt_status_name, specrt_last_error and specrt_shutdown returns SPECRT_SHUT_DOWN.
 *
 * Prints "callbacks: ok" and exits 0 when every check holds. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <threads.h>

#include "specrt.h"

#define CHECK(cond, ...)                                                                                         \
    do {                                                                                                         \
        if (!(cond)) {                                                                                           \
            fprintf(stderr, "check failed at line %d: %s: ", __LINE__, #cond);                                   \
            fprintf(stderr, __VA_ARGS__);                                                                        \
            fprintf(stderr, " (last error: %s)\n", specrt_last_error());                                         \
            return 1;                                                                                            \
        }                                                                                                        \
    } while (0)

struct reenter {
    specrt_pipeline *pipeline;
    const specrt_request *request;
    specrt_status generate_status, free_status, cancel_status;
    int pointer_kept, messages_ok;
};

static int reenter_cb(const char *piece, size_t len, void *user_data) {
    struct reenter *r = user_data;
    (void)piece;
    (void)len;
    specrt_result *inner = NULL;
    r->generate_status = specrt_generate(r->pipeline, r->request, NULL, NULL, &inner);
    r->messages_ok = strstr(specrt_last_error(), "stream callback") != NULL && inner == NULL;
    specrt_pipeline *copy = r->pipeline;
    r->free_status = specrt_pipeline_free(&copy);
    r->pointer_kept = copy == r->pipeline;
    r->cancel_status = specrt_pipeline_cancel(r->pipeline);
    return 0;
}

struct background {
    const specrt_pipeline *pipeline;
    const specrt_request *request;
    atomic_int pieces;
    specrt_status status;
    specrt_result *result;
};

static int slow_cb(const char *piece, size_t len, void *user_data) {
    struct background *b = user_data;
    (void)piece;
    (void)len;
    atomic_fetch_add(&b->pieces, 1);
    thrd_sleep(&(struct timespec){.tv_nsec = 2000000}, NULL); /* 2 ms: the free below lands mid-generation */
    return 0;
}

static int generate_in_background(void *arg) {
    struct background *b = arg;
    b->status = specrt_generate(b->pipeline, b->request, slow_cb, b, &b->result);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s PIPELINE.yaml\n", argv[0]);
        return 2;
    }
    specrt_pipeline *pipeline = NULL;
    specrt_request *request = NULL;
    specrt_result *result = NULL;
    const char *finish = NULL;
    CHECK(specrt_pipeline_load_file(argv[1], &pipeline) == SPECRT_OK, "load");
    CHECK(specrt_request_new(&request) == SPECRT_OK, "request");
    CHECK(specrt_request_set_prompt(request, "hello") == SPECRT_OK, "prompt");
    CHECK(specrt_request_set_ignore_eos(request, 1) == SPECRT_OK, "ignore_eos");
    CHECK(specrt_shutdown() == SPECRT_BUSY, "shutdown with a loaded pipeline is refused");
    CHECK(strstr(specrt_last_error(), "1 pipeline(s) still loaded") != NULL, "the refusal says why");

    /* 1. Re-entrant calls from the callback. */
    CHECK(specrt_request_set_max_tokens(request, 3) == SPECRT_OK, "max_tokens");
    struct reenter r = {.pipeline = pipeline, .request = request};
    CHECK(specrt_generate(pipeline, request, reenter_cb, &r, &result) == SPECRT_OK, "outer generate");
    CHECK(r.generate_status == SPECRT_REENTRANT, "inner generate: %s", specrt_status_name((int)r.generate_status));
    CHECK(r.messages_ok, "the inner generate's message names the stream callback and gives no result");
    CHECK(r.free_status == SPECRT_REENTRANT, "free in callback: %s", specrt_status_name((int)r.free_status));
    CHECK(r.pointer_kept, "a refused free leaves the pointer alone");
    CHECK(r.cancel_status == SPECRT_OK, "cancel in callback");
    CHECK(specrt_result_get_string(result, "finish_reason", &finish) == SPECRT_OK, "finish_reason");
    CHECK(strcmp(finish, "cancelled") == 0, "the callback's cancel stopped the generation: %s", finish);
    CHECK(specrt_result_free(&result) == SPECRT_OK, "result free");

    /* 2. Free from another thread while a generation runs. */
    CHECK(specrt_request_set_max_tokens(request, 200) == SPECRT_OK, "max_tokens");
    struct background b = {.pipeline = pipeline, .request = request};
    atomic_init(&b.pieces, 0);
    thrd_t thread;
    CHECK(thrd_create(&thread, generate_in_background, &b) == thrd_success, "thread");
    while (atomic_load(&b.pieces) == 0) {
        thrd_sleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
    }
    CHECK(specrt_pipeline_free(&pipeline) == SPECRT_OK, "free while generating");
    CHECK(pipeline == NULL, "free nulls the pointer");
    /* Free returned only after the generation did: its result is already there. */
    CHECK(b.result != NULL, "free returned before the generation");
    thrd_join(thread, NULL);
    CHECK(b.status == SPECRT_OK, "background generate: %s", specrt_status_name((int)b.status));
    CHECK(specrt_result_get_string(b.result, "finish_reason", &finish) == SPECRT_OK, "finish_reason");
    CHECK(strcmp(finish, "cancelled") == 0, "free cancelled the generation: %s", finish);
    CHECK(specrt_result_free(&b.result) == SPECRT_OK, "result free");
    CHECK(specrt_request_free(&request) == SPECRT_OK, "request free");

    /* 3. Shutdown, last. */
    CHECK(specrt_shutdown() == SPECRT_OK, "shutdown");
    CHECK(specrt_request_new(&request) == SPECRT_SHUT_DOWN, "a call after shutdown");
    CHECK(request == NULL && strstr(specrt_last_error(), "shut down") != NULL, "it did nothing and says why");
    CHECK(specrt_pipeline_load_file(argv[1], &pipeline) == SPECRT_SHUT_DOWN && pipeline == NULL, "no load after shutdown");
    CHECK(specrt_abi_version() == SPECRT_ABI_VERSION, "the version getters still work");
    CHECK(specrt_shutdown() == SPECRT_OK, "shutdown twice");
    printf("callbacks: ok\n");
    return 0;
}

/* The C interface of specrt's TensorRT shim (specrt_trt.cpp): the only code in specrt that speaks TensorRT's C++
 * API. Rust calls these functions (engine/backend/tensorrt/shim.rs); tests/tensorrt_shim.rs drives them against a
 * fake libnvinfer built from the same headers.
 *
 * Conventions (tract's C ABI style):
 * - every fallible function returns SPECRT_TRT_OK (0) or SPECRT_TRT_ERROR (1) and, on error, writes a
 *   NUL-terminated message into `err` (at most `err_len` bytes, truncated); `err` may be NULL;
 * - handles are opaque; each has one free function, which accepts NULL;
 * - no C++ exception crosses this interface: TensorRT's API is noexcept and the shim's handles are allocated with
 *   nothrow new (a failed allocation of an error message's text ends the process, as Rust's allocator does). */
#ifndef SPECRT_TRT_H
#define SPECRT_TRT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SPECRT_TRT_OK 0
#define SPECRT_TRT_ERROR 1
/** The most dimensions a tensor may have (TensorRT's Dims::MAX_DIMS). */
#define SPECRT_TRT_MAX_DIMS 8

/** libnvinfer (and, for building plans, libnvonnxparser) opened with dlopen, plus one IRuntime and a logger. */
typedef struct specrt_trt_library specrt_trt_library;
/** A deserialized plan (ICudaEngine). Keeps its library alive. */
typedef struct specrt_trt_engine specrt_trt_engine;
/** An execution context of one engine (IExecutionContext). */
typedef struct specrt_trt_context specrt_trt_context;
/** A serialized plan produced by the builder (IHostMemory). */
typedef struct specrt_trt_blob specrt_trt_blob;

/** One input's min/opt/max shape in one optimization profile, and, for an integer input whose VALUES TensorRT
 * uses to compute shapes (a shape tensor, e.g. a sequence length feeding a Range or Slice), the range of those
 * values: `nb_values` of them (0: none given). Values are set only where the parsed network marks the input as
 * a shape tensor; a shape tensor without values is an error naming it. */
typedef struct {
    const char* name;
    int32_t nb_dims;
    int64_t min[SPECRT_TRT_MAX_DIMS];
    int64_t opt[SPECRT_TRT_MAX_DIMS];
    int64_t max[SPECRT_TRT_MAX_DIMS];
    int32_t nb_values;
    int64_t values_min[SPECRT_TRT_MAX_DIMS];
    int64_t values_opt[SPECRT_TRT_MAX_DIMS];
    int64_t values_max[SPECRT_TRT_MAX_DIMS];
} specrt_trt_profile_input;

/** One optimization profile: a set of inputs' ranges. */
typedef struct {
    const specrt_trt_profile_input* inputs;
    size_t nb_inputs;
} specrt_trt_profile;

/** One IO tensor of an engine. `name` lives as long as the engine. `dims` hold -1 for dynamic axes. */
typedef struct {
    const char* name;
    int32_t is_input;
    /** nvinfer1::DataType: 0 float, 1 half, 2 int8, 3 int32, 4 bool, 5 uint8, 7 bf16, 8 int64, ... */
    int32_t data_type;
    int32_t nb_dims;
    int64_t dims[SPECRT_TRT_MAX_DIMS];
} specrt_trt_io;

/** NV_TENSORRT_VERSION of the headers the shim was compiled with (major*10000 + minor*100 + patch). */
int32_t specrt_trt_header_version(void);

/** Opens `nvinfer_path` (a file name searched by dlopen, or a path) and checks that the library's major version
 * equals the headers' (TensorRT's C++ ABI and plans are tied to it); `onnxparser_path` may be NULL (no building).
 * Creates the runtime. */
int specrt_trt_open(const char* nvinfer_path, const char* onnxparser_path, specrt_trt_library** out, char* err,
                    size_t err_len);
/** getInferLibVersion() of the opened library. */
int32_t specrt_trt_library_version(const specrt_trt_library* lib);
/** Whether the ONNX parser was opened (plans can be built). */
int32_t specrt_trt_can_build(const specrt_trt_library* lib);
/** Releases the runtime and closes the libraries once no engine uses them. */
void specrt_trt_close(specrt_trt_library* lib);

/** Parses an ONNX model (`onnx_path` locates external weights; may be NULL), adds the profiles and builds a
 * serialized plan. `workspace_bytes` 0 keeps TensorRT's default. */
int specrt_trt_build(specrt_trt_library* lib, const void* onnx, size_t onnx_len, const char* onnx_path,
                     const specrt_trt_profile* profiles, size_t nb_profiles, size_t workspace_bytes,
                     specrt_trt_blob** out, char* err, size_t err_len);
/** The bytes of a built plan (valid until the blob is freed). */
const void* specrt_trt_blob_data(const specrt_trt_blob* blob);
size_t specrt_trt_blob_size(const specrt_trt_blob* blob);
void specrt_trt_blob_free(specrt_trt_blob* blob);

/** Deserializes a plan. */
int specrt_trt_deserialize(specrt_trt_library* lib, const void* plan, size_t plan_len, specrt_trt_engine** out,
                           char* err, size_t err_len);
int32_t specrt_trt_engine_nb_io(const specrt_trt_engine* engine);
int32_t specrt_trt_engine_nb_profiles(const specrt_trt_engine* engine);
/** IO tensor `index` (0..nb_io). */
int specrt_trt_engine_io(const specrt_trt_engine* engine, int32_t index, specrt_trt_io* out, char* err,
                         size_t err_len);
void specrt_trt_engine_free(specrt_trt_engine* engine);

/** Creates an execution context (TensorRT allocates its scratch memory). */
int specrt_trt_context_create(specrt_trt_engine* engine, specrt_trt_context** out, char* err, size_t err_len);
/** Selects optimization profile `profile`, queued on `stream` (a CUstream; NULL = the legacy default stream). */
int specrt_trt_context_set_profile(specrt_trt_context* ctx, int32_t profile, void* stream, char* err,
                                   size_t err_len);
int specrt_trt_context_set_input_shape(specrt_trt_context* ctx, const char* name, int32_t nb_dims,
                                       const int64_t* dims, char* err, size_t err_len);
/** Binds a tensor to device memory at `address`. */
int specrt_trt_context_set_address(specrt_trt_context* ctx, const char* name, void* address, char* err,
                                   size_t err_len);
/** The shape TensorRT infers for `name` from the input shapes set so far (outputs included). */
int specrt_trt_context_shape(const specrt_trt_context* ctx, const char* name, int32_t* nb_dims, int64_t* dims,
                             char* err, size_t err_len);
/** enqueueV3 on `stream`: asynchronous; the caller synchronizes (or captures it into a CUDA graph). */
int specrt_trt_context_enqueue(specrt_trt_context* ctx, void* stream, char* err, size_t err_len);
void specrt_trt_context_free(specrt_trt_context* ctx);

#ifdef __cplusplus
}
#endif
#endif

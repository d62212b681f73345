// specrt's TensorRT shim: a thin C layer over TensorRT's C++ API (interface in specrt_trt.h, design in
// docs/GPU.md "TensorRT"). libnvinfer and libnvonnxparser are opened with dlopen, never linked, so a specrt built
// with the `tensorrt` feature starts on machines without TensorRT and says which library is missing. The only
// symbols taken from the libraries are TensorRT's C factory functions; everything else goes through the objects'
// virtual tables, whose layout the vendored headers (include/tensorrt, TensorRT 11.4, Apache-2.0) describe. That
// layout is only guaranteed within one major version, hence the version check in specrt_trt_open.

#include "specrt_trt.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "NvInfer.h"
#include "NvOnnxParser.h"

namespace {

using nvinfer1::ILogger;

// TensorRT logs on the calling thread during synchronous API calls; each entry point clears this buffer first and
// appends what TensorRT said to its own error message.
thread_local std::vector<std::string> t_messages;

class Logger final : public ILogger {
public:
    void log(Severity severity, char const* msg) noexcept override {
        if (severity > Severity::kWARNING || msg == nullptr) return;
        try {
            if (t_messages.size() < 16) t_messages.emplace_back(msg);
        } catch (...) {
        }
    }
};

void begin_call() { t_messages.clear(); }

// Writes `what` (plus TensorRT's own messages of this call) into err; returns SPECRT_TRT_ERROR.
int fail(char* err, size_t err_len, std::string const& what) {
    if (err == nullptr || err_len == 0) return SPECRT_TRT_ERROR;
    std::string full = what;
    try {
        for (auto const& m : t_messages) {
            full += full == what ? "; TensorRT: " : " | ";
            full += m;
        }
    } catch (...) {
    }
    size_t n = full.size() < err_len - 1 ? full.size() : err_len - 1;
    std::memcpy(err, full.data(), n);
    err[n] = '\0';
    return SPECRT_TRT_ERROR;
}

std::string dims_text(int32_t nb, int64_t const* d) {
    std::string s = "[";
    for (int32_t i = 0; i < nb; ++i) s += (i ? "," : "") + std::to_string(d[i]);
    return s + "]";
}

bool to_dims(int32_t nb, int64_t const* src, nvinfer1::Dims& out) {
    if (nb < 0 || nb > nvinfer1::Dims::MAX_DIMS || (nb > 0 && src == nullptr)) return false;
    out.nbDims = nb;
    for (int32_t i = 0; i < nb; ++i) out.d[i] = src[i];
    return true;
}

std::string version_text(int32_t v) {
    return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

using GetVersionFn = int32_t (*)();
using CreateFn = void* (*)(void*, int32_t);
using CreateParserFn = void* (*)(void*, void*, int);

}  // namespace

struct specrt_trt_library {
    void* nvinfer = nullptr;
    void* parser_lib = nullptr;
    CreateFn create_builder = nullptr;
    CreateParserFn create_parser = nullptr;
    int32_t version = 0;
    Logger logger;
    nvinfer1::IRuntime* runtime = nullptr;
    std::atomic<int> refs{1};  // the owner's handle + one per live engine
};

struct specrt_trt_engine {
    specrt_trt_library* lib;
    nvinfer1::ICudaEngine* engine;
};

struct specrt_trt_context {
    nvinfer1::IExecutionContext* context;
};

struct specrt_trt_blob {
    nvinfer1::IHostMemory* memory;
};

namespace {

void release(specrt_trt_library* lib) {
    if (lib == nullptr || lib->refs.fetch_sub(1) != 1) return;
    delete lib->runtime;
    if (lib->parser_lib) dlclose(lib->parser_lib);
    if (lib->nvinfer) dlclose(lib->nvinfer);
    delete lib;
}

}  // namespace

extern "C" {

int32_t specrt_trt_header_version(void) { return NV_TENSORRT_VERSION; }

int specrt_trt_open(char const* nvinfer_path, char const* onnxparser_path, specrt_trt_library** out, char* err,
                    size_t err_len) {
    begin_call();
    if (nvinfer_path == nullptr || out == nullptr) return fail(err, err_len, "specrt_trt_open: null argument");
    *out = nullptr;
    auto* lib = new (std::nothrow) specrt_trt_library();
    if (lib == nullptr) return fail(err, err_len, "out of memory");
    lib->nvinfer = dlopen(nvinfer_path, RTLD_NOW | RTLD_LOCAL);
    if (lib->nvinfer == nullptr) {
        char const* why = dlerror();
        delete lib;
        return fail(err, err_len, std::string("cannot load ") + nvinfer_path + ": " + (why ? why : "unknown"));
    }
    auto get_version = reinterpret_cast<GetVersionFn>(dlsym(lib->nvinfer, "getInferLibVersion"));
    auto create_runtime = reinterpret_cast<CreateFn>(dlsym(lib->nvinfer, "createInferRuntime_INTERNAL"));
    lib->create_builder = reinterpret_cast<CreateFn>(dlsym(lib->nvinfer, "createInferBuilder_INTERNAL"));
    if (get_version == nullptr || create_runtime == nullptr) {
        release(lib);
        return fail(err, err_len,
                    std::string(nvinfer_path) + " is not libnvinfer: getInferLibVersion or createInferRuntime_INTERNAL "
                                                "is missing");
    }
    lib->version = get_version();
    if (lib->version / 10000 != NV_TENSORRT_MAJOR) {
        std::string msg = std::string(nvinfer_path) + " is TensorRT " + version_text(lib->version) +
                          ", but this specrt was compiled against TensorRT " + version_text(NV_TENSORRT_VERSION) +
                          " headers; TensorRT's C++ ABI and its plans are tied to the major version (install TensorRT " +
                          std::to_string(NV_TENSORRT_MAJOR) + ".x)";
        release(lib);
        return fail(err, err_len, msg);
    }
    if (onnxparser_path != nullptr) {
        lib->parser_lib = dlopen(onnxparser_path, RTLD_NOW | RTLD_LOCAL);
        if (lib->parser_lib == nullptr) {
            char const* why = dlerror();
            std::string msg = std::string("cannot load ") + onnxparser_path + ": " + (why ? why : "unknown");
            release(lib);
            return fail(err, err_len, msg);
        }
        lib->create_parser = reinterpret_cast<CreateParserFn>(dlsym(lib->parser_lib, "createNvOnnxParser_INTERNAL"));
        if (lib->create_parser == nullptr || lib->create_builder == nullptr) {
            release(lib);
            return fail(err, err_len, std::string(onnxparser_path) +
                                          ": createNvOnnxParser_INTERNAL (or libnvinfer's createInferBuilder_INTERNAL) "
                                          "is missing");
        }
    }
    // The factories take an ILogger* as void* (what TensorRT's inline createInferRuntime passes).
    void* logger = static_cast<ILogger*>(&lib->logger);
    lib->runtime = static_cast<nvinfer1::IRuntime*>(create_runtime(logger, NV_TENSORRT_VERSION));
    if (lib->runtime == nullptr) {
        release(lib);
        return fail(err, err_len, "createInferRuntime failed (is a GPU visible to this process?)");
    }
    *out = lib;
    return SPECRT_TRT_OK;
}

int32_t specrt_trt_library_version(specrt_trt_library const* lib) { return lib ? lib->version : 0; }

int32_t specrt_trt_can_build(specrt_trt_library const* lib) { return lib && lib->create_parser ? 1 : 0; }

void specrt_trt_close(specrt_trt_library* lib) { release(lib); }

int specrt_trt_build(specrt_trt_library* lib, void const* onnx, size_t onnx_len, char const* onnx_path,
                     specrt_trt_profile const* profiles, size_t nb_profiles, size_t workspace_bytes,
                     specrt_trt_blob** out, char* err, size_t err_len) {
    begin_call();
    if (lib == nullptr || onnx == nullptr || out == nullptr || (nb_profiles > 0 && profiles == nullptr))
        return fail(err, err_len, "specrt_trt_build: null argument");
    *out = nullptr;
    if (lib->create_parser == nullptr)
        return fail(err, err_len, "specrt_trt_build: the ONNX parser library was not opened");
    void* logger = static_cast<ILogger*>(&lib->logger);
    auto* builder = static_cast<nvinfer1::IBuilder*>(lib->create_builder(logger, NV_TENSORRT_VERSION));
    if (builder == nullptr) return fail(err, err_len, "createInferBuilder failed");
    // Owned objects are deleted in reverse order of creation on every path.
    nvinfer1::INetworkDefinition* network = builder->createNetworkV2(0);
    nvonnxparser::IParser* parser = nullptr;
    nvinfer1::IBuilderConfig* config = nullptr;
    nvinfer1::IHostMemory* plan = nullptr;
    std::string error;
    if (network == nullptr) error = "createNetworkV2 failed";
    if (error.empty()) {
        parser = static_cast<nvonnxparser::IParser*>(lib->create_parser(network, logger, NV_ONNX_PARSER_VERSION));
        if (parser == nullptr) error = "createNvOnnxParser failed";
    }
    if (error.empty() && !parser->parse(onnx, onnx_len, onnx_path)) {
        error = "the ONNX parser refused the model";
        for (int i = 0; i < parser->getNbErrors() && i < 8; ++i) {
            auto const* e = parser->getError(i);
            if (e == nullptr) continue;
            error += std::string(i ? "; " : ": ") + "node " + std::to_string(e->node()) + " (" +
                     (e->nodeOperator() ? e->nodeOperator() : "?") + "): " + (e->desc() ? e->desc() : "");
        }
    }
    if (error.empty()) {
        config = builder->createBuilderConfig();
        if (config == nullptr) error = "createBuilderConfig failed";
    }
    if (error.empty() && workspace_bytes > 0)
        config->setMemoryPoolLimit(nvinfer1::MemoryPoolType::kWORKSPACE, workspace_bytes);
    for (size_t p = 0; error.empty() && p < nb_profiles; ++p) {
        nvinfer1::IOptimizationProfile* profile = builder->createOptimizationProfile();
        if (profile == nullptr) {
            error = "createOptimizationProfile failed";
            break;
        }
        for (size_t i = 0; error.empty() && i < profiles[p].nb_inputs; ++i) {
            auto const& in = profiles[p].inputs[i];
            nvinfer1::Dims lo{}, opt{}, hi{};
            if (in.name == nullptr || !to_dims(in.nb_dims, in.min, lo) || !to_dims(in.nb_dims, in.opt, opt) ||
                !to_dims(in.nb_dims, in.max, hi)) {
                error = "profile " + std::to_string(p) + " input " + std::to_string(i) + ": bad name or rank";
            } else if (!profile->setDimensions(in.name, nvinfer1::OptProfileSelector::kMIN, lo) ||
                       !profile->setDimensions(in.name, nvinfer1::OptProfileSelector::kOPT, opt) ||
                       !profile->setDimensions(in.name, nvinfer1::OptProfileSelector::kMAX, hi)) {
                error = "profile " + std::to_string(p) + ": setDimensions(" + in.name + ", min " +
                        dims_text(in.nb_dims, in.min) + ", opt " + dims_text(in.nb_dims, in.opt) + ", max " +
                        dims_text(in.nb_dims, in.max) + ") refused";
            }
        }
        // Inputs TensorRT uses as shape tensors need value ranges; the others must not get any.
        for (int32_t n = 0; error.empty() && n < network->getNbInputs(); ++n) {
            nvinfer1::ITensor const* t = network->getInput(n);
            if (t == nullptr || !t->isShapeTensor()) continue;
            char const* tname = t->getName();
            specrt_trt_profile_input const* spec = nullptr;
            for (size_t i = 0; i < profiles[p].nb_inputs; ++i)
                if (tname && profiles[p].inputs[i].name && std::strcmp(profiles[p].inputs[i].name, tname) == 0)
                    spec = &profiles[p].inputs[i];
            if (spec == nullptr || spec->nb_values <= 0 || spec->nb_values > SPECRT_TRT_MAX_DIMS) {
                error = "profile " + std::to_string(p) + ": input " + (tname ? tname : "?") +
                        " is a shape tensor in TensorRT's network (its values size other tensors) and the profile gives "
                        "no value range for it";
            } else if (!profile->setShapeValuesV2(tname, nvinfer1::OptProfileSelector::kMIN, spec->values_min, spec->nb_values) ||
                       !profile->setShapeValuesV2(tname, nvinfer1::OptProfileSelector::kOPT, spec->values_opt, spec->nb_values) ||
                       !profile->setShapeValuesV2(tname, nvinfer1::OptProfileSelector::kMAX, spec->values_max, spec->nb_values)) {
                error = "profile " + std::to_string(p) + ": setShapeValuesV2(" + tname + ", min " +
                        dims_text(spec->nb_values, spec->values_min) + ", max " +
                        dims_text(spec->nb_values, spec->values_max) + ") refused";
            }
        }
        if (error.empty() && config->addOptimizationProfile(profile) < 0)
            error = "profile " + std::to_string(p) + " is not valid (addOptimizationProfile)";
    }
    if (error.empty()) {
        plan = builder->buildSerializedNetwork(*network, *config);
        if (plan == nullptr) error = "buildSerializedNetwork failed";
    }
    delete config;
    delete parser;
    delete network;
    delete builder;
    if (!error.empty()) return fail(err, err_len, error);
    auto* blob = new (std::nothrow) specrt_trt_blob{plan};
    if (blob == nullptr) {
        delete plan;
        return fail(err, err_len, "out of memory");
    }
    *out = blob;
    return SPECRT_TRT_OK;
}

void const* specrt_trt_blob_data(specrt_trt_blob const* blob) { return blob ? blob->memory->data() : nullptr; }

size_t specrt_trt_blob_size(specrt_trt_blob const* blob) { return blob ? blob->memory->size() : 0; }

void specrt_trt_blob_free(specrt_trt_blob* blob) {
    if (blob == nullptr) return;
    delete blob->memory;
    delete blob;
}

int specrt_trt_deserialize(specrt_trt_library* lib, void const* plan, size_t plan_len, specrt_trt_engine** out,
                           char* err, size_t err_len) {
    begin_call();
    if (lib == nullptr || plan == nullptr || out == nullptr)
        return fail(err, err_len, "specrt_trt_deserialize: null argument");
    *out = nullptr;
    nvinfer1::ICudaEngine* engine = lib->runtime->deserializeCudaEngine(plan, plan_len);
    if (engine == nullptr)
        return fail(err, err_len, "deserializeCudaEngine refused the plan (built by another TensorRT version or for "
                                  "another GPU?)");
    auto* handle = new (std::nothrow) specrt_trt_engine{lib, engine};
    if (handle == nullptr) {
        delete engine;
        return fail(err, err_len, "out of memory");
    }
    lib->refs.fetch_add(1);
    *out = handle;
    return SPECRT_TRT_OK;
}

int32_t specrt_trt_engine_nb_io(specrt_trt_engine const* engine) {
    return engine ? engine->engine->getNbIOTensors() : 0;
}

int32_t specrt_trt_engine_nb_profiles(specrt_trt_engine const* engine) {
    return engine ? engine->engine->getNbOptimizationProfiles() : 0;
}

int specrt_trt_engine_io(specrt_trt_engine const* engine, int32_t index, specrt_trt_io* out, char* err,
                         size_t err_len) {
    begin_call();
    if (engine == nullptr || out == nullptr) return fail(err, err_len, "specrt_trt_engine_io: null argument");
    if (index < 0 || index >= engine->engine->getNbIOTensors())
        return fail(err, err_len, "IO tensor index " + std::to_string(index) + " out of range");
    char const* name = engine->engine->getIOTensorName(index);
    if (name == nullptr) return fail(err, err_len, "getIOTensorName(" + std::to_string(index) + ") failed");
    nvinfer1::Dims d = engine->engine->getTensorShape(name);
    if (d.nbDims < 0 || d.nbDims > SPECRT_TRT_MAX_DIMS)
        return fail(err, err_len, std::string("tensor ") + name + ": bad rank " + std::to_string(d.nbDims));
    out->name = name;
    out->is_input = engine->engine->getTensorIOMode(name) == nvinfer1::TensorIOMode::kINPUT ? 1 : 0;
    out->data_type = static_cast<int32_t>(engine->engine->getTensorDataType(name));
    out->nb_dims = d.nbDims;
    for (int32_t i = 0; i < d.nbDims; ++i) out->dims[i] = d.d[i];
    return SPECRT_TRT_OK;
}

void specrt_trt_engine_free(specrt_trt_engine* engine) {
    if (engine == nullptr) return;
    delete engine->engine;
    release(engine->lib);
    delete engine;
}

int specrt_trt_context_create(specrt_trt_engine* engine, specrt_trt_context** out, char* err, size_t err_len) {
    begin_call();
    if (engine == nullptr || out == nullptr) return fail(err, err_len, "specrt_trt_context_create: null argument");
    *out = nullptr;
    nvinfer1::IExecutionContext* ctx =
        engine->engine->createExecutionContext(nvinfer1::ExecutionContextAllocationStrategy::kSTATIC);
    if (ctx == nullptr) return fail(err, err_len, "createExecutionContext failed (out of device memory?)");
    auto* handle = new (std::nothrow) specrt_trt_context{ctx};
    if (handle == nullptr) {
        delete ctx;
        return fail(err, err_len, "out of memory");
    }
    *out = handle;
    return SPECRT_TRT_OK;
}

int specrt_trt_context_set_profile(specrt_trt_context* ctx, int32_t profile, void* stream, char* err,
                                   size_t err_len) {
    begin_call();
    if (ctx == nullptr) return fail(err, err_len, "specrt_trt_context_set_profile: null context");
    if (!ctx->context->setOptimizationProfileAsync(profile, static_cast<cudaStream_t>(stream)))
        return fail(err, err_len, "setOptimizationProfileAsync(" + std::to_string(profile) + ") refused");
    return SPECRT_TRT_OK;
}

int specrt_trt_context_set_input_shape(specrt_trt_context* ctx, char const* name, int32_t nb_dims,
                                       int64_t const* dims, char* err, size_t err_len) {
    begin_call();
    nvinfer1::Dims d{};
    if (ctx == nullptr || name == nullptr) return fail(err, err_len, "specrt_trt_context_set_input_shape: null argument");
    if (!to_dims(nb_dims, dims, d)) return fail(err, err_len, std::string("input ") + name + ": bad rank");
    if (!ctx->context->setInputShape(name, d))
        return fail(err, err_len, std::string("setInputShape(") + name + ", " + dims_text(nb_dims, dims) +
                                      ") refused (outside the active profile's range?)");
    return SPECRT_TRT_OK;
}

int specrt_trt_context_set_address(specrt_trt_context* ctx, char const* name, void* address, char* err,
                                   size_t err_len) {
    begin_call();
    if (ctx == nullptr || name == nullptr) return fail(err, err_len, "specrt_trt_context_set_address: null argument");
    if (!ctx->context->setTensorAddress(name, address))
        return fail(err, err_len, std::string("setTensorAddress(") + name + ") refused (unknown name or misaligned)");
    return SPECRT_TRT_OK;
}

int specrt_trt_context_shape(specrt_trt_context const* ctx, char const* name, int32_t* nb_dims, int64_t* dims,
                             char* err, size_t err_len) {
    begin_call();
    if (ctx == nullptr || name == nullptr || nb_dims == nullptr || dims == nullptr)
        return fail(err, err_len, "specrt_trt_context_shape: null argument");
    nvinfer1::Dims d = ctx->context->getTensorShape(name);
    if (d.nbDims < 0 || d.nbDims > SPECRT_TRT_MAX_DIMS)
        return fail(err, err_len, std::string("getTensorShape(") + name + ") failed (unknown name?)");
    *nb_dims = d.nbDims;
    for (int32_t i = 0; i < d.nbDims; ++i) dims[i] = d.d[i];
    return SPECRT_TRT_OK;
}

int specrt_trt_context_enqueue(specrt_trt_context* ctx, void* stream, char* err, size_t err_len) {
    begin_call();
    if (ctx == nullptr) return fail(err, err_len, "specrt_trt_context_enqueue: null context");
    if (!ctx->context->allInputDimensionsSpecified())
        return fail(err, err_len, "enqueueV3: an input's shape is not set");
    if (!ctx->context->enqueueV3(static_cast<cudaStream_t>(stream))) return fail(err, err_len, "enqueueV3 failed");
    return SPECRT_TRT_OK;
}

void specrt_trt_context_free(specrt_trt_context* ctx) {
    if (ctx == nullptr) return;
    delete ctx->context;
    delete ctx;
}

}  // extern "C"

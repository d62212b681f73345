//! The raw C interface of the TensorRT shim (shim/specrt_trt.h, compiled by build.rs when the `tensorrt` feature
//! is on) and [`call`], which turns its result codes and message buffers into [`Error::TensorRt`]. Everything
//! above this file uses the safe types of [`super::library`].

use std::ffi::{c_char, c_void, CStr};

use crate::error::{Error, Result};

/// The most dimensions a tensor may have (`SPECRT_TRT_MAX_DIMS`, TensorRT's `Dims::MAX_DIMS`).
pub const MAX_DIMS: usize = 8;

/// Opaque `specrt_trt_library`.
#[repr(C)]
pub struct RawLibrary {
    _private: [u8; 0],
}
/// Opaque `specrt_trt_engine`.
#[repr(C)]
pub struct RawEngine {
    _private: [u8; 0],
}
/// Opaque `specrt_trt_context`.
#[repr(C)]
pub struct RawContext {
    _private: [u8; 0],
}
/// Opaque `specrt_trt_blob`.
#[repr(C)]
pub struct RawBlob {
    _private: [u8; 0],
}

/// `specrt_trt_profile_input`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ProfileInput {
    /// Input name (NUL-terminated, alive for the call).
    pub name: *const c_char,
    /// Rank.
    pub nb_dims: i32,
    /// Smallest shape.
    pub min: [i64; MAX_DIMS],
    /// Shape TensorRT tunes for.
    pub opt: [i64; MAX_DIMS],
    /// Largest shape.
    pub max: [i64; MAX_DIMS],
    /// Values given for a shape-tensor input (0: none).
    pub nb_values: i32,
    /// Smallest values.
    pub values_min: [i64; MAX_DIMS],
    /// Values TensorRT tunes for.
    pub values_opt: [i64; MAX_DIMS],
    /// Largest values.
    pub values_max: [i64; MAX_DIMS],
}

/// `specrt_trt_profile`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Profile {
    /// The inputs' ranges.
    pub inputs: *const ProfileInput,
    /// How many.
    pub nb_inputs: usize,
}

/// `specrt_trt_io`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Io {
    /// Tensor name (alive as long as the engine).
    pub name: *const c_char,
    /// 1 for inputs.
    pub is_input: i32,
    /// `nvinfer1::DataType`.
    pub data_type: i32,
    /// Rank.
    pub nb_dims: i32,
    /// Dimensions, -1 for dynamic axes.
    pub dims: [i64; MAX_DIMS],
}

unsafe extern "C" {
    pub fn specrt_trt_header_version() -> i32;
    pub fn specrt_trt_open(nvinfer: *const c_char, onnxparser: *const c_char, out: *mut *mut RawLibrary, err: *mut c_char, err_len: usize) -> i32;
    pub fn specrt_trt_library_version(lib: *const RawLibrary) -> i32;
    pub fn specrt_trt_can_build(lib: *const RawLibrary) -> i32;
    pub fn specrt_trt_close(lib: *mut RawLibrary);
    pub fn specrt_trt_build(
        lib: *mut RawLibrary,
        onnx: *const c_void,
        onnx_len: usize,
        onnx_path: *const c_char,
        profiles: *const Profile,
        nb_profiles: usize,
        workspace_bytes: usize,
        out: *mut *mut RawBlob,
        err: *mut c_char,
        err_len: usize,
    ) -> i32;
    pub fn specrt_trt_blob_data(blob: *const RawBlob) -> *const c_void;
    pub fn specrt_trt_blob_size(blob: *const RawBlob) -> usize;
    pub fn specrt_trt_blob_free(blob: *mut RawBlob);
    pub fn specrt_trt_deserialize(
        lib: *mut RawLibrary,
        plan: *const c_void,
        plan_len: usize,
        out: *mut *mut RawEngine,
        err: *mut c_char,
        err_len: usize,
    ) -> i32;
    pub fn specrt_trt_engine_nb_io(engine: *const RawEngine) -> i32;
    pub fn specrt_trt_engine_nb_profiles(engine: *const RawEngine) -> i32;
    pub fn specrt_trt_engine_io(engine: *const RawEngine, index: i32, out: *mut Io, err: *mut c_char, err_len: usize) -> i32;
    pub fn specrt_trt_engine_free(engine: *mut RawEngine);
    pub fn specrt_trt_context_create(engine: *mut RawEngine, out: *mut *mut RawContext, err: *mut c_char, err_len: usize) -> i32;
    pub fn specrt_trt_context_set_profile(ctx: *mut RawContext, profile: i32, stream: *mut c_void, err: *mut c_char, err_len: usize) -> i32;
    pub fn specrt_trt_context_set_input_shape(
        ctx: *mut RawContext,
        name: *const c_char,
        nb_dims: i32,
        dims: *const i64,
        err: *mut c_char,
        err_len: usize,
    ) -> i32;
    pub fn specrt_trt_context_set_address(ctx: *mut RawContext, name: *const c_char, address: *mut c_void, err: *mut c_char, err_len: usize) -> i32;
    pub fn specrt_trt_context_shape(
        ctx: *const RawContext,
        name: *const c_char,
        nb_dims: *mut i32,
        dims: *mut i64,
        err: *mut c_char,
        err_len: usize,
    ) -> i32;
    pub fn specrt_trt_context_enqueue(ctx: *mut RawContext, stream: *mut c_void, err: *mut c_char, err_len: usize) -> i32;
    pub fn specrt_trt_context_free(ctx: *mut RawContext);
}

/// Calls a shim function with a message buffer: `Ok` on `SPECRT_TRT_OK`, otherwise the shim's message prefixed
/// by `what`.
pub fn call(what: &str, f: impl FnOnce(*mut c_char, usize) -> i32) -> Result<()> {
    let mut buf = vec![0 as c_char; 2048];
    if f(buf.as_mut_ptr(), buf.len()) == 0 {
        return Ok(());
    }
    // SAFETY: the shim writes a NUL-terminated string of at most buf.len() bytes (or leaves the zeroed buffer).
    let message = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned();
    Err(Error::TensorRt(format!("{what}: {message}")))
}

/// `major.minor.patch` of a TensorRT version integer (`major * 10000 + minor * 100 + patch`).
pub fn version_text(v: i32) -> String {
    format!("{}.{}.{}", v / 10000, v / 100 % 100, v % 100)
}

//! Safe handles over the shim: [`TensorRt`] (the opened libraries and the runtime), [`Engine`] (a deserialized
//! plan and its IO tensors) and [`ExecutionContext`] (shapes, device addresses, enqueue on a stream). Each owns
//! its shim handle and frees it once; the shim reference-counts the library, so an engine may outlive the
//! [`TensorRt`] it came from.

use std::ffi::{c_void, CString};
use std::path::{Path, PathBuf};
use std::ptr;
use std::sync::Arc;

use super::shim::{self, call, Io, Profile, ProfileInput, MAX_DIMS};
use crate::error::{Error, Result};

/// Where the TensorRT libraries are. File names without a slash are searched by the dynamic loader
/// (`LD_LIBRARY_PATH`, the ld.so cache), as for any shared library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibraryPaths {
    /// libnvinfer.
    pub nvinfer: PathBuf,
    /// libnvonnxparser (needed only to build plans).
    pub onnx_parser: Option<PathBuf>,
}

impl LibraryPaths {
    /// The major version's file names (`libnvinfer.so.11`, `libnvonnxparser.so.11`): what a TensorRT install or
    /// the `tensorrt-cu13-libs` wheel provides.
    pub fn default_names(with_parser: bool) -> LibraryPaths {
        let major = header_version() / 10000;
        LibraryPaths {
            nvinfer: PathBuf::from(format!("libnvinfer.so.{major}")),
            onnx_parser: with_parser.then(|| PathBuf::from(format!("libnvonnxparser.so.{major}"))),
        }
    }

    /// The default names inside `dir`.
    pub fn in_dir(dir: &Path, with_parser: bool) -> LibraryPaths {
        let names = LibraryPaths::default_names(with_parser);
        LibraryPaths { nvinfer: dir.join(names.nvinfer), onnx_parser: names.onnx_parser.map(|p| dir.join(p)) }
    }
}

/// The TensorRT version of the headers the shim was compiled with (`major * 10000 + minor * 100 + patch`).
pub fn header_version() -> i32 {
    // SAFETY: returns a constant.
    unsafe { shim::specrt_trt_header_version() }
}

fn c_string(what: &str, text: &str) -> Result<CString> {
    CString::new(text).map_err(|_| Error::TensorRt(format!("{what}: `{text}` contains a NUL byte")))
}

fn c_path(path: &Path) -> Result<CString> {
    let text = path.to_str().ok_or_else(|| Error::TensorRt(format!("{}: the path is not UTF-8", path.display())))?;
    c_string("library path", text)
}

/// libnvinfer (and optionally libnvonnxparser) opened, version-checked, with one runtime.
#[derive(Debug)]
pub struct TensorRt {
    raw: *mut shim::RawLibrary,
}

// SAFETY: TensorRT's runtime and builder factories may be used from any thread (one call at a time per object is
// all the shim does); the handle itself is immutable after open.
unsafe impl Send for TensorRt {}
unsafe impl Sync for TensorRt {}

/// A TensorRT data type (`nvinfer1::DataType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataType {
    /// float32.
    Float,
    /// float16.
    Half,
    /// int8.
    Int8,
    /// int32.
    Int32,
    /// bool (one byte).
    Bool,
    /// uint8.
    Uint8,
    /// bfloat16.
    Bf16,
    /// int64.
    Int64,
    /// Any other (FP8, INT4, ...): specrt binds none of them.
    Other(i32),
}

impl DataType {
    fn from_raw(v: i32) -> DataType {
        match v {
            0 => DataType::Float,
            1 => DataType::Half,
            2 => DataType::Int8,
            3 => DataType::Int32,
            4 => DataType::Bool,
            5 => DataType::Uint8,
            7 => DataType::Bf16,
            8 => DataType::Int64,
            other => DataType::Other(other),
        }
    }

    /// The name the decoder manifests use (`float32`, `float16`, `int64`, ...).
    pub fn manifest_name(self) -> String {
        match self {
            DataType::Float => "float32".into(),
            DataType::Half => "float16".into(),
            DataType::Int8 => "int8".into(),
            DataType::Int32 => "int32".into(),
            DataType::Bool => "bool".into(),
            DataType::Uint8 => "uint8".into(),
            DataType::Bf16 => "bfloat16".into(),
            DataType::Int64 => "int64".into(),
            DataType::Other(v) => format!("tensorrt-type-{v}"),
        }
    }
}

/// One IO tensor of an engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IoTensor {
    /// Its name in the plan (the ONNX graph's input/output name).
    pub name: String,
    /// Input (true) or output.
    pub input: bool,
    /// Element type.
    pub data_type: DataType,
    /// Dimensions; -1 marks a dynamic axis.
    pub dims: Vec<i64>,
}

impl TensorRt {
    /// Opens the libraries and checks that libnvinfer's major version is the headers' major version.
    pub fn open(paths: &LibraryPaths) -> Result<TensorRt> {
        let nvinfer = c_path(&paths.nvinfer)?;
        let parser = paths.onnx_parser.as_deref().map(c_path).transpose()?;
        let mut raw = ptr::null_mut();
        call("opening TensorRT", |err, len| {
            // SAFETY: valid C strings (or null for the parser) and out pointer; err has len bytes.
            unsafe { shim::specrt_trt_open(nvinfer.as_ptr(), parser.as_ref().map_or(ptr::null(), |p| p.as_ptr()), &mut raw, err, len) }
        })?;
        Ok(TensorRt { raw })
    }

    /// libnvinfer's own version (`getInferLibVersion()`).
    pub fn version(&self) -> i32 {
        // SAFETY: live handle.
        unsafe { shim::specrt_trt_library_version(self.raw) }
    }

    /// Whether the ONNX parser was opened, so [`TensorRt::build`] can run.
    pub fn can_build(&self) -> bool {
        // SAFETY: live handle.
        unsafe { shim::specrt_trt_can_build(self.raw) != 0 }
    }

    /// Parses an ONNX model (`onnx_path` lets the parser find external weight files beside it) and builds a
    /// serialized plan with one optimization profile per entry of `profiles`.
    pub fn build(&self, onnx: &[u8], onnx_path: &Path, profiles: &[ProfileShapes], workspace_bytes: usize) -> Result<Vec<u8>> {
        let path = c_path(onnx_path)?;
        let names: Vec<Vec<CString>> = profiles
            .iter()
            .map(|p| p.inputs.iter().map(|i| c_string("profile input", &i.name)).collect::<Result<Vec<_>>>())
            .collect::<Result<_>>()?;
        let mut raw_inputs: Vec<Vec<ProfileInput>> = Vec::with_capacity(profiles.len());
        for (p, profile) in profiles.iter().enumerate() {
            let mut inputs = Vec::with_capacity(profile.inputs.len());
            for (i, input) in profile.inputs.iter().enumerate() {
                inputs.push(input.raw(names[p][i].as_ptr())?);
            }
            raw_inputs.push(inputs);
        }
        let raw_profiles: Vec<Profile> = raw_inputs.iter().map(|v| Profile { inputs: v.as_ptr(), nb_inputs: v.len() }).collect();
        let mut blob = ptr::null_mut();
        call(&format!("building a plan from {}", onnx_path.display()), |err, len| {
            // SAFETY: every pointer addresses live memory of the stated length for the duration of the call.
            unsafe {
                shim::specrt_trt_build(
                    self.raw,
                    onnx.as_ptr().cast(),
                    onnx.len(),
                    path.as_ptr(),
                    raw_profiles.as_ptr(),
                    raw_profiles.len(),
                    workspace_bytes,
                    &mut blob,
                    err,
                    len,
                )
            }
        })?;
        // SAFETY: a successful build returns a live blob; its bytes are copied before it is freed.
        let bytes = unsafe {
            let data = shim::specrt_trt_blob_data(blob).cast::<u8>();
            let size = shim::specrt_trt_blob_size(blob);
            let v = if data.is_null() { Vec::new() } else { std::slice::from_raw_parts(data, size).to_vec() };
            shim::specrt_trt_blob_free(blob);
            v
        };
        Ok(bytes)
    }

    /// Deserializes a plan and reads its IO tensors.
    pub fn deserialize(&self, plan: &[u8]) -> Result<Engine> {
        let mut raw = ptr::null_mut();
        call("deserializing a plan", |err, len| {
            // SAFETY: plan bytes live for the call; out pointer valid.
            unsafe { shim::specrt_trt_deserialize(self.raw, plan.as_ptr().cast(), plan.len(), &mut raw, err, len) }
        })?;
        let handle = EngineHandle { raw };
        // SAFETY: live engine.
        let (n, profiles) = unsafe { (shim::specrt_trt_engine_nb_io(raw), shim::specrt_trt_engine_nb_profiles(raw)) };
        let mut io = Vec::with_capacity(n.max(0) as usize);
        for index in 0..n {
            let mut t = Io { name: ptr::null(), is_input: 0, data_type: 0, nb_dims: 0, dims: [0; MAX_DIMS] };
            call("reading the plan's IO tensors", |err, len| {
                // SAFETY: live engine, index in range, out valid.
                unsafe { shim::specrt_trt_engine_io(raw, index, &mut t, err, len) }
            })?;
            // SAFETY: the shim returns a NUL-terminated name owned by the engine.
            let name = unsafe { std::ffi::CStr::from_ptr(t.name) }.to_string_lossy().into_owned();
            io.push(IoTensor {
                name,
                input: t.is_input != 0,
                data_type: DataType::from_raw(t.data_type),
                dims: t.dims[..t.nb_dims.clamp(0, MAX_DIMS as i32) as usize].to_vec(),
            });
        }
        Ok(Engine { handle: Arc::new(handle), io, profiles: profiles.max(0) as usize })
    }
}

impl Drop for TensorRt {
    fn drop(&mut self) {
        // SAFETY: owned handle, closed once (the shim keeps the library open while engines use it).
        unsafe { shim::specrt_trt_close(self.raw) }
    }
}

/// One input's range in one optimization profile.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct InputRange {
    /// The input's name.
    pub name: String,
    /// Smallest shape.
    pub min: Vec<i64>,
    /// The shape TensorRT tunes its kernels for.
    pub opt: Vec<i64>,
    /// Largest shape.
    pub max: Vec<i64>,
    /// For an integer input whose values size other tensors (a shape tensor in TensorRT): the (min, opt, max) of
    /// each of its values; empty otherwise. Set only where TensorRT's network marks the input as a shape tensor.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<(i64, i64, i64)>,
}

impl InputRange {
    fn raw(&self, name: *const std::ffi::c_char) -> Result<ProfileInput> {
        let rank = self.min.len();
        if rank > MAX_DIMS || self.opt.len() != rank || self.max.len() != rank {
            return Err(Error::TensorRt(format!(
                "profile input {}: ranks {}/{}/{} (at most {MAX_DIMS}, all equal)",
                self.name,
                rank,
                self.opt.len(),
                self.max.len()
            )));
        }
        if self.values.len() > MAX_DIMS {
            return Err(Error::TensorRt(format!("profile input {}: {} values (at most {MAX_DIMS})", self.name, self.values.len())));
        }
        let mut r = ProfileInput {
            name,
            nb_dims: rank as i32,
            min: [0; MAX_DIMS],
            opt: [0; MAX_DIMS],
            max: [0; MAX_DIMS],
            nb_values: self.values.len() as i32,
            values_min: [0; MAX_DIMS],
            values_opt: [0; MAX_DIMS],
            values_max: [0; MAX_DIMS],
        };
        r.min[..rank].copy_from_slice(&self.min);
        r.opt[..rank].copy_from_slice(&self.opt);
        r.max[..rank].copy_from_slice(&self.max);
        for (i, &(lo, opt, hi)) in self.values.iter().enumerate() {
            (r.values_min[i], r.values_opt[i], r.values_max[i]) = (lo, opt, hi);
        }
        Ok(r)
    }
}

/// One optimization profile: a name (what it serves) and its inputs' ranges.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ProfileShapes {
    /// `prefill` or `decode` (decode steps and verify passes).
    pub name: String,
    /// Every dynamic input's range.
    pub inputs: Vec<InputRange>,
}

#[derive(Debug)]
struct EngineHandle {
    raw: *mut shim::RawEngine,
}

// SAFETY: an ICudaEngine is immutable after deserialization; contexts are created one call at a time.
unsafe impl Send for EngineHandle {}
unsafe impl Sync for EngineHandle {}

impl Drop for EngineHandle {
    fn drop(&mut self) {
        // SAFETY: owned handle; every context holds an Arc to it, so none outlives it.
        unsafe { shim::specrt_trt_engine_free(self.raw) }
    }
}

/// A deserialized plan.
#[derive(Debug, Clone)]
pub struct Engine {
    handle: Arc<EngineHandle>,
    io: Vec<IoTensor>,
    profiles: usize,
}

impl Engine {
    /// Its IO tensors, in the plan's order.
    pub fn io(&self) -> &[IoTensor] {
        &self.io
    }

    /// One IO tensor by name.
    pub fn tensor(&self, name: &str) -> Option<&IoTensor> {
        self.io.iter().find(|t| t.name == name)
    }

    /// Its optimization profiles.
    pub fn profiles(&self) -> usize {
        self.profiles
    }

    /// A new execution context (TensorRT allocates its scratch memory now).
    pub fn context(&self) -> Result<ExecutionContext> {
        let mut raw = ptr::null_mut();
        call("creating an execution context", |err, len| {
            // SAFETY: live engine, valid out pointer.
            unsafe { shim::specrt_trt_context_create(self.handle.raw, &mut raw, err, len) }
        })?;
        Ok(ExecutionContext { raw, _engine: self.handle.clone() })
    }
}

/// An execution context: bind shapes and device addresses, then enqueue on a stream.
#[derive(Debug)]
pub struct ExecutionContext {
    raw: *mut shim::RawContext,
    _engine: Arc<EngineHandle>,
}

// SAFETY: a context is used by one thread at a time (`&mut self` on every call that changes it).
unsafe impl Send for ExecutionContext {}

impl ExecutionContext {
    /// Selects optimization profile `index`, queued on `stream` (a `CUstream`; null = the default stream).
    ///
    /// # Safety
    /// `stream` is null or a live CUDA stream of the current context.
    pub unsafe fn set_profile(&mut self, index: usize, stream: *mut c_void) -> Result<()> {
        call("selecting an optimization profile", |err, len| {
            // SAFETY: live context.
            unsafe { shim::specrt_trt_context_set_profile(self.raw, index as i32, stream, err, len) }
        })
    }

    /// Sets a dynamic input's shape for the next enqueue.
    pub fn set_input_shape(&mut self, name: &str, dims: &[i64]) -> Result<()> {
        let c = c_string("input name", name)?;
        if dims.len() > MAX_DIMS {
            return Err(Error::TensorRt(format!("input {name}: rank {} exceeds {MAX_DIMS}", dims.len())));
        }
        call("setting an input shape", |err, len| {
            // SAFETY: live context; dims has nb_dims entries.
            unsafe { shim::specrt_trt_context_set_input_shape(self.raw, c.as_ptr(), dims.len() as i32, dims.as_ptr(), err, len) }
        })
    }

    /// Binds tensor `name` to device memory at `address`.
    ///
    /// # Safety
    /// `address` stays valid, and large enough for the shapes set, for every later enqueue until it is rebound.
    pub unsafe fn set_address(&mut self, name: &str, address: *mut c_void) -> Result<()> {
        let c = c_string("tensor name", name)?;
        call("binding a tensor", |err, len| {
            // SAFETY: live context and C string; the address is only recorded here.
            unsafe { shim::specrt_trt_context_set_address(self.raw, c.as_ptr(), address, err, len) }
        })
    }

    /// The shape TensorRT infers for `name` from the input shapes set so far.
    pub fn shape(&self, name: &str) -> Result<Vec<i64>> {
        let c = c_string("tensor name", name)?;
        let mut nb = 0i32;
        let mut dims = [0i64; MAX_DIMS];
        call("reading a tensor shape", |err, len| {
            // SAFETY: live context; dims has MAX_DIMS slots.
            unsafe { shim::specrt_trt_context_shape(self.raw, c.as_ptr(), &mut nb, dims.as_mut_ptr(), err, len) }
        })?;
        Ok(dims[..nb.clamp(0, MAX_DIMS as i32) as usize].to_vec())
    }

    /// Queues the plan on `stream` (asynchronous).
    ///
    /// # Safety
    /// `stream` is null or a live CUDA stream; every bound address is valid for the shapes set.
    pub unsafe fn enqueue(&mut self, stream: *mut c_void) -> Result<()> {
        call("enqueueV3", |err, len| {
            // SAFETY: live context; the bound addresses are the caller's responsibility (set_address).
            unsafe { shim::specrt_trt_context_enqueue(self.raw, stream, err, len) }
        })
    }
}

impl Drop for ExecutionContext {
    fn drop(&mut self) {
        // SAFETY: owned handle, freed once, before its engine (the Arc).
        unsafe { shim::specrt_trt_context_free(self.raw) }
    }
}

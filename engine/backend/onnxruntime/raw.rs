//! Thin safe wrappers over the ONNX Runtime C API for the decode hot path: tensors over engine-owned memory
//! (no copy), and `Run` with preallocated outputs. `ort`'s high-level `run` converts names and allocates outputs
//! on every call; a decode step should not.

use std::ffi::{c_void, CStr};
use std::ptr;

use ort::sys::{ONNXTensorElementDataType, OrtAllocatorType, OrtMemType, OrtMemoryInfo, OrtStatusPtr, OrtValue};

use crate::error::{Error, Result};

/// Turns an `OrtStatus` into a `Result`, releasing the status.
pub(crate) fn check(status: OrtStatusPtr) -> Result<()> {
    status_message(status).map_or(Ok(()), |message| Err(Error::Backend(message)))
}

/// The message of a non-null `OrtStatus` (the status is released), or `None` for success (no allocation).
pub(crate) fn status_message(status: OrtStatusPtr) -> Option<String> {
    if status.0.is_null() {
        return None;
    }
    let api = ort::api();
    // SAFETY: a non-null status returned by the API; its message lives until ReleaseStatus.
    let message = unsafe { CStr::from_ptr((api.GetErrorMessage)(status.0)) }.to_string_lossy().into_owned();
    unsafe { (api.ReleaseStatus)(status.0) };
    Some(message)
}

/// A CPU memory description, created once per graph.
pub(crate) struct CpuMemory(*mut OrtMemoryInfo);

// SAFETY: OrtMemoryInfo is immutable after creation.
unsafe impl Send for CpuMemory {}

impl CpuMemory {
    pub(crate) fn new() -> Result<Self> {
        let mut info = ptr::null_mut();
        // SAFETY: plain constructor call with a valid out pointer.
        check(unsafe { (ort::api().CreateCpuMemoryInfo)(OrtAllocatorType::OrtDeviceAllocator, OrtMemType::OrtMemTypeDefault, &mut info) })?;
        Ok(CpuMemory(info))
    }
}

impl Drop for CpuMemory {
    fn drop(&mut self) {
        // SAFETY: created by CreateCpuMemoryInfo, released once.
        unsafe { (ort::api().ReleaseMemoryInfo)(self.0) };
    }
}

/// Element types the decoder contract uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Elem {
    F32,
    F16,
    I64,
    I32,
    U8,
}

impl Elem {
    fn onnx(self) -> ONNXTensorElementDataType {
        match self {
            Elem::F32 => ONNXTensorElementDataType::ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
            Elem::F16 => ONNXTensorElementDataType::ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16,
            Elem::I64 => ONNXTensorElementDataType::ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64,
            Elem::I32 => ONNXTensorElementDataType::ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32,
            Elem::U8 => ONNXTensorElementDataType::ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8,
        }
    }

    /// Bytes per element.
    pub(crate) fn size(self) -> usize {
        match self {
            Elem::F32 | Elem::I32 => 4,
            Elem::F16 => 2,
            Elem::I64 => 8,
            Elem::U8 => 1,
        }
    }
}

/// An `OrtValue` that views memory the engine owns. The memory must outlive the value and must not move; the
/// value is released on drop.
pub(crate) struct TensorView(*mut OrtValue);

// SAFETY: the value only points at memory whose owner is moved together with it.
unsafe impl Send for TensorView {}

impl TensorView {
    /// Wraps `bytes` bytes at `data` as a tensor of `shape`.
    ///
    /// # Safety
    /// `data` must be valid for reads (and writes, if used as an output) of `bytes` bytes for as long as the
    /// returned value is used by `run`.
    pub(crate) unsafe fn new(memory: &CpuMemory, data: *mut c_void, bytes: usize, shape: &[i64], elem: Elem) -> Result<Self> {
        let mut value = ptr::null_mut();
        // SAFETY: forwarded from the caller's contract; ORT does not copy and does not free the data.
        check(unsafe { (ort::api().CreateTensorWithDataAsOrtValue)(memory.0, data, bytes, shape.as_ptr(), shape.len(), elem.onnx(), &mut value) })?;
        Ok(TensorView(value))
    }

    pub(crate) fn ptr(&self) -> *mut OrtValue {
        self.0
    }
}

impl Drop for TensorView {
    fn drop(&mut self) {
        // SAFETY: created by CreateTensorWithDataAsOrtValue, released once; the data is not owned by the value.
        unsafe { (ort::api().ReleaseValue)(self.0) };
    }
}

/// Runs `session` with every output preallocated (ORT writes into the given values).
///
/// # Safety
/// `session` must be a live session; names must be NUL-terminated and match the value arrays in length.
pub(crate) unsafe fn run(
    session: *mut ort::sys::OrtSession,
    input_names: &[*const std::ffi::c_char],
    inputs: &[*const OrtValue],
    output_names: &[*const std::ffi::c_char],
    outputs: &mut [*mut OrtValue],
) -> Result<()> {
    debug_assert_eq!(input_names.len(), inputs.len());
    debug_assert_eq!(output_names.len(), outputs.len());
    // SAFETY: forwarded from the caller's contract. Non-null output values are used as preallocated outputs.
    check(unsafe {
        (ort::api().Run)(
            session,
            ptr::null(),
            input_names.as_ptr(),
            inputs.as_ptr(),
            inputs.len(),
            output_names.as_ptr(),
            output_names.len(),
            outputs.as_mut_ptr(),
        )
    })
}

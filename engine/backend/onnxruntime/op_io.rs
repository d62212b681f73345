//! Reading a custom operator's inputs and outputs through the raw C API, without allocating: the high-level `ort`
//! accessors allocate a few small objects per call, ~480 per SmolLM2 decode step (tests/decode_allocations.rs).

use std::ffi::c_void;
use std::ptr;

use ort::operator::KernelContext;
use ort::sys::{OrtKernelContext, OrtStatusPtr, OrtValue};

use super::raw::status_message;
use crate::kernels::parallel::ParallelFor;
use crate::kernels::BlockFormat;

/// Turns an `OrtStatus` into a result (the error path may allocate; the success path does not).
pub(crate) fn check(status: OrtStatusPtr) -> ort::Result<()> {
    status_message(status).map_or(Ok(()), |message| Err(ort::Error::new(message)))
}

/// A positive integer attribute of the node being created, or an error naming the operator, node and attribute.
pub(crate) fn positive_attr(kctx: &KernelContext<'_>, op: &str, node: &str, name: &str) -> ort::Result<usize> {
    kctx.get::<i64>(name)
        .filter(|&v| v > 0)
        .map(|v| v as usize)
        .ok_or_else(|| ort::Error::new(format!("{op} node {node:?}: attribute {name} missing or not positive")))
}

/// The block format named by the node's `ggml_type` attribute, or an error naming the operator, node and the
/// formats it knows.
pub(crate) fn ggml_type_attr(kctx: &KernelContext<'_>, op: &str, node: &str) -> ort::Result<BlockFormat> {
    let name: String = kctx.get("ggml_type").ok_or_else(|| ort::Error::new(format!("{op} node {node:?}: attribute ggml_type missing")))?;
    BlockFormat::parse(&name).ok_or_else(|| {
        let known: Vec<&str> = BlockFormat::ALL.iter().map(|f| f.name()).collect();
        ort::Error::new(format!("{op} node {node:?}: ggml_type {name:?} is not one of {}", known.join(", ")))
    })
}

/// Largest input rank the operator reads (the decoder feeds `[batch, seq, K]`).
pub(crate) const MAX_RANK: usize = 8;

/// Input `index`'s data pointer and shape (written into `dims`, rank returned); `Ok(None)` when the optional input
/// is absent.
pub(crate) unsafe fn input(ctx: *mut OrtKernelContext, index: usize, dims: &mut [i64; MAX_RANK]) -> ort::Result<Option<(*mut c_void, usize)>> {
    let api = ort::api();
    let mut value: *const OrtValue = ptr::null();
    // SAFETY: ctx is the live kernel context; out pointers are valid.
    unsafe {
        check((api.KernelContext_GetInput)(ctx, index, &mut value))?;
        if value.is_null() {
            return Ok(None);
        }
        let mut info = ptr::null_mut();
        check((api.GetTensorTypeAndShape)(value, &mut info))?;
        let mut rank = 0usize;
        let got = check((api.GetDimensionsCount)(info, &mut rank)).and_then(|()| {
            if rank > MAX_RANK {
                return Err(ort::Error::new(format!("input {index} has rank {rank} (at most {MAX_RANK})")));
            }
            check((api.GetDimensions)(info, dims.as_mut_ptr(), rank))
        });
        (api.ReleaseTensorTypeAndShapeInfo)(info);
        got?;
        let mut data = ptr::null_mut();
        check((api.GetTensorMutableData)(value as *mut OrtValue, &mut data))?;
        Ok(Some((data, rank)))
    }
}

/// Output `index` with shape `dims` (ONNX Runtime returns the caller's bound buffer when one is bound): its data.
pub(crate) unsafe fn output(ctx: *mut OrtKernelContext, index: usize, dims: &[i64]) -> ort::Result<*mut c_void> {
    let api = ort::api();
    let mut value: *mut OrtValue = ptr::null_mut();
    let mut data: *mut c_void = ptr::null_mut();
    // SAFETY: valid context, dims and out pointers.
    unsafe {
        check((api.KernelContext_GetOutput)(ctx, index, dims.as_ptr(), dims.len(), &mut value))?;
        if value.is_null() {
            return Err(ort::Error::new(format!("output {index} missing")));
        }
        check((api.GetTensorMutableData)(value, &mut data))?;
    }
    Ok(data)
}

/// ONNX Runtime's intra-op pool (`KernelContext_ParallelFor`) as the kernels' [`ParallelFor`], for one kernel call.
pub(crate) struct OrtPool(pub(crate) *mut OrtKernelContext);

/// Runs task `t` of the closure behind `data` (called by the pool's threads and the calling thread).
unsafe extern "C" fn run_task(data: *mut c_void, t: usize) {
    // SAFETY: `data` points to the `&dyn Fn` that `OrtPool::run` keeps alive until ParallelFor returns.
    let task = unsafe { &*(data as *const &(dyn Fn(usize) + Sync)) };
    task(t);
}

impl ParallelFor for OrtPool {
    fn run(&self, tasks: usize, task: &(dyn Fn(usize) + Sync)) {
        if tasks <= 1 {
            (0..tasks).for_each(task);
            return;
        }
        let data = &task as *const &(dyn Fn(usize) + Sync) as *mut c_void;
        // SAFETY: the context is live for the kernel call; `task` outlives ParallelFor, which returns when every
        // task has run. A failing pool (it never fails on the CPU provider) falls back to running them here.
        let status = unsafe { (ort::api().KernelContext_ParallelFor)(self.0, run_task, tasks, tasks, data) };
        if check(status).is_err() {
            (0..tasks).for_each(task);
        }
    }
}

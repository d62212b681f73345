//! The custom operator `ai.specrt::MatMulGgml`: ONNX Runtime calls the engine's block matmul
//! (engine/kernels/block_matmul.rs) for the linear layers of exports made with `--linear-kernel ggml`.
//!
//! Node contract (export/graph_decoder.py writes it, docs/CONTRACT.md documents it):
//! - input 0 `X`: float32 `[..., K]`; input 1 `W`: uint8 `[N, K / 32 * block_bytes]`, the GGUF file's blocks;
//! - attributes `K`, `N` (ints) and `ggml_type` (`"Q4_0"`, `"Q4_1"` or `"Q8_0"`);
//! - output `Y`: float32 `[..., N]`.
//!
//! The work is split over output columns (64 per task) on ONNX Runtime's own intra-op thread pool
//! (`KernelContext_ParallelFor`), so the engine's threads setting covers it and nothing else spins beside it. Each
//! output element is computed by one task in one fixed order, so the result does not depend on the thread count
//! or on the rows of the pass.

use std::ffi::{c_void, CStr};
use std::ptr;

use ort::operator::{ComputeContext, Kernel, KernelContext, Operator, OperatorDomain, OperatorInput, OperatorOutput};
use ort::sys::{OrtKernelContext, OrtStatusPtr, OrtValue};
use ort::value::TensorElementType;
use ort::AsPointer;

use crate::kernels::{block_matmul, BlockFormat, BlockMatrix, Isa, Q8Rows};

/// The ONNX domain of the engine's operators (exports import it at version 1).
pub const DOMAIN: &str = "ai.specrt";
/// The operator's name in that domain.
pub const OP_NAME: &str = "MatMulGgml";
/// Output columns per parallel task: small enough to spread a 576-column projection over 9 tasks, large enough
/// that a task (64 columns x K/32 blocks) outweighs the pool's dispatch.
const COLUMNS_PER_TASK: usize = 64;

/// The domain holding every operator the engine implements, registered on every session it builds.
pub(crate) fn domain() -> ort::Result<OperatorDomain> {
    OperatorDomain::new(DOMAIN)?.add(MatMulGgml)
}

struct MatMulGgml;

impl Operator for MatMulGgml {
    type Kernel<'attr> = MatMulGgmlKernel;

    fn name(&self) -> &str {
        OP_NAME
    }

    fn inputs(&self) -> impl IntoIterator<Item = OperatorInput> {
        [OperatorInput::required(TensorElementType::Float32), OperatorInput::required(TensorElementType::Uint8)]
    }

    fn outputs(&self) -> impl IntoIterator<Item = OperatorOutput> {
        [OperatorOutput::required(TensorElementType::Float32)]
    }

    fn create_kernel<'attr>(&self, kctx: &KernelContext<'attr>) -> ort::Result<Self::Kernel<'attr>> {
        let node = kctx.node_name().unwrap_or_default();
        let attr = |name: &str| {
            kctx.get::<i64>(name)
                .filter(|&v| v > 0)
                .map(|v| v as usize)
                .ok_or_else(|| ort::Error::new(format!("{OP_NAME} node {node:?}: attribute {name} missing or not positive")))
        };
        let (k, n) = (attr("K")?, attr("N")?);
        let type_name: String =
            kctx.get("ggml_type").ok_or_else(|| ort::Error::new(format!("{OP_NAME} node {node:?}: attribute ggml_type missing")))?;
        let format = BlockFormat::parse(&type_name)
            .ok_or_else(|| ort::Error::new(format!("{OP_NAME} node {node:?}: ggml_type {type_name:?} is not one of Q4_0, Q4_1, Q8_0")))?;
        if !k.is_multiple_of(crate::kernels::block_format::BLOCK) {
            return Err(ort::Error::new(format!("{OP_NAME} node {node:?}: K = {k} is not a multiple of 32")));
        }
        Ok(MatMulGgmlKernel { node, format, k, n, isa: Isa::detect(), rows: Q8Rows::new() })
    }
}

struct MatMulGgmlKernel {
    node: String,
    format: BlockFormat,
    k: usize,
    n: usize,
    isa: Isa,
    /// The quantized activations, reused across calls (no allocation per decode step once grown).
    rows: Q8Rows,
}

/// One call's work, shared by the column tasks through `KernelContext_ParallelFor`'s user-data pointer.
struct Task<'a> {
    matrix: BlockMatrix<'a>,
    rows: &'a Q8Rows,
    out: *mut f32,
    isa: Isa,
}

/// Runs column task `t` (called by ONNX Runtime's pool threads and the calling thread).
unsafe extern "C" fn run_task(data: *mut c_void, t: usize) {
    // SAFETY: `data` is the `Task` that `compute` keeps alive until ParallelFor returns.
    let task = unsafe { &*(data as *const Task) };
    let n = task.matrix.n();
    let cols = t * COLUMNS_PER_TASK..((t + 1) * COLUMNS_PER_TASK).min(n);
    // SAFETY: `out` holds rows x n floats; task t writes only its columns; the matrix and the rows agree on K
    // (checked in `compute`); `isa` came from Isa::detect.
    unsafe { block_matmul::matmul_columns(task.isa, &task.matrix, task.rows, cols, task.out, n) };
}

/// Turns an `OrtStatus` into a result (the error path may allocate; the success path does not).
unsafe fn check(status: OrtStatusPtr) -> ort::Result<()> {
    if status.0.is_null() {
        return Ok(());
    }
    let api = ort::api();
    // SAFETY: a non-null status from the API; its message lives until ReleaseStatus.
    let message = unsafe { CStr::from_ptr((api.GetErrorMessage)(status.0)) }.to_string_lossy().into_owned();
    unsafe { (api.ReleaseStatus)(status.0) };
    Err(ort::Error::new(message))
}

/// Largest input rank the operator reads (the decoder feeds `[batch, seq, K]`).
const MAX_RANK: usize = 8;

/// Input `index`'s data pointer and shape (written into `dims`, rank returned), without allocating: the high-level
/// `ort` accessors allocate a few small objects per call, ~480 per SmolLM2 decode step (tests/decode_allocations.rs).
unsafe fn input(ctx: *mut OrtKernelContext, index: usize, dims: &mut [i64; MAX_RANK]) -> ort::Result<(*mut c_void, usize)> {
    let api = ort::api();
    let mut value: *const OrtValue = ptr::null();
    // SAFETY: ctx is the live kernel context; out pointers are valid.
    unsafe {
        check((api.KernelContext_GetInput)(ctx, index, &mut value))?;
        if value.is_null() {
            return Err(ort::Error::new(format!("{OP_NAME}: input {index} missing")));
        }
        let mut info = ptr::null_mut();
        check((api.GetTensorTypeAndShape)(value, &mut info))?;
        let mut rank = 0usize;
        let got = check((api.GetDimensionsCount)(info, &mut rank)).and_then(|()| {
            if rank > MAX_RANK {
                return Err(ort::Error::new(format!("{OP_NAME}: input {index} has rank {rank} (at most {MAX_RANK})")));
            }
            check((api.GetDimensions)(info, dims.as_mut_ptr(), rank))
        });
        (api.ReleaseTensorTypeAndShapeInfo)(info);
        got?;
        let mut data = ptr::null_mut();
        check((api.GetTensorMutableData)(value as *mut OrtValue, &mut data))?;
        Ok((data, rank))
    }
}

impl Kernel for MatMulGgmlKernel {
    fn compute(&mut self, ctx: &ComputeContext) -> ort::Result<()> {
        let api = ort::api();
        let kctx = ctx.ptr() as *mut OrtKernelContext;
        let err = |what: String| ort::Error::new(format!("{OP_NAME} node {:?}: {what}", self.node));
        let (mut xd, mut wd) = ([0i64; MAX_RANK], [0i64; MAX_RANK]);
        // SAFETY: the kernel context is live for this call; shapes are checked before any pointer is read.
        let ((x_ptr, x_rank), (w_ptr, w_rank)) = unsafe { (input(kctx, 0, &mut xd)?, input(kctx, 1, &mut wd)?) };
        let x_shape = &xd[..x_rank];
        if x_shape.last().copied() != Some(self.k as i64) || x_shape.iter().any(|&d| d < 0) {
            return Err(err(format!("input X has shape {x_shape:?}, its last dimension must be K = {}", self.k)));
        }
        let x_len: usize = x_shape.iter().map(|&d| d as usize).product();
        let w_len: usize = wd[..w_rank].iter().map(|&d| d.max(0) as usize).product();
        // SAFETY: ONNX Runtime's tensors hold exactly their shape's element count (float32 X, uint8 W, checked
        // by the operator's declared input types).
        let (xs, wb) = unsafe { (std::slice::from_raw_parts(x_ptr as *const f32, x_len), std::slice::from_raw_parts(w_ptr as *const u8, w_len)) };
        let matrix = BlockMatrix::new(self.format, self.n, self.k, wb).map_err(|e| err(e.to_string()))?;
        let rows = x_len / self.k;
        self.rows.quantize(xs, rows, self.k);
        let mut yd = xd;
        yd[x_rank - 1] = self.n as i64;
        let mut y: *mut OrtValue = ptr::null_mut();
        let mut y_ptr: *mut c_void = ptr::null_mut();
        // SAFETY: valid context, dims and out pointers.
        unsafe {
            check((api.KernelContext_GetOutput)(kctx, 0, yd.as_ptr(), x_rank, &mut y))?;
            if y.is_null() {
                return Err(err("output Y missing".into()));
            }
            check((api.GetTensorMutableData)(y, &mut y_ptr))?;
        }
        if rows == 0 {
            return Ok(());
        }
        let task = Task { matrix, rows: &self.rows, out: y_ptr as *mut f32, isa: self.isa };
        let tasks = self.n.div_ceil(COLUMNS_PER_TASK);
        // SAFETY: `task` outlives the call, which returns only when every column task has run.
        unsafe { check((api.KernelContext_ParallelFor)(kctx, run_task, tasks, tasks, &task as *const Task as *mut c_void)) }
    }
}

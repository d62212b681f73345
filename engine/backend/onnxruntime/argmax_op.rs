//! The custom operator `ai.specrt::ArgMaxRows`: the argmax of each row of a score tensor, optionally mapped
//! through an id table, in one node (engine/kernels/argmax.rs computes it). The CTC NAT's int8 export
//! (`python -m export ctc-nat --precision q8_0`) ends in it instead of ONNX's ArgMax + Gather.
//!
//! Node contract (export/graph_ctc_nat.py writes it, export/CONTRACT.md documents it):
//! - input 0 `scores`: float32 `[..., N]`;
//! - input 1 `ids` (optional): int64 `[N]`, the id that column j stands for (the NAT's output vocabulary);
//! - input 2 `allowed` (optional): uint8 `[M, N]`, M dividing the row count: row `r` chooses only among the columns
//!   that row `r / (rows / M)` of `allowed` marks non-zero (the first allowed column when none of them exceeds
//!   -inf), so with scores `[batch, positions, N]` and M = batch each sentence has its own columns (the CTC NAT's
//!   per-sentence output shortlist inside a batch's union of them); M = 1 applies one row to every row; a row of
//!   ones is the plain argmax;
//! - output `indices`: int64 `[...]`: per row the first column holding the row's largest value (NaN never chosen;
//!   0 when no value exceeds -inf), or `ids` of that column.
//!
//! Rows are split over ONNX Runtime's intra-op pool (`KernelContext_ParallelFor`), a task per 16 rows.

use std::ffi::c_void;

use ort::operator::{ComputeContext, Kernel, KernelContext, Operator, OperatorInput, OperatorOutput};
use ort::sys::OrtKernelContext;
use ort::value::TensorElementType;
use ort::AsPointer;

use super::op_io::{check, input, output, MAX_RANK};
use crate::kernels::argmax::{argmax, argmax_allowed};

/// The operator's name in the `ai.specrt` domain.
pub const OP_NAME: &str = "ArgMaxRows";
/// Rows per parallel task: a NAT pass has ~30 rows of ~6,600 scores (~2 us each); fewer tasks than rows keeps the
/// pool's hand-off below the work.
const ROWS_PER_TASK: usize = 16;

/// The operator (registered by engine/backend/onnxruntime/custom_ops.rs).
pub(crate) struct ArgMaxRows;

impl Operator for ArgMaxRows {
    type Kernel<'attr> = ArgMaxRowsKernel;

    fn name(&self) -> &str {
        OP_NAME
    }

    fn inputs(&self) -> impl IntoIterator<Item = OperatorInput> {
        [
            OperatorInput::required(TensorElementType::Float32),
            OperatorInput::optional(TensorElementType::Int64),
            OperatorInput::optional(TensorElementType::Uint8),
        ]
    }

    fn outputs(&self) -> impl IntoIterator<Item = OperatorOutput> {
        [OperatorOutput::required(TensorElementType::Int64)]
    }

    fn create_kernel<'attr>(&self, kctx: &KernelContext<'attr>) -> ort::Result<Self::Kernel<'attr>> {
        Ok(ArgMaxRowsKernel { node: kctx.node_name().unwrap_or_default(), all_allowed: Vec::new() })
    }
}

pub(crate) struct ArgMaxRowsKernel {
    node: String,
    /// Per row of `allowed`: whether it allows every column (then the vectorized plain argmax runs); reused.
    all_allowed: Vec<bool>,
}

/// One call's work, shared by the row tasks.
struct Task<'a> {
    scores: &'a [f32],
    n: usize,
    ids: Option<&'a [i64]>,
    /// `allowed` ([M, N]), its rows' all-ones flags and the score rows per `allowed` row.
    allowed: Option<(&'a [u8], &'a [bool], usize)>,
    out: *mut i64,
    rows: usize,
}

/// Runs row task `t` (ONNX Runtime's pool threads and the calling thread).
unsafe extern "C" fn run_task(data: *mut c_void, t: usize) {
    // SAFETY: `data` is the `Task` that `compute` keeps alive until ParallelFor returns.
    let task = unsafe { &*(data as *const Task) };
    for r in t * ROWS_PER_TASK..((t + 1) * ROWS_PER_TASK).min(task.rows) {
        let scores = &task.scores[r * task.n..(r + 1) * task.n];
        let col = match task.allowed {
            Some((mask, all, per)) if !all[r / per] => argmax_allowed(scores, &mask[r / per * task.n..(r / per + 1) * task.n]),
            _ => argmax(scores),
        };
        // `ids` has N entries (checked in `compute`) and col < N.
        let value = task.ids.map_or(col as i64, |ids| ids[col]);
        // SAFETY: `out` holds `rows` values; task t writes only its rows.
        unsafe { *task.out.add(r) = value };
    }
}

impl Kernel for ArgMaxRowsKernel {
    fn compute(&mut self, ctx: &ComputeContext) -> ort::Result<()> {
        let api = ort::api();
        let kctx = ctx.ptr() as *mut OrtKernelContext;
        let err = |what: String| ort::Error::new(format!("{OP_NAME} node {:?}: {what}", self.node));
        let (mut sd, mut id, mut md) = ([0i64; MAX_RANK], [0i64; MAX_RANK], [0i64; MAX_RANK]);
        // SAFETY: the kernel context is live for this call; shapes are checked before any pointer is read.
        let (scores, ids, mask) = unsafe { (input(kctx, 0, &mut sd)?, input(kctx, 1, &mut id)?, input(kctx, 2, &mut md)?) };
        let (s_ptr, rank) = scores.ok_or_else(|| err("input scores is required".into()))?;
        let shape = &sd[..rank];
        if rank == 0 || shape.iter().any(|&d| d < 0) || shape[rank - 1] == 0 {
            return Err(err(format!("input scores has shape {shape:?}: it needs a last dimension of at least 1")));
        }
        let n = shape[rank - 1] as usize;
        let len: usize = shape.iter().map(|&d| d as usize).product();
        // SAFETY: a float32 tensor of that shape holds `len` values.
        let scores = unsafe { std::slice::from_raw_parts(s_ptr as *const f32, len) };
        let ids = match ids {
            None => None,
            Some((ptr, 1)) if id[0] == n as i64 => {
                // SAFETY: an int64 tensor of shape [n].
                Some(unsafe { std::slice::from_raw_parts(ptr as *const i64, n) })
            }
            Some((_, r)) => return Err(err(format!("input ids has shape {:?}, expected [{n}] (one id per column of scores)", &id[..r]))),
        };
        // SAFETY: live context, dims of the output's rank.
        let out = unsafe { output(kctx, 0, &sd[..rank - 1])? } as *mut i64;
        let rows = len / n;
        if rows == 0 {
            return Ok(());
        }
        let allowed = match mask {
            None => None,
            Some((ptr, 2)) if md[1] == n as i64 && md[0] > 0 && rows.is_multiple_of(md[0] as usize) => {
                let m = md[0] as usize;
                // SAFETY: a uint8 tensor of shape [m, n].
                let mask = unsafe { std::slice::from_raw_parts(ptr as *const u8, m * n) };
                self.all_allowed.clear();
                self.all_allowed.extend(mask.chunks_exact(n).map(|r| r.iter().all(|&a| a != 0)));
                Some((mask, &self.all_allowed[..], rows / m))
            }
            Some((_, r)) => {
                return Err(err(format!("input allowed has shape {:?}, expected [M, {n}] with M dividing the {rows} rows of scores", &md[..r])))
            }
        };
        let task = Task { scores, n, ids, allowed, out, rows };
        let tasks = rows.div_ceil(ROWS_PER_TASK);
        // SAFETY: `task` outlives the call, which returns only when every row task has run.
        unsafe { check((api.KernelContext_ParallelFor)(kctx, run_task, tasks, tasks, &task as *const Task as *mut c_void)) }
    }
}

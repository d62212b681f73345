//! The custom operator `ai.specrt::MatMulGgml`: ONNX Runtime calls the engine's block matmul
//! (engine/kernels/block_matmul.rs) for the linear layers of exports made with `--linear-kernel ggml`.
//!
//! Node contract (export/graph_decoder.py writes it, export/README.md "Engine kernels" documents it):
//! - input 0 `X`: float32 `[..., K]`; input 1 `W`: uint8 `[N, K / block_weights * block_bytes]`, the GGUF file's
//!   blocks (32 weights per block; 256 for the K-quants);
//! - attributes `K`, `N` (ints) and `ggml_type` (`"Q4_0"`, `"Q4_1"`, `"Q8_0"`, `"Q4_K"` or `"Q6_K"`);
//! - input 2 `columns` (optional): int64 `[S]`, output columns to compute (each in `0..N`, any order): `Y` is then
//!   `[..., S]` with `Y[..., i]` bit-identical to column `columns[i]` of the whole product. The CTC NAT's
//!   per-sentence output shortlist feeds it to the output head (export/README.md, "CTC NAT models"); the selected
//!   columns are gathered into a reused copy (panels or block rows) and multiplied by the same kernel, and
//!   `columns = 0..N` runs the whole matrix without a copy;
//! - inputs 3-5 `lowrank_a`, `lowrank_b_t`, `lowrank_gate` (optional, all three or none): uint8 Q8_0 blocks of
//!   `A` `[r, K]` (blocks along `K`; `r` = the rank, from the size) and of `B^T` `[r, N]` (blocks along `N`, stored
//!   column block by column block: `[N / 32, r]` blocks), and bool with one flag per row of `X`: `Y[row] += (X[row] @ A^T) @ B^T` on the rows whose flag is set (SPACE's
//!   mask-only adapter, engine/kernels/low_rank.rs); other rows are exactly the block product. Not combined with
//!   `columns`;
//! - output `Y`: float32 `[..., N]` (or `[..., S]`).
//!
//! On CPUs with AVX-512 VNNI the kernel multiplies a 16-column panel copy of `W` ([`PanelMatrix`]), made on the
//! first call and kept while `W`'s buffer (an initializer, which ONNX Runtime never moves) stays the same: it
//! costs one pass over the weights once and their size again in memory, and cuts the instructions per block
//! ~7x (docs/KERNELS.md).
//!
//! The work is split over output columns (64 per task) on ONNX Runtime's own intra-op thread pool
//! (`KernelContext_ParallelFor`), so the engine's threads setting covers it and nothing else spins beside it. Each
//! output element is computed by one task in one fixed order, so the result does not depend on the thread count
//! or on the rows of the pass.

use ort::operator::{ComputeContext, Kernel, KernelContext, Operator, OperatorInput, OperatorOutput};
use ort::sys::OrtKernelContext;
use ort::value::{TensorElementType, TensorValueType};
use ort::AsPointer;

use super::op_io::{ggml_type_attr, input, output, positive_attr, OrtPool, MAX_RANK};
use crate::kernels::block_matmul::{self, ColumnWork, Projection};
use crate::kernels::low_rank::{LowRank, LowRankScratch};
use crate::kernels::{BlockFormat, BlockMatrix, Isa, PanelMatrix, Q8Rows};

/// The operator's name in that domain.
pub const OP_NAME: &str = "MatMulGgml";
/// Output columns per parallel task: small enough to spread a 576-column projection over 9 tasks, large enough
/// that a task (64 columns x K/32 blocks) outweighs the pool's dispatch.
const COLUMNS_PER_TASK: usize = 64;

/// The operator (registered by engine/backend/onnxruntime/custom_ops.rs).
pub(crate) struct MatMulGgml;

impl Operator for MatMulGgml {
    type Kernel<'attr> = MatMulGgmlKernel;

    fn name(&self) -> &str {
        OP_NAME
    }

    fn inputs(&self) -> impl IntoIterator<Item = OperatorInput> {
        [
            OperatorInput::required(TensorElementType::Float32),
            OperatorInput::required(TensorElementType::Uint8),
            OperatorInput::optional(TensorElementType::Int64),
            OperatorInput::optional(TensorElementType::Uint8),
            OperatorInput::optional(TensorElementType::Uint8),
            OperatorInput::optional(TensorElementType::Bool),
        ]
    }

    fn outputs(&self) -> impl IntoIterator<Item = OperatorOutput> {
        [OperatorOutput::required(TensorElementType::Float32)]
    }

    fn create_kernel<'attr>(&self, kctx: &KernelContext<'attr>) -> ort::Result<Self::Kernel<'attr>> {
        let node = kctx.node_name().unwrap_or_default();
        let (k, n) = (positive_attr(kctx, OP_NAME, &node, "K")?, positive_attr(kctx, OP_NAME, &node, "N")?);
        let format = ggml_type_attr(kctx, OP_NAME, &node)?;
        if !k.is_multiple_of(format.block_weights()) {
            return Err(ort::Error::new(format!(
                "{OP_NAME} node {node:?}: K = {k} is not a multiple of {} ({}'s block)",
                format.block_weights(),
                format.name()
            )));
        }
        let isa = Isa::detect();
        // The panel copy is made here, while the session loads, where W is a constant initializer (it is in every
        // export); `compute` checks it was made from the buffer it is given and re-makes it otherwise.
        let panels = if isa.uses_panels(format) { constant_panels(kctx, 1, format, k, n) } else { None };
        // The low-rank path's A (Q8_0 [rank, K]) gets its panel copy the same way.
        let a_rows = |len: usize| len / (k / 32 * BlockFormat::Q8_0.block_bytes());
        let low_rank_panels = if isa.uses_panels(BlockFormat::Q8_0) {
            kctx.constant_input::<TensorValueType<u8>>(3)
                .ok()
                .and_then(|t| t.try_extract_tensor::<u8>().ok().map(|(_, b)| b.len()))
                .and_then(|len| constant_panels(kctx, 3, BlockFormat::Q8_0, k, a_rows(len)))
        } else {
            None
        };
        // Whether the node has the low-rank inputs at all: decided here once, so the other nodes' decode steps do
        // not look up three absent inputs per call (121 nodes per SmolLM2 step).
        let has_low_rank = kctx.inputs().map(|i| i.len() > 3).unwrap_or(true);
        Ok(MatMulGgmlKernel {
            has_low_rank,
            node,
            format,
            k,
            n,
            isa,
            panels,
            columns: Vec::new(),
            gathered: None,
            gathered_rows: Vec::new(),
            low_rank: LowRankScratch::default(),
            low_rank_panels,
        })
    }
}

/// The panel copy of input `index` (block weights `[n, k]`) when it is a constant initializer of the right size
/// (`None` otherwise: `compute` reports a wrong size with the shapes, and a non-constant W gets its copy on the
/// first call), with the address and length of the buffer it was made from.
pub(super) fn constant_panels(kctx: &KernelContext, index: usize, format: BlockFormat, k: usize, n: usize) -> Option<(usize, usize, PanelMatrix)> {
    let w = kctx.constant_input::<TensorValueType<u8>>(index).ok()?;
    let (_, bytes) = w.try_extract_tensor::<u8>().ok()?;
    let matrix = BlockMatrix::new(format, n, k, bytes).ok()?;
    PanelMatrix::new(&matrix).map(|p| (bytes.as_ptr() as usize, bytes.len(), p))
}

pub(crate) struct MatMulGgmlKernel {
    /// Whether the node lists inputs past `columns` (the low-rank path's; checked on every call when it does).
    has_low_rank: bool,
    node: String,
    format: BlockFormat,
    k: usize,
    n: usize,
    isa: Isa,
    /// The panel copy of `W` and the address and length of the buffer it was made from.
    panels: Option<(usize, usize, PanelMatrix)>,
    /// The last call's `columns`, checked and narrowed (reused).
    columns: Vec<u32>,
    /// The selected columns' panels (panel kernels), storage reused across calls.
    gathered: Option<PanelMatrix>,
    /// The selected columns' block rows (block-layout kernels), storage reused across calls.
    gathered_rows: Vec<u8>,
    /// The low-rank path's gated rows and their `x @ A^T` (reused).
    low_rank: LowRankScratch,
    /// The panel copy of the low-rank path's `A` and the address and length of the buffer it was made from.
    low_rank_panels: Option<(usize, usize, PanelMatrix)>,
}

thread_local! {
    /// The quantized activations, shared by every MatMulGgml node run from this thread (nodes run one after
    /// another): no allocation per call once grown, and one buffer per thread instead of one per node (121 per
    /// SmolLM2 graph, each as large as the largest prefill).
    static ROWS: std::cell::RefCell<Q8Rows> = std::cell::RefCell::new(Q8Rows::new());
}

impl Kernel for MatMulGgmlKernel {
    fn compute(&mut self, ctx: &ComputeContext) -> ort::Result<()> {
        let kctx = ctx.ptr() as *mut OrtKernelContext;
        let err = |what: String| ort::Error::new(format!("{OP_NAME} node {:?}: {what}", self.node));
        let (mut xd, mut wd, mut cd) = ([0i64; MAX_RANK], [0i64; MAX_RANK], [0i64; MAX_RANK]);
        // SAFETY: the kernel context is live for this call; shapes are checked before any pointer is read.
        let (x, w, cols) = unsafe { (input(kctx, 0, &mut xd)?, input(kctx, 1, &mut wd)?, input(kctx, 2, &mut cd)?) };
        let ((x_ptr, x_rank), (w_ptr, w_rank)) = x.zip(w).ok_or_else(|| err("inputs X and W are required".into()))?;
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
        // The optional column selection: `None` (absent, or exactly 0..N) multiplies the whole matrix.
        let selected = match cols {
            None => false,
            Some((ptr, 1)) if cd[0] > 0 => {
                // SAFETY: an int64 tensor of shape [S].
                let c = unsafe { std::slice::from_raw_parts(ptr as *const i64, cd[0] as usize) };
                if let Some(bad) = c.iter().find(|&&v| v < 0 || v >= self.n as i64) {
                    return Err(err(format!("input columns holds {bad}, outside 0..{} (N)", self.n)));
                }
                let identity = c.len() == self.n && c.iter().enumerate().all(|(i, &v)| v == i as i64);
                self.columns.clear();
                if !identity {
                    self.columns.extend(c.iter().map(|&v| v as u32));
                }
                !identity
            }
            Some((_, r)) => return Err(err(format!("input columns has shape {:?}, expected [S] with S >= 1", &cd[..r]))),
        };
        let width = if selected { self.columns.len() } else { self.n };
        let rows = x_len / self.k;
        // SAFETY: the live context; the three tensors' sizes are checked before use.
        let low_rank = if self.has_low_rank { unsafe { low_rank_inputs(kctx, self.k, self.n, rows) }.map_err(err)? } else { None };
        if low_rank.is_some() && selected {
            return Err(err("a low-rank path (inputs 3-5) cannot be combined with a column selection (input 2)".into()));
        }
        let mut yd = xd;
        yd[x_rank - 1] = width as i64;
        // SAFETY: live context, dims of the output's rank.
        let y_ptr = unsafe { output(kctx, 0, &yd[..x_rank])? };
        if rows == 0 {
            return Ok(());
        }
        let key = (w_ptr as usize, w_len);
        if self.isa.uses_panels(self.format) && self.panels.as_ref().is_none_or(|(p, l, _)| (*p, *l) != key) {
            self.panels = PanelMatrix::new(&matrix).map(|m| (key.0, key.1, m));
        }
        let sub_blocks;
        let w = match (&self.panels, selected) {
            (Some((_, _, p)), false) => Projection::Panels(p),
            (None, false) => Projection::Blocks(&matrix),
            (Some((_, _, p)), true) => {
                let g = self.gathered.get_or_insert_with(|| PanelMatrix::empty(self.format, self.k));
                p.gather_columns(&self.columns, g);
                Projection::Panels(g)
            }
            (None, true) => {
                matrix.gather_rows(&self.columns, &mut self.gathered_rows);
                sub_blocks = BlockMatrix::new(self.format, width, self.k, &self.gathered_rows).map_err(|e| err(e.to_string()))?;
                Projection::Blocks(&sub_blocks)
            }
        };
        // SAFETY: ONNX Runtime allocated the output with `yd`'s shape: rows x width floats, not aliasing X.
        let y = unsafe { std::slice::from_raw_parts_mut(y_ptr as *mut f32, rows * width) };
        // The low-rank path: its factors checked, A's panel copy (re)made like W's.
        let factors = match &low_rank {
            Some(f) => {
                let a = BlockMatrix::new(BlockFormat::Q8_0, f.rank, self.k, f.a).map_err(|e| err(format!("input lowrank_a: {e}")))?;
                let key = (f.a.as_ptr() as usize, f.a.len());
                if self.isa.uses_panels(BlockFormat::Q8_0) && self.low_rank_panels.as_ref().is_none_or(|(p, l, _)| (*p, *l) != key) {
                    self.low_rank_panels = PanelMatrix::new(&a).map(|m| (key.0, key.1, m));
                }
                Some((a, f.b_t, f.gate))
            }
            None => None,
        };
        let low_rank = match &factors {
            Some((a, b_t, gate)) => {
                let a = match &self.low_rank_panels {
                    Some((_, _, p)) if self.isa.uses_panels(BlockFormat::Q8_0) => Projection::Panels(p),
                    _ => Projection::Blocks(a),
                };
                Some((LowRank::new(a, b_t, self.k, self.n).map_err(|e| err(e.to_string()))?, *gate))
            }
            None => None,
        };
        let (isa, scratch) = (self.isa, &mut self.low_rank);
        ROWS.with(|cell| {
            let mut q = cell.borrow_mut();
            q.quantize(xs, rows, self.k);
            // x @ A^T of the gated rows first, from the activations just quantized; the column sums then run inside
            // the matmul's own column tasks (engine/kernels/low_rank.rs says why).
            let gated = match &low_rank {
                Some((lr, gate)) => lr.prepare(isa, &q, gate, scratch),
                None => 0,
            };
            let work = LowRankColumns { low_rank: low_rank.as_ref().filter(|_| gated > 0).map(|(lr, _)| lr), isa, scratch: &*scratch };
            block_matmul::matmul_parallel_then(isa, w, &q, y, COLUMNS_PER_TASK, &OrtPool(kctx), &work);
        });
        Ok(())
    }
}

/// The low-rank path's column sums inside the matmul's column tasks: its `B^T` blocks prefetched when a task
/// starts, its products added when the task has written its columns (nothing without gated rows).
struct LowRankColumns<'a> {
    low_rank: Option<&'a LowRank<'a>>,
    isa: Isa,
    scratch: &'a LowRankScratch,
}

impl ColumnWork for LowRankColumns<'_> {
    fn before(&self, cols: std::ops::Range<usize>) {
        if let Some(lr) = self.low_rank {
            lr.prefetch_columns(cols);
        }
    }

    fn after(&self, cols: std::ops::Range<usize>, y: *mut f32) {
        if let Some(lr) = self.low_rank {
            // SAFETY: the matmul hands each task its own columns of y (rows x N), written by it alone.
            unsafe { lr.add_columns(self.isa, self.scratch, cols, y) };
        }
    }
}

/// The low-rank path's inputs, sizes checked against the projection: Q8_0 bytes of `A` and `B^T`, the rank, and
/// one gate flag per row.
struct LowRankInputs<'a> {
    a: &'a [u8],
    b_t: &'a [u8],
    rank: usize,
    gate: &'a [u8],
}

/// Inputs 3-5 (`lowrank_a`, `lowrank_b_t`: Q8_0 bytes; `lowrank_gate`: one flag per row), all three or none.
///
/// # Safety
/// `kctx` must be the live kernel context of this call; the slices borrow its tensors, valid for the call.
unsafe fn low_rank_inputs<'a>(kctx: *mut OrtKernelContext, k: usize, n: usize, rows: usize) -> Result<Option<LowRankInputs<'a>>, String> {
    let (mut ad, mut bd, mut gd) = ([0i64; MAX_RANK], [0i64; MAX_RANK], [0i64; MAX_RANK]);
    // SAFETY: the caller's live context.
    let got = unsafe { (input(kctx, 3, &mut ad), input(kctx, 4, &mut bd), input(kctx, 5, &mut gd)) };
    let (a, b, g) = match got {
        (Ok(a), Ok(b), Ok(g)) => (a, b, g),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return Err(e.to_string()),
    };
    let len = |d: &[i64; MAX_RANK], rank: usize| d[..rank].iter().map(|&v| v.max(0) as usize).product::<usize>();
    match (a, b, g) {
        (None, None, None) => Ok(None),
        (Some((ap, ar)), Some((bp, br)), Some((gp, gr))) => {
            let (a_len, b_len, g_len) = (len(&ad, ar), len(&bd, br), len(&gd, gr));
            if g_len != rows {
                return Err(format!("input lowrank_gate has shape {:?}: {g_len} flags for {rows} rows of X", &gd[..gr]));
            }
            let a_row = k / 32 * BlockFormat::Q8_0.block_bytes();
            let rank = a_len / a_row.max(1);
            if rank == 0 || a_len != rank * a_row {
                return Err(format!("input lowrank_a has shape {:?} ({a_len} bytes): not whole Q8_0 rows of K = {k}", &ad[..ar]));
            }
            if !n.is_multiple_of(32) {
                return Err(format!("a low-rank path needs N = {n} to be a multiple of 32 (B^T is Q8_0 blocks along N)"));
            }
            // SAFETY: uint8 and bool (one byte each) tensors of exactly these element counts (the declared types).
            let (a, b_t, gate) = unsafe {
                (
                    std::slice::from_raw_parts(ap as *const u8, a_len),
                    std::slice::from_raw_parts(bp as *const u8, b_len),
                    std::slice::from_raw_parts(gp as *const u8, g_len),
                )
            };
            Ok(Some(LowRankInputs { a, b_t, rank, gate }))
        }
        _ => Err("inputs lowrank_a, lowrank_b_t and lowrank_gate (3-5) go together: all three or none".into()),
    }
}

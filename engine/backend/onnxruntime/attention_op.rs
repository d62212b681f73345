//! The custom operator `ai.specrt::BatchInvariantAttention`: ONNX Runtime's GroupQueryAttention contract as the
//! decoder uses it (packed q|k|v, shared KV buffers, rotate-half rotary at explicit positions, additive bias),
//! computed one query row at a time by engine/kernels/attention.rs so a row's result never depends on how many
//! rows its pass holds (exports made with `--attention-kernel specrt`).
//!
//! Inputs (the GroupQueryAttention node's, same order): 0 `qkv` f32 `[B, S, (H + 2 KVH) * D]`, 1-2 unused (must be
//! absent), 3-4 `past_key` / `past_value` f32 `[B, KVH, capacity, D]`, 5 `seqlens_k` i32 `[B]` (total - 1),
//! 6 `total_sequence_length` i32, 7-8 `cos_cache` / `sin_cache` f32 `[max_positions, D / 2]`, 9 `position_ids`
//! i64 `[B, S]`, 10 `attention_bias` f32 `[B, 1, S, total]`. Outputs: 0 f32 `[B, S, H * D]`,
//! 1-2 `present_key` / `present_value` (the caller binds them to the past buffers; if not, the past is copied).
//! Attributes: `num_heads`, `kv_num_heads`; `do_rotary` must be 1 and `rotary_interleaved` 0 where given.
//!
//! `BatchInvariantAttentionF16Kv` is the same operator with the KV cache (inputs 3-4, outputs 1-2) in fp16 (exports
//! made with `--kv-dtype fp16`): new keys and values are rounded to fp16 once, when written, so every row of every
//! pass reads the same cached values.

use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use ort::operator::{ComputeContext, Kernel, KernelContext, Operator, OperatorInput, OperatorOutput};
use ort::sys::OrtKernelContext;
use ort::value::TensorElementType;
use ort::AsPointer;

use super::op_io::{check, input, output, positive_attr, MAX_RANK};
use crate::kernels::attention;
use crate::kernels::half::{KvElem, F16};

/// The operator's name in the `ai.specrt` domain (f32 KV cache).
pub const OP_NAME: &str = "BatchInvariantAttention";
/// The fp16-KV variant's name.
pub const OP_NAME_F16_KV: &str = "BatchInvariantAttentionF16Kv";

/// The operator (registered by engine/backend/onnxruntime/custom_ops.rs); `F16_KV` selects the cache's type.
pub(crate) struct BatchInvariantAttention<const F16_KV: bool>;

impl<const F16_KV: bool> BatchInvariantAttention<F16_KV> {
    const KV_TYPE: TensorElementType = if F16_KV { TensorElementType::Float16 } else { TensorElementType::Float32 };
}

impl<const F16_KV: bool> Operator for BatchInvariantAttention<F16_KV> {
    type Kernel<'attr> = AttentionKernel;

    fn name(&self) -> &str {
        if F16_KV {
            OP_NAME_F16_KV
        } else {
            OP_NAME
        }
    }

    fn inputs(&self) -> impl IntoIterator<Item = OperatorInput> {
        use TensorElementType::{Float32 as F, Int32 as I32, Int64 as I64};
        [
            OperatorInput::required(F),
            OperatorInput::optional(F),
            OperatorInput::optional(F),
            OperatorInput::required(Self::KV_TYPE),
            OperatorInput::required(Self::KV_TYPE),
            OperatorInput::required(I32),
            OperatorInput::required(I32),
            OperatorInput::required(F),
            OperatorInput::required(F),
            OperatorInput::required(I64),
            OperatorInput::required(F),
        ]
    }

    fn outputs(&self) -> impl IntoIterator<Item = OperatorOutput> {
        [TensorElementType::Float32, Self::KV_TYPE, Self::KV_TYPE].map(OperatorOutput::required)
    }

    fn create_kernel<'attr>(&self, kctx: &KernelContext<'attr>) -> ort::Result<Self::Kernel<'attr>> {
        let node = kctx.node_name().unwrap_or_default();
        let fail = |what: String| ort::Error::new(format!("{OP_NAME} node {node:?}: {what}"));
        let heads = positive_attr(kctx, OP_NAME, &node, "num_heads")?;
        let kv_heads = positive_attr(kctx, OP_NAME, &node, "kv_num_heads")?;
        if heads % kv_heads != 0 {
            return Err(fail(format!("num_heads {heads} is not a multiple of kv_num_heads {kv_heads}")));
        }
        if kctx.get::<i64>("do_rotary").is_some_and(|v| v != 1) || kctx.get::<i64>("rotary_interleaved").is_some_and(|v| v != 0) {
            return Err(fail("only do_rotary = 1 with rotary_interleaved = 0 (rotate-half) is implemented".into()));
        }
        let scale = kctx.get::<f32>("scale").filter(|&s| s != 0.0);
        let threads = SESSION_THREADS.load(Ordering::Relaxed).max(1);
        Ok(AttentionKernel { node, heads, kv_heads, scale, f16_kv: F16_KV, threads })
    }
}

/// Per-node state: the attributes.
pub(crate) struct AttentionKernel {
    node: String,
    heads: usize,
    kv_heads: usize,
    scale: Option<f32>,
    /// The KV cache holds fp16.
    f16_kv: bool,
    /// Intra-op threads of this node's session: the number of chunks of a verification pass's units.
    threads: usize,
}

/// Parallel tasks per call at most; each owns `total` floats of softmax scratch and handles every `TASKS`-th
/// (row, head) pair, so the scratch is bounded by `TASKS x total` whatever the pass (a 2,000-token prefill
/// would otherwise need 2,000 x 9 heads x 2,000 floats per layer).
const TASKS: usize = 32;
/// Passes of more rows than this (prompt chunks) keep the strided units: their rows' costs grow with the row
/// (causal), and contiguous chunks would hand one thread the long rows.
const MAX_CHUNKED_ROWS: usize = 16;

/// Intra-op threads of the session being created: set by the backend under its session-creation lock, read by
/// `create_kernel` (kernels are created while the session is), so each node knows its own session's pool.
pub(crate) static SESSION_THREADS: AtomicUsize = AtomicUsize::new(0);

/// Whether verification passes split their units by KV head (on by default; see [`set_verify_units_by_kv_head`]).
static BY_KV_HEAD: AtomicBool = AtomicBool::new(true);

/// `SPECRT_ATTENTION_ROWS=row-first` in the environment starts the process with the row-first layout (for A/B runs
/// of whole pipelines, one process each); read once, by the first session created.
pub(crate) fn layout_from_env() {
    static READ: std::sync::Once = std::sync::Once::new();
    READ.call_once(|| {
        if std::env::var("SPECRT_ATTENTION_ROWS").is_ok_and(|v| v.trim() == "row-first") {
            set_verify_units_by_kv_head(false);
        }
    });
}

/// How a pass of 2..=16 rows hands its (row, KV head) units to threads, process-wide: `true` (the default) gives
/// each thread one contiguous chunk of the units laid out KV head first, so one thread attends a KV head's rows one
/// after another from its own cache; `false` deals them out row first, every `TASKS`-th unit to a task (the layout
/// prompts keep). Which thread computes a unit changes no bit of it. A measurement switch for in-process A/B runs
/// (examples/rust/attention_schedule.rs); why the default: docs/KERNELS.md "Verify rows by KV head".
pub fn set_verify_units_by_kv_head(on: bool) {
    BY_KV_HEAD.store(on, Ordering::Relaxed);
}

/// Largest head_dim (the query is rotated into a stack buffer of this size).
const MAX_HEAD_DIM: usize = 512;
/// Largest `group x head_dim`: a KV head's query heads are rotated into a stack buffer of this size (16 KB).
const MAX_GROUP_VALUES: usize = 4096;

thread_local! {
    /// Softmax scratch shared by every attention node run from this thread (nodes run one after another), grown to
    /// the largest `TASKS x total` seen, never per call.
    static SCORES: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// One call's work for the (row, head) tasks.
struct Task {
    qkv: *const f32,
    width: usize,
    cos: *const f32,
    sin: *const f32,
    positions: *const i64,
    /// The cache, of the kernel's KV element type.
    keys: *const c_void,
    values: *const c_void,
    bias: *const f32,
    out: *mut f32,
    scores: *mut f32,
    heads: usize,
    group: usize,
    d: usize,
    /// (row, KV head) units of the pass.
    units: usize,
    seq: usize,
    capacity: usize,
    /// `total_sequence_length`: the bias row length and the scores stride per task.
    total: usize,
    /// Cached tokens before this pass, per batch row (`seqlens_k + 1 - S`).
    past: *const usize,
    scale: f32,
    /// Units per task when they are laid out KV head first and split into contiguous chunks (0: strided).
    chunk: usize,
    /// Rows attended in one sweep at most (chunked passes): bounded by the query buffer and `MAX_GROUP` heads.
    run_rows: usize,
    /// Softmax scratch per task (floats): `group x total`, times `run_rows` for chunked passes.
    scratch: usize,
}

/// Runs task `t`: the (row, KV head) units `t, t + TASKS, ...`, unit = (b * S + s) * KVH + kv, or with a `chunk`
/// the units `t * chunk ..` of the KV-head-first layout (unit = kv * B * S + b * S + s), each the `group`
/// query heads sharing that KV head, attended together (engine/kernels/attention.rs `attend_group`: each head bit for
/// bit what it computes alone, the keys and values walked once for the group); `T` is the cache's type.
unsafe extern "C" fn run_task<T: KvElem>(data: *mut c_void, t: usize) {
    // SAFETY: `data` is the Task `compute` keeps alive until ParallelFor returns; every index below was checked
    // against the buffers' shapes there; task t writes only its own output heads and its own scores region.
    unsafe {
        let k = &*(data as *const Task);
        let kvh = k.heads / k.group;
        let mut qs = [0f32; MAX_GROUP_VALUES];
        let scores = std::slice::from_raw_parts_mut(k.scores.add(t * k.scratch), k.scratch);
        if k.chunk == 0 {
            let mut unit = t;
            while unit < k.units {
                attend_rows::<T>(k, unit % kvh, unit / kvh, 1, &mut qs, scores);
                unit += TASKS;
            }
            return;
        }
        // KV head first: the task's units are runs of consecutive rows of one KV head, attended in one sweep
        // (at most `run_rows` at a time, never across a batch row: those read another sequence's cache).
        let rows = k.units / kvh;
        let (mut unit, end) = (t * k.chunk, ((t + 1) * k.chunk).min(k.units));
        while unit < end {
            let (kv_head, row) = (unit / rows, unit % rows);
            let batch_end = (row / k.seq + 1) * k.seq;
            let n = (end - unit).min(batch_end - row).min(k.run_rows);
            attend_rows::<T>(k, kv_head, row, n, &mut qs, scores);
            unit += n;
        }
    }
}

/// Attends rows `row..row + n` (one batch row's) for KV head `kv_head`: each row's `group` query heads rotated
/// into `qs`, then one sweep over the KV head's cache (`attend_group` for a single row).
///
/// # Safety
/// As [`run_task`]: `k`'s buffers hold these rows, `n x group x d <= MAX_GROUP_VALUES`, `scores` holds `group x n x
/// total` values, and no other task writes these rows' outputs of this KV head.
unsafe fn attend_rows<T: KvElem>(k: &Task, kv_head: usize, row: usize, n: usize, qs: &mut [f32; MAX_GROUP_VALUES], scores: &mut [f32]) {
    // SAFETY: forwarded from the caller.
    unsafe {
        let (d, g) = (k.d, k.group);
        let (half, kvh, gd) = (d / 2, k.heads / g, g * d);
        let (b, s0) = (row / k.seq, row % k.seq);
        let kv = b * kvh + kv_head;
        let past = *k.past.add(b);
        let mut visible = [0usize; attention::MAX_GROUP];
        for i in 0..n {
            let p = *k.positions.add(row + i) as usize;
            let (cos, sin) = (std::slice::from_raw_parts(k.cos.add(p * half), half), std::slice::from_raw_parts(k.sin.add(p * half), half));
            let q = &mut qs[i * gd..(i + 1) * gd];
            q.copy_from_slice(std::slice::from_raw_parts(k.qkv.add((row + i) * k.width + kv_head * gd), gd));
            for head in q.chunks_exact_mut(d) {
                attention::rope(head, cos, sin);
            }
            visible[i] = past + s0 + i + 1;
        }
        let most = visible[n - 1];
        let keys = std::slice::from_raw_parts((k.keys as *const T).add(kv * k.capacity * d), most * d);
        let values = std::slice::from_raw_parts((k.values as *const T).add(kv * k.capacity * d), most * d);
        let out = k.out.add((row * k.heads + kv_head * g) * d);
        if n == 1 {
            let bias = std::slice::from_raw_parts(k.bias.add(row * k.total), most);
            let out = std::slice::from_raw_parts_mut(out, gd);
            attention::attend_group(&qs[..gd], d, keys, values, bias, most, k.scale, &mut scores[..g * most], out);
        } else {
            let bias = k.bias.add(row * k.total);
            attention::attend_group_rows_raw(qs.as_ptr(), g, d, keys, values, bias, k.total, &visible[..n], k.scale, scores, out, k.heads * d);
        }
    }
}

/// Product of non-negative dims.
fn count(dims: &[i64]) -> usize {
    dims.iter().map(|&d| d.max(0) as usize).product()
}

impl Kernel for AttentionKernel {
    fn compute(&mut self, ctx: &ComputeContext) -> ort::Result<()> {
        if self.f16_kv {
            self.compute_with::<F16>(ctx)
        } else {
            self.compute_with::<f32>(ctx)
        }
    }
}

impl AttentionKernel {
    fn compute_with<T: KvElem>(&mut self, ctx: &ComputeContext) -> ort::Result<()> {
        let kctx = ctx.ptr() as *mut OrtKernelContext;
        let err = |what: String| ort::Error::new(format!("{OP_NAME} node {:?}: {what}", self.node));
        let mut dims = [[0i64; MAX_RANK]; 11];
        let mut ptrs = [std::ptr::null_mut::<c_void>(); 11];
        let mut ranks = [0usize; 11];
        for i in 0..11 {
            // SAFETY: live kernel context; `dims[i]` has MAX_RANK slots.
            if let Some((p, r)) = unsafe { input(kctx, i, &mut dims[i])? } {
                ptrs[i] = p;
                ranks[i] = r;
            } else if ![1, 2].contains(&i) {
                return Err(err(format!("input {i} is required")));
            }
        }
        if !ptrs[1].is_null() || !ptrs[2].is_null() {
            return Err(err("separate key/value inputs are not supported (pass packed q|k|v as input 0)".into()));
        }
        let shape = |i: usize| &dims[i][..ranks[i]];
        let (h, kvh) = (self.heads, self.kv_heads);
        let [bsz, seq, width] = *shape(0) else { return Err(err(format!("qkv must be [B, S, W], got {:?}", shape(0)))) };
        let (bsz, seq, width) = (bsz.max(0) as usize, seq.max(0) as usize, width.max(0) as usize);
        if width % (h + 2 * kvh) != 0 {
            return Err(err(format!("qkv width {width} is not a multiple of num_heads + 2 kv_num_heads = {}", h + 2 * kvh)));
        }
        let d = width / (h + 2 * kvh);
        let [pb, pk, cap, pd] = *shape(3) else { return Err(err(format!("past_key must be rank 4, got {:?}", shape(3)))) };
        let capacity = cap.max(0) as usize;
        if [pb as usize, pk as usize, pd as usize] != [bsz, kvh, d] || shape(4) != shape(3) {
            return Err(err(format!("past_key {:?} / past_value {:?} do not match [B={bsz}, {kvh}, capacity, {d}]", shape(3), shape(4))));
        }
        let total = if count(shape(6)) == 1 {
            // SAFETY: one int32 element.
            unsafe { *(ptrs[6] as *const i32) }.max(0) as usize
        } else {
            return Err(err("total_sequence_length must hold one value".into()));
        };
        if count(shape(5)) != bsz || count(shape(9)) != bsz * seq {
            return Err(err(format!("seqlens_k {:?} / position_ids {:?} do not match B={bsz}, S={seq}", shape(5), shape(9))));
        }
        let max_pos = shape(7).first().copied().unwrap_or(0).max(0) as usize;
        if shape(7) != [max_pos as i64, (d / 2) as i64] || shape(8) != shape(7) {
            return Err(err(format!("cos/sin caches {:?} / {:?} must be [max_positions, {}]", shape(7), shape(8), d / 2)));
        }
        if shape(10) != [bsz as i64, 1, seq as i64, total as i64] {
            return Err(err(format!("attention_bias {:?} must be [{bsz}, 1, {seq}, {total}]", shape(10))));
        }
        // SAFETY: shapes checked above; element types fixed by the operator's declared inputs.
        let (qkv, seqlens, positions, cos, sin) = unsafe {
            (
                std::slice::from_raw_parts(ptrs[0] as *const f32, bsz * seq * width),
                std::slice::from_raw_parts(ptrs[5] as *const i32, bsz),
                std::slice::from_raw_parts(ptrs[9] as *const i64, bsz * seq),
                std::slice::from_raw_parts(ptrs[7] as *const f32, max_pos * d / 2),
                std::slice::from_raw_parts(ptrs[8] as *const f32, max_pos * d / 2),
            )
        };
        let kv_len = bsz * kvh * capacity * d;
        let out_dims = [bsz as i64, seq as i64, (h * d) as i64];
        // SAFETY: live context; shapes as declared.
        let (out, present_k, present_v) = unsafe { (output(kctx, 0, &out_dims)?, output(kctx, 1, shape(3))?, output(kctx, 2, shape(4))?) };
        for (present, past) in [(present_k, ptrs[3]), (present_v, ptrs[4])] {
            if present != past {
                // Not bound to the past buffer (the engine always binds it): start from a copy of the past.
                // SAFETY: both hold kv_len elements and do not overlap (distinct allocations).
                unsafe { std::ptr::copy_nonoverlapping(past as *const T, present as *mut T, kv_len) };
            }
        }
        // SAFETY: kv_len elements each (checked shapes); nothing else reads them during this call.
        let (keys, values) =
            unsafe { (std::slice::from_raw_parts_mut(present_k as *mut T, kv_len), std::slice::from_raw_parts_mut(present_v as *mut T, kv_len)) };
        let mut past = [0usize; 8];
        if bsz > past.len() {
            return Err(err(format!("batch {bsz} > {} is not supported", past.len())));
        }
        for b in 0..bsz {
            let t = seqlens[b] as i64 + 1;
            if t < seq as i64 || t as usize > capacity || t as usize > total {
                return Err(err(format!("seqlens_k[{b}] = {} does not fit S = {seq}, total {total}, capacity {capacity}", seqlens[b])));
            }
            past[b] = t as usize - seq;
        }
        if d > MAX_HEAD_DIM || d % 2 != 0 {
            return Err(err(format!("head_dim {d} must be even and at most {MAX_HEAD_DIM}")));
        }
        if (h / kvh) * d > MAX_GROUP_VALUES || h / kvh > attention::MAX_GROUP {
            return Err(err(format!("{} query heads per KV head of head_dim {d}: at most {MAX_GROUP_VALUES} values per KV head's queries", h / kvh)));
        }
        // Rotary for k (into the cache) and v copied into the cache; queries are rotated inside the tasks.
        let half = d / 2;
        for (b, &past_b) in past.iter().take(bsz).enumerate() {
            for s in 0..seq {
                let row = b * seq + s;
                let p = positions[row];
                if p < 0 || p as usize >= max_pos {
                    return Err(err(format!("position {p} outside the rotary cache (0..{max_pos})")));
                }
                let (c, sn) = (&cos[p as usize * half..(p as usize + 1) * half], &sin[p as usize * half..(p as usize + 1) * half]);
                let src = &qkv[row * width..(row + 1) * width];
                let slot = past_b + s;
                for kh in 0..kvh {
                    let at = ((b * kvh + kh) * capacity + slot) * d;
                    // rotated in f32, then stored in the cache's type (rounded once, here)
                    let mut key = [0f32; MAX_HEAD_DIM];
                    let key = &mut key[..d];
                    key.copy_from_slice(&src[(h + kh) * d..(h + kh + 1) * d]);
                    attention::rope(key, c, sn);
                    for (dst, &x) in keys[at..at + d].iter_mut().zip(key.iter()) {
                        *dst = T::narrow(x);
                    }
                    for (dst, &x) in values[at..at + d].iter_mut().zip(&src[(h + kvh + kh) * d..(h + kvh + kh + 1) * d]) {
                        *dst = T::narrow(x);
                    }
                }
            }
        }
        let units = bsz * seq * kvh;
        if units == 0 {
            return Ok(());
        }
        // A verification pass's rows share their keys and values: one chunk of KV-head-first units per thread,
        // each KV head's rows in one sweep, reads a KV head's cache from memory once, where dealing units out row
        // first had two threads fetch the same KV head (SmolLM2, 2 threads, AMD EPYC Zen 3, in-process A/B: the
        // second row's cost -29% at 256 cached tokens, -33% at 1,024; docs/KERNELS.md "Verify rows by KV head").
        let group = h / kvh;
        let (tasks, chunk, run_rows) = if BY_KV_HEAD.load(Ordering::Relaxed) && seq > 1 && seq <= MAX_CHUNKED_ROWS {
            let t = units.min(self.threads).min(TASKS);
            (t, units.div_ceil(t), (attention::MAX_GROUP / group).min(MAX_GROUP_VALUES / (group * d)).max(1))
        } else {
            (units.min(TASKS), 0, 1)
        };
        let scratch = group * total * run_rows;
        SCORES.with(|cell| {
            let mut scores = cell.borrow_mut();
            if scores.len() < tasks * scratch {
                scores.resize(tasks * scratch, 0.0);
            }
            let task = Task {
                qkv: qkv.as_ptr(),
                width,
                cos: cos.as_ptr(),
                sin: sin.as_ptr(),
                positions: positions.as_ptr(),
                keys: keys.as_ptr() as *const c_void,
                values: values.as_ptr() as *const c_void,
                bias: ptrs[10] as *const f32,
                out: out as *mut f32,
                scores: scores.as_mut_ptr(),
                heads: h,
                group,
                d,
                units,
                seq,
                capacity,
                total,
                past: past.as_ptr(),
                scale: self.scale.unwrap_or(1.0 / (d as f32).sqrt()),
                chunk,
                run_rows,
                scratch,
            };
            let api = ort::api();
            // SAFETY: `task` and the buffers it points into outlive the call, which returns when every task has run.
            unsafe { check((api.KernelContext_ParallelFor)(kctx, run_task::<T>, tasks, tasks, &task as *const Task as *mut c_void)) }
        })
    }
}

//! The decoder on the GPU: device-resident weights and KV cache, one stream, pinned staging buffers, and CUDA
//! graphs replayed for decode/verify shapes.
//!
//! A pass (`run`) stages the step's small inputs (ids, positions, the bias when it hides anything, per-chunk
//! params) in pinned host memory, queues their uploads and the chunk's kernels on the stream, queues the read-back
//! of the requested logits rows (and hidden states), and waits once. The KV cache never leaves the device: append
//! is the pass writing slots `past..past+S`, rollback is a smaller `past` next time, and accepted-path compaction
//! is a kernel ([`DecoderGraph::compact_kv`]).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use super::driver::{copy_dtoh, copy_htod, launch, Arg, Context, DeviceBuffer, Event, Function, Graph, Launch, PinnedBuffer, Stream};
use super::kernels::{Kernels, MATMUL_ROWS, MATMUL_THREADS, PARAM_BIAS_ON, PARAM_BIAS_STRIDE, PARAM_LEN, PARAM_PAST};
use super::plan::{bias_is_needed, matmul_splits, plan_chunks, validate_pass, Chunk, GraphKey, CHUNK_ROWS};
use super::weights::{Shape, Weights};
use crate::backend::{DecoderGraph, KvInspector, StepInputs};
use crate::error::{Error, Result};

/// Threads of the norm, rope and generic attention blocks (a power of two >= head_dim).
const BLOCK_THREADS: u32 = 256;

/// Threads of the head-dim-specialised attention blocks (one block per head and row: at decode they are few, so
/// each must keep many loads in flight).
const ATTENTION_THREADS: u32 = 1024;

/// How the decoder's passes ran (graph replays, captures, direct runs), for benchmarks and the ready line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GraphStats {
    /// Graphs captured.
    pub captured: usize,
    /// Chunks run by replaying a graph.
    pub replayed: usize,
    /// Chunks run by launching kernels one by one.
    pub direct: usize,
}

/// Scratch for one chunk of at most [`CHUNK_ROWS`] rows.
#[derive(Debug)]
struct Scratch {
    x: DeviceBuffer,
    xn: DeviceBuffer,
    qkv: DeviceBuffer,
    attn: DeviceBuffer,
    act: DeviceBuffer,
    xr: DeviceBuffer,
    ids: DeviceBuffer,
    pos: DeviceBuffer,
    rows: DeviceBuffer,
    bias: DeviceBuffer,
    params: DeviceBuffer,
    logits: DeviceBuffer,
    src: DeviceBuffer,
    /// Split-K partial sums (plan.rs `matmul_splits`): parts x rows x N of the largest split projection.
    parts: DeviceBuffer,
}

/// A decoder graph on one GPU.
pub struct CudaDecoder {
    // Field order matters for drop (declaration order): graphs and buffers go before the stream, the module and the
    // context they live in.
    graphs: HashMap<GraphKey, Graph>,
    weights: Weights,
    scratch: Scratch,
    k_cache: DeviceBuffer,
    v_cache: DeviceBuffer,
    rope_cos: DeviceBuffer,
    rope_sin: DeviceBuffer,
    h_ids: PinnedBuffer<i32>,
    h_pos: PinnedBuffer<i32>,
    h_rows: PinnedBuffer<i32>,
    h_params: PinnedBuffer<i32>,
    h_bias: PinnedBuffer<f32>,
    h_logits: PinnedBuffer<f32>,
    h_hidden: PinnedBuffer<f32>,
    h_src: PinnedBuffer<i32>,
    stream: Stream,
    kernels: Arc<Kernels>,
    ctx: Arc<Context>,
    shape: Shape,
    capacity: usize,
    /// Multiprocessors of the device, or 0 when split-K is off (`SPECRT_CUDA_SPLIT_K=0`).
    split_sms: usize,
    attention: Function,
    attention_threads: u32,
    attention_shared: u32,
    profile: Option<Vec<(&'static str, Event)>>,
    hidden_out: bool,
    use_graphs: bool,
    graph_error: Option<String>,
    stats: GraphStats,
    inputs: StepInputs,
    logits_len: usize,
    hidden_len: usize,
    run_seconds: f64,
    run_calls: u64,
}

impl CudaDecoder {
    /// Builds a decoder over `weights` (already on the device) with a KV cache of `capacity` slots.
    pub fn new(
        ctx: Arc<Context>,
        kernels: Arc<Kernels>,
        shape: Shape,
        weights: Weights,
        capacity: usize,
        hidden_out: bool,
        use_graphs: bool,
    ) -> Result<CudaDecoder> {
        ctx.bind()?;
        shape.validate()?;
        if capacity == 0 || capacity > shape.max_positions {
            return Err(Error::InvalidRequest(format!("context length {capacity} exceeds the model's {} positions", shape.max_positions)));
        }
        let (h, d) = (shape.hidden, shape.head_dim);
        let kv_elems = shape.layers * shape.kv_heads * capacity * d;
        let f32s = |n: usize| DeviceBuffer::zeroed(n * 4);
        // Split-K for projections with few, long rows (plan.rs); SPECRT_CUDA_SPLIT_K=0 turns it off, a developer's
        // switch for A/B runs of bench-gpu (docs/GPU.md), as the same binary must measure both.
        let split_sms = if std::env::var("SPECRT_CUDA_SPLIT_K").is_ok_and(|v| v == "0") { 0 } else { ctx.multiprocessors };
        let projections = [(shape.qkv_width(), h), (h, shape.heads * d), (h, shape.ffn), (shape.vocab, h)];
        let part_floats = projections
            .iter()
            .filter(|_| split_sms > 0)
            .map(|&(n, k)| (matmul_splits(n, k, split_sms).0, n))
            .filter(|&(parts, _)| parts > 1)
            .map(|(parts, n)| parts * n)
            .max()
            .unwrap_or(1);
        let scratch = Scratch {
            x: f32s(CHUNK_ROWS * h)?,
            xn: f32s(CHUNK_ROWS * h)?,
            qkv: f32s(CHUNK_ROWS * shape.qkv_width())?,
            attn: f32s(CHUNK_ROWS * shape.heads * d)?,
            act: f32s(CHUNK_ROWS * shape.ffn)?,
            xr: f32s(CHUNK_ROWS * h)?,
            ids: f32s(CHUNK_ROWS)?,
            pos: f32s(CHUNK_ROWS)?,
            rows: f32s(CHUNK_ROWS)?,
            bias: f32s(CHUNK_ROWS * capacity)?,
            params: f32s(PARAM_LEN)?,
            logits: f32s(CHUNK_ROWS * shape.vocab)?,
            src: f32s(capacity)?,
            parts: f32s(CHUNK_ROWS * part_floats)?,
        };
        // Rotary tables exactly as the exporter computes them (float64 angles, cast to float32).
        let half = d / 2;
        let mut cos = vec![0f32; shape.max_positions * half];
        let mut sin = vec![0f32; shape.max_positions * half];
        for i in 0..half {
            let inv_freq = 1.0 / shape.rope_theta.powf((2 * i) as f64 / d as f64);
            for p in 0..shape.max_positions {
                let angle = p as f64 * inv_freq;
                cos[p * half + i] = angle.cos() as f32;
                sin[p * half + i] = angle.sin() as f32;
            }
        }
        // Scores of one row (capacity floats) + q (head_dim) + reduction scratch (block threads; the head-dim
        // specialised kernels also keep one D-wide partial sum per warp there).
        let (attention, attention_threads) = match d {
            64 => (kernels.attention_d64, ATTENTION_THREADS),
            128 => (kernels.attention_d128, ATTENTION_THREADS),
            _ => (kernels.attention, BLOCK_THREADS),
        };
        let reduce = (attention_threads as usize).max(attention_threads as usize / 32 * d);
        let attention_shared = ((capacity + d + reduce) * 4) as u32;
        if attention_shared > 48 * 1024 {
            attention.set_max_dynamic_shared(attention_shared as usize).map_err(|e| {
                Error::InvalidRequest(format!(
                    "context length {capacity} needs {attention_shared} bytes of shared memory per attention block, more than this \
                     GPU allows ({e})"
                ))
            })?;
        }
        Ok(CudaDecoder {
            graphs: HashMap::new(),
            k_cache: f32s(kv_elems)?,
            v_cache: f32s(kv_elems)?,
            rope_cos: DeviceBuffer::from_host(&cos)?,
            rope_sin: DeviceBuffer::from_host(&sin)?,
            h_ids: PinnedBuffer::new(capacity)?,
            h_pos: PinnedBuffer::new(capacity)?,
            h_rows: PinnedBuffer::new(capacity)?,
            h_params: PinnedBuffer::new(PARAM_LEN * capacity.div_ceil(CHUNK_ROWS))?,
            h_bias: PinnedBuffer::new(CHUNK_ROWS * capacity)?,
            h_logits: PinnedBuffer::new(shape.vocab)?,
            h_hidden: PinnedBuffer::new(if hidden_out { CHUNK_ROWS * h } else { 1 })?,
            h_src: PinnedBuffer::new(capacity)?,
            stream: Stream::new()?,
            weights,
            scratch,
            ctx,
            kernels,
            shape,
            capacity,
            split_sms,
            attention,
            attention_threads,
            attention_shared,
            profile: None,
            hidden_out,
            use_graphs,
            graph_error: None,
            stats: GraphStats::default(),
            inputs: StepInputs::default(),
            logits_len: 0,
            hidden_len: 0,
            run_seconds: 0.0,
            run_calls: 0,
        })
    }

    /// How passes ran so far.
    pub(crate) fn graph_stats(&self) -> GraphStats {
        self.stats
    }

    /// Why graphs were switched off, if capture failed once.
    pub(crate) fn graph_error(&self) -> Option<&str> {
        self.graph_error.as_deref()
    }

    /// Turns graph replay on or off (benchmarks compare both on the same decoder).
    pub(crate) fn set_graphs(&mut self, on: bool) {
        self.use_graphs = on;
    }

    /// The model shape.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// Grows a pinned buffer to at least `len` elements (reallocation only between passes, so no queued copy
    /// refers to the old one).
    fn ensure<T: Copy + Default>(buf: &mut PinnedBuffer<T>, len: usize) -> Result<()> {
        if buf.len() < len {
            *buf = PinnedBuffer::new(len.next_power_of_two())?;
        }
        Ok(())
    }

    /// Launches one kernel of a chunk; when profiling, records an event after it (never inside a capture: profiled
    /// passes run directly).
    fn go(&self, name: &'static str, f: Function, geometry: Launch, args: &[Arg], marks: &mut Vec<(&'static str, Event)>) -> Result<()> {
        launch(&self.stream, f, geometry, args)?;
        if self.profile.is_some() {
            let e = Event::new()?;
            e.record(&self.stream)?;
            marks.push((name, e));
        }
        Ok(())
    }

    /// Runs one decode step at `past` with an event after every kernel and returns milliseconds per kernel name,
    /// summed over the step (where a step's time goes; graphs off, since events cannot sit between graph nodes).
    pub(crate) fn profile_step(&mut self, token: i64, past: usize) -> Result<Vec<(&'static str, f64)>> {
        self.ctx.bind()?;
        let use_graphs = self.use_graphs;
        self.use_graphs = false;
        self.profile = Some(Vec::new());
        let inp = &mut self.inputs;
        inp.input_ids.clear();
        inp.input_ids.push(token);
        inp.position_ids.clear();
        inp.position_ids.push(past as i64);
        inp.attention_bias.clear();
        inp.logits_rows.clear();
        inp.logits_rows.push(0);
        let outcome = self.pass(past);
        self.use_graphs = use_graphs;
        let marks = self.profile.take().unwrap_or_default();
        outcome?;
        let mut totals: Vec<(&'static str, f64)> = Vec::new();
        for pair in marks.windows(2) {
            let ms = pair[0].1.elapsed_ms(&pair[1].1)? as f64;
            match totals.iter_mut().find(|(n, _)| *n == pair[1].0) {
                Some(t) => t.1 += ms,
                None => totals.push((pair[1].0, ms)),
            }
        }
        Ok(totals)
    }

    /// Queues the kernels of one chunk of `rows` rows, `logits_rows` of which get logits. Returns the profiling
    /// marks (empty unless profiling).
    fn queue_chunk(&self, rows: usize, logits_rows: usize) -> Result<Vec<(&'static str, Event)>> {
        let mut marks = Vec::new();
        if self.profile.is_some() {
            let e = Event::new()?;
            e.record(&self.stream)?;
            marks.push(("start", e));
        }
        self.queue_kernels(rows, logits_rows, &mut marks)?;
        Ok(marks)
    }

    fn queue_kernels(&self, rows: usize, logits_rows: usize, marks: &mut Vec<(&'static str, Event)>) -> Result<()> {
        let k = &self.kernels;
        let sh = &self.shape;
        let sc = &self.scratch;
        let (h, d, cap) = (sh.hidden, sh.head_dim, self.capacity);
        let rows_u = rows as u32;
        let block = |grid: (u32, u32)| Launch { grid, block: BLOCK_THREADS, shared: 0, depth: 1 };
        let matmul = |name: &'static str,
                      x: u64,
                      w: u64,
                      bias: u64,
                      y: u64,
                      m: usize,
                      n: usize,
                      kk: usize,
                      accumulate: bool,
                      marks: &mut Vec<(&'static str, Event)>| {
            let geometry = Launch {
                grid: ((n as u32).div_ceil(MATMUL_THREADS / 32), (m as u32).div_ceil(MATMUL_ROWS as u32)),
                block: MATMUL_THREADS,
                shared: 0,
                depth: 1,
            };
            let (parts, span) = if self.split_sms == 0 { (1, kk) } else { matmul_splits(n, kk, self.split_sms) };
            if parts > 1 {
                // K in parts (grid.z), then their sums in part order: the same for every M (batch invariance).
                self.go(
                    name,
                    if m == 1 { k.matmul_part } else { k.matmul_part_tile },
                    Launch { depth: parts as u32, ..geometry },
                    &[
                        Arg::Ptr(x),
                        Arg::Ptr(w),
                        Arg::Ptr(sc.parts.ptr),
                        Arg::I32(m as i32),
                        Arg::I32(n as i32),
                        Arg::I32(kk as i32),
                        Arg::I32(span as i32),
                    ],
                    marks,
                )?;
                let outputs = (m * n) as u32;
                return self.go(
                    "split-k sum",
                    k.splitk_sum,
                    Launch { grid: (outputs.div_ceil(BLOCK_THREADS), 1), block: BLOCK_THREADS, shared: 0, depth: 1 },
                    &[
                        Arg::Ptr(sc.parts.ptr),
                        Arg::Ptr(bias),
                        Arg::Ptr(y),
                        Arg::I32(m as i32),
                        Arg::I32(n as i32),
                        Arg::I32(parts as i32),
                        Arg::I32(accumulate as i32),
                    ],
                    marks,
                );
            }
            // Same sums either way (batch invariance); the one-row variant keeps more loads in flight.
            let f = if m == 1 { k.matmul } else { k.matmul_tile };
            self.go(
                name,
                f,
                geometry,
                &[
                    Arg::Ptr(x),
                    Arg::Ptr(w),
                    Arg::Ptr(bias),
                    Arg::Ptr(y),
                    Arg::I32(m as i32),
                    Arg::I32(n as i32),
                    Arg::I32(kk as i32),
                    Arg::I32(accumulate as i32),
                ],
                marks,
            )
        };
        self.go(
            "embed",
            k.embed,
            block((rows_u, 1)),
            &[Arg::Ptr(sc.ids.ptr), Arg::Ptr(self.weights.embed.ptr), Arg::Ptr(sc.x.ptr), Arg::I32(h as i32)],
            marks,
        )?;
        let layer_kv = sh.kv_heads * cap * d * 4;
        for (l, w) in self.weights.layers.iter().enumerate() {
            let (kc, vc) = (self.k_cache.at(l * layer_kv), self.v_cache.at(l * layer_kv));
            self.go(
                "rmsnorm",
                k.rmsnorm,
                block((rows_u, 1)),
                &[Arg::Ptr(sc.x.ptr), Arg::Ptr(0), Arg::Ptr(w.attn_norm.ptr), Arg::Ptr(sc.xn.ptr), Arg::I32(h as i32), Arg::F32(sh.eps)],
                marks,
            )?;
            let qkv_bias = w.qkv_bias.as_ref().map_or(0, |b| b.ptr);
            matmul("qkv", sc.xn.ptr, w.qkv.ptr, qkv_bias, sc.qkv.ptr, rows, sh.qkv_width(), h, false, marks)?;
            self.go(
                "rope+kv",
                k.rope_store_kv,
                block((rows_u, 1)),
                &[
                    Arg::Ptr(sc.qkv.ptr),
                    Arg::Ptr(sc.pos.ptr),
                    Arg::Ptr(self.rope_cos.ptr),
                    Arg::Ptr(self.rope_sin.ptr),
                    Arg::Ptr(kc),
                    Arg::Ptr(vc),
                    Arg::Ptr(sc.params.ptr),
                    Arg::I32(sh.heads as i32),
                    Arg::I32(sh.kv_heads as i32),
                    Arg::I32(d as i32),
                    Arg::I32(cap as i32),
                ],
                marks,
            )?;
            self.go(
                "attention",
                self.attention,
                Launch { grid: (sh.heads as u32, rows_u), block: self.attention_threads, shared: self.attention_shared, depth: 1 },
                &[
                    Arg::Ptr(sc.qkv.ptr),
                    Arg::Ptr(kc),
                    Arg::Ptr(vc),
                    Arg::Ptr(sc.bias.ptr),
                    Arg::Ptr(sc.params.ptr),
                    Arg::Ptr(sc.attn.ptr),
                    Arg::I32(sh.heads as i32),
                    Arg::I32(sh.kv_heads as i32),
                    Arg::I32(d as i32),
                    Arg::I32(cap as i32),
                    Arg::F32(1.0 / (d as f32).sqrt()),
                ],
                marks,
            )?;
            matmul("o", sc.attn.ptr, w.o.ptr, 0, sc.x.ptr, rows, h, sh.heads * d, true, marks)?;
            self.go(
                "rmsnorm",
                k.rmsnorm,
                block((rows_u, 1)),
                &[Arg::Ptr(sc.x.ptr), Arg::Ptr(0), Arg::Ptr(w.ffn_norm.ptr), Arg::Ptr(sc.xn.ptr), Arg::I32(h as i32), Arg::F32(sh.eps)],
                marks,
            )?;
            // Gate and up rows of one feature per warp, SwiGLU as the epilogue: writes act [rows, ffn] directly.
            self.go(
                "gate_up+swiglu",
                if rows == 1 { k.matmul_gate_up } else { k.matmul_gate_up_tile },
                Launch {
                    grid: ((sh.ffn as u32).div_ceil(MATMUL_THREADS / 32), (rows as u32).div_ceil(MATMUL_ROWS as u32)),
                    block: MATMUL_THREADS,
                    shared: 0,
                    depth: 1,
                },
                &[
                    Arg::Ptr(sc.xn.ptr),
                    Arg::Ptr(w.gate_up.ptr),
                    Arg::Ptr(sc.act.ptr),
                    Arg::I32(rows as i32),
                    Arg::I32(sh.ffn as i32),
                    Arg::I32(h as i32),
                ],
                marks,
            )?;
            matmul("down", sc.act.ptr, w.down.ptr, 0, sc.x.ptr, rows, h, sh.ffn, true, marks)?;
        }
        if logits_rows > 0 {
            self.go(
                "rmsnorm",
                k.rmsnorm,
                block((logits_rows as u32, 1)),
                &[
                    Arg::Ptr(sc.x.ptr),
                    Arg::Ptr(sc.rows.ptr),
                    Arg::Ptr(self.weights.final_norm.ptr),
                    Arg::Ptr(sc.xr.ptr),
                    Arg::I32(h as i32),
                    Arg::F32(sh.eps),
                ],
                marks,
            )?;
            matmul("lm_head", sc.xr.ptr, self.weights.head().ptr, 0, sc.logits.ptr, logits_rows, sh.vocab, h, false, marks)?;
        }
        Ok(())
    }

    /// Runs one chunk's kernels: replaying (or first capturing) its graph when the shape has one, else directly.
    fn run_chunk(&mut self, chunk: &Chunk) -> Result<()> {
        let key = chunk.graph_key().filter(|_| self.use_graphs && self.graph_error.is_none());
        let Some(key) = key.filter(|_| self.profile.is_none()) else {
            self.stats.direct += 1;
            let marks = self.queue_chunk(chunk.len, chunk.logits_rows.len())?;
            if let Some(p) = self.profile.as_mut() {
                p.extend(marks);
            }
            return Ok(());
        };
        if !self.graphs.contains_key(&key) {
            match Graph::capture(&self.stream, || self.queue_chunk(key.rows, key.logits_rows).map(drop)) {
                Ok(graph) => {
                    self.stats.captured += 1;
                    self.graphs.insert(key, graph);
                }
                Err(e) => {
                    // Clean fallback: remember why, run this and every later chunk directly.
                    self.graph_error = Some(e.to_string());
                    self.stats.direct += 1;
                    return self.queue_chunk(chunk.len, chunk.logits_rows.len()).map(drop);
                }
            }
        }
        self.stats.replayed += 1;
        self.graphs[&key].launch(&self.stream)
    }

    fn pass(&mut self, past_len: usize) -> Result<()> {
        let sh = self.shape.clone();
        let inp = std::mem::take(&mut self.inputs);
        let outcome = (|| {
            validate_pass(
                &inp.input_ids,
                &inp.position_ids,
                inp.attention_bias.len(),
                &inp.logits_rows,
                past_len,
                self.capacity,
                sh.vocab,
                sh.max_positions,
            )
            .map_err(|m| Error::InvalidValue { key: "pass".into(), message: m })?;
            let s = inp.input_ids.len();
            let stride = past_len + s;
            let bias_on = bias_is_needed(&inp.attention_bias, past_len, s);
            let chunks = plan_chunks(s, &inp.logits_rows, CHUNK_ROWS);
            let n_rows = inp.logits_rows.len();
            Self::ensure(&mut self.h_logits, n_rows * sh.vocab)?;
            if self.hidden_out {
                Self::ensure(&mut self.h_hidden, s * sh.hidden)?;
            }
            Self::ensure(&mut self.h_params, PARAM_LEN * chunks.len())?;
            for (i, (&t, &p)) in inp.input_ids.iter().zip(&inp.position_ids).enumerate() {
                self.h_ids.as_mut_slice()[i] = t as i32;
                self.h_pos.as_mut_slice()[i] = p as i32;
            }
            if bias_on {
                Self::ensure(&mut self.h_bias, s * stride)?;
                self.h_bias.as_mut_slice()[..s * stride].copy_from_slice(&inp.attention_bias);
            }
            for (ci, chunk) in chunks.iter().enumerate() {
                let params = &mut self.h_params.as_mut_slice()[ci * PARAM_LEN..(ci + 1) * PARAM_LEN];
                params[PARAM_PAST] = (past_len + chunk.start) as i32;
                params[PARAM_BIAS_STRIDE] = stride as i32;
                params[PARAM_BIAS_ON] = bias_on as i32;
                self.h_rows.as_mut_slice()[chunk.out_row..chunk.out_row + chunk.logits_rows.len()].copy_from_slice(&chunk.logits_rows);
            }
            for (ci, chunk) in chunks.iter().enumerate() {
                let st = &self.stream;
                let sc = &self.scratch;
                // SAFETY: every source is a range of a pinned staging buffer this decoder owns, sized above and not
                // written again before the synchronize at the end of the pass (one params slot per chunk); every
                // destination is a device buffer sized for CHUNK_ROWS rows (bias: CHUNK_ROWS * capacity).
                unsafe {
                    copy_htod(st, sc.params.ptr, self.h_params.ptr_at(ci * PARAM_LEN), PARAM_LEN * 4)?;
                    copy_htod(st, sc.ids.ptr, self.h_ids.ptr_at(chunk.start), chunk.len * 4)?;
                    copy_htod(st, sc.pos.ptr, self.h_pos.ptr_at(chunk.start), chunk.len * 4)?;
                    copy_htod(st, sc.rows.ptr, self.h_rows.ptr_at(chunk.out_row), chunk.logits_rows.len() * 4)?;
                    if bias_on {
                        copy_htod(st, sc.bias.ptr, self.h_bias.ptr_at(chunk.start * stride), chunk.len * stride * 4)?;
                    }
                }
                self.run_chunk(chunk)?;
                let st = &self.stream;
                let sc = &self.scratch;
                // SAFETY: the pinned outputs were grown above to hold every row of the pass; the host reads them only
                // after the synchronize.
                unsafe {
                    copy_dtoh(st, self.h_logits.ptr_at(chunk.out_row * sh.vocab), sc.logits.ptr, chunk.logits_rows.len() * sh.vocab * 4)?;
                    if self.hidden_out {
                        copy_dtoh(st, self.h_hidden.ptr_at(chunk.start * sh.hidden), sc.x.ptr, chunk.len * sh.hidden * 4)?;
                    }
                }
            }
            self.stream.synchronize()?;
            self.logits_len = n_rows * sh.vocab;
            self.hidden_len = if self.hidden_out { s * sh.hidden } else { 0 };
            Ok(())
        })();
        self.inputs = inp;
        outcome
    }

    /// Copies the K and V of slots `0..len` to the host: `[layer][k|v][kv_head][slot][head_dim]` (debugging).
    fn read_kv_slots(&self, len: usize) -> Result<Vec<f32>> {
        self.ctx.bind()?;
        let sh = &self.shape;
        let d = sh.head_dim;
        let mut out = Vec::with_capacity(sh.layers * 2 * sh.kv_heads * len * d);
        let mut row = PinnedBuffer::<f32>::new(len * d)?;
        for l in 0..sh.layers {
            for cache in [&self.k_cache, &self.v_cache] {
                for h in 0..sh.kv_heads {
                    let offset = ((l * sh.kv_heads + h) * self.capacity) * d * 4;
                    // SAFETY: `row` holds len * head_dim floats; read after the synchronize.
                    unsafe { copy_dtoh(&self.stream, row.ptr_at(0), cache.at(offset), len * d * 4)? };
                    self.stream.synchronize()?;
                    out.extend_from_slice(&row.as_mut_slice()[..len * d]);
                }
            }
        }
        Ok(out)
    }
}

impl DecoderGraph for CudaDecoder {
    fn inputs_mut(&mut self) -> &mut StepInputs {
        &mut self.inputs
    }

    fn run(&mut self, past_len: usize) -> Result<()> {
        let started = Instant::now();
        self.ctx.bind()?;
        let outcome = self.pass(past_len);
        self.run_seconds += started.elapsed().as_secs_f64();
        self.run_calls += 1;
        outcome
    }

    fn logits(&self) -> &[f32] {
        &self.h_logits.as_slice()[..self.logits_len]
    }

    fn hidden_states(&self) -> Option<&[f32]> {
        self.hidden_out.then(|| &self.h_hidden.as_slice()[..self.hidden_len])
    }

    fn backend_seconds(&self) -> f64 {
        self.run_seconds
    }

    fn backend_calls(&self) -> u64 {
        self.run_calls
    }

    fn capacity(&self) -> usize {
        self.capacity
    }

    fn compact_kv(&mut self, src: &[usize], dst_start: usize) -> Result<()> {
        if src.is_empty() {
            return Ok(());
        }
        if src.iter().enumerate().any(|(i, &s)| s < dst_start + i || s >= self.capacity) {
            return Err(Error::Internal(format!("compact_kv: sources {src:?} must satisfy dst {dst_start} + i <= src[i] < capacity")));
        }
        self.ctx.bind()?;
        for (i, &s) in src.iter().enumerate() {
            self.h_src.as_mut_slice()[i] = s as i32;
        }
        // SAFETY: h_src holds `capacity` >= src.len() ints (checked above); the stream is synchronized below.
        unsafe { copy_htod(&self.stream, self.scratch.src.ptr, self.h_src.ptr_at(0), src.len() * 4)? };
        let sh = &self.shape;
        launch(
            &self.stream,
            self.kernels.compact_kv,
            Launch { grid: ((sh.layers * sh.kv_heads) as u32, 2), block: (sh.head_dim as u32).next_power_of_two().max(32), shared: 0, depth: 1 },
            &[
                Arg::Ptr(self.k_cache.ptr),
                Arg::Ptr(self.v_cache.ptr),
                Arg::Ptr(self.scratch.src.ptr),
                Arg::I32(src.len() as i32),
                Arg::I32(dst_start as i32),
                Arg::I32(sh.head_dim as i32),
                Arg::I32(self.capacity as i32),
            ],
        )?;
        self.stream.synchronize()
    }

    fn device(&self) -> String {
        let graphs = match (&self.graph_error, self.use_graphs) {
            (Some(_), _) => "graphs failed, direct launches",
            (None, true) => "cuda graphs",
            (None, false) => "direct launches",
        };
        format!("cuda:{} {} ({graphs})", self.ctx.ordinal, self.ctx.name)
    }

    fn inspector(&self) -> Option<&dyn KvInspector> {
        Some(self)
    }
}

impl KvInspector for CudaDecoder {
    fn read_kv(&self, len: usize) -> Vec<f32> {
        self.read_kv_slots(len).unwrap_or_default()
    }
}

//! Backends run exported graphs. A strategy never sees a backend: it drives a
//! [`crate::model::LanguageModel`], which drives a [`DecoderGraph`] that a [`Backend`] opened; the CTC NAT
//! pipeline drives an [`EncoderGraph`] the same way.
//!
//! The backend OWNS every buffer a pass touches: the KV cache (one region per layer, addressed by slot), the
//! step's input staging ([`StepInputs`]) and the outputs (logits, hidden states). The CPU backend binds all of
//! them to ONNX Runtime without a copy (the KV buffer is bound as both past and present); a device backend keeps
//! the KV cache and the outputs in device memory, uploads the small step inputs, and reads back only the logits
//! rows asked for. The model layer addresses the cache through [`DecoderGraph`]: append (a pass at `past_len`),
//! rollback (a smaller `past_len` next time: O(1)), accepted-path compaction ([`DecoderGraph::compact_kv`]).
//!
//! Adding a backend is one folder here plus one arm in [`open`].

#[cfg(feature = "cuda")]
pub mod cuda;
pub mod onnxruntime;
#[cfg(feature = "tensorrt")]
pub mod tensorrt;

use std::path::Path;
use std::sync::Arc;

use crate::config::{BackendConfig, BackendKind};
use crate::contract::{GraphSpec, Manifest};
use crate::error::{Error, Result};

/// The host-side inputs of one decoder pass over `S` new tokens, staged in buffers the graph owns (grown on
/// demand, then reused: steady-state steps allocate nothing). The model layer fills them, then calls
/// [`DecoderGraph::run`].
#[derive(Debug, Default, Clone)]
pub struct StepInputs {
    /// The S new token ids.
    pub input_ids: Vec<i64>,
    /// Their rotary positions (explicit, so trees and SPACE groups can share a position).
    pub position_ids: Vec<i64>,
    /// Additive attention bias, row-major `[S, past_len + S]` (0 = visible, -1e9 = hidden).
    pub attention_bias: Vec<f32>,
    /// Which of the S new positions get logits (indices into 0..S, ascending).
    pub logits_rows: Vec<i64>,
}

/// A decoder graph bound to its own preallocated KV cache and IO buffers.
pub trait DecoderGraph: Send {
    /// The staging buffers of the next pass.
    fn inputs_mut(&mut self) -> &mut StepInputs;

    /// Runs one pass over the staged inputs on top of KV slots `0..past_len`. The graph writes the new tokens'
    /// K/V into slots `past_len..past_len + S`; slots beyond are untouched.
    fn run(&mut self, past_len: usize) -> Result<()>;

    /// `[rows, vocab]` logits of the last pass (one row per entry of `logits_rows`), or empty before the first.
    fn logits(&self) -> &[f32];

    /// `[S, hidden]` last-layer hidden states of the last pass, when the graph exports them.
    fn hidden_states(&self) -> Option<&[f32]>;

    /// Cumulative seconds spent inside the backend's run call (to measure the engine's own overhead).
    fn backend_seconds(&self) -> f64;

    /// Run calls made so far (each pays the backend's fixed per-call cost; the benchmark's overhead table).
    fn backend_calls(&self) -> u64;

    /// KV slots available (the context length).
    fn capacity(&self) -> usize;

    /// Copies the K/V rows of slots `src[i]` to slot `dst_start + i`, in order, for every layer. Used to compact an
    /// accepted token-tree path into contiguous slots. Requires `src[i] >= dst_start + i` (rows only move down).
    fn compact_kv(&mut self, src: &[usize], dst_start: usize) -> Result<()>;

    /// Where the graph runs, e.g. `onnxruntime/cpu`.
    fn device(&self) -> String;

    /// Read access to the KV cache for tests and debugging; not part of any decode path.
    fn inspector(&self) -> Option<&dyn KvInspector> {
        None
    }
}

/// Debug-only view of a decoder's KV cache.
pub trait KvInspector {
    /// Copies the K/V of slots `0..len` out as float32: `[layer][k|v][kv_head][slot][head_dim]`.
    fn read_kv(&self, len: usize) -> Vec<f32>;
}

/// The output columns of a greedy CTC NAT pass (its output shortlist): the head computes `columns`, the union over
/// the batch, and sentence `i` chooses only among those its row of `allowed` marks, so its output never depends on
/// what shares its pass.
#[derive(Debug, Clone, Copy)]
pub struct ColumnSelection<'a> {
    /// Logits columns to compute: sorted, unique, each below the whole head's width.
    pub columns: &'a [i64],
    /// `[batch, columns.len()]`, row-major: non-zero where sentence `i` may choose column `columns[j]`.
    pub allowed: &'a [u8],
}

/// An encoder graph (the CTC NAT contract): `input_ids` and `attention_mask` `[batch, positions]` in, `logits`
/// `[batch, positions, width]` out (and, where the graph has it, `token_ids` `[batch, positions]`: the argmax of
/// each position as a token id), no cache.
pub trait EncoderGraph: Send {
    /// One pass; returns the logits, borrowed from a buffer the graph reuses across calls.
    fn forward(&mut self, input_ids: &[i64], attention_mask: &[i64], batch: usize, positions: usize) -> Result<&[f32]>;

    /// Whether the graph has the `token_ids` output, so [`EncoderGraph::forward_token_ids`] works.
    fn has_token_ids(&self) -> bool {
        false
    }

    /// One pass that produces only `token_ids` (greedy decoding then reads one id per position, not `width`
    /// scores); borrowed from a buffer the graph reuses. Errors where the graph has no such output. `columns`: the
    /// logits columns the head computes and each sentence's argmax chooses among (the graph's `output_columns` and
    /// `output_columns_mask` inputs, the CTC NAT's output shortlist), or `None` for all; an error where the graph
    /// has no such input.
    fn forward_token_ids(
        &mut self,
        _input_ids: &[i64],
        _attention_mask: &[i64],
        _batch: usize,
        _positions: usize,
        _columns: Option<ColumnSelection>,
    ) -> Result<&[i64]> {
        Err(Error::Backend("this encoder graph has no `token_ids` output (re-export it with `python -m export ctc-nat`)".into()))
    }

    /// Cumulative seconds spent inside the backend's run call.
    fn backend_seconds(&self) -> f64;

    /// Run calls made so far.
    fn backend_calls(&self) -> u64;
}

/// A named input of a head graph.
#[derive(Debug, Clone, Copy)]
pub enum HeadInput<'a> {
    /// A float32 tensor.
    F32 {
        /// The input's name in the graph.
        name: &'a str,
        /// Row-major values.
        data: &'a [f32],
        /// Its shape.
        shape: &'a [i64],
    },
    /// An int64 tensor.
    I64 {
        /// The input's name in the graph.
        name: &'a str,
        /// Row-major values.
        data: &'a [i64],
        /// Its shape.
        shape: &'a [i64],
    },
}

/// A small auxiliary graph (a draft head, the draft-head contract): named inputs in, named float32 outputs kept
/// until the next run.
pub trait HeadGraph: Send {
    /// Runs the graph.
    fn run(&mut self, inputs: &[HeadInput<'_>]) -> Result<()>;

    /// Output `name` of the last run (row-major), if the graph has it.
    fn output(&self, name: &str) -> Option<&[f32]>;

    /// Cumulative seconds spent inside the backend's run call.
    fn backend_seconds(&self) -> f64;

    /// Run calls made so far.
    fn backend_calls(&self) -> u64;
}

/// Something that can open graphs.
pub trait Backend: Send + Sync {
    /// The backend's name, e.g. `onnxruntime`.
    fn name(&self) -> &'static str;

    /// Where graphs run, e.g. `onnxruntime/cpu`.
    fn device(&self) -> String;

    /// Opens the decoder of `manifest` with a KV cache of `capacity` slots, after checking the graph against the
    /// manifest's contract.
    fn open_decoder(&self, manifest: &Manifest, capacity: usize) -> Result<Box<dyn DecoderGraph>>;

    /// Opens the encoder graph `graph.file` inside `dir`, after checking its inputs and outputs against `graph`
    /// and `logits_width` (the manifest's vocabulary).
    fn open_encoder(&self, dir: &Path, graph: &GraphSpec, logits_width: usize) -> Result<Box<dyn EncoderGraph>>;

    /// Opens the head graph `graph.file` inside `dir`, after checking its inputs and outputs against `graph`.
    fn open_head(&self, dir: &Path, graph: &GraphSpec) -> Result<Box<dyn HeadGraph>>;

    /// The backend's own fixed costs of a run call and of a graph node (measured on tiny graphs), where the
    /// backend can measure them; `None` otherwise.
    fn call_cost(&self) -> Result<Option<CallCost>> {
        Ok(None)
    }
}

/// A backend's fixed costs, measured on graphs that do (almost) no arithmetic.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct CallCost {
    /// Seconds of one run call of a one-node graph: the call itself (argument checks, the executor, the output
    /// binding).
    pub per_call_seconds: f64,
    /// Seconds each further node adds (a chain of nodes over one float: the executor's dispatch per node).
    pub per_node_seconds: f64,
}

/// The one factory: the backend a config's `backend.kind` names.
pub fn open(config: &BackendConfig) -> Result<Arc<dyn Backend>> {
    match config.kind {
        BackendKind::Onnxruntime => Ok(Arc::new(onnxruntime::OnnxRuntime::new(config)?)),
        BackendKind::Cuda => open_cuda(config),
    }
}

/// Releases the process-wide runtime state backends keep between pipelines (ONNX Runtime's environment and its
/// thread pool), for good: call it once every pipeline is dropped, before the process exits, so that no runtime
/// thread is still running while the process tears down (the C ABI's `specrt_shutdown`). Opening a backend
/// afterwards is an error. The CUDA backend keeps no process-wide state to release (each pipeline owns its
/// context and frees it when dropped).
pub fn shutdown() {
    onnxruntime::library::shutdown();
}

#[cfg(feature = "cuda")]
fn open_cuda(config: &BackendConfig) -> Result<Arc<dyn Backend>> {
    Ok(Arc::new(cuda::CudaBackend::new(config)?))
}

/// Without the feature the kind still parses, so a GPU config gets this message instead of "unknown variant".
#[cfg(not(feature = "cuda"))]
fn open_cuda(_config: &BackendConfig) -> Result<Arc<dyn Backend>> {
    Err(crate::error::Error::Backend(
        "`backend.kind: cuda` needs a specrt built with the `cuda` cargo feature (cargo build --release --features cuda)".into(),
    ))
}

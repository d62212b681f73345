//! Backends run exported graphs. A strategy never sees a backend: it drives a
//! [`crate::model::LanguageModel`], which drives a [`DecoderGraph`] that a [`Backend`] opened.
//!
//! Today's backend is ONNX Runtime ([`onnxruntime`]) with the CPU provider by default and the CUDA / TensorRT
//! providers behind cargo features. A native TensorRT backend will implement the same two traits.

pub mod onnxruntime;

use crate::error::Result;
use crate::model::Manifest;

/// One forward pass over `S` new tokens on top of `past_len` cached ones.
#[derive(Debug, Clone, Copy)]
pub struct ForwardInputs<'a> {
    /// The S new token ids.
    pub input_ids: &'a [i64],
    /// Their rotary positions (explicit, so trees and SPACE groups can share a position).
    pub position_ids: &'a [i64],
    /// Cached tokens (KV slots 0..past_len) the new ones attend to; new K/V go to slots past_len..past_len+S.
    pub past_len: usize,
    /// Additive attention bias, row-major `[S, past_len + S]` (0 = visible, -1e9 = hidden).
    pub attention_bias: &'a [f32],
    /// Which of the S new positions get logits (indices into 0..S, ascending).
    pub logits_rows: &'a [i64],
}

/// What a forward pass returns; borrowed from buffers the graph reuses across calls.
#[derive(Debug, Clone, Copy)]
pub struct ForwardOutputs<'a> {
    /// `[rows, vocab]` logits, one row per entry of `logits_rows`.
    pub logits: &'a [f32],
    /// `[S, hidden]` last-layer hidden states when the graph exports them.
    pub hidden_states: Option<&'a [f32]>,
}

/// A decoder graph bound to its own preallocated KV cache.
pub trait DecoderGraph: Send {
    /// Runs one forward pass. The graph writes the new tokens' K/V into slots `past_len..past_len + S`.
    fn forward(&mut self, inputs: &ForwardInputs<'_>) -> Result<ForwardOutputs<'_>>;

    /// The logits of the most recent forward pass (`[rows, vocab]`), or empty before the first.
    fn last_logits(&self) -> &[f32];

    /// The hidden states of the most recent forward pass (`[S, hidden]`), when the graph exports them.
    fn last_hidden_states(&self) -> Option<&[f32]>;

    /// Cumulative seconds spent inside the backend's run call (to measure the engine's own overhead).
    fn backend_seconds(&self) -> f64;

    /// KV slots available (the context length).
    fn capacity(&self) -> usize;

    /// Copies the K/V rows of slots `src[i]` to slot `dst_start + i`, in order, for every layer. Used to compact an
    /// accepted token-tree path into contiguous slots. Requires `src[i] >= dst_start + i` (rows only move down).
    fn compact_kv(&mut self, src: &[usize], dst_start: usize) -> Result<()>;

    /// Copies the K/V of slots `0..len` out, for tests and debugging: `[layer][k|v][kv_head][slot][head_dim]`.
    fn read_kv(&self, len: usize) -> Vec<f32>;

    /// Where the graph runs, e.g. `onnxruntime/cpu`.
    fn device(&self) -> String;
}

/// Something that can open decoder graphs.
pub trait Backend: Send + Sync {
    /// The backend's name, e.g. `onnxruntime`.
    fn name(&self) -> &'static str;

    /// Opens the decoder of `manifest` with a KV cache of `capacity` slots, after checking the graph against the
    /// manifest's contract.
    fn open_decoder(&self, manifest: &Manifest, capacity: usize) -> Result<Box<dyn DecoderGraph>>;
}

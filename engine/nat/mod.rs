//! CTC non-autoregressive generation (CTCPMLM-style, METHODS.md section 5): an encoder-only model reads the
//! source upsampled by `<mask>` insertion and predicts a token or blank at every position in ONE forward pass;
//! CTC decoding turns that into text. Many sentences share a pass (batching), which is where NAT shines.
//!
//! - [`upsample`]: the mask-insertion rule (integer and fractional rates, clipping to the position limit).
//! - [`ctc`]: greedy CTC decoding and CTC prefix beam search.
//! - [`manifest`] / [`model`]: the `ctc_nat` export contract and its ONNX Runtime runner.
//! - [`pipeline`]: [`NatPipeline`], a YAML pipeline with `strategy: {kind: nat}`.
//! - [`metrics`]: corpus BLEU and chrF, equal to sacrebleu's defaults (tested against sacrebleu's own numbers).
//! - [`bench`]: `specrt bench` on a NAT pipeline: quality and latency against its AR baseline.
//!
//! A NAT model is not lossless with respect to any AR model: it is compared on quality (BLEU/chrF) and speed.

pub mod bench;
pub mod ctc;
pub mod manifest;
pub mod metrics;
pub mod model;
pub mod pipeline;
pub mod upsample;

pub use pipeline::{NatPipeline, Translation};

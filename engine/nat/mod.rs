//! CTC non-autoregressive generation (CTCPMLM-style, docs/METHODS.md section 5): an encoder-only model reads the
//! source upsampled by `<mask>` insertion and predicts a token or blank at every position in ONE forward pass;
//! CTC decoding turns that into text. Many sentences share a pass (batching), which is where NAT shines.
//!
//! - [`upsample`]: the mask-insertion rule (integer and fractional rates, clipping to the position limit).
//! - [`ctc`]: greedy CTC decoding and CTC prefix beam search.
//! - [`invariance`]: the load-time probe of whether a sentence's logits depend on what shares its pass.
//! - [`model`]: the `ctc_nat` encoder (contract in [`crate::contract::ctc_nat`]) on the backend's encoder graph.
//! - [`pipeline`]: [`NatPipeline`], a YAML pipeline with `strategy: {kind: nat}`.
//! - [`shortlist`]: the per-sentence lexical output shortlist that restricts a greedy pass's output head.
//! - [`metrics`]: corpus BLEU and chrF, equal to sacrebleu's defaults (tested against sacrebleu's own numbers).
//! - [`bootstrap`]: paired bootstrap resampling: the BLEU difference of two systems with a confidence interval.
//!
//! A NAT model is not lossless with respect to any AR model: it is compared on quality (BLEU/chrF) and speed.

pub mod bootstrap;
pub mod ctc;
pub mod invariance;
pub mod metrics;
pub mod model;
pub mod pipeline;
pub mod shortlist;
pub mod upsample;

pub use pipeline::{NatPipeline, Translation};

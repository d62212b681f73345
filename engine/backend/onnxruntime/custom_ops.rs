//! The engine's own ONNX operators, in the domain `ai.specrt` (version 1), registered on every session it builds:
//! - `MatMulGgml` (block_matmul_op.rs): linear layers over GGUF blocks as stored;
//! - `BatchInvariantAttention` (attention_op.rs): GroupQueryAttention's contract, one row at a time; and
//!   `BatchInvariantAttentionF16Kv`, the same with an fp16 KV cache;
//! - `EagleHeadGgml` (eagle_head_op.rs): a whole EAGLE-style draft head over GGUF blocks, remembering recent pairs;
//! - `EncoderLayerGgml` (encoder_layer_op.rs): a whole pre-norm encoder layer over GGUF blocks (the CTC NAT's);
//! - `ArgMaxRows` (argmax_op.rs): each row's argmax, optionally mapped through an id table (the CTC NAT's greedy
//!   output).
//!
//! Exports that use them (`--linear-kernel ggml`, `--attention-kernel specrt`) run only in this engine.

use ort::operator::OperatorDomain;

use super::argmax_op::ArgMaxRows;
use super::attention_op::BatchInvariantAttention;
use super::block_matmul_op::MatMulGgml;
use super::eagle_head_op::EagleHeadGgml;
use super::encoder_layer_op::EncoderLayerGgml;

/// The ONNX domain of the engine's operators (exports import it at version 1).
pub const DOMAIN: &str = "ai.specrt";

/// The domain with every operator the engine implements.
pub(crate) fn domain() -> ort::Result<OperatorDomain> {
    OperatorDomain::new(DOMAIN)?
        .add(MatMulGgml)?
        .add(BatchInvariantAttention::<false>)?
        .add(BatchInvariantAttention::<true>)?
        .add(ArgMaxRows)?
        .add(EncoderLayerGgml)?
        .add(EagleHeadGgml)
}

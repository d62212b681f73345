//! The custom operator `ai.specrt::EagleHeadGgml`: a whole EAGLE-style draft head (embedding gather, hidden-state
//! RMSNorm, `fc`, one decoder layer for the newest pair, output RMSNorm and output matrix) in one node, computed by
//! engine/kernels/eagle_head.rs, which also remembers the pairs of recent calls (exactly: a remembered pair gives
//! the bits of a recomputed one). export/graph_draft_head.py writes it for `--precision q8_0` EAGLE heads.
//!
//! Node contract (export/README.md, "The draft-head contract", documents it):
//! - input 0 `hidden_states`: float32 `[1, S, hidden]`; input 1 `input_ids`: int64 `[1, S]` (target ids);
//! - input 2 `draft_index`: int64 `[V]` (target id -> embedding row); input 3 `embed`: float32 `[rows, hidden]`;
//! - inputs 4 `hidden_norm`, 6 `fc_bias`, 7 `attn_norm`, 10 `ffn_norm`, 13 `out_norm`: float32 `[hidden]`;
//! - inputs 5 `fc` (`[hidden, 2 hidden]`), 8 `qkv` (`[3 hidden, hidden]`), 9 `o`, 11 `gate_up` (`[2 ffn, hidden]`),
//!   12 `down` (`[hidden, ffn]`), 14 `lm_head` (`[vocab, hidden]`): uint8, GGML blocks of `ggml_type`;
//! - attributes `hidden`, `num_heads`, `ffn`, `vocab` (ints), `epsilon`, `rope_theta` (floats), `ggml_type`;
//! - outputs `features` float32 `[1, 1, hidden]` and `logits` float32 `[1, 1, vocab]` (the newest pair's).

use ort::operator::{ComputeContext, Kernel, KernelContext, Operator, OperatorInput, OperatorOutput};
use ort::sys::OrtKernelContext;
use ort::value::TensorElementType;
use ort::AsPointer;

use super::layer_op_parts::{check_block_widths, float_attr, required_inputs, ConstantPanels};
use super::op_io::{ggml_type_attr, output, positive_attr, OrtPool, MAX_RANK};
use crate::kernels::eagle_head::{eagle_head, EagleHeadShape, EagleHeadWeights, EagleScratch};
use crate::kernels::encoder_layer::EncoderLayerWeights;
use crate::kernels::{BlockFormat, BlockMatrix, Isa};

/// The operator's name in the `ai.specrt` domain.
pub const OP_NAME: &str = "EagleHeadGgml";

/// Inputs of the operator.
const INPUTS: usize = 15;

/// Input index of each block matrix, its name, and its `[N, K]` in terms of (hidden, ffn, vocab).
const MATRICES: [(usize, &str); 6] = [(5, "fc"), (8, "qkv"), (9, "o"), (11, "gate_up"), (12, "down"), (14, "lm_head")];

/// Input index and name of each `[hidden]` vector.
const VECTORS: [(usize, &str); 5] = [(4, "hidden_norm"), (6, "fc_bias"), (7, "attn_norm"), (10, "ffn_norm"), (13, "out_norm")];

/// The operator (registered by engine/backend/onnxruntime/custom_ops.rs).
pub(crate) struct EagleHeadGgml;

impl Operator for EagleHeadGgml {
    type Kernel<'attr> = EagleHeadKernel;

    fn name(&self) -> &str {
        OP_NAME
    }

    fn inputs(&self) -> impl IntoIterator<Item = OperatorInput> {
        let (f, i, u) = (TensorElementType::Float32, TensorElementType::Int64, TensorElementType::Uint8);
        [f, i, i, f, f, u, f, f, u, u, f, u, u, f, u].map(OperatorInput::required)
    }

    fn outputs(&self) -> impl IntoIterator<Item = OperatorOutput> {
        [OperatorOutput::required(TensorElementType::Float32), OperatorOutput::required(TensorElementType::Float32)]
    }

    fn create_kernel<'attr>(&self, kctx: &KernelContext<'attr>) -> ort::Result<Self::Kernel<'attr>> {
        let node = kctx.node_name().unwrap_or_default();
        let attr = |name| positive_attr(kctx, OP_NAME, &node, name);
        let (hidden, heads, ffn, vocab) = (attr("hidden")?, attr("num_heads")?, attr("ffn")?, attr("vocab")?);
        let (eps, rope_theta) = (float_attr(kctx, OP_NAME, &node, "epsilon", false)?, float_attr(kctx, OP_NAME, &node, "rope_theta", true)?);
        let format = ggml_type_attr(kctx, OP_NAME, &node)?;
        check_block_widths(OP_NAME, &node, format, &[("hidden", hidden), ("ffn", ffn)])?;
        let shape = EagleHeadShape { hidden, heads, ffn, vocab, eps, rope_theta };
        let isa = Isa::detect();
        let panels = ConstantPanels::new(kctx, isa, format, MATRICES.map(|(index, _)| index), |index| dims(index, &shape));
        Ok(EagleHeadKernel { node, format, shape, isa, panels, scratch: EagleScratch::new(), weights_at: [0; INPUTS - 2] })
    }
}

/// `[N, K]` of the block matrix at input `index`.
fn dims(index: usize, s: &EagleHeadShape) -> (usize, usize) {
    match index {
        5 => (s.hidden, 2 * s.hidden),
        8 => (3 * s.hidden, s.hidden),
        9 => (s.hidden, s.hidden),
        11 => (2 * s.ffn, s.hidden),
        12 => (s.hidden, s.ffn),
        _ => (s.vocab, s.hidden),
    }
}

pub(crate) struct EagleHeadKernel {
    node: String,
    format: BlockFormat,
    shape: EagleHeadShape,
    isa: Isa,
    /// Panel copies of the six block matrices.
    panels: ConstantPanels<6>,
    scratch: EagleScratch,
    /// Addresses of the weight inputs (2..) the remembered pairs were computed with: the contract makes them
    /// constant initializers, but a node fed other weights must not read pairs computed with the old ones.
    weights_at: [usize; INPUTS - 2],
}

impl Kernel for EagleHeadKernel {
    fn compute(&mut self, ctx: &ComputeContext) -> ort::Result<()> {
        let kctx = ctx.ptr() as *mut OrtKernelContext;
        let err = |what: String| ort::Error::new(format!("{OP_NAME} node {:?}: {what}", self.node));
        let s = self.shape;
        let mut dims_buf = [[0i64; MAX_RANK]; INPUTS];
        // SAFETY: the kernel context is live for this call; shapes are checked before any data is read.
        let ptrs = unsafe { required_inputs(kctx, &mut dims_buf, &err)? };
        let shape_of = |i: usize| &dims_buf[i][..ptrs[i].1];
        let len = |i: usize| shape_of(i).iter().map(|&d| d.max(0) as usize).product::<usize>();
        let h = s.hidden as i64;
        let x_shape = shape_of(0);
        if x_shape.len() != 3 || x_shape[0] != 1 || x_shape[2] != h || x_shape[1] < 1 {
            return Err(err(format!("input hidden_states has shape {x_shape:?}, expected [1, pairs >= 1, {h}]")));
        }
        let pairs = x_shape[1];
        if shape_of(1) != [1, pairs] {
            return Err(err(format!("input input_ids has shape {:?}, expected [1, {pairs}] (hidden_states' pairs)", shape_of(1))));
        }
        if shape_of(2).len() != 1 {
            return Err(err(format!("input draft_index has shape {:?}, expected [target vocabulary]", shape_of(2))));
        }
        if shape_of(3).len() != 2 || shape_of(3)[1] != h || shape_of(3)[0] < 1 {
            return Err(err(format!("input embed has shape {:?}, expected [rows, {h}]", shape_of(3))));
        }
        for (i, name) in VECTORS {
            if shape_of(i) != [h] {
                return Err(err(format!("input {i} ({name}) has shape {:?}, expected [{h}]", shape_of(i))));
            }
        }
        // SAFETY: live context; the outputs' shapes are the contract's.
        let (feat_ptr, logits_ptr) = unsafe { (output(kctx, 0, &[1, 1, h])? as *mut f32, output(kctx, 1, &[1, 1, s.vocab as i64])? as *mut f32) };
        let rows = pairs as usize;
        // SAFETY: ONNX Runtime's tensors hold exactly their shape's element count of the declared types (checked
        // above); the outputs are fresh buffers of the sizes just requested.
        let (hidden_states, ids, index, embed, features, logits) = unsafe {
            (
                std::slice::from_raw_parts(ptrs[0].0 as *const f32, rows * s.hidden),
                std::slice::from_raw_parts(ptrs[1].0 as *const i64, rows),
                std::slice::from_raw_parts(ptrs[2].0 as *const i64, len(2)),
                std::slice::from_raw_parts(ptrs[3].0 as *const f32, len(3)),
                std::slice::from_raw_parts_mut(feat_ptr, s.hidden),
                std::slice::from_raw_parts_mut(logits_ptr, s.vocab),
            )
        };
        // SAFETY: as above (float32 `[hidden]` vectors, checked).
        let vector = |i: usize| unsafe { std::slice::from_raw_parts(ptrs[i].0 as *const f32, s.hidden) };
        let matrix = |index: usize, name: &str| -> ort::Result<BlockMatrix> {
            let (n, k) = dims(index, &s);
            // SAFETY: as above (uint8 blocks of the input's own size).
            let bytes = unsafe { std::slice::from_raw_parts(ptrs[index].0 as *const u8, len(index)) };
            BlockMatrix::new(self.format, n, k, bytes).map_err(|e| err(format!("input {index} ({name}): {e}")))
        };
        let m = [matrix(5, "fc")?, matrix(8, "qkv")?, matrix(9, "o")?, matrix(11, "gate_up")?, matrix(12, "down")?, matrix(14, "lm_head")?];
        self.panels.refresh(&m, MATRICES.map(|(index, _)| (ptrs[index].0 as usize, len(index))));
        let proj = |slot: usize| self.panels.projection(slot, &m[slot]);
        let weights = EagleHeadWeights {
            index,
            embed,
            hidden_norm: vector(4),
            fc: proj(0),
            fc_bias: vector(6),
            layer: EncoderLayerWeights { attn_norm: vector(7), qkv: proj(1), o: proj(2), ffn_norm: vector(10), gate_up: proj(3), down: proj(4) },
            out_norm: vector(13),
            lm_head: proj(5),
        };
        weights.check(&s).map_err(err)?;
        let weights_at = std::array::from_fn(|i| ptrs[i + 2].0 as usize);
        if weights_at != self.weights_at {
            self.scratch.forget();
            self.weights_at = weights_at;
        }
        eagle_head(self.isa, &s, &weights, hidden_states, ids, &mut self.scratch, &OrtPool(kctx), features, logits).map_err(err)
    }
}

//! The custom operator `ai.specrt::EncoderLayerGgml`: a whole pre-norm encoder layer (RMSNorm, Q/K/V, bidirectional
//! attention with a key padding mask, output projection, RMSNorm, SwiGLU, residuals) in one node, computed by
//! engine/kernels/encoder_layer.rs. The CTC NAT's `--precision q8_0` export uses one per layer.
//!
//! Node contract (export/graph_ctc_nat.py writes it, export/CONTRACT.md documents it):
//! - input 0 `X`: float32 `[batch, positions, hidden]`; input 1 `mask`: int32 `[batch, positions]` (nonzero = real);
//! - input 2 `attn_norm`, input 5 `ffn_norm`: float32 `[hidden]`;
//! - inputs 3 `qkv` (`[3 hidden, hidden]`: Q, K, V stacked), 4 `o` (`[hidden, hidden]`), 6 `gate_up`
//!   (`[2 ffn, hidden]`: gate, up stacked), 7 `down` (`[hidden, ffn]`): uint8, GGML blocks of `ggml_type`
//!   (row-major, as MatMulGgml's `W`);
//! - attributes `hidden`, `num_heads`, `ffn` (ints), `epsilon` (float), `ggml_type` (`"Q8_0"`, ... as MatMulGgml);
//! - output `Y`: float32 `[batch, positions, hidden]`.
//!
//! Panel copies of the four matrices are made when the session loads (they are constant initializers), as
//! MatMulGgml does; the four matmuls split their columns over ONNX Runtime's intra-op pool.

use ort::operator::{ComputeContext, Kernel, KernelContext, Operator, OperatorInput, OperatorOutput};
use ort::sys::OrtKernelContext;
use ort::value::TensorElementType;
use ort::AsPointer;

use super::layer_op_parts::{check_block_widths, float_attr, required_inputs, ConstantPanels};
use super::op_io::{ggml_type_attr, output, positive_attr, OrtPool, MAX_RANK};
use crate::kernels::encoder_layer::{encoder_layer, EncoderLayerShape, EncoderLayerWeights, EncoderScratch};
use crate::kernels::{BlockFormat, BlockMatrix, Isa};

/// The operator's name in the `ai.specrt` domain.
pub const OP_NAME: &str = "EncoderLayerGgml";

/// Input index of each projection and its `[N, K]` in terms of (hidden, ffn).
const MATRICES: [(usize, &str); 4] = [(3, "qkv"), (4, "o"), (6, "gate_up"), (7, "down")];

/// The operator (registered by engine/backend/onnxruntime/custom_ops.rs).
pub(crate) struct EncoderLayerGgml;

impl Operator for EncoderLayerGgml {
    type Kernel<'attr> = EncoderLayerKernel;

    fn name(&self) -> &str {
        OP_NAME
    }

    fn inputs(&self) -> impl IntoIterator<Item = OperatorInput> {
        let (f, i, u) = (TensorElementType::Float32, TensorElementType::Int32, TensorElementType::Uint8);
        [f, i, f, u, u, f, u, u].map(OperatorInput::required)
    }

    fn outputs(&self) -> impl IntoIterator<Item = OperatorOutput> {
        [OperatorOutput::required(TensorElementType::Float32)]
    }

    fn create_kernel<'attr>(&self, kctx: &KernelContext<'attr>) -> ort::Result<Self::Kernel<'attr>> {
        let node = kctx.node_name().unwrap_or_default();
        let attr = |name| positive_attr(kctx, OP_NAME, &node, name);
        let (hidden, heads, ffn) = (attr("hidden")?, attr("num_heads")?, attr("ffn")?);
        let eps = float_attr(kctx, OP_NAME, &node, "epsilon", false)?;
        let format = ggml_type_attr(kctx, OP_NAME, &node)?;
        check_block_widths(OP_NAME, &node, format, &[("hidden", hidden), ("ffn", ffn)])?;
        let shape = EncoderLayerShape { hidden, heads, ffn, eps };
        let isa = Isa::detect();
        let panels = ConstantPanels::new(kctx, isa, format, MATRICES.map(|(index, _)| index), |index| dims(index, &shape));
        Ok(EncoderLayerKernel { node, format, shape, isa, panels, scratch: EncoderScratch::new() })
    }
}

/// `[N, K]` of the projection at input `index`.
fn dims(index: usize, s: &EncoderLayerShape) -> (usize, usize) {
    match index {
        3 => (3 * s.hidden, s.hidden),
        4 => (s.hidden, s.hidden),
        6 => (2 * s.ffn, s.hidden),
        _ => (s.hidden, s.ffn),
    }
}

pub(crate) struct EncoderLayerKernel {
    node: String,
    format: BlockFormat,
    shape: EncoderLayerShape,
    isa: Isa,
    /// Panel copies of the four projections.
    panels: ConstantPanels<4>,
    scratch: EncoderScratch,
}

impl Kernel for EncoderLayerKernel {
    fn compute(&mut self, ctx: &ComputeContext) -> ort::Result<()> {
        let kctx = ctx.ptr() as *mut OrtKernelContext;
        let err = |what: String| ort::Error::new(format!("{OP_NAME} node {:?}: {what}", self.node));
        let s = self.shape;
        let mut dims_buf = [[0i64; MAX_RANK]; 8];
        // SAFETY: the kernel context is live for this call; shapes are checked before any data is read.
        let ptrs = unsafe { required_inputs(kctx, &mut dims_buf, &err)? };
        let shape_of = |i: usize| &dims_buf[i][..ptrs[i].1];
        let x_shape = shape_of(0);
        if x_shape.len() != 3 || x_shape[2] != s.hidden as i64 || x_shape.iter().any(|&d| d < 0) {
            return Err(err(format!("input X has shape {x_shape:?}, expected [batch, positions, {}]", s.hidden)));
        }
        let (batch, positions) = (x_shape[0] as usize, x_shape[1] as usize);
        if shape_of(1) != [batch as i64, positions as i64] {
            return Err(err(format!("input mask has shape {:?}, expected [{batch}, {positions}] (X's)", shape_of(1))));
        }
        for i in [2, 5] {
            if shape_of(i) != [s.hidden as i64] {
                return Err(err(format!("input {i} (RMSNorm scale) has shape {:?}, expected [{}]", shape_of(i), s.hidden)));
            }
        }
        let rows = batch * positions;
        // SAFETY: live context; the output has X's shape.
        let y_ptr = unsafe { output(kctx, 0, x_shape)? } as *mut f32;
        if rows == 0 {
            return Ok(());
        }
        let len = |i: usize| shape_of(i).iter().map(|&d| d.max(0) as usize).product::<usize>();
        // SAFETY: ONNX Runtime's tensors hold exactly their shape's element count of the declared types (float32
        // X and norms, int32 mask, uint8 blocks); Y has X's size and is a different buffer than X.
        let (x, mask, attn_norm, ffn_norm, y) = unsafe {
            (
                std::slice::from_raw_parts(ptrs[0].0 as *const f32, rows * s.hidden),
                std::slice::from_raw_parts(ptrs[1].0 as *const i32, rows),
                std::slice::from_raw_parts(ptrs[2].0 as *const f32, s.hidden),
                std::slice::from_raw_parts(ptrs[5].0 as *const f32, s.hidden),
                std::slice::from_raw_parts_mut(y_ptr, rows * s.hidden),
            )
        };
        let matrix = |index: usize, name: &str| -> ort::Result<BlockMatrix> {
            let (n, k) = dims(index, &s);
            // SAFETY: as above (uint8 blocks of the input's own size).
            let bytes = unsafe { std::slice::from_raw_parts(ptrs[index].0 as *const u8, len(index)) };
            BlockMatrix::new(self.format, n, k, bytes).map_err(|e| err(format!("input {index} ({name}): {e}")))
        };
        let m = [matrix(3, "qkv")?, matrix(4, "o")?, matrix(6, "gate_up")?, matrix(7, "down")?];
        self.panels.refresh(&m, MATRICES.map(|(index, _)| (ptrs[index].0 as usize, len(index))));
        let proj = |slot: usize| self.panels.projection(slot, &m[slot]);
        let weights = EncoderLayerWeights { attn_norm, qkv: proj(0), o: proj(1), ffn_norm, gate_up: proj(2), down: proj(3) };
        weights.check(&s).map_err(err)?;
        y.copy_from_slice(x);
        encoder_layer(self.isa, &s, &weights, y, mask, batch, positions, &mut self.scratch, &OrtPool(kctx));
        Ok(())
    }
}

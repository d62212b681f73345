//! What the one-node layer operators (`EncoderLayerGgml`, `EagleHeadGgml`) share: reading every (required) input,
//! checking that the widths their attributes give are whole blocks, and the panel copies of their constant block
//! matrices, made when the session loads and remade only if ONNX Runtime hands a node another buffer.

use std::ffi::c_void;

use ort::operator::KernelContext;
use ort::sys::OrtKernelContext;

use super::block_matmul_op::constant_panels;
use super::op_io::{input, MAX_RANK};
use crate::kernels::block_matmul::Projection;
use crate::kernels::{BlockFormat, BlockMatrix, Isa, PanelMatrix};

/// Each input's data pointer and rank, with its dimensions in the matching row of `dims`.
pub(crate) type Inputs<const N: usize> = [(*mut c_void, usize); N];

/// Reads the node's `N` inputs, every one required; `err` words a message for this node.
///
/// # Safety
/// `kctx` is the live kernel context of the call.
pub(crate) unsafe fn required_inputs<const N: usize>(
    kctx: *mut OrtKernelContext,
    dims: &mut [[i64; MAX_RANK]; N],
    err: &dyn Fn(String) -> ort::Error,
) -> ort::Result<Inputs<N>> {
    let mut ptrs = [(std::ptr::null_mut::<c_void>(), 0usize); N];
    for (i, (d, p)) in dims.iter_mut().zip(ptrs.iter_mut()).enumerate() {
        // SAFETY: the caller's context is live; shapes are checked by the caller before any data is read.
        *p = unsafe { input(kctx, i, d)? }.ok_or_else(|| err(format!("input {i} is required")))?;
    }
    Ok(ptrs)
}

/// A float attribute of the node being created that is finite and positive (or, with `positive` false,
/// non-negative), or an error naming the operator, node and attribute.
pub(crate) fn float_attr(kctx: &KernelContext<'_>, op: &str, node: &str, name: &str, positive: bool) -> ort::Result<f32> {
    kctx.get::<f32>(name).filter(|v| v.is_finite() && (*v > 0.0 || (!positive && *v == 0.0))).ok_or_else(|| {
        ort::Error::new(format!(
            "{op} node {node:?}: attribute {name} missing or not a finite {} float",
            if positive { "positive" } else { "non-negative" }
        ))
    })
}

/// An error naming the attribute if a width (`hidden`, `ffn`) is not a multiple of the format's block.
pub(crate) fn check_block_widths(op: &str, node: &str, format: BlockFormat, widths: &[(&str, usize)]) -> ort::Result<()> {
    for &(what, k) in widths {
        if !k.is_multiple_of(format.block_weights()) {
            return Err(ort::Error::new(format!(
                "{op} node {node:?}: {what} = {k} is not a multiple of {}'s block ({})",
                format.name(),
                format.block_weights()
            )));
        }
    }
    Ok(())
}

/// Panel copies of a node's `N` constant block matrices (where the instruction set multiplies panels).
pub(crate) struct ConstantPanels<const N: usize> {
    isa: Isa,
    format: BlockFormat,
    /// Per matrix: the panel copy and the address and length of the buffer it was made from.
    slots: [Option<(usize, usize, PanelMatrix)>; N],
}

impl<const N: usize> ConstantPanels<N> {
    /// Copies of the constant inputs at `indices` when the session loads; `dims(index)` is the matrix's `[N, K]`.
    pub(crate) fn new(kctx: &KernelContext, isa: Isa, format: BlockFormat, indices: [usize; N], dims: impl Fn(usize) -> (usize, usize)) -> Self {
        let slots = indices.map(|index| {
            let (n, k) = dims(index);
            if isa.uses_panels(format) {
                constant_panels(kctx, index, format, k, n)
            } else {
                None
            }
        });
        ConstantPanels { isa, format, slots }
    }

    /// Remakes the copy of any matrix whose buffer (`(address, length)` in `keys`) is not the one it was made from.
    pub(crate) fn refresh(&mut self, matrices: &[BlockMatrix; N], keys: [(usize, usize); N]) {
        if !self.isa.uses_panels(self.format) {
            return;
        }
        for ((slot, matrix), key) in self.slots.iter_mut().zip(matrices).zip(keys) {
            if slot.as_ref().is_none_or(|(p, l, _)| (*p, *l) != key) {
                *slot = PanelMatrix::new(matrix).map(|p| (key.0, key.1, p));
            }
        }
    }

    /// Matrix `slot` as the kernels multiply it: its panel copy, or the blocks as stored.
    pub(crate) fn projection<'a>(&'a self, slot: usize, blocks: &'a BlockMatrix<'a>) -> Projection<'a> {
        match &self.slots[slot] {
            Some((_, _, p)) if self.isa.uses_panels(self.format) => Projection::Panels(p),
            _ => Projection::Blocks(blocks),
        }
    }
}

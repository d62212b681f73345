//! What the two panel kernels (engine/kernels/block_matmul_avx512.rs, block_matmul_avx2_panels.rs) share: the
//! format codes their const generics take, and one call's operands as raw pointers for the inner loops.

use super::block_format::BlockFormat;
use super::panel_matrix::PanelMatrix;
use super::q8_rows::Q8Rows;

/// Format codes for the kernels' `const F: u8` parameter.
pub(super) const Q4_0: u8 = 0;
pub(super) const Q4_1: u8 = 1;
pub(super) const Q8_0: u8 = 2;
pub(super) const Q4_K: u8 = 3;
pub(super) const Q6_K: u8 = 4;

/// The block format of a format code.
pub(super) const fn format_of(f: u8) -> BlockFormat {
    match f {
        Q4_0 => BlockFormat::Q4_0,
        Q4_1 => BlockFormat::Q4_1,
        Q8_0 => BlockFormat::Q8_0,
        Q4_K => BlockFormat::Q4_K,
        _ => BlockFormat::Q6_K,
    }
}

/// Operands of one call, as raw pointers for the inner loops.
#[derive(Clone, Copy)]
pub(super) struct Operands {
    pub weights: *const u8,
    pub panel_bytes: usize,
    /// Stored blocks per column (K / 32, or K / 256 for the K-quants).
    pub blocks: usize,
    /// Activation blocks per row (K / 32).
    pub xblocks: usize,
    pub codes: *const i8,
    pub scales: *const f32,
    pub sums: *const f32,
    pub half_sums: *const i32,
    pub y: *mut f32,
    pub stride: usize,
    /// Output columns: the last panel stores only `n % 16` of its lanes when N does not fill it.
    pub n: usize,
}

impl Operands {
    /// The operands of `y = x @ W^T` from the panel copy `w`, writing `y[r * stride + n]`.
    pub fn new(w: &PanelMatrix, x: &Q8Rows, y: *mut f32, stride: usize) -> Self {
        Operands {
            weights: w.panel(0).as_ptr(),
            panel_bytes: w.panel_bytes(),
            blocks: w.k() / w.format().block_weights(),
            xblocks: x.blocks_per_row(),
            codes: x.all_codes().as_ptr(),
            scales: x.all_scales().as_ptr(),
            sums: x.all_sums().as_ptr(),
            half_sums: x.all_half_sums().as_ptr(),
            y,
            stride,
            n: w.n(),
        }
    }
}

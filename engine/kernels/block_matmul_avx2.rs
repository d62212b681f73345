//! The AVX2 + FMA + F16C block matmul (x86-64): the same arithmetic per output element as the scalar reference up
//! to fp32 summation order, and one fixed order for a given element whatever the rows or columns around it.
//!
//! Per 32-weight block: unpack the codes once (nibbles to bytes), then for each row of the tile one `vpmaddubsw` +
//! `vpmaddwd` integer dot product (8 int32 lanes), converted and fused-multiply-added into that row's 8-lane
//! accumulator with the block's scale `d_w * d_x`; Q4_1's offset adds `m_w * s_x` to a scalar per row. Tiles are
//! up to 4 rows x 1 column: the rows share each unpacked block (verification passes).
//!
//! Measured alternatives (2-vCPU AMD EPYC, Zen 3, one thread, cargo run --release --example kernel_probe):
//! 2-column tiles were 10-40% slower (8 vector + 8 scalar accumulators spill registers), 6-row tiles no faster;
//! reducing 8 blocks' exact integer sums together before one conversion and FMA (fewer instructions per row and
//! block on paper) was no faster at K = 1536 and 1.7x slower at K = 576, whose 18 blocks leave a partial group.

use std::arch::x86_64::*;
use std::ops::Range;

use super::block_format::{BlockFormat, BLOCK};
use super::block_matrix::BlockMatrix;
use super::q8_rows::Q8Rows;

const Q4_0: u8 = 0;
const Q4_1: u8 = 1;
const Q8_0: u8 = 2;

/// See [`super::block_matmul::matmul_columns`] (same contract; the CPU must have AVX2, FMA and F16C).
pub(super) unsafe fn matmul_columns(w: &BlockMatrix, x: &Q8Rows, cols: Range<usize>, y: *mut f32, stride: usize) {
    // SAFETY: the caller checked the CPU features and the buffer contract.
    unsafe {
        match w.format() {
            BlockFormat::Q4_0 => rows::<Q4_0>(w, x, cols, y, stride),
            BlockFormat::Q4_1 => rows::<Q4_1>(w, x, cols, y, stride),
            BlockFormat::Q8_0 => rows::<Q8_0>(w, x, cols, y, stride),
        }
    }
}

/// Operands of one call, as raw pointers for the inner loops.
#[derive(Clone, Copy)]
struct Operands {
    weights: *const u8,
    row_len: usize,
    block_bytes: usize,
    blocks: usize,
    codes: *const i8,
    scales: *const f32,
    sums: *const f32,
    y: *mut f32,
    stride: usize,
}

#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn rows<const F: u8>(w: &BlockMatrix, x: &Q8Rows, cols: Range<usize>, y: *mut f32, stride: usize) {
    let blocks = w.k() / BLOCK;
    let block_bytes = w.format().block_bytes();
    let ops = Operands {
        weights: w.row_bytes(0).as_ptr(),
        row_len: blocks * block_bytes,
        block_bytes,
        blocks,
        codes: x.all_codes().as_ptr(),
        scales: x.all_scales().as_ptr(),
        sums: x.all_sums().as_ptr(),
        y,
        stride,
    };
    let mut r0 = 0;
    while r0 < x.rows() {
        let left = x.rows() - r0;
        // SAFETY: rows r0.. exist in `x`, columns in `cols` exist in `w` (caller contract).
        unsafe {
            match left {
                1 => tile::<F, 1>(ops, cols.clone(), r0),
                2 => tile::<F, 2>(ops, cols.clone(), r0),
                3 => tile::<F, 3>(ops, cols.clone(), r0),
                _ => tile::<F, 4>(ops, cols.clone(), r0),
            }
        }
        r0 += left.min(4);
    }
}

#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn tile<const F: u8, const R: usize>(ops: Operands, cols: Range<usize>, r0: usize) {
    for n in cols {
        // SAFETY: n < cols.end <= N.
        unsafe { column::<F, R>(ops, n, r0) };
    }
}

/// Output elements `y[r0..r0+R, n]`.
#[inline(always)]
unsafe fn column<const F: u8, const R: usize>(ops: Operands, n: usize, r0: usize) {
    // SAFETY: every pointer below stays inside the buffers `rows` built `ops` from (caller contract).
    unsafe {
        let mut acc = [_mm256_setzero_ps(); R];
        let mut offsets = [0f32; R];
        for b in 0..ops.blocks {
            let block = ops.weights.add(n * ops.row_len + b * ops.block_bytes);
            let (d, m, qx) = decode::<F>(block);
            for r in 0..R {
                let i = (r0 + r) * ops.blocks + b;
                let qy = _mm256_loadu_si256(ops.codes.add(i * BLOCK) as *const __m256i);
                let p = if F == Q4_1 { dot_u8_i8(qx, qy) } else { dot_i8_i8(qx, qy) };
                acc[r] = _mm256_fmadd_ps(_mm256_set1_ps(d * *ops.scales.add(i)), p, acc[r]);
                if F == Q4_1 {
                    offsets[r] += m * *ops.sums.add(i);
                }
            }
        }
        for r in 0..R {
            *ops.y.add((r0 + r) * ops.stride + n) = hsum(acc[r]) + offsets[r];
        }
    }
}

/// Scale, offset and the 32 codes of one block (Q4_1 codes unsigned 0..15; Q4_0 and Q8_0 signed).
#[inline(always)]
unsafe fn decode<const F: u8>(block: *const u8) -> (f32, f32, __m256i) {
    // SAFETY: `block` points at a whole block of format F.
    unsafe {
        if F == Q4_1 {
            let dm = _mm_cvtph_ps(_mm_cvtsi32_si128(std::ptr::read_unaligned(block as *const i32)));
            (_mm_cvtss_f32(dm), _mm_cvtss_f32(_mm_movehdup_ps(dm)), nibbles(block.add(4)))
        } else {
            let d = _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(i32::from(std::ptr::read_unaligned(block as *const u16)))));
            let q = if F == Q8_0 {
                _mm256_loadu_si256(block.add(2) as *const __m256i)
            } else {
                _mm256_sub_epi8(nibbles(block.add(2)), _mm256_set1_epi8(8))
            };
            (d, 0.0, q)
        }
    }
}

/// 16 bytes of packed nibbles -> 32 bytes in GGML element order (low nibbles first, then high nibbles).
#[inline(always)]
unsafe fn nibbles(p: *const u8) -> __m256i {
    // SAFETY: 16 readable bytes at `p`.
    unsafe {
        let lo = _mm_loadu_si128(p as *const __m128i);
        let hi = _mm_srli_epi16(lo, 4);
        _mm256_and_si256(_mm256_set_m128i(hi, lo), _mm256_set1_epi8(0x0F))
    }
}

/// Sum of 32 products of unsigned bytes `u` and signed bytes `s`, as 8 float lanes (exact: every partial sum
/// fits int16 because |u| <= 128 and |s| <= 127 pairwise sum to at most 32,512).
#[inline(always)]
unsafe fn dot_u8_i8(u: __m256i, s: __m256i) -> __m256 {
    let pairs = _mm256_maddubs_epi16(u, s);
    _mm256_cvtepi32_ps(_mm256_madd_epi16(pairs, _mm256_set1_epi16(1)))
}

/// Signed x signed through the unsigned x signed instruction: |x| * (y with x's sign).
#[inline(always)]
unsafe fn dot_i8_i8(x: __m256i, y: __m256i) -> __m256 {
    // SAFETY: register-only intrinsics (the caller's target features).
    unsafe { dot_u8_i8(_mm256_sign_epi8(x, x), _mm256_sign_epi8(y, x)) }
}

/// Horizontal sum in one fixed order.
#[inline(always)]
unsafe fn hsum(v: __m256) -> f32 {
    let s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    let s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    let s = _mm_add_ss(s, _mm_movehdup_ps(s));
    _mm_cvtss_f32(s)
}

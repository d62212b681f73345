//! The AVX2 + FMA + F16C block matmul (x86-64): the same arithmetic per output element as the scalar reference up
//! to fp32 summation order, and one fixed order for a given element whatever the rows or columns around it.
//!
//! Per 32-weight block: unpack the codes once (nibbles to bytes), then for each row of the tile one `vpmaddubsw` +
//! `vpmaddwd` integer dot product (8 int32 lanes), converted and fused-multiply-added into that row's 8-lane
//! accumulator with the block's scale `d_w * d_x`; Q4_1's offset adds `m_w * s_x` to a scalar per row. Tiles are
//! up to 4 rows x 1 column: the rows share each unpacked block (verification passes).
//!
//! K-quants (256-weight super-blocks): the same per 32-weight sub-block, with the integer sub-scale multiplied in
//! by the `vpmaddwd` that sums the pairs (Q4_K: its 6-bit scale on all 16 pairs; Q6_K: one 8-bit scale per 16-weight
//! half, which is one 128-bit lane), so each sub-block's sum is exact in int32 before the one float FMA with
//! `d_super * d_x`; Q4_K's min adds `-dmin * min * s_x` per row like Q4_1's offset.
//!
//! Measured alternatives (2-vCPU AMD EPYC, Zen 3, one thread, cargo run --release --example kernel_probe):
//! 2-column tiles were 10-40% slower (8 vector + 8 scalar accumulators spill registers), 6-row tiles no faster;
//! reducing 8 blocks' exact integer sums together before one conversion and FMA (fewer instructions per row and
//! block on paper) was no faster at K = 1536 and 1.7x slower at K = 576, whose 18 blocks leave a partial group.

use std::arch::x86_64::*;
use std::ops::Range;

use super::block_format::{q4k_scale_min, BlockFormat, BLOCK};
use super::block_matrix::BlockMatrix;
use super::q8_rows::Q8Rows;

const Q4_0: u8 = 0;
const Q4_1: u8 = 1;
const Q8_0: u8 = 2;
const Q4_K: u8 = 3;
const Q6_K: u8 = 4;

/// See [`super::block_matmul::matmul_columns`] (same contract; the CPU must have AVX2, FMA and F16C).
pub(super) unsafe fn matmul_columns(w: &BlockMatrix, x: &Q8Rows, cols: Range<usize>, y: *mut f32, stride: usize) {
    // SAFETY: the caller checked the CPU features and the buffer contract.
    unsafe {
        match w.format() {
            BlockFormat::Q4_0 => rows::<Q4_0>(w, x, cols, y, stride),
            BlockFormat::Q4_1 => rows::<Q4_1>(w, x, cols, y, stride),
            BlockFormat::Q8_0 => rows::<Q8_0>(w, x, cols, y, stride),
            BlockFormat::Q4_K => rows::<Q4_K>(w, x, cols, y, stride),
            BlockFormat::Q6_K => rows::<Q6_K>(w, x, cols, y, stride),
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
    let blocks = w.k() / w.format().block_weights();
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
        unsafe {
            if F == Q4_K || F == Q6_K {
                column_k::<F, R>(ops, n, r0)
            } else {
                column::<F, R>(ops, n, r0)
            }
        }
    }
}

/// Output elements `y[r0..r0+R, n]` of a K-quant matrix: `ops.blocks` super-blocks of 8 sub-blocks each; the
/// activations' block of sub-block j of super-block b is `8 b + j`.
#[inline(always)]
unsafe fn column_k<const F: u8, const R: usize>(ops: Operands, n: usize, r0: usize) {
    const SUB: usize = 8;
    let xblocks = ops.blocks * SUB;
    // SAFETY: every pointer below stays inside the buffers `rows` built `ops` from (caller contract).
    unsafe {
        let mut acc = [_mm256_setzero_ps(); R];
        let mut offsets = [0f32; R];
        for b in 0..ops.blocks {
            let block = ops.weights.add(n * ops.row_len + b * ops.block_bytes);
            let d = if F == Q4_K { f16(block) } else { f16(block.add(208)) };
            let dmin = if F == Q4_K { f16(block.add(2)) } else { 0.0 };
            // Q4_K: the eight 6-bit (scale, min) pairs, unpacked once per super-block
            let mut sc = [0u8; SUB];
            let mut mins = [0f32; SUB];
            if F == Q4_K {
                let packed: [u8; 12] = std::ptr::read_unaligned(block.add(4) as *const [u8; 12]);
                for j in 0..SUB {
                    let (s, m) = q4k_scale_min(&packed, j);
                    sc[j] = s;
                    mins[j] = -(dmin * f32::from(m));
                }
            }
            for j in 0..SUB {
                let (qx, scales, min) = if F == Q4_K {
                    let packed = _mm256_loadu_si256(block.add(16 + 32 * (j / 2)) as *const __m256i);
                    let shifted = if j % 2 == 1 { _mm256_srli_epi16(packed, 4) } else { packed };
                    (_mm256_and_si256(shifted, _mm256_set1_epi8(0x0F)), _mm256_set1_epi16(i16::from(sc[j])), mins[j])
                } else {
                    (q6k_codes(block, j), q6k_half_scales(block, j), 0.0)
                };
                for r in 0..R {
                    let i = (r0 + r) * xblocks + b * SUB + j;
                    let qy = _mm256_loadu_si256(ops.codes.add(i * BLOCK) as *const __m256i);
                    // Q4_K codes are unsigned nibbles; Q6_K's q - 32 are signed (the sign trick, as for Q8_0)
                    let pairs = if F == Q4_K {
                        _mm256_maddubs_epi16(qx, qy)
                    } else {
                        _mm256_maddubs_epi16(_mm256_sign_epi8(qx, qx), _mm256_sign_epi8(qy, qx))
                    };
                    let p = _mm256_cvtepi32_ps(_mm256_madd_epi16(pairs, scales));
                    acc[r] = _mm256_fmadd_ps(_mm256_set1_ps(d * *ops.scales.add(i)), p, acc[r]);
                    if F == Q4_K {
                        offsets[r] += min * *ops.sums.add(i);
                    }
                }
            }
        }
        for r in 0..R {
            *ops.y.add((r0 + r) * ops.stride + n) = hsum(acc[r]) + offsets[r];
        }
    }
}

/// An fp16 at `p`, widened.
#[inline(always)]
unsafe fn f16(p: *const u8) -> f32 {
    // SAFETY: two readable bytes at `p`; F16C is enabled by the callers.
    unsafe { _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(i32::from(std::ptr::read_unaligned(p as *const u16))))) }
}

/// Q6_K sub-block `j`'s 32 codes `q - 32` as signed bytes (layout: [`crate::kernels::block_format`]).
#[inline(always)]
unsafe fn q6k_codes(block: *const u8, j: usize) -> __m256i {
    let (half, s) = (j / 4, j % 4);
    // SAFETY: a whole Q6_K block at `block`: ql bytes 0..128, qh bytes 128..192.
    unsafe {
        let ql = _mm256_loadu_si256(block.add(64 * half + 32 * (s % 2)) as *const __m256i);
        let qh = _mm256_loadu_si256(block.add(128 + 32 * half) as *const __m256i);
        let low = if s >= 2 { _mm256_srli_epi16(ql, 4) } else { ql };
        let low = _mm256_and_si256(low, _mm256_set1_epi8(0x0F));
        let high = _mm256_and_si256(_mm256_srl_epi16(qh, _mm_cvtsi32_si128(2 * s as i32)), _mm256_set1_epi8(3));
        let q = _mm256_or_si256(low, _mm256_slli_epi16(high, 4));
        _mm256_sub_epi8(q, _mm256_set1_epi8(32))
    }
}

/// Q6_K sub-block `j`'s two 16-weight scales as int16 lanes: the low 128 bits (weights 0..15) the first.
#[inline(always)]
unsafe fn q6k_half_scales(block: *const u8, j: usize) -> __m256i {
    // SAFETY: scales at bytes 192..208 of the block.
    unsafe {
        let lo = i16::from(*block.add(192 + 2 * j) as i8);
        let hi = i16::from(*block.add(193 + 2 * j) as i8);
        _mm256_set_m128i(_mm_set1_epi16(hi), _mm_set1_epi16(lo))
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

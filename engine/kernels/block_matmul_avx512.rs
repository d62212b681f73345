//! The AVX-512 VNNI block matmul over 16-column panels ([`PanelMatrix`], x86-64): bit-identical to the scalar
//! reference (engine/kernels/block_matmul.rs), so a model gives the same numbers on this path as the portable one,
//! and, like it, each output element depends only on its own row.
//!
//! Per 32-weight sub-block of a panel: the 8 code vectors are unpacked once (4-bit formats: two per 64 bytes), then
//! for each row of the tile 8 `vpdpbusd` multiply them with the row's 32 activation codes, 4 at a time broadcast to
//! the 16 columns' lanes: lane `c` holds column `c`'s exact integer sum (two chains of 4, inputs 0..16 and 16..32,
//! for the latency and for Q6_K's two half scales). The integer fix-ups are exact too: the zero point times the
//! activations' integer half sums, Q4_K's sub-scale (`vpmulld`), Q6_K's two half scales. Then the float part, in
//! the scalar reference's order and rounding: `acc += (d * d_x) * isum` and `off += m * s_x` as separate multiplies
//! and adds (no FMA), `y = acc + off`, 16 columns per instruction.
//!
//! Instruction count per row and 32-weight block of one column: ~2 (the block layout's AVX2 kernel: ~15), which is
//! what lets one core keep up with the memory bus at decode and makes a k-row verify pass cost far less than k
//! one-row passes (docs/KERNELS.md has the measured curve).

use std::arch::x86_64::*;
use std::ops::Range;

use super::block_format::{BlockFormat, BLOCK};
use super::panel_matrix::{self, PanelMatrix, PANEL};
use super::panel_operands::{format_of, prefetch, Operands, Q4_0, Q4_1, Q4_K, Q6_K, Q8_0};
use super::q8_rows::Q8Rows;

/// Most rows per tile: the rows of a tile share each unpacked sub-block (8 code vectors in registers). Up to
/// [`INLINE_OFFSET_ROWS`] rows a tile keeps each row's offset accumulator (Q4_1, Q4_K) in the walk; wider tiles add
/// the offsets in a second walk over the block headers, which leaves the rows' accumulators, the 8 code vectors and
/// the temporaries (nearly) inside the 32 vector registers: 12 rows spill a few and still measured best on a Zen 4
/// (docs/KERNELS.md "Wider tiles").
const TILE: usize = 12;
/// Widest tile that keeps the offset term in the main walk (decode and 2-4-row passes: unchanged code).
const INLINE_OFFSET_ROWS: usize = 4;

/// Computes panels `panels` (columns `16p..16p+16` each) of `y = x @ W^T` for every row of `x`, writing
/// `y[r * stride + n]` for the columns `n < N` of those panels.
///
/// # Safety
/// The CPU must have AVX-512 F, BW and VNNI; `y` must be valid for writes at `r * stride + n` for every row `r`
/// and column `n` of those panels, with no other thread touching them; `x.blocks_per_row() * 32 == w.k()` and
/// `panels.end <= w.n() / 16`.
pub(super) unsafe fn matmul_panels(w: &PanelMatrix, x: &Q8Rows, panels: Range<usize>, y: *mut f32, stride: usize) {
    // SAFETY: forwarded from the caller.
    unsafe {
        match w.format() {
            BlockFormat::Q4_0 => rows::<Q4_0>(w, x, panels, y, stride),
            BlockFormat::Q4_1 => rows::<Q4_1>(w, x, panels, y, stride),
            BlockFormat::Q8_0 => rows::<Q8_0>(w, x, panels, y, stride),
            BlockFormat::Q4_K => rows::<Q4_K>(w, x, panels, y, stride),
            BlockFormat::Q6_K => rows::<Q6_K>(w, x, panels, y, stride),
        }
    }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
unsafe fn rows<const F: u8>(w: &PanelMatrix, x: &Q8Rows, panels: Range<usize>, y: *mut f32, stride: usize) {
    let ops = Operands::new(w, x, y, stride);
    for p in panels {
        let mut r0 = 0;
        while r0 < x.rows() {
            let left = x.rows() - r0;
            // One tile for up to 12 rows (a 5-row pass was a 4-row tile plus a 1-row tile: the panel unpacked and
            // walked twice, and a lone row costs ~1.7x a row inside a tile); 13-24 rows as two near-equal tiles.
            let rows = if left <= TILE {
                left
            } else if left <= 2 * TILE {
                left.div_ceil(2)
            } else {
                TILE
            };
            // SAFETY: rows r0..r0 + rows exist in `x`, panel p exists in `w` (caller contract).
            unsafe {
                match rows {
                    1 => tile::<F, 1>(ops, p, r0),
                    2 => tile::<F, 2>(ops, p, r0),
                    3 => tile::<F, 3>(ops, p, r0),
                    4 => tile::<F, 4>(ops, p, r0),
                    5 => tile::<F, 5>(ops, p, r0),
                    6 => tile::<F, 6>(ops, p, r0),
                    7 => tile::<F, 7>(ops, p, r0),
                    8 => tile::<F, 8>(ops, p, r0),
                    9 => tile::<F, 9>(ops, p, r0),
                    10 => tile::<F, 10>(ops, p, r0),
                    11 => tile::<F, 11>(ops, p, r0),
                    _ => tile::<F, TILE>(ops, p, r0),
                }
            }
            r0 += rows;
        }
    }
}

/// Output elements `y[r0..r0+R, 16p..16p+16]`.
#[inline(always)]
unsafe fn tile<const F: u8, const R: usize>(ops: Operands, p: usize, r0: usize) {
    let format = format_of(F);
    let has_m = F == Q4_1 || F == Q4_K;
    // the offset term in the walk (narrow tiles) or in a second walk over the headers (wide tiles)
    let inline_m = has_m && R <= INLINE_OFFSET_ROWS;
    let sub = format.sub_blocks();
    let (header, sub_scales, code_bytes) =
        (panel_matrix::header_bytes(format), panel_matrix::sub_scale_bytes(format), panel_matrix::code_bytes(format));
    let block_stride = panel_matrix::block_stride(format);
    // SAFETY: every pointer below stays inside the panel and the activation buffers (caller contract).
    unsafe {
        let base = ops.weights.add(p * ops.panel_bytes);
        let mut acc = [_mm512_setzero_ps(); R];
        let mut off = [_mm512_setzero_ps(); R];
        for b in 0..ops.blocks {
            let blk = base.add(b * block_stride);
            let dv = _mm512_cvtph_ps(_mm256_loadu_si256(blk as *const __m256i));
            let mv = if inline_m { _mm512_cvtph_ps(_mm256_loadu_si256(blk.add(2 * PANEL) as *const __m256i)) } else { _mm512_setzero_ps() };
            for j in 0..sub {
                let at = blk.add(header + j * (sub_scales + code_bytes));
                // Per-column integer scales (K-quants) and the float offset of this sub-block.
                let (s_lo, s_hi, m) = match F {
                    Q4_K => {
                        let sc = _mm512_cvtepu8_epi32(_mm_loadu_si128(at as *const __m128i));
                        let m = if inline_m { q4_k_offset(mv, at) } else { _mm512_setzero_ps() };
                        (sc, sc, m)
                    }
                    Q6_K => (
                        _mm512_cvtepi8_epi32(_mm_loadu_si128(at as *const __m128i)),
                        _mm512_cvtepi8_epi32(_mm_loadu_si128(at.add(PANEL) as *const __m128i)),
                        mv,
                    ),
                    _ => (_mm512_setzero_si512(), _mm512_setzero_si512(), mv),
                };
                prefetch(at, sub_scales + code_bytes, ops.prefetch);
                let v = codes::<F>(at.add(sub_scales));
                for r in 0..R {
                    let i = (r0 + r) * ops.xblocks + b * sub + j;
                    let a = ops.codes.add(i * BLOCK) as *const i32;
                    // inputs 0..16 and 16..32 of the 16 columns, exact integer sums
                    let mut lo = _mm512_dpbusd_epi32(_mm512_setzero_si512(), v[0], bcast(a, 0));
                    let mut hi = _mm512_dpbusd_epi32(_mm512_setzero_si512(), v[4], bcast(a, 4));
                    for g in 1..4 {
                        lo = _mm512_dpbusd_epi32(lo, v[g], bcast(a, g));
                        hi = _mm512_dpbusd_epi32(hi, v[g + 4], bcast(a, g + 4));
                    }
                    let (hs_lo, hs_hi) = (*ops.half_sums.add(2 * i), *ops.half_sums.add(2 * i + 1));
                    let isum = match F {
                        Q4_1 => _mm512_add_epi32(lo, hi),
                        Q4_0 => _mm512_sub_epi32(_mm512_add_epi32(lo, hi), _mm512_set1_epi32(8 * (hs_lo + hs_hi))),
                        Q8_0 => _mm512_sub_epi32(_mm512_add_epi32(lo, hi), _mm512_set1_epi32(128 * (hs_lo + hs_hi))),
                        Q4_K => _mm512_mullo_epi32(_mm512_add_epi32(lo, hi), s_lo),
                        _ => _mm512_add_epi32(
                            _mm512_mullo_epi32(_mm512_sub_epi32(lo, _mm512_set1_epi32(32 * hs_lo)), s_lo),
                            _mm512_mullo_epi32(_mm512_sub_epi32(hi, _mm512_set1_epi32(32 * hs_hi)), s_hi),
                        ),
                    };
                    let dd = _mm512_mul_ps(dv, _mm512_set1_ps(*ops.scales.add(i)));
                    acc[r] = _mm512_add_ps(acc[r], _mm512_mul_ps(dd, _mm512_cvtepi32_ps(isum)));
                    if inline_m {
                        off[r] = _mm512_add_ps(off[r], _mm512_mul_ps(m, _mm512_set1_ps(*ops.sums.add(i))));
                    }
                }
            }
        }
        if has_m && !inline_m {
            // The same products added in the same block order as the inline form: `off` is its own accumulator,
            // so computing it after `acc` changes no bit.
            for b in 0..ops.blocks {
                let blk = base.add(b * block_stride);
                let mv = _mm512_cvtph_ps(_mm256_loadu_si256(blk.add(2 * PANEL) as *const __m256i));
                for j in 0..sub {
                    let m = if F == Q4_K { q4_k_offset(mv, blk.add(header + j * (sub_scales + code_bytes))) } else { mv };
                    for (r, o) in off.iter_mut().enumerate() {
                        let i = (r0 + r) * ops.xblocks + b * sub + j;
                        *o = _mm512_add_ps(*o, _mm512_mul_ps(m, _mm512_set1_ps(*ops.sums.add(i))));
                    }
                }
            }
        }
        let lanes = (ops.n - p * PANEL).min(PANEL);
        let keep: __mmask16 = if lanes == PANEL { 0xFFFF } else { (1u16 << lanes) - 1 };
        for r in 0..R {
            _mm512_mask_storeu_ps(ops.y.add((r0 + r) * ops.stride + p * PANEL), keep, _mm512_add_ps(acc[r], off[r]));
        }
    }
}

/// Q4_K's float offset factor of one sub-block (`at`: its sub-scales, mins `PANEL` bytes on): `-(dmin * min)`,
/// negated by flipping the sign bit like the scalar `-x`.
#[inline(always)]
unsafe fn q4_k_offset(dmin: __m512, at: *const u8) -> __m512 {
    // SAFETY: the sub-block's 2 x PANEL scale bytes are readable at `at` (caller contract).
    unsafe {
        let mins = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_loadu_si128(at.add(PANEL) as *const __m128i)));
        _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(_mm512_mul_ps(dmin, mins)), _mm512_set1_epi32(i32::MIN)))
    }
}

/// The 8 code vectors of one sub-block of 16 columns (vector g: inputs 4g..4g+4 of every column).
#[inline(always)]
unsafe fn codes<const F: u8>(at: *const u8) -> [__m512i; 8] {
    // SAFETY: the sub-block's code bytes (panel_matrix::code_bytes) are readable at `at`.
    unsafe {
        let mut v = [_mm512_setzero_si512(); 8];
        if F != Q8_0 {
            let mask = _mm512_set1_epi8(0x0F);
            for h in 0..4 {
                let packed = _mm512_loadu_si512(at.add(64 * h) as *const _);
                v[h] = _mm512_and_si512(packed, mask);
                v[h + 4] = _mm512_and_si512(_mm512_srli_epi16(packed, 4), mask);
            }
            if F == Q6_K {
                // bits 4..5 of vector g are bits 2(g % 4).. of byte group g / 4: moved to 4..5 by a 16-bit shift
                // (bits crossing a byte are masked off), then `low | (shifted & 0x30)` in one vpternlogd
                let high = [_mm512_loadu_si512(at.add(256) as *const _), _mm512_loadu_si512(at.add(320) as *const _)];
                let m30 = _mm512_set1_epi8(0x30);
                for (g, o) in v.iter_mut().enumerate() {
                    let q = high[g / 4];
                    let shifted = match g % 4 {
                        0 => _mm512_slli_epi16(q, 4),
                        1 => _mm512_slli_epi16(q, 2),
                        2 => q,
                        _ => _mm512_srli_epi16(q, 2),
                    };
                    *o = _mm512_ternarylogic_epi32(*o, shifted, m30, 0xF8);
                }
            }
        } else {
            for (g, o) in v.iter_mut().enumerate() {
                *o = _mm512_loadu_si512(at.add(64 * g) as *const _);
            }
        }
        v
    }
}

/// Activation codes `4g..4g+4` of a block (`a`: its 32 codes as 8 int32) in every lane.
#[inline(always)]
unsafe fn bcast(a: *const i32, g: usize) -> __m512i {
    // SAFETY: g < 8 and `a` points at 32 readable bytes.
    unsafe { _mm512_set1_epi32(std::ptr::read_unaligned(a.add(g))) }
}

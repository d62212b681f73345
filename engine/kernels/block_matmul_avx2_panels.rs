//! The AVX2 block matmul over the same 16-column panels as the AVX-512 VNNI kernel ([`PanelMatrix`], x86-64), for
//! CPUs without AVX-512 VNNI (Zen 3, client cores): each panel is walked as two 8-column halves, whose bytes are
//! the low and high 32 bytes of every 64-byte panel vector. Bit-identical to the scalar reference, like the
//! AVX-512 kernel: the same exact integer sums, the same float order.
//!
//! Without `vpdpbusd` the 4-input groups are multiplied by `vpmaddubsw` (unsigned codes x signed activations into
//! exact int16 pair sums) and `vpmaddwd` by ones. 4-bit codes let a sub-block's pair sums add up in int16 first
//! (four groups in the one-row kernel, |sum| <= 4 x 2 x 15 x 127 = 15,240; all eight in the multi-row tiles,
//! <= 30,480), one `vpmaddwd` per chain; Q6_K's 6-bit codes add two groups (2 x 63 x 127 = 16,002 per pair,
//! 32,004 for two: too large to add four).
//!
//! Q8_0's stored codes (`q + 128`, up to 255) would saturate `vpmaddubsw` as they are, so they are turned back
//! into the signed `q` (one xor) and multiplied by the sign trick: `|q|` (unsigned, <= 128) times the activation
//! with `q`'s sign moved onto it (`vpsignb`; activation codes are within +-127, so negating one never wraps):
//! each pair sum is within 2 x 128 x 127 = 32,512, exact in int16, widened per group. The sum is `q . x` itself, so
//! no zero-point fix-up follows. Measured on an AMD EPYC Zen 3 (2026-12-05, `kernel_probe`, one row, one thread,
//! 1536 -> 17920): the block-layout AVX2 kernel Q8_0 had 3,295 us (8.9 GB/s of weights) where the 4-bit panels ran
//! at 23-26 GB/s; SmolLM2's tied 49,152 x 576 output head is Q8_0.

use std::arch::x86_64::*;
use std::ops::Range;

use super::block_format::{BlockFormat, BLOCK};
use super::panel_matrix::{self, PanelMatrix, PANEL};
use super::panel_operands::{format_of, prefetch, Operands, Q4_0, Q4_1, Q4_K, Q6_K, Q8_0};
use super::q8_rows::Q8Rows;

/// Columns per half panel (one 256-bit vector of int32 or float lanes).
const HALF: usize = PANEL / 2;
/// Rows per tile of Q8_0 and Q6_K (their tiles keep 2-3 vectors per row live).
const TILE: usize = 4;
/// Rows per tile of the 4-bit formats, whose tile keeps 2 vectors per row live ([`tile_4bit`]).
const WIDE_TILE: usize = 6;

/// The most rows one tile of format `F` takes.
const fn tile_rows_of(f: u8) -> usize {
    if f == Q8_0 || f == Q6_K {
        TILE
    } else {
        WIDE_TILE
    }
}

/// See [`super::block_matmul_avx512::matmul_panels`] (same contract; the CPU must have AVX2, FMA and F16C).
pub(super) unsafe fn matmul_panels(w: &PanelMatrix, x: &Q8Rows, panels: Range<usize>, y: *mut f32, stride: usize) {
    // SAFETY: forwarded from the caller.
    unsafe {
        match w.format() {
            BlockFormat::Q4_0 => rows::<Q4_0>(w, x, panels, y, stride),
            BlockFormat::Q4_1 => rows::<Q4_1>(w, x, panels, y, stride),
            BlockFormat::Q4_K => rows::<Q4_K>(w, x, panels, y, stride),
            BlockFormat::Q6_K => rows::<Q6_K>(w, x, panels, y, stride),
            BlockFormat::Q8_0 => rows::<Q8_0>(w, x, panels, y, stride),
        }
    }
}

#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn rows<const F: u8>(w: &PanelMatrix, x: &Q8Rows, panels: Range<usize>, y: *mut f32, stride: usize) {
    let ops = Operands::new(w, x, y, stride);
    for p in panels {
        // The first rows of a pass take both halves of the panel in one walk over K: each 64-byte panel line holds
        // 32 bytes of either half, so walking the halves one after the other streamed every line from memory with
        // half its bytes used, then read it again from cache. Decode (one row) always did this; since 2026-12-05
        // the first 1-4 rows of a verify pass do too (4 rows x 2 halves spill some accumulators and still measured
        // faster than 2 + 2 or one half at a time: docs/KERNELS.md "Verify passes in one walk"), and the rest of
        // the rows find the panel in cache and take the wide half-panel tiles. Same operations per output, in the
        // same order (the bits are equal).
        let (both, left) = (p * PANEL + HALF < ops.n, x.rows());
        let first = match (both, F == Q6_K) {
            (false, _) => 0,
            // Q6_K keeps 3 vectors per row and half: 2 rows of both halves measured 4-6% faster than the 2-row
            // tile of one half (Qwen, pass_cost); 1-2 more rows in cache after them cost more than a 3-4 row tile
            // of one half, so 3+ rows stay half by half
            (true, true) if left > 2 => 0,
            (true, _) => left.min(4),
        };
        // SAFETY: rows 0..first exist in `x`, both halves of panel p hold columns below N (caller contract).
        unsafe {
            match first {
                0 => {}
                1 => tile::<F, 1, 2>(ops, p, 0, 0),
                2 => tile_rows::<F, 2, 2>(ops, p, 0, 0),
                3 => tile_rows::<F, 3, 2>(ops, p, 0, 0),
                _ => tile_rows::<F, 4, 2>(ops, p, 0, 0),
            }
        }
        if first == left {
            continue;
        }
        for h in 0..2 {
            if p * PANEL + h * HALF >= ops.n {
                break;
            }
            let mut r0 = first;
            while r0 < left {
                let take = (left - r0).min(tile_rows_of(F));
                // SAFETY: rows r0..r0 + take exist in `x`, panel p exists in `w` (caller contract).
                unsafe {
                    match take {
                        1 => tile::<F, 1, 1>(ops, p, h, r0),
                        2 => tile_rows::<F, 2, 1>(ops, p, h, r0),
                        3 => tile_rows::<F, 3, 1>(ops, p, h, r0),
                        4 => tile_rows::<F, 4, 1>(ops, p, h, r0),
                        5 => tile_rows::<F, 5, 1>(ops, p, h, r0),
                        _ => tile_rows::<F, WIDE_TILE, 1>(ops, p, h, r0),
                    }
                }
                r0 += take;
            }
        }
    }
}

/// What every tile reads before its loops: the format's byte layout in a panel block (panel_matrix's) and how far
/// ahead it prefetches.
#[derive(Clone, Copy)]
struct TileLayout {
    /// Sub-blocks per stored block (8 for the K-quants, else 1).
    sub: usize,
    /// Bytes of the block header (scales of all 16 columns).
    header: usize,
    /// Bytes of a sub-block's own scales before its codes (K-quants).
    sub_scales: usize,
    /// Bytes of a sub-block's codes.
    code_bytes: usize,
    /// Bytes from one stored block of the panel to the next.
    block_stride: usize,
    /// Prefetch distance in bytes (0: none).
    ahead: usize,
}

impl TileLayout {
    #[inline(always)]
    fn new(format: BlockFormat, ops: &Operands, h: usize, r0: usize) -> Self {
        TileLayout {
            sub: format.sub_blocks(),
            header: panel_matrix::header_bytes(format),
            sub_scales: panel_matrix::sub_scale_bytes(format),
            code_bytes: panel_matrix::code_bytes(format),
            block_stride: panel_matrix::block_stride(format),
            // Only the first pass over a panel (half 0, the first row tile) streams it from memory; the second
            // half and later row tiles find its bytes in cache, so they issue no prefetches.
            ahead: if h == 0 && r0 == 0 { ops.prefetch } else { 0 },
        }
    }
}

/// A multi-row tile (R rows of `H` halves from half `h`), group by group: each format's own loop below.
#[inline(always)]
unsafe fn tile_rows<const F: u8, const R: usize, const H: usize>(ops: Operands, p: usize, h: usize, r0: usize) {
    // SAFETY: forwarded from `rows`.
    unsafe {
        match F {
            Q8_0 => tile_q8_0::<R, H>(ops, p, h, r0),
            Q6_K => tile_q6_k::<R, H>(ops, p, h, r0),
            _ => tile_4bit::<F, R, H>(ops, p, h, r0),
        }
    }
}

/// Output elements `y[r0..r0+R, 16p + 8h .. 16p + 8(h + H)]` (those below N): `H` halves from half `h`, each
/// sub-block's halves taken one after the other. Since the multi-row tiles got their own group-by-group loops
/// ([`tile_rows`]), this serves one-row passes only (`R = 1`: decode with `H = 2`, a pass's last odd row with
/// `H = 1`); `R` stays a parameter so its loops read as the multi-row ones.
#[inline(always)]
unsafe fn tile<const F: u8, const R: usize, const H: usize>(ops: Operands, p: usize, h0: usize, r0: usize) {
    let has_m = F == Q4_1 || F == Q4_K;
    let TileLayout { sub, header, sub_scales, code_bytes, block_stride, ahead } = TileLayout::new(format_of(F), &ops, h0, r0);
    // SAFETY: every pointer below stays inside the panel and the activation buffers (caller contract).
    unsafe {
        let base = ops.weights.add(p * ops.panel_bytes);
        let mut acc = [[_mm256_setzero_ps(); R]; H];
        let mut off = [[_mm256_setzero_ps(); R]; H];
        for b in 0..ops.blocks {
            let blk = base.add(b * block_stride);
            // the block header's scales of each half, read once per block (a K-quant block has 8 sub-blocks)
            let mut dvs = [_mm256_setzero_ps(); H];
            let mut mvs = [_mm256_setzero_ps(); H];
            for hh in 0..H {
                let h = h0 + hh;
                dvs[hh] = _mm256_cvtph_ps(_mm_loadu_si128(blk.add(2 * HALF * h) as *const __m128i));
                if has_m {
                    mvs[hh] = _mm256_cvtph_ps(_mm_loadu_si128(blk.add(2 * PANEL + 2 * HALF * h) as *const __m128i));
                }
            }
            for j in 0..sub {
                for hh in 0..H {
                    let h = h0 + hh;
                    let (acc, off) = (&mut acc[hh], &mut off[hh]);
                    let (dv, mv) = (dvs[hh], mvs[hh]);
                    let at = blk.add(header + j * (sub_scales + code_bytes));
                    let bytes8 = |o: usize| _mm_loadl_epi64(at.add(o + HALF * h) as *const __m128i);
                    let (s_lo, s_hi, m) = match F {
                        Q4_K => {
                            let sc = _mm256_cvtepu8_epi32(bytes8(0));
                            (sc, sc, q4_k_offsets(mv, at, h))
                        }
                        Q6_K => (_mm256_cvtepi8_epi32(bytes8(0)), _mm256_cvtepi8_epi32(bytes8(PANEL)), mv),
                        _ => (_mm256_setzero_si256(), _mm256_setzero_si256(), mv),
                    };
                    if hh == 0 {
                        prefetch(at, sub_scales + code_bytes, ahead);
                    }
                    let v = codes::<F>(at.add(sub_scales), h);
                    // Q8_0: |q| once per sub-block (the unsigned operand); each row's activations take q's sign
                    let abs_q = if F == Q8_0 { v.map(|q| _mm256_sign_epi8(q, q)) } else { v };
                    for r in 0..R {
                        let i = (r0 + r) * ops.xblocks + b * sub + j;
                        let a = ops.codes.add(i * BLOCK) as *const i32;
                        let ones = _mm256_set1_epi16(1);
                        let mut pairs = [_mm256_setzero_si256(); 8];
                        for (k, o) in pairs.iter_mut().enumerate() {
                            *o = if F == Q8_0 {
                                _mm256_maddubs_epi16(abs_q[k], _mm256_sign_epi8(bcast(a, k), v[k]))
                            } else {
                                _mm256_maddubs_epi16(v[k], bcast(a, k))
                            };
                        }
                        let (lo, hi) = if F == Q6_K {
                            // two groups' exact pair sums add up in int16 (6-bit codes: |sum| <= 2 x 16,002)
                            let sum2 = |a: __m256i, b: __m256i| _mm256_madd_epi16(_mm256_add_epi16(a, b), ones);
                            (
                                _mm256_add_epi32(sum2(pairs[0], pairs[1]), sum2(pairs[2], pairs[3])),
                                _mm256_add_epi32(sum2(pairs[4], pairs[5]), sum2(pairs[6], pairs[7])),
                            )
                        } else if F == Q8_0 {
                            let mut q = [_mm256_setzero_si256(); 8];
                            for (o, &pk) in q.iter_mut().zip(&pairs) {
                                *o = _mm256_madd_epi16(pk, ones);
                            }
                            (
                                _mm256_add_epi32(_mm256_add_epi32(q[0], q[1]), _mm256_add_epi32(q[2], q[3])),
                                _mm256_add_epi32(_mm256_add_epi32(q[4], q[5]), _mm256_add_epi32(q[6], q[7])),
                            )
                        } else {
                            // four groups' exact pair sums add up in int16 (4-bit codes: |sum| <= 15,240)
                            let sum4 = |a: __m256i, b: __m256i, c: __m256i, d: __m256i| {
                                _mm256_madd_epi16(_mm256_add_epi16(_mm256_add_epi16(a, b), _mm256_add_epi16(c, d)), ones)
                            };
                            (sum4(pairs[0], pairs[1], pairs[2], pairs[3]), sum4(pairs[4], pairs[5], pairs[6], pairs[7]))
                        };
                        let isum = combine::<F>(lo, hi, s_lo, s_hi, *ops.half_sums.add(2 * i), *ops.half_sums.add(2 * i + 1));
                        let dd = _mm256_mul_ps(dv, _mm256_set1_ps(*ops.scales.add(i)));
                        acc[r] = _mm256_add_ps(acc[r], _mm256_mul_ps(dd, _mm256_cvtepi32_ps(isum)));
                        if has_m {
                            off[r] = _mm256_add_ps(off[r], _mm256_mul_ps(m, _mm256_set1_ps(*ops.sums.add(i))));
                        }
                    }
                }
            }
        }
        for hh in 0..H {
            store(ops, p, h0 + hh, r0, &acc[hh], &off[hh]);
        }
    }
}

/// The multi-row tile of the 4-bit formats (Q4_0, Q4_1, Q4_K), group by group like [`tile_q8_0`]: one packed
/// load gives groups g and g + 4 (low and high nibbles), each multiplied into the row's ONE int16 sum of all 8
/// groups before the next load (exact: |sum| <= 8 x 2 x 15 x 127 = 30,480 whatever the order of the adds; test
/// `four_bit_extreme_codes_do_not_overflow_the_avx2_int16_sums`), then one `vpmaddwd` widens it. The offset term
/// (`m` times the activations' block sums: Q4_1, Q4_K) runs in a second walk over the panel's headers, so the
/// first walk keeps only 2 vectors per row and half live (the int16 sum and the scale accumulator): with the sums
/// of groups 0-3 and 4-7 apart and the offsets inside, a 4-row tile needed 16 accumulators, every AVX2 register,
/// and the compiler spilled them on every sub-block; now tiles take up to [`WIDE_TILE`] rows of one half, or 2-4
/// rows of both halves (`H = 2`: the first rows of a pass, which stream the panel from memory). The float steps
/// of each accumulator are [`tile`]'s, in its order, so the bits are the same. Measured in docs/KERNELS.md
/// ("Verify passes in one walk").
#[inline(always)]
unsafe fn tile_4bit<const F: u8, const R: usize, const H: usize>(ops: Operands, p: usize, h0: usize, r0: usize) {
    let has_m = F == Q4_1 || F == Q4_K;
    let TileLayout { sub, header, sub_scales, code_bytes, block_stride, ahead } = TileLayout::new(format_of(F), &ops, h0, r0);
    // SAFETY: every pointer below stays inside the panel and the activation buffers (caller contract).
    unsafe {
        let base = ops.weights.add(p * ops.panel_bytes);
        let mask = _mm256_set1_epi8(0x0F);
        let ones = _mm256_set1_epi16(1);
        let mut acc = [[_mm256_setzero_ps(); R]; H];
        for b in 0..ops.blocks {
            let blk = base.add(b * block_stride);
            let mut dv = [_mm256_setzero_ps(); H];
            for (hh, dv) in dv.iter_mut().enumerate() {
                *dv = _mm256_cvtph_ps(_mm_loadu_si128(blk.add(2 * HALF * (h0 + hh)) as *const __m128i));
            }
            for j in 0..sub {
                let at = blk.add(header + j * (sub_scales + code_bytes));
                let mut sc = [_mm256_setzero_si256(); H];
                if F == Q4_K {
                    for (hh, sc) in sc.iter_mut().enumerate() {
                        *sc = _mm256_cvtepu8_epi32(_mm_loadl_epi64(at.add(HALF * (h0 + hh)) as *const __m128i));
                    }
                }
                prefetch(at, sub_scales + code_bytes, ahead);
                let codes_at = at.add(sub_scales);
                let i0 = r0 * ops.xblocks + b * sub + j;
                let mut sum16 = [[_mm256_setzero_si256(); R]; H];
                for g in 0..4 {
                    for (hh, sum16) in sum16.iter_mut().enumerate() {
                        let packed = _mm256_loadu_si256(codes_at.add(64 * g + 32 * (h0 + hh)) as *const __m256i);
                        let (lo, hi) = (_mm256_and_si256(packed, mask), _mm256_and_si256(_mm256_srli_epi16(packed, 4), mask));
                        for (r, sum) in sum16.iter_mut().enumerate() {
                            let a = ops.codes.add((i0 + r * ops.xblocks) * BLOCK) as *const i32;
                            let pair = _mm256_add_epi16(_mm256_maddubs_epi16(lo, bcast(a, g)), _mm256_maddubs_epi16(hi, bcast(a, g + 4)));
                            *sum = _mm256_add_epi16(*sum, pair);
                        }
                    }
                }
                for hh in 0..H {
                    for (r, acc) in acc[hh].iter_mut().enumerate() {
                        let i = i0 + r * ops.xblocks;
                        // all 8 groups in one int32 vector: `combine`'s lo + hi with hi = 0 (the same integers)
                        let isum = combine::<F>(
                            _mm256_madd_epi16(sum16[hh][r], ones),
                            _mm256_setzero_si256(),
                            sc[hh],
                            sc[hh],
                            *ops.half_sums.add(2 * i),
                            *ops.half_sums.add(2 * i + 1),
                        );
                        let dd = _mm256_mul_ps(dv[hh], _mm256_set1_ps(*ops.scales.add(i)));
                        *acc = _mm256_add_ps(*acc, _mm256_mul_ps(dd, _mm256_cvtepi32_ps(isum)));
                    }
                }
            }
        }
        for (hh, acc) in acc.iter().enumerate() {
            let h = h0 + hh;
            let mut off = [_mm256_setzero_ps(); R];
            if has_m {
                for b in 0..ops.blocks {
                    let blk = base.add(b * block_stride);
                    let mv = _mm256_cvtph_ps(_mm_loadu_si128(blk.add(2 * PANEL + 2 * HALF * h) as *const __m128i));
                    for j in 0..sub {
                        let m = if F == Q4_K { q4_k_offsets(mv, blk.add(header + j * (sub_scales + code_bytes)), h) } else { mv };
                        let i0 = r0 * ops.xblocks + b * sub + j;
                        for (r, off) in off.iter_mut().enumerate() {
                            *off = _mm256_add_ps(*off, _mm256_mul_ps(m, _mm256_set1_ps(*ops.sums.add(i0 + r * ops.xblocks))));
                        }
                    }
                }
            }
            store(ops, p, h, r0, acc, &off);
        }
    }
}

/// Q6_K's multi-row tile, group pair by group pair like [`tile_4bit`]: groups 2g and 2g + 1 are decoded (low
/// nibbles plus their two high bits), multiplied into every row's int16 pair sums (two groups: |sum| <= 32,004,
/// exact) and widened into the row's int32 sums of groups 0-3 or 4-7. Same integers and float steps as [`tile`].
/// `H = 2` takes both halves of the panel in one walk (two-row passes only: 3 live vectors per row and half).
#[inline(always)]
unsafe fn tile_q6_k<const R: usize, const H: usize>(ops: Operands, p: usize, h0: usize, r0: usize) {
    let TileLayout { sub, header, sub_scales, code_bytes, block_stride, ahead } = TileLayout::new(BlockFormat::Q6_K, &ops, h0, r0);
    // SAFETY: every pointer below stays inside the panel and the activation buffers (caller contract).
    unsafe {
        let base = ops.weights.add(p * ops.panel_bytes);
        let (mask, m30, ones) = (_mm256_set1_epi8(0x0F), _mm256_set1_epi8(0x30), _mm256_set1_epi16(1));
        let mut acc = [[_mm256_setzero_ps(); R]; H];
        for b in 0..ops.blocks {
            let blk = base.add(b * block_stride);
            for j in 0..sub {
                let at = blk.add(header + j * (sub_scales + code_bytes));
                prefetch(at, sub_scales + code_bytes, ahead);
                let codes_at = at.add(sub_scales);
                let i0 = r0 * ops.xblocks + b * sub + j;
                let mut lo = [[_mm256_setzero_si256(); R]; H];
                let mut hi = [[_mm256_setzero_si256(); R]; H];
                for gp in 0..4 {
                    for hh in 0..H {
                        let h = h0 + hh;
                        let (v0, v1) = (q6_k_code(codes_at, h, 2 * gp, mask, m30), q6_k_code(codes_at, h, 2 * gp + 1, mask, m30));
                        for r in 0..R {
                            let a = ops.codes.add((i0 + r * ops.xblocks) * BLOCK) as *const i32;
                            let pair = _mm256_add_epi16(_mm256_maddubs_epi16(v0, bcast(a, 2 * gp)), _mm256_maddubs_epi16(v1, bcast(a, 2 * gp + 1)));
                            let wide = _mm256_madd_epi16(pair, ones);
                            if gp < 2 {
                                lo[hh][r] = _mm256_add_epi32(lo[hh][r], wide);
                            } else {
                                hi[hh][r] = _mm256_add_epi32(hi[hh][r], wide);
                            }
                        }
                    }
                }
                for (hh, acc) in acc.iter_mut().enumerate() {
                    let h = h0 + hh;
                    let dv = _mm256_cvtph_ps(_mm_loadu_si128(blk.add(2 * HALF * h) as *const __m128i));
                    let bytes8 = |o: usize| _mm_loadl_epi64(at.add(o + HALF * h) as *const __m128i);
                    let (s_lo, s_hi) = (_mm256_cvtepi8_epi32(bytes8(0)), _mm256_cvtepi8_epi32(bytes8(PANEL)));
                    for (r, acc) in acc.iter_mut().enumerate() {
                        let i = i0 + r * ops.xblocks;
                        let isum = combine::<Q6_K>(lo[hh][r], hi[hh][r], s_lo, s_hi, *ops.half_sums.add(2 * i), *ops.half_sums.add(2 * i + 1));
                        let dd = _mm256_mul_ps(dv, _mm256_set1_ps(*ops.scales.add(i)));
                        *acc = _mm256_add_ps(*acc, _mm256_mul_ps(dd, _mm256_cvtepi32_ps(isum)));
                    }
                }
            }
        }
        // Q6_K has no offset term: y = acc + 0, as in `tile`
        for (hh, acc) in acc.iter().enumerate() {
            store(ops, p, h0 + hh, r0, acc, &[_mm256_setzero_ps(); R]);
        }
    }
}

/// Q6_K group `g` of half `h` of a sub-block's codes: its low nibbles (vector g % 4; the high nibble for g >= 4)
/// with bits 4-5 from the high-bit vector g / 4. A function, not a closure: closures do not take the callers'
/// `target_feature`, and this one, left out of line, cost 10x on 3+ row tiles (kernel_probe).
#[inline(always)]
unsafe fn q6_k_code(codes_at: *const u8, h: usize, g: usize, mask: __m256i, m30: __m256i) -> __m256i {
    // SAFETY: the sub-block's code bytes (panel_matrix::code_bytes) are readable at `codes_at`.
    unsafe {
        let load = |o: usize| _mm256_loadu_si256(codes_at.add(o + 32 * h) as *const __m256i);
        let packed = load(64 * (g % 4));
        let low = if g < 4 { packed } else { _mm256_srli_epi16(packed, 4) };
        let q = load(256 + 64 * (g / 4));
        let shifted = match g % 4 {
            0 => _mm256_slli_epi16(q, 4),
            1 => _mm256_slli_epi16(q, 2),
            2 => q,
            _ => _mm256_srli_epi16(q, 2),
        };
        _mm256_or_si256(_mm256_and_si256(low, mask), _mm256_and_si256(shifted, m30))
    }
}

/// Q8_0's multi-row tile (`y[r0..r0+R, 16p + 8h0 .. 16p + 8(h0 + H)]`), group by group: each 4-input group's
/// codes are loaded, flipped to the signed `q` and made `|q|` once, then multiplied into every row's int32 sum
/// before the next group. [`tile`]'s row-by-row order kept all 8 groups' `q` and `|q|` live across the rows (16
/// vectors: every AVX2 register), so the compiler spilled them; here the live set is R x H sums, R x H
/// accumulators and 2 code vectors (`H = 2`: both halves of the panel in one walk, for the first rows of a pass).
/// The integer sums are exact in any order and the float steps are [`tile`]'s, so the bits are the same.
#[inline(always)]
unsafe fn tile_q8_0<const R: usize, const H: usize>(ops: Operands, p: usize, h0: usize, r0: usize) {
    let TileLayout { header, code_bytes, block_stride, ahead, .. } = TileLayout::new(BlockFormat::Q8_0, &ops, h0, r0);
    // SAFETY: every pointer below stays inside the panel and the activation buffers (caller contract).
    unsafe {
        let base = ops.weights.add(p * ops.panel_bytes);
        let flip = _mm256_set1_epi8(i8::MIN);
        let ones = _mm256_set1_epi16(1);
        let mut acc = [[_mm256_setzero_ps(); R]; H];
        for b in 0..ops.blocks {
            let blk = base.add(b * block_stride);
            let at = blk.add(header);
            prefetch(at, code_bytes, ahead);
            let i0 = r0 * ops.xblocks + b;
            let mut isum = [[_mm256_setzero_si256(); R]; H];
            for g in 0..8 {
                for (hh, isum) in isum.iter_mut().enumerate() {
                    let q = _mm256_xor_si256(_mm256_loadu_si256(at.add(64 * g + 32 * (h0 + hh)) as *const __m256i), flip);
                    let abs_q = _mm256_sign_epi8(q, q);
                    for (r, sum) in isum.iter_mut().enumerate() {
                        let a = ops.codes.add((i0 + r * ops.xblocks) * BLOCK) as *const i32;
                        let pairs = _mm256_maddubs_epi16(abs_q, _mm256_sign_epi8(bcast(a, g), q));
                        *sum = _mm256_add_epi32(*sum, _mm256_madd_epi16(pairs, ones));
                    }
                }
            }
            for (hh, acc) in acc.iter_mut().enumerate() {
                let dv = _mm256_cvtph_ps(_mm_loadu_si128(blk.add(2 * HALF * (h0 + hh)) as *const __m128i));
                for (r, acc) in acc.iter_mut().enumerate() {
                    let dd = _mm256_mul_ps(dv, _mm256_set1_ps(*ops.scales.add(i0 + r * ops.xblocks)));
                    *acc = _mm256_add_ps(*acc, _mm256_mul_ps(dd, _mm256_cvtepi32_ps(isum[hh][r])));
                }
            }
        }
        // y = acc + off with off = 0 (Q8_0 has no offset term), as in `tile`
        for (hh, acc) in acc.iter().enumerate() {
            store(ops, p, h0 + hh, r0, acc, &[_mm256_setzero_ps(); R]);
        }
    }
}

/// A sub-block's exact integer dot products of 8 columns from the two int32 halves of its pair sums (groups 0-3,
/// 4-7): the format's zero-point fix-up from the activations' half-block sums (`hs_*`) and its sub-scales
/// (`s_*`, Q4_K and Q6_K).
#[inline(always)]
unsafe fn combine<const F: u8>(lo: __m256i, hi: __m256i, s_lo: __m256i, s_hi: __m256i, hs_lo: i32, hs_hi: i32) -> __m256i {
    // SAFETY: register arithmetic only (AVX2 is enabled by the callers).
    unsafe {
        match F {
            Q4_1 | Q8_0 => _mm256_add_epi32(lo, hi),
            Q4_0 => _mm256_sub_epi32(_mm256_add_epi32(lo, hi), _mm256_set1_epi32(8 * (hs_lo + hs_hi))),
            Q4_K => _mm256_mullo_epi32(_mm256_add_epi32(lo, hi), s_lo),
            _ => _mm256_add_epi32(
                _mm256_mullo_epi32(_mm256_sub_epi32(lo, _mm256_set1_epi32(32 * hs_lo)), s_lo),
                _mm256_mullo_epi32(_mm256_sub_epi32(hi, _mm256_set1_epi32(32 * hs_hi)), s_hi),
            ),
        }
    }
}

/// Writes `y[r0..r0+R, 16p + 8h ..] = acc + off` (the columns below N).
#[inline(always)]
unsafe fn store<const R: usize>(ops: Operands, p: usize, h: usize, r0: usize, acc: &[__m256; R], off: &[__m256; R]) {
    let col = p * PANEL + h * HALF;
    let lanes = (ops.n - col).min(HALF);
    // SAFETY: rows r0..r0+R of y hold `lanes` columns from `col` (caller contract).
    unsafe {
        for r in 0..R {
            let out = _mm256_add_ps(acc[r], off[r]);
            let dst = ops.y.add((r0 + r) * ops.stride + col);
            if lanes == HALF {
                _mm256_storeu_ps(dst, out);
            } else {
                let mut tmp = [0f32; HALF];
                _mm256_storeu_ps(tmp.as_mut_ptr(), out);
                std::ptr::copy_nonoverlapping(tmp.as_ptr(), dst, lanes);
            }
        }
    }
}

/// The 8 code vectors of half `h` of one sub-block (vector g: inputs 4g..4g+4 of 8 columns); Q8_0's as the
/// signed `q` (the stored `q + 128` with its top bit flipped).
#[inline(always)]
unsafe fn codes<const F: u8>(at: *const u8, h: usize) -> [__m256i; 8] {
    // SAFETY: the sub-block's code bytes (panel_matrix::code_bytes) are readable at `at`.
    unsafe {
        let load = |o: usize| _mm256_loadu_si256(at.add(o + 32 * h) as *const __m256i);
        if F == Q8_0 {
            let flip = _mm256_set1_epi8(i8::MIN);
            let mut v = [_mm256_setzero_si256(); 8];
            for (g, o) in v.iter_mut().enumerate() {
                *o = _mm256_xor_si256(load(64 * g), flip);
            }
            return v;
        }
        let mask = _mm256_set1_epi8(0x0F);
        let mut v = [_mm256_setzero_si256(); 8];
        for g in 0..4 {
            let packed = load(64 * g);
            v[g] = _mm256_and_si256(packed, mask);
            v[g + 4] = _mm256_and_si256(_mm256_srli_epi16(packed, 4), mask);
        }
        if F == Q6_K {
            let high = [load(256), load(320)];
            let m30 = _mm256_set1_epi8(0x30);
            for (g, o) in v.iter_mut().enumerate() {
                let q = high[g / 4];
                let shifted = match g % 4 {
                    0 => _mm256_slli_epi16(q, 4),
                    1 => _mm256_slli_epi16(q, 2),
                    2 => q,
                    _ => _mm256_srli_epi16(q, 2),
                };
                *o = _mm256_or_si256(*o, _mm256_and_si256(shifted, m30));
            }
        }
        v
    }
}

/// Q4_K's offset factors of half `h` of the sub-block at `at`: `-(dmin x min)` per column (the sign flipped by
/// an xor, exact), from the block's `dmin` row `mv` and the sub-block's 6-bit minimums.
#[inline(always)]
unsafe fn q4_k_offsets(mv: __m256, at: *const u8, h: usize) -> __m256 {
    // SAFETY: the sub-block's minimums (8 bytes per half, PANEL bytes after its scales) are readable at `at`.
    unsafe {
        let mins = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64(at.add(PANEL + HALF * h) as *const __m128i)));
        _mm256_castsi256_ps(_mm256_xor_si256(_mm256_castps_si256(_mm256_mul_ps(mv, mins)), _mm256_set1_epi32(i32::MIN)))
    }
}

/// Activation codes `4g..4g+4` of a block in every lane.
#[inline(always)]
unsafe fn bcast(a: *const i32, g: usize) -> __m256i {
    // SAFETY: g < 8 and `a` points at 32 readable bytes.
    unsafe { _mm256_set1_epi32(std::ptr::read_unaligned(a.add(g))) }
}

//! Activation rows quantized to 8-bit blocks of 32 (scale d, codes q) plus each block's exact float sum s: the
//! operand the block matmul multiplies with integer dot products, as llama.cpp's Q8_1 does for Q4_1 weights, but
//! with fp32 `d` and the UNquantized sum for Q4_1's offset term (`m * sum(x)`, exact where llama.cpp uses
//! `m * d * sum(q)`): measured on SmolLM2, this halves the disagreement with the float model. Each row is quantized on its own, so a row's codes never depend on the other rows of the pass:
//! the first half of the block matmul's batch invariance.

use super::block_format::BLOCK;

/// Quantized activation rows; the buffers are reused across calls (no allocation once grown).
#[derive(Debug, Default, Clone)]
pub struct Q8Rows {
    rows: usize,
    blocks_per_row: usize,
    codes: Vec<i8>,
    scales: Vec<f32>,
    sums: Vec<f32>,
    /// Integer sums of the codes of each 16-code half block (two per block): what the panel kernel subtracts
    /// for weights stored with an unsigned offset (engine/kernels/panel_matrix.rs).
    half_sums: Vec<i32>,
}

impl Q8Rows {
    /// Empty buffers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Quantizes `x` (`rows` x `k`, row-major; `k` a multiple of 32) in place of the previous contents.
    ///
    /// # Panics
    /// If `k` is not a multiple of 32 or `x.len() != rows * k` (the operator checks both first).
    pub fn quantize(&mut self, x: &[f32], rows: usize, k: usize) {
        assert!(k.is_multiple_of(BLOCK) && x.len() == rows * k, "Q8Rows::quantize: {} values for {rows} x {k}", x.len());
        self.resize(rows, k);
        let simd = has_avx2();
        for (i, block) in x.chunks_exact(BLOCK).enumerate() {
            let q = quantize_any(simd, block, &mut self.codes[i * BLOCK..(i + 1) * BLOCK]);
            self.scales[i] = q.scale;
            self.sums[i] = q.sum;
            self.half_sums[2 * i] = q.half_sums.0;
            self.half_sums[2 * i + 1] = q.half_sums.1;
        }
    }

    /// Sizes the buffers for `rows x k` (a multiple of 32) and returns a writer through which parallel tasks
    /// quantize the rows, each row by one task: the same codes as [`Q8Rows::quantize`] of the whole matrix.
    /// Rows never written keep stale values.
    pub fn row_writer(&mut self, rows: usize, k: usize) -> Q8RowWriter {
        assert!(k.is_multiple_of(BLOCK), "Q8Rows::row_writer: k = {k} is not a multiple of {BLOCK}");
        self.resize(rows, k);
        Q8RowWriter {
            rows,
            blocks_per_row: k / BLOCK,
            simd: has_avx2(),
            codes: self.codes.as_mut_ptr(),
            scales: self.scales.as_mut_ptr(),
            sums: self.sums.as_mut_ptr(),
            half_sums: self.half_sums.as_mut_ptr(),
        }
    }

    /// Sets the shape to `rows x k` and sizes the buffers to it (capacity is kept: no allocation once grown).
    fn resize(&mut self, rows: usize, k: usize) {
        let nb = k / BLOCK;
        self.rows = rows;
        self.blocks_per_row = nb;
        self.codes.resize(rows * k, 0);
        self.scales.resize(rows * nb, 0.0);
        self.sums.resize(rows * nb, 0.0);
        self.half_sums.resize(rows * nb * 2, 0);
    }

    /// Rows held (see [`Q8Rows::quantize`]).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Blocks per row (`k / 32`).
    pub fn blocks_per_row(&self) -> usize {
        self.blocks_per_row
    }

    /// The 32 codes of block `b` of row `r`.
    #[inline]
    pub fn codes(&self, r: usize, b: usize) -> &[i8] {
        let i = (r * self.blocks_per_row + b) * BLOCK;
        &self.codes[i..i + BLOCK]
    }

    /// All codes, row-major (`rows * k`).
    #[inline]
    pub fn all_codes(&self) -> &[i8] {
        &self.codes[..self.rows * self.blocks_per_row * BLOCK]
    }

    /// Scale `d` of block `b` of row `r`.
    #[inline]
    pub fn scale(&self, r: usize, b: usize) -> f32 {
        self.scales[r * self.blocks_per_row + b]
    }

    /// All scales, row-major (`rows * k / 32`).
    #[inline]
    pub fn all_scales(&self) -> &[f32] {
        &self.scales[..self.rows * self.blocks_per_row]
    }

    /// The float sum of block `b` of row `r` (what a Q4_1 offset `m` multiplies).
    #[inline]
    pub fn sum(&self, r: usize, b: usize) -> f32 {
        self.sums[r * self.blocks_per_row + b]
    }

    /// All block sums, row-major.
    #[inline]
    pub fn all_sums(&self) -> &[f32] {
        &self.sums[..self.rows * self.blocks_per_row]
    }

    /// Integer sums of the codes of block `b` of row `r`: (codes 0..16, codes 16..32).
    #[inline]
    pub fn half_sums(&self, r: usize, b: usize) -> (i32, i32) {
        let i = 2 * (r * self.blocks_per_row + b);
        (self.half_sums[i], self.half_sums[i + 1])
    }

    /// All half-block code sums, row-major (`2 * rows * k / 32`).
    #[inline]
    pub fn all_half_sums(&self) -> &[i32] {
        &self.half_sums[..2 * self.rows * self.blocks_per_row]
    }
}

/// Quantizes single rows of a [`Q8Rows`] from several threads (see [`Q8Rows::row_writer`]); valid while the
/// `Q8Rows` it came from is neither used nor dropped (the borrow checker cannot see the raw pointers: the caller
/// drops the writer before reading the rows).
pub struct Q8RowWriter {
    rows: usize,
    blocks_per_row: usize,
    simd: bool,
    codes: *mut i8,
    scales: *mut f32,
    sums: *mut f32,
    half_sums: *mut i32,
}

// SAFETY: rows are disjoint parts of the buffers and `quantize_row`'s contract gives each row to one caller.
unsafe impl Sync for Q8RowWriter {}

impl Q8RowWriter {
    /// Quantizes `x` (one row of `k` values) into row `r`.
    ///
    /// # Safety
    /// No other call may write row `r` concurrently, and the `Q8Rows` this writer came from must be alive and
    /// untouched until every call has returned.
    ///
    /// # Panics
    /// If `r` is out of range or `x` is not one row long.
    pub unsafe fn quantize_row(&self, r: usize, x: &[f32]) {
        let nb = self.blocks_per_row;
        assert!(r < self.rows && x.len() == nb * BLOCK, "Q8RowWriter: row {r} of {} with {} values", self.rows, x.len());
        for (b, block) in x.chunks_exact(BLOCK).enumerate() {
            let i = r * nb + b;
            // SAFETY: block i belongs to row r, which only this call writes; the buffers hold rows x nb blocks.
            unsafe {
                let codes = std::slice::from_raw_parts_mut(self.codes.add(i * BLOCK), BLOCK);
                let q = quantize_any(self.simd, block, codes);
                *self.scales.add(i) = q.scale;
                *self.sums.add(i) = q.sum;
                *self.half_sums.add(2 * i) = q.half_sums.0;
                *self.half_sums.add(2 * i + 1) = q.half_sums.1;
            }
        }
    }
}

/// Whether the AVX2 block quantizer runs here.
fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// One block through the AVX2 quantizer when `simd` (from [`has_avx2`]), else the portable one: bit-identical.
#[inline]
fn quantize_any(simd: bool, block: &[f32], codes: &mut [i8]) -> BlockStats {
    #[cfg(target_arch = "x86_64")]
    if simd {
        // SAFETY: AVX2 detected by the caller; both slices hold one block.
        return unsafe { quantize_block_avx2(block, codes) };
    }
    let _ = simd;
    quantize_block(block, codes)
}

/// One quantized block's scale, float sum and integer half sums (its codes are written in place).
struct BlockStats {
    scale: f32,
    sum: f32,
    half_sums: (i32, i32),
}

/// The portable quantizer of one 32-value block: `d = max|v| / 127`, `codes = round_ties_even(v / d)` (`as`
/// saturates and maps NaN to 0; |v * id| <= 127 up to rounding), the float sum in the SIMD path's order (lane l =
/// ((v_l + v_{l+8}) + v_{l+16}) + v_{l+24}, then lanes l and l + 4, then 0+2 and 1+3, then the two), and the
/// integer sums of codes 0..16 and 16..32.
fn quantize_block(block: &[f32], codes: &mut [i8]) -> BlockStats {
    let amax = block.iter().fold(0.0f32, |a, v| a.max(v.abs()));
    let d = amax / 127.0;
    let id = if d != 0.0 { 1.0 / d } else { 0.0 };
    for (q, v) in codes.iter_mut().zip(block) {
        *q = (v * id).round_ties_even() as i8;
    }
    let lane = |l: usize| ((block[l] + block[l + 8]) + block[l + 16]) + block[l + 24];
    let t: [f32; 4] = std::array::from_fn(|l| lane(l) + lane(l + 4));
    let sum = (t[0] + t[2]) + (t[1] + t[3]);
    let half = |h: &[i8]| h.iter().map(|&c| i32::from(c)).sum::<i32>();
    BlockStats { scale: d, sum, half_sums: (half(&codes[..BLOCK / 2]), half(&codes[BLOCK / 2..])) }
}

/// [`quantize_block`] 8 lanes at a time, bit for bit: the same max (order-free), products and round-half-to-even
/// (`vroundps`; `round_ties_even` compiles to a libm call without SSE4.1), the same sum order; codes packed with
/// saturating packs (exact: |code| <= 127). Measured on a NAT pass (44 rows x 256): the per-value scalar loops
/// took ~10% of the int8 encoder's time, all on one thread before the kernel's parallel part.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn quantize_block_avx2(block: &[f32], codes: &mut [i8]) -> BlockStats {
    use std::arch::x86_64::*;
    // SAFETY: 32 floats in, 32 bytes out (BLOCK), unaligned loads/stores.
    unsafe {
        let p = block.as_ptr();
        let v = [_mm256_loadu_ps(p), _mm256_loadu_ps(p.add(8)), _mm256_loadu_ps(p.add(16)), _mm256_loadu_ps(p.add(24))];
        let abs = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFF_FFFF));
        // max(|x|, acc) returns acc when |x| is NaN, like f32::max
        let mut m = _mm256_setzero_ps();
        for x in v {
            m = _mm256_max_ps(_mm256_and_ps(x, abs), m);
        }
        let m = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
        let m = _mm_max_ps(m, _mm_movehl_ps(m, m));
        let amax = _mm_cvtss_f32(_mm_max_ss(m, _mm_movehdup_ps(m)));
        let d = amax / 127.0;
        let id = _mm256_set1_ps(if d != 0.0 { 1.0 / d } else { 0.0 });
        let mut r = [_mm256_setzero_si256(); 4];
        for (o, x) in r.iter_mut().zip(v) {
            let q = _mm256_round_ps(_mm256_mul_ps(x, id), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
            // NaN -> 0 like `as`
            *o = _mm256_cvtps_epi32(_mm256_and_ps(q, _mm256_cmp_ps(q, q, _CMP_ORD_Q)));
        }
        let packed = _mm256_packs_epi16(_mm256_packs_epi32(r[0], r[1]), _mm256_packs_epi32(r[2], r[3]));
        let ordered = _mm256_permutevar8x32_epi32(packed, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        _mm256_storeu_si256(codes.as_mut_ptr() as *mut __m256i, ordered);
        let hsum_i = |x: __m256i| {
            let s = _mm_add_epi32(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
            let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b01_00_11_10));
            _mm_cvtsi128_si32(_mm_add_epi32(s, _mm_shuffle_epi32(s, 0b10_11_00_01)))
        };
        let half_sums = (hsum_i(_mm256_add_epi32(r[0], r[1])), hsum_i(_mm256_add_epi32(r[2], r[3])));
        let a = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(v[0], v[1]), v[2]), v[3]);
        let t = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
        let t = _mm_add_ps(t, _mm_movehl_ps(t, t));
        let sum = _mm_cvtss_f32(_mm_add_ss(t, _mm_movehdup_ps(t)));
        BlockStats { scale: d, sum, half_sums }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantization_error_is_half_a_step_and_rows_are_independent() {
        let k = 64;
        let x: Vec<f32> = (0..3 * k).map(|i| ((i * 37 % 101) as f32 - 50.0) / 7.0).collect();
        let mut all = Q8Rows::new();
        all.quantize(&x, 3, k);
        for r in 0..3 {
            for b in 0..2 {
                let d = all.scale(r, b);
                for (j, &q) in all.codes(r, b).iter().enumerate() {
                    let v = x[r * k + b * 32 + j];
                    assert!((q as f32 * d - v).abs() <= d * 0.5 + 1e-6);
                }
                // the exact sum up to float rounding (the summation order is the SIMD path's, tested below)
                let s: f64 = x[r * k + b * 32..r * k + b * 32 + 32].iter().map(|&v| f64::from(v)).sum();
                assert!((f64::from(all.sum(r, b)) - s).abs() <= 1e-5 * s.abs().max(1.0), "{} vs {s}", all.sum(r, b));
                let c = all.codes(r, b);
                let half = |h: &[i8]| h.iter().map(|&v| i32::from(v)).sum::<i32>();
                assert_eq!(all.half_sums(r, b), (half(&c[..16]), half(&c[16..])));
            }
            // The same row quantized alone gives the same bits.
            let mut one = Q8Rows::new();
            one.quantize(&x[r * k..(r + 1) * k], 1, k);
            assert_eq!(one.all_codes(), &all.all_codes()[r * k..(r + 1) * k]);
            assert_eq!(one.all_scales(), &all.all_scales()[r * 2..(r + 1) * 2]);
        }
    }

    #[test]
    fn simd_quantization_equals_the_scalar_quantization_bit_for_bit() {
        // Ties (x.5) round to even on both paths; NaN maps to 0 and is ignored by the max; signed zeros, large and
        // tiny values; the float sum in the same order (bits compared).
        let mut blocks: Vec<Vec<f32>> = vec![(0..32).map(|i| i as f32 * 0.5 - 8.0).collect(), vec![0.0; 32], vec![-0.0; 32]];
        let mut s = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..500 {
            blocks.push(
                (0..32)
                    .map(|_| {
                        s ^= s << 13;
                        s ^= s >> 7;
                        s ^= s << 17;
                        f32::from_bits((s as u32 & 0x807F_FFFF) | ((110 + (s >> 40) as u32 % 30) << 23))
                    })
                    .collect(),
            );
        }
        blocks[4][7] = f32::NAN;
        let (mut a, mut b) = ([0i8; 32], [0i8; 32]);
        for block in &blocks {
            let x = quantize_block(block, &mut a);
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: AVX2 detected.
                let y = unsafe { quantize_block_avx2(block, &mut b) };
                assert_eq!(a, b);
                assert_eq!((x.scale.to_bits(), x.sum.to_bits(), x.half_sums), (y.scale.to_bits(), y.sum.to_bits(), y.half_sums));
            }
        }
        quantize_block(&blocks[0], &mut a);
        assert_eq!(&a[..4], &[-127, -119, -111, -103]); // -8, -7.5, -7, -6.5 on a scale of 8/127
        let mut t = [0i8; 32];
        let mut tie: Vec<f32> = (0..32).map(|i| i as f32 - 16.0).collect();
        tie[31] = 127.0; // d = 1: codes are the values, and x.5 ties go to even
        tie[0] = -7.5;
        tie[1] = -6.5;
        quantize_block(&tie, &mut t);
        assert_eq!(&t[..2], &[-8, -6]);
    }

    #[test]
    fn zero_and_non_finite_blocks_do_not_panic() {
        let mut q = Q8Rows::new();
        let mut x = vec![0.0f32; 64];
        x[40] = f32::NAN;
        q.quantize(&x, 1, 64);
        assert!(q.codes(0, 0).iter().all(|&c| c == 0));
        assert_eq!(q.scale(0, 0), 0.0);
    }
}

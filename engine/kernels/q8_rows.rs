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
        let nb = k / BLOCK;
        self.rows = rows;
        self.blocks_per_row = nb;
        self.codes.resize(rows * k, 0);
        self.scales.resize(rows * nb, 0.0);
        self.sums.resize(rows * nb, 0.0);
        self.half_sums.resize(rows * nb * 2, 0);
        #[cfg(target_arch = "x86_64")]
        let simd = std::arch::is_x86_feature_detected!("avx2");
        for (i, block) in x.chunks_exact(BLOCK).enumerate() {
            let amax = block.iter().fold(0.0f32, |a, v| a.max(v.abs()));
            let d = amax / 127.0;
            let id = if d != 0.0 { 1.0 / d } else { 0.0 };
            let codes = &mut self.codes[i * BLOCK..(i + 1) * BLOCK];
            #[cfg(target_arch = "x86_64")]
            if simd {
                // SAFETY: AVX2 detected; both slices hold one block.
                unsafe { round_block_avx2(block, id, codes) };
            } else {
                round_block(block, id, codes);
            }
            #[cfg(not(target_arch = "x86_64"))]
            round_block(block, id, codes);
            self.scales[i] = d;
            let (lo, hi) = codes.split_at(BLOCK / 2);
            self.half_sums[2 * i] = lo.iter().map(|&c| i32::from(c)).sum();
            self.half_sums[2 * i + 1] = hi.iter().map(|&c| i32::from(c)).sum();
            // Sequential float sum (the same on every path).
            self.sums[i] = block.iter().fold(0.0f32, |a, v| a + v);
        }
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

/// `codes = round_ties_even(v * id)` (`as` saturates and maps NaN to 0; |v * id| <= 127 up to rounding).
fn round_block(block: &[f32], id: f32, codes: &mut [i8]) {
    for (q, v) in codes.iter_mut().zip(block) {
        *q = (v * id).round_ties_even() as i8;
    }
}

/// [`round_block`] 8 lanes at a time: the same products and the same round-half-to-even (`vroundps`), so the
/// codes are identical; `round_ties_even` compiles to a libm call without SSE4.1 (5% of a decode step).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn round_block_avx2(block: &[f32], id: f32, codes: &mut [i8]) {
    use std::arch::x86_64::*;
    // SAFETY: 32 floats in, 32 bytes out (BLOCK), unaligned loads/stores.
    unsafe {
        let idv = _mm256_set1_ps(id);
        let mut q = [0i32; 8];
        for (c, chunk) in codes.chunks_exact_mut(8).enumerate() {
            let v = _mm256_mul_ps(_mm256_loadu_ps(block.as_ptr().add(c * 8)), idv);
            let r = _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
            // NaN -> 0 like `as`; the range is within +-127 so no saturation is needed.
            let r = _mm256_and_ps(r, _mm256_cmp_ps(r, r, _CMP_ORD_Q));
            _mm256_storeu_si256(q.as_mut_ptr() as *mut __m256i, _mm256_cvtps_epi32(r));
            for (o, &x) in chunk.iter_mut().zip(&q) {
                *o = x as i8;
            }
        }
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
                let s: f32 = x[r * k + b * 32..r * k + b * 32 + 32].iter().sum();
                assert_eq!(all.sum(r, b), s);
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
    fn simd_rounding_equals_the_scalar_rounding() {
        // Ties (x.5) must round to even on both paths; NaN maps to 0.
        let block: Vec<f32> = (0..32).map(|i| i as f32 * 0.5 - 8.0).collect();
        let (mut a, mut b) = ([0i8; 32], [0i8; 32]);
        round_block(&block, 1.0, &mut a);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 detected.
            unsafe { round_block_avx2(&block, 1.0, &mut b) };
            assert_eq!(a, b);
        }
        assert_eq!(&a[..4], &[-8, -8, -7, -6]); // -7.5 -> -8, -6.5 -> -6
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

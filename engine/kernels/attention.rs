//! Causal attention for one query row and one head, batch-invariant by construction: the row's scores, softmax
//! and weighted sum are computed in one fixed order over its visible keys, whatever the other rows of the pass.
//!
//! Why the engine has its own: ONNX Runtime's GroupQueryAttention (CPU) multiplies a one-row pass through another
//! GEMM path than a multi-row pass, so one-token decode steps differ from the rows of a k-token verification pass
//! (measured 2e-7..5e-7 on SmolLM2's shapes, enough to flip near-ties after int8 activations), and lossless
//! speculative pipelines had to pad every decode step to two rows (docs/KERNELS.md). With this kernel and the
//! block matmul, a decode step and a verification row are the same computation.
//!
//! The math is GroupQueryAttention's with the options the decoder contract uses: rotate-half rotary embedding at
//! explicit positions, scale 1/sqrt(head_dim), an additive bias row, keys `0..=past + row` visible.

/// Rotates `x` (one head, `head_dim` values) in place with rotate-half rope: `cos`/`sin` hold `head_dim / 2`
/// values for the token's position.
pub fn rope(x: &mut [f32], cos: &[f32], sin: &[f32]) {
    let half = x.len() / 2;
    let (lo, hi) = x.split_at_mut(half);
    for i in 0..half {
        let (a, b) = (lo[i], hi[i]);
        lo[i] = a * cos[i] - b * sin[i];
        hi[i] = b * cos[i] + a * sin[i];
    }
}

/// One query row against keys `0..visible` of one KV head: `out = softmax(q . k_j * scale + bias_j) v`.
///
/// `keys` and `values` hold at least `visible` rows of `q.len()` values; `bias` at least `visible` values;
/// `scores` is scratch of at least `visible` values; `out` gets `q.len()` values.
///
/// # Panics
/// If a slice is shorter than stated (the operator checks shapes first).
pub fn attend(q: &[f32], keys: &[f32], values: &[f32], bias: &[f32], visible: usize, scale: f32, scores: &mut [f32], out: &mut [f32]) {
    let d = q.len();
    assert!(keys.len() >= visible * d && values.len() >= visible * d && bias.len() >= visible && scores.len() >= visible);
    assert_eq!(out.len(), d);
    let scores = &mut scores[..visible];
    #[cfg(target_arch = "x86_64")]
    let simd = d.is_multiple_of(16) && super::Isa::detect() == super::Isa::Avx2;
    #[cfg(not(target_arch = "x86_64"))]
    let simd = false;
    for (j, s) in scores.iter_mut().enumerate() {
        let k = &keys[j * d..(j + 1) * d];
        #[cfg(target_arch = "x86_64")]
        let dot = if simd {
            // SAFETY: AVX2+FMA detected; both slices hold d values, d a multiple of 16.
            unsafe { avx2::dot(q, k) }
        } else {
            dot_scalar(q, k)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let dot = dot_scalar(q, k);
        *s = dot * scale + bias[j];
    }
    let max = scores.iter().fold(f32::NEG_INFINITY, |m, &s| m.max(s));
    let mut sum = 0.0f32;
    for s in scores.iter_mut() {
        *s = (*s - max).exp();
        sum += *s;
    }
    out.fill(0.0);
    for (j, &p) in scores.iter().enumerate() {
        let v = &values[j * d..(j + 1) * d];
        #[cfg(target_arch = "x86_64")]
        if simd {
            // SAFETY: as above.
            unsafe { avx2::axpy(p, v, out) };
            continue;
        }
        for (o, &x) in out.iter_mut().zip(v) {
            *o += p * x;
        }
    }
    let inv = 1.0 / sum;
    for o in out.iter_mut() {
        *o *= inv;
    }
}

fn dot_scalar(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).fold(0.0, |acc, (x, y)| acc + x * y)
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// Dot product of two equal-length slices (length a multiple of 16), two accumulators, fixed order.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn dot(a: &[f32], b: &[f32]) -> f32 {
        // SAFETY: the caller guarantees the lengths; loads are unaligned.
        unsafe {
            let (mut s0, mut s1) = (_mm256_setzero_ps(), _mm256_setzero_ps());
            let mut i = 0;
            while i < a.len() {
                s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a.as_ptr().add(i)), _mm256_loadu_ps(b.as_ptr().add(i)), s0);
                s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a.as_ptr().add(i + 8)), _mm256_loadu_ps(b.as_ptr().add(i + 8)), s1);
                i += 16;
            }
            let s = _mm256_add_ps(s0, s1);
            let s = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
            let s = _mm_add_ps(s, _mm_movehl_ps(s, s));
            _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)))
        }
    }

    /// `out += p * v` (lengths equal, a multiple of 16).
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn axpy(p: f32, v: &[f32], out: &mut [f32]) {
        // SAFETY: as `dot`.
        unsafe {
            let pv = _mm256_set1_ps(p);
            let mut i = 0;
            while i < v.len() {
                let o = out.as_mut_ptr().add(i);
                _mm256_storeu_ps(o, _mm256_fmadd_ps(pv, _mm256_loadu_ps(v.as_ptr().add(i)), _mm256_loadu_ps(o)));
                i += 8;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(n: usize, seed: usize) -> Vec<f32> {
        (0..n).map(|i| (((i * 7919 + seed * 104_729) % 1009) as f32 / 1009.0 - 0.5) * 2.0).collect()
    }

    #[test]
    fn attention_matches_a_float64_softmax() {
        let (d, t) = (64, 37);
        let (q, k, v) = (data(d, 1), data(t * d, 2), data(t * d, 3));
        let mut bias = vec![0.0f32; t];
        bias[5] = -1.0e9; // a hidden key (the engine's mask value is large and finite)
        bias[9] = 0.75;
        let mut scores = vec![0.0; t];
        let mut out = vec![0.0; d];
        let scale = 1.0 / (d as f32).sqrt();
        attend(&q, &k, &v, &bias, t, scale, &mut scores, &mut out);
        let s: Vec<f64> =
            (0..t).map(|j| (0..d).map(|c| f64::from(q[c]) * f64::from(k[j * d + c])).sum::<f64>() * f64::from(scale) + f64::from(bias[j])).collect();
        let m = s.iter().cloned().fold(f64::MIN, f64::max);
        let e: Vec<f64> = s.iter().map(|x| (x - m).exp()).collect();
        let z: f64 = e.iter().sum();
        for c in 0..d {
            let want: f64 = (0..t).map(|j| e[j] / z * f64::from(v[j * d + c])).sum();
            assert!((f64::from(out[c]) - want).abs() < 1e-5, "column {c}: {} vs {want}", out[c]);
        }
        assert!(e[5] / z < 1e-30, "the hidden key must get no weight");
    }

    #[test]
    fn rope_rotates_pairs_half_apart() {
        let mut x = vec![1.0f32, 2.0, 3.0, 4.0];
        rope(&mut x, &[0.0, 1.0], &[1.0, 0.0]);
        // pair (x0, x2) rotated by 90 degrees, pair (x1, x3) by 0
        assert_eq!(x, vec![-3.0, 2.0, 1.0, 4.0]);
    }
}

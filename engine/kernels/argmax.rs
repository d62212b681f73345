//! The argmax of each row of a score matrix, as greedy decoding reads it: the index of the largest value, the
//! FIRST one on ties, NaN never chosen, 0 when no value exceeds negative infinity (the convention of
//! `sampling::argmax`, which every AR reference in the engine uses).
//!
//! Why the engine has its own: a CTC NAT pass ends in an argmax over [positions x output vocabulary] scores, and
//! ONNX Runtime's ArgMax took 8-10% of the small NAT model's greedy pass (an ONNX Runtime profile over 200
//! sentences, docs/BENCHMARKS.md section 5); this one reads each row twice from L1/L2 with 8-wide compares.

/// First index of the largest value of `row` (scalar reference; see the module for the convention).
pub fn argmax_scalar(row: &[f32]) -> usize {
    let mut best = 0usize;
    let mut best_v = f32::NEG_INFINITY;
    for (i, &v) in row.iter().enumerate() {
        if v > best_v {
            best_v = v;
            best = i;
        }
    }
    best
}

/// First index of the largest value of `row` among the columns `allowed` marks (non-zero), in column order: the
/// same answer [`argmax`] gives on the row with only those columns, mapped back (NaN never chosen; the first
/// allowed column when no allowed value exceeds negative infinity, 0 when none is allowed). Why: a CTC NAT batch
/// computes the union of its sentences' output shortlists, and each sentence must choose among its own only, so
/// its output does not depend on its batch-mates (the server batches unrelated requests).
pub fn argmax_allowed(row: &[f32], allowed: &[u8]) -> usize {
    let mut best = usize::MAX;
    let mut best_v = f32::NEG_INFINITY;
    for (i, (&v, &a)) in row.iter().zip(allowed).enumerate() {
        if a != 0 {
            if best == usize::MAX {
                best = i;
            }
            if v > best_v {
                best_v = v;
                best = i;
            }
        }
    }
    if best == usize::MAX {
        0
    } else {
        best
    }
}

/// First index of the largest value of `row`, equal to [`argmax_scalar`] for every input (AVX2 where the CPU has it).
pub fn argmax(row: &[f32]) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        if row.len() >= 8 && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 is present.
            return unsafe { argmax_avx2(row) };
        }
    }
    argmax_scalar(row)
}

/// Two passes: the maximum over the non-NaN values, then the first index holding it. The same answer as the
/// scalar loop: its `v > best` keeps the first of equal maxima and never takes a NaN; -0.0 and +0.0 compare
/// equal in both, and when every value is NaN or -inf nothing beats the start value and the answer is 0.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn argmax_avx2(row: &[f32]) -> usize {
    use std::arch::x86_64::*;
    let n = row.len();
    let body = n - n % 8;
    let p = row.as_ptr();
    // SAFETY (whole body): every load reads 8 floats at an offset below `body` <= n.
    let mut acc = _mm256_set1_ps(f32::NEG_INFINITY);
    let mut i = 0;
    while i < body {
        // max_ps returns its second operand when either is NaN: with the data first, a NaN keeps `acc`.
        acc = _mm256_max_ps(unsafe { _mm256_loadu_ps(p.add(i)) }, acc);
        i += 8;
    }
    let mut lanes = [0f32; 8];
    unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), acc) };
    let mut max = f32::NEG_INFINITY;
    for v in lanes.into_iter().chain(row[body..].iter().copied()) {
        if v > max {
            max = v;
        }
    }
    if max == f32::NEG_INFINITY {
        return 0;
    }
    let target = _mm256_set1_ps(max);
    let mut i = 0;
    while i < body {
        let eq = _mm256_cmp_ps::<_CMP_EQ_OQ>(unsafe { _mm256_loadu_ps(p.add(i)) }, target);
        let bits = _mm256_movemask_ps(eq) as u32;
        if bits != 0 {
            return i + bits.trailing_zeros() as usize;
        }
        i += 8;
    }
    body + row[body..].iter().position(|&v| v == max).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_allowed_columns_argmax_is_the_argmax_of_those_columns_alone() {
        let row = [0.5f32, 3.0, f32::NAN, 3.0, -1.0, 2.0, f32::NEG_INFINITY, 7.0];
        let cases: [(&[usize], usize); 6] = [(&[0, 1, 2, 3, 4, 5, 6, 7], 7), (&[0, 2, 3, 5], 3), (&[1, 3], 1), (&[2, 4], 4), (&[2, 6], 2), (&[], 0)];
        for (cols, want) in cases {
            let mut allowed = [0u8; 8];
            for &c in cols {
                allowed[c] = 1;
            }
            assert_eq!(argmax_allowed(&row, &allowed), want, "{cols:?}");
            if !cols.is_empty() {
                // the same as the plain argmax over the sub-row, mapped back
                let sub: Vec<f32> = cols.iter().map(|&c| row[c]).collect();
                assert_eq!(cols[argmax_scalar(&sub)], want, "{cols:?}");
            }
        }
    }

    use super::*;

    fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    #[test]
    fn simd_argmax_equals_the_scalar_reference() {
        let mut seed = 0x9e3779b97f4a7c15u64;
        let specials = [f32::NAN, f32::NEG_INFINITY, f32::INFINITY, -0.0, 0.0, 1.0, -1.0];
        let mut checked = 0;
        for len in (1..40).chain([63, 64, 65, 576, 6580, 8193]) {
            for case in 0..40 {
                let row: Vec<f32> = (0..len)
                    .map(|_| {
                        let r = rng(&mut seed);
                        match case % 4 {
                            // few distinct values: many ties, the first must win
                            0 => (r % 3) as f32,
                            // specials sprinkled in
                            1 if r.is_multiple_of(5) => specials[(r >> 8) as usize % specials.len()],
                            // all NaN / -inf rows now and then
                            2 if case % 8 == 2 => [f32::NAN, f32::NEG_INFINITY][(r & 1) as usize],
                            _ => (r >> 40) as f32 / (1u64 << 20) as f32 - 8.0,
                        }
                    })
                    .collect();
                assert_eq!(argmax(&row), argmax_scalar(&row), "len {len} case {case}: {row:?}");
                checked += 1;
            }
        }
        assert!(checked > 1500);
    }

    #[test]
    fn ties_go_to_the_first_and_nan_is_never_chosen() {
        let mut row = vec![0.0f32; 33];
        row[9] = 2.0;
        row[30] = 2.0;
        row[3] = f32::NAN;
        assert_eq!(argmax(&row), 9);
        assert_eq!(argmax(&[f32::NAN; 17]), 0);
        assert_eq!(argmax(&[f32::NEG_INFINITY; 9]), 0);
        // negative control: a rule that kept the LAST maximum would answer 30 here
        let last = row.iter().rposition(|&v| v == 2.0).unwrap_or(0);
        assert_ne!(argmax(&row), last);
    }
}

//! Is one sentence's encoder output independent of what shares its pass? The server gathers unrelated requests
//! into one forward pass (docs/SERVER.md "Dynamic batching"), which is only sound if a sentence's logits do not
//! change with the number of rows in the pass, its row index, or the masked padding that trails it. Whether they
//! do depends on the kernels (row-count-dependent GEMM paths can round differently), so it is MEASURED here at
//! load, bit for bit, like the decoder's `model::invariance` probe. Measured with ONNX Runtime 1.31 on the 2-core
//! AMD EPYC development machine: 0 of 480 comparisons differed (rows 1..16, any row index, +1..+16 trailing pad)
//! for both ctc-nat-en-de and tiny-ctc-nat.

use super::model::NatModel;
use crate::backend;
use crate::config::PipelineConfig;
use crate::error::Result;

/// What the probe found.
#[derive(Debug, Clone, PartialEq)]
pub struct Invariance {
    /// Comparisons made (one sentence's real rows, alone vs in a batch or padded wider).
    pub checks: usize,
    /// Comparisons where some logit differed in any bit.
    pub differing: usize,
    /// The largest absolute difference seen (0 when bitwise invariant).
    pub max_abs_diff: f32,
}

impl Invariance {
    /// Every comparison matched bit for bit.
    pub fn bitwise(&self) -> bool {
        self.differing == 0
    }
}

/// Compares two logit slices bit for bit (so -0.0 vs 0.0 and NaN payloads count as differences). Returns the
/// largest absolute difference, or None when identical.
pub(crate) fn compare(a: &[f32], b: &[f32]) -> Option<f32> {
    if a.len() != b.len() {
        return Some(f32::INFINITY);
    }
    let mut worst: Option<f32> = None;
    for (x, y) in a.iter().zip(b) {
        if x.to_bits() != y.to_bits() {
            let d = (x - y).abs();
            worst = Some(worst.map_or(d, |w| if d.is_nan() || d > w { d } else { w }));
        }
    }
    worst
}

/// A deterministic pseudo-random sentence of `len` ids in `lo..hi` (no RNG crate: a fixed LCG, so every load
/// probes the same inputs).
fn sentence(seed: u64, len: usize, lo: u32, hi: u32) -> Vec<u32> {
    let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..len)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            lo + ((s >> 33) as u32) % (hi - lo).max(1)
        })
        .collect()
}

/// Runs the probe on `model`: a few sentences of different lengths, each alone, then inside passes of 2, 3, 8 and
/// `max_rows` rows at the first, a middle and the last row index (with longer and shorter neighbours, so its
/// padding grows), and alone padded wider by a neighbour that is longer. Ids are drawn above the special tokens.
pub fn probe(model: &mut NatModel, max_rows: usize) -> Result<Invariance> {
    let m = model.manifest();
    let limit = m.ctc.upsample.position_limit;
    let vocab = m.dims.vocab_size as u32;
    let lo = 8.min(vocab.saturating_sub(1));
    let mut report = Invariance { checks: 0, differing: 0, max_abs_diff: 0.0 };
    let mut record = |d: Option<f32>| {
        report.checks += 1;
        if let Some(d) = d {
            report.differing += 1;
            report.max_abs_diff = report.max_abs_diff.max(d);
        }
    };
    let lengths = [3usize, 11, 24, 40].map(|l| l.min(limit));
    for (k, &len) in lengths.iter().enumerate() {
        let me = sentence(k as u64, len, lo, vocab);
        let alone = model.forward(std::slice::from_ref(&me))?.sentence(0).to_vec();
        for rows in [2usize, 3, 8, max_rows.max(2)] {
            for at in [0, rows / 2, rows - 1] {
                let batch: Vec<Vec<u32>> = (0..rows)
                    .map(
                        |r| if r == at { me.clone() } else { sentence(100 + (k * 31 + r) as u64, 1 + (r * 7 + k) % (2 * len).min(limit), lo, vocab) },
                    )
                    .collect();
                let out = model.forward(&batch)?;
                record(compare(out.sentence(at), &alone));
            }
        }
        let longer = sentence(7 + k as u64, (len + 16).min(limit), lo, vocab);
        if longer.len() > len {
            let out = model.forward(&[me.clone(), longer])?;
            record(compare(out.sentence(0), &alone));
        }
    }
    Ok(report)
}

/// [`probe`] on a fresh copy of the model a NAT pipeline config names, on the backend it names (dropped after).
pub fn probe_config(config: &PipelineConfig, max_rows: usize) -> Result<Invariance> {
    let backend = backend::open(&config.backend)?;
    let mut model = NatModel::open(&*backend, &config.model)?;
    probe(&mut model, max_rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_sees_one_ulp_and_signed_zero() {
        let a = [1.0f32, 0.0, -3.5];
        assert_eq!(compare(&a, &a), None);
        let mut b = a;
        b[2] = f32::from_bits(b[2].to_bits() + 1);
        assert!(compare(&a, &b).is_some_and(|d| d > 0.0), "one ulp is a difference");
        let mut c = a;
        c[1] = -0.0;
        assert!(compare(&a, &c).is_some(), "-0.0 differs from 0.0 in its bits");
        assert_eq!(compare(&a, &a[..2]), Some(f32::INFINITY));
    }

    #[test]
    fn sentences_are_deterministic_and_in_range() {
        assert_eq!(sentence(3, 10, 8, 100), sentence(3, 10, 8, 100));
        assert_ne!(sentence(3, 10, 8, 100), sentence(4, 10, 8, 100));
        assert!(sentence(5, 50, 8, 100).iter().all(|&t| (8..100).contains(&t)));
    }
}

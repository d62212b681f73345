//! Paired bootstrap resampling for the BLEU difference of two systems on the same test set (Koehn 2004, the
//! method of `sacrebleu --paired-bs`): draw the test set's sentences with replacement, score both systems on the
//! same draw, repeat; the spread of the difference over the draws is its confidence interval. Corpus BLEU is not
//! a mean of sentence scores, so each draw recombines the sentences' sufficient statistics
//! ([`BleuStats`]) and computes both corpus scores afresh.

use super::metrics::{corpus_bleu_stats, BleuStats, MetricsError};

/// The BLEU difference `a - b` on the full test set with its paired-bootstrap confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct BleuDelta {
    /// BLEU(a) - BLEU(b) on the whole test set.
    pub delta: f64,
    /// Lower end of the interval (the `(1 - confidence) / 2` quantile of the resampled differences).
    pub low: f64,
    /// Upper end of the interval.
    pub high: f64,
    /// Two-sided coverage of the interval, e.g. 0.95.
    pub confidence: f64,
    /// Number of resampled test sets.
    pub resamples: usize,
    /// Share of resamples where `a` scored below `b` (a one-sided bootstrap p-value for "a is better").
    pub share_a_below_b: f64,
}

/// SplitMix64: a small, seedable generator, so the interval is reproducible from the seed alone.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (Lemire's multiply-shift; the bias at n ~ 2,000 is below 1e-15).
    fn below(&mut self, n: usize) -> usize {
        ((self.next() as u128 * n as u128) >> 64) as usize
    }
}

/// Paired bootstrap of BLEU(a) - BLEU(b), both systems scored against the same `references`, over `resamples`
/// draws of the test set (sacrebleu uses 1,000) from `seed`, with a `confidence` two-sided percentile interval.
pub fn paired_bootstrap_bleu(
    a: &[String],
    b: &[String],
    references: &[String],
    resamples: usize,
    confidence: f64,
    seed: u64,
) -> Result<BleuDelta, MetricsError> {
    let sa = corpus_bleu_stats(a, references)?;
    let sb = corpus_bleu_stats(b, references)?;
    Ok(paired_bootstrap_stats(&sa, &sb, resamples, confidence, seed))
}

/// [`paired_bootstrap_bleu`] on precomputed per-sentence statistics (same length, same sentence order).
pub fn paired_bootstrap_stats(a: &[BleuStats], b: &[BleuStats], resamples: usize, confidence: f64, seed: u64) -> BleuDelta {
    let n = a.len().min(b.len());
    let total = |s: &[BleuStats]| {
        let mut t = BleuStats::default();
        s.iter().for_each(|x| t.add(x));
        t.score().score
    };
    let delta = total(&a[..n]) - total(&b[..n]);
    let mut rng = SplitMix64(seed);
    let mut diffs = Vec::with_capacity(resamples);
    let mut below = 0usize;
    for _ in 0..resamples {
        let (mut ta, mut tb) = (BleuStats::default(), BleuStats::default());
        for _ in 0..n {
            let i = rng.below(n);
            ta.add(&a[i]);
            tb.add(&b[i]);
        }
        let d = ta.score().score - tb.score().score;
        below += usize::from(d < 0.0);
        diffs.push(d);
    }
    diffs.sort_by(f64::total_cmp);
    let q = |p: f64| if diffs.is_empty() { delta } else { diffs[((diffs.len() - 1) as f64 * p).round() as usize] };
    let tail = (1.0 - confidence.clamp(0.0, 1.0)) / 2.0;
    BleuDelta {
        delta,
        low: q(tail),
        high: q(1.0 - tail),
        confidence,
        resamples,
        share_a_below_b: if resamples == 0 { 0.0 } else { below as f64 / resamples as f64 },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus(words: &[&str]) -> Vec<String> {
        words.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn identical_systems_have_a_zero_width_interval_at_zero() {
        let refs = corpus(&["the cat sat on the mat", "a dog ran in the park today", "it is raining again"]);
        let hyp = corpus(&["the cat sat on a mat", "a dog ran in a park", "it rains again"]);
        let d = paired_bootstrap_bleu(&hyp, &hyp, &refs, 200, 0.95, 7).unwrap();
        assert_eq!((d.delta, d.low, d.high, d.share_a_below_b), (0.0, 0.0, 0.0, 0.0));
    }

    #[test]
    fn a_clearly_better_system_has_an_interval_above_zero_and_the_seed_reproduces_it() {
        // 60 sentences: system a copies the reference, b drops its second half (negative control: swapped
        // arguments give the mirrored interval below zero)
        let refs: Vec<String> = (0..60).map(|i| format!("sentence number {i} has several words in it today")).collect();
        let a = refs.clone();
        let b: Vec<String> = refs.iter().map(|r| r.split(' ').take(4).collect::<Vec<_>>().join(" ")).collect();
        let d = paired_bootstrap_bleu(&a, &b, &refs, 300, 0.95, 1).unwrap();
        assert!(d.delta > 50.0 && d.low > 0.0 && d.low <= d.delta && d.delta <= d.high, "{d:?}");
        assert_eq!(d.share_a_below_b, 0.0);
        assert_eq!(d, paired_bootstrap_bleu(&a, &b, &refs, 300, 0.95, 1).unwrap(), "same seed, same interval");
        let swapped = paired_bootstrap_bleu(&b, &a, &refs, 300, 0.95, 1).unwrap();
        assert!(swapped.high < 0.0 && (swapped.delta + d.delta).abs() < 1e-9, "{swapped:?}");
    }

    #[test]
    fn mixed_systems_straddle_zero() {
        // a wins on half the sentences, b on the other half, by the same amount: the interval covers 0
        let refs: Vec<String> = (0..80).map(|i| format!("the quick brown fox number {i} jumps over the lazy dog")).collect();
        let short = |r: &String| r.split(' ').take(6).collect::<Vec<_>>().join(" ");
        let a: Vec<String> = refs.iter().enumerate().map(|(i, r)| if i % 2 == 0 { r.clone() } else { short(r) }).collect();
        let b: Vec<String> = refs.iter().enumerate().map(|(i, r)| if i % 2 == 1 { r.clone() } else { short(r) }).collect();
        let d = paired_bootstrap_bleu(&a, &b, &refs, 500, 0.95, 3).unwrap();
        assert!(d.low < 0.0 && d.high > 0.0, "{d:?}");
    }
}

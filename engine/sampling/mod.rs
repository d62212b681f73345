//! Choosing the next token from logits: greedy, or sampling after the logits processors
//! ([`processors`]: repetition penalty, temperature, top-k, top-p, min-p) with a seedable RNG.
//!
//! [`Sampler::distribution`] exposes the processed probability vector so speculative strategies can run exact
//! acceptance (`min(1, p/q)`, residual resampling) against the same distribution plain sampling draws from.

pub mod processors;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

/// Sampling settings of one request.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingParams {
    /// 0 = greedy; so is anything below [`MIN_SAMPLING_TEMPERATURE`].
    pub temperature: f32,
    /// 0 = off.
    pub top_k: usize,
    /// 1 = off.
    pub top_p: f32,
    /// 0 = off.
    pub min_p: f32,
    /// 1 = off.
    pub repetition_penalty: f32,
    /// RNG seed.
    pub seed: u64,
}

impl Default for SamplingParams {
    fn default() -> Self {
        SamplingParams { temperature: 0.0, top_k: 0, top_p: 1.0, min_p: 0.0, repetition_penalty: 1.0, seed: 0 }
    }
}

/// Temperatures below this are greedy decoding (the same threshold as vLLM's `_SAMPLING_EPS`). Dividing logits
/// by a tinier temperature overflows them to infinity and the softmax to NaN, and at such temperatures the
/// distribution is one-hot at the argmax anyway (up to exact ties).
pub(crate) const MIN_SAMPLING_TEMPERATURE: f32 = 1e-5;

impl SamplingParams {
    /// True when the next token is the argmax: temperature below [`MIN_SAMPLING_TEMPERATURE`] (0 included) or
    /// top-k 1.
    pub(crate) fn is_greedy(&self) -> bool {
        // `!(t >= MIN)` also treats NaN as greedy: a caller that skipped validation never samples from NaN.
        !(self.temperature >= MIN_SAMPLING_TEMPERATURE) || self.top_k == 1
    }
}

/// Draws tokens; owns its RNG and scratch buffers (no allocation per token after the first).
pub struct Sampler {
    params: SamplingParams,
    rng: ChaCha20Rng,
    scratch: Vec<f32>,
    order: Vec<u32>,
}

impl Sampler {
    /// A sampler for `params`, seeded with `params.seed`.
    pub fn new(params: SamplingParams) -> Self {
        let rng = ChaCha20Rng::seed_from_u64(params.seed);
        Sampler { params, rng, scratch: Vec::new(), order: Vec::new() }
    }

    /// The settings in use.
    pub fn params(&self) -> &SamplingParams {
        &self.params
    }

    /// The next token after `logits`, given the tokens so far (`history`, for the repetition penalty).
    pub fn sample(&mut self, logits: &[f32], history: &[u32]) -> u32 {
        if self.params.is_greedy() {
            return self.greedy(logits, history);
        }
        self.distribution(logits, history);
        let u: f32 = self.rng.random();
        draw(&self.scratch, u)
    }

    /// The argmax after the repetition penalty (the only processor that can change the argmax).
    pub fn greedy(&mut self, logits: &[f32], history: &[u32]) -> u32 {
        if self.params.repetition_penalty == 1.0 || history.is_empty() {
            return argmax(logits);
        }
        self.scratch.clear();
        self.scratch.extend_from_slice(logits);
        processors::repetition_penalty(&mut self.scratch, history, self.params.repetition_penalty, &mut self.order);
        argmax(&self.scratch)
    }

    /// The processed next-token probabilities (sums to 1). For greedy settings, a one-hot vector at the argmax.
    pub fn distribution(&mut self, logits: &[f32], history: &[u32]) -> &[f32] {
        let p = &self.params;
        self.scratch.clear();
        self.scratch.extend_from_slice(logits);
        processors::repetition_penalty(&mut self.scratch, history, p.repetition_penalty, &mut self.order);
        if p.is_greedy() {
            let best = argmax(&self.scratch);
            self.scratch.fill(0.0);
            self.scratch[best as usize] = 1.0;
            return &self.scratch;
        }
        processors::temperature(&mut self.scratch, p.temperature);
        processors::top_k(&mut self.scratch, p.top_k, &mut self.order);
        processors::softmax(&mut self.scratch);
        processors::top_p(&mut self.scratch, p.top_p, &mut self.order);
        processors::min_p(&mut self.scratch, p.min_p);
        &self.scratch
    }

    /// A uniform draw in [0, 1) from this sampler's RNG (for acceptance tests in speculative sampling).
    pub(crate) fn uniform(&mut self) -> f32 {
        self.rng.random()
    }
}

/// Index of the largest value (the first one on ties, as in every AR reference implementation; NaN never chosen,
/// 0 when nothing exceeds -inf): engine/kernels/argmax.rs, 8 values per compare where the CPU has AVX2.
pub fn argmax(values: &[f32]) -> u32 {
    crate::kernels::argmax::argmax(values) as u32
}

/// Inverse-CDF draw from `probs` with `u` in [0, 1).
pub fn draw(probs: &[f32], u: f32) -> u32 {
    let total: f32 = probs.iter().sum();
    let target = u * total;
    let mut acc = 0.0f32;
    let mut last_nonzero = 0;
    for (i, &p) in probs.iter().enumerate() {
        if p > 0.0 {
            acc += p;
            last_nonzero = i;
            if acc > target {
                return i as u32;
            }
        }
    }
    last_nonzero as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_is_argmax_with_first_tie() {
        let mut s = Sampler::new(SamplingParams::default());
        assert_eq!(s.sample(&[0.1, 3.0, 3.0, -1.0], &[]), 1);
    }

    #[test]
    fn seeded_sampling_is_reproducible_and_varies() {
        let params = SamplingParams { temperature: 1.0, seed: 7, ..Default::default() };
        let logits = vec![0.0f32; 50];
        let a: Vec<u32> = {
            let mut s = Sampler::new(params.clone());
            (0..20).map(|_| s.sample(&logits, &[])).collect()
        };
        let b: Vec<u32> = {
            let mut s = Sampler::new(params.clone());
            (0..20).map(|_| s.sample(&logits, &[])).collect()
        };
        assert_eq!(a, b);
        let distinct: std::collections::HashSet<_> = a.iter().collect();
        assert!(distinct.len() > 5);
    }

    #[test]
    fn sampling_frequencies_follow_softmax() {
        // p = softmax([0, ln 3]) = [0.25, 0.75]; 4000 draws, 5-sigma band.
        let mut s = Sampler::new(SamplingParams { temperature: 1.0, seed: 1, ..Default::default() });
        let logits = [0.0f32, 3f32.ln()];
        let ones = (0..4000).filter(|_| s.sample(&logits, &[]) == 1).count() as f64;
        let sd = (4000.0f64 * 0.75 * 0.25).sqrt();
        assert!((ones - 3000.0).abs() < 5.0 * sd, "{ones}");
    }

    #[test]
    fn tiny_temperatures_are_greedy_not_nan() {
        // Token 0 (a stop token in most vocabularies) is the least likely: the old NaN path returned it.
        let logits = [-5.0f32, 1.0, 3.0, 2.0];
        for t in [f32::from_bits(1), 1e-45, 1e-38, 1e-30, 1e-10, 9.9e-6] {
            let mut s = Sampler::new(SamplingParams { temperature: t, seed: 3, ..Default::default() });
            assert!(s.params().is_greedy(), "temperature {t}");
            assert_eq!(s.sample(&logits, &[]), 2, "temperature {t}");
            let d = s.distribution(&logits, &[]).to_vec();
            assert_eq!(d, vec![0.0, 0.0, 1.0, 0.0], "temperature {t}");
        }
        assert!(!SamplingParams { temperature: MIN_SAMPLING_TEMPERATURE, ..Default::default() }.is_greedy());
    }

    /// Property: for every combination of extreme sampling values and hostile logits, the distribution is a
    /// probability vector (finite, >= 0, sums to 1) and the drawn token has positive probability under it.
    #[test]
    fn extreme_sampling_values_never_yield_nan() {
        use rand::Rng;
        let mut gen = ChaCha20Rng::seed_from_u64(11);
        let vocab = 64usize;
        let mut logit_sets: Vec<Vec<f32>> = vec![
            vec![0.0; vocab],
            (0..vocab).map(|i| i as f32 * 1e30).collect(),
            (0..vocab).map(|i| if i % 3 == 0 { f32::NEG_INFINITY } else { i as f32 }).collect(),
            (0..vocab).map(|i| if i == 5 { f32::MAX } else { -f32::MAX }).collect(),
            (0..vocab).map(|i| if i == 7 { f32::INFINITY } else { 0.0 }).collect(),
            (0..vocab).map(|i| if i % 2 == 0 { f32::NAN } else { i as f32 }).collect(),
            vec![f32::NAN; vocab],
            vec![f32::NEG_INFINITY; vocab],
        ];
        for _ in 0..8 {
            logit_sets.push((0..vocab).map(|_| gen.random_range(-40.0f32..40.0)).collect());
        }
        let temperatures = [0.0, f32::from_bits(1), 1e-38, 1e-20, 1e-6, 1e-5, 1e-3, 0.7, 1.0, 2.0, 1e3, 1e30, f32::MAX];
        let top_ps = [f32::from_bits(1), 1e-7, 0.3, 0.999, 1.0];
        let top_ks = [0usize, 1, 2, vocab - 1, vocab, vocab + 5, usize::MAX];
        let min_ps = [0.0, f32::from_bits(1), 0.5, 1.0];
        let penalties = [f32::from_bits(1), 1e-30, 0.5, 1.0, 1.3, 1e30, f32::MAX];
        let history = [0u32, 5, 7, 9, 63];
        let mut cases = 0;
        for logits in &logit_sets {
            for &temperature in &temperatures {
                for &top_p in &top_ps {
                    for &top_k in &top_ks {
                        // min_p and the penalty vary per case from the RNG to keep the grid small.
                        let min_p = min_ps[gen.random_range(0..min_ps.len())];
                        let repetition_penalty = penalties[gen.random_range(0..penalties.len())];
                        let seed = gen.random();
                        let params = SamplingParams { temperature, top_k, top_p, min_p, repetition_penalty, seed };
                        let mut s = Sampler::new(params.clone());
                        let d = s.distribution(logits, &history).to_vec();
                        assert!(d.iter().all(|p| p.is_finite() && *p >= 0.0), "{params:?} {logits:?} -> {d:?}");
                        let sum: f32 = d.iter().sum();
                        assert!((sum - 1.0).abs() < 1e-4, "{params:?} sums to {sum}");
                        let token = s.sample(logits, &history) as usize;
                        assert!(token < vocab, "{params:?}");
                        assert!(d[token] > 0.0, "{params:?}: drew token {token} of probability 0 from {d:?}");
                        cases += 1;
                    }
                }
            }
        }
        assert!(cases > 5000);
    }

    #[test]
    fn draw_respects_the_cdf() {
        assert_eq!(draw(&[0.2, 0.0, 0.8], 0.1), 0);
        assert_eq!(draw(&[0.2, 0.0, 0.8], 0.25), 2);
        assert_eq!(draw(&[0.2, 0.0, 0.8], 0.9999), 2);
    }
}

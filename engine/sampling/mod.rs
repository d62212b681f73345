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
    /// 0 = greedy.
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

impl SamplingParams {
    /// True when the next token is the argmax.
    pub fn is_greedy(&self) -> bool {
        self.temperature == 0.0 || self.top_k == 1
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
    pub fn uniform(&mut self) -> f32 {
        self.rng.random()
    }
}

/// Index of the largest value (the first one on ties, as in every AR reference implementation).
pub fn argmax(values: &[f32]) -> u32 {
    let mut best = 0usize;
    let mut best_v = f32::NEG_INFINITY;
    for (i, &v) in values.iter().enumerate() {
        if v > best_v {
            best_v = v;
            best = i;
        }
    }
    best as u32
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
    fn draw_respects_the_cdf() {
        assert_eq!(draw(&[0.2, 0.0, 0.8], 0.1), 0);
        assert_eq!(draw(&[0.2, 0.0, 0.8], 0.25), 2);
        assert_eq!(draw(&[0.2, 0.0, 0.8], 0.9999), 2);
    }
}

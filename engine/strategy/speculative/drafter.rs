//! The drafter trait: anything that proposes draft tokens for the target to verify.

use crate::error::Result;
use crate::sampling::Sampler;

use super::window::WindowPolicy;

/// Draft tokens for one step (a chain), with the draft distributions when they exist.
#[derive(Debug, Default, Clone)]
pub struct Draft {
    /// Proposed tokens, in order.
    pub tokens: Vec<u32>,
    /// For each token, the distribution it was drawn from (over the target's vocabulary), used by exact
    /// speculative sampling. `None` means deterministic proposals (one-hot at each token: n-gram lookup).
    pub probs: Option<Vec<Vec<f32>>>,
}

/// Proposes draft tokens.
pub trait Drafter: Send {
    /// The drafter's name (`draft_model`, `layer_skip`, `ngram`).
    fn name(&self) -> &'static str;

    /// Forgets per-request state (a new request starts).
    fn reset(&mut self);

    /// Proposes up to `k` tokens after `context` (prompt + output so far, ending with the pending token the target
    /// has not seen yet). `sampler` carries the request's sampling settings (greedy or not); `policy` may stop
    /// drafting early (entropy rules). May return fewer tokens, or none.
    fn propose(&mut self, context: &[u32], k: usize, sampler: &Sampler, policy: &mut dyn WindowPolicy) -> Result<Draft>;

    /// Cumulative seconds the drafter's model spent inside the backend (0 for model-free drafters).
    fn backend_seconds(&self) -> f64 {
        0.0
    }

    /// Run calls the drafter's model made so far (0 for model-free drafters).
    fn backend_calls(&self) -> u64 {
        0
    }
}

/// Entropy (nats) of softmax(`logits`).
pub(crate) fn entropy_of_logits(logits: &[f32]) -> f32 {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut z = 0.0f64;
    let mut s = 0.0f64;
    for &l in logits {
        let d = (l - max) as f64;
        let e = d.exp();
        z += e;
        s += e * d;
    }
    // H = log Z - E[d]
    (z.ln() - s / z) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entropy_of_uniform_and_peaked() {
        let uniform = vec![0.0f32; 8];
        assert!((entropy_of_logits(&uniform) - (8f32).ln()).abs() < 1e-5);
        let peaked = [100.0f32, 0.0, 0.0];
        assert!(entropy_of_logits(&peaked) < 1e-6);
    }
}

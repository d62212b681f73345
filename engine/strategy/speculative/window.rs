//! Window policies: how many tokens to draft each step. Every policy keeps k within `k_min..=k_max` with
//! `k_min >= 1` (validated in the config), so k never silently reaches 0.

use crate::config::{WindowConfig, WindowPolicyKind};

use super::cost::{CostCurve, LiveCurve};

/// What one draft/verify step did, for policies that learn.
#[derive(Debug, Clone, Copy, Default)]
pub struct StepReport {
    /// Tokens drafted.
    pub drafted: usize,
    /// Tokens accepted.
    pub accepted: usize,
    /// Seconds spent drafting.
    pub draft_seconds: f64,
    /// Seconds spent verifying.
    pub verify_seconds: f64,
}

/// Chooses the draft length.
pub trait WindowPolicy: Send {
    /// The policy's name.
    fn name(&self) -> &'static str;
    /// Forgets per-request statistics.
    fn reset(&mut self);
    /// The draft length for the next step (>= 1).
    fn next_k(&mut self) -> usize;
    /// Whether the drafter wants per-token entropies.
    fn needs_entropy(&self) -> bool {
        false
    }
    /// Called before drafting token `i` (i >= 1) with the drafter's entropy for it; `false` stops drafting.
    fn keep_drafting(&mut self, _i: usize, _entropy: Option<f32>) -> bool {
        true
    }
    /// Learns from a finished step.
    fn observe(&mut self, _step: &StepReport) {}
    /// Gives the policy the measured verification cost curve (cost model only).
    fn set_cost_curve(&mut self, _curve: CostCurve) {}
    /// Whether the policy needs a cost curve.
    fn needs_cost_curve(&self) -> bool {
        false
    }
}

/// Builds the policy a config names.
pub fn build(c: &WindowConfig) -> Box<dyn WindowPolicy> {
    match c.policy {
        WindowPolicyKind::Static => Box::new(Static { k: c.k }),
        WindowPolicyKind::Heuristic => Box::new(Heuristic { start: c.k, k: c.k, k_min: c.k_min, k_max: c.k_max }),
        WindowPolicyKind::Ewma => Box::new(Ewma::new(c)),
        WindowPolicyKind::Entropy => Box::new(Entropy { k_min: c.k_min, k_max: c.k_max, threshold: c.entropy_threshold }),
        WindowPolicyKind::CostModel => Box::new(CostModel::new(c)),
    }
}

/// Always `k`.
#[derive(Debug, Clone)]
pub struct Static {
    k: usize,
}

impl WindowPolicy for Static {
    fn name(&self) -> &'static str {
        "static"
    }
    fn reset(&mut self) {}
    fn next_k(&mut self) -> usize {
        self.k
    }
}

/// Hugging Face's assisted-generation rule: +2 after a fully accepted draft, -1 otherwise.
#[derive(Debug, Clone)]
pub struct Heuristic {
    start: usize,
    k: usize,
    k_min: usize,
    k_max: usize,
}

impl WindowPolicy for Heuristic {
    fn name(&self) -> &'static str {
        "heuristic"
    }
    fn reset(&mut self) {
        self.k = self.start;
    }
    fn next_k(&mut self) -> usize {
        self.k
    }
    fn observe(&mut self, s: &StepReport) {
        if s.drafted == 0 {
            return;
        }
        self.k = if s.accepted == s.drafted { (self.k + 2).min(self.k_max) } else { self.k.saturating_sub(1).max(self.k_min) };
    }
}

/// Keeps an exponentially weighted throughput (committed tokens per second of step time) for each k it has tried,
/// and every `probe_every` steps tries a neighbour (k-1 or k+1, alternating), moving there when its running
/// throughput is better (the onnxruntime-genai style EWMA rule).
#[derive(Debug, Clone)]
pub struct Ewma {
    start: usize,
    k: usize,
    k_min: usize,
    k_max: usize,
    alpha: f64,
    probe_every: usize,
    steps: usize,
    probing: Option<usize>,
    up_next: bool,
    throughput: Vec<Option<f64>>,
}

impl Ewma {
    fn new(c: &WindowConfig) -> Self {
        Ewma {
            start: c.k,
            k: c.k,
            k_min: c.k_min,
            k_max: c.k_max,
            alpha: c.ewma_alpha as f64,
            probe_every: c.probe_every,
            steps: 0,
            probing: None,
            up_next: true,
            throughput: vec![None; c.k_max + 1],
        }
    }
}

impl WindowPolicy for Ewma {
    fn name(&self) -> &'static str {
        "ewma"
    }
    fn reset(&mut self) {
        self.k = self.start;
        self.steps = 0;
        self.probing = None;
        self.throughput.iter_mut().for_each(|t| *t = None);
    }
    fn next_k(&mut self) -> usize {
        self.steps += 1;
        if self.steps.is_multiple_of(self.probe_every) {
            let candidate = if self.up_next { self.k + 1 } else { self.k.saturating_sub(1) };
            self.up_next = !self.up_next;
            if (self.k_min..=self.k_max).contains(&candidate) {
                self.probing = Some(candidate);
                return candidate;
            }
        }
        self.probing = None;
        self.k
    }
    fn observe(&mut self, s: &StepReport) {
        let used = self.probing.unwrap_or(self.k);
        let secs = s.draft_seconds + s.verify_seconds;
        if s.drafted == 0 || secs <= 0.0 {
            return;
        }
        let tp = (s.accepted + 1) as f64 / secs;
        let slot = &mut self.throughput[used];
        *slot = Some(match *slot {
            Some(old) => old + self.alpha * (tp - old),
            None => tp,
        });
        if let (Some(p), Some(best)) = (self.probing, self.throughput[self.k]) {
            if self.throughput[p].is_some_and(|t| t > best) {
                self.k = p;
            }
        }
    }
}

/// SVIP-style self-verification: draft up to `k_max`, stopping once the drafter's entropy exceeds the threshold
/// (after at least `k_min` tokens).
#[derive(Debug, Clone)]
pub struct Entropy {
    k_min: usize,
    k_max: usize,
    threshold: f32,
}

impl WindowPolicy for Entropy {
    fn name(&self) -> &'static str {
        "entropy"
    }
    fn reset(&mut self) {}
    fn next_k(&mut self) -> usize {
        self.k_max
    }
    fn needs_entropy(&self) -> bool {
        true
    }
    fn keep_drafting(&mut self, i: usize, entropy: Option<f32>) -> bool {
        i < self.k_min || entropy.is_none_or(|h| h <= self.threshold)
    }
}

/// Hardware-aware: with acceptance probability a (a running estimate), a k-token draft commits
/// E(k) = (1 - a^(k+1)) / (1 - a) tokens and costs T(k) = k * draft_cost + verify_cost(k + 1), with the verify
/// cost read off the curve measured on this machine; choose the k that maximises E(k) / T(k).
#[derive(Debug, Clone)]
pub struct CostModel {
    start: usize,
    k_min: usize,
    k_max: usize,
    alpha: f64,
    acceptance: f64,
    draft_cost: Option<f64>,
    curve: Option<LiveCurve>,
    learn_costs: bool,
}

impl CostModel {
    fn new(c: &WindowConfig) -> Self {
        CostModel {
            start: c.k,
            k_min: c.k_min,
            k_max: c.k_max,
            alpha: c.ewma_alpha as f64,
            acceptance: 0.6,
            draft_cost: None,
            curve: None,
            learn_costs: c.learn_costs,
        }
    }

    /// Expected committed tokens per step for draft length k at acceptance a.
    pub(crate) fn expected_tokens(a: f64, k: usize) -> f64 {
        if (1.0 - a).abs() < 1e-9 {
            (k + 1) as f64
        } else {
            (1.0 - a.powi(k as i32 + 1)) / (1.0 - a)
        }
    }
}

impl WindowPolicy for CostModel {
    fn name(&self) -> &'static str {
        "cost_model"
    }
    fn reset(&mut self) {
        self.acceptance = 0.6;
    }
    fn next_k(&mut self) -> usize {
        let (Some(curve), Some(d)) = (&self.curve, self.draft_cost) else {
            return self.start;
        };
        let a = self.acceptance.clamp(0.0, 0.999);
        let mut best = (self.k_min, 0.0f64);
        for k in self.k_min..=self.k_max {
            let t = k as f64 * d + curve.seconds(k + 1);
            let rate = Self::expected_tokens(a, k) / t.max(1e-9);
            if rate > best.1 {
                best = (k, rate);
            }
        }
        best.0
    }
    fn observe(&mut self, s: &StepReport) {
        if s.drafted == 0 {
            return;
        }
        // Geometric MLE per step: successes / trials, a rejection counting as one trial.
        let trials = s.accepted + usize::from(s.accepted < s.drafted);
        let step_a = s.accepted as f64 / trials.max(1) as f64;
        self.acceptance += self.alpha * (step_a - self.acceptance);
        let d = s.draft_seconds / s.drafted as f64;
        self.draft_cost = Some(match self.draft_cost {
            Some(old) => old + self.alpha * (d - old),
            None => d,
        });
        if let Some(curve) = self.curve.as_mut() {
            // The verification was one chain pass over the pending token and the drafts.
            curve.observe(s.drafted + 1, s.verify_seconds);
        }
    }
    fn set_cost_curve(&mut self, curve: CostCurve) {
        self.curve = Some(LiveCurve::new(curve, self.learn_costs, self.alpha));
    }
    fn needs_cost_curve(&self) -> bool {
        self.curve.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(drafted: usize, accepted: usize) -> StepReport {
        StepReport { drafted, accepted, draft_seconds: 0.001, verify_seconds: 0.01 }
    }

    #[test]
    fn heuristic_grows_and_shrinks_within_bounds() {
        let mut p = build(&WindowConfig { policy: WindowPolicyKind::Heuristic, k: 2, k_min: 1, k_max: 5, ..Default::default() });
        p.observe(&report(2, 2));
        assert_eq!(p.next_k(), 4);
        p.observe(&report(4, 4));
        assert_eq!(p.next_k(), 5);
        for _ in 0..10 {
            p.observe(&report(5, 0));
        }
        assert_eq!(p.next_k(), 1, "never below k_min");
    }

    #[test]
    fn entropy_stops_on_unsure_drafts() {
        let mut p = build(&WindowConfig { policy: WindowPolicyKind::Entropy, k_min: 1, k_max: 40, entropy_threshold: 0.6, ..Default::default() });
        assert_eq!(p.next_k(), 40);
        assert!(p.keep_drafting(1, Some(0.1)));
        assert!(!p.keep_drafting(1, Some(2.0)));
    }

    #[test]
    fn ewma_moves_towards_better_throughput() {
        let mut p = Ewma::new(&WindowConfig { policy: WindowPolicyKind::Ewma, k: 3, k_min: 1, k_max: 8, probe_every: 2, ..Default::default() });
        for _ in 0..40 {
            let k = p.next_k();
            // Throughput grows with k in this synthetic world: everything is accepted.
            p.observe(&StepReport { drafted: k, accepted: k, draft_seconds: 0.0, verify_seconds: 0.01 });
        }
        assert!(p.k > 3, "k = {}", p.k);
    }

    #[test]
    fn cost_model_prefers_long_drafts_when_acceptance_is_high_and_verify_is_flat() {
        let mut p = CostModel::new(&WindowConfig { policy: WindowPolicyKind::CostModel, k: 4, k_min: 1, k_max: 12, ..Default::default() });
        p.set_cost_curve(CostCurve::from_points(vec![(1, 0.010), (4, 0.012), (8, 0.016), (13, 0.024)]));
        for _ in 0..50 {
            p.observe(&StepReport { drafted: 8, accepted: 8, draft_seconds: 0.0008, verify_seconds: 0.016 });
        }
        let high = p.next_k();
        for _ in 0..50 {
            p.observe(&StepReport { drafted: 8, accepted: 0, draft_seconds: 0.0008, verify_seconds: 0.016 });
        }
        let low = p.next_k();
        assert!(high >= 8 && low <= 2, "high {high}, low {low}");
        assert!((CostModel::expected_tokens(0.5, 2) - 1.75).abs() < 1e-12);
    }
}

//! Speculative decoding: one draft/verify engine shared by every drafter and window policy.
//!
//! Each step: the drafter proposes up to k tokens after the pending token; the target runs ONCE over
//! [pending, d1..dk] (explicit positions, causal mask); acceptance (greedy match, or exact speculative sampling)
//! keeps a prefix and adds the target's own token after it; the target's cache is rolled back to the committed
//! length in O(1), and the drafter re-syncs its own cache the same way. Committed tokens go through the same
//! [`crate::generate::OutputSink`] as AR, so stop tokens, stop strings and max_tokens inside an accepted draft end
//! the output exactly where AR would.

pub mod budget;
pub mod corpus;
pub mod cost;
pub mod draft_model;
pub mod drafter;
pub mod guard;
pub mod head;
pub mod ngram;
pub mod tree;
pub mod verify;
pub mod window;

use std::time::Instant;

use self::drafter::Drafter;
use self::verify::ResidualRule;
use self::window::{StepReport, WindowPolicy};
use super::{decode_loop, plain_step, DecodeContext, RoundOutcome, Strategy};
use crate::error::Result;

/// The speculative strategy.
pub struct Speculative {
    drafter: Box<dyn Drafter>,
    policy: Box<dyn WindowPolicy>,
    residual_rule: ResidualRule,
    scratch: verify::VerifyScratch,
    guard: guard::PayoffGuard,
}

impl Speculative {
    /// A strategy drafting with `drafter` under `policy`.
    pub fn new(drafter: Box<dyn Drafter>, policy: Box<dyn WindowPolicy>) -> Self {
        Speculative {
            drafter,
            policy,
            residual_rule: ResidualRule::Residual,
            scratch: verify::VerifyScratch::default(),
            guard: guard::PayoffGuard::new(false),
        }
    }

    /// Stops drafting while it does not pay (see [`guard::PayoffGuard`]); off unless asked for.
    pub(crate) fn with_fallback(mut self, on: bool) -> Self {
        self.guard = guard::PayoffGuard::new(on);
        self
    }

    /// Replaces the rejection rule; only tests use this, to show that a biased rule is detected.
    #[doc(hidden)]
    pub fn with_residual_rule(mut self, rule: ResidualRule) -> Self {
        self.residual_rule = rule;
        self
    }
}

impl Strategy for Speculative {
    fn name(&self) -> &'static str {
        "speculative"
    }

    fn backend_seconds(&self) -> f64 {
        self.drafter.backend_seconds()
    }

    fn backend_calls(&self) -> u64 {
        self.drafter.backend_calls()
    }

    fn exact_under_sampling(&self) -> bool {
        // Chain drafts with their draft distributions (or one-hot ones) and residual resampling: exact.
        self.residual_rule == ResidualRule::Residual
    }

    fn verifies_in_batches(&self) -> bool {
        true
    }

    fn prepare(&mut self, target: &mut crate::model::LanguageModel) -> Result<()> {
        if self.policy.needs_cost_curve() {
            let max = 17.min(target.capacity() / 2).max(2);
            let curve = cost::measure_or_load(target, max)?;
            self.policy.set_cost_curve(curve);
        }
        Ok(())
    }

    fn generate(&mut self, ctx: &mut DecodeContext<'_, '_>) -> Result<()> {
        self.drafter.reset();
        self.policy.reset();
        self.guard.begin_request();
        let Speculative { drafter, policy, residual_rule, scratch, guard } = self;
        decode_loop(ctx, |ctx, pending, history, budget| {
            if !guard.should_draft() {
                let t0 = Instant::now();
                let out = plain_step(ctx, pending, history)?;
                guard.plain(t0.elapsed().as_secs_f64());
                return Ok(out);
            }
            // Drafting past max_tokens or the context is wasted work.
            let k = policy.next_k().min(budget);
            let t_draft = Instant::now();
            let draft = if k > 0 { drafter.propose(history, k, ctx.sampler, &mut **policy)? } else { Default::default() };
            let draft_seconds = t_draft.elapsed().as_secs_f64();
            ctx.stats.draft_seconds += draft_seconds;
            if draft.tokens.is_empty() {
                let t0 = Instant::now();
                let out = plain_step(ctx, pending, history)?;
                guard.plain(t0.elapsed().as_secs_f64());
                return Ok(out);
            }
            let (verdict, verify_seconds) =
                verify::verify_and_commit(ctx, pending, &draft.tokens, draft.probs.as_deref(), history, scratch, *residual_rule)?;
            guard.drafted(verdict.accepted + 1, draft_seconds + verify_seconds);
            policy.observe(&StepReport { drafted: draft.tokens.len(), accepted: verdict.accepted, draft_seconds, verify_seconds });
            Ok(RoundOutcome { accepted: verdict.accepted, next: verdict.bonus })
        })
    }
}

//! SPACE decoding (Yi et al., arXiv 2402.11809; docs/METHODS.md section 6). The target was fine-tuned to fill
//! mask tokens, so it drafts for itself: each step runs ONE target call over the pending token b, the candidates
//! c_1..c_n from the previous step and mask groups ([`layout`]); it verifies the candidates against the target's
//! own tokens at the real positions and reads the next candidates off the mask group of the last accepted real
//! token. The first step after the prefill has no candidates: [b, M x k].
//!
//! Acceptance is the project's one rule set ([`crate::strategy::speculative::verify`]): greedy match, or exact
//! sampling with deterministic drafts (accept c with probability p(c), on rejection draw from p without c).
//! The drafts are argmaxes of the mask rows, so q is one-hot; drawing the replacement from p (what the reference
//! code does) would over-weight c. The real chain sits at the front of the pass, so its logits rows are one
//! contiguous block that the chain rules read directly, and the accepted tokens' K/V rows already sit in the
//! slots they are committed to: `commit_tree_path` copies O(accepted) rows onto themselves and drops the rest.
//!
//! Prompt lookup (`lookup: fill | prefer`) is a second, free source of candidates: the continuation of the most
//! recent earlier occurrence of the newest tokens, at most k tokens (the same pass shape as the masks' drafts). With
//! `candidates: last` a rejection leaves no drafts for the next step, whose pass then buys one token; `fill` puts
//! lookup's continuation there, `prefer` uses it whenever one exists. The candidates are verified the same way
//! whatever their source, and deterministic either way, so both rules of acceptance stay exact.

pub mod layout;

use std::time::Instant;

use self::layout::{step_len, Fault, Groups, StepLayout};
use super::speculative::guard::PayoffGuard;
use super::speculative::ngram::NgramDrafter;
use super::speculative::verify::{self, ResidualRule};
use super::{decode_loop, DecodeContext, RoundOutcome, Strategy};
use crate::config::{SpaceCandidates, SpaceLookup};
use crate::contract::Manifest;
use crate::error::{Error, Result};
use crate::stats::Details;

/// Prompt lookup for SPACE: n-grams of 2..=3 tokens over the last 1,024. A one-token match is weak evidence and a
/// wrong draft is not free here (each extra row of a pass costs ~0.1-0.2 of a one-token step on a CPU,
/// docs/SPACE.md "Choosing k"), so it needs two tokens of context to propose.
fn space_lookup() -> NgramDrafter {
    NgramDrafter::new(3, 2, 1024)
}

/// The SPACE strategy.
pub struct Space {
    mask: u32,
    k: usize,
    groups: Groups,
    guard: PayoffGuard,
    residual_rule: ResidualRule,
    fault: Fault,
    lookup: SpaceLookup,
    ngram: NgramDrafter,
    layout: StepLayout,
    candidates: Vec<u32>,
    path: Vec<usize>,
    rows: Vec<f32>,
    residual: Vec<f32>,
}

impl Space {
    /// SPACE on `target`, with groups of `k` masks (default: the model's trained k). Refuses a model without a
    /// `space` manifest entry and a k above the trained one.
    pub fn new(target: &Manifest, k: Option<usize>, candidates: SpaceCandidates) -> Result<Self> {
        let Some(space) = target.space else {
            return Err(Error::model(
                &target.header.dir,
                "strategy `space` needs a SPACE export: this model's manifest.json has no `space` entry (no mask token). \
                 Export the SPACE fine-tune (export/train_space.py) with its mask token, or use another strategy",
            ));
        };
        let k = k.unwrap_or(space.k);
        if k == 0 || k > space.k {
            return Err(Error::model(
                &target.header.dir,
                format!("strategy.k is {k} but this model was trained for groups of {} mask tokens: use 1..={}", space.k, space.k),
            ));
        }
        let groups = match candidates {
            SpaceCandidates::All => Groups::All,
            SpaceCandidates::Last => Groups::Last,
        };
        Ok(Space {
            mask: space.mask_token_id,
            k,
            groups,
            guard: PayoffGuard::new(false),
            residual_rule: ResidualRule::Residual,
            fault: Fault::None,
            lookup: SpaceLookup::Off,
            ngram: space_lookup(),
            layout: StepLayout::default(),
            candidates: Vec::new(),
            path: Vec::new(),
            rows: Vec::new(),
            residual: Vec::new(),
        })
    }

    /// Stops drafting while it does not pay (see [`PayoffGuard`]); off unless asked for.
    pub(crate) fn with_fallback(mut self, on: bool) -> Self {
        self.guard = PayoffGuard::new(on);
        self
    }

    /// Takes candidates from prompt lookup too (see the module notes); off unless asked for.
    pub fn with_lookup(mut self, lookup: SpaceLookup) -> Self {
        self.lookup = lookup;
        self
    }

    /// Mask tokens per group.
    pub fn k(&self) -> usize {
        self.k
    }

    /// Replaces the rejection rule; only tests use this, to show that a biased rule is detected.
    #[doc(hidden)]
    pub fn with_residual_rule(mut self, rule: ResidualRule) -> Self {
        self.residual_rule = rule;
        self
    }

    /// Lays steps out wrongly; only tests use this, as negative controls.
    #[doc(hidden)]
    pub fn with_fault(mut self, fault: Fault) -> Self {
        self.fault = fault;
        self
    }
}

impl Strategy for Space {
    fn name(&self) -> &'static str {
        "space"
    }

    fn exact_under_sampling(&self) -> bool {
        self.residual_rule == ResidualRule::Residual && self.fault == Fault::None
    }

    fn verifies_in_batches(&self) -> bool {
        true
    }

    fn generate(&mut self, ctx: &mut DecodeContext<'_, '_>) -> Result<()> {
        self.guard.begin_request();
        self.candidates.clear();
        let Space { mask, k, groups, guard, residual_rule, fault, lookup, ngram, layout, candidates, path, rows, residual } = self;
        let (mask, k, groups, rule, fault, lookup) = (*mask, *k, *groups, *residual_rule, *fault, *lookup);
        let mut lookup_rounds = 0usize;
        let result = decode_loop(ctx, |ctx, pending, history, budget| {
            let t0 = Instant::now();
            // `history` ends with the pending token, so lookup's continuation is what follows it: c_1, c_2, ...
            let looked_up = match lookup {
                SpaceLookup::Off => false,
                SpaceLookup::Fill if !candidates.is_empty() => false,
                SpaceLookup::Fill | SpaceLookup::Prefer => match ngram.find(history, k) {
                    Some(cont) => {
                        candidates.clear();
                        candidates.extend_from_slice(&history[cont]);
                        true
                    }
                    None => false,
                },
            };
            // Candidates are committed tokens only up to the budget; masks need KV room but commit nothing.
            let room = ctx.target.draft_room() + 1;
            candidates.truncate(budget);
            let mut masks = k;
            while step_len(candidates.len(), masks, groups) > room {
                if !candidates.is_empty() {
                    candidates.pop();
                } else {
                    masks -= 1;
                }
            }
            if masks == 0 || !guard.should_draft() {
                candidates.clear();
                let out = super::plain_step(ctx, pending, history)?;
                guard.plain(t0.elapsed().as_secs_f64());
                return Ok(out);
            }
            lookup_rounds += usize::from(looked_up && !candidates.is_empty());
            layout.build(pending, candidates, masks, mask, groups, fault);
            let vocab = ctx.target.vocab_size();
            let n = candidates.len();
            let logits = ctx.target.eval_tree(&layout.tree)?;
            ctx.stats.target_calls += 1;
            // The real chain's rows: one block at the front (the correct layout), gathered otherwise (faults).
            let chain: &[f32] = if layout.real_chain_in_front() {
                &logits[..(n + 1) * vocab]
            } else {
                rows.clear();
                for &r in &layout.real {
                    rows.extend_from_slice(&logits[r * vocab..(r + 1) * vocab]);
                }
                rows
            };
            let verdict = if ctx.sampler.params().is_greedy() {
                verify::greedy(chain, vocab, candidates, ctx.sampler, history)
            } else {
                verify::exact(chain, vocab, candidates, None, ctx.sampler, history, residual, rule)
            };
            path.clear();
            path.extend_from_slice(&layout.real[..=verdict.accepted]);
            // The next candidates: the argmax of each mask of the last accepted token's group (none in `last` mode
            // after a rejection, or when the room left no masks).
            let next: Vec<u32> = match layout.group[verdict.accepted] {
                Some(first) => (first..first + layout.masks).map(|m| ctx.sampler.greedy(&logits[m * vocab..(m + 1) * vocab], history)).collect(),
                None => Vec::new(),
            };
            ctx.target.commit_tree_path(path)?;
            ctx.stats.record_step(n, verdict.accepted);
            *candidates = next;
            let seconds = t0.elapsed().as_secs_f64();
            ctx.stats.verify_seconds += seconds;
            guard.drafted(verdict.accepted + 1, seconds);
            Ok(RoundOutcome { accepted: verdict.accepted, next: verdict.bonus })
        });
        ctx.stats.details = Details::Space { fallback_rounds: self.guard.skipped, lookup_rounds };
        result
    }
}

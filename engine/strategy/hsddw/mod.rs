//! HSDDW: hierarchical speculative decoding with self-verifying dynamic windows (Syu & Lee, NAACL 2025 Findings;
//! docs/METHODS.md section 2), for a hierarchy of any depth declared in YAML.
//!
//! Levels are ordered cheapest first; the target is the top. The lowest level drafts up to `gamma` tokens and
//! stops early once its own next-token entropy exceeds its threshold (self-verify; the unsure token is kept).
//! Each model level above scores the lower level's draft in ONE pass, accepts a prefix (greedy match or exact
//! speculative sampling), appends its own correction or bonus token, and keeps asking the level below for more
//! until it is itself unsure at some position (its entropy exceeds its threshold: the buffer is cut BEFORE that
//! position, never replaced from a residual, which keeps sampling exact) or its buffer reaches `buffer_cap`. Then
//! it hands the buffer up. The target verifies the top buffer in one pass exactly as the speculative core does,
//! commits, and every model rolls back to the committed length (O(1), by longest shared prefix).
//!
//! Lossless: the target alone decides what is committed (greedy match, or exact acceptance against the
//! distribution each buffered token was drawn from), so greedy output equals the target's AR output and sampled
//! output follows its distribution.

pub mod level;
pub mod thresholds;

use std::time::Instant;

use self::level::{Buffer, Level, LevelKind, LevelStats};
use self::thresholds::Threshold;
use super::speculative::drafter::entropy_of_logits;
use super::speculative::ngram::NgramDrafter;
use super::speculative::verify::{self, accepts, residual_draw};
use super::synced::SyncedModel;
use super::{decode_loop, plain_step, DecodeContext, RoundOutcome, Strategy};
use crate::config::{LevelConfig, ThresholdRule};
use crate::contract::Manifest;
use crate::error::{Error, Result};
use crate::model::loader::DraftRule;
use crate::model::ModelLoader;
use crate::sampling::{self, Sampler, SamplingParams};
use crate::stats::{Details, LevelReport};

/// The HSDDW strategy.
pub struct Hsddw {
    levels: Vec<Level>,
    gamma: usize,
    buffer_cap: usize,
    target_vocab: usize,
    residual: Vec<f32>,
    scratch: verify::VerifyScratch,
    /// Reused context buffers, one per model level (the prefix each level verifies on top of).
    contexts: Vec<Vec<u32>>,
    /// Reused distribution vectors for sampling (see [`distribution`]).
    pool: Vec<Vec<f32>>,
}

impl Hsddw {
    /// Opens the levels (cheapest first) for a target described by `target`.
    pub fn new(
        loader: &ModelLoader,
        target: &Manifest,
        levels: &[LevelConfig],
        gamma: usize,
        buffer_cap: usize,
        tau_init: f32,
        rule: ThresholdRule,
    ) -> Result<Self> {
        let mut out = Vec::with_capacity(levels.len());
        for cfg in levels {
            let (name, kind) = match cfg {
                LevelConfig::Ngram { n_max, n_min, window } => ("ngram".to_string(), LevelKind::Ngram(NgramDrafter::new(*n_max, *n_min, *window))),
                LevelConfig::Model { model } => {
                    let m = loader.open_drafter(model, target, DraftRule::SameTokenizer)?;
                    (m.manifest().display_name(), LevelKind::Model(Box::new(SyncedModel::new(m))))
                }
            };
            out.push(Level {
                name,
                kind,
                threshold: Threshold::new(tau_init, rule == ThresholdRule::Adaptive),
                sampler: None,
                stats: LevelStats::default(),
            });
        }
        let contexts = vec![Vec::new(); out.len()];
        Ok(Hsddw {
            levels: out,
            gamma,
            buffer_cap,
            target_vocab: target.dims.vocab_size,
            residual: Vec::new(),
            scratch: verify::VerifyScratch::default(),
            contexts,
            pool: Vec::new(),
        })
    }
}

/// The level's processed distribution (sampling) or `None` (greedy), and its entropy in nats. The distribution's
/// vector comes from `pool` (vectors of earlier rounds), so sampling does not allocate a vocabulary-sized vector
/// per drafted token (issue 11: 49k floats = 196 KB per token on SmolLM2's vocabulary).
fn distribution(
    level_sampler: &mut Sampler,
    logits: &[f32],
    greedy: bool,
    history: &[u32],
    vocab: usize,
    pool: &mut Vec<Vec<f32>>,
) -> (Option<Vec<f32>>, f32) {
    if greedy {
        return (None, entropy_of_logits(logits));
    }
    let p = level_sampler.distribution(logits, history);
    let h = p.iter().filter(|&&x| x > 0.0).map(|&x| -(x as f64) * (x as f64).ln()).sum::<f64>() as f32;
    let mut full = pool.pop().unwrap_or_default();
    full.clear();
    full.resize(vocab, 0.0);
    full[..p.len()].copy_from_slice(p);
    (Some(full), h)
}

/// Returns a buffer's distributions to the pool once nobody reads them any more.
fn recycle(pool: &mut Vec<Vec<f32>>, probs: Option<Vec<Vec<f32>>>) {
    if let Some(probs) = probs {
        pool.extend(probs);
    }
}

/// Token from a level's distribution: argmax (greedy) or a draw.
fn choose(level_sampler: &mut Sampler, logits: &[f32], p: Option<&[f32]>, history: &[u32]) -> u32 {
    match p {
        None => level_sampler.greedy(logits, history),
        Some(p) => {
            let u = level_sampler.uniform();
            sampling::draw(p, u)
        }
    }
}

struct Run<'a> {
    greedy: bool,
    gamma: usize,
    cap: usize,
    vocab: usize,
    residual: &'a mut Vec<f32>,
    contexts: &'a mut [Vec<u32>],
    /// Spent distribution vectors, reused (see [`distribution`]).
    pool: &'a mut Vec<Vec<f32>>,
}

impl Run<'_> {
    /// Level `levels.len() - 1` drafts a buffer after `prefix`, at most `budget` tokens.
    fn draft(&mut self, levels: &mut [Level], prefix: &[u32], budget: usize) -> Result<Buffer> {
        let (lower, rest) = levels.split_at_mut(levels.len() - 1);
        let level = &mut rest[0];
        let sampler = level.sampler.as_mut().ok_or_else(|| Error::Internal("level sampler missing".into()))?;
        let mut buf = Buffer { probs: (!self.greedy).then(Vec::new), ..Default::default() };
        if budget == 0 {
            return Ok(buf);
        }
        if lower.is_empty() {
            // The lowest level: draft with self-verify.
            let limit = self.gamma.min(budget);
            match &mut level.kind {
                LevelKind::Ngram(ng) => {
                    buf.tokens = ng.lookup(prefix, limit);
                    buf.entropy = vec![None; buf.tokens.len()];
                    buf.probs = None;
                }
                LevelKind::Model(m) => {
                    if !m.fits(prefix.len(), limit + 1) {
                        return Ok(buf);
                    }
                    let mut logits = m.score(prefix, &[])?.to_vec();
                    for i in 0..limit {
                        let (p, h) = distribution(sampler, &logits, self.greedy, prefix, self.vocab, self.pool);
                        level.threshold.saw(h);
                        let t = choose(sampler, &logits, p.as_deref(), prefix);
                        buf.tokens.push(t);
                        buf.entropy.push(Some(h));
                        if let (Some(all), Some(p)) = (buf.probs.as_mut(), p) {
                            all.push(p);
                        }
                        if h > level.threshold.tau {
                            // Self-verify: the token is kept, drafting stops and the buffer goes up.
                            buf.unsure = true;
                            level.stats.escalations_entropy += 1;
                            break;
                        }
                        if i + 1 < limit {
                            logits.clear();
                            logits.extend_from_slice(m.push(t)?);
                        }
                    }
                }
            }
            level.stats.drafted += buf.tokens.len();
            return Ok(buf);
        }
        let LevelKind::Model(model) = &mut level.kind else {
            return Err(Error::Internal("an ngram level cannot verify (the config validation keeps it lowest)".into()));
        };
        // This level's context buffer, reused across rounds (no per-round allocation).
        let depth = lower.len();
        let mut ctx = std::mem::take(&mut self.contexts[depth]);
        ctx.clear();
        ctx.extend_from_slice(prefix);
        let limit = self.cap.min(budget);
        loop {
            let room = limit - buf.tokens.len();
            if !model.fits(ctx.len(), self.gamma + 1) {
                break;
            }
            let mut sub = self.draft(lower, &ctx, room.saturating_sub(1).max(1).min(room))?;
            let below = lower.len() - 1;
            let rows = model.score(&ctx, &sub.tokens)?;
            let mut cut = false;
            let mut all_accepted = true;
            for (i, &x) in sub.tokens.iter().enumerate() {
                let row = &rows[i * self.vocab_of(rows, sub.tokens.len())..][..self.vocab_of(rows, sub.tokens.len())];
                let (p, h) = distribution(sampler, row, self.greedy, &ctx, self.vocab, self.pool);
                level.threshold.saw(h);
                if h > level.threshold.tau {
                    // Unsure here: cut BEFORE this position (no replacement drawn: exact).
                    self.pool.extend(p);
                    cut = true;
                    all_accepted = false;
                    break;
                }
                // The one acceptance rule (speculative::verify): argmax match, or min(1, p/q).
                let q = sub.probs.as_ref().map(|q| q[i].as_slice());
                let accept = match &p {
                    None => sampler.greedy(row, &ctx) == x,
                    Some(p) => accepts(p, x, q, sampler.uniform()),
                };
                if accept {
                    lower[below].stats.accepted += 1;
                    buf.tokens.push(x);
                    buf.entropy.push(Some(h));
                    if let (Some(all), Some(p)) = (buf.probs.as_mut(), p) {
                        all.push(p);
                    }
                    ctx.push(x);
                    continue;
                }
                if let Some(hl) = sub.entropy[i] {
                    lower[below].threshold.rejected(hl);
                }
                let correction = match &p {
                    None => sampler.greedy(row, &ctx),
                    Some(p) => residual_draw(p, x, q, self.residual, sampler.uniform()),
                };
                buf.tokens.push(correction);
                buf.entropy.push(Some(h));
                if let (Some(all), Some(p)) = (buf.probs.as_mut(), p) {
                    all.push(p);
                }
                ctx.push(correction);
                all_accepted = false;
                break;
            }
            if all_accepted && buf.tokens.len() < limit {
                let k = sub.tokens.len();
                let row = &rows[k * self.vocab_of(rows, k)..][..self.vocab_of(rows, k)];
                let (p, h) = distribution(sampler, row, self.greedy, &ctx, self.vocab, self.pool);
                level.threshold.saw(h);
                if h > level.threshold.tau {
                    self.pool.extend(p);
                    cut = true;
                } else {
                    let t = choose(sampler, row, p.as_deref(), &ctx);
                    buf.tokens.push(t);
                    buf.entropy.push(Some(h));
                    if let (Some(all), Some(p)) = (buf.probs.as_mut(), p) {
                        all.push(p);
                    }
                    ctx.push(t);
                }
            }
            // The sub-buffer's distributions have been read (acceptance above); their vectors serve the next draws.
            recycle(self.pool, sub.probs.take());
            if cut {
                buf.unsure = true;
                level.stats.escalations_entropy += 1;
                break;
            }
            if buf.tokens.len() >= limit {
                level.stats.escalations_cap += 1;
                break;
            }
            if sub.tokens.is_empty() && !all_accepted {
                break;
            }
        }
        level.stats.drafted += buf.tokens.len();
        self.contexts[depth] = ctx;
        Ok(buf)
    }

    /// Row width of a `[n + 1, vocab]` logits block.
    fn vocab_of(&self, rows: &[f32], n: usize) -> usize {
        rows.len() / (n + 1)
    }
}

impl Hsddw {
    /// The models of the model levels (n-gram levels have none).
    fn level_models(&self) -> impl Iterator<Item = &crate::model::LanguageModel> {
        self.levels.iter().filter_map(|l| match &l.kind {
            LevelKind::Model(m) => Some(m.model()),
            LevelKind::Ngram(_) => None,
        })
    }
}

impl Strategy for Hsddw {
    fn name(&self) -> &'static str {
        "hsddw"
    }

    fn exact_under_sampling(&self) -> bool {
        true
    }

    /// The target verifies each lower level's drafts in one pass.
    fn verifies_in_batches(&self) -> bool {
        true
    }

    fn backend_seconds(&self) -> f64 {
        self.level_models().map(|m| m.backend_seconds()).sum()
    }

    fn backend_calls(&self) -> u64 {
        self.level_models().map(|m| m.backend_calls()).sum()
    }

    fn generate(&mut self, ctx: &mut DecodeContext<'_, '_>) -> Result<()> {
        let params: SamplingParams = ctx.sampler.params().clone();
        let greedy = params.is_greedy();
        for (i, level) in self.levels.iter_mut().enumerate() {
            if let LevelKind::Model(m) = &mut level.kind {
                m.reset();
            }
            level.threshold.reset();
            level.stats = LevelStats::default();
            level.sampler = Some(Sampler::new(SamplingParams { seed: params.seed ^ (0xA5A5_0000 + i as u64), ..params.clone() }));
        }
        let Hsddw { levels, gamma, buffer_cap, target_vocab, residual, scratch, contexts, pool } = self;
        let result = decode_loop(ctx, |ctx, pending, history, budget| {
            let t_draft = Instant::now();
            let mut run = Run {
                greedy,
                gamma: *gamma,
                cap: *buffer_cap,
                vocab: *target_vocab,
                residual: &mut *residual,
                contexts: &mut contexts[..],
                pool: &mut *pool,
            };
            let mut buf = run.draft(levels, history, budget)?;
            ctx.stats.draft_seconds += t_draft.elapsed().as_secs_f64();
            if buf.tokens.is_empty() {
                return plain_step(ctx, pending, history);
            }
            let (verdict, _) =
                verify::verify_and_commit(ctx, pending, &buf.tokens, buf.probs.as_deref(), history, scratch, verify::ResidualRule::Residual)?;
            recycle(pool, buf.probs.take());
            let top = levels.len() - 1;
            levels[top].stats.accepted += verdict.accepted;
            if verdict.accepted < buf.tokens.len() {
                if let Some(h) = buf.entropy[verdict.accepted] {
                    levels[top].threshold.rejected(h);
                }
            }
            let calls = ctx.stats.target_calls;
            for level in levels.iter_mut() {
                level.threshold.end_round();
                level.stats.tau_trajectory.push((calls, level.threshold.tau));
            }
            Ok(RoundOutcome { accepted: verdict.accepted, next: verdict.bonus })
        });
        let committed = ctx.sink.tokens().len().max(1);
        ctx.stats.details = Details::Hsddw {
            levels: self
                .levels
                .iter()
                .map(|l| LevelReport {
                    name: l.name.clone(),
                    drafted: l.stats.drafted,
                    accepted: l.stats.accepted,
                    acceptance_rate: if l.stats.drafted == 0 { 0.0 } else { l.stats.accepted as f64 / l.stats.drafted as f64 },
                    escalations_entropy: l.stats.escalations_entropy,
                    escalations_cap: l.stats.escalations_cap,
                    tau: l.threshold.tau,
                    tau_trajectory: l.stats.tau_trajectory.clone(),
                })
                .collect(),
            target_calls_per_token: ctx.stats.target_calls as f64 / committed as f64,
        };
        result
    }
}

//! Decoding strategies. A strategy gets the target [`LanguageModel`] (already reset), the prompt, a
//! [`Sampler`] and an [`OutputSink`]; it commits tokens into the sink until the sink says stop. It never knows
//! which backend runs the model: drafters are opened through a [`ModelLoader`] when the strategy is built.
//!
//! Every strategy runs the same skeleton ([`decode_loop`]): prefill and the first token, then rounds; a round
//! receives the pending token (committed, not yet fed to the target) and returns how many more tokens it accepted
//! (already appended to the history) and the next pending token. The skeleton commits them through the sink's
//! batch commit, so stop ids, stop strings, max_tokens and the context limit end every strategy's output exactly
//! where AR's would end.
//!
//! Adding a strategy: one config variant that validates itself (engine/config/schema.rs), one folder here, one
//! arm in [`build`].

pub mod ar;
pub mod hsddw;
pub mod space;
pub mod speculative;
pub mod synced;

use std::time::Instant;

use crate::config::{DrafterConfig, LookupSettings, SideBranchPolicy, StrategyConfig, WindowPolicyKind};
use crate::contract::Manifest;
use crate::error::{Error, Result};
use crate::generate::OutputSink;
use crate::model::loader::DraftRule;
use crate::model::{LanguageModel, ModelLoader};
use crate::sampling::Sampler;
use crate::stats::Stats;

pub use ar::Autoregressive;

/// What a strategy works with during one generation.
pub struct DecodeContext<'a, 's> {
    /// The model whose output the pipeline promises.
    pub target: &'a mut LanguageModel,
    /// Prompt token ids.
    pub prompt: &'a [u32],
    /// Draws tokens from the target's logits.
    pub sampler: &'a mut Sampler,
    /// Receives committed tokens and decides when to stop.
    pub sink: &'a mut OutputSink<'s>,
    /// Counters and timings to fill.
    pub stats: &'a mut Stats,
}

/// A decoding strategy.
pub trait Strategy: Send {
    /// The name reported in statistics (`ar`, ...).
    fn name(&self) -> &'static str;

    /// Whether sampled outputs follow exactly the target's sampling distribution (greedy outputs of every
    /// lossless strategy equal AR's).
    fn exact_under_sampling(&self) -> bool;

    /// Whether the strategy verifies several tokens per target pass and so needs a batch-invariant target for
    /// its lossless promise (see [`crate::model::invariance`]). No default on purpose: HSDDW once inherited a
    /// `false` default, skipped the load-time probe, and its greedy output left AR's on SmolLM2 int4 (the bench's
    /// `identical to AR` column caught it); every strategy must now say.
    fn verifies_in_batches(&self) -> bool;

    /// Work done once when the pipeline loads, not on the first request (e.g. measuring the verify-cost curve).
    /// The target is reset before and after.
    fn prepare(&mut self, _target: &mut LanguageModel) -> Result<()> {
        Ok(())
    }

    /// Generates until the sink stops.
    fn generate(&mut self, ctx: &mut DecodeContext<'_, '_>) -> Result<()>;

    /// Cumulative seconds the strategy's own models (drafters) spent inside the backend's run call, so the
    /// engine's overhead share counts every model, not only the target.
    fn backend_seconds(&self) -> f64 {
        0.0
    }

    /// Run calls the strategy's own models made so far (the benchmark prices each at the backend's per-call cost).
    fn backend_calls(&self) -> u64 {
        0
    }
}

/// Builds the strategy a config names. Drafters open through `loader` and are checked against `target`.
pub fn build(config: &StrategyConfig, loader: &ModelLoader, target: &Manifest) -> Result<Box<dyn Strategy>> {
    match config {
        StrategyConfig::Ar {} => Ok(Box::new(Autoregressive)),
        StrategyConfig::Speculative { drafter, window, allow_lossy } => {
            let drafter: Box<dyn speculative::drafter::Drafter> = match drafter {
                DrafterConfig::DraftModel { model } => {
                    Box::new(speculative::draft_model::DraftModel::new(loader.open_drafter(model, target, DraftRule::SameTokenizer)?, false, target))
                }
                DrafterConfig::LayerSkip { model } => {
                    Box::new(speculative::draft_model::DraftModel::new(loader.open_drafter(model, target, DraftRule::SameCheckpoint)?, true, target))
                }
                DrafterConfig::Ngram { n_max, n_min, window, match_ratio, corpus } => {
                    let settings =
                        LookupSettings { n_max: *n_max, n_min: *n_min, window: *window, match_ratio: *match_ratio, corpus: corpus.clone() };
                    Box::new(lookup_drafter(&settings, target)?)
                }
                DrafterConfig::Head { model, beam, top_k, max_nodes, max_depth, ngram, side_branches } => {
                    let (manifest, graph) = loader.open_head(model, target)?;
                    let head = speculative::head::HeadDrafter::new(manifest, graph, *beam, *top_k);
                    let lookup = ngram.settings().map(|s| lookup_drafter(&s, target)).transpose()?;
                    let shape = speculative::tree::TreeShape { max_nodes: *max_nodes, max_depth: *max_depth };
                    let tree = speculative::tree::TreeSpeculative::new(head, lookup, shape)
                        .with_fallback(window.fallback)
                        .with_lossy_side_branches(*allow_lossy)
                        .with_side_branches_when_exact(*side_branches == SideBranchPolicy::Exact)
                        .with_cost_model(window.policy == WindowPolicyKind::CostModel, window.ewma_alpha as f64, window.learn_costs);
                    return Ok(Box::new(tree));
                }
            };
            Ok(Box::new(speculative::Speculative::new(drafter, speculative::window::build(window)).with_fallback(window.fallback)))
        }
        StrategyConfig::Hsddw { levels, gamma, buffer_cap, tau_init, thresholds, .. } => {
            Ok(Box::new(hsddw::Hsddw::new(loader, target, levels, *gamma, *buffer_cap, *tau_init, *thresholds)?))
        }
        StrategyConfig::Space { k, candidates, fallback, lookup } => {
            Ok(Box::new(space::Space::new(target, *k, *candidates)?.with_fallback(*fallback).with_lookup(*lookup)))
        }
        StrategyConfig::Nat { .. } => Err(Error::InvalidRequest(
            "strategy `nat` does not decode a decoder model: it runs a CTC NAT encoder through specrt::nat::NatPipeline".into(),
        )),
    }
}

/// Prompt lookup with `settings`, its corpus (if any) opened and checked against `target`: the `kind: ngram`
/// drafter and a head drafter's hybrid lookup are the same drafter.
fn lookup_drafter(settings: &LookupSettings, target: &Manifest) -> Result<speculative::ngram::NgramDrafter> {
    let corpus = settings.corpus.as_ref().map(|c| speculative::corpus::LookupCorpus::open(c, target)).transpose()?;
    Ok(speculative::ngram::NgramDrafter::new(settings.n_max, settings.n_min, settings.window)
        .with_match_ratio(settings.match_ratio)
        .with_corpus(corpus.map(std::sync::Arc::new)))
}

/// What one round added after the pending token.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RoundOutcome {
    /// Tokens accepted after the pending one; the round has appended them to the history.
    pub accepted: usize,
    /// The next pending token (the target's correction or bonus).
    pub next: u32,
}

/// The decode loop every strategy shares. `round(ctx, pending, history, budget)` feeds the pending token to the
/// target (and whatever it verifies with it); `budget` is how many tokens it may add after the pending one
/// without passing max_tokens or the context (a batch-invariant target keeps its last slot free).
pub(crate) fn decode_loop(
    ctx: &mut DecodeContext<'_, '_>,
    mut round: impl FnMut(&mut DecodeContext<'_, '_>, u32, &mut Vec<u32>, usize) -> Result<RoundOutcome>,
) -> Result<()> {
    // The repetition penalty looks at prompt + output; one growing history serves every round.
    // Sized by what can fit in the KV cache, not by max_tokens (a request may ask for billions).
    let mut history = Vec::with_capacity(ctx.prompt.len().saturating_add(ctx.sink.remaining()).min(ctx.target.capacity()) + 1);
    history.extend_from_slice(ctx.prompt);
    let mut token = prefill_and_sample(ctx, &history)?;
    loop {
        history.push(token);
        if !ctx.sink.push(token)? {
            return Ok(());
        }
        if ctx.target.len() + 1 > ctx.target.capacity() {
            ctx.sink.context_full();
            return Ok(());
        }
        let budget = ctx.target.draft_room().min(ctx.sink.remaining().saturating_sub(1));
        let outcome = round(ctx, token, &mut history, budget)?;
        let start = history.len() - outcome.accepted;
        let (_, more) = ctx.sink.push_all(&history[start..])?;
        if !more {
            return Ok(());
        }
        token = outcome.next;
    }
}

/// Runs the prefill of `prompt` on the target, timing it into `stats`, and returns the first token.
fn prefill_and_sample(ctx: &mut DecodeContext<'_, '_>, history: &[u32]) -> Result<u32> {
    let t0 = Instant::now();
    let logits = ctx.target.append(ctx.prompt)?;
    let token = ctx.sampler.sample(logits, history);
    ctx.stats.prefill_seconds = t0.elapsed().as_secs_f64();
    ctx.stats.target_calls += 1;
    Ok(token)
}

/// A plain target step: feed the pending token, sample the next (target time, counted with verification).
pub(crate) fn plain_step(ctx: &mut DecodeContext<'_, '_>, pending: u32, history: &[u32]) -> Result<RoundOutcome> {
    let t0 = Instant::now();
    let logits = ctx.target.append(&[pending])?;
    ctx.stats.target_calls += 1;
    let next = ctx.sampler.sample(logits, history);
    ctx.stats.verify_seconds += t0.elapsed().as_secs_f64();
    Ok(RoundOutcome { accepted: 0, next })
}

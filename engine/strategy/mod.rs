//! Decoding strategies. A strategy gets the target [`LanguageModel`] (already reset), the prompt, a
//! [`Sampler`] and an [`OutputSink`]; it commits tokens into the sink until the sink says stop. It never knows
//! which backend runs the model.

pub mod ar;
pub mod hsddw;
pub mod speculative;
pub mod synced;

use std::time::Instant;

use crate::backend::Backend;
use crate::config::{DrafterConfig, StrategyConfig};
use crate::model::Manifest;
use crate::error::Result;
use crate::generate::OutputSink;
use crate::model::LanguageModel;
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

    /// Generates until the sink stops.
    fn generate(&mut self, ctx: &mut DecodeContext<'_, '_>) -> Result<()>;

    /// Cumulative seconds the strategy's own models (drafters) spent inside the backend's run call, so the
    /// engine's overhead share counts every model, not only the target.
    fn backend_seconds(&self) -> f64 {
        0.0
    }
}

/// Builds the strategy a config names. Draft models open on `backend` with `context` KV slots and are checked
/// against the target's manifest.
pub fn build(config: &StrategyConfig, backend: &dyn Backend, target: &Manifest, context: usize) -> Result<Box<dyn Strategy>> {
    match config {
        StrategyConfig::Ar {} => Ok(Box::new(Autoregressive)),
        StrategyConfig::Speculative { drafter, window, .. } => {
            let drafter: Box<dyn speculative::drafter::Drafter> = match drafter {
                DrafterConfig::DraftModel { model } => Box::new(speculative::draft_model::DraftModel::open(backend, model, context, target, false)?),
                DrafterConfig::LayerSkip { model } => Box::new(speculative::draft_model::DraftModel::open(backend, model, context, target, true)?),
                DrafterConfig::Ngram { n_max, n_min, window } => Box::new(speculative::ngram::NgramDrafter::new(*n_max, *n_min, *window)),
            };
            Ok(Box::new(speculative::Speculative::new(drafter, speculative::window::build(window))))
        }
        StrategyConfig::Hsddw { levels, gamma, buffer_cap, tau_init, thresholds, .. } => {
            Ok(Box::new(hsddw::Hsddw::new(backend, target, context, levels, *gamma, *buffer_cap, *tau_init, *thresholds)?))
        }
        StrategyConfig::Nat { .. } => Err(crate::Error::InvalidRequest(
            "strategy `nat` does not decode a decoder model: it runs a CTC NAT encoder through specrt::nat::NatPipeline".into(),
        )),
    }
}

/// Runs the prefill of `prompt` on the target, timing it into `stats`, and returns the first token.
pub(crate) fn prefill_and_sample(ctx: &mut DecodeContext<'_, '_>, history: &[u32]) -> Result<u32> {
    let t0 = Instant::now();
    let logits = ctx.target.append(ctx.prompt)?;
    let token = ctx.sampler.sample(logits, history);
    ctx.stats.prefill_seconds = t0.elapsed().as_secs_f64();
    ctx.stats.target_calls += 1;
    Ok(token)
}

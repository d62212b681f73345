//! One HSDDW drafting level: an n-gram lookup (lowest level only) or a model kept in step with the context.

use serde::Serialize;

use super::thresholds::Threshold;
use crate::sampling::Sampler;
use crate::strategy::speculative::ngram::NgramDrafter;
use crate::strategy::synced::SyncedModel;

/// What drafts at a level.
pub(crate) enum LevelKind {
    /// Prompt lookup: proposes, has no entropy.
    Ngram(NgramDrafter),
    /// A language model.
    Model(Box<SyncedModel>),
}

/// Per-level counters for the statistics.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct LevelStats {
    /// Tokens this level put forward to the level above.
    pub drafted: usize,
    /// Of those, tokens the level above accepted.
    pub accepted: usize,
    /// Times this level handed its buffer up because it was itself unsure (its entropy rule fired).
    pub escalations_entropy: usize,
    /// Times it handed up because the buffer reached its cap (or the token budget).
    pub escalations_cap: usize,
    /// Threshold after each target round: (target call index, tau).
    pub tau_trajectory: Vec<(usize, f32)>,
}

/// A level with its threshold, sampler and counters.
pub(crate) struct Level {
    /// Name for statistics (`ngram` or the model folder).
    pub name: String,
    /// What drafts.
    pub kind: LevelKind,
    /// The self-verify threshold.
    pub threshold: Threshold,
    /// This level's own sampler (the request's settings, its own RNG stream).
    pub sampler: Option<Sampler>,
    /// Counters.
    pub stats: LevelStats,
}

/// Tokens a level hands to the level above, with what the level above needs to verify them.
#[derive(Debug, Default, Clone)]
pub(crate) struct Buffer {
    /// The tokens.
    pub tokens: Vec<u32>,
    /// For sampling: the distribution each token was drawn from (`None`: deterministic, one-hot).
    pub probs: Option<Vec<Vec<f32>>>,
    /// This level's entropy at each token (`None` for n-gram drafts).
    pub entropy: Vec<Option<f32>>,
    /// Set when the level stopped because it was unsure (entropy above its threshold).
    pub unsure: bool,
}

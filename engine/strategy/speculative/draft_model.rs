//! A draft model: a smaller exported LM sharing the target's tokenizer, or a layer-skip export of the target
//! itself. Its cache follows the committed context through [`SyncedModel`] (O(1) rollback to the longest shared
//! prefix, then one pass over the rest).

use super::drafter::{entropy_of_logits, Draft, Drafter};
use super::window::WindowPolicy;
use crate::contract::Manifest;
use crate::error::{Error, Result};
use crate::model::LanguageModel;
use crate::sampling::{self, Sampler, SamplingParams};
use crate::strategy::synced::SyncedModel;

/// Drafts with a language model.
pub struct DraftModel {
    name: &'static str,
    model: SyncedModel,
    /// The draft's own sampler (same settings as the request, its own RNG stream).
    sampler: Option<Sampler>,
    target_vocab: usize,
    /// Reused per call: the repetition-penalty history and a vocabulary-wide distribution.
    history: Vec<u32>,
    full: Vec<f32>,
}

impl DraftModel {
    /// A drafter over `model`, already opened and checked against the target by the loader
    /// ([`crate::model::ModelLoader::open_drafter`]).
    pub fn new(model: LanguageModel, layer_skip: bool, target: &Manifest) -> Self {
        DraftModel {
            name: if layer_skip { "layer_skip" } else { "draft_model" },
            model: SyncedModel::new(model),
            sampler: None,
            target_vocab: target.dims.vocab_size,
            history: Vec::new(),
            full: Vec::new(),
        }
    }
}

impl Drafter for DraftModel {
    fn name(&self) -> &'static str {
        self.name
    }

    fn reset(&mut self) {
        self.model.reset();
        self.sampler = None;
    }

    fn backend_seconds(&self) -> f64 {
        self.model.model().backend_seconds()
    }

    fn backend_calls(&self) -> u64 {
        self.model.model().backend_calls()
    }

    fn propose(&mut self, context: &[u32], k: usize, target_sampler: &Sampler, policy: &mut dyn WindowPolicy) -> Result<Draft> {
        if !self.model.fits(context.len(), k) {
            return Ok(Draft::default());
        }
        let params = target_sampler.params().clone();
        let greedy = params.is_greedy();
        if self.sampler.is_none() {
            // A separate RNG stream: the draft's draws must be independent of the target's acceptance draws.
            self.sampler = Some(Sampler::new(SamplingParams { seed: params.seed ^ 0x9E37_79B9_7F4A_7C15, ..params }));
        }
        let want_entropy = policy.needs_entropy();
        let mut draft = Draft { tokens: Vec::with_capacity(k), probs: (!greedy).then(Vec::new) };
        let sampler = self.sampler.as_mut().ok_or_else(|| Error::Internal("draft sampler missing".into()))?;
        // The repetition penalty sees the same history the target's sampler sees.
        self.history.clear();
        if params.repetition_penalty != 1.0 {
            self.history.extend_from_slice(context);
        }
        // Logits are read where the model left them (no per-step copy).
        let mut logits = self.model.score(context, &[])?;
        for i in 0..k {
            let entropy = want_entropy.then(|| entropy_of_logits(logits));
            if i > 0 && !policy.keep_drafting(i, entropy) {
                break;
            }
            let token = if greedy {
                sampler.greedy(logits, &self.history)
            } else {
                let q = sampler.distribution(logits, &self.history);
                self.full.clear();
                self.full.extend_from_slice(q);
                self.full.resize(self.target_vocab, 0.0);
                let u = sampler.uniform();
                let t = sampling::draw(&self.full, u);
                if let Some(p) = draft.probs.as_mut() {
                    p.push(self.full.clone());
                }
                t
            };
            draft.tokens.push(token);
            if params.repetition_penalty != 1.0 {
                self.history.push(token);
            }
            if i + 1 < k {
                logits = self.model.push(token)?;
            }
        }
        Ok(draft)
    }
}

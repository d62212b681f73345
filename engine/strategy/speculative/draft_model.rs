//! A draft model: a smaller exported LM sharing the target's tokenizer, or a layer-skip export of the target
//! itself. Its cache follows the committed context through [`SyncedModel`] (O(1) rollback to the longest shared
//! prefix, then one pass over the rest).

use std::path::Path;

use super::drafter::{entropy_of_logits, Draft, Drafter};
use super::window::WindowPolicy;
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::strategy::synced::SyncedModel;
use crate::sampling::{self, Sampler, SamplingParams};

/// Drafts with a language model.
pub struct DraftModel {
    name: &'static str,
    model: SyncedModel,
    /// The draft's own sampler (same settings as the request, its own RNG stream).
    sampler: Option<Sampler>,
    target_vocab: usize,
}

impl DraftModel {
    /// Opens the draft model folder `dir` with `context` KV slots. `target` is the target's manifest: the
    /// tokenizers must be the same file, and a `layer_skip` drafter must come from the target's weights.
    pub fn open(backend: &dyn Backend, dir: &Path, context: usize, target: &crate::model::Manifest, layer_skip: bool) -> Result<Self> {
        let model = SyncedModel::open(backend, dir, context)?;
        let m = model.model().manifest();
        let tok_sha = |man: &crate::model::Manifest| man.files.get(&man.tokenizer).cloned();
        if let (Some(a), Some(b)) = (tok_sha(m), tok_sha(target)) {
            if a != b {
                return Err(Error::model(dir, "the draft model's tokenizer.json differs from the target's (a drafter must share the tokenizer)"));
            }
        }
        if m.dims.vocab_size > target.dims.vocab_size {
            return Err(Error::model(dir, format!("draft vocabulary {} exceeds the target's {}", m.dims.vocab_size, target.dims.vocab_size)));
        }
        if layer_skip {
            let full = m.source.get("source_num_layers").and_then(|v| v.as_u64()).map_or(m.dims.num_layers, |n| n as usize);
            if m.layers() >= full {
                return Err(Error::model(dir, "a layer_skip drafter must keep fewer layers than its checkpoint has (export with --layers N)"));
            }
            // Same weights: the same checkpoint file (sha256), or the same generator for random test models.
            let identity = |man: &crate::model::Manifest| {
                let s = &man.source;
                s.get("sha256").cloned().unwrap_or_else(|| serde_json::json!([s.get("format"), s.get("seed")]))
            };
            if identity(m) != identity(target) {
                return Err(Error::model(dir, "a layer_skip drafter must be exported from the target's own checkpoint (the sources differ)"));
            }
        }
        Ok(DraftModel {
            name: if layer_skip { "layer_skip" } else { "draft_model" },
            model,
            sampler: None,
            target_vocab: target.dims.vocab_size,
        })
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
        let mut history: Vec<u32> = Vec::new();
        let mut logits = self.model.score(context, &[])?.to_vec();
        for i in 0..k {
            let entropy = want_entropy.then(|| entropy_of_logits(&logits));
            if i > 0 && !policy.keep_drafting(i, entropy) {
                break;
            }
            let sampler = self.sampler.as_mut().ok_or_else(|| Error::Backend("draft sampler missing".into()))?;
            // The repetition penalty sees the same history the target's sampler sees.
            if history.is_empty() && params.repetition_penalty != 1.0 {
                history.extend_from_slice(context);
            }
            let token = if greedy {
                sampler.greedy(&logits, &history)
            } else {
                let q = sampler.distribution(&logits, &history);
                let mut full = vec![0.0f32; self.target_vocab];
                full[..q.len()].copy_from_slice(q);
                let u = sampler.uniform();
                let t = sampling::draw(&full, u);
                if let Some(p) = draft.probs.as_mut() {
                    p.push(full);
                }
                t
            };
            draft.tokens.push(token);
            if params.repetition_penalty != 1.0 {
                history.push(token);
            }
            if i + 1 < k {
                logits.clear();
                logits.extend_from_slice(self.model.push(token)?);
            }
        }
        Ok(draft)
    }
}

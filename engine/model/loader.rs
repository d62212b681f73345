//! [`ModelLoader`]: how strategies get their models. A strategy receives opened models, never the backend: the
//! pipeline hands it a loader bound to its backend and context length, and every drafter goes through the ONE
//! compatibility check here (same tokenizer file, a vocabulary no larger than the target's, and for layer-skip
//! drafters the target's own checkpoint).

use std::path::Path;
use std::sync::Arc;

use crate::backend::{Backend, HeadGraph};
use crate::contract::draft_head::HeadManifest;
use crate::contract::Manifest;
use crate::error::{Error, Result};
use crate::model::LanguageModel;

/// What a drafter must share with its target beyond the tokenizer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DraftRule {
    /// Any model with the target's tokenizer (a smaller model of the family).
    SameTokenizer,
    /// A truncated export of the target's own checkpoint (`--layers N`): fewer layers, same weights.
    SameCheckpoint,
}

/// Opens models on one backend with one context length.
#[derive(Clone)]
pub struct ModelLoader {
    backend: Arc<dyn Backend>,
    context: usize,
}

impl ModelLoader {
    /// A loader for models with `context` KV slots on `backend`.
    pub fn new(backend: Arc<dyn Backend>, context: usize) -> Self {
        ModelLoader { backend, context }
    }

    /// The backend models open on.
    pub fn backend(&self) -> &Arc<dyn Backend> {
        &self.backend
    }

    /// KV slots every model gets.
    pub fn context(&self) -> usize {
        self.context
    }

    /// Opens the decoder folder `dir`.
    pub fn open(&self, dir: &Path) -> Result<LanguageModel> {
        LanguageModel::open(&*self.backend, dir, Some(self.context))
    }

    /// Opens the draft head `dir` for `target`, after checking that it belongs to it.
    pub(crate) fn open_head(&self, dir: &Path, target: &Manifest) -> Result<(HeadManifest, Box<dyn HeadGraph>)> {
        let manifest = HeadManifest::load(dir)?;
        manifest.check_binding(target)?;
        let graph = self.backend.open_head(dir, &manifest.header.graph)?;
        Ok((manifest, graph))
    }

    /// Opens `dir` as a drafter for `target`, after the compatibility check.
    pub(crate) fn open_drafter(&self, dir: &Path, target: &Manifest, rule: DraftRule) -> Result<LanguageModel> {
        let model = self.open(dir)?;
        check_drafter(model.manifest(), target, rule)?;
        Ok(model)
    }
}

/// The drafter-compatibility rule, in one place.
pub(crate) fn check_drafter(draft: &Manifest, target: &Manifest, rule: DraftRule) -> Result<()> {
    let dir = &draft.header.dir;
    let tokenizer_sha = |m: &Manifest| m.header.files.get(&m.tokenizer).cloned();
    match (tokenizer_sha(draft), tokenizer_sha(target)) {
        (Some(a), Some(b)) if a != b => {
            return Err(Error::model(dir, "the drafter's tokenizer.json differs from the target's (a drafter must share the tokenizer)"));
        }
        _ => {}
    }
    if draft.dims.vocab_size > target.dims.vocab_size {
        return Err(Error::model(dir, format!("draft vocabulary {} exceeds the target's {}", draft.dims.vocab_size, target.dims.vocab_size)));
    }
    if rule == DraftRule::SameCheckpoint {
        let full = draft.header.source.get("source_num_layers").and_then(|v| v.as_u64()).map_or(draft.dims.num_layers, |n| n as usize);
        if draft.layers() >= full {
            return Err(Error::model(dir, "a layer_skip drafter must keep fewer layers than its checkpoint has (export with --layers N)"));
        }
        if checkpoint_identity(draft) != checkpoint_identity(target) {
            return Err(Error::model(dir, "a layer_skip drafter must be exported from the target's own checkpoint (the sources differ)"));
        }
    }
    Ok(())
}

/// Which checkpoint a model came from: its file's sha256, or the generator and seed of a random test model.
pub(crate) fn checkpoint_identity(m: &Manifest) -> serde_json::Value {
    let s = &m.header.source;
    s.get("sha256").cloned().unwrap_or_else(|| serde_json::json!([s.get("format"), s.get("seed")]))
}

//! [`SyncedModel`]: a model that follows a context it does not own. It remembers which tokens its KV cache holds;
//! before each use it rolls back (O(1)) to the longest prefix it shares with the current context and feeds only
//! the rest, so drafters at every level stay in step with whatever the target committed.

use crate::error::Result;
use crate::model::LanguageModel;

/// A language model kept in step with an external context.
pub(crate) struct SyncedModel {
    model: LanguageModel,
    cached: Vec<u32>,
}

impl SyncedModel {
    /// Follows a context with `model` (opened by the loader).
    pub fn new(model: LanguageModel) -> Self {
        SyncedModel { model, cached: Vec::new() }
    }

    /// The underlying model.
    pub fn model(&self) -> &LanguageModel {
        &self.model
    }

    /// Forgets everything (a new request).
    pub fn reset(&mut self) {
        self.model.reset();
        self.cached.clear();
    }

    /// Whether `n` more tokens fit after `prefix`.
    pub fn fits(&self, prefix: usize, n: usize) -> bool {
        prefix + n <= self.model.capacity()
    }

    /// Logits after `prefix` and after each of `drafts` (`[drafts.len() + 1, vocab]`), in one forward pass
    /// whenever the cache already holds most of `prefix`. Afterwards the cache holds `prefix + drafts`.
    pub fn score(&mut self, prefix: &[u32], drafts: &[u32]) -> Result<&[f32]> {
        let common = self.cached.iter().zip(prefix).take_while(|(a, b)| a == b).count();
        // Re-feed at least the last prefix token: its row is the distribution of the first draft.
        let mut keep = common.min(prefix.len().saturating_sub(1));
        self.model.truncate(keep)?;
        self.cached.truncate(keep);
        // A long catch-up (the prompt) goes through the chunked prefill first.
        if prefix.len() - keep > 64 {
            self.model.append(&prefix[keep..prefix.len() - 1])?;
            self.cached.extend_from_slice(&prefix[keep..prefix.len() - 1]);
            keep = prefix.len() - 1;
        }
        // The fed tokens are exactly what the cache will hold after `keep`: stage them there (no other copy).
        self.cached.extend_from_slice(&prefix[keep..]);
        self.cached.extend_from_slice(drafts);
        self.model.append_tail(&self.cached[keep..], drafts.len() + 1)
    }

    /// Appends one token after the cached tokens and returns the logits after it.
    pub fn push(&mut self, token: u32) -> Result<&[f32]> {
        self.cached.push(token);
        self.model.append(&[token])
    }
}

//! Prompt lookup (n-gram) drafting: no model. Find the most recent earlier occurrence of the context's last n
//! tokens (n from `n_max` down to `n_min`) within the search window and propose the tokens that followed it.
//! Strong when the output copies from the prompt (code edits, summarization, extraction).
//!
//! Two options make it pay more where a verify row is expensive (docs/METHODS.md section 1.4):
//! `match_ratio` drafts in proportion to the match's length (a one-token match is a guess, an eight-token match
//! is usually a copy), and a [`LookupCorpus`] of the target's own earlier answers answers when the context has
//! no match.

use std::sync::Arc;

use super::corpus::LookupCorpus;
use super::drafter::{Draft, Drafter};
use super::window::WindowPolicy;
use crate::error::Result;
use crate::sampling::Sampler;

/// The prompt-lookup drafter.
#[derive(Debug, Clone)]
pub struct NgramDrafter {
    n_max: usize,
    n_min: usize,
    window: usize,
    match_ratio: f32,
    corpus: Option<Arc<LookupCorpus>>,
}

/// A match in the context: how many tokens matched, and where its continuation lies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    /// Length of the matched n-gram.
    pub n: usize,
    /// The continuation (at most the `k` asked for).
    pub continuation: std::ops::Range<usize>,
}

impl NgramDrafter {
    /// A drafter matching n-grams of `n_min..=n_max` tokens over the last `window` tokens (0 = all).
    pub fn new(n_max: usize, n_min: usize, window: usize) -> Self {
        NgramDrafter { n_max, n_min: n_min.max(1), window, match_ratio: 0.0, corpus: None }
    }

    /// Drafts at most `ratio` x the matched length (0 = off).
    pub fn with_match_ratio(mut self, ratio: f32) -> Self {
        self.match_ratio = ratio.max(0.0);
        self
    }

    /// Searches `corpus` when the context has no match.
    pub fn with_corpus(mut self, corpus: Option<Arc<LookupCorpus>>) -> Self {
        self.corpus = corpus;
        self
    }

    /// The continuation of the most recent match, up to `k` tokens.
    pub fn lookup(&self, context: &[u32], k: usize) -> Vec<u32> {
        self.find(context, k).map_or_else(Vec::new, |r| context[r].to_vec())
    }

    /// Where in `context` the continuation of the most recent match lies (at most `k` tokens), without copying it:
    /// callers in the decode loop copy it into a buffer they keep.
    pub fn find(&self, context: &[u32], k: usize) -> Option<std::ops::Range<usize>> {
        self.find_match(context, k).map(|m| m.continuation)
    }

    /// The longest, then most recent, match and its continuation (at most `k` tokens).
    pub fn find_match(&self, context: &[u32], k: usize) -> Option<Match> {
        let len = context.len();
        let start = if self.window == 0 { 0 } else { len.saturating_sub(self.window) };
        for n in (self.n_min..=self.n_max).rev() {
            if len < n + 1 {
                continue;
            }
            let pattern = &context[len - n..];
            // Most recent earlier occurrence: scan right to left, excluding the suffix itself.
            let mut j = len - n;
            while j > start {
                j -= 1;
                if &context[j..j + n] == pattern {
                    let from = j + n;
                    let to = (from + k).min(len);
                    if to > from {
                        return Some(Match { n, continuation: from..to });
                    }
                }
            }
        }
        None
    }

    /// The draft for one step: the context's continuation (cut to `match_ratio` x the match length when set), or
    /// the corpus's when the context has none.
    pub fn draft(&self, context: &[u32], k: usize) -> Vec<u32> {
        if let Some(m) = self.find_match(context, k) {
            let mut r = m.continuation;
            if self.match_ratio > 0.0 {
                let cap = ((self.match_ratio * m.n as f32) as usize).max(1);
                r.end = r.end.min(r.start + cap);
            }
            return context[r].to_vec();
        }
        let mut out = Vec::new();
        if let Some(corpus) = &self.corpus {
            corpus.draft(context, k, &mut out);
        }
        out
    }
}

impl Drafter for NgramDrafter {
    fn name(&self) -> &'static str {
        "ngram"
    }

    fn reset(&mut self) {}

    fn propose(&mut self, context: &[u32], k: usize, _sampler: &Sampler, _policy: &mut dyn WindowPolicy) -> Result<Draft> {
        Ok(Draft { tokens: self.draft(context, k), probs: None })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proposes_what_followed_the_last_match() {
        let d = NgramDrafter::new(3, 1, 0);
        // ... 1 2 3 [4 5 6] ... 1 2 3 -> propose 4 5
        let ctx = [9, 1, 2, 3, 4, 5, 6, 7, 1, 2, 3];
        assert_eq!(d.lookup(&ctx, 2), vec![4, 5]);
        assert_eq!(d.lookup(&ctx, 10), vec![4, 5, 6, 7, 1, 2, 3]);
    }

    #[test]
    fn prefers_longer_ngrams_and_the_most_recent_match() {
        let d = NgramDrafter::new(2, 1, 0);
        // last token 3 occurs after 8 and after 2; the 2-gram [2, 3] only once.
        let ctx = [2, 3, 10, 8, 3, 11, 2, 3];
        assert_eq!(d.lookup(&ctx, 1), vec![10]);
        let ctx = [5, 3, 10, 8, 3, 11, 3];
        assert_eq!(d.lookup(&ctx, 1), vec![11]);
    }

    #[test]
    fn window_limits_the_search_and_no_match_is_empty() {
        let d = NgramDrafter::new(1, 1, 3);
        assert_eq!(d.lookup(&[7, 8, 1, 2, 3, 7], 2), Vec::<u32>::new());
        assert_eq!(NgramDrafter::new(3, 1, 0).lookup(&[1, 2, 3], 4), Vec::<u32>::new());
    }

    #[test]
    fn match_ratio_drafts_in_proportion_to_the_match() {
        // ... 1 2 3 [4 5 6 7 8] ... 1 2 3: a three-token match.
        let ctx = [1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3];
        let d = NgramDrafter::new(8, 1, 0);
        assert_eq!(d.find_match(&ctx, 8).map(|m| m.n), Some(3));
        assert_eq!(d.draft(&ctx, 8).len(), 8, "off: the window's k");
        assert_eq!(d.clone().with_match_ratio(1.0).draft(&ctx, 8), vec![4, 5, 6]);
        assert_eq!(d.clone().with_match_ratio(2.0).draft(&ctx, 4), vec![4, 5, 6, 7], "k still caps it");
        // A one-token match still drafts one token at ratio 0.5.
        let ctx = [5, 6, 7, 5];
        assert_eq!(NgramDrafter::new(3, 1, 0).with_match_ratio(0.5).draft(&ctx, 4), vec![6]);
    }

    #[test]
    fn the_corpus_answers_only_without_a_context_match() {
        use crate::config::CorpusConfig;
        let docs: Vec<Vec<u32>> = vec![vec![10, 11, 12, 13]; 3];
        let cfg = CorpusConfig { path: Default::default(), max_tokens: 2, n_max: 3, n_min: 2, min_count: 2, min_share: 0.5 };
        let corpus = Arc::new(LookupCorpus::from_documents(docs.iter().map(|d| d.as_slice()), &cfg));
        let d = NgramDrafter::new(3, 2, 0).with_corpus(Some(corpus));
        assert_eq!(d.draft(&[1, 10, 11], 4), vec![12, 13], "no context match: the corpus");
        assert_eq!(d.draft(&[10, 11, 7, 10, 11], 4), vec![7, 10, 11], "a context match wins");
        assert!(d.draft(&[1, 2], 4).is_empty(), "neither");
    }
}

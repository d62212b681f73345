//! Prompt lookup (n-gram) drafting: no model. Find the most recent earlier occurrence of the context's last n
//! tokens (n from `n_max` down to `n_min`) within the search window and propose the tokens that followed it.
//! Strong when the output copies from the prompt (code edits, summarization, extraction).

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
}

impl NgramDrafter {
    /// A drafter matching n-grams of `n_min..=n_max` tokens over the last `window` tokens (0 = all).
    pub fn new(n_max: usize, n_min: usize, window: usize) -> Self {
        NgramDrafter { n_max, n_min: n_min.max(1), window }
    }

    /// The continuation of the most recent match, up to `k` tokens.
    pub fn lookup(&self, context: &[u32], k: usize) -> Vec<u32> {
        self.find(context, k).map_or_else(Vec::new, |r| context[r].to_vec())
    }

    /// Where in `context` the continuation of the most recent match lies (at most `k` tokens), without copying it:
    /// callers in the decode loop copy it into a buffer they keep.
    pub fn find(&self, context: &[u32], k: usize) -> Option<std::ops::Range<usize>> {
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
                        return Some(from..to);
                    }
                }
            }
        }
        None
    }
}

impl Drafter for NgramDrafter {
    fn name(&self) -> &'static str {
        "ngram"
    }

    fn reset(&mut self) {}

    fn propose(&mut self, context: &[u32], k: usize, _sampler: &Sampler, _policy: &mut dyn WindowPolicy) -> Result<Draft> {
        Ok(Draft { tokens: self.lookup(context, k), probs: None })
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
}

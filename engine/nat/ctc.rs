//! CTC decoding: from per-position scores over the vocabulary (one id of which is `blank`) to a token sequence.
//!
//! An output `y` has every alignment `a` (one token or blank per position) that collapses to it: merge runs of
//! equal tokens, then drop blanks. [`greedy`] takes the argmax alignment and collapses it; [`prefix_beam_search`]
//! keeps the `beam_width` most probable prefixes, each scored by the summed probability of all its alignments
//! (split into "ends in blank" and "ends in a token", so a repeated token is only merged when no blank separates
//! it), and extends them at each position with the `top_k` most probable tokens of that position.

use crate::sampling::argmax;
use std::collections::HashMap;

/// Collapses an alignment: merge repeated tokens, drop blanks.
pub fn collapse(alignment: &[u32], blank: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut prev = None;
    for &t in alignment {
        if Some(t) != prev && t != blank {
            out.push(t);
        }
        prev = Some(t);
    }
    out
}

/// Greedy CTC: the argmax of each row of `logits` (`positions` rows of `vocab` scores), collapsed.
pub fn greedy(logits: &[f32], vocab: usize, blank: u32) -> Vec<u32> {
    let alignment: Vec<u32> = logits.chunks_exact(vocab).map(argmax).collect();
    collapse(&alignment, blank)
}

fn log_add(a: f64, b: f64) -> f64 {
    if a == f64::NEG_INFINITY {
        return b;
    }
    if b == f64::NEG_INFINITY {
        return a;
    }
    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
    hi + (lo - hi).exp().ln_1p()
}

/// Log-softmax of one row, in f64.
fn log_softmax(row: &[f32]) -> Vec<f64> {
    let max = row.iter().fold(f32::NEG_INFINITY, |m, &v| m.max(v)) as f64;
    let sum: f64 = row.iter().map(|&v| (v as f64 - max).exp()).sum();
    let lse = max + sum.ln();
    row.iter().map(|&v| v as f64 - lse).collect()
}

/// A decoded prefix and its log probability (summed over all its alignments).
#[derive(Debug, Clone, PartialEq)]
pub struct Hypothesis {
    /// The token sequence.
    pub tokens: Vec<u32>,
    /// log P(tokens | input), summed over the alignments the search kept.
    pub log_prob: f64,
}

/// CTC prefix beam search over `logits` (`positions` rows of `vocab` unnormalised scores). Returns the kept
/// hypotheses, best first (at least one: the empty output). With `beam_width` and `top_k` large enough to keep
/// everything, the scores are the exact CTC probabilities and the first hypothesis is the exact argmax over
/// outputs (tested against brute-force enumeration).
pub fn prefix_beam_search(logits: &[f32], vocab: usize, blank: u32, beam_width: usize, top_k: usize) -> Vec<Hypothesis> {
    let ninf = f64::NEG_INFINITY;
    // prefix -> (log P ending in blank, log P ending in its last token)
    let mut beams: Vec<(Vec<u32>, f64, f64)> = vec![(Vec::new(), 0.0, ninf)];
    let top_k = top_k.min(vocab).max(1);
    let mut candidates: Vec<u32> = Vec::with_capacity(top_k + 1);
    for row in logits.chunks_exact(vocab) {
        let lp = log_softmax(row);
        // top-k tokens of this position, blank excluded (it is always considered)
        candidates.clear();
        let mut order: Vec<u32> = (0..vocab as u32).filter(|&t| t != blank).collect();
        let k = top_k.min(order.len());
        if k > 0 && k < order.len() {
            order.select_nth_unstable_by(k - 1, |&a, &b| lp[b as usize].total_cmp(&lp[a as usize]));
        }
        candidates.extend_from_slice(&order[..k]);
        let mut next: HashMap<Vec<u32>, (f64, f64)> = HashMap::with_capacity(beams.len() * (k + 2));
        for (prefix, pb, pnb) in &beams {
            let total = log_add(*pb, *pnb);
            // blank: the prefix stays, now ending in blank
            let e = next.entry(prefix.clone()).or_insert((ninf, ninf));
            e.0 = log_add(e.0, total + lp[blank as usize]);
            let last = prefix.last().copied();
            // the prefix's last token repeated without a blank merges into it: always considered, so pruning
            // the candidates never drops probability mass from an existing prefix
            if let Some(c) = last.filter(|_| *pnb > ninf) {
                let e = next.entry(prefix.clone()).or_insert((ninf, ninf));
                e.1 = log_add(e.1, pnb + lp[c as usize]);
            }
            for &c in &candidates {
                let mut extended = prefix.clone();
                extended.push(c);
                // after the same token, only an alignment ending in blank starts a new copy
                let from = if Some(c) == last { *pb } else { total };
                if from == ninf {
                    continue; // impossible path: keep the beam free of zero-probability prefixes
                }
                let e = next.entry(extended).or_insert((ninf, ninf));
                e.1 = log_add(e.1, from + lp[c as usize]);
            }
        }
        let mut scored: Vec<(Vec<u32>, f64, f64)> = next.into_iter().map(|(p, (b, nb))| (p, b, nb)).collect();
        // best first; ties broken by the token sequence so the result never depends on hash order
        scored.sort_by(|a, b| log_add(b.1, b.2).total_cmp(&log_add(a.1, a.2)).then_with(|| a.0.cmp(&b.0)));
        scored.truncate(beam_width.max(1));
        beams = scored;
    }
    beams.into_iter().map(|(tokens, pb, pnb)| Hypothesis { tokens, log_prob: log_add(pb, pnb) }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn collapse_merges_repeats_and_drops_blanks() {
        let b = 0;
        assert_eq!(collapse(&[1, 1, 0, 1, 2, 2, 0, 0, 3], b), vec![1, 1, 2, 3]);
        assert_eq!(collapse(&[0, 0, 0], b), Vec::<u32>::new());
        assert_eq!(collapse(&[], b), Vec::<u32>::new());
        assert_eq!(collapse(&[2, 2, 2], b), vec![2]);
    }

    #[test]
    fn greedy_is_argmax_then_collapse() {
        // vocab 3, blank 2; rows argmax: 0, 0, 2, 0, 1
        let logits = [5.0, 1.0, 0.0, 4.0, 0.0, 1.0, 0.0, 0.0, 3.0, 2.0, 1.0, 0.0, 0.0, 9.0, 1.0];
        assert_eq!(greedy(&logits, 3, 2), vec![0, 0, 1]);
    }

    /// Every alignment enumerated: P(y) = sum over alignments collapsing to y.
    fn brute_force(logits: &[f32], vocab: usize, blank: u32) -> HashMap<Vec<u32>, f64> {
        let rows: Vec<Vec<f64>> = logits.chunks_exact(vocab).map(log_softmax).collect();
        let t = rows.len();
        let mut out: HashMap<Vec<u32>, f64> = HashMap::new();
        let mut alignment = vec![0u32; t];
        let total = vocab.pow(t as u32);
        for mut code in 0..total {
            let mut lp = 0.0;
            for (i, a) in alignment.iter_mut().enumerate() {
                *a = (code % vocab) as u32;
                code /= vocab;
                lp += rows[i][*a as usize];
            }
            let y = collapse(&alignment, blank);
            let e = out.entry(y).or_insert(f64::NEG_INFINITY);
            *e = log_add(*e, lp);
        }
        out
    }

    #[test]
    fn exhaustive_beam_search_equals_brute_force_enumeration() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for case in 0..60 {
            let vocab = 2 + case % 3; // 2..=4 symbols including blank
            let positions = 1 + case % 6; // 1..=6 positions
            let blank = (case % vocab) as u32;
            let logits: Vec<f32> = (0..vocab * positions).map(|_| rng.random_range(-3.0..3.0)).collect();
            let exact = brute_force(&logits, vocab, blank);
            let hyps = prefix_beam_search(&logits, vocab, blank, 100_000, vocab);
            // every output's probability is exact
            assert_eq!(hyps.len(), exact.len(), "case {case}: number of distinct outputs");
            for h in &hyps {
                let want = exact[&h.tokens];
                assert!((h.log_prob - want).abs() < 1e-9, "case {case}: {:?} {} vs {}", h.tokens, h.log_prob, want);
            }
            // and the best one is the brute-force argmax (probabilities sum to 1)
            let best = exact.iter().max_by(|a, b| a.1.total_cmp(b.1)).map(|(y, _)| y.clone()).unwrap();
            assert!((exact[&hyps[0].tokens] - exact[&best]).abs() < 1e-12, "case {case}");
            let mass: f64 = exact.values().map(|v| v.exp()).sum();
            assert!((mass - 1.0).abs() < 1e-9);
        }
    }

    #[test]
    fn narrow_beams_return_sorted_hypotheses_with_scores_bounded_by_the_exact_ones() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for case in 0..40 {
            let (vocab, positions, blank) = (5, 7, 0);
            let logits: Vec<f32> = (0..vocab * positions).map(|_| rng.random_range(-2.0..2.0)).collect();
            let exact = brute_force(&logits, vocab, blank);
            let hyps = prefix_beam_search(&logits, vocab, blank, 4, 2);
            assert!(!hyps.is_empty() && hyps.len() <= 4);
            for w in hyps.windows(2) {
                assert!(w[0].log_prob >= w[1].log_prob);
            }
            // a kept hypothesis's score never exceeds its exact probability (it sums a subset of alignments)
            for h in &hyps {
                assert!(h.log_prob <= exact[&h.tokens] + 1e-9, "case {case}");
            }
        }
    }

    #[test]
    fn a_repeat_needs_a_blank_between() {
        // vocab {blank=0, a=1}; three positions strongly a, blank, a -> "a a"; a, a, a -> "a"
        let hard = |ids: &[usize]| -> Vec<f32> { ids.iter().flat_map(|&i| (0..2).map(move |v| if v == i { 10.0 } else { -10.0 })).collect() };
        assert_eq!(prefix_beam_search(&hard(&[1, 0, 1]), 2, 0, 8, 2)[0].tokens, vec![1, 1]);
        assert_eq!(prefix_beam_search(&hard(&[1, 1, 1]), 2, 0, 8, 2)[0].tokens, vec![1]);
        assert_eq!(greedy(&hard(&[1, 0, 1]), 2, 0), vec![1, 1]);
    }
}

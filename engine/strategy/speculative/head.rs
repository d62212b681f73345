//! The draft-head drafter (docs/METHODS.md section 4): a small graph on the TARGET's own hidden states proposes
//! candidate continuations after the pending token. Three designs share one interface:
//!
//! - `ctc` (the CTC drafter, arXiv 2412.00061): N frames over the draft vocabulary plus a blank from a window of
//!   hidden states; CTC prefix beam search (collapse repeats, drop blanks) gives ranked candidate sequences.
//! - `medusa`: one row per future position from the newest hidden state; a small beam over the per-row top-k.
//! - `eagle`: one decoder layer over (hidden state, next token) pairs, drafting depth by depth (its own predicted
//!   feature and token fed back), top-k alternatives at the first depth. The graph computes the output head for
//!   the newest pair only, so a call costs nearly the same at S = 1 and S = window (docs/HEADS.md).
//!
//! Candidates are in TARGET ids (draft id i is `draft_vocab[i]`), best first; the strategy merges them into a
//! token tree (crate::model::trie) and verifies the tree in one target pass.

use crate::backend::{HeadGraph, HeadInput};
use crate::contract::draft_head::{HeadKind, HeadManifest};
use crate::error::{Error, Result};
use crate::nat::ctc;

/// Drafts candidate sequences with a draft head.
pub(crate) struct HeadDrafter {
    manifest: HeadManifest,
    graph: Box<dyn HeadGraph>,
    hidden: usize,
    window: usize,
    /// The newest committed positions, oldest first: hidden state rows (`count` x `hidden`) and the token that
    /// followed each (the pair EAGLE reads).
    states: Vec<f32>,
    next_ids: Vec<i64>,
    count: usize,
    beam: usize,
    top_k: usize,
    // Reused call buffers.
    input: Vec<f32>,
    ids: Vec<i64>,
    mask: Vec<i64>,
    scored: Vec<(f64, Vec<u32>)>,
    /// Seconds of the last `candidates` call's head calls after its first (EAGLE's later depths).
    later_call_seconds: f64,
}

impl HeadDrafter {
    /// A drafter over an opened head graph; `beam` candidate sequences at most, `top_k` tokens per position.
    pub fn new(manifest: HeadManifest, graph: Box<dyn HeadGraph>, beam: usize, top_k: usize) -> Self {
        let hidden = manifest.target.hidden_size;
        let window = manifest.head.window;
        HeadDrafter {
            states: Vec::with_capacity(window * hidden),
            next_ids: Vec::with_capacity(window),
            manifest,
            graph,
            hidden,
            window,
            count: 0,
            beam: beam.max(1),
            top_k: top_k.max(1),
            input: Vec::new(),
            ids: Vec::new(),
            mask: Vec::new(),
            scored: Vec::new(),
            later_call_seconds: 0.0,
        }
    }

    /// The head folder's name.
    pub fn name(&self) -> String {
        self.manifest.display_name()
    }

    /// The head's design.
    pub fn kind(&self) -> HeadKind {
        self.manifest.head.kind
    }

    /// Newest committed positions the head reads.
    pub fn window(&self) -> usize {
        self.window
    }

    /// Most tokens one call can propose (CTC frames, Medusa rows, EAGLE depths).
    pub fn max_depth(&self) -> usize {
        self.manifest.head.slots
    }

    /// Forgets the committed positions (a new request).
    pub fn reset(&mut self) {
        self.states.clear();
        self.next_ids.clear();
        self.count = 0;
    }

    /// Whether any committed position has been seen.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Records a newly committed position: its hidden state and the token that followed it. Keeps the newest
    /// `window` positions.
    pub fn push(&mut self, hidden_state: &[f32], next_token: u32) -> Result<()> {
        if hidden_state.len() != self.hidden {
            return Err(Error::Internal(format!("hidden state of {} values, the head expects {}", hidden_state.len(), self.hidden)));
        }
        if self.count == self.window {
            self.states.copy_within(self.hidden.., 0);
            self.states.truncate((self.window - 1) * self.hidden);
            self.next_ids.remove(0);
            self.count -= 1;
        }
        self.states.extend_from_slice(hidden_state);
        self.next_ids.push(next_token as i64);
        self.count += 1;
        Ok(())
    }

    /// Seconds spent inside the backend.
    pub fn backend_seconds(&self) -> f64 {
        self.graph.backend_seconds()
    }

    /// Run calls made so far.
    pub fn backend_calls(&self) -> u64 {
        self.graph.backend_calls()
    }

    /// Seconds the last [`HeadDrafter::candidates`] spent in head calls after its first (EAGLE drafts one call per
    /// depth, and its later calls find the weights the first one brought into the caches; 0 for the other kinds).
    pub fn later_call_seconds(&self) -> f64 {
        self.later_call_seconds
    }

    /// Candidate continuations after the pending token (target ids, at most `max_depth` tokens each), best first.
    pub fn candidates(&mut self, max_depth: usize, out: &mut Vec<Vec<u32>>) -> Result<()> {
        out.clear();
        self.later_call_seconds = 0.0;
        if self.count == 0 || max_depth == 0 {
            return Ok(());
        }
        match self.manifest.head.kind {
            HeadKind::Medusa => self.medusa(max_depth, out),
            HeadKind::Ctc => self.ctc(max_depth, out),
            HeadKind::Eagle => self.eagle(max_depth, out),
        }
    }

    /// Where the newest pushed hidden state lies in `states`.
    fn newest(&self) -> std::ops::Range<usize> {
        (self.count - 1) * self.hidden..self.count * self.hidden
    }

    fn medusa(&mut self, max_depth: usize, out: &mut Vec<Vec<u32>>) -> Result<()> {
        let h = self.hidden as i64;
        // The newest state is read in place (no copy, no allocation per drafting round).
        let newest = &self.states[self.newest()];
        self.graph.run(&[HeadInput::F32 { name: "hidden_states", data: newest, shape: &[1, 1, h] }])?;
        let vd = self.manifest.head.draft_vocab_size;
        let logits = self.graph.output("logits").ok_or_else(|| Error::Internal("head output `logits` missing".into()))?;
        let rows = (logits.len() / vd).min(max_depth);
        // A beam over the rows' top-k (rows are independent positions): keep the `beam` best partial sequences.
        self.scored.clear();
        self.scored.push((0.0, Vec::new()));
        for r in 0..rows {
            let lp = log_softmax(&logits[r * vd..(r + 1) * vd]);
            let top = top_k(&lp, self.top_k);
            let mut next = Vec::with_capacity(self.scored.len() * top.len());
            for (score, seq) in &self.scored {
                for &t in &top {
                    let mut s = seq.clone();
                    s.push(t);
                    next.push((score + lp[t as usize], s));
                }
            }
            next.sort_by(|a, b| b.0.total_cmp(&a.0));
            next.truncate(self.beam);
            self.scored = next;
        }
        let map = &self.manifest.draft_to_target;
        out.extend(self.scored.iter().map(|(_, s)| s.iter().map(|&d| map[d as usize]).collect()));
        Ok(())
    }

    fn ctc(&mut self, max_depth: usize, out: &mut Vec<Vec<u32>>) -> Result<()> {
        let (w, h) = (self.window, self.hidden);
        // Left-pad to the window: zero rows first, masked out.
        self.input.clear();
        self.input.resize((w - self.count) * h, 0.0);
        self.input.extend_from_slice(&self.states);
        self.mask.clear();
        self.mask.resize(w - self.count, 0);
        self.mask.resize(w, 1);
        self.graph.run(&[
            HeadInput::F32 { name: "hidden_states", data: &self.input, shape: &[1, w as i64, h as i64] },
            HeadInput::I64 { name: "hidden_mask", data: &self.mask, shape: &[1, w as i64] },
        ])?;
        let width = self.manifest.head.draft_vocab_size + 1;
        let blank = self.manifest.head.draft_vocab_size as u32;
        let logits = self.graph.output("logits").ok_or_else(|| Error::Internal("head output `logits` missing".into()))?;
        let hyps = ctc::prefix_beam_search(logits, width, blank, self.beam, self.top_k);
        let map = &self.manifest.draft_to_target;
        for hyp in hyps.iter().filter(|h| !h.tokens.is_empty()).take(self.beam) {
            out.push(hyp.tokens.iter().take(max_depth).map(|&d| map[d as usize]).collect());
        }
        Ok(())
    }

    fn eagle(&mut self, max_depth: usize, out: &mut Vec<Vec<u32>>) -> Result<()> {
        let h = self.hidden;
        let vd = self.manifest.head.draft_vocab_size;
        let depth = max_depth.min(self.manifest.head.slots);
        // Pairs (hidden state, the token after it): the committed ones, then each drafted (feature, token).
        self.input.clear();
        self.input.extend_from_slice(&self.states);
        self.ids.clear();
        self.ids.extend_from_slice(&self.next_ids);
        let map = &self.manifest.draft_to_target;
        let mut chain = Vec::with_capacity(depth);
        for d in 0..depth {
            let s = self.ids.len();
            let seconds_before = self.graph.backend_seconds();
            self.graph.run(&[
                HeadInput::F32 { name: "hidden_states", data: &self.input, shape: &[1, s as i64, h as i64] },
                HeadInput::I64 { name: "input_ids", data: &self.ids, shape: &[1, s as i64] },
            ])?;
            if d > 0 {
                self.later_call_seconds += self.graph.backend_seconds() - seconds_before;
            }
            // The newest pair's row: the last of the output (current exports return only that row, so the
            // call's cost hardly grows with S; older ones return all S rows).
            let row = last_row(&*self.graph, "logits", vd)?;
            let best = top_k(row, if d == 0 { self.top_k } else { 1 });
            if d == 0 {
                // Alternatives at the first depth join the tree as single tokens after the main chain.
                for &alt in best.iter().skip(1) {
                    out.push(vec![map[alt as usize]]);
                }
            }
            let token = map[best[0] as usize];
            chain.push(token);
            if d + 1 == depth {
                break;
            }
            let feature = last_row(&*self.graph, "features", h)?.to_vec();
            if s == self.window {
                self.input.drain(..h);
                self.ids.remove(0);
            }
            self.input.extend_from_slice(&feature);
            self.ids.push(token as i64);
        }
        out.insert(0, chain);
        Ok(())
    }
}

/// log-softmax of one row, in f64.
/// The last `width`-wide row of the head output `name` (EAGLE exports return one row, older ones one per pair).
fn last_row<'g>(graph: &'g dyn HeadGraph, name: &str, width: usize) -> Result<&'g [f32]> {
    let values = graph.output(name).ok_or_else(|| Error::Internal(format!("head output `{name}` missing")))?;
    let rows = values.len() / width;
    if rows == 0 {
        return Err(Error::Internal(format!("head output `{name}` has {} values, less than one row of {width}", values.len())));
    }
    Ok(&values[(rows - 1) * width..rows * width])
}

fn log_softmax(row: &[f32]) -> Vec<f64> {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
    let sum: f64 = row.iter().map(|&v| (v as f64 - max).exp()).sum();
    let lse = max + sum.ln();
    row.iter().map(|&v| v as f64 - lse).collect()
}

/// Indices of the `k` largest values, largest first (ties: lower index first).
fn top_k<T: Copy + PartialOrd>(row: &[T], k: usize) -> Vec<u32> {
    let mut best: Vec<u32> = Vec::with_capacity(k + 1);
    for (i, v) in row.iter().enumerate() {
        let pos = best.iter().position(|&b| row[b as usize] < *v).unwrap_or(best.len());
        if pos < k {
            best.insert(pos, i as u32);
            best.truncate(k);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::top_k;

    #[test]
    fn top_k_orders_and_breaks_ties_by_index() {
        assert_eq!(top_k(&[0.1f32, 0.5, 0.3, 0.5], 3), vec![1, 3, 2]);
        assert_eq!(top_k(&[1.0f64], 4), vec![0]);
    }
}

//! [`LanguageModel`]: one decoder graph plus the bookkeeping of its KV cache. The cache holds the committed
//! context in slots `0..len`; anything evaluated beyond `len` is tentative until committed. Rolling back is O(1):
//! `truncate` lowers `len`, and the next forward pass overwrites the stale slots.

use std::path::Path;

use crate::backend::{Backend, DecoderGraph};
use crate::contract::Manifest;
use crate::error::{Error, Result};
use crate::model::mask::{self, TokenTree};
use crate::model::pass_totals::PassTotals;

/// The default KV capacity when the config does not set `context_length`.
pub(crate) const DEFAULT_CONTEXT: usize = 2048;

/// Prefill runs in chunks of this many tokens, bounding the `[S, P + S]` bias and activations.
pub const PREFILL_CHUNK: usize = 512;

/// A decoder with its KV cache, as strategies use it.
pub struct LanguageModel {
    manifest: Manifest,
    graph: Box<dyn DecoderGraph>,
    len: usize,
    /// Set by `eval_tree`: how many tentative slots past `len` hold tree nodes.
    pending_tree: usize,
    /// Run one-token steps as two-token passes (see [`LanguageModel::set_batch_invariant`]).
    pad_single_steps: bool,
    /// Steps, chain and tree passes by their number of tokens (prompt prefill not counted).
    passes: PassTotals,
}

impl LanguageModel {
    /// Opens the model folder `dir` on `backend` with `context` KV slots (default: min(2048, model maximum)).
    pub fn open(backend: &dyn Backend, dir: &Path, context: Option<usize>) -> Result<Self> {
        let manifest = Manifest::load(dir)?;
        let max = manifest.dims.max_position_embeddings;
        let capacity = context.unwrap_or(DEFAULT_CONTEXT.min(max));
        if capacity > max {
            return Err(Error::model(dir, format!("context_length {capacity} exceeds the model's {max} positions")));
        }
        let graph = backend.open_decoder(&manifest, capacity)?;
        Ok(LanguageModel { manifest, graph, len: 0, pending_tree: 0, pad_single_steps: false, passes: PassTotals::default() })
    }

    /// The model's manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Committed tokens in the KV cache.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// KV slots in total.
    pub fn capacity(&self) -> usize {
        self.graph.capacity()
    }

    /// Logits width.
    pub fn vocab_size(&self) -> usize {
        self.manifest.dims.vocab_size
    }

    /// Where the graph runs.
    pub fn device(&self) -> String {
        self.graph.device()
    }

    fn ensure_room(&self, n: usize) -> Result<()> {
        if self.len + n > self.capacity() {
            return Err(Error::InvalidRequest(format!("{} cached + {n} new tokens exceed the context length {}", self.len, self.capacity())));
        }
        Ok(())
    }

    /// Runs one-token steps as two-token passes (the token plus a pad token after it, whose K/V lands in the next
    /// slot and is overwritten by the next step; its logits are not computed), or not. With kernels that take
    /// another path for a single row, this makes a k-token verification compute exactly the logits of k decode
    /// steps, which lossless speculative decoding needs.
    pub(crate) fn set_batch_invariant(&mut self, on: bool) {
        self.pad_single_steps = on;
    }

    /// Whether one-token steps are padded (see [`LanguageModel::set_batch_invariant`]; the load-time probe that
    /// decides it is `LanguageModel::ensure_batch_invariance` in engine/model/invariance.rs).
    pub fn is_batch_invariant(&self) -> bool {
        self.pad_single_steps
    }

    /// How many tokens can be verified after the pending one without touching the last slot a padded step
    /// needs: a padded (batch-invariant) model keeps its last slot free so every verified token sees the numerics
    /// its decode step would have.
    pub(crate) fn draft_room(&self) -> usize {
        let reserve = usize::from(self.pad_single_steps);
        self.capacity().saturating_sub(self.len + 1 + reserve)
    }

    /// Appends `tokens` to the cache (in chunks) and returns the logits after the last one.
    pub fn append(&mut self, tokens: &[u32]) -> Result<&[f32]> {
        if tokens.is_empty() {
            return Err(Error::InvalidRequest("nothing to append".into()));
        }
        self.ensure_room(tokens.len())?;
        self.pending_tree = 0;
        if tokens.len() == 1 && self.pad_single_steps && self.len + 2 <= self.capacity() {
            self.forward_padded(tokens[0])?;
            return Ok(self.last_logits(1));
        }
        for chunk in tokens.chunks(PREFILL_CHUNK) {
            self.fill_chain(chunk);
            let rows = &mut self.graph.inputs_mut().logits_rows;
            rows.clear();
            rows.push(chunk.len() as i64 - 1);
            // A one-token append is a decode step; more is a prompt (or its chunk): not a pass of the decode curve.
            self.run_staged(usize::from(tokens.len() == 1))?;
            self.len += chunk.len();
        }
        Ok(self.last_logits(1))
    }

    /// Appends `tokens` in ONE forward pass and returns `[tokens.len(), vocab]` logits: row `i` predicts the
    /// token after `tokens[i]`. This is chain verification: the caller truncates to what it accepts.
    pub fn append_all(&mut self, tokens: &[u32]) -> Result<&[f32]> {
        self.append_tail(tokens, tokens.len())
    }

    /// Appends `tokens` in ONE forward pass and returns logits for the last `rows` of them (`[rows, vocab]`), so a
    /// caller that re-feeds a few known tokens before its drafts pays the LM head only where it needs logits.
    pub(crate) fn append_tail(&mut self, tokens: &[u32], rows: usize) -> Result<&[f32]> {
        if tokens.is_empty() || rows == 0 || rows > tokens.len() {
            return Err(Error::InvalidRequest(format!("cannot take {rows} logits rows of {} tokens", tokens.len())));
        }
        self.ensure_room(tokens.len())?;
        self.pending_tree = 0;
        if tokens.len() == 1 && self.pad_single_steps && self.len + 2 <= self.capacity() {
            self.forward_padded(tokens[0])?;
            return Ok(self.last_logits(1));
        }
        self.fill_chain(tokens);
        let staged = &mut self.graph.inputs_mut().logits_rows;
        staged.clear();
        staged.extend((tokens.len() - rows) as i64..tokens.len() as i64);
        self.run_staged(tokens.len())?;
        self.len += tokens.len();
        Ok(self.last_logits(rows))
    }

    /// Evaluates a token tree on top of the committed context in one forward pass, without committing it.
    /// Returns `[nodes, vocab]` logits (row `i` predicts the child of node `i`). Follow with
    /// [`LanguageModel::commit_tree_path`] (or nothing, to discard).
    pub fn eval_tree(&mut self, tree: &TokenTree) -> Result<&[f32]> {
        tree.validate().map_err(Error::InvalidRequest)?;
        if tree.is_empty() {
            return Err(Error::InvalidRequest("empty token tree".into()));
        }
        self.ensure_room(tree.len())?;
        let staged = self.graph.inputs_mut();
        staged.input_ids.clear();
        staged.input_ids.extend(tree.tokens.iter().map(|&t| t as i64));
        tree.bias_and_positions(self.len, &mut staged.attention_bias, &mut staged.position_ids);
        staged.logits_rows.clear();
        staged.logits_rows.extend(0..tree.len() as i64);
        self.run_staged(tree.len())?;
        self.pending_tree = tree.len();
        Ok(self.last_logits(tree.len()))
    }

    /// Commits the nodes `path` (a root-to-node path of the last evaluated tree, in order): their K/V rows move
    /// down to contiguous slots and the context grows by `path.len()`.
    pub fn commit_tree_path(&mut self, path: &[usize]) -> Result<()> {
        if path.iter().any(|&n| n >= self.pending_tree) {
            return Err(Error::InvalidRequest(format!("path {path:?} is not inside the last evaluated tree ({} nodes)", self.pending_tree)));
        }
        let src: Vec<usize> = path.iter().map(|&n| self.len + n).collect();
        self.graph.compact_kv(&src, self.len)?;
        self.len += path.len();
        self.pending_tree = 0;
        Ok(())
    }

    /// Rolls the context back to `len` tokens (O(1)).
    pub fn truncate(&mut self, len: usize) -> Result<()> {
        if len > self.len {
            return Err(Error::InvalidRequest(format!("cannot truncate {} cached tokens to {len}", self.len)));
        }
        self.len = len;
        self.pending_tree = 0;
        Ok(())
    }

    /// Forgets the whole context (a new request).
    pub fn reset(&mut self) {
        self.len = 0;
        self.pending_tree = 0;
    }

    /// Cumulative seconds this model spent inside the backend's run call.
    pub fn backend_seconds(&self) -> f64 {
        self.graph.backend_seconds()
    }

    /// Run calls this model made so far.
    pub fn backend_calls(&self) -> u64 {
        self.graph.backend_calls()
    }

    /// A copy of the committed K/V, for tests and debugging (`None` when the backend cannot show it).
    pub fn read_kv(&self) -> Option<Vec<f32>> {
        self.graph.inspector().map(|i| i.read_kv(self.len))
    }

    /// Runs the graph over the staged inputs (ids, positions, bias, logits rows) on top of the committed cache,
    /// counting it as a pass of `tokens` tokens (0: not counted).
    fn run_staged(&mut self, tokens: usize) -> Result<()> {
        // The backend already times its run calls (`backend_seconds`): the pass's share is the difference.
        let before = self.graph.backend_seconds();
        self.graph.run(self.len)?;
        if tokens > 0 {
            self.passes.add(tokens, self.graph.backend_seconds() - before);
        }
        Ok(())
    }

    /// Every step, chain and tree pass this model ran, by its number of tokens (prompt prefill not counted); a
    /// generation's own are the difference of two reads.
    pub fn pass_totals(&self) -> &PassTotals {
        &self.passes
    }

    /// One token as a two-row pass: [token, token] at positions [len, len + 1], logits for row 0 only.
    fn forward_padded(&mut self, token: u32) -> Result<()> {
        self.fill_chain(&[token, token]);
        let rows = &mut self.graph.inputs_mut().logits_rows;
        rows.clear();
        rows.push(0);
        // Counted as the one-token step it is (its second row is padding).
        self.run_staged(1)?;
        self.len += 1;
        Ok(())
    }

    fn fill_chain(&mut self, tokens: &[u32]) {
        let len = self.len;
        let staged = self.graph.inputs_mut();
        staged.input_ids.clear();
        staged.input_ids.extend(tokens.iter().map(|&t| t as i64));
        staged.position_ids.clear();
        staged.position_ids.extend((len..len + tokens.len()).map(|p| p as i64));
        mask::causal(&mut staged.attention_bias, len, tokens.len());
    }

    /// The graph keeps the outputs of its last run; re-borrow them without another forward.
    fn last_logits(&self, rows: usize) -> &[f32] {
        &self.graph.logits()[..rows * self.vocab_size()]
    }

    /// Hidden states (`[S, hidden]`, the last layer's output before the final norm) of the last forward pass,
    /// when the model exports them (`--hidden-states`); `None` otherwise.
    pub fn last_hidden_states(&self) -> Option<&[f32]> {
        self.graph.hidden_states()
    }
}

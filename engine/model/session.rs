//! [`LanguageModel`]: one decoder graph plus the bookkeeping of its KV cache. The cache holds the committed
//! context in slots `0..len`; anything evaluated beyond `len` is tentative until committed. Rolling back is O(1):
//! `truncate` lowers `len`, and the next forward pass overwrites the stale slots.

use std::path::Path;

use crate::backend::{Backend, DecoderGraph, ForwardInputs};
use crate::error::{Error, Result};
use crate::model::mask::{self, TokenTree};
use crate::model::Manifest;

/// The default KV capacity when the config does not set `context_length`.
pub const DEFAULT_CONTEXT: usize = 2048;

/// Prefill runs in chunks of this many tokens, bounding the `[S, P + S]` bias and activations.
pub const PREFILL_CHUNK: usize = 512;

/// A decoder with its KV cache, as strategies use it.
pub struct LanguageModel {
    manifest: Manifest,
    graph: Box<dyn DecoderGraph>,
    len: usize,
    // Reused scratch buffers: steady-state steps allocate nothing.
    ids: Vec<i64>,
    positions: Vec<i64>,
    bias: Vec<f32>,
    rows: Vec<i64>,
    /// Set by `eval_tree`: how many tentative slots past `len` hold tree nodes.
    pending_tree: usize,
    /// Run one-token steps as two-token passes (see [`LanguageModel::set_batch_invariant`]).
    pad_single_steps: bool,
}

impl LanguageModel {
    /// Opens the model folder `dir` on `backend` with `context` KV slots (default: min(2048, model maximum)).
    pub fn open(backend: &dyn Backend, dir: &Path, context: Option<usize>) -> Result<Self> {
        let manifest = Manifest::load(dir)?;
        if manifest.kind != "decoder" {
            return Err(Error::model(dir, format!("kind `{}` is not a decoder", manifest.kind)));
        }
        let max = manifest.dims.max_position_embeddings;
        let capacity = context.unwrap_or(DEFAULT_CONTEXT.min(max));
        if capacity > max {
            return Err(Error::model(dir, format!("context_length {capacity} exceeds the model's {max} positions")));
        }
        let graph = backend.open_decoder(&manifest, capacity)?;
        Ok(LanguageModel {
            manifest,
            graph,
            len: 0,
            ids: Vec::new(),
            positions: Vec::new(),
            bias: Vec::new(),
            rows: Vec::new(),
            pending_tree: 0,
            pad_single_steps: false,
        })
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
            return Err(Error::InvalidRequest(format!(
                "{} cached + {n} new tokens exceed the context length {}",
                self.len,
                self.capacity()
            )));
        }
        Ok(())
    }

    /// Whether the graph's numerics depend on how many tokens a pass holds. MatMulNBits with int8 activations
    /// (accuracy level 4) takes a different kernel path for a single row than for several, and the logits differ
    /// by up to ~1.5; passes of two or more rows agree exactly row by row (measured on SmolLM2 int4).
    pub fn needs_padding_for_batch_invariance(&self) -> bool {
        self.manifest.precision.accuracy_level == Some(4)
    }

    /// Makes every pass batch-invariant: a one-token step runs as a two-token pass (the token plus a pad token
    /// after it, whose K/V lands in the next slot and is overwritten by the next step; its logits are not
    /// computed). Then a k-token verification gives exactly the logits of k decode steps, which is what lossless
    /// speculative decoding needs. Costs ~14% per decode step on SmolLM2 int4; off by default.
    pub fn set_batch_invariant(&mut self, on: bool) {
        self.pad_single_steps = on;
    }

    /// Whether one-token steps are padded (see [`LanguageModel::set_batch_invariant`]).
    pub fn is_batch_invariant(&self) -> bool {
        self.pad_single_steps
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
            self.rows.clear();
            self.rows.push(chunk.len() as i64 - 1);
            self.run_scratch()?;
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
    pub fn append_tail(&mut self, tokens: &[u32], rows: usize) -> Result<&[f32]> {
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
        self.rows.clear();
        self.rows.extend((tokens.len() - rows) as i64..tokens.len() as i64);
        self.run_scratch()?;
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
        self.ids.clear();
        self.ids.extend(tree.tokens.iter().map(|&t| t as i64));
        tree.bias_and_positions(self.len, &mut self.bias, &mut self.positions);
        self.rows.clear();
        self.rows.extend(0..tree.len() as i64);
        self.run_scratch()?;
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

    /// A copy of the committed K/V (see [`DecoderGraph::read_kv`]); for tests.
    pub fn read_kv(&self) -> Vec<f32> {
        self.graph.read_kv(self.len)
    }

    /// Runs the graph over the scratch buffers (ids, positions, bias, logits rows) on top of the committed cache.
    fn run_scratch(&mut self) -> Result<()> {
        self.graph.forward(&ForwardInputs {
            input_ids: &self.ids,
            position_ids: &self.positions,
            past_len: self.len,
            attention_bias: &self.bias,
            logits_rows: &self.rows,
        })?;
        Ok(())
    }

    /// One token as a two-row pass: [token, token] at positions [len, len + 1], logits for row 0 only.
    fn forward_padded(&mut self, token: u32) -> Result<()> {
        self.fill_chain(&[token, token]);
        self.rows.clear();
        self.rows.push(0);
        self.run_scratch()?;
        self.len += 1;
        Ok(())
    }

    fn fill_chain(&mut self, tokens: &[u32]) {
        self.ids.clear();
        self.ids.extend(tokens.iter().map(|&t| t as i64));
        self.positions.clear();
        self.positions.extend((self.len..self.len + tokens.len()).map(|p| p as i64));
        mask::causal(&mut self.bias, self.len, tokens.len());
    }

    /// The graph keeps the outputs of its last run; re-borrow them without another forward.
    fn last_logits(&self, rows: usize) -> &[f32] {
        &self.graph.last_logits()[..rows * self.vocab_size()]
    }

    /// Hidden states (`[S, hidden]`) of the last forward pass, when the model exports them.
    pub fn last_hidden_states(&self) -> Option<&[f32]> {
        self.graph.last_hidden_states()
    }
}

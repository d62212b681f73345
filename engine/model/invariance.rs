//! Batch invariance, decided by measurement. Lossless speculative decoding needs the target's k-token
//! verification pass to compute EXACTLY (bitwise) the logits that k one-token decode steps would. Whether it does
//! depends on the kernels, not on a manifest field: MatMulNBits with int8 activations takes another path for a
//! single row (logits differ by up to ~1.5 on SmolLM2 int4), and even fp32 / accuracy-level-0 graphs differ by
//! 2e-5..6e-5 between a 1-row and a k-row pass, while passes of two or more rows agree row by row.
//!
//! So at load, a lossless pipeline runs a short probe on its target: a few decode steps one token at a time,
//! unpadded and padded (each step as a two-row pass), against chain passes of several widths over the same
//! tokens. The first form that matches bitwise wins; if neither does the target is refused for greedy-lossless
//! strategies. The probe costs about twenty small passes (~0.2 s on SmolLM2-135M, ~1.2 s on a 1.5B model).

use crate::error::{Error, Result};
use crate::model::LanguageModel;

/// How a target runs so that verification equals decoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchInvariance {
    /// One-token steps already equal rows of multi-token passes: the fast unpadded path.
    Native,
    /// One-token steps run as two-row passes (the pad costs one extra row per decode step).
    Padded,
}

impl BatchInvariance {
    /// A word for the pipeline's ready line and statistics.
    pub fn as_str(self) -> &'static str {
        match self {
            BatchInvariance::Native => "native",
            BatchInvariance::Padded => "padded",
        }
    }
}

impl LanguageModel {
    /// Measures whether this graph's numerics depend on how many tokens a pass holds, and turns padding on when
    /// that makes k-token verification bit-identical to decode steps (see [`probe`]). Lossless strategies call
    /// this at load; the result says which mode the model now runs in. It lives here, not in session.rs, so the
    /// session does not depend on its own probe (the two files formed a cycle).
    pub fn ensure_batch_invariance(&mut self) -> Result<BatchInvariance> {
        let mode = probe(self)?;
        self.set_batch_invariant(mode == BatchInvariance::Padded);
        Ok(mode)
    }
}

/// Tokens of committed context before the probed steps.
const CONTEXT: usize = 5;
/// Decode steps probed; chain passes of every width in [`WIDTHS`] are compared with their prefix.
const STEPS: usize = 8;
/// Verification widths compared (rows of a chain pass).
const WIDTHS: [usize; 3] = [2, 3, 8];

/// Runs the probe on `model` (its context is reset before and after) and returns the mode that makes chain
/// passes bitwise equal to decode steps, without changing the model's mode.
pub fn probe(model: &mut LanguageModel) -> Result<BatchInvariance> {
    let vocab = model.vocab_size();
    if model.capacity() < CONTEXT + STEPS + 2 {
        // Too small a context to probe meaningfully: the padded form is the one that never depends on width 1.
        return Ok(BatchInvariance::Padded);
    }
    // Deterministic ids spread over the vocabulary (any ids exercise the same kernels).
    let tokens: Vec<u32> = (0..CONTEXT + STEPS).map(|i| ((i * 7919 + 13) % vocab) as u32).collect();
    let (context, chain) = tokens.split_at(CONTEXT);
    let was_padded = model.is_batch_invariant();
    let result = (|| {
        let unpadded = decode_steps(model, context, chain, false)?;
        let padded = decode_steps(model, context, chain, true)?;
        let mut worst = (0.0f32, 0.0f32);
        let mut native_ok = true;
        let mut padded_ok = true;
        for &w in &WIDTHS {
            model.reset();
            model.append(context)?;
            let rows = model.append_all(&chain[..w])?.to_vec();
            let n = w * vocab;
            let d_native = max_diff(&rows, &unpadded[..n]);
            let d_padded = max_diff(&rows, &padded[..n]);
            native_ok &= d_native == 0.0;
            padded_ok &= d_padded == 0.0;
            worst = (worst.0.max(d_native), worst.1.max(d_padded));
        }
        Ok::<_, Error>(if native_ok {
            Ok(BatchInvariance::Native)
        } else if padded_ok {
            Ok(BatchInvariance::Padded)
        } else {
            Err(worst)
        })
    })();
    model.reset();
    model.set_batch_invariant(was_padded);
    match result? {
        Ok(mode) => Ok(mode),
        Err((native, padded)) => Err(Error::model(
            &model.manifest().header.dir,
            format!(
                "not batch-invariant: a k-token verification pass differs from one-token decode steps by up to {native:e} \
                 (and from padded two-row steps by up to {padded:e}), so greedy speculative output could differ from \
                 AR; this target is refused for lossless strategies (set strategy.allow_lossy: true to run anyway)"
            ),
        )),
    }
}

/// Whether a token tree's side branches compute what chains compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SideBranches {
    /// Every node of a tree pass equals the chain pass over its own path, bitwise: a lossless walk may accept
    /// any node (the engine's attention kernel, which sums over a row's visible keys alone).
    Exact,
    /// Only the main chain (nodes 0, 1, ..., laid out first) is exact; a side node sees its ancestors at other
    /// key indices and its reductions round differently (ONNX Runtime's attention).
    MainChainOnly,
}

impl SideBranches {
    /// A word for the pipeline's statistics.
    pub fn as_str(self) -> &'static str {
        match self {
            SideBranches::Exact => "exact",
            SideBranches::MainChainOnly => "main_chain_only",
        }
    }
}

impl LanguageModel {
    /// Measures whether side branches of a token tree are exact (see [`probe_side_branches`]). Call after
    /// [`LanguageModel::ensure_batch_invariance`]: chain passes are the reference, in the mode it chose.
    pub fn side_branches(&mut self) -> Result<SideBranches> {
        probe_side_branches(self)
    }
}

/// The probe's tree below the root: (parent, token slot) per node; nodes 1-2 are the main chain, the rest side
/// branches at depths 1 to 3, under the root, under the main chain and under other side nodes.
const PROBE_TREE: [(usize, usize); 7] = [(0, 1), (1, 2), (0, 3), (3, 4), (1, 5), (4, 6), (0, 7)];

/// Runs one tree pass over [`PROBE_TREE`] after a short context and compares every node's logits with a chain
/// pass over the node's own path from the same context; then commits a side path and compares the next step
/// with the chain's (the compacted KV rows). Bitwise, like [`probe`]. Costs about ten small passes.
pub fn probe_side_branches(model: &mut LanguageModel) -> Result<SideBranches> {
    let vocab = model.vocab_size();
    let nodes = PROBE_TREE.len() + 1;
    if model.capacity() < CONTEXT + nodes + 2 {
        return Ok(SideBranches::MainChainOnly);
    }
    let tokens: Vec<u32> = (0..CONTEXT + nodes + 1).map(|i| ((i * 6007 + 101) % vocab) as u32).collect();
    let context = &tokens[..CONTEXT];
    let mut tree = crate::model::TokenTree::default();
    tree.push(tokens[CONTEXT], None);
    for &(parent, slot) in &PROBE_TREE {
        tree.push(tokens[CONTEXT + slot], Some(parent));
    }
    let next = tokens[CONTEXT + nodes];
    let result = (|| {
        model.reset();
        model.append(context)?;
        let rows = model.eval_tree(&tree)?.to_vec();
        // A side path: root, side node 3, its child 4.
        let side_path = tree.path_to(4);
        model.commit_tree_path(&side_path)?;
        let after_commit = model.append(&[next])?.to_vec();
        let mut exact = true;
        for node in 0..tree.len() {
            let path: Vec<u32> = tree.path_to(node).iter().map(|&n| tree.tokens[n]).collect();
            model.truncate(CONTEXT)?;
            let chain = model.append_all(&path)?;
            exact &= max_diff(&chain[(path.len() - 1) * vocab..], &rows[node * vocab..(node + 1) * vocab]) == 0.0;
        }
        let mut path: Vec<u32> = side_path.iter().map(|&n| tree.tokens[n]).collect();
        path.push(next);
        model.truncate(CONTEXT)?;
        let chain = model.append_all(&path)?;
        exact &= max_diff(&chain[(path.len() - 1) * vocab..], &after_commit) == 0.0;
        Ok::<_, Error>(exact)
    })();
    model.reset();
    Ok(if result? { SideBranches::Exact } else { SideBranches::MainChainOnly })
}

/// Logits after each of `chain`'s tokens, decoded one token at a time after `context` (`[chain.len(), vocab]`).
fn decode_steps(model: &mut LanguageModel, context: &[u32], chain: &[u32], padded: bool) -> Result<Vec<f32>> {
    model.set_batch_invariant(padded);
    model.reset();
    model.append(context)?;
    let mut out = Vec::with_capacity(chain.len() * model.vocab_size());
    for &t in chain {
        out.extend_from_slice(model.append(&[t])?);
    }
    Ok(out)
}

/// Largest absolute difference (NaN counts as infinitely different).
fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    let diff = |(x, y): (&f32, &f32)| {
        let d = (x - y).abs();
        if x == y {
            0.0
        } else if d.is_nan() {
            f32::INFINITY
        } else {
            d.max(f32::MIN_POSITIVE)
        }
    };
    a.iter().zip(b).map(diff).fold(0.0, f32::max)
}

#[cfg(test)]
mod tests {
    use super::max_diff;

    #[test]
    fn differences_are_exact() {
        assert_eq!(max_diff(&[1.0, 2.0], &[1.0, 2.0]), 0.0);
        assert!(max_diff(&[1.0, 2.0], &[1.0, 2.0 + f32::EPSILON * 2.0]) > 0.0);
        assert_eq!(max_diff(&[0.0], &[-0.0]), 0.0);
        assert_eq!(max_diff(&[f32::NAN], &[f32::NAN]), f32::INFINITY);
    }
}

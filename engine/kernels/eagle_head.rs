//! The EAGLE-style draft head (export/graph_draft_head.py, kind `eagle`) computed in one call, with the rows of
//! earlier calls remembered:
//!
//! ```text
//! per pair i (hidden state h_i, the token t_i after it):
//!   x_i = fc([embed(t_i) ; RMSNorm(h_i)]) + b ; k_i, v_i = RMSNorm(x_i) @ Wk^T, @ Wv^T     (rope: window index i)
//! the newest pair n only:
//!   q = RMSNorm(x_n) @ Wq^T ; x = x_n + (softmax(q k^T / sqrt(d_head)) v) @ Wo^T
//!   features = x + (silu(g) * u) @ Wdown^T  with  g, u = RMSNorm(x) @ Wgu^T
//!   logits = RMSNorm(features) @ W_lm^T       (the draft vocabulary's output rows)
//! ```
//!
//! Why one call: the same head as ONNX Runtime nodes (~45 of them besides the matmuls: Gather, Concat, Slice,
//! Reshape/Transpose per head split, the rotary's Split/Neg/Concat/Mul/Add, Softmax, ...) spent 0.43 ms of a 1.24 ms
//! call in per-node dispatch on a 2-vCPU Zen 4 (docs/HEADS.md, "The SmolLM2 EAGLE head on the engine's numerics").
//!
//! Why a row cache: a drafting round calls the head once per depth over a sliding window of up to 16 pairs, and
//! from one call to the next all but the newest one or two pairs are the same. `x_i` and the pair's q|k|v depend on
//! (t_i, h_i) alone (every step below is computed row by row, and the block matmul is batch-invariant by
//! construction), so a pair seen in a recent call is looked up by its exact token and hidden-state BITS instead of
//! recomputed: bit for bit the output of a full recomputation (unit test), at the cost of one or two rows of `fc`
//! and q|k|v instead of 16. The rotary is applied after the lookup, at the pair's window index of this call.

use super::attention::{attend, rope};
use super::block_matmul::{self, Isa, Projection};
use super::encoder_layer::{rms_norm_row, swiglu_row, EncoderLayerShape, EncoderLayerWeights};
use super::parallel::ParallelFor;
use super::Q8Rows;

/// The head's sizes (checked against the weights by [`EagleHeadWeights::check`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EagleHeadShape {
    /// Width `d` of the target's hidden states and of the head (a multiple of 32 and of `heads`, `d / heads` even).
    pub hidden: usize,
    /// Attention heads.
    pub heads: usize,
    /// SwiGLU width (a multiple of 32).
    pub ffn: usize,
    /// Draft vocabulary size: rows of the output matrix.
    pub vocab: usize,
    /// RMSNorm epsilon.
    pub eps: f32,
    /// Rotary base.
    pub rope_theta: f32,
}

/// The head's weights.
#[derive(Clone, Copy)]
pub struct EagleHeadWeights<'a> {
    /// Target token id -> row of `embed` (the graph's `draft_index`, out-of-vocabulary ids already mapped to the
    /// UNK row).
    pub index: &'a [i64],
    /// Embedding rows, `rows x d` row-major.
    pub embed: &'a [f32],
    /// RMSNorm scale of the hidden states, `d` values.
    pub hidden_norm: &'a [f32],
    /// `fc`: `[d, 2d]` (input: the embedding, then the normed hidden state).
    pub fc: Projection<'a>,
    /// `fc`'s bias, `d` values.
    pub fc_bias: &'a [f32],
    /// The decoder layer's norms and projections (the encoder layer's weights: the same pre-norm layer; here only
    /// the newest pair's row runs past the keys and values).
    pub layer: EncoderLayerWeights<'a>,
    /// RMSNorm scale before the output matrix.
    pub out_norm: &'a [f32],
    /// The output matrix: `[vocab, d]`.
    pub lm_head: Projection<'a>,
}

impl EagleHeadWeights<'_> {
    /// Checks every weight against `shape`; the message names the weight and both shapes.
    pub fn check(&self, shape: &EagleHeadShape) -> Result<(), String> {
        let (d, f, v) = (shape.hidden, shape.ffn, shape.vocab);
        if d == 0 || shape.heads == 0 || !d.is_multiple_of(shape.heads) || !(d / shape.heads).is_multiple_of(2) {
            return Err(format!("hidden {d} is not a positive multiple of num_heads {} with an even head width", shape.heads));
        }
        let layer = EncoderLayerShape { hidden: d, heads: shape.heads, ffn: f, eps: shape.eps };
        self.layer.check(&layer)?;
        for (name, len) in [("hidden_norm", self.hidden_norm.len()), ("fc_bias", self.fc_bias.len()), ("out_norm", self.out_norm.len())] {
            if len != d {
                return Err(format!("{name} has {len} values, expected hidden = {d}"));
            }
        }
        if self.embed.is_empty() || !self.embed.len().is_multiple_of(d) {
            return Err(format!("embed has {} values, not a positive multiple of hidden = {d}", self.embed.len()));
        }
        for (name, p, n, k) in [("fc", self.fc, d, 2 * d), ("lm_head", self.lm_head, v, d)] {
            if (p.n(), p.k()) != (n, k) {
                return Err(format!("{name} is [{}, {}], expected [{n}, {k}]", p.n(), p.k()));
            }
        }
        Ok(())
    }
}

/// Pairs remembered across calls: four windows of 16 (a round's calls see at most the window plus its depth).
const CACHED_PAIRS: usize = 64;

/// Output columns per parallel task of the small projections (two 16-column panels, as the encoder layer's).
const COLUMNS_PER_TASK: usize = 32;

/// Output columns per task of the output matrix: 12,288 rows in 48 tasks rather than 384 (one activation row, so
/// a task is short and its hand-off is what costs).
const LM_HEAD_COLUMNS_PER_TASK: usize = 256;

/// One remembered pair: its key (token, hidden-state bits) and what the head computes from it alone.
#[derive(Debug, Default)]
struct Pair {
    token: i64,
    hidden: Vec<f32>,
    /// `fc` output (the residual stream's start), `d` values.
    x: Vec<f32>,
    /// `RMSNorm(x) @ Wqkv^T` before the rotary, `3d` values.
    qkv: Vec<f32>,
    /// The call that last used it (least recently used pairs are replaced first).
    used: u64,
}

impl Pair {
    fn is(&self, token: i64, hidden: &[f32]) -> bool {
        self.token == token && self.hidden.len() == hidden.len() && self.hidden.iter().zip(hidden).all(|(a, b)| a.to_bits() == b.to_bits())
    }
}

/// Buffers of the head, reused across calls, and the pairs of recent calls.
#[derive(Debug)]
pub struct EagleScratch {
    remember: bool,
    calls: u64,
    pairs: Vec<Pair>,
    /// Per row of this call: its entry in `pairs`.
    slot: Vec<usize>,
    /// Entries of `pairs` computed by this call.
    misses: Vec<usize>,
    rows_computed: u64,
    rows_seen: u64,
    q8: Q8Rows,
    act: Vec<f32>,
    proj: Vec<f32>,
    normed: Vec<f32>,
    /// Rotary tables, `positions x d_head / 2` each, grown on demand.
    cos: Vec<f32>,
    sin: Vec<f32>,
    keys: Vec<f32>,
    values: Vec<f32>,
    zeros: Vec<f32>,
    scores: Vec<f32>,
    query: Vec<f32>,
    mixed: Vec<f32>,
    resid: Vec<f32>,
    gate_up: Vec<f32>,
}

impl EagleScratch {
    /// Empty buffers; pairs are remembered across calls.
    pub fn new() -> Self {
        Self::with_memory(true)
    }

    /// Empty buffers; `remember = false` recomputes every pair on every call (the reference the row cache is
    /// tested against).
    pub fn with_memory(remember: bool) -> Self {
        EagleScratch {
            remember,
            calls: 0,
            pairs: Vec::new(),
            slot: Vec::new(),
            misses: Vec::new(),
            rows_computed: 0,
            rows_seen: 0,
            q8: Q8Rows::new(),
            act: Vec::new(),
            proj: Vec::new(),
            normed: Vec::new(),
            cos: Vec::new(),
            sin: Vec::new(),
            keys: Vec::new(),
            values: Vec::new(),
            zeros: Vec::new(),
            scores: Vec::new(),
            query: Vec::new(),
            mixed: Vec::new(),
            resid: Vec::new(),
            gate_up: Vec::new(),
        }
    }

    /// Forgets every remembered pair (what they hold depends on the weights: call it when they change).
    pub fn forget(&mut self) {
        self.pairs.clear();
    }

    /// (pairs computed, pairs read) over all calls so far: how much the row cache saved.
    pub fn rows_computed_and_seen(&self) -> (u64, u64) {
        (self.rows_computed, self.rows_seen)
    }

    /// The entry of the pair (token, hidden) if remembered, marked as used by this call.
    fn find(&mut self, token: i64, hidden: &[f32]) -> Option<usize> {
        let calls = self.calls;
        let i = self.pairs.iter().position(|p| p.is(token, hidden))?;
        self.pairs[i].used = calls;
        Some(i)
    }

    /// A free entry for a new pair: a new one while there are fewer than [`CACHED_PAIRS`] (or every one is used by
    /// this call), else the least recently used.
    fn allocate(&mut self, token: i64, hidden: &[f32], d: usize) -> usize {
        let calls = self.calls;
        let reuse = if self.pairs.len() < CACHED_PAIRS {
            None
        } else {
            self.pairs.iter().enumerate().filter(|(_, p)| p.used < calls).min_by_key(|(_, p)| p.used).map(|(i, _)| i)
        };
        let i = reuse.unwrap_or_else(|| {
            self.pairs.push(Pair::default());
            self.pairs.len() - 1
        });
        let p = &mut self.pairs[i];
        p.token = token;
        p.hidden.clear();
        p.hidden.extend_from_slice(hidden);
        p.x.resize(d, 0.0);
        p.qkv.resize(3 * d, 0.0);
        p.used = calls;
        i
    }

    /// Grows the rotary tables to `positions` (angles in f64, as export/graph_draft_head.py's `rope_tables`).
    fn rope_tables(&mut self, positions: usize, half: usize, theta: f32) {
        let have = self.cos.len() / half;
        for pos in have..positions {
            for i in 0..half {
                let inv = 1.0 / f64::from(theta).powf((2 * i) as f64 / (2 * half) as f64);
                let angle = pos as f64 * inv;
                self.cos.push(angle.cos() as f32);
                self.sin.push(angle.sin() as f32);
            }
        }
    }
}

impl Default for EagleScratch {
    fn default() -> Self {
        Self::new()
    }
}

/// `y = x @ W^T` for all of `x`'s rows.
fn project(isa: Isa, w: Projection, x: &Q8Rows, y: &mut Vec<f32>, columns_per_task: usize, par: &dyn ParallelFor) {
    y.resize(x.rows() * w.n(), 0.0);
    block_matmul::matmul_parallel(isa, w, x, y, columns_per_task, par);
}

/// One head call over `ids.len()` pairs (`hidden_states`: as many rows of `shape.hidden`, oldest first): the newest
/// pair's `features` (`d` values) and `logits` (`shape.vocab` values).
///
/// # Errors
/// A token outside `index`, an index entry outside `embed`, no pairs, or `hidden_states` of another length: the
/// message says which (nothing is remembered from a refused call).
///
/// # Panics
/// If the weights disagree with `shape` (check them first with [`EagleHeadWeights::check`]) or an output has the
/// wrong length.
#[allow(clippy::too_many_arguments)]
pub fn eagle_head(
    isa: Isa,
    shape: &EagleHeadShape,
    w: &EagleHeadWeights,
    hidden_states: &[f32],
    ids: &[i64],
    s: &mut EagleScratch,
    par: &dyn ParallelFor,
    features: &mut [f32],
    logits: &mut [f32],
) -> Result<(), String> {
    let (d, f, heads) = (shape.hidden, shape.ffn, shape.heads);
    let rows = ids.len();
    if let Err(e) = w.check(shape) {
        panic!("eagle head weights: {e}");
    }
    assert!(features.len() == d && logits.len() == shape.vocab, "eagle head outputs: {} and {} values", features.len(), logits.len());
    if rows == 0 || hidden_states.len() != rows * d {
        return Err(format!("{} hidden-state values for {rows} pairs of width {d}", hidden_states.len()));
    }
    let embed_rows = w.embed.len() / d;
    // Every token is checked before any pair is remembered, so a refused call leaves the cache as it was.
    for (i, &t) in ids.iter().enumerate() {
        let row = usize::try_from(t).ok().and_then(|t| w.index.get(t)).copied();
        match row {
            None => return Err(format!("input_ids[{i}] = {t} is outside the draft index (0..{})", w.index.len())),
            Some(r) if r < 0 || r as usize >= embed_rows => {
                return Err(format!("draft_index[{t}] = {r} is outside the embedding's {embed_rows} rows"));
            }
            Some(_) => {}
        }
    }
    let hd = d / heads;
    let half = hd / 2;
    s.calls += 1;
    if !s.remember {
        s.pairs.clear();
    }

    // Which pairs are new: the others' x and q|k|v are read back as computed before.
    s.slot.clear();
    s.misses.clear();
    for r in 0..rows {
        let hidden = &hidden_states[r * d..(r + 1) * d];
        let i = match s.find(ids[r], hidden) {
            Some(i) => i,
            None => {
                let i = s.allocate(ids[r], hidden, d);
                s.misses.push(i);
                i
            }
        };
        s.slot.push(i);
    }
    s.rows_seen += rows as u64;
    s.rows_computed += s.misses.len() as u64;

    let m = s.misses.len();
    if m > 0 {
        // [embed(t) ; RMSNorm(h)] -> fc + bias -> x; RMSNorm(x) -> q|k|v, for the new pairs only.
        s.act.resize(m * 2 * d, 0.0);
        for (j, &i) in s.misses.iter().enumerate() {
            let p = &s.pairs[i];
            let row = w.index[p.token as usize] as usize;
            let (e, n) = s.act[j * 2 * d..(j + 1) * 2 * d].split_at_mut(d);
            e.copy_from_slice(&w.embed[row * d..(row + 1) * d]);
            rms_norm_row(&p.hidden, w.hidden_norm, shape.eps, n);
        }
        s.q8.quantize(&s.act, m, 2 * d);
        project(isa, w.fc, &s.q8, &mut s.proj, COLUMNS_PER_TASK, par);
        s.normed.resize(m * d, 0.0);
        for j in 0..m {
            let x = &mut s.proj[j * d..(j + 1) * d];
            x.iter_mut().zip(w.fc_bias).for_each(|(v, b)| *v += b);
            rms_norm_row(x, w.layer.attn_norm, shape.eps, &mut s.normed[j * d..(j + 1) * d]);
        }
        s.q8.quantize(&s.normed, m, d);
        let mut qkv = std::mem::take(&mut s.act);
        project(isa, w.layer.qkv, &s.q8, &mut qkv, COLUMNS_PER_TASK, par);
        for (j, &i) in s.misses.iter().enumerate() {
            let p = &mut s.pairs[i];
            p.x.copy_from_slice(&s.proj[j * d..(j + 1) * d]);
            p.qkv.copy_from_slice(&qkv[j * 3 * d..(j + 1) * 3 * d]);
        }
        s.act = qkv;
    }

    // Attention of the newest pair over every pair, rotary at the window index.
    s.rope_tables(rows, half, shape.rope_theta);
    s.keys.resize(heads * rows * hd, 0.0);
    s.values.resize(heads * rows * hd, 0.0);
    for (r, &i) in s.slot.iter().enumerate() {
        let qkv = &s.pairs[i].qkv;
        let (cos, sin) = (&s.cos[r * half..(r + 1) * half], &s.sin[r * half..(r + 1) * half]);
        for h in 0..heads {
            let at = (h * rows + r) * hd;
            let k = &mut s.keys[at..at + hd];
            k.copy_from_slice(&qkv[d + h * hd..d + (h + 1) * hd]);
            rope(k, cos, sin);
            s.values[at..at + hd].copy_from_slice(&qkv[2 * d + h * hd..2 * d + (h + 1) * hd]);
        }
    }
    let newest = &s.pairs[s.slot[rows - 1]];
    s.query.clear();
    s.query.extend_from_slice(&newest.qkv[..d]);
    let (cos, sin) = (&s.cos[(rows - 1) * half..rows * half], &s.sin[(rows - 1) * half..rows * half]);
    s.query.chunks_exact_mut(hd).for_each(|q| rope(q, cos, sin));
    s.zeros.resize(rows, 0.0);
    s.scores.resize(rows, 0.0);
    s.mixed.resize(d, 0.0);
    let scale = 1.0 / (hd as f32).sqrt();
    for h in 0..heads {
        let kv = h * rows * hd..(h + 1) * rows * hd;
        attend(
            &s.query[h * hd..(h + 1) * hd],
            &s.keys[kv.clone()],
            &s.values[kv],
            &s.zeros,
            rows,
            scale,
            &mut s.scores,
            &mut s.mixed[h * hd..(h + 1) * hd],
        );
    }
    s.resid.clear();
    s.resid.extend_from_slice(&newest.x);
    s.q8.quantize(&s.mixed, 1, d);
    project(isa, w.layer.o, &s.q8, &mut s.proj, COLUMNS_PER_TASK, par);
    s.resid.iter_mut().zip(&s.proj).for_each(|(v, o)| *v += o);

    // MLP, then the output matrix.
    s.normed.resize(d, 0.0);
    rms_norm_row(&s.resid, w.layer.ffn_norm, shape.eps, &mut s.normed[..d]);
    s.q8.quantize(&s.normed[..d], 1, d);
    project(isa, w.layer.gate_up, &s.q8, &mut s.gate_up, COLUMNS_PER_TASK, par);
    s.act.resize(f, 0.0);
    let (g, u) = s.gate_up[..2 * f].split_at(f);
    swiglu_row(g, u, &mut s.act[..f]);
    s.q8.quantize(&s.act[..f], 1, f);
    project(isa, w.layer.down, &s.q8, &mut s.proj, COLUMNS_PER_TASK, par);
    for ((o, r), p) in features.iter_mut().zip(&s.resid).zip(&s.proj) {
        *o = r + p;
    }
    rms_norm_row(features, w.out_norm, shape.eps, &mut s.normed[..d]);
    s.q8.quantize(&s.normed[..d], 1, d);
    block_matmul::matmul_parallel(isa, w.lm_head, &s.q8, logits, LM_HEAD_COLUMNS_PER_TASK, par);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::block_format::BlockFormat;
    use crate::kernels::parallel::Serial;
    use crate::kernels::test_weights::{q8_0, values};
    use crate::kernels::{BlockMatrix, PanelMatrix};

    const SHAPE: EagleHeadShape = EagleHeadShape { hidden: 64, heads: 4, ffn: 96, vocab: 80, eps: 1e-5, rope_theta: 10000.0 };
    /// Embedding rows (the last is UNK) and target vocabulary of the test head.
    const ROWS: usize = 41;
    const TARGET_VOCAB: usize = 50;

    /// Every weight of a random head: float vectors, and the six matrices as (Q8_0 blocks, decoded, n, k).
    struct Head {
        index: Vec<i64>,
        embed: Vec<f32>,
        norms: [Vec<f32>; 4],
        fc_bias: Vec<f32>,
        mats: Vec<(Vec<u8>, Vec<f32>, usize, usize)>,
    }

    fn head() -> Head {
        let (d, f, v) = (SHAPE.hidden, SHAPE.ffn, SHAPE.vocab);
        let norm = |seed| values(d, seed).iter().map(|x| 1.0 + 0.1 * x).collect::<Vec<_>>();
        let dims = [(d, 2 * d), (3 * d, d), (d, d), (2 * f, d), (d, f), (v, d)];
        Head {
            index: (0..TARGET_VOCAB as i64).map(|t| if t < ROWS as i64 - 1 { t } else { ROWS as i64 - 1 }).collect(),
            embed: values(ROWS * d, 11),
            norms: [norm(12), norm(13), norm(14), norm(15)],
            fc_bias: values(d, 16).iter().map(|x| 0.1 * x).collect(),
            mats: dims
                .iter()
                .enumerate()
                .map(|(i, &(n, k))| {
                    let (b, w) = q8_0(n, k, 20 + i as u64, 0.2);
                    (b, w, n, k)
                })
                .collect(),
        }
    }

    /// The head in f64 from the decoded weights, unquantized activations, every pair recomputed: what the kernel
    /// approximates.
    fn reference(h: &Head, hidden: &[f32], ids: &[i64]) -> (Vec<f64>, Vec<f64>) {
        let (d, f, heads) = (SHAPE.hidden, SHAPE.ffn, SHAPE.heads);
        let hd = d / heads;
        let lin = |x: &[f64], m: usize| -> Vec<f64> {
            let (_, w, n, k) = &h.mats[m];
            (0..*n).map(|j| x.iter().zip(&w[j * k..(j + 1) * k]).map(|(a, &b)| a * f64::from(b)).sum()).collect()
        };
        let norm = |x: &[f64], sc: &[f32]| -> Vec<f64> {
            let inv = 1.0 / (x.iter().map(|v| v * v).sum::<f64>() / x.len() as f64 + f64::from(SHAPE.eps)).sqrt();
            x.iter().zip(sc).map(|(v, &s)| v * inv * f64::from(s)).collect()
        };
        let rot = |x: &mut [f64], pos: usize| {
            for head in x.chunks_exact_mut(hd) {
                let (lo, hi) = head.split_at_mut(hd / 2);
                for i in 0..hd / 2 {
                    let ang = pos as f64 / 10000f64.powf((2 * i) as f64 / hd as f64);
                    let (a, b) = (lo[i], hi[i]);
                    lo[i] = a * ang.cos() - b * ang.sin();
                    hi[i] = b * ang.cos() + a * ang.sin();
                }
            }
        };
        let s = ids.len();
        let mut xs = Vec::new();
        let mut qkv = Vec::new();
        for r in 0..s {
            let row = h.index[ids[r] as usize] as usize;
            let hid: Vec<f64> = hidden[r * d..(r + 1) * d].iter().map(|&v| f64::from(v)).collect();
            let mut cat: Vec<f64> = h.embed[row * d..(row + 1) * d].iter().map(|&v| f64::from(v)).collect();
            cat.extend(norm(&hid, &h.norms[0]));
            let x: Vec<f64> = lin(&cat, 0).iter().zip(&h.fc_bias).map(|(a, &b)| a + f64::from(b)).collect();
            let mut p = lin(&norm(&x, &h.norms[1]), 1);
            rot(&mut p[..d], r);
            rot(&mut p[d..2 * d], r);
            xs.push(x);
            qkv.push(p);
        }
        let q = &qkv[s - 1][..d];
        let mut mixed = vec![0.0; d];
        for hh in 0..heads {
            let sc: Vec<f64> = (0..s)
                .map(|j| q[hh * hd..(hh + 1) * hd].iter().zip(&qkv[j][d + hh * hd..]).map(|(a, b)| a * b).sum::<f64>() / (hd as f64).sqrt())
                .collect();
            let mx = sc.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let e: Vec<f64> = sc.iter().map(|v| (v - mx).exp()).collect();
            let sum: f64 = e.iter().sum();
            for (j, p) in e.iter().enumerate() {
                for c in 0..hd {
                    mixed[hh * hd + c] += p / sum * qkv[j][2 * d + hh * hd + c];
                }
            }
        }
        let mut x: Vec<f64> = xs[s - 1].iter().zip(lin(&mixed, 2)).map(|(a, b)| a + b).collect();
        let gu = lin(&norm(&x, &h.norms[2]), 3);
        let act: Vec<f64> = (0..f).map(|j| gu[j] / (1.0 + (-gu[j]).exp()) * gu[f + j]).collect();
        x.iter_mut().zip(lin(&act, 4)).for_each(|(a, b)| *a += b);
        let logits = lin(&norm(&x, &h.norms[3]), 5);
        (x, logits)
    }

    /// The head's weights with the six matrices `m` (fc, qkv, o, gate_up, down, lm_head).
    fn weights<'a>(h: &'a Head, m: [Projection<'a>; 6]) -> EagleHeadWeights<'a> {
        let [fc, qkv, o, gate_up, down, lm_head] = m;
        let n = &h.norms;
        let layer = EncoderLayerWeights { attn_norm: &n[1], qkv, o, ffn_norm: &n[2], gate_up, down };
        EagleHeadWeights { index: &h.index, embed: &h.embed, hidden_norm: &n[0], fc, fc_bias: &h.fc_bias, layer, out_norm: &n[3], lm_head }
    }

    /// Runs `each(isa, weights)` for every instruction set this CPU has.
    fn for_each_isa(h: &Head, each: &mut dyn FnMut(Isa, &EagleHeadWeights)) {
        let blocks: Vec<BlockMatrix> = h.mats.iter().map(|(b, _, n, k)| BlockMatrix::new(BlockFormat::Q8_0, *n, *k, b).unwrap()).collect();
        let panels: Vec<Option<PanelMatrix>> = blocks.iter().map(PanelMatrix::new).collect();
        let mut isas = vec![Isa::Scalar];
        if Isa::detect().has_avx2() {
            isas.push(Isa::Avx2);
        }
        if Isa::detect() == Isa::Avx512Vnni {
            isas.push(Isa::Avx512Vnni);
        }
        for isa in isas {
            let proj = |i: usize| match (&panels[i], isa.uses_panels(BlockFormat::Q8_0)) {
                (Some(p), true) => Projection::Panels(p),
                _ => Projection::Blocks(&blocks[i]),
            };
            each(isa, &weights(h, [proj(0), proj(1), proj(2), proj(3), proj(4), proj(5)]));
        }
    }

    fn run(isa: Isa, w: &EagleHeadWeights, hidden: &[f32], ids: &[i64], s: &mut EagleScratch) -> (Vec<f32>, Vec<f32>) {
        let (mut feat, mut logits) = (vec![0.0; SHAPE.hidden], vec![0.0; SHAPE.vocab]);
        eagle_head(isa, &SHAPE, w, hidden, ids, s, &Serial, &mut feat, &mut logits).unwrap();
        (feat, logits)
    }

    fn max_diff(a: &[f32], b: &[f64]) -> f64 {
        a.iter().zip(b).fold(0.0, |m, (&x, y)| m.max((f64::from(x) - y).abs()))
    }

    #[test]
    fn the_fused_head_matches_the_f64_head_for_every_window_length() {
        let h = head();
        let d = SHAPE.hidden;
        for_each_isa(&h, &mut |isa, w| {
            for s in [1usize, 2, 5, 16] {
                let hidden: Vec<f32> = values(s * d, 100 + s as u64).iter().map(|v| 3.0 * v).collect();
                // Token 45 is outside the embedding's rows: the index maps it to UNK.
                let ids: Vec<i64> = (0..s as i64).map(|i| (i * 7 + 3) % 45 + if i == 0 { 2 } else { 0 }).collect();
                let (feat, logits) = run(isa, w, &hidden, &ids, &mut EagleScratch::new());
                let (want_f, want_l) = reference(&h, &hidden, &ids);
                let scale = want_l.iter().fold(0.0f64, |m, v| m.max(v.abs()));
                let (ef, el) = (max_diff(&feat, &want_f), max_diff(&logits, &want_l));
                // int8 activations against f64: a few percent of the values' range.
                assert!(el < 0.03 * scale && ef < 0.05, "{} S={s}: logits off by {el} (range {scale}), features by {ef}", isa.name());
                // Negative control: the newest pair's token matters.
                let mut other = ids.clone();
                *other.last_mut().unwrap() = (ids[s - 1] + 1) % 40;
                let (_, moved) = run(isa, w, &hidden, &other, &mut EagleScratch::new());
                let control = max_diff(&moved, &want_l);
                assert!(control > 3.0 * el, "{} S={s}: another token changed the logits by only {control}", isa.name());
            }
        });
    }

    #[test]
    fn remembered_pairs_give_the_bits_of_a_full_recomputation() {
        let h = head();
        let d = SHAPE.hidden;
        // A stream of 40 pairs; calls over sliding windows of up to 16 ending anywhere, plus "drafted" pairs
        // (fresh hidden rows) appended as a drafting round does, in an order that revisits older windows.
        let stream: Vec<f32> = values(40 * d, 7);
        let tokens: Vec<i64> = (0..40).map(|i| (i * 13 + 5) % TARGET_VOCAB as i64).collect();
        for_each_isa(&h, &mut |isa, w| {
            let (mut cached, mut fresh) = (EagleScratch::new(), EagleScratch::with_memory(false));
            let mut calls = 0;
            for end in [1usize, 2, 3, 9, 16, 17, 18, 21, 21, 30, 25, 40] {
                let start = end.saturating_sub(16);
                for drafted in 0..3usize {
                    let mut hidden = stream[start * d..end * d].to_vec();
                    let mut ids = tokens[start..end].to_vec();
                    for j in 0..drafted {
                        hidden.extend(values(d, 1000 + (end * 10 + j) as u64));
                        ids.push((end as i64 + j as i64) % TARGET_VOCAB as i64);
                    }
                    let a = run(isa, w, &hidden, &ids, &mut cached);
                    let b = run(isa, w, &hidden, &ids, &mut fresh);
                    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!((bits(&a.0), bits(&a.1)), (bits(&b.0), bits(&b.1)), "{} window {start}..{end} + {drafted}", isa.name());
                    calls += 1;
                }
            }
            let (computed, seen) = cached.rows_computed_and_seen();
            assert_eq!(fresh.rows_computed_and_seen().0, fresh.rows_computed_and_seen().1);
            assert!(computed * 3 < seen, "{}: the cache recomputed {computed} of {seen} pairs over {calls} calls", isa.name());
            // Negative control: one flipped bit of a remembered hidden state is a new pair, not a stale hit.
            let mut hidden = stream[..16 * d].to_vec();
            let ids = tokens[..16].to_vec();
            let before = run(isa, w, &hidden, &ids, &mut cached);
            hidden[15 * d + 3] = f32::from_bits(hidden[15 * d + 3].to_bits() ^ 1 << 20);
            let after = run(isa, w, &hidden, &ids, &mut cached);
            assert_ne!(before.1, after.1, "{}: a changed hidden state gave the remembered pair's logits", isa.name());
            assert_eq!(after, run(isa, w, &hidden, &ids, &mut EagleScratch::with_memory(false)));
            // After `forget` (new weights) every pair is computed again.
            let computed = cached.rows_computed_and_seen().0;
            cached.forget();
            run(isa, w, &hidden, &ids, &mut cached);
            assert_eq!(cached.rows_computed_and_seen().0, computed + 16);
        });
    }

    #[test]
    fn bad_tokens_are_refused_and_leave_the_memory_as_it_was() {
        let h = head();
        let d = SHAPE.hidden;
        for_each_isa(&h, &mut |isa, w| {
            let mut s = EagleScratch::new();
            let hidden = values(3 * d, 5);
            let good = run(isa, w, &hidden, &[1, 2, 3], &mut s);
            let (mut f, mut l) = (vec![0.0; d], vec![0.0; SHAPE.vocab]);
            let e = eagle_head(isa, &SHAPE, w, &hidden, &[1, 2, TARGET_VOCAB as i64], &mut s, &Serial, &mut f, &mut l).unwrap_err();
            assert!(e.contains("input_ids[2] = 50 is outside the draft index (0..50)"), "{e}");
            let e = eagle_head(isa, &SHAPE, w, &hidden, &[1, -4, 3], &mut s, &Serial, &mut f, &mut l).unwrap_err();
            assert!(e.contains("input_ids[1] = -4"), "{e}");
            let e = eagle_head(isa, &SHAPE, w, &hidden[..2 * d], &[1, 2, 3], &mut s, &Serial, &mut f, &mut l).unwrap_err();
            assert!(e.contains("for 3 pairs"), "{e}");
            assert_eq!(run(isa, w, &hidden, &[1, 2, 3], &mut s), good);
            assert_eq!(s.rows_computed_and_seen(), (3, 6));
        });
    }

    #[test]
    fn wrong_weight_shapes_are_named() {
        let h = head();
        let blocks: Vec<BlockMatrix> = h.mats.iter().map(|(b, _, n, k)| BlockMatrix::new(BlockFormat::Q8_0, *n, *k, b).unwrap()).collect();
        let p = |i: usize| Projection::Blocks(&blocks[i]);
        let w = weights(&h, [p(1), p(1), p(2), p(3), p(4), p(5)]);
        assert_eq!(w.check(&SHAPE).unwrap_err(), "fc is [192, 64], expected [64, 128]");
        let w = EagleHeadWeights { fc: p(0), out_norm: &h.norms[3][..8], ..w };
        assert_eq!(w.check(&SHAPE).unwrap_err(), "out_norm has 8 values, expected hidden = 64");
    }
}

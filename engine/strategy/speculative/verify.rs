//! The acceptance rules, in ONE place: every verifier (the speculative strategy's target and every HSDDW level)
//! decides a drafted token with [`accepts`] (min(1, p/q)) and replaces a rejected one with [`residual_draw`]
//! (norm(max(p - q, 0))), or compares with the argmax under greedy decoding. docs/METHODS.md section 1.
//!
//! For a whole chain, `rows` holds the verifier's logits after the pending token and after each draft token
//! (`draft.len() + 1` rows). Both chain rules extend `history` with the accepted draft tokens, so the
//! repetition penalty sees exactly what plain AR would.

use crate::sampling::{self, Sampler};

/// The outcome of verifying one draft.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    /// Draft tokens accepted (a prefix of the draft).
    pub accepted: usize,
    /// The token the target contributes after them (correction or bonus).
    pub bonus: u32,
}

/// Greedy: accept while the draft token equals the target's argmax; the bonus is the argmax after the last
/// accepted token. The output equals greedy AR of the target, token for token.
pub fn greedy(rows: &[f32], vocab: usize, draft: &[u32], sampler: &mut Sampler, history: &mut Vec<u32>) -> Verdict {
    for (i, &d) in draft.iter().enumerate() {
        let t = sampler.greedy(&rows[i * vocab..(i + 1) * vocab], history);
        if t != d {
            return Verdict { accepted: i, bonus: t };
        }
        history.push(d);
    }
    let k = draft.len();
    Verdict { accepted: k, bonus: sampler.greedy(&rows[k * vocab..(k + 1) * vocab], history) }
}

/// Exact acceptance of draft token `x` drawn from `q` (`None`: a deterministic draft, q(x) = 1) against the
/// verifier's distribution `p`, with a uniform `u` in [0, 1): accept with probability min(1, p(x) / q(x)).
pub fn accepts(p: &[f32], x: u32, q: Option<&[f32]>, u: f32) -> bool {
    let q_x = q.map_or(1.0, |q| q[x as usize]);
    u * q_x < p[x as usize]
}

/// The replacement for a rejected draft token `x`: a draw (with uniform `u`) from norm(max(p - q, 0)), or from
/// p without x for a deterministic draft. When the residual has no mass (p <= q everywhere, which only happens
/// within rounding, i.e. p == q) the draw is from p: the same law. `residual` is scratch space.
pub(crate) fn residual_draw(p: &[f32], x: u32, q: Option<&[f32]>, residual: &mut Vec<f32>, u: f32) -> u32 {
    residual.clear();
    match q {
        Some(q) => residual.extend(p.iter().zip(q).map(|(&a, &b)| (a - b).max(0.0))),
        None => {
            residual.extend_from_slice(p);
            residual[x as usize] = 0.0;
        }
    }
    if residual.iter().sum::<f32>() > 0.0 {
        sampling::draw(residual, u)
    } else {
        sampling::draw(p, u)
    }
}

/// How a rejected draft token is replaced.
// The hidden variant is a test-only negative control, not a way to mark the enum non-exhaustive.
#[allow(clippy::manual_non_exhaustive)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ResidualRule {
    /// Draw from norm(max(p - q, 0)): exact.
    #[default]
    Residual,
    /// Draw from p: what some reference code does. BIASED; exists only so tests can show the statistical test
    /// catches it.
    #[doc(hidden)]
    BiasedFromTarget,
}

/// Exact speculative sampling (Leviathan et al., Chen et al.): accept draft token x with probability
/// min(1, p(x) / q(x)); on rejection draw from norm(max(p - q, 0)); after a fully accepted draft draw the bonus
/// from p. `probs[i]` is the draft distribution of token i (`None`: one-hot, i.e. deterministic drafts).
/// The output has exactly the target's sampling distribution.
pub fn exact(
    rows: &[f32],
    vocab: usize,
    draft: &[u32],
    probs: Option<&[Vec<f32>]>,
    sampler: &mut Sampler,
    history: &mut Vec<u32>,
    residual: &mut Vec<f32>,
    rule: ResidualRule,
) -> Verdict {
    for (i, &x) in draft.iter().enumerate() {
        let q = probs.map(|q| q[i].as_slice());
        let u = sampler.uniform();
        let u2 = sampler.uniform();
        let p = sampler.distribution(&rows[i * vocab..(i + 1) * vocab], history);
        if accepts(p, x, q, u) {
            history.push(x);
            continue;
        }
        let bonus = match rule {
            ResidualRule::Residual => residual_draw(p, x, q, residual, u2),
            ResidualRule::BiasedFromTarget => sampling::draw(p, u2),
        };
        return Verdict { accepted: i, bonus };
    }
    let k = draft.len();
    let u = sampler.uniform();
    let p = sampler.distribution(&rows[k * vocab..(k + 1) * vocab], history);
    Verdict { accepted: k, bonus: sampling::draw(p, u) }
}

/// Scratch buffers one verification step reuses.
#[derive(Debug, Default)]
pub(crate) struct VerifyScratch {
    chain: Vec<u32>,
    residual: Vec<f32>,
}

/// One verification step of the target, shared by every speculative strategy: run the target ONCE over
/// `[pending, drafts...]`, accept a prefix (greedy match, or exact sampling against `probs`), roll the target back
/// to the committed length (O(1)) and record the step. Returns the verdict and the seconds it took.
#[allow(clippy::too_many_arguments)]
pub(crate) fn verify_and_commit(
    ctx: &mut crate::strategy::DecodeContext<'_, '_>,
    pending: u32,
    drafts: &[u32],
    probs: Option<&[Vec<f32>]>,
    history: &mut Vec<u32>,
    scratch: &mut VerifyScratch,
    rule: ResidualRule,
) -> crate::error::Result<(Verdict, f64)> {
    let t0 = std::time::Instant::now();
    let greedy = ctx.sampler.params().is_greedy();
    let vocab = ctx.target.vocab_size();
    let base = ctx.target.len();
    scratch.chain.clear();
    scratch.chain.push(pending);
    scratch.chain.extend_from_slice(drafts);
    let rows = ctx.target.append_all(&scratch.chain)?;
    ctx.stats.target_calls += 1;
    let verdict = if greedy {
        self::greedy(rows, vocab, drafts, ctx.sampler, history)
    } else {
        exact(rows, vocab, drafts, probs, ctx.sampler, history, &mut scratch.residual, rule)
    };
    ctx.target.truncate(base + 1 + verdict.accepted)?;
    let seconds = t0.elapsed().as_secs_f64();
    ctx.stats.verify_seconds += seconds;
    ctx.stats.record_step(drafts.len(), verdict.accepted);
    Ok((verdict, seconds))
}

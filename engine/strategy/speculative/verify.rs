//! Acceptance rules for a verified chain. `rows` holds the target's logits after the pending token and after each
//! draft token (`draft.len() + 1` rows). Both rules extend `history` with the accepted draft tokens, so the
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

/// How a rejected draft token is replaced.
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
        let q_x = probs.map_or(1.0, |q| q[i][x as usize]);
        let u = sampler.uniform();
        let p = sampler.distribution(&rows[i * vocab..(i + 1) * vocab], history);
        let p_x = p[x as usize];
        if u * q_x < p_x {
            history.push(x);
            continue;
        }
        if rule == ResidualRule::BiasedFromTarget {
            let u2 = sampler.uniform();
            let p = sampler.distribution(&rows[i * vocab..(i + 1) * vocab], history);
            return Verdict { accepted: i, bonus: sampling::draw(p, u2) };
        }
        residual.clear();
        match probs {
            Some(q) => residual.extend(p.iter().zip(&q[i]).map(|(&a, &b)| (a - b).max(0.0))),
            None => {
                residual.extend_from_slice(p);
                residual[x as usize] = 0.0;
            }
        }
        let mass: f32 = residual.iter().sum();
        let u2 = sampler.uniform();
        let bonus = if mass > 0.0 {
            sampling::draw(residual, u2)
        } else {
            // p <= q everywhere only within rounding: then p == q, and drawing from p is the same law.
            let p = sampler.distribution(&rows[i * vocab..(i + 1) * vocab], history);
            sampling::draw(p, u2)
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
pub struct VerifyScratch {
    chain: Vec<u32>,
    residual: Vec<f32>,
}

/// One verification step of the target, shared by every speculative strategy: run the target ONCE over
/// `[pending, drafts...]`, accept a prefix (greedy match, or exact sampling against `probs`), roll the target back
/// to the committed length (O(1)) and record the step. Returns the verdict and the seconds it took.
#[allow(clippy::too_many_arguments)]
pub fn verify_and_commit(
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

/// A plain target step when nothing was drafted: feed the pending token, sample the next (target time, counted
/// with verification).
pub fn plain_step(ctx: &mut crate::strategy::DecodeContext<'_, '_>, pending: u32, history: &[u32]) -> crate::error::Result<u32> {
    let t0 = std::time::Instant::now();
    let logits = ctx.target.append(&[pending])?;
    ctx.stats.target_calls += 1;
    let next = ctx.sampler.sample(logits, history);
    ctx.stats.verify_seconds += t0.elapsed().as_secs_f64();
    Ok(next)
}

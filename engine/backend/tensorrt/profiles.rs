//! The optimization profiles of a decoder plan, derived from its manifest's symbolic dimensions. TensorRT tunes
//! kernels for one shape per profile (`opt`) and accepts any shape within `[min, max]`, so a decoder gets two:
//! `prefill` (long prompts, tuned at a typical prompt chunk) and `decode` (one-token steps and k-token verify
//! passes, tuned at one token). The KV binding's `capacity` axis is fixed to the pipeline's context length: the
//! shared KV buffer is allocated once at that size (export/CONTRACT.md, "KV cache").

use super::library::{InputRange, ProfileShapes};
use crate::contract::tensor::{Dim, TensorSpec};
use crate::error::{Error, Result};

/// The token counts the profiles cover.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProfileLimits {
    /// KV cache slots (the pipeline's `context_length`).
    pub capacity: i64,
    /// Longest prompt chunk one prefill pass takes.
    pub prefill_max: i64,
    /// The prompt chunk TensorRT tunes the prefill profile for.
    pub prefill_opt: i64,
    /// Longest decode/verify pass (tokens of a token tree or a SPACE step included).
    pub verify_max: i64,
}

impl ProfileLimits {
    /// Checks the limits against each other.
    pub fn validate(&self) -> Result<()> {
        let ok = self.capacity >= 2
            && (1..=self.capacity).contains(&self.prefill_max)
            && (1..=self.prefill_max).contains(&self.prefill_opt)
            && (1..=self.capacity).contains(&self.verify_max);
        if ok {
            Ok(())
        } else {
            Err(Error::TensorRt(format!(
                "profile limits need 1 <= prefill_opt ({}) <= prefill_max ({}) <= capacity ({}) and 1 <= verify_max ({}) <= capacity",
                self.prefill_opt, self.prefill_max, self.capacity, self.verify_max
            )))
        }
    }
}

/// `(min, opt, max)` of one symbolic dimension in one profile.
fn symbol_range(symbol: &str, profile: &str, l: &ProfileLimits) -> Option<(i64, i64, i64)> {
    let (tokens_opt, tokens_max) = if profile == "prefill" { (l.prefill_opt, l.prefill_max) } else { (1, l.verify_max) };
    Some(match symbol {
        // One sequence per plan: the engine batches requests as separate sessions (docs/SERVING.md).
        "batch" => (1, 1, 1),
        // New tokens of the pass; logits rows requested are at most that many.
        "seq" | "rows" => (1, tokens_opt, tokens_max),
        // Cached plus new tokens seen by the attention bias; tuned at half the context.
        "past_plus_seq" => (1, (l.capacity / 2).max(tokens_opt), l.capacity),
        // The shared KV buffer: always the full allocation.
        "capacity" => (l.capacity, l.capacity, l.capacity),
        _ => return None,
    })
}

/// The value range of an input of the contract whose values may size tensors in the GPU form (the plain
/// attention slices the cache to `total_sequence_length` and places the new rows from `seqlens_k`): TensorRT
/// makes such inputs shape tensors, which need value ranges in every profile.
fn value_range(name: &str, profile: &str, l: &ProfileLimits) -> Option<(i64, i64, i64)> {
    let tokens_opt = if profile == "prefill" { l.prefill_opt } else { 1 };
    let total_opt = (l.capacity / 2).max(tokens_opt);
    match name {
        "total_sequence_length" => Some((1, total_opt, l.capacity)),
        "seqlens_k" => Some((0, total_opt - 1, l.capacity - 1)),
        _ => None,
    }
}

/// The ranges of every input with a symbolic dimension or a value range, for the `prefill` and `decode` profiles.
pub fn decoder_profiles(inputs: &[TensorSpec], limits: &ProfileLimits) -> Result<Vec<ProfileShapes>> {
    limits.validate()?;
    ["prefill", "decode"]
        .iter()
        .map(|&profile| {
            let mut ranges = Vec::new();
            for input in inputs {
                let values = value_range(&input.name, profile, limits);
                if values.is_none() && input.shape.iter().all(|d| matches!(d, Dim::Fixed(_))) {
                    continue; // static inputs need no range
                }
                let mut r = InputRange { name: input.name.clone(), min: vec![], opt: vec![], max: vec![], values: vec![] };
                for dim in &input.shape {
                    let (lo, opt, hi) = match dim {
                        Dim::Fixed(n) => (*n, *n, *n),
                        Dim::Symbolic(s) => symbol_range(s, profile, limits).ok_or_else(|| {
                            Error::TensorRt(format!(
                                "input {}: dimension `{s}` has no profile range (known: batch, seq, rows, past_plus_seq, capacity)",
                                input.name
                            ))
                        })?,
                    };
                    r.min.push(lo);
                    r.opt.push(opt);
                    r.max.push(hi);
                }
                // one value per element: a scalar, or one per sequence of the batch (always 1 here)
                if let Some(v) = values {
                    r.values = vec![v; r.max.iter().product::<i64>().max(1) as usize];
                }
                ranges.push(r);
            }
            Ok(ProfileShapes { name: profile.to_string(), inputs: ranges })
        })
        .collect()
}

/// Which profile serves a pass of `tokens` new tokens: the decode profile up to its maximum (the plans' tuned
/// shape for steps and verify passes), prefill beyond.
pub fn profile_for(tokens: i64, limits: &ProfileLimits) -> usize {
    if tokens <= limits.verify_max {
        1
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::tensor::DType;

    fn spec(name: &str, shape: &[&str]) -> TensorSpec {
        let shape = shape.iter().map(|s| s.parse::<i64>().map(Dim::Fixed).unwrap_or_else(|_| Dim::Symbolic(s.to_string()))).collect();
        TensorSpec { name: name.into(), dtype: DType::Float32, shape }
    }

    fn limits() -> ProfileLimits {
        ProfileLimits { capacity: 2048, prefill_max: 512, prefill_opt: 128, verify_max: 64 }
    }

    #[test]
    fn every_symbolic_input_gets_a_range_in_both_profiles() {
        let inputs = vec![
            spec("input_ids", &["batch", "seq"]),
            spec("attention_bias", &["batch", "1", "seq", "past_plus_seq"]),
            spec("logits_indices", &["rows"]),
            spec("past_key.0", &["batch", "2", "capacity", "16"]),
            spec("total_sequence_length", &[]),
        ];
        let p = decoder_profiles(&inputs, &limits()).unwrap();
        assert_eq!(p.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["prefill", "decode"]);
        // The scalar has no symbolic dimension, but its values may size tensors: a value range.
        assert_eq!(p[0].inputs.len(), 5);
        let total = &p[1].inputs[4];
        assert_eq!((total.min.len(), total.values.clone()), (0, vec![(1, 1024, 2048)]));
        assert!(p[0].inputs[..4].iter().all(|r| r.values.is_empty()));
        let bias = &p[0].inputs[1];
        assert_eq!((bias.min.clone(), bias.opt.clone(), bias.max.clone()), (vec![1, 1, 1, 1], vec![1, 1, 128, 1024], vec![1, 1, 512, 2048]));
        let ids = &p[1].inputs[0];
        assert_eq!((ids.min.clone(), ids.opt.clone(), ids.max.clone()), (vec![1, 1], vec![1, 1], vec![1, 64]));
        let kv = &p[1].inputs[3];
        assert_eq!(kv.min, vec![1, 2, 2048, 16]);
        assert_eq!(kv.min, kv.max);
    }

    #[test]
    fn an_unknown_symbol_or_bad_limits_are_named() {
        let e = decoder_profiles(&[spec("x", &["batch", "mystery"])], &limits()).unwrap_err().to_string();
        assert!(e.contains("input x") && e.contains("`mystery`"), "{e}");
        let bad = ProfileLimits { verify_max: 4096, ..limits() };
        let e = decoder_profiles(&[], &bad).unwrap_err().to_string();
        assert!(e.contains("verify_max (4096)"), "{e}");
    }

    #[test]
    fn passes_up_to_verify_max_use_the_decode_profile() {
        let l = limits();
        assert_eq!(profile_for(1, &l), 1);
        assert_eq!(profile_for(64, &l), 1);
        assert_eq!(profile_for(65, &l), 0);
    }
}

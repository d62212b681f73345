//! Source upsampling by MASK insertion (CTCPMLM): the encoder needs more positions than output tokens, because
//! CTC spends positions on blanks and on separating repeated tokens. Source token `i` of `n` goes to position
//! `floor(i * L / n)` of the `L` output positions, `<mask>` fills the rest, so a fractional rate spreads the
//! masks evenly. The training recipe (export/train_ctc_nat.py) uses the same rule; the tests pin both.

use crate::error::{Error, Result};

/// Output positions for `n_src` source tokens at `rate`: `round(rate * n)`, at least `n`, at most `limit`.
pub(crate) fn upsampled_length(n_src: usize, rate: f32, limit: usize) -> usize {
    let wanted = (rate as f64 * n_src as f64).round() as usize;
    wanted.min(limit).max(n_src.min(limit))
}

/// `source` with `mask_id` inserted to [`upsampled_length`] positions. A source longer than `limit` cannot be
/// placed at all (every source token needs a position): that is an error naming both numbers, never a silent
/// truncation.
pub fn upsample(source: &[u32], rate: f32, limit: usize, mask_id: u32) -> Result<Vec<u32>> {
    if source.is_empty() {
        return Err(Error::InvalidRequest("the source text is empty (no tokens)".into()));
    }
    if source.len() > limit {
        return Err(Error::PromptTooLong { prompt_tokens: source.len(), context: limit, model_max: limit });
    }
    let n = source.len();
    let length = upsampled_length(n, rate, limit);
    let mut out = vec![mask_id; length];
    for (i, &t) in source.iter().enumerate() {
        out[i * length / n] = t;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: u32 = 99;

    #[test]
    fn integer_rate_follows_each_token_with_masks() {
        assert_eq!(upsample(&[1, 2, 3], 2.0, 100, M).unwrap(), vec![1, M, 2, M, 3, M]);
        assert_eq!(upsample(&[1, 2], 3.0, 100, M).unwrap(), vec![1, M, M, 2, M, M]);
        assert_eq!(upsample(&[7], 1.0, 100, M).unwrap(), vec![7]);
    }

    #[test]
    fn fractional_rate_spreads_masks_evenly() {
        // 4 tokens at 1.5 -> 6 positions: tokens at 0, 1, 3, 4 (floor(i * 6 / 4)), masks at 2 and 5.
        assert_eq!(upsample(&[1, 2, 3, 4], 1.5, 100, M).unwrap(), vec![1, 2, M, 3, 4, M]);
        // 10 tokens at 2.5 -> 25 positions, one mask run of 1 or 2 after every token, never two tokens adjacent.
        let out = upsample(&(1..=10).collect::<Vec<_>>(), 2.5, 100, M).unwrap();
        assert_eq!(out.len(), 25);
        let positions: Vec<usize> = out.iter().enumerate().filter(|(_, &t)| t != M).map(|(i, _)| i).collect();
        assert_eq!(positions.len(), 10);
        for w in positions.windows(2) {
            assert!((2..=3).contains(&(w[1] - w[0])), "gaps must be 2 or 3: {positions:?}");
        }
    }

    #[test]
    fn order_and_every_source_token_are_kept() {
        for n in 1..40usize {
            for rate in [1.0f32, 1.3, 2.0, 2.7, 3.0] {
                let src: Vec<u32> = (0..n as u32).collect();
                let out = upsample(&src, rate, 64, M).unwrap();
                let kept: Vec<u32> = out.iter().copied().filter(|&t| t != M).collect();
                assert_eq!(kept, src, "n {n} rate {rate}");
                assert_eq!(out.len(), upsampled_length(n, rate, 64));
            }
        }
    }

    #[test]
    fn length_is_clipped_to_the_position_limit() {
        // 30 tokens at rate 3 would need 90 positions; the limit is 64: the rate shrinks, no token is lost.
        let src: Vec<u32> = (0..30).collect();
        let out = upsample(&src, 3.0, 64, M).unwrap();
        assert_eq!(out.len(), 64);
        assert_eq!(out.iter().filter(|&&t| t != M).count(), 30);
        // exactly at the limit: no masks at all
        let src: Vec<u32> = (0..64).collect();
        assert_eq!(upsample(&src, 2.0, 64, M).unwrap(), src);
    }

    #[test]
    fn too_long_or_empty_sources_are_errors() {
        let src: Vec<u32> = (0..65).collect();
        assert!(matches!(upsample(&src, 2.0, 64, M), Err(Error::PromptTooLong { prompt_tokens: 65, context: 64, .. })));
        assert!(matches!(upsample(&[], 2.0, 64, M), Err(Error::InvalidRequest(_))));
    }
}

//! Plain autoregressive decoding: one target forward pass per token. The reference every other strategy's
//! output is checked against.

use super::{decode_loop, DecodeContext, RoundOutcome, Strategy};
use crate::error::Result;

/// One token per target step.
#[derive(Debug, Default, Clone, Copy)]
pub struct Autoregressive;

impl Strategy for Autoregressive {
    fn name(&self) -> &'static str {
        "ar"
    }

    fn exact_under_sampling(&self) -> bool {
        true
    }

    /// One token per pass: AR runs the fastest unpadded path.
    fn verifies_in_batches(&self) -> bool {
        false
    }

    fn generate(&mut self, ctx: &mut DecodeContext<'_, '_>) -> Result<()> {
        decode_loop(ctx, |ctx, pending, history, _budget| {
            let logits = ctx.target.append(&[pending])?;
            ctx.stats.target_calls += 1;
            Ok(RoundOutcome { accepted: 0, next: ctx.sampler.sample(logits, history) })
        })
    }
}

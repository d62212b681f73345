//! Plain autoregressive decoding: one target forward pass per token. The reference every other strategy's
//! output is checked against.

use super::{prefill_and_sample, DecodeContext, Strategy};
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

    fn generate(&mut self, ctx: &mut DecodeContext<'_, '_>) -> Result<()> {
        // The repetition penalty looks at prompt + output; keep one growing history.
        let mut history = Vec::with_capacity(ctx.prompt.len() + 256);
        history.extend_from_slice(ctx.prompt);
        let mut token = prefill_and_sample(ctx, &history)?;
        loop {
            history.push(token);
            if !ctx.sink.push(token)? {
                return Ok(());
            }
            if ctx.target.len() + 1 > ctx.target.capacity() {
                ctx.sink.context_full();
                return Ok(());
            }
            let logits = ctx.target.append(&[token])?;
            ctx.stats.target_calls += 1;
            token = ctx.sampler.sample(logits, &history);
        }
    }
}

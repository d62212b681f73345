//! What the target's passes cost while decoding, by their number of tokens: one-token steps, k-token chain
//! verifications, token trees. The same curve examples/pass_cost and the cost-model window measure in isolation,
//! here as decoding met it (other contexts, other neighbours on the machine, the rounds in between).
//!
//! Why it is kept: on a 2-core AMD EPYC Zen 4 VM (2026-12-06) verify passes in a benchmark's decode cost 1.24 /
//! 1.49 / 3.30 one-token steps at 2 / 3 / 9 tokens where examples/pass_cost had measured 1.11 / 1.19 / 2.30 on the
//! same machine the session before: a speedup modelled from the isolated curve was ~15% above the one measured.
//! The bench now reports both (docs/BENCHMARKS.md, "Target passes in decode").

use serde::Serialize;

/// Passes of more tokens than this are not counted (they are prefill chunks, whose cost the bench reports apart).
pub const COUNTED_PASS_TOKENS: usize = 64;

/// Passes counted by size: `calls[n - 1]` passes of n tokens took `seconds[n - 1]` inside the backend in all.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PassTotals {
    calls: Vec<u64>,
    seconds: Vec<f64>,
}

/// One size's totals, as reports show them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PassRow {
    /// Tokens in the pass.
    pub tokens: usize,
    /// Passes of that size.
    pub calls: u64,
    /// Their mean wall time inside the backend, milliseconds.
    pub mean_ms: f64,
    /// `mean_ms` over the mean one-token pass of the same totals (0 when there was none).
    pub steps: f64,
}

impl PassTotals {
    /// Counts one pass of `tokens` tokens that took `seconds` (ignored past [`COUNTED_PASS_TOKENS`] or at 0).
    pub(crate) fn add(&mut self, tokens: usize, seconds: f64) {
        if tokens == 0 || tokens > COUNTED_PASS_TOKENS {
            return;
        }
        self.grow(tokens);
        self.calls[tokens - 1] += 1;
        self.seconds[tokens - 1] += seconds;
    }

    /// Room for passes of up to `sizes` tokens.
    fn grow(&mut self, sizes: usize) {
        if self.calls.len() < sizes {
            self.calls.resize(sizes, 0);
            self.seconds.resize(sizes, 0.0);
        }
    }

    /// Adds `other`'s passes to these.
    pub fn merge(&mut self, other: &PassTotals) {
        self.grow(other.calls.len());
        for (i, (&c, &s)) in other.calls.iter().zip(&other.seconds).enumerate() {
            self.calls[i] += c;
            self.seconds[i] += s;
        }
    }

    /// The passes of all of `parts` together.
    pub fn sum<'a>(parts: impl IntoIterator<Item = &'a PassTotals>) -> PassTotals {
        parts.into_iter().fold(PassTotals::default(), |mut t, p| {
            t.merge(p);
            t
        })
    }

    /// The passes counted after `before` was taken (of the same model): these totals minus `before`'s. Totals
    /// only grow, so `before` is never ahead; if it were, its sizes would read as none rather than wrap.
    pub(crate) fn since(&self, before: &PassTotals) -> PassTotals {
        let mut out = self.clone();
        for (i, (c, s)) in out.calls.iter_mut().zip(out.seconds.iter_mut()).enumerate() {
            let (bc, bs) = (before.calls.get(i).copied().unwrap_or(0), before.seconds.get(i).copied().unwrap_or(0.0));
            *c = c.saturating_sub(bc);
            *s = if *c == 0 { 0.0 } else { (*s - bs).max(0.0) };
        }
        out
    }

    /// Passes counted, all sizes.
    pub fn total_calls(&self) -> u64 {
        self.calls.iter().sum()
    }

    /// Mean seconds of an n-token pass, if any was counted.
    pub fn mean_seconds(&self, tokens: usize) -> Option<f64> {
        let i = tokens.checked_sub(1)?;
        let c = *self.calls.get(i)?;
        (c > 0).then(|| self.seconds[i] / c as f64)
    }

    /// Every size with at least one pass, smallest first.
    pub fn rows(&self) -> Vec<PassRow> {
        let one = self.mean_seconds(1);
        (1..=self.calls.len())
            .filter_map(|n| {
                let mean = self.mean_seconds(n)?;
                Some(PassRow { tokens: n, calls: self.calls[n - 1], mean_ms: 1e3 * mean, steps: one.map_or(0.0, |o| mean / o) })
            })
            .collect()
    }
}

impl Serialize for PassTotals {
    /// As the list of [`PassRow`]s.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.rows().serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_are_counted_by_size_and_prefill_chunks_are_not() {
        let mut t = PassTotals::default();
        t.add(1, 0.004);
        t.add(1, 0.006);
        t.add(3, 0.009);
        t.add(COUNTED_PASS_TOKENS + 1, 1.0);
        t.add(0, 1.0);
        assert_eq!(t.total_calls(), 3);
        let rows = t.rows();
        assert_eq!(rows.iter().map(|r| (r.tokens, r.calls)).collect::<Vec<_>>(), vec![(1, 2), (3, 1)]);
        assert!((rows[0].mean_ms - 5.0).abs() < 1e-9 && (rows[1].steps - 1.8).abs() < 1e-9);
        assert_eq!(t.mean_seconds(2), None);
    }

    #[test]
    fn totals_merge_and_subtract() {
        let mut before = PassTotals::default();
        before.add(2, 0.01);
        let mut after = before.clone();
        after.add(2, 0.03);
        after.add(5, 0.05);
        let d = after.since(&before);
        assert_eq!(d.rows().iter().map(|r| (r.tokens, r.calls)).collect::<Vec<_>>(), vec![(2, 1), (5, 1)]);
        assert!((d.mean_seconds(2).unwrap() - 0.03).abs() < 1e-12);
        let mut sum = PassTotals::default();
        sum.merge(&d);
        sum.merge(&before);
        assert_eq!(sum.total_calls(), 3);
        assert!((sum.mean_seconds(2).unwrap() - 0.02).abs() < 1e-12);
        assert_eq!(serde_json::to_value(&sum).unwrap()[1]["tokens"], 5);
    }
}

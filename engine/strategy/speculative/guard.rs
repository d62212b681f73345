//! The payoff guard: a speculative pipeline must never be much slower than plain decoding. Drafting rounds and
//! plain target steps are timed; when the running tokens/s of drafting rounds falls below that of plain steps,
//! drafting stops for a while (plain steps only: still exact, the same numerics) and is probed again after a
//! back-off that doubles each time it still does not pay (16 rounds up to 512). A plain step is measured early
//! in every request so the comparison has a reference.

/// Weight of the newest observation in the running rates.
const EWMA: f64 = 0.2;
/// Drafting must reach this share of the plain rate to continue (noise margin).
const MARGIN: f64 = 0.97;
/// Drafting rounds before the first reference plain step.
const WARMUP: usize = 4;
/// First and largest back-off, in rounds.
const BACKOFF_MIN: usize = 16;
const BACKOFF_MAX: usize = 512;

/// Decides, round by round, whether drafting pays.
#[derive(Debug, Clone)]
pub(crate) struct PayoffGuard {
    enabled: bool,
    draft_rate: Option<f64>,
    plain_rate: Option<f64>,
    draft_rounds: usize,
    skip: usize,
    backoff: usize,
    /// Rounds that did not draft because drafting did not pay (for statistics).
    pub skipped: usize,
}

impl PayoffGuard {
    /// A guard; `enabled: false` always drafts.
    pub fn new(enabled: bool) -> Self {
        PayoffGuard { enabled, draft_rate: None, plain_rate: None, draft_rounds: 0, skip: 0, backoff: BACKOFF_MIN, skipped: 0 }
    }

    /// Forgets the request's measurements.
    pub fn reset(&mut self) {
        *self = PayoffGuard::new(self.enabled);
    }

    /// Whether this round should draft.
    pub(crate) fn should_draft(&mut self) -> bool {
        if !self.enabled {
            return true;
        }
        if self.skip > 0 {
            self.skip -= 1;
            self.skipped += 1;
            return false;
        }
        // One reference plain step after the warm-up, so the comparison has both sides.
        !(self.plain_rate.is_none() && self.draft_rounds >= WARMUP)
    }

    /// A drafting round committed `tokens` (accepted + bonus) in `seconds` (draft + verify).
    pub fn drafted(&mut self, tokens: usize, seconds: f64) {
        self.draft_rounds += 1;
        self.draft_rate = Some(ewma(self.draft_rate, tokens as f64 / seconds.max(1e-9)));
        if let (Some(d), Some(p)) = (self.draft_rate, self.plain_rate) {
            if d < MARGIN * p {
                self.skip = self.backoff;
                self.backoff = (self.backoff * 2).min(BACKOFF_MAX);
                // Start the next probe from the plain rate, so one good round can bring drafting back.
                self.draft_rate = Some(p);
            } else {
                self.backoff = BACKOFF_MIN;
            }
        }
    }

    /// A plain step committed one token in `seconds`.
    pub fn plain(&mut self, seconds: f64) {
        self.plain_rate = Some(ewma(self.plain_rate, 1.0 / seconds.max(1e-9)));
    }
}

fn ewma(old: Option<f64>, new: f64) -> f64 {
    old.map_or(new, |o| (1.0 - EWMA) * o + EWMA * new)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drafting_stops_when_it_does_not_pay_and_is_probed_again() {
        let mut g = PayoffGuard::new(true);
        for _ in 0..WARMUP {
            assert!(g.should_draft());
            g.drafted(1, 0.02); // 50 tok/s
        }
        assert!(!g.should_draft(), "a reference plain step comes after the warm-up");
        g.plain(0.01); // 100 tok/s
        assert!(g.should_draft());
        g.drafted(1, 0.02);
        let skipped = (0..BACKOFF_MIN).filter(|_| !g.should_draft()).count();
        assert_eq!(skipped, BACKOFF_MIN);
        assert!(g.should_draft(), "probed again after the back-off");
        g.drafted(3, 0.02); // 150 tok/s: pays
        assert!(g.should_draft());
        let mut off = PayoffGuard::new(false);
        off.plain(0.001);
        off.drafted(1, 1.0);
        assert!(off.should_draft());
    }
}

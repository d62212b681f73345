//! The adaptive entropy threshold of one HSDDW level (docs/METHODS.md section 2): it starts high (tau_init); after the
//! first round it becomes the minimum entropy the level showed in that round; from then on it is the mean entropy
//! the level had at the positions the level above rejected (forced stops excluded).

use serde::Serialize;

/// One level's threshold and the statistics behind it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Threshold {
    /// Current threshold (nats).
    pub tau: f32,
    adaptive: bool,
    tau_init: f32,
    first_round_min: Option<f32>,
    first_round_done: bool,
    rejected_sum: f64,
    rejected_n: usize,
}

impl Threshold {
    /// A threshold starting at `tau_init`; `adaptive` = false keeps it fixed.
    pub fn new(tau_init: f32, adaptive: bool) -> Self {
        Threshold { tau: tau_init, adaptive, tau_init, first_round_min: None, first_round_done: false, rejected_sum: 0.0, rejected_n: 0 }
    }

    /// Back to the start (a new request: statistics are kept per request).
    pub fn reset(&mut self) {
        *self = Threshold::new(self.tau_init, self.adaptive);
    }

    /// The level produced a token with entropy `h`.
    pub fn saw(&mut self, h: f32) {
        if !self.first_round_done {
            self.first_round_min = Some(self.first_round_min.map_or(h, |m| m.min(h)));
        }
    }

    /// The level above rejected a token this level drafted with entropy `h`.
    pub fn rejected(&mut self, h: f32) {
        self.rejected_sum += h as f64;
        self.rejected_n += 1;
    }

    /// The target finished a verification round: update tau.
    pub(crate) fn end_round(&mut self) {
        if !self.adaptive {
            return;
        }
        if !self.first_round_done {
            self.first_round_done = true;
            if let Some(m) = self.first_round_min {
                self.tau = m;
            }
        } else if self.rejected_n > 0 {
            self.tau = (self.rejected_sum / self.rejected_n as f64) as f32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn high_start_then_first_round_min_then_mean_of_rejected() {
        let mut t = Threshold::new(10.0, true);
        assert_eq!(t.tau, 10.0);
        t.saw(2.0);
        t.saw(0.5);
        t.end_round();
        assert_eq!(t.tau, 0.5);
        t.end_round();
        assert_eq!(t.tau, 0.5, "no rejection yet: unchanged");
        t.rejected(1.0);
        t.rejected(3.0);
        t.end_round();
        assert_eq!(t.tau, 2.0);
        let mut f = Threshold::new(4.0, false);
        f.saw(0.1);
        f.rejected(9.0);
        f.end_round();
        assert_eq!(f.tau, 4.0);
    }
}

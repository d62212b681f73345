//! Generation statistics, one struct for every strategy and every interface (CLI summary, `--json`, C ABI
//! getters, server metrics, benchmark JSON). Names follow Spec-Bench (see docs/METHODS.md section 1): `tau` counts
//! tokens committed per target call including the bonus token, so plain AR has tau = 1.00.

use serde::Serialize;

use crate::model::PassTotals;

/// Strategy-specific statistics, typed per strategy. Serialized without a tag (the object of the variant, or
/// `null`), so JSON consumers read e.g. `details.levels` directly.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
#[serde(untagged)]
pub enum Details {
    /// Nothing beyond the common counters (AR, chain speculation).
    #[default]
    None,
    /// HSDDW: one report per drafting level, cheapest first.
    Hsddw {
        /// The levels.
        levels: Vec<LevelReport>,
        /// Target calls per committed token (below 1 when drafts were accepted).
        target_calls_per_token: f64,
    },
    /// Speculative decoding with a draft head and tree verification.
    Tree {
        /// The head folder's name.
        head: String,
        /// The head design (`ctc`, `medusa`, `eagle`).
        head_kind: String,
        /// Rounds that ran a plain step because drafting did not pay (the payoff guard).
        fallback_rounds: usize,
        /// Seconds inside the head's graph.
        head_seconds: f64,
        /// Drafting rounds in which prompt lookup supplied the main chain, so the head was not called (hybrid
        /// drafting, lossless walk: the head's candidates could only have been side branches, worth nothing).
        #[serde(default)]
        lookup_only_rounds: usize,
        /// How the walk treats side branches: `main_chain` (the configured default, no probe), `exact` (asked
        /// for, and the load-time probe found every tree node equal to the chain over its path, so any node may be
        /// accepted), `main_chain_only` (asked for, the probe found them inexact), or `lossy` (`allow_lossy`).
        #[serde(default)]
        side_branches: String,
        /// Tokens accepted on side nodes (off the main chain) over the generation.
        #[serde(default)]
        side_tokens: usize,
    },
    /// SPACE decoding.
    Space {
        /// Rounds that ran a plain step because drafting did not pay (the payoff guard).
        fallback_rounds: usize,
        /// SPACE steps whose candidates came from prompt lookup (`lookup: fill | prefer`).
        lookup_rounds: usize,
    },
    /// One CTC NAT translation.
    Nat {
        /// Output positions of the pass (the upsampled source).
        positions: usize,
        /// log P of the decoded output (beam search only).
        log_prob: Option<f64>,
    },
}

/// One HSDDW level's figures.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct LevelReport {
    /// `ngram` or the model folder.
    pub name: String,
    /// Tokens this level put forward to the level above.
    pub drafted: usize,
    /// Of those, tokens the level above accepted.
    pub accepted: usize,
    /// accepted / drafted.
    pub acceptance_rate: f64,
    /// Times it handed its buffer up because it was unsure (its entropy rule fired).
    pub escalations_entropy: usize,
    /// Times it handed up because the buffer was full.
    pub escalations_cap: usize,
    /// Its threshold at the end.
    pub tau: f32,
    /// (target call index, threshold) after each target round.
    pub tau_trajectory: Vec<(usize, f32)>,
}

/// Counters and timings of one generation.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Stats {
    /// The strategy that produced the output.
    pub strategy: String,
    /// Prompt tokens after the chat template.
    pub prompt_tokens: usize,
    /// Tokens generated (stop tokens excluded).
    pub new_tokens: usize,
    /// Tokens the target committed: the output plus a final stop token (which is consumed, not output).
    pub committed_tokens: usize,
    /// Wall time of the prefill (prompt forward), seconds.
    pub prefill_seconds: f64,
    /// Wall time after the prefill until the end, seconds.
    pub decode_seconds: f64,
    /// Forward passes of the target model, the prefill included (a chunked prefill counts once).
    pub target_calls: usize,
    /// Draft tokens proposed to the target.
    pub drafted: usize,
    /// Draft tokens the target accepted.
    pub accepted: usize,
    /// Drafted tokens per draft position (index 0 = first draft token of a step).
    pub drafted_per_position: Vec<usize>,
    /// Accepted tokens per draft position.
    pub accepted_per_position: Vec<usize>,
    /// Seconds spent inside the backend's run calls of every model (target and drafters); the rest of the wall time
    /// is the engine's own overhead (sampling, masks, bookkeeping, detokenizing).
    pub backend_seconds: f64,
    /// Run calls into the backend by every model (target and drafters), the prefill included: each pays the
    /// backend's fixed per-call cost (docs/BENCHMARKS.md, "Honest overhead").
    pub backend_calls: u64,
    /// Seconds spent drafting.
    pub draft_seconds: f64,
    /// Strategy-specific figures (HSDDW's per-level counts and threshold trajectories, tree drafting's head and
    /// fallback rounds, NAT's positions); `null` in JSON for strategies without any.
    pub details: Details,
    /// Seconds spent in target passes after the prefill (verification, and plain steps when nothing was drafted).
    pub verify_seconds: f64,
    /// Seconds spent turning the request into prompt ids (chat template + tokenizer), before the prefill; not
    /// part of `prefill_seconds` / `decode_seconds`.
    pub tokenize_seconds: f64,
    /// Seconds spent turning generated ids into text (streaming detokenizer), inside `decode_seconds`.
    pub detokenize_seconds: f64,
    /// The target's passes after the prompt, by their number of tokens (steps, chain and tree verification):
    /// the verify cost curve as this generation met it (engine/model/pass_totals.rs).
    pub target_passes: PassTotals,
}

impl Stats {
    /// Tokens committed per target call, bonus included (AR = 1.00).
    pub fn tau(&self) -> f64 {
        if self.target_calls == 0 {
            0.0
        } else {
            self.committed_tokens.max(self.new_tokens) as f64 / self.target_calls as f64
        }
    }

    /// Accepted / drafted draft tokens (0 when nothing was drafted).
    pub fn acceptance_rate(&self) -> f64 {
        if self.drafted == 0 {
            0.0
        } else {
            self.accepted as f64 / self.drafted as f64
        }
    }

    /// Acceptance rate at each draft position.
    pub fn acceptance_per_position(&self) -> Vec<f64> {
        self.drafted_per_position.iter().zip(&self.accepted_per_position).map(|(&d, &a)| if d == 0 { 0.0 } else { a as f64 / d as f64 }).collect()
    }

    /// Prompt tokens per second of prefill.
    pub fn prefill_tokens_per_second(&self) -> f64 {
        rate(self.prompt_tokens as f64, self.prefill_seconds)
    }

    /// Tokens per second after the prefill. The first token comes out of the prefill pass, so it is not counted
    /// here: (new_tokens - 1) / decode_seconds.
    pub fn decode_tokens_per_second(&self) -> f64 {
        rate(self.new_tokens.saturating_sub(1) as f64, self.decode_seconds)
    }

    /// Seconds of decode time outside drafting and verification (sampling, bookkeeping, detokenizing).
    pub fn other_seconds(&self) -> f64 {
        (self.decode_seconds - self.draft_seconds - self.verify_seconds).max(0.0)
    }

    /// Share of the generation's wall time spent outside the backend (0..1).
    pub fn overhead_share(&self) -> f64 {
        let total = self.prefill_seconds + self.decode_seconds;
        if total > 0.0 {
            ((total - self.backend_seconds) / total).max(0.0)
        } else {
            0.0
        }
    }

    /// Share of the request's wall time (tokenizing included) spent in text work: chat template, tokenizer and
    /// streaming detokenizer (0..1). Reported apart from [`Stats::overhead_share`], which covers only the engine's
    /// work between backend calls.
    pub fn text_share(&self) -> f64 {
        let total = self.tokenize_seconds + self.prefill_seconds + self.decode_seconds;
        if total > 0.0 {
            ((self.tokenize_seconds + self.detokenize_seconds) / total).clamp(0.0, 1.0)
        } else {
            0.0
        }
    }

    /// Records one draft/verify step: `drafted` tokens proposed, the first `accepted` of them taken.
    pub(crate) fn record_step(&mut self, drafted: usize, accepted: usize) {
        self.drafted += drafted;
        self.accepted += accepted;
        if self.drafted_per_position.len() < drafted {
            self.drafted_per_position.resize(drafted, 0);
            self.accepted_per_position.resize(drafted, 0);
        }
        for i in 0..drafted {
            self.drafted_per_position[i] += 1;
            if i < accepted {
                self.accepted_per_position[i] += 1;
            }
        }
    }

    /// Everything, derived figures included, as a JSON object (the shape `--json` and the benchmark use).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "strategy": self.strategy,
            "prompt_tokens": self.prompt_tokens,
            "new_tokens": self.new_tokens,
            "prefill_seconds": self.prefill_seconds,
            "decode_seconds": self.decode_seconds,
            "prefill_tokens_per_second": self.prefill_tokens_per_second(),
            "decode_tokens_per_second": self.decode_tokens_per_second(),
            "target_calls": self.target_calls,
            "tau": self.tau(),
            "drafted": self.drafted,
            "accepted": self.accepted,
            "acceptance_rate": self.acceptance_rate(),
            "acceptance_per_position": self.acceptance_per_position(),
            "draft_seconds": self.draft_seconds,
            "verify_seconds": self.verify_seconds,
            "other_seconds": self.other_seconds(),
            "backend_seconds": self.backend_seconds,
            "backend_calls": self.backend_calls,
            "overhead_share": self.overhead_share(),
            "tokenize_seconds": self.tokenize_seconds,
            "detokenize_seconds": self.detokenize_seconds,
            "text_share": self.text_share(),
            "target_passes": self.target_passes,
            "details": self.details,
        })
    }

    /// The one-line summary `specrt generate` prints on stderr.
    pub fn summary_line(&self) -> String {
        let mut s = format!(
            "[{}] prompt {} tok, new {} tok, prefill {:.1} tok/s, decode {:.1} tok/s, tau {:.2}",
            self.strategy,
            self.prompt_tokens,
            self.new_tokens,
            self.prefill_tokens_per_second(),
            self.decode_tokens_per_second(),
            self.tau()
        );
        if self.drafted > 0 {
            s.push_str(&format!(
                ", acceptance {:.1}% ({}/{}), time draft {:.0}% verify {:.0}% other {:.0}%",
                100.0 * self.acceptance_rate(),
                self.accepted,
                self.drafted,
                pct(self.draft_seconds, self.decode_seconds),
                pct(self.verify_seconds, self.decode_seconds),
                pct(self.other_seconds(), self.decode_seconds)
            ));
        }
        s
    }
}

fn rate(n: f64, secs: f64) -> f64 {
    if secs > 0.0 {
        n / secs
    } else {
        0.0
    }
}

fn pct(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        100.0 * part / whole
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ar_has_tau_one() {
        let s = Stats { new_tokens: 10, target_calls: 10, ..Default::default() };
        assert_eq!(s.tau(), 1.0);
        assert_eq!(s.acceptance_rate(), 0.0);
    }

    #[test]
    fn per_position_acceptance() {
        let mut s = Stats::default();
        s.record_step(3, 1);
        s.record_step(2, 2);
        assert_eq!(s.drafted_per_position, vec![2, 2, 1]);
        assert_eq!(s.accepted_per_position, vec![2, 1, 0]);
        assert_eq!(s.acceptance_per_position(), vec![1.0, 0.5, 0.0]);
        assert!((s.acceptance_rate() - 0.6).abs() < 1e-12);
    }
}

//! The overhead table of the benchmark (issue 14, "honest overhead"): per pipeline and strategy, where the wall
//! time goes besides the model's arithmetic. Three parts, each measured in the same run:
//! - text: chat template + tokenizer before the prefill and the streaming detokenizer (the request's own work);
//! - the engine: wall time outside the backend's run calls (sampling, masks, bookkeeping; the `overhead` column);
//! - the backend's fixed cost per run call: ONNX Runtime's `Run` of a one-node graph (engine/backend/onnxruntime/
//!   call_cost.rs) times the run calls every model made, as a share of the wall time. This part is inside the
//!   backend's time, so it is not in the engine's share: it is what a strategy pays per call however small the
//!   call's work, and why many-call strategies (a drafter per token, EAGLE per depth) pay more of it.

use serde::Serialize;

use crate::backend::CallCost;
use crate::generate::Output;

/// One row of the overhead table.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct OverheadRow {
    /// Pipeline name.
    pub pipeline: String,
    /// Strategy name.
    pub strategy: String,
    /// Requests measured.
    pub requests: usize,
    /// New tokens generated in total.
    pub new_tokens: usize,
    /// Mean milliseconds per request in text work (template + tokenizer + detokenizer).
    pub text_ms_per_request: f64,
    /// Text work over the requests' wall time (tokenizing included).
    pub text_share: f64,
    /// Mean share of the generation's wall time outside the backend's run calls.
    pub engine_share: f64,
    /// Run calls of every model per generated token (prefill included).
    pub calls_per_token: f64,
    /// The backend's fixed cost of one run call, microseconds (`None` where the backend cannot measure it).
    pub per_call_us: Option<f64>,
    /// What each graph node adds to a call, microseconds (the executor's dispatch; a step pays it per node).
    pub per_node_us: Option<f64>,
    /// Run calls x per-call cost over the requests' wall time.
    pub per_call_share: Option<f64>,
}

impl OverheadRow {
    /// Aggregates every output of one pipeline's strategy (all categories).
    pub fn from_outputs<'a>(pipeline: &str, strategy: &str, outputs: impl IntoIterator<Item = &'a Output>, cost: Option<CallCost>) -> Self {
        let per_call_seconds = cost.map(|c| c.per_call_seconds);
        let (mut requests, mut tokens, mut calls) = (0usize, 0usize, 0u64);
        let (mut text, mut wall, mut engine_share) = (0.0f64, 0.0f64, 0.0f64);
        for o in outputs {
            let s = &o.stats;
            requests += 1;
            tokens += s.new_tokens;
            calls += s.backend_calls;
            text += s.tokenize_seconds + s.detokenize_seconds;
            wall += s.tokenize_seconds + s.prefill_seconds + s.decode_seconds;
            engine_share += s.overhead_share();
        }
        let per = |x: f64, n: f64| if n > 0.0 { x / n } else { 0.0 };
        OverheadRow {
            pipeline: pipeline.into(),
            strategy: strategy.into(),
            requests,
            new_tokens: tokens,
            text_ms_per_request: 1e3 * per(text, requests as f64),
            text_share: per(text, wall),
            engine_share: per(engine_share, requests as f64),
            calls_per_token: per(calls as f64, tokens as f64),
            per_call_us: per_call_seconds.map(|s| s * 1e6),
            per_node_us: cost.map(|c| c.per_node_seconds * 1e6),
            per_call_share: per_call_seconds.map(|s| per(calls as f64 * s, wall)),
        }
    }
}

/// The Markdown table.
pub fn markdown(rows: &[OverheadRow]) -> String {
    let mut s = String::from(
        "| pipeline | strategy | requests | text ms/request | text share | engine share | run calls/token | backend us/call | per-call share | backend us/node |\n|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        s.push_str(&format!(
            "| {} | {} | {} | {:.2} | {:.2}% | {:.2}% | {:.2} | {} | {} | {} |\n",
            r.pipeline,
            r.strategy,
            r.requests,
            r.text_ms_per_request,
            100.0 * r.text_share,
            100.0 * r.engine_share,
            r.calls_per_token,
            r.per_call_us.map_or("-".into(), |u| format!("{u:.1}")),
            r.per_call_share.map_or("-".into(), |f| format!("{:.2}%", 100.0 * f)),
            r.per_node_us.map_or("-".into(), |u| format!("{u:.2}")),
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::FinishReason;
    use crate::stats::Stats;

    fn output(tokens: usize, calls: u64, tokenize: f64, prefill: f64, decode: f64, detok: f64, backend: f64) -> Output {
        let stats = Stats {
            new_tokens: tokens,
            backend_calls: calls,
            tokenize_seconds: tokenize,
            prefill_seconds: prefill,
            decode_seconds: decode,
            detokenize_seconds: detok,
            backend_seconds: backend,
            ..Default::default()
        };
        Output { text: String::new(), tokens: vec![1; tokens], finish_reason: FinishReason::Length, stats }
    }

    #[test]
    fn shares_divide_by_the_requests_wall_time_and_calls_by_tokens() {
        // Two requests: 10 + 30 tokens in 11 + 29 calls, wall 0.1 + 0.3 s (tokenizing included).
        let outs = [output(10, 11, 0.01, 0.02, 0.07, 0.002, 0.08), output(30, 29, 0.02, 0.03, 0.25, 0.004, 0.27)];
        let cost = CallCost { per_call_seconds: 20e-6, per_node_seconds: 0.5e-6 };
        let row = OverheadRow::from_outputs("p", "ar", outs.iter(), Some(cost));
        assert_eq!((row.requests, row.new_tokens), (2, 40));
        assert!((row.calls_per_token - 1.0).abs() < 1e-12);
        assert!((row.text_ms_per_request - 18.0).abs() < 1e-9, "{}", row.text_ms_per_request);
        assert!((row.text_share - 0.036 / 0.4).abs() < 1e-12);
        // 40 calls x 20 us over 0.4 s = 0.2%.
        assert!((row.per_call_share.unwrap() - 0.002).abs() < 1e-12);
        assert!((row.per_call_us.unwrap() - 20.0).abs() < 1e-9);
        assert!((row.per_node_us.unwrap() - 0.5).abs() < 1e-9);
        // Engine share: mean of (0.09 - 0.08) / 0.09 and (0.28 - 0.27) / 0.28.
        assert!((row.engine_share - (0.01 / 0.09 + 0.01 / 0.28) / 2.0).abs() < 1e-12);
        let none = OverheadRow::from_outputs("p", "ar", outs.iter(), None);
        assert_eq!((none.per_call_us, none.per_call_share, none.per_node_us), (None, None, None));
        assert!(markdown(&[row, none]).contains("| 20.0 | 0.20% | 0.50 |"));
    }
}

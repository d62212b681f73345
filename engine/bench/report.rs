//! Aggregation and reports: `results.json`, `results.md`, `records.jsonl`.

use std::path::Path;

use serde::Serialize;

use super::overhead::OverheadRow;
use super::prompts::BenchPrompt;
use super::BenchMatrix;
use crate::error::{Error, Result};
use crate::generate::Output;
use crate::model::PassTotals;

/// One row of results.json: a pipeline's strategy on one category (or `overall`).
#[derive(Debug, Clone, Serialize)]
pub struct ResultRow {
    /// Pipeline name.
    pub pipeline: String,
    /// Strategy name (`ar` for the baseline row).
    pub strategy: String,
    /// Target model (folder name).
    pub model: String,
    /// Prompt category, or `overall`.
    pub category: String,
    /// Prompts measured.
    pub prompts: usize,
    /// New tokens generated in total.
    pub new_tokens: usize,
    /// Mean over prompts of new tokens / generation wall time (prefill included), Spec-Bench style.
    pub tokens_per_second: f64,
    /// Mean over prompts of decode tokens/s (prefill excluded).
    pub decode_tokens_per_second: f64,
    /// Mean over prompts of prefill tokens/s.
    pub prefill_tokens_per_second: f64,
    /// tokens_per_second / the same target's AR tokens_per_second in the same run (1.0 for AR). For a pipeline
    /// that verifies in batches this AR runs with the same numerics (padded where the export needs it).
    pub speedup_vs_ar: f64,
    /// tokens_per_second / the fastest AR's tokens_per_second in the same category and run (the matrix's
    /// `fastest_ar` pipeline, else the fastest AR row of the category).
    pub speedup_vs_fastest_ar: f64,
    /// Tokens committed per target call, bonus included.
    pub tau: f64,
    /// Accepted / drafted draft tokens (0 for AR).
    pub acceptance_rate: f64,
    /// Seconds of drafting per drafting round / seconds of one decode step of the same target's AR in the same
    /// run (0 for AR): what a round's drafts cost, in target steps.
    pub draft_cost_share: f64,
    /// Drafted and accepted tokens per draft position (SPACE: per candidate position), summed over prompts.
    #[serde(flatten)]
    pub positions: PositionCounts,
    /// Every output equal, token for token, to the AR output of the same prompt; `None` ("n/a") for the AR rows
    /// themselves, which are the reference.
    pub identical_to_ar: Option<bool>,
    /// Mean share of wall time spent outside the backend's run calls.
    pub overhead_share: f64,
    /// Peak resident memory of the benchmark process so far, MiB.
    pub peak_rss_mb: f64,
    /// The target's passes after the prompts, by number of tokens (mean ms, and in steps of this row's own
    /// one-token passes): the verify cost curve as decoding met it.
    pub target_passes: PassTotals,
}

/// Draft tokens proposed and accepted at each draft position (index 0 = the first draft token of a step).
#[derive(Debug, Clone, Default, Serialize)]
pub struct PositionCounts {
    /// Draft tokens proposed at each position.
    pub drafted_per_position: Vec<usize>,
    /// Of those, accepted.
    pub accepted_per_position: Vec<usize>,
    /// accepted / drafted at each position.
    pub acceptance_per_position: Vec<f64>,
    /// Share of drafting rounds that accepted at least d draft tokens, d = 1, 2, ... (cumulative acceptance by
    /// depth: for a token tree the accepted path's length, whatever the tree's width).
    pub acceptance_by_depth: Vec<f64>,
}

impl PositionCounts {
    /// Sums per-position counts (of outputs, or of rows) and derives the rates.
    fn sum<'a>(parts: impl Iterator<Item = (&'a [usize], &'a [usize])>) -> Self {
        let mut c = PositionCounts::default();
        for (drafted, accepted) in parts {
            for (total, part) in [(&mut c.drafted_per_position, drafted), (&mut c.accepted_per_position, accepted)] {
                if total.len() < part.len() {
                    total.resize(part.len(), 0);
                }
                total.iter_mut().zip(part).for_each(|(t, p)| *t += p);
            }
        }
        c.acceptance_per_position =
            c.drafted_per_position.iter().zip(&c.accepted_per_position).map(|(&d, &a)| if d == 0 { 0.0 } else { a as f64 / d as f64 }).collect();
        // A round that drafted anything counts at position 0; accepted_per_position[d - 1] counts the rounds that
        // accepted at least d tokens (record_step), so their ratio is the cumulative acceptance at depth d.
        let rounds = c.drafted_per_position.first().copied().unwrap_or(0);
        c.acceptance_by_depth = if rounds == 0 {
            Vec::new()
        } else {
            let last = c.accepted_per_position.iter().rposition(|&a| a > 0).map_or(1, |i| i + 1);
            c.accepted_per_position[..last].iter().map(|&a| a as f64 / rounds as f64).collect()
        };
        c
    }

    /// Rounds that drafted at least one token.
    fn rounds(&self) -> usize {
        self.drafted_per_position.first().copied().unwrap_or(0)
    }

    /// "62/41/20%" for the markdown table, "-" when nothing was drafted.
    fn percentages(&self) -> String {
        percentages(&self.acceptance_per_position)
    }
}

/// Rates as "62/41/20%", "-" when empty.
fn percentages(rates: &[f64]) -> String {
    if rates.is_empty() {
        return "-".into();
    }
    let parts: Vec<String> = rates.iter().map(|r| format!("{:.0}", 100.0 * r)).collect();
    format!("{}%", parts.join("/"))
}

impl PositionCounts {
    /// Cumulative acceptance by depth as "40/9/3%".
    fn by_depth(&self) -> String {
        percentages(&self.acceptance_by_depth)
    }
}

/// Per-token decode latency at a context length.
#[derive(Debug, Clone, Serialize)]
pub struct LatencyRow {
    /// Pipeline name.
    pub pipeline: String,
    /// Target model.
    pub model: String,
    /// Tokens in the cache.
    pub context: usize,
    /// Median ms per token over 32 steps.
    pub median_ms: f64,
    /// 90th percentile ms per token.
    pub p90_ms: f64,
}

fn mean(v: impl Iterator<Item = f64>) -> f64 {
    let (s, n) = v.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    if n == 0 {
        0.0
    } else {
        s / n as f64
    }
}

impl ResultRow {
    /// Aggregates the outputs of one category.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn from_outputs(
        pipeline: &str,
        strategy: &str,
        model: &str,
        category: &str,
        outputs: &[Output],
        ar: &[Output],
        ar_tokens_per_second: Option<f64>,
        peak_rss_mb: f64,
    ) -> Self {
        let tps = mean(outputs.iter().map(|o| o.stats.new_tokens as f64 / (o.stats.prefill_seconds + o.stats.decode_seconds).max(1e-12)));
        let committed: usize = outputs.iter().map(|o| o.stats.committed_tokens.max(o.stats.new_tokens)).sum();
        let calls: usize = outputs.iter().map(|o| o.stats.target_calls).sum();
        let drafted: usize = outputs.iter().map(|o| o.stats.drafted).sum();
        let accepted: usize = outputs.iter().map(|o| o.stats.accepted).sum();
        let positions =
            PositionCounts::sum(outputs.iter().map(|o| (o.stats.drafted_per_position.as_slice(), o.stats.accepted_per_position.as_slice())));
        // One AR decode step of the same target: its decode time over the tokens after the prefill's first one.
        let ar_steps: usize = ar.iter().map(|o| o.stats.new_tokens.saturating_sub(1)).sum();
        let ar_step_seconds = ar.iter().map(|o| o.stats.decode_seconds).sum::<f64>() / ar_steps.max(1) as f64;
        let draft_seconds: f64 = outputs.iter().map(|o| o.stats.draft_seconds).sum();
        let draft_cost_share =
            if positions.rounds() == 0 || ar_step_seconds <= 0.0 { 0.0 } else { draft_seconds / positions.rounds() as f64 / ar_step_seconds };
        ResultRow {
            pipeline: pipeline.into(),
            strategy: strategy.into(),
            model: model.into(),
            category: category.into(),
            prompts: outputs.len(),
            new_tokens: outputs.iter().map(|o| o.stats.new_tokens).sum(),
            tokens_per_second: tps,
            decode_tokens_per_second: mean(outputs.iter().map(|o| o.stats.decode_tokens_per_second())),
            prefill_tokens_per_second: mean(outputs.iter().map(|o| o.stats.prefill_tokens_per_second())),
            speedup_vs_ar: ar_tokens_per_second.map(|a| if a > 0.0 { tps / a } else { 0.0 }).unwrap_or(1.0),
            speedup_vs_fastest_ar: 0.0,
            tau: if calls == 0 { 0.0 } else { committed as f64 / calls as f64 },
            acceptance_rate: if drafted == 0 { 0.0 } else { accepted as f64 / drafted as f64 },
            draft_cost_share,
            positions,
            identical_to_ar: (strategy != "ar").then(|| outputs.len() == ar.len() && outputs.iter().zip(ar).all(|(a, b)| a.tokens == b.tokens)),
            overhead_share: mean(outputs.iter().map(|o| o.stats.overhead_share())),
            peak_rss_mb,
            target_passes: PassTotals::sum(outputs.iter().map(|o| &o.stats.target_passes)),
        }
    }
}

/// `overall` rows: per pipeline and strategy, prompt-weighted means over categories.
pub(crate) fn overall_rows(rows: &[ResultRow]) -> Vec<ResultRow> {
    let mut keys: Vec<(String, String)> = Vec::new();
    for r in rows {
        let k = (r.pipeline.clone(), r.strategy.clone());
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.into_iter()
        .filter_map(|(p, s)| {
            let group: Vec<&ResultRow> = rows.iter().filter(|r| r.pipeline == p && r.strategy == s).collect();
            if group.len() < 2 {
                return None;
            }
            let n: usize = group.iter().map(|r| r.prompts).sum();
            let w = |f: &dyn Fn(&ResultRow) -> f64| group.iter().map(|r| f(r) * r.prompts as f64).sum::<f64>() / n.max(1) as f64;
            let first = group[0];
            Some(ResultRow {
                pipeline: p,
                strategy: s,
                model: first.model.clone(),
                category: "overall".into(),
                prompts: n,
                new_tokens: group.iter().map(|r| r.new_tokens).sum(),
                tokens_per_second: w(&|r| r.tokens_per_second),
                decode_tokens_per_second: w(&|r| r.decode_tokens_per_second),
                prefill_tokens_per_second: w(&|r| r.prefill_tokens_per_second),
                speedup_vs_ar: w(&|r| r.speedup_vs_ar),
                speedup_vs_fastest_ar: w(&|r| r.speedup_vs_fastest_ar),
                tau: w(&|r| r.tau),
                acceptance_rate: w(&|r| r.acceptance_rate),
                draft_cost_share: w(&|r| r.draft_cost_share),
                positions: PositionCounts::sum(
                    group.iter().map(|r| (r.positions.drafted_per_position.as_slice(), r.positions.accepted_per_position.as_slice())),
                ),
                identical_to_ar: group.iter().map(|r| r.identical_to_ar).try_fold(true, |all, r| r.map(|r| all && r)),
                overhead_share: w(&|r| r.overhead_share),
                peak_rss_mb: group.iter().map(|r| r.peak_rss_mb).fold(0.0, f64::max),
                target_passes: PassTotals::sum(group.iter().map(|r| &r.target_passes)),
            })
        })
        .collect()
}

/// Fills `speedup_vs_fastest_ar` of every category row: its tokens/s over that of the AR row of the pipeline named
/// `fastest_ar` in the same category, or, without a name (or when that pipeline has no AR row there, with a
/// warning), over the fastest AR row of the category.
pub(crate) fn fill_speedup_vs_fastest_ar(rows: &mut [ResultRow], fastest_ar: Option<&str>) {
    let categories: Vec<String> = rows.iter().map(|r| r.category.clone()).fold(Vec::new(), |mut v, c| {
        if !v.contains(&c) {
            v.push(c);
        }
        v
    });
    for category in categories {
        let ar = rows.iter().filter(|r| r.category == category && r.strategy == "ar");
        let named = fastest_ar.and_then(|name| ar.clone().find(|r| r.pipeline == name)).map(|r| r.tokens_per_second);
        if let (Some(name), None) = (fastest_ar, named) {
            eprintln!("bench: warning: fastest_ar `{name}` has no AR row in category {category}; using the fastest AR row measured");
        }
        let Some(base) = named.or_else(|| ar.map(|r| r.tokens_per_second).reduce(f64::max)) else { continue };
        for r in rows.iter_mut().filter(|r| r.category == category) {
            r.speedup_vs_fastest_ar = if base > 0.0 { r.tokens_per_second / base } else { 0.0 };
        }
    }
}

/// Per-prompt records for plots and audits.
pub fn records(pipeline: &str, strategy: &str, category: &str, prompts: &[BenchPrompt], outputs: &[Output]) -> Vec<serde_json::Value> {
    prompts
        .iter()
        .zip(outputs)
        .map(|(p, o)| {
            let mut v = o.stats.to_json();
            v["pipeline"] = pipeline.into();
            v["strategy"] = strategy.into();
            v["category"] = category.into();
            v["id"] = p.id.clone().into();
            // What was generated, so a record can be replayed offline (export/head_gap.py measures a draft
            // head's acceptance on exactly these trajectories) and outputs compared across runs.
            v["prompt"] = p.prompt.clone().into();
            v["chat"] = p.chat.into();
            v["output_ids"] = o.tokens.clone().into();
            v["text"] = o.text.clone().into();
            v["finish_reason"] = o.finish_reason.as_str().into();
            v
        })
        .collect()
}

/// Peak resident set size of this process (VmHWM), MiB.
pub fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)).and_then(|kb| kb.parse::<f64>().ok()))
        .map(|kb| kb / 1024.0)
        .unwrap_or(0.0)
}

/// The Markdown table of the results.
pub fn markdown(rows: &[ResultRow], latency: &[LatencyRow], overheads: &[OverheadRow]) -> String {
    let mut s = String::from(
        "| pipeline | strategy | category | prompts | new tokens | tok/s | decode tok/s | prefill tok/s | speedup vs AR (same numerics) | vs fastest AR | tau | acceptance | per position | by depth | draft cost (target steps) | identical to AR | overhead | peak RSS MiB |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {:.1} | {:.1} | {:.1} | {:.2}x | {:.2}x | {:.2} | {:.1}% | {} | {} | {:.2} | {} | {:.1}% | {:.0} |\n",
            r.pipeline,
            r.strategy,
            r.category,
            r.prompts,
            r.new_tokens,
            r.tokens_per_second,
            r.decode_tokens_per_second,
            r.prefill_tokens_per_second,
            r.speedup_vs_ar,
            r.speedup_vs_fastest_ar,
            r.tau,
            100.0 * r.acceptance_rate,
            r.positions.percentages(),
            r.positions.by_depth(),
            r.draft_cost_share,
            match r.identical_to_ar {
                None => "n/a",
                Some(true) => "yes",
                Some(false) => "NO",
            },
            100.0 * r.overhead_share,
            r.peak_rss_mb
        ));
    }
    s.push_str(&passes_markdown(rows));
    if !latency.is_empty() {
        s.push_str("\n| pipeline | context | median ms/token | p90 ms/token |\n|---|---|---|---|\n");
        for l in latency {
            s.push_str(&format!("| {} | {} | {:.2} | {:.2} |\n", l.pipeline, l.context, l.median_ms, l.p90_ms));
        }
    }
    if !overheads.is_empty() {
        s.push('\n');
        s.push_str(&super::overhead::markdown(overheads));
    }
    s
}

/// "Target passes in decode": per pipeline and strategy (the `overall` row where there is one), each pass size's
/// mean cost in one-token steps of the same row, ms and count. Empty when no row counted a pass.
fn passes_markdown(rows: &[ResultRow]) -> String {
    let has_overall = |r: &ResultRow| rows.iter().any(|o| o.category == "overall" && o.pipeline == r.pipeline && o.strategy == r.strategy);
    let shown: Vec<&ResultRow> = rows.iter().filter(|r| r.target_passes.total_calls() > 0 && (r.category == "overall" || !has_overall(r))).collect();
    if shown.is_empty() {
        return String::new();
    }
    let mut s = String::from(
        "\nTarget passes in decode (tokens: mean cost in one-token steps of the same row, mean ms, passes):\n\n| pipeline | strategy | category | passes |\n|---|---|---|---|\n",
    );
    for r in shown {
        let cells: Vec<String> =
            r.target_passes.rows().iter().map(|p| format!("{}: {:.2} ({:.2} ms, {})", p.tokens, p.steps, p.mean_ms, p.calls)).collect();
        s.push_str(&format!("| {} | {} | {} | {} |\n", r.pipeline, r.strategy, r.category, cells.join("; ")));
    }
    s
}

/// Writes results.json, results.md and records.jsonl into `out`.
pub fn write(
    out: &Path,
    matrix: &BenchMatrix,
    rows: &[ResultRow],
    latency: &[LatencyRow],
    overheads: &[OverheadRow],
    records: &[serde_json::Value],
) -> Result<()> {
    let json = serde_json::json!({
        "settings": {
            "max_new_tokens": matrix.max_new_tokens,
            "prompts_per_category": matrix.prompts_per_category,
            "warmup": matrix.warmup,
            "fastest_ar": matrix.fastest_ar,
            "ignore_eos": matrix.ignore_eos,
            "greedy": true,
            "threads": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            "onnxruntime": crate::backend::onnxruntime::library::loaded_path().map(|p| p.display().to_string()),
        },
        "results": rows,
        "latency": latency,
        "overhead": overheads,
    });
    let write = |name: &str, text: String| std::fs::write(out.join(name), text).map_err(|e| Error::io(out.join(name), e));
    write("results.json", serde_json::to_string_pretty(&json).unwrap_or_default())?;
    write("results.md", markdown(rows, latency, overheads))?;
    write("records.jsonl", records.iter().map(|r| r.to_string() + "\n").collect())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_position_counts_sum_over_uneven_lengths() {
        let (d1, a1) = (vec![4, 4, 2], vec![3, 1, 0]);
        let (d2, a2) = (vec![2], vec![2]);
        let c = PositionCounts::sum([(d1.as_slice(), a1.as_slice()), (d2.as_slice(), a2.as_slice())].into_iter());
        assert_eq!(c.drafted_per_position, vec![6, 4, 2]);
        assert_eq!(c.accepted_per_position, vec![5, 1, 0]);
        assert_eq!(c.percentages(), "83/25/0%");
        assert_eq!(PositionCounts::default().percentages(), "-");
        // 6 rounds drafted: 5 accepted >= 1 token, 1 accepted >= 2; depth 3 never (trailing zeros dropped).
        assert_eq!(c.by_depth(), "83/17%");
        assert_eq!(PositionCounts::default().by_depth(), "-");
    }

    fn output(new_tokens: usize, decode_seconds: f64, draft_seconds: f64, drafted: &[usize], accepted: &[usize]) -> Output {
        let stats = crate::stats::Stats {
            new_tokens,
            decode_seconds,
            draft_seconds,
            drafted_per_position: drafted.to_vec(),
            accepted_per_position: accepted.to_vec(),
            target_calls: 1,
            ..Default::default()
        };
        Output { text: String::new(), tokens: vec![1; new_tokens], finish_reason: crate::generate::FinishReason::Length, stats }
    }

    #[test]
    fn draft_cost_is_in_target_steps_and_speedups_divide_by_the_named_fastest_ar() {
        // AR: 101 tokens in 1 s of decode = 10 ms per step. Drafting: 0.2 s over 40 drafting rounds = 5 ms = 0.5 steps.
        let ar = vec![output(101, 1.0, 0.0, &[], &[])];
        let spec = vec![output(101, 0.8, 0.2, &[40, 30], &[20, 5])];
        let row = ResultRow::from_outputs("heads", "speculative", "m", "code", &spec, &ar, Some(100.0), 0.0);
        assert!((row.draft_cost_share - 0.5).abs() < 1e-9, "{}", row.draft_cost_share);
        assert_eq!(row.positions.acceptance_by_depth, vec![0.5, 0.125]);
        let ar_row = ResultRow::from_outputs("heads", "ar", "m", "code", &ar, &ar, None, 0.0);
        assert_eq!(ar_row.draft_cost_share, 0.0);
        let at = |pipeline: &str, strategy: &str, tps: f64| ResultRow {
            pipeline: pipeline.into(),
            strategy: strategy.into(),
            tokens_per_second: tps,
            ..row.clone()
        };
        let mut rows = vec![at("fast", "ar", 100.0), at("heads", "ar", 80.0), at("heads", "speculative", 120.0), at("other", "ar", 150.0)];
        fill_speedup_vs_fastest_ar(&mut rows, Some("fast"));
        let s: Vec<f64> = rows.iter().map(|r| r.speedup_vs_fastest_ar).collect();
        assert_eq!(s, vec![1.0, 0.8, 1.2, 1.5]);
        // Without a name (or with an unknown one) the fastest AR row measured is the base.
        fill_speedup_vs_fastest_ar(&mut rows, None);
        assert_eq!(rows[2].speedup_vs_fastest_ar, 0.8);
        fill_speedup_vs_fastest_ar(&mut rows, Some("missing"));
        assert_eq!(rows[2].speedup_vs_fastest_ar, 0.8);
    }

    #[test]
    fn pass_costs_are_summed_over_outputs_and_reported_in_steps_of_the_same_row() {
        let with_passes = |one: f64, three: f64| {
            let mut o = output(10, 0.1, 0.0, &[], &[]);
            o.stats.target_passes.add(1, one);
            o.stats.target_passes.add(3, three);
            o
        };
        let outputs = vec![with_passes(0.004, 0.006), with_passes(0.006, 0.009)];
        let row = ResultRow::from_outputs("p", "speculative", "m", "code", &outputs, &outputs, Some(1.0), 0.0);
        let passes = row.target_passes.rows();
        assert_eq!(passes.iter().map(|p| (p.tokens, p.calls)).collect::<Vec<_>>(), vec![(1, 2), (3, 2)]);
        assert!((passes[1].steps - 1.5).abs() < 1e-9 && (passes[0].mean_ms - 5.0).abs() < 1e-9);
        let mut second = row.clone();
        second.category = "chat".into();
        let mut rows = vec![row, second];
        rows.extend(overall_rows(&rows));
        assert_eq!(rows[2].target_passes.total_calls(), 8, "the overall row sums its categories");
        let md = passes_markdown(&rows);
        assert!(md.contains("| p | speculative | overall | 1: 1.00 (5.00 ms, 4); 3: 1.50 (7.50 ms, 4) |"), "{md}");
        assert!(!md.contains("| code |"), "categories are folded into their overall row: {md}");
        assert!(passes_markdown(&[ResultRow::from_outputs("p", "ar", "m", "c", &[output(1, 0.1, 0.0, &[], &[])], &[], None, 0.0)]).is_empty());
    }
}

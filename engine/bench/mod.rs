//! The benchmark harness behind `specrt bench`: a matrix of pipelines over prompt sets, greedy, with warm-up
//! runs; for every pipeline its target is also run with plain AR in the same process, so `speedup_vs_ar` is a
//! ratio of means measured side by side and `identical_to_ar` checks every output token by token.
//!
//! Output: `results.json` (field names shared with later benchmarks), `results.md` (a table), and the raw
//! per-prompt records, which `export/plot_bench.py` turns into PNG charts.

#[cfg(feature = "cuda")]
pub mod gpu;
pub mod matrix;
pub mod nat;
pub mod overhead;
pub mod prompts;
pub mod report;

use std::path::PathBuf;
use std::time::Instant;

use crate::config::StrategyConfig;
use crate::error::{Error, Result};
use crate::generate::{GenerationRequest, Output, Prompt};
use crate::pipeline::Pipeline;

pub use matrix::BenchMatrix;
pub use report::{LatencyRow, ResultRow};

/// Arguments of `specrt bench`.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchArgs {
    /// A benchmark matrix YAML (`pipelines:`, prompt sets, ...) or a single pipeline YAML.
    #[arg(long)]
    pub config: PathBuf,
    /// Output folder for results.json, results.md and per-prompt records.
    #[arg(long)]
    pub out: PathBuf,
    /// Override max new tokens per prompt.
    #[arg(long)]
    pub max_new_tokens: Option<usize>,
    /// Override the number of prompts per category.
    #[arg(long)]
    pub prompts_per_category: Option<usize>,
    /// Override warm-up generations per pipeline.
    #[arg(long)]
    pub warmup: Option<usize>,
    /// NAT pipelines: the held-out `{"id","en","de"}` JSONL pairs (default `.cache/translation-pairs/test.jsonl`;
    /// `--prompts-per-category N` takes the first N).
    #[arg(long)]
    pub pairs: Option<PathBuf>,
}

/// Runs the benchmark and writes the reports.
pub fn run(args: &BenchArgs) -> Result<()> {
    // A single pipeline file whose strategy is `nat` gets the translation benchmark (quality + latency vs its
    // AR baseline) instead of the decoding matrix.
    if let Ok(loaded) = crate::config::load_file(&args.config) {
        if matches!(loaded.config.strategy, StrategyConfig::Nat { .. }) {
            return nat::run(args, loaded);
        }
    }
    let mut matrix = BenchMatrix::load(&args.config)?;
    if let Some(n) = args.max_new_tokens {
        matrix.max_new_tokens = n;
    }
    if let Some(n) = args.prompts_per_category {
        matrix.prompts_per_category = n;
    }
    if let Some(n) = args.warmup {
        matrix.warmup = n;
    }
    let sets = prompts::load_sets(&matrix)?;
    std::fs::create_dir_all(&args.out).map_err(|e| Error::io(&args.out, e))?;
    let total_prompts: usize = sets.iter().map(|s| s.prompts.len()).sum();
    eprintln!(
        "bench: {} pipeline(s) x {} prompt(s) in {} categor{}, {} new tokens each, {} warm-up",
        matrix.pipelines.len(),
        total_prompts,
        sets.len(),
        if sets.len() == 1 { "y" } else { "ies" },
        matrix.max_new_tokens,
        matrix.warmup
    );
    let mut acc = Collected::default();
    if matrix.interleave {
        run_interleaved(&matrix, &sets, &mut acc)?;
    } else {
        run_sequential(&matrix, &sets, &mut acc)?;
    }
    let Collected { mut rows, records, latency, overheads } = acc;
    report::fill_speedup_vs_fastest_ar(&mut rows, matrix.fastest_ar.as_deref());
    let overall = report::overall_rows(&rows);
    rows.extend(overall);
    report::write(&args.out, &matrix, &rows, &latency, &overheads, &records)?;
    eprintln!("{}", report::markdown(&rows, &latency, &overheads));
    eprintln!("bench: wrote {}", args.out.join("results.json").display());
    Ok(())
}

/// Rows, records and overheads gathered over the pipelines of a run.
#[derive(Default)]
struct Collected {
    rows: Vec<ResultRow>,
    records: Vec<serde_json::Value>,
    latency: Vec<LatencyRow>,
    overheads: Vec<overhead::OverheadRow>,
}

/// What one pipeline produced: its AR outputs (shared with every pipeline over the same target and numerics)
/// and, unless it is an AR pipeline, its own strategy's outputs; both per prompt set.
struct PipelineOutputs<'a> {
    name: &'a str,
    model: &'a str,
    strategy: &'a StrategyConfig,
    ar: &'a [Vec<Output>],
    own: Option<&'a [Vec<Output>]>,
    peak_rss_mb: f64,
    per_call: Option<crate::backend::CallCost>,
}

impl Collected {
    fn add(&mut self, sets: &[prompts::PromptSet], p: PipelineOutputs<'_>) {
        let PipelineOutputs { name, model, strategy, ar, own, peak_rss_mb, per_call } = p;
        self.overheads.push(overhead::OverheadRow::from_outputs(name, "ar", ar.iter().flatten(), per_call));
        if let Some(own) = own {
            self.overheads.push(overhead::OverheadRow::from_outputs(name, strategy.name(), own.iter().flatten(), per_call));
        }
        for (i, (set, ar_outputs)) in sets.iter().zip(ar).enumerate() {
            let ar_row = ResultRow::from_outputs(name, "ar", model, &set.category, ar_outputs, ar_outputs, None, peak_rss_mb);
            let ar_tps = ar_row.tokens_per_second;
            self.records.extend(report::records(name, "ar", &set.category, &set.prompts, ar_outputs));
            self.rows.push(ar_row);
            if let Some(own) = own {
                let row = ResultRow::from_outputs(name, strategy.name(), model, &set.category, &own[i], ar_outputs, Some(ar_tps), peak_rss_mb);
                self.records.extend(report::records(name, strategy.name(), &set.category, &set.prompts, &own[i]));
                self.rows.push(row);
            }
        }
    }
}

/// One pipeline after another: AR of its target (once per target and numerics), then its strategy.
fn run_sequential(matrix: &BenchMatrix, sets: &[prompts::PromptSet], acc: &mut Collected) -> Result<()> {
    // AR outputs of a target, measured once per run and shared by every pipeline over the same target and
    // numerics (speedups stay same-run ratios; AR is not re-measured for each drafter).
    let mut ar_cache: Vec<((PathBuf, bool), Vec<Vec<Output>>)> = Vec::new();
    for path in &matrix.pipelines {
        let Lane { mut pipeline, strategy, name, model, .. } = Lane::load(path)?;
        warm_up(&mut pipeline, sets, matrix)?;
        // AR of the same target first, then the pipeline's own strategy (when it is not AR).
        pipeline.set_strategy(StrategyConfig::Ar {})?;
        let key = (pipeline.config().model.clone(), pipeline.target_mut().is_batch_invariant());
        let ar = match ar_cache.iter().find(|(k, _)| *k == key) {
            Some((_, outs)) => {
                eprintln!("bench: reusing this run's AR outputs of {} (same target and numerics)", key.0.display());
                outs.clone()
            }
            None => {
                let outs = run_sets(&mut pipeline, sets, matrix, &format!("{name} [ar]"))?;
                ar_cache.push((key, outs.clone()));
                outs
            }
        };
        let own = if strategy != (StrategyConfig::Ar {}) {
            pipeline.set_strategy(strategy.clone())?;
            warm_up(&mut pipeline, sets, matrix)?;
            Some(run_sets(&mut pipeline, sets, matrix, &name)?)
        } else {
            None
        };
        let peak_rss_mb = report::peak_rss_mb();
        let per_call = pipeline.backend_call_cost()?;
        acc.add(sets, PipelineOutputs { name: &name, model: &model, strategy: &strategy, ar: &ar, own: own.as_deref(), peak_rss_mb, per_call });
        if !matrix.latency_contexts.is_empty() {
            acc.latency.extend(measure_latency(&mut pipeline, &name, &model, &matrix.latency_contexts)?);
        }
    }
    Ok(())
}

/// A loaded pipeline; in an interleaved run also which AR instance serves its target and its outputs so far.
struct Lane {
    pipeline: Pipeline,
    strategy: StrategyConfig,
    name: String,
    model: String,
    ar: usize,
    own: Vec<Vec<Output>>,
}

impl Lane {
    fn load(path: &std::path::Path) -> Result<Lane> {
        eprintln!("bench: loading {}", path.display());
        let pipeline = Pipeline::load(path)?;
        let strategy = pipeline.config().strategy.clone();
        let name = pipeline.name().to_string();
        let model = pipeline.model_name();
        Ok(Lane { pipeline, strategy, name, model, ar: 0, own: Vec::new() })
    }
}

/// Every pipeline loaded at once; prompt by prompt, each target's AR and each pipeline's strategy take turns, the
/// order rotating with the prompt (see [`BenchMatrix::interleave`]).
fn run_interleaved(matrix: &BenchMatrix, sets: &[prompts::PromptSet], acc: &mut Collected) -> Result<()> {
    // One AR instance per (target, numerics); the strategy instances keep what they learn across prompts.
    let mut ars: Vec<((PathBuf, bool), Pipeline, Vec<Vec<Output>>)> = Vec::new();
    let mut lanes: Vec<Lane> = Vec::new();
    for path in &matrix.pipelines {
        let mut lane = Lane::load(path)?;
        let key = (lane.pipeline.config().model.clone(), lane.pipeline.target_mut().is_batch_invariant());
        let ar = match ars.iter().position(|(k, ..)| *k == key) {
            Some(i) => i,
            None => {
                let mut ar = Pipeline::load(path)?;
                ar.set_strategy(StrategyConfig::Ar {})?;
                warm_up(&mut ar, sets, matrix)?;
                ars.push((key, ar, Vec::new()));
                ars.len() - 1
            }
        };
        warm_up(&mut lane.pipeline, sets, matrix)?;
        lane.ar = ar;
        lanes.push(lane);
    }
    // Runs: every AR instance, then every non-AR pipeline.
    let runs: Vec<(bool, usize)> = (0..ars.len())
        .map(|i| (true, i))
        .chain(lanes.iter().enumerate().filter(|(_, l)| l.strategy != (StrategyConfig::Ar {})).map(|(i, _)| (false, i)))
        .collect();
    let total: usize = sets.iter().map(|s| s.prompts.len()).sum();
    let start = Instant::now();
    let mut done = 0;
    for set in sets {
        for (.., outs) in ars.iter_mut() {
            outs.push(Vec::new());
        }
        for lane in lanes.iter_mut() {
            lane.own.push(Vec::new());
        }
        for p in &set.prompts {
            let req = request(p, matrix.max_new_tokens, matrix.ignore_eos);
            let mut got: Vec<Option<Output>> = vec![None; runs.len()];
            let mut skipped = false;
            for j in 0..runs.len() {
                let r = (j + done) % runs.len();
                let (is_ar, i) = runs[r];
                let pipeline = if is_ar { &mut ars[i].1 } else { &mut lanes[i].pipeline };
                match pipeline.generate(&req, &mut |_| true) {
                    Ok(o) => got[r] = Some(o),
                    Err(Error::PromptTooLong { prompt_tokens, context, .. }) => {
                        eprintln!("\nbench: skipping {} ({prompt_tokens} tokens > context {context} of a pipeline)", p.id);
                        skipped = true;
                        break;
                    }
                    Err(e) => return Err(e),
                }
            }
            if skipped {
                continue;
            }
            for (r, out) in got.into_iter().enumerate() {
                let Some(out) = out else { continue };
                match runs[r] {
                    (true, i) => ars[i].2.last_mut().map(|v| v.push(out)),
                    (false, i) => lanes[i].own.last_mut().map(|v| v.push(out)),
                };
            }
            done += 1;
            eprint!("\rbench: interleaved: {done}/{total} prompts x {} runs, {:.0}s elapsed   ", runs.len(), start.elapsed().as_secs_f64());
        }
    }
    eprintln!();
    let peak_rss_mb = report::peak_rss_mb();
    for lane in &mut lanes {
        let per_call = lane.pipeline.backend_call_cost()?;
        let own = (lane.strategy != (StrategyConfig::Ar {})).then_some(lane.own.as_slice());
        acc.add(
            sets,
            PipelineOutputs { name: &lane.name, model: &lane.model, strategy: &lane.strategy, ar: &ars[lane.ar].2, own, peak_rss_mb, per_call },
        );
        if !matrix.latency_contexts.is_empty() {
            acc.latency.extend(measure_latency(&mut lane.pipeline, &lane.name, &lane.model, &matrix.latency_contexts)?);
        }
    }
    Ok(())
}

fn request(prompt: &prompts::BenchPrompt, max_new_tokens: usize, ignore_eos: bool) -> GenerationRequest {
    GenerationRequest {
        prompt: Some(Prompt::Text(prompt.prompt.clone())),
        chat: Some(prompt.chat),
        max_tokens: Some(max_new_tokens),
        temperature: Some(0.0),
        ignore_eos,
        ..Default::default()
    }
}

fn warm_up(pipeline: &mut Pipeline, sets: &[prompts::PromptSet], matrix: &BenchMatrix) -> Result<()> {
    let Some(first) = sets.iter().flat_map(|s| s.prompts.first()).next() else {
        return Ok(());
    };
    for _ in 0..matrix.warmup {
        pipeline.generate(&request(first, matrix.max_new_tokens.min(64), true), &mut |_| true)?;
    }
    Ok(())
}

fn run_sets(pipeline: &mut Pipeline, sets: &[prompts::PromptSet], matrix: &BenchMatrix, label: &str) -> Result<Vec<Vec<Output>>> {
    let total: usize = sets.iter().map(|s| s.prompts.len()).sum();
    let mut done = 0;
    let start = Instant::now();
    let mut all = Vec::new();
    for set in sets {
        let mut outs = Vec::new();
        for p in &set.prompts {
            let out = match pipeline.generate(&request(p, matrix.max_new_tokens, matrix.ignore_eos), &mut |_| true) {
                Ok(o) => o,
                Err(Error::PromptTooLong { prompt_tokens, context, .. }) => {
                    eprintln!("bench: skipping {} ({prompt_tokens} tokens > context {context})", p.id);
                    continue;
                }
                Err(e) => return Err(e),
            };
            done += 1;
            eprint!(
                "\rbench: {label}: {done}/{total} prompts, {:.1} tok/s last, {:.0}s elapsed   ",
                out.stats.new_tokens as f64 / (out.stats.prefill_seconds + out.stats.decode_seconds).max(1e-9),
                start.elapsed().as_secs_f64()
            );
            outs.push(out);
        }
        all.push(outs);
    }
    eprintln!();
    Ok(all)
}

/// Per-token decode latency with `context` tokens in the cache, for each context length.
fn measure_latency(pipeline: &mut Pipeline, name: &str, model: &str, contexts: &[usize]) -> Result<Vec<LatencyRow>> {
    const STEPS: usize = 32;
    let mut rows = Vec::new();
    let capacity = pipeline.context_length();
    let vocab = pipeline.target_mut().vocab_size() as u32;
    for &ctx in contexts {
        if ctx + STEPS > capacity {
            eprintln!("bench: skipping latency at context {ctx} (capacity {capacity})");
            continue;
        }
        let m = pipeline.target_mut();
        m.reset();
        // A deterministic filler context (ids spread over the vocabulary, away from special tokens).
        let filler: Vec<u32> = (0..ctx as u32).map(|i| 100 + (i * 7919) % (vocab - 200)).collect();
        m.append(&filler)?;
        let mut token = 500u32.min(vocab - 1);
        let mut samples = Vec::with_capacity(STEPS);
        for _ in 0..STEPS {
            let t0 = Instant::now();
            let logits = m.append(&[token])?;
            token = crate::sampling::argmax(logits);
            samples.push(t0.elapsed().as_secs_f64() * 1e3);
        }
        m.reset();
        samples.sort_by(f64::total_cmp);
        rows.push(LatencyRow {
            pipeline: name.to_string(),
            model: model.to_string(),
            context: ctx,
            median_ms: samples[STEPS / 2],
            p90_ms: samples[STEPS * 9 / 10],
        });
    }
    Ok(rows)
}

//! `specrt bench` on a NAT pipeline: translation quality (BLEU, chrF; sacrebleu's definitions) and speed of the
//! CTC NAT model and of its AR baseline (the pipeline named by `strategy.baseline`), in one run, on held-out
//! sentence pairs (`python -m export.translation_pairs`, test split: never trained on).
//!
//! Measured, per sentence and in the same process: NAT greedy at batch 1 and AR greedy at batch 1 (the engine's AR
//! path, stopping at `</s>`) in alternating blocks of 25 sentences, so their ratio sees one machine; then NAT beam
//! search at batch 1 and NAT in batches of `batch_size` (throughput).
//! Latency = wall time of the whole call (tokenize, upsample, forward, decode, detokenize). Writes
//! `results.json` (rows with the common fields plus `bleu`, `chrf`, `ar_bleu`, `ar_chrf`, `latency_ms_batch1`,
//! `ar_latency_ms_batch1`, `sentences_per_second_batched`, `bleu_vs_ar`: the BLEU difference with its 95% paired-bootstrap
//! interval), `results.md` and `records.jsonl` (every output).

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

use super::report::{peak_rss_mb, ResultRow};
use super::BenchArgs;
use crate::config::{CtcDecodeKind, LoadedConfig, StrategyConfig};
use crate::error::{Error, Result};
use crate::generate::{GenerationRequest, Prompt};
use crate::nat::bootstrap::{paired_bootstrap_bleu, BleuDelta};
use crate::nat::metrics;
use crate::nat::pipeline::{NatPipeline, Translation};
use crate::pipeline::Pipeline;

/// One held-out pair.
#[derive(Debug, Clone, serde::Deserialize)]
pub(crate) struct Pair {
    /// Stable id (`doc-N.json:POSITION`).
    pub id: String,
    /// English source.
    pub en: String,
    /// German reference.
    pub de: String,
}

/// Reads a `{"id","en","de"}` JSONL file.
pub(crate) fn read_pairs(path: &Path, limit: Option<usize>) -> Result<Vec<Pair>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::io(path, std::io::Error::new(e.kind(), format!("{e} (make the held-out pairs with `make translation-pairs`)"))))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let p: Pair = serde_json::from_str(line).map_err(|e| Error::InvalidRequest(format!("{}:{}: {e}", path.display(), i + 1)))?;
        out.push(p);
        if limit.is_some_and(|n| out.len() >= n) {
            break;
        }
    }
    if out.is_empty() {
        return Err(Error::InvalidRequest(format!("{}: no pairs", path.display())));
    }
    Ok(out)
}

/// The NAT row of results.json: the common fields plus the translation figures.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct NatRow {
    /// Pipeline name, strategy (`nat` or `ar`), model, category (`translation`), speeds, ...
    #[serde(flatten)]
    pub common: ResultRow,
    /// Corpus BLEU of this row's outputs (sacrebleu defaults: 13a tokenization, exp smoothing).
    pub bleu: f64,
    /// Corpus chrF (sacrebleu defaults: character 6-grams, beta 2).
    pub chrf: f64,
    /// BLEU of the AR baseline on the same sentences.
    pub ar_bleu: f64,
    /// chrF of the AR baseline.
    pub ar_chrf: f64,
    /// Mean wall time per sentence, one sentence per call, ms.
    pub latency_ms_batch1: f64,
    /// The AR baseline's mean wall time per sentence, one sentence per call, ms.
    pub ar_latency_ms_batch1: f64,
    /// ar_latency_ms_batch1 / latency_ms_batch1.
    pub latency_speedup_vs_ar: f64,
    /// Sentences per second when `batch_size` sentences share a call (AR: one per call).
    pub sentences_per_second_batched: f64,
    /// Sentences per call in the batched measurement.
    pub batch_size: usize,
    /// CTC decoding rule (`greedy`, `beam`) or `ar`.
    pub decode: String,
    /// Median and 90th percentile of the batch-1 latency, ms.
    pub latency_ms_batch1_p50: f64,
    /// 90th percentile of the batch-1 latency, ms.
    pub latency_ms_batch1_p90: f64,
    /// BLEU minus the AR baseline's BLEU, with its 95% paired-bootstrap interval (1,000 resamples of the test
    /// sentences, seed 12345); absent on the AR row itself.
    pub bleu_vs_ar: Option<BleuDelta>,
}

fn percentile(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[((s.len() - 1) as f64 * q).round() as usize]
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

fn bleu_chrf(hyps: &[String], refs: &[String]) -> Result<(f64, f64)> {
    let bleu = metrics::corpus_bleu(hyps, refs).map_err(|e| Error::InvalidRequest(e.to_string()))?.score;
    let chrf = metrics::corpus_chrf(hyps, refs).map_err(|e| Error::InvalidRequest(e.to_string()))?;
    Ok((bleu, chrf))
}

/// Outputs and timings of one configuration.
struct Run {
    label: String,
    texts: Vec<String>,
    tokens: Vec<usize>,
    latencies_ms: Vec<f64>,
    total_seconds: f64,
    backend_seconds: f64,
    /// Run calls into the backend (NAT: one per sentence or batch; AR: one per committed token + the prefill).
    backend_calls: u64,
}

fn progress(label: &str, done: usize, total: usize, start: Instant) {
    if done.is_multiple_of(50) || done == total {
        eprint!("\rbench: {label}: {done}/{total} sentences, {:.0}s elapsed   ", start.elapsed().as_secs_f64());
        if done == total {
            eprintln!();
        }
    }
}

impl Run {
    fn new(label: &str) -> Self {
        Run { label: label.into(), texts: vec![], tokens: vec![], latencies_ms: vec![], total_seconds: 0.0, backend_seconds: 0.0, backend_calls: 0 }
    }
}

/// Sentences per block when the NAT's greedy batch-1 run and the AR baseline's run alternate (see [`alternate`]).
const ALTERNATION_BLOCK: usize = 25;

/// Appends `pairs` translated one sentence per call to `run`.
fn nat_batch1_into(p: &mut NatPipeline, pairs: &[Pair], run: &mut Run) -> Result<()> {
    let (backend0, calls0) = (p.backend_seconds(), p.backend_calls());
    let start = Instant::now();
    for pair in pairs {
        let t0 = Instant::now();
        let t: Translation = p.translate_one(&pair.en)?;
        run.latencies_ms.push(t0.elapsed().as_secs_f64() * 1e3);
        run.tokens.push(t.tokens.len());
        run.texts.push(t.text);
    }
    run.total_seconds += start.elapsed().as_secs_f64();
    run.backend_seconds += p.backend_seconds() - backend0;
    run.backend_calls += p.backend_calls() - calls0;
    Ok(())
}

fn nat_batch1(p: &mut NatPipeline, pairs: &[Pair], decode: CtcDecodeKind, label: &str) -> Result<Run> {
    p.set_decode(decode);
    let start = Instant::now();
    let mut run = Run::new(label);
    for (i, block) in pairs.chunks(ALTERNATION_BLOCK).enumerate() {
        nat_batch1_into(p, block, &mut run)?;
        progress(label, (i * ALTERNATION_BLOCK + block.len()).min(pairs.len()), pairs.len(), start);
    }
    Ok(run)
}

/// The NAT's greedy batch-1 run and the AR baseline's, in alternating blocks of [`ALTERNATION_BLOCK`] sentences
/// (NAT, AR, NAT, AR, ...), so both see the same machine: on the 2-vCPU VMs these figures come from, the fp32 AR
/// baseline's mean latency moved between 7.0 and 16.2 ms from one process to the next and within a process
/// (docs/BENCHMARKS.md section 5), and a ratio of two phases minutes apart measured that drift as much as the
/// models. Each block keeps its own model's weights warm, as a run of sentences would. Where the pipeline uses an
/// output shortlist, a third run alternates with them: the same model with the whole head (`shortlist: false`),
/// returned third, so the shortlist's gain and its BLEU cost come from one process (the VM's speed drifts by up to
/// 35% within minutes, so separate processes cannot compare them). The two NAT runs swap places every block: the
/// block right after the AR's runs slower (the AR pool's threads still spinning, the AR's weights in the caches;
/// with a fixed order the shortlist run measured 0.85x the whole head's speed at one thread where the pass alone
/// is 1.3x faster), so each takes that place half the time.
fn alternate(nat: &mut NatPipeline, ar: &mut Pipeline, pairs: &[Pair], max_new_tokens: usize) -> Result<(Run, Run, Option<Run>)> {
    nat.set_decode(CtcDecodeKind::Greedy);
    let label = "nat greedy + ar, batch 1, alternating";
    let start = Instant::now();
    let (mut greedy, mut baseline) = (Run::new("nat greedy, batch 1"), Run::new("ar greedy, batch 1"));
    let mut whole = nat.uses_shortlist().then(|| Run::new("nat greedy, batch 1, whole head"));
    for (i, block) in pairs.chunks(ALTERNATION_BLOCK).enumerate() {
        let whole_first = i % 2 == 1 && whole.is_some();
        if !whole_first {
            nat_batch1_into(nat, block, &mut greedy)?;
        }
        if let Some(w) = whole.as_mut() {
            nat.set_shortlist(false);
            let done = nat_batch1_into(nat, block, w);
            nat.set_shortlist(true);
            done?;
        }
        if whole_first {
            nat_batch1_into(nat, block, &mut greedy)?;
        }
        ar_batch1_into(ar, block, max_new_tokens, &mut baseline)?;
        progress(label, (i * ALTERNATION_BLOCK + block.len()).min(pairs.len()), pairs.len(), start);
    }
    Ok((greedy, baseline, whole))
}

fn nat_batched(p: &mut NatPipeline, pairs: &[Pair], decode: CtcDecodeKind, label: &str) -> Result<Run> {
    p.set_decode(decode);
    let sources: Vec<String> = pairs.iter().map(|x| x.en.clone()).collect();
    let (backend0, calls0) = (p.backend_seconds(), p.backend_calls());
    let start = Instant::now();
    let out = p.translate(&sources)?;
    let total = start.elapsed().as_secs_f64();
    eprintln!("bench: {label}: {} sentences in {total:.2}s", pairs.len());
    Ok(Run {
        label: label.into(),
        latencies_ms: out.iter().map(|t| t.seconds * 1e3).collect(),
        tokens: out.iter().map(|t| t.tokens.len()).collect(),
        texts: out.into_iter().map(|t| t.text).collect(),
        total_seconds: total,
        backend_seconds: p.backend_seconds() - backend0,
        backend_calls: p.backend_calls() - calls0,
    })
}

/// Appends `pairs` generated by the AR baseline one sentence per request to `run`.
fn ar_batch1_into(p: &mut Pipeline, pairs: &[Pair], max_new_tokens: usize, run: &mut Run) -> Result<()> {
    let start = Instant::now();
    for pair in pairs {
        let req = GenerationRequest {
            prompt: Some(Prompt::Text(pair.en.clone())),
            chat: Some(true),
            max_tokens: Some(max_new_tokens),
            temperature: Some(0.0),
            ..Default::default()
        };
        let t0 = Instant::now();
        let out = p.generate(&req, &mut |_| true)?;
        run.latencies_ms.push(t0.elapsed().as_secs_f64() * 1e3);
        run.backend_seconds += out.stats.backend_seconds;
        run.backend_calls += out.stats.backend_calls;
        run.tokens.push(out.tokens.len());
        run.texts.push(out.text.trim().to_string());
    }
    run.total_seconds += start.elapsed().as_secs_f64();
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn row(
    name: &str,
    strategy: &str,
    model: &str,
    run: &Run,
    refs: &[String],
    ar: &Run,
    ar_scores: (f64, f64),
    batched: Option<&Run>,
    batch_size: usize,
    decode: &str,
) -> Result<NatRow> {
    let (bleu, chrf) = bleu_chrf(&run.texts, refs)?;
    let bleu_vs_ar = if strategy == "ar" {
        None
    } else {
        Some(paired_bootstrap_bleu(&run.texts, &ar.texts, refs, 1000, 0.95, 12345).map_err(|e| Error::InvalidRequest(e.to_string()))?)
    };
    let n = run.texts.len();
    let new_tokens: usize = run.tokens.iter().sum();
    let tps = new_tokens as f64 / run.total_seconds.max(1e-9);
    let latency = mean(&run.latencies_ms);
    let ar_latency = mean(&ar.latencies_ms);
    let throughput = match batched {
        Some(b) => n as f64 / b.total_seconds.max(1e-9),
        None => n as f64 / run.total_seconds.max(1e-9),
    };
    let ar_tps = ar.tokens.iter().sum::<usize>() as f64 / ar.total_seconds.max(1e-9);
    Ok(NatRow {
        common: ResultRow {
            pipeline: name.into(),
            strategy: strategy.into(),
            model: model.into(),
            category: "translation".into(),
            prompts: n,
            new_tokens,
            tokens_per_second: tps,
            decode_tokens_per_second: tps,
            prefill_tokens_per_second: 0.0,
            speedup_vs_ar: if ar_tps > 0.0 { tps / ar_tps } else { 0.0 },
            // The NAT matrix has one AR baseline, so it is also the fastest AR; NAT drafts nothing.
            speedup_vs_fastest_ar: if ar_tps > 0.0 { tps / ar_tps } else { 0.0 },
            draft_cost_share: 0.0,
            // NAT: every output token comes from the single pass; AR: one token per call
            tau: if strategy == "ar" { 1.0 } else { new_tokens as f64 / n.max(1) as f64 },
            acceptance_rate: 0.0,
            positions: Default::default(),
            identical_to_ar: (strategy != "ar").then(|| run.texts == ar.texts),
            overhead_share: (1.0 - run.backend_seconds / run.total_seconds.max(1e-9)).clamp(0.0, 1.0),
            peak_rss_mb: peak_rss_mb(),
            // NAT is one encoder pass per input, not a decoder's steps.
            target_passes: Default::default(),
        },
        bleu,
        chrf,
        ar_bleu: ar_scores.0,
        ar_chrf: ar_scores.1,
        latency_ms_batch1: latency,
        ar_latency_ms_batch1: ar_latency,
        latency_speedup_vs_ar: if latency > 0.0 { ar_latency / latency } else { 0.0 },
        sentences_per_second_batched: throughput,
        batch_size,
        decode: decode.into(),
        latency_ms_batch1_p50: percentile(&run.latencies_ms, 0.5),
        latency_ms_batch1_p90: percentile(&run.latencies_ms, 0.9),
        bleu_vs_ar,
    })
}

/// Runs the NAT benchmark for the pipeline `loaded` (strategy `nat`).
pub fn run(args: &BenchArgs, loaded: LoadedConfig) -> Result<()> {
    let source = loaded.source.clone();
    let StrategyConfig::Nat { decode, baseline, .. } = loaded.config.strategy.clone() else {
        return Err(Error::InvalidRequest("not a NAT pipeline".into()));
    };
    let baseline: PathBuf = baseline.ok_or_else(|| Error::Config {
        file: source.clone(),
        line: 0,
        column: 0,
        message: "strategy.baseline: name the AR baseline pipeline (a YAML file) that the benchmark compares against".into(),
    })?;
    let pairs_path = args.pairs.clone().unwrap_or_else(|| PathBuf::from(".cache/translation-pairs/test.jsonl"));
    let pairs = read_pairs(&pairs_path, args.prompts_per_category)?;
    std::fs::create_dir_all(&args.out).map_err(|e| Error::io(&args.out, e))?;
    let refs: Vec<String> = pairs.iter().map(|p| p.de.clone()).collect();
    // The baseline loads first: the first pipeline of a process sizes ONNX Runtime's shared thread pool, so the AR
    // baseline runs with its own `backend.threads` on the pool every AR pipeline uses, and a NAT config that asks
    // for another thread count gets a pool of its own (engine/backend/onnxruntime/mod.rs).
    let mut ar = Pipeline::load(&baseline)?;
    let mut nat = NatPipeline::from_config(loaded)?;
    let (name, model, ar_model) = (nat.name().to_string(), nat.model_name(), ar.model_name());
    let batch_size = nat.batch_size();
    eprintln!(
        "bench: {name} ({model}, {}) vs AR baseline {} ({ar_model}) on {} held-out pairs from {}",
        nat.device(),
        ar.name(),
        pairs.len(),
        pairs_path.display()
    );
    // warm-up: allocator, thread pool and kernels, on sentences not measured first
    let warm: Vec<String> = pairs.iter().take(8).map(|p| p.en.clone()).collect();
    for w in &warm {
        nat.translate_one(w)?;
        ar.generate(
            &GenerationRequest { prompt: Some(Prompt::Text(w.clone())), chat: Some(true), max_tokens: Some(32), ..Default::default() },
            &mut |_| true,
        )?;
    }
    nat.translate(&warm)?;
    let max_new = args.max_new_tokens.unwrap_or(256);
    let built0 = nat.shortlist_built();
    let (greedy, ar_run, whole) = alternate(&mut nat, &mut ar, &pairs, max_new)?;
    // Mean shortlist size of the batch-1 greedy passes (one sentence each), and of the batched ones below.
    let built1 = nat.shortlist_built();
    let mean_columns = |a: (u64, u64), b: (u64, u64)| (b.1 > a.1).then(|| (b.0 - a.0) as f64 / (b.1 - a.1) as f64);
    let columns_batch1 = mean_columns(built0, built1);
    let beam = nat_batch1(&mut nat, &pairs, CtcDecodeKind::Beam, "nat beam, batch 1")?;
    let built2 = nat.shortlist_built();
    let greedy_batched = nat_batched(&mut nat, &pairs, CtcDecodeKind::Greedy, &format!("nat greedy, batch {batch_size}"))?;
    let columns_batched = mean_columns(built2, nat.shortlist_built());
    let beam_batched = nat_batched(&mut nat, &pairs, CtcDecodeKind::Beam, &format!("nat beam, batch {batch_size}"))?;
    nat.set_decode(decode);
    let ar_scores = bleu_chrf(&ar_run.texts, &refs)?;

    let (main, main_batched, other, other_batched) = match decode {
        CtcDecodeKind::Greedy => (&greedy, &greedy_batched, &beam, &beam_batched),
        CtcDecodeKind::Beam => (&beam, &beam_batched, &greedy, &greedy_batched),
    };
    let main_name = if decode == CtcDecodeKind::Greedy { "greedy" } else { "beam" };
    let other_name = if decode == CtcDecodeKind::Greedy { "beam" } else { "greedy" };
    let mut rows = vec![
        row(&name, "nat", &model, main, &refs, &ar_run, ar_scores, Some(main_batched), batch_size, main_name)?,
        row(&format!("{name} [{other_name}]"), "nat", &model, other, &refs, &ar_run, ar_scores, Some(other_batched), batch_size, other_name)?,
    ];
    if let Some(w) = &whole {
        // batched figure: none measured for the whole head (the row's batch-1 run is the comparison)
        rows.push(row(&format!("{name} [greedy, whole head]"), "nat", &model, w, &refs, &ar_run, ar_scores, None, 1, "greedy")?);
    }
    rows.push(row(ar.name(), "ar", &ar_model, &ar_run, &refs, &ar_run, ar_scores, None, 1, "ar")?);
    // The shortlist against the whole head: the BLEU it costs (paired bootstrap) and the batch-1 speedup.
    let shortlist = match &whole {
        Some(w) => {
            let d = paired_bootstrap_bleu(&greedy.texts, &w.texts, &refs, 1000, 0.95, 12345).map_err(|e| Error::InvalidRequest(e.to_string()))?;
            Some(serde_json::json!({
                "mean_columns_batch1": columns_batch1,
                "mean_columns_batched": columns_batched,
                "logits_width": nat.logits_width(),
                "bleu_vs_whole_head": d,
                "speedup_vs_whole_head_batch1": mean(&w.latencies_ms) / mean(&greedy.latencies_ms).max(1e-12),
                "outputs_changed": greedy.texts.iter().zip(&w.texts).filter(|(a, b)| a != b).count(),
            }))
        }
        None => None,
    };
    let batched_agree = greedy.texts.iter().zip(&greedy_batched.texts).filter(|(a, b)| a == b).count();

    let mut records = Vec::new();
    for (i, p) in pairs.iter().enumerate() {
        records.push(serde_json::json!({
            "id": p.id, "source": p.en, "reference": p.de,
            "nat_greedy": greedy.texts[i], "nat_beam": beam.texts[i], "nat_greedy_batched": greedy_batched.texts[i],
            "ar": ar_run.texts[i],
            "latency_ms": {"nat_greedy": greedy.latencies_ms[i], "nat_beam": beam.latencies_ms[i], "ar": ar_run.latencies_ms[i]},
        }));
    }
    // ONNX Runtime's own cost of a Run (a one-node graph), priced per run: the fixed part of every call.
    let cost = nat.backend_call_cost()?;
    let per_call = cost.map(|c| c.per_call_seconds);
    let runs: Vec<serde_json::Value> = [Some(&greedy), whole.as_ref(), Some(&beam), Some(&greedy_batched), Some(&beam_batched), Some(&ar_run)]
        .into_iter()
        .flatten()
        .map(|r| {
            let (b, c) = bleu_chrf(&r.texts, &refs).unwrap_or((0.0, 0.0));
            let sentences = r.texts.len().max(1) as f64;
            serde_json::json!({"run": r.label, "bleu": b, "chrf": c, "mean_ms_per_sentence": mean(&r.latencies_ms),
                "sentences_per_second": r.texts.len() as f64 / r.total_seconds.max(1e-9), "seconds": r.total_seconds,
                "outside_backend_share": (1.0 - r.backend_seconds / r.total_seconds.max(1e-9)).clamp(0.0, 1.0),
                "run_calls_per_sentence": r.backend_calls as f64 / sentences,
                "per_call_share": per_call.map(|s| r.backend_calls as f64 * s / r.total_seconds.max(1e-9))})
        })
        .collect();
    let json = serde_json::json!({
        "settings": {
            "kind": "nat",
            "pipeline": source,
            "baseline": baseline.display().to_string(),
            "pairs": pairs_path.display().to_string(),
            "sentences": pairs.len(),
            "batch_size": batch_size,
            "ar_max_new_tokens": max_new,
            "batch1_alternation_block": ALTERNATION_BLOCK,
            "greedy": true,
            "threads": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            "device": nat.device(),
            "onnxruntime": crate::backend::onnxruntime::library::loaded_path().map(|p| p.display().to_string()),
            "batched_greedy_equal_to_batch1": batched_agree as f64 / pairs.len() as f64,
            "backend_per_call_us": per_call.map(|s| s * 1e6),
            "backend_per_node_us": cost.map(|c| c.per_node_seconds * 1e6),
            "shortlist": nat.uses_shortlist(),
        },
        "shortlist": shortlist,
        "results": rows,
        "runs": runs,
    });
    let out = &args.out;
    let write = |file: &str, text: String| std::fs::write(out.join(file), text).map_err(|e| Error::io(out.join(file), e));
    write("results.json", serde_json::to_string_pretty(&json).unwrap_or_default())?;
    write("records.jsonl", records.iter().map(|r| r.to_string() + "\n").collect())?;
    let mut md = markdown(&rows, &runs);
    if let Some(s) = &json["shortlist"].as_object() {
        let d = &s["bleu_vs_whole_head"];
        md.push_str(&format!(
            "\noutput shortlist: {:.0} of {} logits columns per batch-1 pass ({:.0} per batch of {batch_size}); greedy batch-1 {:.2}x the whole head's speed; BLEU vs the whole head {:+.2} [{:+.2}, {:+.2}], {} of {} outputs changed\n",
            s["mean_columns_batch1"].as_f64().unwrap_or(0.0),
            s["logits_width"],
            s["mean_columns_batched"].as_f64().unwrap_or(0.0),
            s["speedup_vs_whole_head_batch1"].as_f64().unwrap_or(0.0),
            d["delta"].as_f64().unwrap_or(0.0),
            d["low"].as_f64().unwrap_or(0.0),
            d["high"].as_f64().unwrap_or(0.0),
            s["outputs_changed"],
            pairs.len()
        ));
    }
    if let Some(c) = cost {
        md.push_str(&format!(
            "\nbackend fixed costs: {:.2} us per run call (a one-node graph), {:.2} us per further node (a chain of nodes)\n",
            c.per_call_seconds * 1e6,
            c.per_node_seconds * 1e6
        ));
    }
    write("results.md", md.clone())?;
    eprintln!("{md}");
    eprintln!("bench: wrote {}", out.join("results.json").display());
    Ok(())
}

fn markdown(rows: &[NatRow], runs: &[serde_json::Value]) -> String {
    let mut s = String::from(
        "| pipeline | decode | BLEU | BLEU - AR [95% CI] | chrF | ms/sentence (batch 1) | p90 ms | sentences/s batched (batch) | speedup vs AR (batch-1 latency) |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let delta = r.bleu_vs_ar.map_or_else(|| "-".to_string(), |d| format!("{:+.2} [{:+.2}, {:+.2}]", d.delta, d.low, d.high));
        s.push_str(&format!(
            "| {} | {} | {:.2} | {} | {:.2} | {:.2} | {:.2} | {:.1} ({}) | {:.2}x |\n",
            r.common.pipeline,
            r.decode,
            r.bleu,
            delta,
            r.chrf,
            r.latency_ms_batch1,
            r.latency_ms_batch1_p90,
            r.sentences_per_second_batched,
            r.batch_size,
            r.latency_speedup_vs_ar
        ));
    }
    s.push_str(
        "\n| run | BLEU | chrF | ms/sentence | sentences/s | outside the backend | run calls/sentence | per-call share |\n|---|---|---|---|---|---|---|---|\n",
    );
    for r in runs {
        s.push_str(&format!(
            "| {} | {:.2} | {:.2} | {:.2} | {:.1} | {:.1}% | {:.2} | {} |\n",
            r["run"].as_str().unwrap_or(""),
            r["bleu"].as_f64().unwrap_or(0.0),
            r["chrf"].as_f64().unwrap_or(0.0),
            r["mean_ms_per_sentence"].as_f64().unwrap_or(0.0),
            r["sentences_per_second"].as_f64().unwrap_or(0.0),
            100.0 * r["outside_backend_share"].as_f64().unwrap_or(0.0),
            r["run_calls_per_sentence"].as_f64().unwrap_or(0.0),
            r["per_call_share"].as_f64().map_or("-".to_string(), |f| format!("{:.2}%", 100.0 * f)),
        ));
    }
    s
}

//! `specrt bench-gpu`: what the native CUDA backend does on the GPU at hand, in one run (docs/GPU.md).
//!
//! - Synthetic shapes (random weights, no file): decode step time at a fixed context with CUDA graphs off and on,
//!   the bytes a step must stream against the device's measured copy bandwidth (the roofline), the k-token verify
//!   cost curve, and pinned vs pageable read-back.
//! - A real model (`--model`, a folder with gpu.safetensors) against a reference (`--reference`, written by
//!   `python -m export.gpu_reference` from the same weights and math): greedy tokens, first-step logits, graphs
//!   on vs off identity, and chain-pass vs one-token-step bitwise identity (batch invariance).
//!
//! Prints a table and writes `gpu.json`.

use std::path::PathBuf;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::backend::cuda::driver::{self, DeviceBuffer, Event, PinnedBuffer, Stream};
use crate::backend::cuda::{CudaBackend, CudaDecoder, Shape};
use crate::backend::DecoderGraph;
use crate::config::BackendConfig;
use crate::contract::Manifest;
use crate::error::{Error, Result};

/// Arguments of `specrt bench-gpu`.
#[derive(Debug, Clone, clap::Args)]
pub struct GpuBenchArgs {
    /// Synthetic shapes to time (comma-separated; empty to skip): smollm2-135m, qwen2.5-1.5b, llama-3.2-1b,
    /// llama-3.1-8b.
    #[arg(long, value_delimiter = ',', default_value = "smollm2-135m,qwen2.5-1.5b,llama-3.1-8b")]
    pub synthetic: Vec<String>,
    /// A model folder with GPU weights (manifest `gpu_weights`).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Reference greedy tokens and logits for `--model` (`python -m export.gpu_reference`).
    #[arg(long)]
    pub reference: Option<PathBuf>,
    /// GPU index.
    #[arg(long, default_value_t = 0)]
    pub device_id: usize,
    /// Tokens in the KV cache when decode steps are timed.
    #[arg(long, default_value_t = 512)]
    pub context: usize,
    /// Timed decode steps per setting.
    #[arg(long, default_value_t = 200)]
    pub steps: usize,
    /// Output folder for gpu.json.
    #[arg(long)]
    pub out: PathBuf,
}

/// One reference prompt (fields of export/gpu_reference.py's output).
#[derive(Debug, Deserialize)]
struct RefPrompt {
    prompt: Vec<i64>,
    tokens: Vec<i64>,
    first_logits: Vec<f32>,
    #[serde(default)]
    top2_gap: Vec<f32>,
}

#[derive(Debug, Deserialize)]
struct Reference {
    #[serde(default)]
    backend: String,
    #[serde(default)]
    device: String,
    prompts: Vec<RefPrompt>,
}

/// Stages a causal pass of `ids` at `past` (logits for every row, or the last only) and runs it.
fn pass(dec: &mut dyn DecoderGraph, ids: &[i64], past: usize, all_rows: bool) -> Result<()> {
    let s = ids.len();
    let inp = dec.inputs_mut();
    inp.input_ids.clear();
    inp.input_ids.extend_from_slice(ids);
    inp.position_ids.clear();
    inp.position_ids.extend((past..past + s).map(|p| p as i64));
    inp.attention_bias.clear();
    inp.logits_rows.clear();
    if all_rows {
        inp.logits_rows.extend(0..s as i64);
    } else {
        inp.logits_rows.push(s as i64 - 1);
    }
    dec.run(past)
}

fn argmax(row: &[f32]) -> i64 {
    crate::sampling::argmax(row) as i64
}

/// Deterministic token ids for timing (values do not matter for speed).
fn ids(n: usize, vocab: usize, seed: u64) -> Vec<i64> {
    let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((x >> 33) % vocab as u64) as i64
        })
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Median seconds of one decode step at `context` cached tokens (each step rolls back to the same past).
fn time_decode(dec: &mut CudaDecoder, context: usize, steps: usize, vocab: usize) -> Result<f64> {
    let tokens = ids(steps + 5, vocab, 7);
    for &t in &tokens[..5] {
        pass(dec, &[t], context, false)?;
    }
    let mut times = Vec::with_capacity(steps);
    for &t in &tokens[5..] {
        let started = Instant::now();
        pass(dec, &[t], context, false)?;
        times.push(started.elapsed().as_secs_f64());
    }
    Ok(median(times))
}

/// Device copy bandwidth (read + write bytes per second) of a 1 GiB device-to-device copy: the roofline's peak.
fn copy_bandwidth() -> Result<f64> {
    let bytes = 1usize << 30;
    let (a, b) = (DeviceBuffer::zeroed(bytes)?, DeviceBuffer::zeroed(bytes)?);
    let stream = Stream::new()?;
    let (start, end) = (Event::new()?, Event::new()?);
    driver::copy_dtod(&stream, b.ptr, a.ptr, bytes)?;
    let mut best = f64::MAX;
    for _ in 0..5 {
        start.record(&stream)?;
        driver::copy_dtod(&stream, b.ptr, a.ptr, bytes)?;
        end.record(&stream)?;
        best = best.min(start.elapsed_ms(&end)? as f64 / 1e3);
    }
    Ok(2.0 * bytes as f64 / best)
}

/// Seconds per device-to-host copy of `bytes`, into pinned and into pageable memory.
fn readback_times(bytes: usize) -> Result<(f64, f64)> {
    let src = DeviceBuffer::zeroed(bytes)?;
    let stream = Stream::new()?;
    let mut pinned = PinnedBuffer::<u8>::new(bytes)?;
    let mut pageable = vec![0u8; bytes];
    let time = |dst: *mut std::ffi::c_void| -> Result<f64> {
        let mut t = Vec::new();
        for _ in 0..20 {
            let started = Instant::now();
            // SAFETY: `dst` is one of the two `bytes`-long host buffers below, alive until after the synchronize.
            unsafe { driver::copy_dtoh(&stream, dst, src.ptr, bytes)? };
            stream.synchronize()?;
            t.push(started.elapsed().as_secs_f64());
        }
        Ok(median(t))
    };
    let p = time(pinned.as_mut_slice().as_mut_ptr() as *mut _)?;
    let q = time(pageable.as_mut_ptr() as *mut _)?;
    Ok((p, q))
}

#[derive(Debug, Serialize)]
struct ShapeResult {
    shape: String,
    weight_bytes: usize,
    context: usize,
    step_ms_direct: f64,
    step_ms_graphs: f64,
    tokens_per_s_graphs: f64,
    step_bytes: usize,
    achieved_gb_s: f64,
    fraction_of_copy_bandwidth: f64,
    verify_cost: Vec<(usize, f64)>,
    /// Milliseconds per kernel kind in one decode step (graphs off, an event after every kernel).
    kernel_ms: Vec<(&'static str, f64)>,
    graphs: String,
    /// One chain pass of 8 tokens gives bitwise the logits of 8 one-token steps (split-K parts included).
    batch_invariant: bool,
    /// 16 greedy tokens from a fixed prompt on the shape's random weights: equal across runs with split-K on and
    /// off (`SPECRT_CUDA_SPLIT_K=0`) when both compute the same products (summation order aside).
    greedy_probe: Vec<i64>,
}

fn bench_shape(backend: &CudaBackend, name: &str, args: &GpuBenchArgs, peak: f64) -> Result<ShapeResult> {
    let shape = Shape::synthetic(name)?;
    let capacity = (args.context + 64).next_power_of_two();
    let mut dec = backend.synthetic_decoder(&shape, capacity, 1)?;
    // Fill the cache to `context` tokens (prefill in chunks), then time steps at that past length.
    pass(&mut dec, &ids(args.context, shape.vocab, 3), 0, false)?;
    dec.set_graphs(false);
    let direct = time_decode(&mut dec, args.context, args.steps, shape.vocab)?;
    dec.set_graphs(true);
    let graphs = time_decode(&mut dec, args.context, args.steps, shape.vocab)?;
    let kv_bytes = shape.layers * shape.kv_heads * (args.context + 1) * shape.head_dim * 4 * 2;
    let step_bytes = shape.step_weight_bytes() + kv_bytes;
    let achieved = step_bytes as f64 / graphs;
    let mut verify_cost = Vec::new();
    let mut base = 0.0;
    for k in [1usize, 2, 4, 8, 16, 32] {
        let tokens = ids(k, shape.vocab, 11 + k as u64);
        pass(&mut dec, &tokens, args.context, true)?;
        let mut t = Vec::new();
        for _ in 0..20 {
            let started = Instant::now();
            pass(&mut dec, &tokens, args.context, true)?;
            t.push(started.elapsed().as_secs_f64());
        }
        let m = median(t);
        if k == 1 {
            base = m;
        }
        verify_cost.push((k, m / base));
    }
    let kernel_ms = dec.profile_step(1, args.context)?;
    let stats = dec.graph_stats();
    // Correctness on the synthetic weights: the shapes with long rows are the ones split along K.
    let prompt = ids(24, shape.vocab, 5);
    let (together, stepwise) = chain_and_steps(&mut dec, &prompt, &ids(8, shape.vocab, 9))?;
    let (greedy_probe, _) = greedy(&mut dec, &prompt, 16)?;
    Ok(ShapeResult {
        shape: name.into(),
        weight_bytes: shape.step_weight_bytes(),
        context: args.context,
        step_ms_direct: direct * 1e3,
        step_ms_graphs: graphs * 1e3,
        tokens_per_s_graphs: 1.0 / graphs,
        step_bytes,
        achieved_gb_s: achieved / 1e9,
        fraction_of_copy_bandwidth: achieved / peak,
        verify_cost,
        kernel_ms,
        graphs: format!(
            "{} captured, {} replayed, {} direct{}",
            stats.captured,
            stats.replayed,
            stats.direct,
            dec.graph_error().map(|e| format!(" (capture failed: {e})")).unwrap_or_default()
        ),
        batch_invariant: together == stepwise,
        greedy_probe,
    })
}

/// After `prompt`, the logits of every row of one pass over `chain` and those of the same tokens as one-token
/// steps: equal bitwise when every kernel computes a row the same way whatever the pass size (batch invariance).
fn chain_and_steps(dec: &mut CudaDecoder, prompt: &[i64], chain: &[i64]) -> Result<(Vec<f32>, Vec<f32>)> {
    pass(dec, prompt, 0, false)?;
    pass(dec, chain, prompt.len(), true)?;
    let together = dec.logits().to_vec();
    let mut stepwise = Vec::new();
    for (i, &t) in chain.iter().enumerate() {
        pass(dec, &[t], prompt.len() + i, false)?;
        stepwise.extend_from_slice(dec.logits());
    }
    Ok((together, stepwise))
}

/// Greedy tokens of `prompt` (prefill, then `n` one-token steps); also returns the first step's logits.
fn greedy(dec: &mut CudaDecoder, prompt: &[i64], n: usize) -> Result<(Vec<i64>, Vec<f32>)> {
    pass(dec, prompt, 0, false)?;
    let first = dec.logits().to_vec();
    let mut out = vec![argmax(&first)];
    let mut past = prompt.len();
    while out.len() < n {
        let t = *out.last().unwrap_or(&0);
        pass(dec, &[t], past, false)?;
        past += 1;
        out.push(argmax(dec.logits()));
    }
    Ok((out, first))
}

fn check_model(backend: &CudaBackend, args: &GpuBenchArgs, model: &std::path::Path) -> Result<serde_json::Value> {
    let manifest = Manifest::load(model)?;
    let mut dec = backend.open_cuda_decoder(&manifest, 2048)?;
    let vocab = manifest.dims.vocab_size;
    let mut report = json!({"model": model.display().to_string(), "device": dec.device()});
    // Graphs on vs off: the same kernels, so the same bits.
    let probe = ids(24, vocab, 5);
    dec.set_graphs(true);
    let (with_graphs, _) = greedy(&mut dec, &probe, 32)?;
    dec.set_graphs(false);
    let (without, _) = greedy(&mut dec, &probe, 32)?;
    dec.set_graphs(true);
    report["graphs_identical"] = json!(with_graphs == without);
    // Batch invariance: one chain pass of 8 tokens vs 8 one-token steps, bitwise.
    let (together, stepwise) = chain_and_steps(&mut dec, &probe, &ids(8, vocab, 9))?;
    let max_diff = together.iter().zip(&stepwise).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
    report["chain_vs_steps_max_abs_diff"] = json!(max_diff);
    report["batch_invariant"] = json!(together == stepwise);
    // Decode speed of the real model.
    pass(&mut dec, &ids(args.context, vocab, 3), 0, false)?;
    dec.set_graphs(false);
    let direct = time_decode(&mut dec, args.context, args.steps, vocab)?;
    dec.set_graphs(true);
    let graphs = time_decode(&mut dec, args.context, args.steps, vocab)?;
    report["step_ms_direct"] = json!(direct * 1e3);
    report["step_ms_graphs"] = json!(graphs * 1e3);
    report["kernel_ms"] = json!(dec.profile_step(1, args.context)?);
    if let Some(path) = &args.reference {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let reference: Reference =
            serde_json::from_str(&text).map_err(|e| Error::InvalidRequest(format!("{}: not a gpu_reference file: {e}", path.display())))?;
        let mut prompts = Vec::new();
        let (mut equal, mut total) = (0usize, 0usize);
        for p in &reference.prompts {
            let (tokens, first) = greedy(&mut dec, &p.prompt, p.tokens.len())?;
            let logit_diff = first.iter().zip(&p.first_logits).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
            let first_mismatch = tokens.iter().zip(&p.tokens).position(|(a, b)| a != b);
            let same_prefix = first_mismatch.unwrap_or(p.tokens.len());
            equal += same_prefix;
            total += p.tokens.len();
            prompts.push(json!({
                "prompt_tokens": p.prompt.len(),
                "new_tokens": p.tokens.len(),
                "identical": first_mismatch.is_none(),
                "first_mismatch": first_mismatch,
                "reference_top2_gap_there": first_mismatch.and_then(|i| p.top2_gap.get(i)),
                "first_logits_max_abs_diff": logit_diff,
            }));
        }
        report["reference"] = json!({
            "file": path.display().to_string(),
            "backend": reference.backend,
            "device": reference.device,
            "prompts": prompts,
            "tokens_before_first_mismatch": equal,
            "tokens": total,
        });
    }
    Ok(report)
}

/// Runs the GPU benchmark and writes `gpu.json`.
pub fn run(args: &GpuBenchArgs) -> Result<()> {
    let config = BackendConfig {
        kind: crate::config::BackendKind::Cuda,
        cuda: crate::config::CudaOptions { device_id: args.device_id, graphs: true },
        ..Default::default()
    };
    let backend = CudaBackend::new(&config)?;
    let ctx = backend.context().clone();
    eprintln!("[bench-gpu] {} (sm_{}{}, {:.0} GiB)", ctx.name, ctx.capability.0, ctx.capability.1, ctx.total_memory as f64 / (1u64 << 30) as f64);
    let peak = copy_bandwidth()?;
    eprintln!("[bench-gpu] device copy bandwidth {:.0} GB/s (read + write)", peak / 1e9);
    let mut readback = Vec::new();
    for bytes in [49152 * 4, 64 << 20] {
        let (pinned, pageable) = readback_times(bytes)?;
        readback.push(json!({"bytes": bytes, "pinned_us": pinned * 1e6, "pageable_us": pageable * 1e6}));
    }
    let mut shapes = Vec::new();
    for name in args.synthetic.iter().filter(|s| !s.is_empty()) {
        eprintln!("[bench-gpu] synthetic {name} ...");
        shapes.push(bench_shape(&backend, name, args, peak)?);
    }
    let model = match &args.model {
        Some(m) => {
            eprintln!("[bench-gpu] model {} ...", m.display());
            Some(check_model(&backend, args, m)?)
        }
        None => None,
    };
    println!("| shape | weights MB | step ms (direct) | step ms (graphs) | tok/s | GB/s | of copy bw | verify k=8 / k=1 |");
    println!("|---|---|---|---|---|---|---|---|");
    for r in &shapes {
        let k8 = r.verify_cost.iter().find(|(k, _)| *k == 8).map_or(0.0, |(_, c)| *c);
        println!(
            "| {} | {:.0} | {:.3} | {:.3} | {:.0} | {:.0} | {:.0}% | {:.2} |",
            r.shape,
            r.weight_bytes as f64 / 1e6,
            r.step_ms_direct,
            r.step_ms_graphs,
            r.tokens_per_s_graphs,
            r.achieved_gb_s,
            100.0 * r.fraction_of_copy_bandwidth,
            k8
        );
    }
    for r in &shapes {
        let total: f64 = r.kernel_ms.iter().map(|(_, ms)| ms).sum();
        let parts: Vec<String> = r.kernel_ms.iter().map(|(n, ms)| format!("{n} {:.0}%", 100.0 * ms / total)).collect();
        println!("{}: kernels {:.3} ms of a {:.3} ms step: {}", r.shape, total, r.step_ms_direct, parts.join(", "));
        println!("{}: chain of 8 == 8 steps bitwise: {}; greedy probe {:?}", r.shape, r.batch_invariant, r.greedy_probe);
    }
    for r in &readback {
        println!("readback {} bytes: pinned {:.1} us, pageable {:.1} us", r["bytes"], r["pinned_us"], r["pageable_us"]);
    }
    if let Some(m) = &model {
        println!("model: {}", serde_json::to_string_pretty(m).unwrap_or_default());
    }
    let report = json!({
        "gpu": ctx.name,
        "capability": format!("sm_{}{}", ctx.capability.0, ctx.capability.1),
        "copy_bandwidth_gb_s": peak / 1e9,
        "readback": readback,
        "shapes": shapes,
        "model": model,
    });
    std::fs::create_dir_all(&args.out).map_err(|e| Error::io(&args.out, e))?;
    let path = args.out.join("gpu.json");
    std::fs::write(&path, serde_json::to_string_pretty(&report).unwrap_or_default()).map_err(|e| Error::io(&path, e))?;
    eprintln!("[bench-gpu] wrote {}", path.display());
    Ok(())
}

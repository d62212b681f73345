//! What one target pass costs by its number of tokens, through the engine's own model API (the calls the
//! strategies make): a chain of n new tokens (speculative verification), and, for a SPACE export, the step of
//! `candidates: last` at each k (b, c_1..c_k, then k mask tokens after c_k: 2k + 1 nodes), each as a multiple of
//! a one-token step. Medians of `--rounds` passes on a `--context`-token context (default 128), models taking turns pass by pass, so a
//! VM's drift hits all of them alike. Prints a table and writes `--out` (default bench-out/pass-cost.json).
//!
//! `cargo run --release --example pass_cost -- MODEL_DIR... [--threads 2] [--rounds 40] [--max 12] [--context 128]
//! [--grouped]` (`--grouped`: each pass kind many times in a row instead of in turn)
//! (docs/SPACE.md, "Choosing k": the table that decided k).

use std::path::PathBuf;
use std::time::Instant;

use specrt::backend::onnxruntime::OnnxRuntime;
use specrt::config::BackendConfig;
use specrt::model::{LanguageModel, TokenTree};

/// One kind of pass on one model: its label and tree.
struct Pass {
    model: usize,
    label: String,
    tokens: usize,
    tree: TokenTree,
    samples: Vec<f64>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (mut threads, mut rounds, mut max, mut context, mut grouped, mut dirs) = (2usize, 40usize, 12usize, 128usize, false, Vec::new());
    let mut out = PathBuf::from("bench-out/pass-cost.json");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--threads" => threads = args.next().ok_or("--threads needs a value")?.parse()?,
            "--rounds" => rounds = args.next().ok_or("--rounds needs a value")?.parse()?,
            "--max" => max = args.next().ok_or("--max needs a value")?.parse()?,
            "--context" => context = args.next().ok_or("--context needs a value")?.parse()?,
            "--grouped" => grouped = true,
            "--out" => out = PathBuf::from(args.next().ok_or("--out needs a file")?),
            _ => dirs.push(PathBuf::from(a)),
        }
    }
    if dirs.is_empty() {
        return Err("give one or more decoder model folders".into());
    }
    let backend = OnnxRuntime::new(&BackendConfig { threads: Some(threads), ..Default::default() })?;
    let mut models = dirs.iter().map(|d| LanguageModel::open(&backend, d, Some(context + 64))).collect::<Result<Vec<_>, _>>()?;
    let mut passes = Vec::new();
    for (m, model) in models.iter().enumerate() {
        let vocab = model.vocab_size() as u32;
        let token = |i: usize| 300 + (i as u32 * 31) % (vocab - 400);
        for n in 1..=max {
            let tokens: Vec<u32> = (0..n).map(token).collect();
            passes.push(Pass { model: m, label: format!("chain {n}"), tokens: n, tree: TokenTree::chain(&tokens), samples: Vec::new() });
        }
        if let Some(space) = model.manifest().space {
            for k in 1..=space.k {
                // b, c_1..c_k as a chain, then k masks chained after c_k (the layout of engine/strategy/space/layout.rs)
                let mut tree = TokenTree::chain(&(0..=k).map(token).collect::<Vec<_>>());
                let mut parent = k;
                for _ in 0..k {
                    parent = tree.push(space.mask_token_id, Some(parent));
                }
                passes.push(Pass { model: m, label: format!("space k={k} last"), tokens: 2 * k + 1, tree, samples: Vec::new() });
            }
        }
    }
    let filler: Vec<u32> = (0..context as u32).map(|i| 100 + (i * 7919) % 20_000).collect();
    for model in &mut models {
        model.append(&filler)?;
    }
    // Round 0 is a warm-up. Interleaved (the default): every pass kind once per round, as a speculative pipeline
    // mixes shapes; `--grouped`: each kind `rounds + 1` times in a row (one shape's steady state).
    let order: Vec<(usize, usize)> = if grouped {
        (0..passes.len()).flat_map(|p| (0..=rounds).map(move |r| (r, p))).collect()
    } else {
        (0..=rounds).flat_map(|r| (0..passes.len()).map(move |p| (r, p))).collect()
    };
    for (round, p) in order {
        let pass = &mut passes[p];
        let model = &mut models[pass.model];
        let t0 = Instant::now();
        model.eval_tree(&pass.tree)?;
        let s = t0.elapsed().as_secs_f64();
        model.truncate(context)?;
        if round > 0 {
            pass.samples.push(s);
        }
    }
    eprintln!();
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let mut one = vec![0.0; models.len()];
    for p in passes.iter_mut() {
        let m = median(&mut p.samples);
        if p.tokens == 1 && p.label.starts_with("chain") {
            one[p.model] = m;
        }
    }
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("model name")).map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string()))
        .unwrap_or_default();
    println!("pass cost, {threads} threads, {rounds} rounds, median, context {context}, CPU {cpu}");
    println!("| model | pass | tokens | ms | x one-token step |");
    println!("|---|---|---|---|---|");
    let mut rows = Vec::new();
    for p in &passes {
        let ms = p.samples[p.samples.len() / 2] * 1e3;
        let ratio = ms / 1e3 / one[p.model];
        let name = dirs[p.model].file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        println!("| {name} | {} | {} | {ms:.2} | {ratio:.2} |", p.label, p.tokens);
        rows.push(serde_json::json!({"model": name, "pass": p.label, "tokens": p.tokens, "ms": ms, "ratio": ratio}));
    }
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let doc = serde_json::json!({"cpu": cpu, "threads": threads, "rounds": rounds, "context": context, "passes": rows});
    std::fs::write(&out, serde_json::to_string_pretty(&doc)?)?;
    eprintln!("pass_cost: wrote {}", out.display());
    Ok(())
}

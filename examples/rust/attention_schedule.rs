//! How a verification pass's attention units are handed to threads, measured in one process: the same model runs
//! chains of 1..=`--max` tokens on a `--context`-token context, the two schedules of the attention operator taking
//! turns pass by pass (so a VM's drift hits both alike): units by KV head (one contiguous chunk per thread, the
//! default) and units dealt out row first. Both compute every bit alike (which thread runs a unit changes nothing);
//! only the time differs. Prints the median milliseconds per pass and the extra cost of each row beyond the first,
//! and a one-token step timed right after a 2-token pass of the same layout (what decoding does between verify
//! passes), and writes `--out` (default bench-out/attention-schedule.json).
//!
//! `cargo run --release --example attention_schedule -- MODEL_DIR [--threads 2] [--rounds 150] [--max 5]
//! [--context 256]` (docs/KERNELS.md, "Verify rows by KV head").

use std::path::PathBuf;
use std::time::Instant;

use specrt::backend::onnxruntime::{attention_op, OnnxRuntime};
use specrt::config::BackendConfig;
use specrt::model::{LanguageModel, TokenTree};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (mut threads, mut rounds, mut max, mut context, mut dir) = (2usize, 150usize, 5usize, 256usize, None);
    let mut out = PathBuf::from("bench-out/attention-schedule.json");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |what: &str| args.next().ok_or(format!("{what} needs a value"));
        match a.as_str() {
            "--threads" => threads = value("--threads")?.parse()?,
            "--rounds" => rounds = value("--rounds")?.parse()?,
            "--max" => max = value("--max")?.parse()?,
            "--context" => context = value("--context")?.parse()?,
            "--out" => out = PathBuf::from(value("--out")?),
            _ => dir = Some(PathBuf::from(a)),
        }
    }
    let dir = dir.ok_or("give a decoder model folder made with --attention-kernel specrt")?;
    if max == 0 || rounds == 0 {
        return Err("--max and --rounds must be at least 1".into());
    }
    let backend = OnnxRuntime::new(&BackendConfig { threads: Some(threads), ..Default::default() })?;
    let mut model = LanguageModel::open(&backend, &dir, Some(context + max + 8))?;
    let vocab = model.vocab_size() as u32;
    let filler: Vec<u32> = (0..context as u32).map(|i| 100 + (i * 7919) % (vocab - 200)).collect();
    model.append(&filler)?;
    let schedules = [("by KV head", true), ("row first", false)];
    // samples[schedule][n - 1]; round 0 is a warm-up. after[schedule]: a one-token step right after a 2-token
    // pass of the same layout (does a pass's layout leave the cache where the next step's threads miss it?)
    let mut samples = vec![vec![Vec::new(); max]; schedules.len()];
    let mut after = vec![Vec::new(); schedules.len()];
    let one = TokenTree::chain(&[300]);
    let two = TokenTree::chain(&[300, 331]);
    for round in 0..=rounds {
        for i in 0..schedules.len() {
            let s = (i + round) % schedules.len();
            timed_pass(&mut model, schedules[s].1, &two, context)?;
            let seconds = timed_pass(&mut model, schedules[s].1, &one, context)?;
            if round > 0 {
                after[s].push(seconds);
            }
        }
        for n in 1..=max {
            let tokens: Vec<u32> = (0..n as u32).map(|i| 300 + (i * 31) % (vocab - 400)).collect();
            let tree = TokenTree::chain(&tokens);
            // alternate which schedule goes first, so neither always follows the other
            for i in 0..schedules.len() {
                let s = (i + round + n) % schedules.len();
                let seconds = timed_pass(&mut model, schedules[s].1, &tree, context)?;
                if round > 0 {
                    samples[s][n - 1].push(seconds);
                }
            }
        }
    }
    attention_op::set_verify_units_by_kv_head(true);
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2] * 1e3
    };
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("model name")).map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string()))
        .unwrap_or_default();
    println!("attention schedule, {threads} threads, {rounds} rounds, median ms, context {context}, CPU {cpu}");
    println!("| schedule | {} | 1 token after a 2-token pass |", (1..=max).map(|n| format!("{n} tokens")).collect::<Vec<_>>().join(" | "));
    println!("|---|{}---|", "---|".repeat(max));
    let mut rows = Vec::new();
    for (s, (name, _)) in schedules.iter().enumerate() {
        let ms: Vec<f64> = samples[s].iter_mut().map(median).collect();
        let cells: Vec<String> =
            ms.iter().enumerate().map(|(i, m)| if i == 0 { format!("{m:.2}") } else { format!("{m:.2} (+{:.2})", m - ms[0]) }).collect();
        let next = median(&mut after[s]);
        println!("| {name} | {} | {next:.2} |", cells.join(" | "));
        rows.push(serde_json::json!({"schedule": name, "ms": ms, "one_token_after_two": next}));
    }
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let doc = serde_json::json!({"cpu": cpu, "threads": threads, "rounds": rounds, "context": context, "model": dir, "schedules": rows});
    std::fs::write(&out, serde_json::to_string_pretty(&doc)?)?;
    eprintln!("attention_schedule: wrote {}", out.display());
    Ok(())
}

/// One pass of `tree` on top of the `context` cached tokens under the given layout, timed, then rolled back.
fn timed_pass(model: &mut LanguageModel, by_kv_head: bool, tree: &TokenTree, context: usize) -> Result<f64, Box<dyn std::error::Error>> {
    attention_op::set_verify_units_by_kv_head(by_kv_head);
    let t0 = Instant::now();
    model.eval_tree(tree)?;
    let seconds = t0.elapsed().as_secs_f64();
    model.truncate(context)?;
    Ok(seconds)
}

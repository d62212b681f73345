//! What one EAGLE-style draft-head call costs, as a drafting round makes it: the newest committed pairs (a window
//! that slides by `--advance` pairs per round), then one call per depth with the head's own feature appended.
//! Between rounds a `--sweep-mb` buffer is read once, as a target pass streams its weights through the caches, so
//! the head's matrices are as cold as in a pipeline. Heads take turns round by round (a VM's drift hits all alike).
//! Prints the median microseconds per call by depth and writes `--out` (default bench-out/head-call.json).
//!
//! `cargo run --release --example head_call -- HEAD_DIR... [--threads 2] [--rounds 200] [--depth 3] [--advance 2]
//! [--sweep-mb 96]` (docs/HEADS.md, "The head as one operator").

use std::path::PathBuf;
use std::time::Instant;

use specrt::backend::onnxruntime::OnnxRuntime;
use specrt::backend::{Backend, HeadGraph, HeadInput};
use specrt::config::BackendConfig;
use specrt::contract::GraphSpec;

/// Deterministic values in [-2, 2) (xorshift).
fn values(n: usize, state: &mut u64) -> Vec<f32> {
    (0..n)
        .map(|_| {
            *state ^= *state << 13;
            *state ^= *state >> 7;
            *state ^= *state << 17;
            ((*state >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 2.0
        })
        .collect()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (mut threads, mut rounds, mut depth, mut advance, mut sweep_mb, mut dirs) = (2usize, 200usize, 3usize, 2usize, 96usize, Vec::new());
    let mut out = PathBuf::from("bench-out/head-call.json");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |what: &str| args.next().ok_or(format!("{what} needs a value"));
        match a.as_str() {
            "--threads" => threads = value("--threads")?.parse()?,
            "--rounds" => rounds = value("--rounds")?.parse()?,
            "--depth" => depth = value("--depth")?.parse()?,
            "--advance" => advance = value("--advance")?.parse()?,
            "--sweep-mb" => sweep_mb = value("--sweep-mb")?.parse()?,
            "--out" => out = PathBuf::from(value("--out")?),
            _ => dirs.push(PathBuf::from(a)),
        }
    }
    if dirs.is_empty() || depth == 0 {
        return Err("usage: head_call HEAD_DIR... [--threads 2] [--rounds 200] [--depth 3] [--advance 2] [--sweep-mb 96]".into());
    }
    let backend = OnnxRuntime::new(&BackendConfig { threads: Some(threads), ..Default::default() })?;
    let mut heads: Vec<(String, usize, usize, Box<dyn HeadGraph>)> = Vec::new();
    for dir in &dirs {
        let manifest: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json"))?)?;
        if manifest["head"]["kind"] != "eagle" {
            return Err(format!("{}: not an EAGLE-style head", dir.display()).into());
        }
        let graph: GraphSpec = serde_json::from_value(manifest["graph"].clone())?;
        let hidden = manifest["target"]["hidden_size"].as_u64().ok_or("target.hidden_size missing")? as usize;
        let window = manifest["head"]["window"].as_u64().ok_or("head.window missing")? as usize;
        let name = dir.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        heads.push((name, hidden, window, backend.open_head(dir, &graph)?));
    }
    let hidden = heads[0].1;
    if heads.iter().any(|h| h.1 != hidden) {
        return Err("the heads have different hidden sizes".into());
    }
    // The committed stream every head reads (the same pairs for all), and the buffer the sweep reads.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let pairs = rounds * advance + 64;
    let stream = values(pairs * hidden, &mut state);
    let tokens: Vec<i64> = (0..pairs).map(|i| (i as i64 * 7919) % 2000 + 10).collect();
    let sweep = vec![1u8; sweep_mb << 20];
    let mut samples = vec![vec![Vec::with_capacity(rounds); depth]; heads.len()];
    let mut checksum = 0u64;
    for round in 0..rounds {
        let end = 16 + round * advance;
        for (h, (_, _, window, graph)) in heads.iter_mut().enumerate() {
            checksum = checksum.wrapping_add(sweep.iter().step_by(64).map(|&b| u64::from(b)).sum::<u64>());
            let start = end.saturating_sub(*window);
            let (mut states, mut ids) = (stream[start * hidden..end * hidden].to_vec(), tokens[start..end].to_vec());
            for (d, times) in samples[h].iter_mut().enumerate() {
                let s = ids.len() as i64;
                let t0 = Instant::now();
                graph.run(&[
                    HeadInput::F32 { name: "hidden_states", data: &states, shape: &[1, s, hidden as i64] },
                    HeadInput::I64 { name: "input_ids", data: &ids, shape: &[1, s] },
                ])?;
                times.push(t0.elapsed().as_secs_f64());
                let feature = graph.output("features").ok_or("output features missing")?;
                let feature = feature[feature.len() - hidden..].to_vec();
                if ids.len() == *window {
                    states.drain(..hidden);
                    ids.remove(0);
                }
                states.extend_from_slice(&feature);
                ids.push(100 + d as i64);
            }
        }
    }
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("model name")).map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string()))
        .unwrap_or_default();
    println!("head call, {threads} threads, {rounds} rounds, {sweep_mb} MB read between rounds, median us, CPU {cpu} (sweep checksum {checksum})");
    println!("| head | {} | mean of depths |", (1..=depth).map(|d| format!("depth {d}")).collect::<Vec<_>>().join(" | "));
    println!("|---|{}---|", "---|".repeat(depth));
    let mut rows = Vec::new();
    for ((name, ..), times) in heads.iter().zip(samples.iter_mut()) {
        let us: Vec<f64> = times.iter_mut().map(|t| median(t) * 1e6).collect();
        let mean = us.iter().sum::<f64>() / us.len() as f64;
        println!("| {name} | {} | {mean:.0} |", us.iter().map(|u| format!("{u:.0}")).collect::<Vec<_>>().join(" | "));
        rows.push(serde_json::json!({"head": name, "us_by_depth": us, "us_mean": mean}));
    }
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let doc = serde_json::json!({"cpu": cpu, "threads": threads, "rounds": rounds, "advance": advance, "sweep_mb": sweep_mb, "heads": rows});
    std::fs::write(&out, serde_json::to_string_pretty(&doc)?)?;
    eprintln!("head_call: wrote {}", out.display());
    Ok(())
}

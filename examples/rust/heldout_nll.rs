//! Held-out NLL of exported models as the ENGINE runs them (its own kernels included, which Python's onnxruntime
//! cannot load): the numeric cost of a kernel or precision, stated as issue 14 asks, against a reference export
//! of the same checkpoint (the fp32 export: the GGUF's own weights, dequantized exactly).
//!
//! `cargo run --release --example heldout_nll -- --chunks FILE.json --ref fp32 --model fp32=DIR --model ggml=DIR
//!   [--threads 2] [--json OUT]`
//!
//! FILE.json holds `{"chunks": [[token ids], ...], "sources": ...}` as `python -m export.bench_q4_1 chunks` writes
//! it (export.space_quality's held-out chunks: half prose, half stdlib code, the held-out split). Every chunk is
//! one forward pass with logits for every position; per model: mean NLL per token, the paired difference to the
//! reference with its standard error over chunks, and the largest logit difference at any position. Prints a
//! table and writes JSON (CPU named). `make nll-kernels` runs it on SmolLM2's exports.

use std::path::PathBuf;

use specrt::backend::onnxruntime::OnnxRuntime;
use specrt::config::BackendConfig;
use specrt::model::LanguageModel;

struct Args {
    chunks: PathBuf,
    reference: String,
    models: Vec<(String, PathBuf)>,
    threads: usize,
    json: Option<PathBuf>,
}

fn parse() -> Result<Args, String> {
    let mut a = Args { chunks: PathBuf::new(), reference: String::new(), models: Vec::new(), threads: 2, json: None };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--chunks" => a.chunks = value()?.into(),
            "--ref" => a.reference = value()?,
            "--model" => {
                let v = value()?;
                let (name, dir) = v.split_once('=').ok_or_else(|| format!("--model {v}: expected NAME=DIR"))?;
                a.models.push((name.to_string(), dir.into()));
            }
            "--threads" => a.threads = value()?.parse().map_err(|e| format!("--threads: {e}"))?,
            "--json" => a.json = Some(value()?.into()),
            other => return Err(format!("unknown argument {other} (see the file's doc comment)")),
        }
    }
    if a.chunks.as_os_str().is_empty() || a.models.is_empty() {
        return Err("--chunks FILE and at least one --model NAME=DIR are required".into());
    }
    if !a.models.iter().any(|(n, _)| *n == a.reference) {
        return Err(format!("--ref {:?} is not one of the --model names", a.reference));
    }
    Ok(a)
}

/// Mean NLL (nats per predicted token) of one chunk and its `[len - 1, vocab]` logits.
fn chunk_nll(model: &mut LanguageModel, ids: &[u32]) -> Result<(f64, Vec<f32>), Box<dyn std::error::Error>> {
    model.reset();
    let logits = model.append_all(ids)?;
    let vocab = logits.len() / ids.len();
    let rows = &logits[..(ids.len() - 1) * vocab];
    let mut total = 0f64;
    for (row, &next) in rows.chunks_exact(vocab).zip(&ids[1..]) {
        let max = row.iter().fold(f32::NEG_INFINITY, |m, &v| m.max(v)) as f64;
        let lse = max + row.iter().map(|&v| (v as f64 - max).exp()).sum::<f64>().ln();
        total += lse - row[next as usize] as f64;
    }
    Ok((total / (ids.len() - 1) as f64, rows.to_vec()))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = parse().map_err(|e| format!("heldout_nll: {e}"))?;
    let file: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&args.chunks)?)?;
    let chunks: Vec<Vec<u32>> = serde_json::from_value(file["chunks"].clone())?;
    let longest = chunks.iter().map(Vec::len).max().unwrap_or(0);
    if chunks.is_empty() || chunks.iter().any(|c| c.len() < 2) {
        return Err(format!("{}: no chunks, or a chunk shorter than 2 tokens", args.chunks.display()).into());
    }
    let backend = OnnxRuntime::new(&BackendConfig { threads: Some(args.threads), ..Default::default() })?;
    // The reference first, so each model's logits are compared chunk by chunk without holding them all.
    let mut order: Vec<usize> = (0..args.models.len()).collect();
    order.sort_by_key(|&i| args.models[i].0 != args.reference);
    let mut models = Vec::new();
    for &i in &order {
        let (name, dir) = &args.models[i];
        eprintln!("heldout_nll: loading {name} ({})", dir.display());
        models.push((name.clone(), dir.clone(), LanguageModel::open(&backend, dir, Some(longest + 8))?));
    }
    let mut per: Vec<Vec<f64>> = vec![Vec::new(); models.len()];
    let mut max_diff = vec![0f32; models.len()];
    for (c, ids) in chunks.iter().enumerate() {
        let (ref_nll, ref_logits) = chunk_nll(&mut models[0].2, ids)?;
        per[0].push(ref_nll);
        for m in 1..models.len() {
            let (v, logits) = chunk_nll(&mut models[m].2, ids)?;
            per[m].push(v);
            let d = logits.iter().zip(&ref_logits).fold(0f32, |a, (x, y)| a.max((x - y).abs()));
            max_diff[m] = max_diff[m].max(d);
        }
        eprint!("\rheldout_nll: chunk {}/{}", c + 1, chunks.len());
    }
    eprintln!();
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("model name")).map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string()))
        .unwrap_or_else(|| "unknown".into());
    println!(
        "\nHeld-out NLL in the engine, {} chunks x up to {longest} tokens, reference {}, {cpu}, {} threads\n",
        chunks.len(),
        args.reference,
        args.threads
    );
    println!("| model | NLL (nats/token) | minus reference (+- 2 s.e.) | max logit diff vs reference |\n|---|---|---|---|");
    let mut records = Vec::new();
    for (m, (name, dir, model)) in models.iter().enumerate() {
        let n = per[m].len() as f64;
        let mean = per[m].iter().sum::<f64>() / n;
        let diffs: Vec<f64> = per[m].iter().zip(&per[0]).map(|(a, b)| a - b).collect();
        let dm = diffs.iter().sum::<f64>() / n;
        let se = (diffs.iter().map(|d| (d - dm).powi(2)).sum::<f64>() / (n - 1.0).max(1.0)).sqrt() / n.sqrt();
        println!("| {name} | {mean:.4} | {dm:+.4} +- {:.4} | {:.3} |", 2.0 * se, max_diff[m]);
        records.push(serde_json::json!({
            "name": name, "dir": dir, "device": model.device(), "nll": mean, "diff_vs_ref": dm, "diff_se": se,
            "max_abs_logit_diff_vs_ref": max_diff[m],
        }));
    }
    if let Some(path) = &args.json {
        let out = serde_json::json!({
            "cpu": cpu, "threads": args.threads, "chunks": chunks.len(), "chunk_tokens": longest,
            "reference": args.reference, "sources": file["sources"], "models": records,
        });
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, serde_json::to_string_pretty(&out)?)?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

//! The CTC NAT encoder pass alone, A/B: microseconds per batch-1 greedy pass (`token_ids` only: no tokenizer, no
//! CTC collapse) of several model folders on the same upsampled sentences, the models taking turns every 50
//! passes so a drifting VM moves them alike. Prints a table; used to compare exports of one model (e.g. the q8_0
//! export with and without the fused `EncoderLayerGgml` layers, docs/BENCHMARKS.md section 5).
//!
//! `cargo run --release --example nat_probe -- [--threads N] [--rounds R] MODEL_DIR...`

use std::path::PathBuf;
use std::time::Instant;

use specrt::backend::onnxruntime::OnnxRuntime;
use specrt::config::BackendConfig;
use specrt::nat::model::NatModel;
use specrt::nat::upsample::upsample;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (mut threads, mut rounds, mut dirs) = (2usize, 20usize, Vec::new());
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--threads" => threads = args.next().ok_or("--threads needs a value")?.parse()?,
            "--rounds" => rounds = args.next().ok_or("--rounds needs a value")?.parse()?,
            _ => dirs.push(PathBuf::from(a)),
        }
    }
    if dirs.is_empty() {
        return Err("give one or more CTC NAT model folders".into());
    }
    let backend = OnnxRuntime::new(&BackendConfig { threads: Some(threads), ..Default::default() })?;
    let mut models = dirs.iter().map(|d| NatModel::open(&backend, d)).collect::<Result<Vec<_>, _>>()?;
    // Source lengths of typical test sentences (8..40 tokens), ids from the middle of the vocabulary.
    let sentences: Vec<Vec<u32>> = [8u32, 14, 20, 27, 40]
        .iter()
        .map(|&n| {
            let m = &models[0].manifest().ctc;
            upsample(&(200..200 + n).collect::<Vec<_>>(), m.upsample.rate, m.upsample.position_limit, m.mask_id)
        })
        .collect::<Result<_, _>>()?;
    let mut total = vec![0.0f64; models.len()];
    let mut passes = 0usize;
    for round in 0..=rounds {
        for (i, m) in models.iter_mut().enumerate() {
            let t0 = Instant::now();
            for _ in 0..10 {
                for s in &sentences {
                    m.forward_ids_with(std::slice::from_ref(s), |_, ids| Ok(ids.len()))?;
                }
            }
            // Round 0 warms the caches and the pool up and is not counted.
            if round > 0 {
                total[i] += t0.elapsed().as_secs_f64();
            }
        }
        if round > 0 {
            passes += 10 * sentences.len();
        }
    }
    let lens: Vec<usize> = sentences.iter().map(Vec::len).collect();
    println!("batch-1 passes over {lens:?} positions, {threads} threads, {passes} passes per model");
    println!("| model | us per pass | vs first |");
    println!("|---|---|---|");
    for (d, t) in dirs.iter().zip(&total) {
        println!("| {} | {:.1} | {:.2}x |", d.display(), t / passes as f64 * 1e6, total[0] / t);
    }
    Ok(())
}

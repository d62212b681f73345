//! The CTC NAT encoder pass alone, A/B: microseconds per batch-1 greedy pass (`token_ids` only: no tokenizer, no
//! CTC collapse) of several model folders on the same upsampled sentences, the models taking turns every 50
//! passes so a drifting VM moves them alike. Prints a table; used to compare exports of one model (e.g. the q8_0
//! export with and without the fused `EncoderLayerGgml` layers, docs/BENCHMARKS.md section 5). A folder whose
//! export has an output shortlist runs twice, with the whole head and with each sentence's shortlist
//! (`+shortlist`, and its mean size in columns).
//!
//! `cargo run --release --example nat_probe -- [--threads N] [--rounds R] [--pairs TEST.jsonl] MODEL_DIR...`
//!
//! `--pairs`: the sentences are 5 English sides of that file (the first whose token counts are nearest 8, 14, 20,
//! 27 and 40) instead of runs of consecutive ids, so a shortlist sees real words.

use std::path::PathBuf;
use std::time::Instant;

use specrt::backend::onnxruntime::OnnxRuntime;
use specrt::backend::ColumnSelection;
use specrt::config::BackendConfig;
use specrt::nat::model::NatModel;
use specrt::nat::upsample::upsample;
use specrt::text::Tokenizer;

const LENGTHS: [usize; 5] = [8, 14, 20, 27, 40];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (mut threads, mut rounds, mut dirs, mut pairs) = (2usize, 20usize, Vec::new(), None);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--threads" => threads = args.next().ok_or("--threads needs a value")?.parse()?,
            "--rounds" => rounds = args.next().ok_or("--rounds needs a value")?.parse()?,
            "--pairs" => pairs = Some(PathBuf::from(args.next().ok_or("--pairs needs a file")?)),
            _ => dirs.push(PathBuf::from(a)),
        }
    }
    if dirs.is_empty() {
        return Err("give one or more CTC NAT model folders".into());
    }
    let backend = OnnxRuntime::new(&BackendConfig { threads: Some(threads), ..Default::default() })?;
    let mut models = dirs.iter().map(|d| NatModel::open(&backend, d)).collect::<Result<Vec<_>, _>>()?;
    let sources: Vec<Vec<u32>> = match &pairs {
        None => LENGTHS.iter().map(|&n| (200..200 + n as u32).collect()).collect(),
        Some(path) => {
            let tok = Tokenizer::load(&dirs[0].join("tokenizer.json"))?;
            let mut encoded = Vec::new();
            for line in std::fs::read_to_string(path)?.lines().take(400) {
                let v: serde_json::Value = serde_json::from_str(line)?;
                encoded.push(tok.encode(v["en"].as_str().ok_or("a pair without `en`")?)?);
            }
            LENGTHS.iter().map(|&n| encoded.iter().min_by_key(|e| e.len().abs_diff(n)).cloned().unwrap_or_default()).collect()
        }
    };
    let sentences: Vec<Vec<u32>> = sources
        .iter()
        .map(|s| {
            let m = &models[0].manifest().ctc;
            upsample(s, m.upsample.rate, m.upsample.position_limit, m.mask_id)
        })
        .collect::<Result<_, _>>()?;
    // (model, with its shortlist): every model whole-head, plus shortlist runs where the export has one.
    let mut runs: Vec<(usize, bool)> = (0..models.len()).map(|i| (i, false)).collect();
    runs.extend((0..models.len()).filter(|&i| models[i].shortlist().is_some()).map(|i| (i, true)));
    let mut total = vec![0.0f64; runs.len()];
    let mut sizes = vec![(0usize, 0usize); runs.len()];
    let mut passes = 0usize;
    let (mut columns, mut allowed) = (Vec::new(), Vec::new());
    for round in 0..=rounds {
        // The starting run rotates every round: the run right after another model's is slower (its caches and
        // pool), and a fixed order gave one export 0.90x against itself.
        for k in 0..runs.len() {
            let r = (k + round) % runs.len();
            let (i, short) = runs[r];
            let m = &mut models[i];
            let t0 = Instant::now();
            for _ in 0..10 {
                for s in &sentences {
                    let batch = std::slice::from_ref(s);
                    // The shortlist is built inside the timed loop: it is part of a pass's cost.
                    let cols = (short && m.shortlist_columns(batch, &mut columns, &mut allowed))
                        .then_some(ColumnSelection { columns: &columns, allowed: &allowed });
                    if let Some(c) = cols {
                        sizes[r].0 += c.columns.len();
                        sizes[r].1 += 1;
                    }
                    m.forward_ids_with(batch, cols, |_, ids| Ok(ids.len()))?;
                }
            }
            // Round 0 warms the caches and the pool up and is not counted.
            if round > 0 {
                total[r] += t0.elapsed().as_secs_f64();
            }
        }
        if round > 0 {
            passes += 10 * sentences.len();
        }
    }
    let lens: Vec<usize> = sentences.iter().map(Vec::len).collect();
    println!("batch-1 passes over {lens:?} positions, {threads} threads, {passes} passes per run");
    println!("| model | us per pass | vs first | shortlist columns |");
    println!("|---|---|---|---|");
    for (r, &(i, short)) in runs.iter().enumerate() {
        let size = if sizes[r].1 > 0 { format!("{:.0}", sizes[r].0 as f64 / sizes[r].1 as f64) } else { "-".into() };
        let name = format!("{}{}", dirs[i].display(), if short { " +shortlist" } else { "" });
        println!("| {name} | {:.1} | {:.2}x | {size} |", total[r] / passes as f64 * 1e6, total[0] / total[r]);
    }
    Ok(())
}

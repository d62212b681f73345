//! The draft-head cache's target pass through the ENGINE (`python -m export.head_data cache --backend engine`):
//! one teacher-forced pass per training chunk over a `--hidden-states` export, as the engine itself runs it (its
//! own kernels included, which Python's onnxruntime cannot load), answering over stdin/stdout.
//!
//! `cargo run --release --example head_cache -- --model DIR [--threads 2] [--capacity 264]`
//!
//! Why: the heads bind to the engine-kernel export, so a cache made by the same graph trains them on exactly the
//! hidden states and argmax the engine will verify (the bf16 torch target agrees with it at ~93% of positions on
//! Qwen2.5-Coder-1.5B), and on CPUs without AMX the engine's int8 kernels run a 256-token chunk several times
//! faster than bf16 torch (docs/HEADS.md, "Qwen2.5-Coder-1.5B-Instruct": 121-126 vs 56-65 tok/s on a Zen 4).
//!
//! Protocol (little-endian): on start the example writes `u32 hidden_size, u32 vocab_size, u32 topk`. Then per
//! request the caller writes `u32 n` and `n` u32 token ids (positions 0..n, an empty cache); the example answers
//! `n` i32 argmax, `n x topk` i32 ids and `n x topk` f32 logits of the top-k (descending, ties to the lower id),
//! and `n x hidden_size` f32 hidden states. `n = 0` or end of input stops it. Errors go to stderr with a
//! non-zero exit.

use std::io::{BufReader, BufWriter, Read, Write};
use std::path::PathBuf;

use specrt::backend::onnxruntime::OnnxRuntime;
use specrt::config::BackendConfig;
use specrt::model::LanguageModel;

/// Logits kept per position (export/head_data.py's TOPK).
const TOPK: usize = 8;

struct Args {
    model: PathBuf,
    threads: usize,
    capacity: usize,
}

fn parse() -> Result<Args, String> {
    let mut a = Args { model: PathBuf::new(), threads: 2, capacity: 264 };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--model" => a.model = value()?.into(),
            "--threads" => a.threads = value()?.parse().map_err(|e| format!("--threads: {e}"))?,
            "--capacity" => a.capacity = value()?.parse().map_err(|e| format!("--capacity: {e}"))?,
            other => return Err(format!("unknown argument {other} (see the file's doc comment)")),
        }
    }
    if a.model.as_os_str().is_empty() {
        return Err("--model DIR is required".into());
    }
    Ok(a)
}

/// The `k` largest entries of `row` as (id, value), descending; equal values keep the lower id first.
fn top_k(row: &[f32], k: usize) -> Vec<(usize, f32)> {
    let mut best: Vec<(usize, f32)> = Vec::with_capacity(k + 1);
    for (i, &v) in row.iter().enumerate() {
        if best.len() == k && v <= best[k - 1].1 {
            continue;
        }
        let at = best.iter().position(|&(_, b)| v > b).unwrap_or(best.len());
        best.insert(at, (i, v));
        best.truncate(k);
    }
    best
}

fn read_u32(r: &mut impl Read) -> std::io::Result<Option<u32>> {
    let mut b = [0u8; 4];
    match r.read_exact(&mut b) {
        Ok(()) => Ok(Some(u32::from_le_bytes(b))),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(None),
        Err(e) => Err(e),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = parse().map_err(|e| format!("head_cache: {e}"))?;
    let backend = OnnxRuntime::new(&BackendConfig { threads: Some(args.threads), ..Default::default() })?;
    let mut model = LanguageModel::open(&backend, &args.model, Some(args.capacity))?;
    let hidden = model.manifest().dims.hidden_size;
    let vocab = model.vocab_size();
    eprintln!("head_cache: {} on {} (hidden {hidden}, vocab {vocab})", args.model.display(), model.device());
    let mut input = BufReader::new(std::io::stdin().lock());
    let mut out = BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    for v in [hidden, vocab, TOPK] {
        out.write_all(&(v as u32).to_le_bytes())?;
    }
    out.flush()?;
    while let Some(n) = read_u32(&mut input)? {
        let n = n as usize;
        if n == 0 {
            break;
        }
        if n + 1 > args.capacity {
            return Err(format!("head_cache: a chunk of {n} tokens does not fit --capacity {}", args.capacity).into());
        }
        let mut raw = vec![0u8; 4 * n];
        input.read_exact(&mut raw)?;
        let ids: Vec<u32> = raw.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        if let Some(&bad) = ids.iter().find(|&&t| t as usize >= vocab) {
            return Err(format!("head_cache: token id {bad} is outside the vocabulary ({vocab})").into());
        }
        model.reset();
        let logits = model.append_all(&ids)?;
        if logits.len() != n * vocab {
            return Err(format!("head_cache: the pass returned {} logits for {n} tokens", logits.len()).into());
        }
        let tops: Vec<Vec<(usize, f32)>> = logits.chunks_exact(vocab).map(|row| top_k(row, TOPK)).collect();
        let states = model
            .last_hidden_states()
            .ok_or_else(|| format!("head_cache: {} has no hidden_states output (export it with --hidden-states)", args.model.display()))?;
        if states.len() != n * hidden {
            return Err(format!("head_cache: the pass returned {} hidden-state values for {n} tokens", states.len()).into());
        }
        let mut buf = Vec::with_capacity(4 * n * (1 + 2 * TOPK + hidden));
        for t in &tops {
            buf.extend_from_slice(&(t[0].0 as i32).to_le_bytes());
        }
        for t in &tops {
            for &(i, _) in t {
                buf.extend_from_slice(&(i as i32).to_le_bytes());
            }
        }
        for t in &tops {
            for &(_, v) in t {
                buf.extend_from_slice(&v.to_le_bytes());
            }
        }
        for v in states {
            buf.extend_from_slice(&v.to_le_bytes());
        }
        out.write_all(&buf)?;
        out.flush()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::top_k;

    #[test]
    fn top_k_is_descending_with_ties_to_the_lower_id() {
        assert_eq!(top_k(&[1.0, 5.0, 3.0, 5.0, -2.0], 3), vec![(1, 5.0), (3, 5.0), (2, 3.0)]);
        assert_eq!(top_k(&[0.5], 8), vec![(0, 0.5)]);
    }
}

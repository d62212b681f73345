//! The engine's block kernel alone (engine/kernels/block_matmul.rs), one thread: microseconds per call for the
//! SmolLM2-135M projection shapes (q|k|v 576 -> 960, gate|up 576 -> 3072, down 1536 -> 576) at 1..25 rows of a pass,
//! and each cost as a multiple of one row: the verification-cost curve a speculative strategy pays; one-row cost per
//! block format at Qwen2.5-1.5B's gate|up and down shapes (GB/s of weights read: decode is bandwidth-bound); and
//! attention per row and head over an f32 and an fp16 cache. Prints tables and writes bench-out/kernel-probe.json.
//! `cargo run --release --example kernel_probe` (part of make bench-kernels).

use std::fmt::Write as _;
use std::time::Instant;

use specrt::kernels::half::{KvElem, F16};
use specrt::kernels::{attention, block_matmul, BlockFormat, BlockMatrix, Isa, PanelMatrix, Q8Rows};

const ROWS: [usize; 8] = [1, 2, 3, 4, 8, 9, 16, 25];

/// A weight matrix prepared for one instruction set: the panel copy where it uses one (made once, outside the
/// timing, as the operator does on its first call).
struct Prepared<'a> {
    isa: Isa,
    blocks: BlockMatrix<'a>,
    panels: Option<PanelMatrix>,
}

impl<'a> Prepared<'a> {
    fn new(isa: Isa, blocks: BlockMatrix<'a>) -> Self {
        let panels = if isa.uses_panels(blocks.format()) { PanelMatrix::new(&blocks) } else { None };
        Prepared { isa, blocks, panels }
    }

    fn run(&self, x: &Q8Rows, y: &mut [f32]) {
        match &self.panels {
            Some(p) => block_matmul::matmul_panels(self.isa, p, x, y),
            None => block_matmul::matmul(self.isa, &self.blocks, x, y),
        }
    }
}

fn main() -> std::io::Result<()> {
    let best = Isa::detect();
    // The AVX2 panel kernel is measured beside the AVX-512 VNNI one where the CPU runs both.
    let isas: Vec<Isa> = if best == Isa::Avx512Vnni { vec![Isa::Avx2, best] } else { vec![best] };
    for isa in isas.iter().copied() {
        probe_matmul(isa, isas.len() > 1)?;
    }
    probe_attention(best)
}

fn cpu_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("model name")).map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string()))
        .unwrap_or_else(|| "unknown".into())
}

fn probe_matmul(isa: Isa, several: bool) -> std::io::Result<()> {
    let cpu = cpu_name();
    println!("block kernel ({}), 1 thread, Q4_1, CPU {cpu}", isa.name());
    let mut header = String::from("| shape (K -> N) |");
    for m in ROWS {
        let _ = write!(header, " {m} row{} |", if m == 1 { "" } else { "s" });
    }
    println!("{header}\n|---|{}", "---|".repeat(ROWS.len()));
    let mut records = Vec::new();
    for (k, n) in [(576usize, 960usize), (576, 3072), (1536, 576)] {
        let nb = k / 32;
        // Deterministic blocks with sane fp16 scales (d = 2^-7, m = -2^-4): the speed does not depend on values.
        let mut data = vec![0u8; n * nb * 20];
        for (i, b) in data.iter_mut().enumerate() {
            *b = (i * 7 % 251) as u8;
        }
        for blk in data.chunks_exact_mut(20) {
            blk[0..4].copy_from_slice(&[0x00, 0x20, 0x00, 0xAC]);
        }
        let w = Prepared::new(isa, BlockMatrix::new(BlockFormat::Q4_1, n, k, &data).expect("consistent shape"));
        let (mut line, mut one) = (format!("| {k} -> {n} |"), 0.0);
        for m in ROWS {
            let x: Vec<f32> = (0..m * k).map(|i| (i % 13) as f32 - 6.0).collect();
            let (mut q, mut y) = (Q8Rows::new(), vec![0f32; m * n]);
            let iters = (3000 / m).max(50);
            let mut best = f64::MAX;
            // Best of 5 repetitions: the machine is shared, the minimum is the kernel's own cost.
            for _ in 0..5 {
                let t = Instant::now();
                for _ in 0..iters {
                    q.quantize(&x, m, k);
                    w.run(&q, &mut y);
                }
                best = best.min(t.elapsed().as_secs_f64() * 1e6 / iters as f64);
            }
            if m == 1 {
                one = best;
            }
            let _ = write!(line, " {best:.1} us ({:.2}x) |", best / one);
            records.push(format!(
                "{{\"isa\":\"{}\",\"k\":{k},\"n\":{n},\"rows\":{m},\"us\":{best:.2},\"vs_one_row\":{:.3}}}",
                isa.name(),
                best / one
            ));
        }
        println!("{line}");
    }
    // One row per block format at Qwen2.5-Coder-1.5B's shapes (weights far larger than the L2 cache).
    println!("\n| one row, 1 thread | format | 1536 -> 17920 (gate|up) | 8960 -> 1536 (down) |\n|---|---|---|---|");
    for format in BlockFormat::ALL {
        let mut line = format!("| | {} |", format.name());
        for (k, n) in [(1536usize, 17920usize), (8960, 1536)] {
            let bytes = n * k / format.block_weights() * format.block_bytes();
            let mut data: Vec<u8> = (0..bytes).map(|i| (i * 7 % 251) as u8).collect();
            for blk in data.chunks_exact_mut(format.block_bytes()) {
                // fp16 scales of 2^-7 (and Q4_K's dmin), where each format keeps them
                let at: &[usize] = match format {
                    BlockFormat::Q6_K => &[208],
                    BlockFormat::Q4_K | BlockFormat::Q4_1 => &[0, 2],
                    _ => &[0],
                };
                for &i in at {
                    blk[i..i + 2].copy_from_slice(&[0x00, 0x20]);
                }
            }
            let w = Prepared::new(isa, BlockMatrix::new(format, n, k, &data).expect("consistent shape"));
            let x: Vec<f32> = (0..k).map(|i| (i % 13) as f32 - 6.0).collect();
            let (mut q, mut y) = (Q8Rows::new(), vec![0f32; n]);
            let mut best = f64::MAX;
            for _ in 0..5 {
                let t = Instant::now();
                for _ in 0..10 {
                    q.quantize(&x, 1, k);
                    w.run(&q, &mut y);
                }
                best = best.min(t.elapsed().as_secs_f64() * 1e6 / 10.0);
            }
            let gbs = bytes as f64 / best / 1e3;
            let _ = write!(line, " {best:.0} us, {gbs:.1} GB/s |");
            records.push(format!(
                "{{\"isa\":\"{}\",\"format\":\"{}\",\"k\":{k},\"n\":{n},\"rows\":1,\"us\":{best:.1},\"gb_per_s\":{gbs:.2}}}",
                isa.name(),
                format.name()
            ));
        }
        println!("{line}");
    }
    let path = if several { format!("bench-out/kernel-probe-{}.json", isa.name()) } else { "bench-out/kernel-probe.json".into() };
    write_records(&path, isa, &cpu, &records)
}

fn write_records(path: &str, isa: Isa, cpu: &str, records: &[String]) -> std::io::Result<()> {
    std::fs::create_dir_all("bench-out")?;
    let json = format!("{{\"isa\":\"{}\",\"cpu\":{:?},\"threads\":1,\"records\":[{}]}}\n", isa.name(), cpu, records.join(","));
    std::fs::write(path, json)?;
    println!("wrote {path}");
    Ok(())
}

fn probe_attention(isa: Isa) -> std::io::Result<()> {
    let cpu = cpu_name();
    let mut records = Vec::new();
    // Attention for one query row and head (head_dim 64), the per-token cost that grows with the context.
    println!("\n| attention, 1 row x 1 head (head_dim 64) | 64 keys | 512 keys | 2000 keys |\n|---|---|---|---|");
    for cache in ["f32", "fp16"] {
        let mut line = format!("| us per call, {cache} cache |");
        for t in [64usize, 512, 2000] {
            let d = 64;
            let q: Vec<f32> = (0..d).map(|i| (i % 7) as f32 * 0.1).collect();
            let kv: Vec<f32> = (0..t * d).map(|i| ((i * 31) % 17) as f32 * 0.05 - 0.4).collect();
            let kv16: Vec<F16> = kv.iter().map(|&x| F16::narrow(x)).collect();
            let bias = vec![0f32; t];
            let (mut scores, mut out) = (vec![0f32; t], vec![0f32; d]);
            let iters = 200_000 / t;
            let mut best = f64::MAX;
            for _ in 0..5 {
                let start = Instant::now();
                for _ in 0..iters {
                    if cache == "f32" {
                        attention::attend(&q, &kv, &kv, &bias, t, 0.125, &mut scores, &mut out);
                    } else {
                        attention::attend(&q, &kv16, &kv16, &bias, t, 0.125, &mut scores, &mut out);
                    }
                }
                best = best.min(start.elapsed().as_secs_f64() * 1e6 / iters as f64);
            }
            let _ = write!(line, " {best:.2} |");
            records.push(format!("{{\"attention_keys\":{t},\"head_dim\":{d},\"cache\":\"{cache}\",\"us\":{best:.3}}}"));
        }
        println!("{line}");
    }
    write_records("bench-out/kernel-probe-attention.json", isa, &cpu, &records)
}

//! One pre-norm transformer encoder layer computed in one call, the CTC NAT's (export/graph_ctc_nat.py):
//!
//! ```text
//! h = RMSNorm(x) ; q, k, v = h @ Wqkv^T ; a = softmax(q k^T / sqrt(d_head) + key padding) v ; x += a @ Wo^T
//! h = RMSNorm(x) ; g, u = h @ Wgu^T ; x += (silu(g) * u) @ Wdown^T
//! ```
//!
//! with every projection a GGML block matrix on the engine's block matmul (int8 activations per 32-block).
//!
//! Why one call: the same layer as ~14 ONNX Runtime nodes (two RMSNormalization, MatMulGgml + Split for QKV and for
//! gate/up, MultiHeadAttention, Sigmoid and two Mul, two Add) spent about half of the small CTC NAT's batch-1 pass
//! outside the matmul kernel (perf at one thread: kernel 49%, ONNX Runtime 21%, libc memmove/malloc 11%, page
//! faults 8%; docs/BENCHMARKS.md section 5). Here the buffers are the caller's [`EncoderScratch`], reused across
//! calls, and the only hand-offs to other threads are the four matmuls' column tasks.

use super::attention::attend;
use super::block_matmul::{self, Isa, Projection};
use super::parallel::{ParallelFor, SyncPtr};
use super::Q8Rows;

/// The layer's sizes (checked against the weights by [`EncoderLayerWeights::check`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EncoderLayerShape {
    /// Model width `d` (a multiple of 32 and of `heads`).
    pub hidden: usize,
    /// Attention heads; `d / heads` values each.
    pub heads: usize,
    /// SwiGLU width (a multiple of 32).
    pub ffn: usize,
    /// RMSNorm epsilon.
    pub eps: f32,
}

/// The layer's weights: two RMSNorm scales and four projections (`[N, K]` each: Q, K, V stacked along N; gate and
/// up stacked along N).
#[derive(Clone, Copy)]
pub struct EncoderLayerWeights<'a> {
    /// RMSNorm scale before attention, `d` values.
    pub attn_norm: &'a [f32],
    /// Q, K and V stacked: `[3d, d]`.
    pub qkv: Projection<'a>,
    /// Attention output: `[d, d]`.
    pub o: Projection<'a>,
    /// RMSNorm scale before the MLP, `d` values.
    pub ffn_norm: &'a [f32],
    /// Gate and up stacked: `[2 ffn, d]`.
    pub gate_up: Projection<'a>,
    /// Down: `[d, ffn]`.
    pub down: Projection<'a>,
}

impl EncoderLayerWeights<'_> {
    /// Checks every weight against `shape`; the message names the weight and both shapes.
    pub fn check(&self, shape: &EncoderLayerShape) -> Result<(), String> {
        let (d, f) = (shape.hidden, shape.ffn);
        if d == 0 || shape.heads == 0 || !d.is_multiple_of(shape.heads) {
            return Err(format!("hidden {d} is not a positive multiple of num_heads {}", shape.heads));
        }
        for (name, len) in [("attn_norm", self.attn_norm.len()), ("ffn_norm", self.ffn_norm.len())] {
            if len != d {
                return Err(format!("{name} has {len} values, expected hidden = {d}"));
            }
        }
        for (name, p, n, k) in [("qkv", self.qkv, 3 * d, d), ("o", self.o, d, d), ("gate_up", self.gate_up, 2 * f, d), ("down", self.down, d, f)] {
            if (p.n(), p.k()) != (n, k) {
                return Err(format!("{name} is [{}, {}], expected [{n}, {k}]", p.n(), p.k()));
            }
        }
        Ok(())
    }
}

/// Buffers of one layer call, reused across calls and layers (no allocation once grown to the largest pass).
#[derive(Debug, Default)]
pub struct EncoderScratch {
    normed: Vec<f32>,
    q8: Q8Rows,
    qkv: Vec<f32>,
    /// Keys and values gathered per (sentence, head): `[batch][heads][positions][head_dim]` each.
    keys: Vec<f32>,
    values: Vec<f32>,
    /// Per sentence: 0 for a real key, -1e30 for padding.
    bias: Vec<f32>,
    /// Per (sentence, head) task: one row of scores.
    scores: Vec<f32>,
    mixed: Vec<f32>,
    proj: Vec<f32>,
    gate_up: Vec<f32>,
    act: Vec<f32>,
}

impl EncoderScratch {
    /// Empty buffers.
    pub fn new() -> Self {
        Self::default()
    }
}

/// Output columns per parallel task: two 16-column panels. Measured on the small CTC NAT (Zen 5, 2 threads): with
/// 64 (MatMulGgml's) the 192-column projections split into 3 tasks for 2 threads, one thread doing twice the
/// other's work.
const COLUMNS_PER_TASK: usize = 32;

/// Query rows per attention task.
const QUERIES_PER_TASK: usize = 8;

/// `y = x @ W^T` for all of `x`'s rows, columns split into tasks over `par`.
fn project(isa: Isa, w: Projection, x: &Q8Rows, y: &mut Vec<f32>, par: &dyn ParallelFor) {
    y.resize(x.rows() * w.n(), 0.0);
    block_matmul::matmul_parallel(isa, w, x, y, COLUMNS_PER_TASK, par);
}

/// `out = x / sqrt(mean(x^2) + eps) * scale` for one row (`scale.len()` values).
pub(super) fn rms_norm_row(x: &[f32], scale: &[f32], eps: f32, out: &mut [f32]) {
    // Eight partial sums (the compiler keeps them in one vector register; one running sum would be serial).
    let mut acc = [0.0f32; 8];
    let chunks = x.chunks_exact(8);
    let tail: f32 = chunks.remainder().iter().map(|v| v * v).sum();
    for c in chunks {
        for (a, v) in acc.iter_mut().zip(c) {
            *a += v * v;
        }
    }
    let ms = (acc.iter().sum::<f32>() + tail) / scale.len() as f32;
    let inv = 1.0 / (ms + eps).sqrt();
    for ((o, &v), &s) in out.iter_mut().zip(x).zip(scale) {
        *o = v * inv * s;
    }
}

/// `act = silu(g) * u` for one row.
pub(super) fn swiglu_row(g: &[f32], u: &[f32], act: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if act.len().is_multiple_of(8) && Isa::detect().has_avx2() {
        // SAFETY: AVX2+FMA detected; the three slices hold the same multiple of 8 values.
        unsafe { swiglu_avx2(g, u, act) };
        return;
    }
    for ((a, &g), &u) in act.iter_mut().zip(g).zip(u) {
        *a = g / (1.0 + (-g).exp()) * u;
    }
}

/// Rows per row-parallel task (norms, SwiGLU and the activation quantizer run row by row).
const ROWS_PER_TASK: usize = 8;

/// Calls `each(r)` for every row `r < rows`, [`ROWS_PER_TASK`] rows per task over `par`. Why in parallel: at one
/// thread the norms, SwiGLU and quantizer were ~12% of the small CTC NAT's pass, all of it serial on two.
fn per_row(rows: usize, par: &dyn ParallelFor, each: &(dyn Fn(usize) + Sync)) {
    par.run(rows.div_ceil(ROWS_PER_TASK), &|t: usize| (t * ROWS_PER_TASK..((t + 1) * ROWS_PER_TASK).min(rows)).for_each(each));
}

/// `x[r] += add[r]` (when given), then RMSNorm of `x[r]` into `normed[r]` and its 8-bit quantization into `q8`,
/// row-parallel.
#[allow(clippy::too_many_arguments)]
fn add_norm_quantize(
    x: &mut [f32],
    add: Option<&[f32]>,
    scale: &[f32],
    eps: f32,
    normed: &mut Vec<f32>,
    q8: &mut Q8Rows,
    rows: usize,
    par: &dyn ParallelFor,
) {
    let d = scale.len();
    normed.resize(rows * d, 0.0);
    let (xs, out) = (SyncPtr(x.as_mut_ptr()), SyncPtr(normed.as_mut_ptr()));
    let w = q8.row_writer(rows, d);
    per_row(rows, par, &|r| {
        // SAFETY: row r of x and of normed is touched only by this call; both hold rows x d values.
        let (xr, o) = unsafe { (std::slice::from_raw_parts_mut(xs.ptr().add(r * d), d), std::slice::from_raw_parts_mut(out.ptr().add(r * d), d)) };
        if let Some(add) = add {
            xr.iter_mut().zip(&add[r * d..(r + 1) * d]).for_each(|(v, a)| *v += a);
        }
        rms_norm_row(xr, scale, eps, o);
        // SAFETY: row r is quantized by this call only; q8 is not used until `w` is dropped.
        unsafe { w.quantize_row(r, o) };
    });
}

/// SwiGLU 8 values at a time with the attention kernel's exp (relative error ~2e-7): libm's scalar expf was 5% of
/// the small CTC NAT's pass.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn swiglu_avx2(g: &[f32], u: &[f32], a: &mut [f32]) {
    use std::arch::x86_64::*;
    // SAFETY: the caller checked the lengths (equal, a multiple of 8); loads and stores are unaligned.
    unsafe {
        for i in (0..a.len()).step_by(8) {
            let gv = _mm256_loadu_ps(g.as_ptr().add(i));
            let e = super::attention::avx2::exp(_mm256_sub_ps(_mm256_setzero_ps(), gv));
            let silu = _mm256_div_ps(gv, _mm256_add_ps(_mm256_set1_ps(1.0), e));
            _mm256_storeu_ps(a.as_mut_ptr().add(i), _mm256_mul_ps(silu, _mm256_loadu_ps(u.as_ptr().add(i))));
        }
    }
}

/// One layer over `x` (`batch x positions` rows of `shape.hidden`, row-major), updated in place. `mask` has one
/// value per row: nonzero = a real position; padded positions are hidden from every query as keys (their own rows
/// are computed but meaningless, as in the graph this replaces).
///
/// # Panics
/// If `x` or `mask` disagree with `batch x positions`, or the weights with `shape` (check them first with
/// [`EncoderLayerWeights::check`]).
#[allow(clippy::too_many_arguments)]
pub fn encoder_layer(
    isa: Isa,
    shape: &EncoderLayerShape,
    w: &EncoderLayerWeights,
    x: &mut [f32],
    mask: &[i32],
    batch: usize,
    positions: usize,
    s: &mut EncoderScratch,
    par: &dyn ParallelFor,
) {
    let (d, f, heads) = (shape.hidden, shape.ffn, shape.heads);
    let rows = batch * positions;
    assert_eq!(x.len(), rows * d, "x is not batch x positions x hidden");
    assert_eq!(mask.len(), rows, "mask is not batch x positions");
    if let Err(e) = w.check(shape) {
        panic!("encoder layer weights: {e}");
    }
    let hd = d / heads;
    let scale = 1.0 / (hd as f32).sqrt();

    // Attention block.
    add_norm_quantize(x, None, w.attn_norm, shape.eps, &mut s.normed, &mut s.q8, rows, par);
    project(isa, w.qkv, &s.q8, &mut s.qkv, par);
    s.keys.resize(rows * d, 0.0);
    s.values.resize(rows * d, 0.0);
    for r in 0..rows {
        let (b, t) = (r / positions, r % positions);
        let row = &s.qkv[r * 3 * d..][..3 * d];
        for h in 0..heads {
            let at = ((b * heads + h) * positions + t) * hd;
            s.keys[at..at + hd].copy_from_slice(&row[d + h * hd..][..hd]);
            s.values[at..at + hd].copy_from_slice(&row[2 * d + h * hd..][..hd]);
        }
    }
    // Padded keys get -1e30: exp underflows to exactly 0, as ONNX Runtime's -10000 mask does at these scales.
    s.bias.clear();
    s.bias.extend(mask.iter().map(|&m| if m != 0 { 0.0 } else { -1e30 }));
    // One task per (sentence, head, block of query rows): a batch-1 pass of a 3-head model is 3 (sentence, head)
    // pairs, which 2 threads would take in 2 rounds.
    let blocks = positions.div_ceil(QUERIES_PER_TASK);
    let tasks = batch * heads * blocks;
    s.scores.resize(tasks * positions, 0.0);
    s.mixed.resize(rows * d, 0.0);
    let (mixed, scores) = (SyncPtr(s.mixed.as_mut_ptr()), SyncPtr(s.scores.as_mut_ptr()));
    let (qkv, keys, values, bias) = (&s.qkv, &s.keys, &s.values, &s.bias);
    let attend_rows = |task: usize| {
        let (pair, block) = (task / blocks, task % blocks);
        let (b, h) = (pair / heads, pair % heads);
        let kv = &keys[pair * positions * hd..][..positions * hd];
        let vv = &values[pair * positions * hd..][..positions * hd];
        // SAFETY: task `task` alone uses scores[task * positions..][..positions] and, for its query rows, the
        // columns h*hd..(h+1)*hd of `mixed`; both buffers outlive the parallel call.
        let sc = unsafe { std::slice::from_raw_parts_mut(scores.ptr().add(task * positions), positions) };
        for t in block * QUERIES_PER_TASK..((block + 1) * QUERIES_PER_TASK).min(positions) {
            let r = b * positions + t;
            let q = &qkv[r * 3 * d + h * hd..][..hd];
            // SAFETY: as above.
            let out = unsafe { std::slice::from_raw_parts_mut(mixed.ptr().add(r * d + h * hd), hd) };
            attend(q, kv, vv, &bias[b * positions..(b + 1) * positions], positions, scale, sc, out);
        }
    };
    par.run(tasks, &attend_rows);
    {
        let wq = s.q8.row_writer(rows, d);
        let mixed = &s.mixed;
        // SAFETY: each row is quantized by one call; q8 is not used until `wq` is dropped.
        per_row(rows, par, &|r| unsafe { wq.quantize_row(r, &mixed[r * d..(r + 1) * d]) });
    }
    project(isa, w.o, &s.q8, &mut s.proj, par);

    // MLP block (the attention output joins the residual stream inside the norm's row tasks).
    add_norm_quantize(x, Some(&s.proj), w.ffn_norm, shape.eps, &mut s.normed, &mut s.q8, rows, par);
    project(isa, w.gate_up, &s.q8, &mut s.gate_up, par);
    s.act.resize(rows * f, 0.0);
    {
        let wq = s.q8.row_writer(rows, f);
        let (gate_up, act) = (&s.gate_up, SyncPtr(s.act.as_mut_ptr()));
        per_row(rows, par, &|r| {
            let (g, u) = gate_up[r * 2 * f..(r + 1) * 2 * f].split_at(f);
            // SAFETY: row r of act is written by this call only; act holds rows x f values; q8 is not used until
            // `wq` is dropped.
            unsafe {
                let a = std::slice::from_raw_parts_mut(act.ptr().add(r * f), f);
                swiglu_row(g, u, a);
                wq.quantize_row(r, a);
            }
        });
    }
    project(isa, w.down, &s.q8, &mut s.proj, par);
    x.iter_mut().zip(&s.proj).for_each(|(v, p)| *v += p);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::block_format::BlockFormat;
    use crate::kernels::parallel::Serial;
    use crate::kernels::test_weights::{q8_0, values};
    use crate::kernels::{BlockMatrix, PanelMatrix};

    /// The layer in f64 from the decoded weights, unquantized activations, no fusion: what the kernel approximates.
    #[allow(clippy::too_many_arguments)]
    fn reference(
        shape: &EncoderLayerShape,
        norms: (&[f32], &[f32]),
        mats: [&[f32]; 4],
        x: &[f32],
        mask: &[i32],
        batch: usize,
        positions: usize,
        ignore_mask: bool,
    ) -> Vec<f32> {
        let (d, f, heads) = (shape.hidden, shape.ffn, shape.heads);
        let hd = d / heads;
        let mut x: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
        let lin = |h: &[f64], w: &[f32], n: usize, k: usize| -> Vec<f64> {
            h.chunks_exact(k)
                .flat_map(|r| (0..n).map(move |j| r.iter().zip(&w[j * k..(j + 1) * k]).map(|(a, &b)| a * f64::from(b)).sum::<f64>()))
                .collect()
        };
        let norm = |x: &[f64], sc: &[f32]| -> Vec<f64> {
            x.chunks_exact(d)
                .flat_map(|r| {
                    let inv = 1.0 / (r.iter().map(|v| v * v).sum::<f64>() / d as f64 + f64::from(shape.eps)).sqrt();
                    r.iter().zip(sc).map(move |(v, &s)| v * inv * f64::from(s)).collect::<Vec<_>>()
                })
                .collect()
        };
        let h = norm(&x, norms.0);
        let qkv = lin(&h, mats[0], 3 * d, d);
        let mut mixed = vec![0.0f64; batch * positions * d];
        for b in 0..batch {
            for hh in 0..heads {
                for t in 0..positions {
                    let r = b * positions + t;
                    let q = &qkv[r * 3 * d + hh * hd..][..hd];
                    let mut sc: Vec<f64> = (0..positions)
                        .map(|j| {
                            let k = &qkv[(b * positions + j) * 3 * d + d + hh * hd..][..hd];
                            let masked = !ignore_mask && mask[b * positions + j] == 0;
                            if masked {
                                f64::NEG_INFINITY
                            } else {
                                q.iter().zip(k).map(|(a, c)| a * c).sum::<f64>() / (hd as f64).sqrt()
                            }
                        })
                        .collect();
                    let m = sc.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                    sc.iter_mut().for_each(|v| *v = (*v - m).exp());
                    let sum: f64 = sc.iter().sum();
                    for (j, p) in sc.iter().enumerate() {
                        let v = &qkv[(b * positions + j) * 3 * d + 2 * d + hh * hd..][..hd];
                        for c in 0..hd {
                            mixed[r * d + hh * hd + c] += p / sum * v[c];
                        }
                    }
                }
            }
        }
        let o = lin(&mixed, mats[1], d, d);
        x.iter_mut().zip(&o).for_each(|(a, b)| *a += b);
        let h = norm(&x, norms.1);
        let gu = lin(&h, mats[2], 2 * f, d);
        let act: Vec<f64> = gu.chunks_exact(2 * f).flat_map(|r| (0..f).map(move |j| r[j] / (1.0 + (-r[j]).exp()) * r[f + j])).collect();
        let down = lin(&act, mats[3], d, f);
        x.iter().zip(&down).map(|(a, b)| (a + b) as f32).collect()
    }

    #[test]
    fn the_fused_layer_matches_the_unfused_f64_layer_and_honours_the_mask() {
        let shape = EncoderLayerShape { hidden: 64, heads: 2, ffn: 96, eps: 1e-6 };
        let (d, f) = (shape.hidden, shape.ffn);
        let (batch, positions) = (2, 7);
        let mats = [q8_0(3 * d, d, 1, 0.2), q8_0(d, d, 2, 0.2), q8_0(2 * f, d, 3, 0.2), q8_0(d, f, 4, 0.2)];
        let (n1, n2) =
            (values(d, 5).iter().map(|v| 1.0 + 0.1 * v).collect::<Vec<_>>(), values(d, 6).iter().map(|v| 1.0 + 0.1 * v).collect::<Vec<_>>());
        let x0 = values(batch * positions * d, 7);
        // Sentence 1 is 4 positions long: its last 3 are padding.
        let mask: Vec<i32> = (0..batch * positions).map(|r| i32::from(r < positions || r % positions < 4)).collect();
        let blocks: Vec<BlockMatrix> = mats
            .iter()
            .zip([(3 * d, d), (d, d), (2 * f, d), (d, f)])
            .map(|((b, _), (n, k))| BlockMatrix::new(BlockFormat::Q8_0, n, k, b).unwrap())
            .collect();
        let want = reference(&shape, (&n1, &n2), [&mats[0].1, &mats[1].1, &mats[2].1, &mats[3].1], &x0, &mask, batch, positions, false);
        let unmasked = reference(&shape, (&n1, &n2), [&mats[0].1, &mats[1].1, &mats[2].1, &mats[3].1], &x0, &mask, batch, positions, true);
        let real = |v: &[f32]| -> Vec<f32> { v.chunks_exact(d).zip(&mask).filter(|(_, m)| **m != 0).flat_map(|(r, _)| r.to_vec()).collect() };
        let diff = |a: &[f32], b: &[f32]| a.iter().zip(b).fold(0.0f32, |m, (x, y)| m.max((x - y).abs()));
        let panels: Vec<Option<PanelMatrix>> = blocks.iter().map(PanelMatrix::new).collect();
        let mut isas = vec![Isa::Scalar];
        if Isa::detect().has_avx2() {
            isas.push(Isa::Avx2);
        }
        if Isa::detect() == Isa::Avx512Vnni {
            isas.push(Isa::Avx512Vnni);
        }
        let mut s = EncoderScratch::new();
        for isa in isas {
            let proj = |i: usize| match (&panels[i], isa.uses_panels(BlockFormat::Q8_0)) {
                (Some(p), true) => Projection::Panels(p),
                _ => Projection::Blocks(&blocks[i]),
            };
            let w = EncoderLayerWeights { attn_norm: &n1, qkv: proj(0), o: proj(1), ffn_norm: &n2, gate_up: proj(2), down: proj(3) };
            let mut x = x0.clone();
            encoder_layer(isa, &shape, &w, &mut x, &mask, batch, positions, &mut s, &Serial);
            // int8 activations against f64: relative to how far the layer moves the residual stream.
            let moved = diff(&real(&want), &real(&x0));
            let err = diff(&real(&x), &real(&want));
            assert!(err < 0.03 * moved, "{}: fused layer differs from the reference by {err} (the layer moves x by {moved})", isa.name());
            // Negative control: the same reference with the padding visible differs from the kernel far more.
            let control = diff(&real(&x), &real(&unmasked));
            assert!(control > 10.0 * err.max(1e-3), "{}: the mask made no difference ({control} vs {err})", isa.name());
            // The padded sentence's real rows equal the same sentence run alone, without padding (up to the order
            // of the softmax sum, which the padded keys' zeros join).
            let mut alone = x0[positions * d..(positions + 4) * d].to_vec();
            encoder_layer(isa, &shape, &w, &mut alone, &[1; 4], 1, 4, &mut s, &Serial);
            let pad = diff(&alone, &x[positions * d..(positions + 4) * d]);
            assert!(pad < 1e-5, "{}: padding changed a real row by {pad}", isa.name());
        }
    }

    #[test]
    fn wrong_weight_shapes_are_named() {
        let shape = EncoderLayerShape { hidden: 64, heads: 2, ffn: 96, eps: 1e-6 };
        let (b, _) = q8_0(64, 64, 1, 0.1);
        let m = BlockMatrix::new(BlockFormat::Q8_0, 64, 64, &b).unwrap();
        let n = vec![1.0; 64];
        let w = EncoderLayerWeights {
            attn_norm: &n,
            qkv: Projection::Blocks(&m),
            o: Projection::Blocks(&m),
            ffn_norm: &n,
            gate_up: Projection::Blocks(&m),
            down: Projection::Blocks(&m),
        };
        let e = w.check(&shape).unwrap_err();
        assert!(e.contains("qkv is [64, 64], expected [192, 64]"), "{e}");
    }
}

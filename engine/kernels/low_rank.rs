//! A low-rank path added to chosen rows of a projection: `y[r] += (x[r] @ A^T) @ B^T` for every row `r` the gate
//! selects, other rows untouched. SPACE's mask-only adapter is this path on the mask-token rows (docs/SPACE.md):
//! real tokens compute exactly the base model, masks the fine-tuned one.
//!
//! Why a kernel and not four graph nodes: as `Mul(x, gate) -> MatMul(A^T) -> MatMul(B^T) -> Add` per projection
//! (120 projections on SmolLM2) the path ran on every row of every step, gate 0 or not, and cost the SPACE export's
//! one-token step 0.71x of the plain export's speed (2-core Xeon, `make bench-space-kernels`). Here a pass without
//! gated rows reads one flag per row.
//!
//! Both factors are GGML Q8_0 blocks (exported by export/graph_decoder.py), so a pass with gated rows reads 4 MB on
//! SmolLM2 instead of 16 MB as float32, and the down projection is the block kernel itself:
//! - `z = x @ A^T`: `A` `[rank, K]` multiplied by [`crate::kernels::block_matmul`] on the activation rows the
//!   projection already quantized (one 16-column panel for rank 16: ~1 us per row on SmolLM2's shapes, where a
//!   float loop over bf16 factors on the calling thread cost a 1-mask pass ~0.5 ms);
//! - `y[c] += sum_j z[j] * B^T[j][c]`: `B^T` `[rank, N]` in 32-column blocks, each block's scale folded into
//!   `z[j]` once (`z[j] * d`), then one multiply and one add per code, over `j` in order; the sum is added to `y`.
//!   It runs inside the block matmul's own column tasks ([`LowRank::add_columns`]), so it costs no thread-pool
//!   hand-off of its own.
//!
//! Every gated row's result depends on that row alone (its own quantized activations, fixed operation order,
//! multiplies and adds never fused: Rust does not contract them), not on the pass, the thread split or the
//! instruction set: `z` runs on the panel kernels (AVX-512 VNNI and AVX2, both bit-identical to the scalar
//! reference). Until 2026-12-05 AVX2 kept Q8_0 on the block-layout kernel (8 lanes with FMAs), which made `z` differ
//! from the scalar path's in the last bits on AVX2-only CPUs; a Zen 3 run of the test below found it.

use super::block_matmul::{self, Isa, Projection};
use super::half::f16_to_f32;
use super::parallel::{ParallelFor, Serial, SyncPtr};
use super::q8_rows::Q8Rows;
use super::BlockFormat;

/// Weights per Q8_0 block (and output columns per block of `B^T`).
const BLOCK: usize = 32;
/// Bytes per Q8_0 block: an fp16 scale and 32 int8 codes.
const BLOCK_BYTES: usize = 34;
/// The largest rank the path takes (SPACE's adapter is rank 16).
pub const MAX_RANK: usize = 64;
/// Output columns per parallel task of [`LowRank::add_gated`].
const COLUMNS_PER_TASK: usize = 256;

/// Why a low-rank path's factors do not fit the projection.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LowRankError {
    /// `A` is not a Q8_0 `[rank, K]` matrix with `1 <= rank <= MAX_RANK`.
    #[error("low-rank A is {format} [{rank}, {k}], expected Q8_0 [rank, K = {want_k}] with 1 <= rank <= {MAX_RANK}")]
    BadA {
        /// Its block format.
        format: &'static str,
        /// Its rows (the rank).
        rank: usize,
        /// Its input width.
        k: usize,
        /// The projection's input width.
        want_k: usize,
    },
    /// `B^T` is not `N / 32 x rank` Q8_0 blocks.
    #[error("low-rank B^T holds {len} bytes, expected N / 32 x rank = {n} / 32 x {rank} Q8_0 blocks of 34 bytes (N a multiple of 32)")]
    BadB {
        /// Its bytes.
        len: usize,
        /// The rank `A` gave.
        rank: usize,
        /// The projection's output width.
        n: usize,
    },
}

/// The factors of one projection's low-rank path (the scale `alpha / rank` already in `B^T`), borrowed: `A`
/// `[rank, K]` as the block kernel takes it (panels or blocks), and `B^T` `[rank, N]` as Q8_0 blocks along `N`
/// stored column block by column block: block `(j, b)` (row `j`, columns `32b..32b + 32`) at index
/// `b * rank + j`. A column task then reads one contiguous run (`rank` blocks per 32 columns); in row order the
/// `rank` rows were `rank` scattered streams, and a 1-mask SmolLM2 pass waited ~1.1 ms of CPU time on them.
#[derive(Clone, Copy)]
pub struct LowRank<'a> {
    a: Projection<'a>,
    b_t: &'a [u8],
    rank: usize,
    n: usize,
}

/// Buffers a call reuses (grow only): `x @ A^T` for every row, and the gated rows with theirs.
#[derive(Debug, Default)]
pub struct LowRankScratch {
    all: Vec<f32>,
    rows: Vec<usize>,
    z: Vec<f32>,
}

impl<'a> LowRank<'a> {
    /// The factors of a `K -> N` projection, their shapes and formats checked.
    pub fn new(a: Projection<'a>, b_t: &'a [u8], k: usize, n: usize) -> Result<Self, LowRankError> {
        let (a_format, rank) = match a {
            Projection::Blocks(m) => (m.format(), m.n()),
            Projection::Panels(p) => (p.format(), p.n()),
        };
        if a_format != BlockFormat::Q8_0 || a.k() != k || rank == 0 || rank > MAX_RANK {
            return Err(LowRankError::BadA { format: a_format.name(), rank, k: a.k(), want_k: k });
        }
        if !n.is_multiple_of(BLOCK) || b_t.len() != n / BLOCK * rank * BLOCK_BYTES {
            return Err(LowRankError::BadB { len: b_t.len(), rank, n });
        }
        Ok(LowRank { a, b_t, rank, n })
    }

    /// The rank.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// `y[r] += (x[r] @ A^T) @ B^T` for each row `r` with `gate[r] != 0` (`x`: the projection's quantized input
    /// rows, `y`: rows x N row-major; `gate` as ONNX stores a bool tensor, one byte per row), the column sums as
    /// tasks of 256 columns on `par`. Returns the number of rows it changed (0: nothing was read but `gate`).
    ///
    /// # Panics
    /// If `x`, `y` and `gate` do not hold the same number of rows, or `isa` has no kernel for `A`'s layout.
    pub fn add_gated(&self, isa: Isa, x: &Q8Rows, gate: &[u8], y: &mut [f32], scratch: &mut LowRankScratch, par: &dyn ParallelFor) -> usize {
        assert_eq!(y.len(), gate.len() * self.n, "y is not rows x N");
        let gated = self.prepare(isa, x, gate, scratch);
        if gated == 0 {
            return 0;
        }
        let out = SyncPtr(y.as_mut_ptr());
        let task = |t: usize| {
            let cols = t * COLUMNS_PER_TASK..((t + 1) * COLUMNS_PER_TASK).min(self.n);
            // SAFETY: y holds rows x n floats and outlives the call; task t writes only its own columns.
            unsafe { self.add_columns(isa, scratch, cols, out.ptr()) };
        };
        par.run(self.n.div_ceil(COLUMNS_PER_TASK), &task);
        gated
    }

    /// The first half of [`LowRank::add_gated`], on the calling thread: finds the gated rows and their `x @ A^T`
    /// (the block kernel over all rows of the pass: `rank` columns). Returns how many rows are gated; then
    /// [`LowRank::add_columns`] adds their products column range by column range.
    ///
    /// # Panics
    /// If `x` does not hold `gate.len()` rows of K, or `isa` has no kernel for `A`'s layout.
    pub fn prepare(&self, isa: Isa, x: &Q8Rows, gate: &[u8], scratch: &mut LowRankScratch) -> usize {
        assert_eq!(x.rows(), gate.len(), "x and gate disagree on the rows");
        scratch.rows.clear();
        scratch.rows.extend(gate.iter().enumerate().filter(|(_, &g)| g != 0).map(|(r, _)| r));
        if scratch.rows.is_empty() {
            return 0;
        }
        let rank = self.rank;
        scratch.all.clear();
        scratch.all.resize(x.rows() * rank, 0.0);
        block_matmul::matmul_parallel(isa, self.a, x, &mut scratch.all, rank.next_multiple_of(16), &Serial);
        scratch.z.clear();
        for &r in &scratch.rows {
            scratch.z.extend_from_slice(&scratch.all[r * rank..(r + 1) * rank]);
        }
        scratch.rows.len()
    }

    /// Asks the CPU to start loading the `B^T` blocks of the columns `cols` (no effect on any result): the block
    /// matmul calls it when a column task starts, so its own work on those columns hides the loads. Without it a
    /// task's ~1 KB of cold blocks cost a 1-mask SmolLM2 pass ~0.8 ms of CPU time in memory stalls.
    pub fn prefetch_columns(&self, cols: std::ops::Range<usize>) {
        #[cfg(target_arch = "x86_64")]
        {
            let first = cols.start / BLOCK * self.rank * BLOCK_BYTES;
            let end = (cols.end.div_ceil(BLOCK) * self.rank * BLOCK_BYTES).min(self.b_t.len());
            let mut at = first;
            while at < end {
                // SAFETY: a prefetch of an address inside `b_t`; it reads nothing architecturally.
                unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(self.b_t.as_ptr().add(at) as *const i8) };
                at += 64;
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = cols;
    }

    /// Adds the products of the rows [`LowRank::prepare`] found to the output columns `cols` (`cols.start` a
    /// multiple of 32, as every task of the block matmul's column split is).
    ///
    /// # Safety
    /// `y` must point to `rows x N` floats (row-major, the rows of the `prepare` call) valid for writes at the
    /// columns `cols` (`cols.end <= N`), which no other thread accesses during the call; `isa` must come from
    /// [`Isa::detect`].
    pub unsafe fn add_columns(&self, isa: Isa, scratch: &LowRankScratch, cols: std::ops::Range<usize>, y: *mut f32) {
        assert!(cols.start.is_multiple_of(BLOCK) && cols.end <= self.n, "columns {cols:?} do not start on a block");
        let (rank, n) = (self.rank, self.n);
        for (i, &r) in scratch.rows.iter().enumerate() {
            // SAFETY: the caller's contract: row r's columns `cols` are ours for the call.
            let y_row = unsafe { std::slice::from_raw_parts_mut(y.add(r * n + cols.start), cols.len()) };
            let z = &scratch.z[i * rank..(i + 1) * rank];
            let first = cols.start / BLOCK;
            #[cfg(target_arch = "x86_64")]
            if isa.has_avx2() {
                // SAFETY: `isa` comes from `Isa::detect`, which saw AVX2, FMA and F16C on this CPU.
                unsafe { avx2::project_up(z, self.b_t, first, y_row) };
                continue;
            }
            project_up(z, self.b_t, first, y_row);
        }
    }
}

/// `y[c] += sum_j (z[j] * d[j][b]) * q[j][c]` for the columns of `y` (a row's slice starting at block `first`),
/// block `b` by block: the 32 sums over `j` in order, then one add each to `y`.
#[inline(always)]
fn project_up(z: &[f32], b_t: &[u8], first: usize, y: &mut [f32]) {
    let rank = z.len();
    for (i, y_block) in y.chunks_mut(BLOCK).enumerate() {
        let b = first + i;
        let mut s = [0f32; BLOCK];
        for (j, &zj) in z.iter().enumerate() {
            let block = &b_t[(b * rank + j) * BLOCK_BYTES..(b * rank + j + 1) * BLOCK_BYTES];
            let coef = zj * f16_to_f32(u16::from_le_bytes([block[0], block[1]]));
            let codes: &[u8; BLOCK] = block[2..].try_into().expect("32 codes");
            for l in 0..BLOCK {
                s[l] += coef * f32::from(codes[l] as i8);
            }
        }
        for (yl, sl) in y_block.iter_mut().zip(s) {
            *yl += sl;
        }
    }
}

/// The AVX2 form of [`project_up`]: the same multiplies and adds in the same order, 8 columns per instruction,
/// the fp16 block scales widened by F16C (exact, like `f16_to_f32`).
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::{BLOCK, BLOCK_BYTES};

    /// See [`super::project_up`].
    #[target_feature(enable = "avx2,fma,f16c")]
    pub(super) unsafe fn project_up(z: &[f32], b_t: &[u8], first: usize, y: &mut [f32]) {
        let rank = z.len();
        let full = y.len() / BLOCK;
        // SAFETY: every block read is inside `b_t` (asserted above) and every store inside `y`; loads and stores
        // are unaligned.
        unsafe {
            for i in 0..full {
                let b = first + i;
                let mut s = [_mm256_setzero_ps(); 4];
                for (j, &zj) in z.iter().enumerate() {
                    let block = b_t.as_ptr().add((b * rank + j) * BLOCK_BYTES);
                    let d = _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(i32::from(u16::from_le_bytes([*block, *block.add(1)])))));
                    let coef = _mm256_set1_ps(zj * d);
                    let codes = _mm256_loadu_si256(block.add(2) as *const __m256i);
                    let lo = _mm256_castsi256_si128(codes);
                    let hi = _mm256_extracti128_si256(codes, 1);
                    let parts = [lo, _mm_srli_si128(lo, 8), hi, _mm_srli_si128(hi, 8)];
                    for (acc, part) in s.iter_mut().zip(parts) {
                        let v = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(part));
                        *acc = _mm256_add_ps(*acc, _mm256_mul_ps(coef, v));
                    }
                }
                let out = y.as_mut_ptr().add(i * BLOCK);
                for (t, acc) in s.iter().enumerate() {
                    let o = out.add(t * 8);
                    _mm256_storeu_ps(o, _mm256_add_ps(_mm256_loadu_ps(o), *acc));
                }
            }
        }
        // A partial last block (N is a multiple of 32, so only a caller's odd column range ends here).
        if full * BLOCK < y.len() {
            super::project_up(z, b_t, first + full, &mut y[full * BLOCK..]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::BlockMatrix;
    use crate::kernels::PanelMatrix;

    fn values(len: usize, seed: u32) -> Vec<f32> {
        let mut s = seed.wrapping_mul(2_654_435_761).wrapping_add(12_345);
        (0..len)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 17;
                s ^= s << 5;
                (s % 20_001) as f32 / 10_000.0 - 1.0
            })
            .collect()
    }

    /// `w` ([rows, cols] row-major) as Q8_0 blocks along the columns (what export/ggml_blocks.py writes), and the
    /// values those blocks hold.
    fn q8_0(w: &[f32], cols: usize) -> (Vec<u8>, Vec<f32>) {
        let (mut bytes, mut held) = (Vec::new(), Vec::new());
        for block in w.chunks(BLOCK) {
            let d = block.iter().fold(0f32, |m, v| m.max(v.abs())) / 127.0;
            let dh = crate::kernels::half::f32_to_f16(d);
            let dw = f16_to_f32(dh);
            bytes.extend_from_slice(&dh.to_le_bytes());
            for &v in block {
                let q = if d > 0.0 { (v / d).round_ties_even() as i8 } else { 0 };
                bytes.push(q as u8);
                held.push(f32::from(q) * dw);
            }
        }
        assert_eq!(w.len() % cols, 0);
        (bytes, held)
    }

    /// Row-major Q8_0 blocks of a [rank, n] matrix, re-laid column block by column block (what the exporter writes
    /// for B^T).
    fn by_column_blocks(rows_major: &[u8], rank: usize, n: usize) -> Vec<u8> {
        let per_row = n / BLOCK;
        let mut out = Vec::with_capacity(rows_major.len());
        for b in 0..per_row {
            for j in 0..rank {
                let at = (j * per_row + b) * BLOCK_BYTES;
                out.extend_from_slice(&rows_major[at..at + BLOCK_BYTES]);
            }
        }
        out
    }

    fn q8_rows(x: &[f32], rows: usize, k: usize) -> Q8Rows {
        let mut q = Q8Rows::new();
        q.quantize(x, rows, k);
        q
    }

    /// Tasks run in reverse order: a result that depended on task order would show.
    struct Reversed;
    impl ParallelFor for Reversed {
        fn run(&self, tasks: usize, task: &(dyn Fn(usize) + Sync)) {
            (0..tasks).rev().for_each(task);
        }
    }

    #[test]
    fn gated_rows_get_the_low_rank_product_and_others_stay_bitwise() {
        for (k, rank, n) in [(96, 16, 640), (1024, 16, 576), (64, 5, 96)] {
            let rows = 5;
            let (a, a_held) = q8_0(&values(rank * k, 1), k);
            let (b, b_held) = q8_0(&values(rank * n, 2), n);
            let b = by_column_blocks(&b, rank, n);
            let x = values(rows * k, 3);
            let am = BlockMatrix::new(BlockFormat::Q8_0, rank, k, &a).unwrap();
            let lr = LowRank::new(Projection::Blocks(&am), &b, k, n).unwrap();
            assert_eq!(lr.rank(), rank);
            let base = values(rows * n, 4);
            let gate = [0u8, 1, 0, 1, 1];
            let mut y = base.clone();
            let changed = lr.add_gated(Isa::Scalar, &q8_rows(&x, rows, k), &gate, &mut y, &mut LowRankScratch::default(), &Serial);
            assert_eq!(changed, 3);
            for r in 0..rows {
                let z: Vec<f64> = (0..rank).map(|j| (0..k).map(|i| f64::from(x[r * k + i]) * f64::from(a_held[j * k + i])).sum()).collect();
                let zmax = z.iter().fold(0f64, |m, v| m.max(v.abs()));
                for c in 0..n {
                    let got = y[r * n + c];
                    if gate[r] == 0 {
                        assert_eq!(got.to_bits(), base[r * n + c].to_bits(), "ungated row {r} changed");
                        continue;
                    }
                    let want: f64 = (0..rank).map(|j| z[j] * f64::from(b_held[j * n + c])).sum::<f64>() + f64::from(base[r * n + c]);
                    // int8 activations: ~1% of the largest |z| per term
                    let tol = 0.02 * zmax * rank as f64;
                    assert!((f64::from(got) - want).abs() < tol, "K {k} row {r} col {c}: {got} vs {want} (tol {tol})");
                }
            }
            // Negative control: the same call with no gated row changes nothing.
            let mut y2 = base.clone();
            assert_eq!(lr.add_gated(Isa::Scalar, &q8_rows(&x, rows, k), &[0u8; 5], &mut y2, &mut LowRankScratch::default(), &Serial), 0);
            assert_eq!(y2, base);
        }
    }

    #[test]
    fn a_row_is_bitwise_the_same_alone_in_any_pass_split_and_instruction_set() {
        let best = Isa::detect();
        for rank in [16, 12, 32] {
            let (k, n) = (1536, 960);
            let (a, _) = q8_0(&values(rank * k, 5), k);
            let (b, _) = q8_0(&values(rank * n, 6), n);
            let bm = by_column_blocks(&b, rank, n);
            let x = values(3 * k, 7);
            let am = BlockMatrix::new(BlockFormat::Q8_0, rank, k, &a).unwrap();
            let panels = if best.uses_panels(BlockFormat::Q8_0) { PanelMatrix::new(&am) } else { None };
            let a_best = panels.as_ref().map_or(Projection::Blocks(&am), Projection::Panels);
            let lr = LowRank::new(a_best, &bm, k, n).unwrap();
            let mut all = vec![0.5f32; 3 * n];
            lr.add_gated(best, &q8_rows(&x, 3, k), &[1u8, 1, 1], &mut all, &mut LowRankScratch::default(), &Reversed);
            // Batch invariance on this machine's instruction set: the last row alone, one task at a time.
            let mut alone = vec![0.5f32; n];
            lr.add_gated(best, &q8_rows(&x[2 * k..], 1, k), &[1u8], &mut alone, &mut LowRankScratch::default(), &Serial);
            assert!(all[2 * n..].iter().zip(&alone).all(|(a, b)| a.to_bits() == b.to_bits()), "rank {rank}: pass vs alone");
            // Across instruction sets: the panel kernels equal the scalar reference bit for bit.
            let mut scalar_row = vec![0.5f32; n];
            let scalar = LowRank::new(Projection::Blocks(&am), &bm, k, n).unwrap();
            scalar.add_gated(Isa::Scalar, &q8_rows(&x[2 * k..], 1, k), &[1u8], &mut scalar_row, &mut LowRankScratch::default(), &Serial);
            assert!(alone.iter().zip(&scalar_row).all(|(a, b)| a.to_bits() == b.to_bits()), "rank {rank}: {} vs scalar", best.name());
            // Negative control: the AVX2 block-layout kernel (FMAs in 8 lanes) is close to it but not bitwise.
            if best.has_avx2() {
                let mut blocks_row = vec![0.5f32; n];
                scalar.add_gated(Isa::Avx2, &q8_rows(&x[2 * k..], 1, k), &[1u8], &mut blocks_row, &mut LowRankScratch::default(), &Serial);
                assert!(blocks_row.iter().zip(&scalar_row).all(|(a, b)| (a - b).abs() <= 1e-3 * (1.0 + b.abs())), "rank {rank}: far");
                assert!(blocks_row.iter().zip(&scalar_row).any(|(a, b)| a.to_bits() != b.to_bits()), "rank {rank}: the control is bitwise");
            }
        }
    }

    #[test]
    fn factors_of_the_wrong_shape_or_format_are_errors() {
        let (a, _) = q8_0(&values(4 * 64, 8), 64);
        let (b, _) = q8_0(&values(4 * 96, 9), 96);
        let am = BlockMatrix::new(BlockFormat::Q8_0, 4, 64, &a).unwrap();
        assert!(LowRank::new(Projection::Blocks(&am), &b, 64, 96).is_ok());
        assert!(matches!(LowRank::new(Projection::Blocks(&am), &b, 32, 96), Err(LowRankError::BadA { want_k: 32, .. })));
        assert_eq!(LowRank::new(Projection::Blocks(&am), &b, 64, 64).err(), Some(LowRankError::BadB { len: 4 * 3 * 34, rank: 4, n: 64 }));
        assert!(matches!(LowRank::new(Projection::Blocks(&am), &b[..b.len() - 1], 64, 96), Err(LowRankError::BadB { .. })));
        assert!(matches!(LowRank::new(Projection::Blocks(&am), &b, 64, 100), Err(LowRankError::BadB { n: 100, .. })), "N not a multiple of 32");
        let q4 = vec![0u8; 4 * 2 * 18];
        let a4 = BlockMatrix::new(BlockFormat::Q4_0, 4, 64, &q4).unwrap();
        assert!(matches!(LowRank::new(Projection::Blocks(&a4), &b, 64, 96), Err(LowRankError::BadA { format: "Q4_0", .. })));
    }
}

//! `y = x @ W^T` for a weight matrix stored as GGML blocks ([`BlockFormat`]), with activations quantized per row
//! to 8-bit blocks ([`Q8Rows`]): integer dot products per block, scaled and summed in fp32.
//!
//! Why the engine has its own matmul: ONNX Runtime's MatMulNBits (int8 activations) runs a one-row pass through
//! another kernel than a multi-row pass, so a k-token verification pass differs from k decode steps and lossless
//! speculative pipelines must pad every decode step to two rows (the "padding tax", 14-25% per step); it also
//! cannot hold Q4_1's float offset (the export adds 4 small nodes per projection for it, ~20% of a SmolLM2 step),
//! and its cost grows almost linearly with the rows of a pass (4 rows cost ~2x one row on a 2-core EPYC). Here:
//!
//! - **Batch-invariant by construction.** Every output element `y[r, n]` is computed by the same sequence of
//!   operations whatever the number of rows or threads: the row's own quantization, then one pass over the blocks
//!   of column `n` in order, one fp32 accumulator per row (Rust never contracts `a * b + c` into an FMA on its
//!   own, so scalar sums are reproducible), one fixed horizontal sum. Rows are grouped in tiles only to share the
//!   unpacking of a weight block; a row's arithmetic does not depend on its tile.
//! - **Exact conversion.** The weights are the GGUF file's bytes; there is nothing to re-quantize.
//!
//! [`Isa::detect`] picks AVX-512 VNNI where the CPU has it (the 16-column panel kernel over a re-laid copy,
//! [`PanelMatrix`], bit-identical to the scalar kernel), else AVX2+FMA+F16C over the file's block layout, else the
//! portable scalar kernel (the reference the tests compare the SIMD kernels with).

use std::ops::Range;

use super::block_format::{BlockFormat, BLOCK};
use super::block_matrix::BlockMatrix;
use super::panel_matrix::{PanelMatrix, PANEL};
use super::parallel::{ParallelFor, SyncPtr};
use super::q8_rows::Q8Rows;

/// The instruction set a kernel call uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isa {
    /// Portable Rust (the reference).
    Scalar,
    /// x86-64 AVX2 + FMA + F16C.
    Avx2,
    /// x86-64 AVX-512 F/BW + VNNI (and AVX2 for matrices that do not fill 16-column panels).
    Avx512Vnni,
}

impl Isa {
    /// The best kernel this CPU runs (detected once per process: the attention and matmul operators ask on every
    /// call, and the environment lookup below allocates). `SPECRT_NO_AVX512=1` (any value but empty or 0) keeps the AVX2
    /// kernels (for comparisons on one machine).
    pub fn detect() -> Isa {
        static DETECTED: std::sync::OnceLock<Isa> = std::sync::OnceLock::new();
        *DETECTED.get_or_init(Isa::probe)
    }

    /// Whether this is one of the x86-64 sets that include AVX2 + FMA + F16C.
    pub fn has_avx2(self) -> bool {
        matches!(self, Isa::Avx2 | Isa::Avx512Vnni)
    }

    fn probe() -> Isa {
        #[cfg(target_arch = "x86_64")]
        {
            if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") && is_x86_feature_detected!("f16c") {
                if !std::env::var_os("SPECRT_NO_AVX512").is_some_and(|v| !v.is_empty() && v != "0")
                    && is_x86_feature_detected!("avx512f")
                    && is_x86_feature_detected!("avx512bw")
                    && is_x86_feature_detected!("avx512vnni")
                {
                    return Isa::Avx512Vnni;
                }
                return Isa::Avx2;
            }
        }
        Isa::Scalar
    }

    /// Whether this instruction set multiplies [`PanelMatrix`] copies (made once per weight matrix) of `format`:
    /// AVX-512 VNNI and AVX2 every format (AVX2 multiplies Q8_0 by the sign trick: block_matmul_avx2_panels.rs).
    pub fn uses_panels(self, _format: BlockFormat) -> bool {
        matches!(self, Isa::Avx512Vnni | Isa::Avx2)
    }

    /// A word for logs and benchmark records.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Scalar => "scalar",
            Isa::Avx2 => "avx2",
            Isa::Avx512Vnni => "avx512vnni",
        }
    }
}

/// Computes the columns `cols` of `y = x @ W^T` for every row of `x`, writing `y[r * stride + n]`.
///
/// # Safety
/// `y` must be valid for writes at `r * stride + n` for every row `r < x.rows()` and `n` in `cols`, no other
/// thread may access those elements during the call, `cols.end <= w.n()`, `x.blocks_per_row() * 32 == w.k()`,
/// and `isa` must be supported by this CPU ([`Isa::detect`]).
pub unsafe fn matmul_columns(isa: Isa, w: &BlockMatrix, x: &Q8Rows, cols: Range<usize>, y: *mut f32, stride: usize) {
    debug_assert!(cols.end <= w.n() && x.blocks_per_row() * BLOCK == w.k());
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: forwarded from the caller.
        Isa::Avx2 | Isa::Avx512Vnni => unsafe { super::block_matmul_avx2::matmul_columns(w, x, cols, y, stride) },
        _ => scalar_columns(w, x, cols, y, stride),
    }
}

/// Computes the columns `cols` of `y = x @ W^T` from the panel copy of `W` with `isa`'s panel kernel.
///
/// # Safety
/// As [`matmul_columns`], and `cols` must start on a multiple of 16 and end on one or at `w.n()`, and
/// `isa.uses_panels(w.format())` must hold on this CPU ([`Isa::detect`] or an instruction set it includes).
pub unsafe fn matmul_panel_columns(isa: Isa, w: &PanelMatrix, x: &Q8Rows, cols: Range<usize>, y: *mut f32, stride: usize) {
    debug_assert!(cols.end <= w.n() && cols.start.is_multiple_of(PANEL) && x.blocks_per_row() * BLOCK == w.k());
    debug_assert!(isa.uses_panels(w.format()));
    let panels = cols.start / PANEL..cols.end.div_ceil(PANEL);
    #[cfg(target_arch = "x86_64")]
    // SAFETY: forwarded from the caller.
    unsafe {
        if isa == Isa::Avx512Vnni {
            super::block_matmul_avx512::matmul_panels(w, x, panels, y, stride)
        } else {
            super::block_matmul_avx2_panels::matmul_panels(w, x, panels, y, stride)
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (isa, w, x, panels, y, stride);
}

/// A weight matrix in the form its kernel multiplies: the GGML blocks as stored, or their panel copy where the
/// CPU runs the panel kernel.
#[derive(Clone, Copy)]
pub enum Projection<'a> {
    /// GGML blocks as stored (AVX2 and scalar kernels).
    Blocks(&'a BlockMatrix<'a>),
    /// The 16-column panel copy ([`Isa::uses_panels`]).
    Panels(&'a PanelMatrix),
}

impl Projection<'_> {
    /// Output columns `N`.
    pub fn n(&self) -> usize {
        match self {
            Projection::Blocks(m) => m.n(),
            Projection::Panels(p) => p.n(),
        }
    }

    /// Input width `K`.
    pub fn k(&self) -> usize {
        match self {
            Projection::Blocks(m) => m.k(),
            Projection::Panels(p) => p.k(),
        }
    }
}

/// `y = x @ W^T` (`y`: `x.rows() x w.n()`, row-major) with the columns split into tasks of `columns_per_task`
/// (a multiple of 16: whole panels) over `par`. Each output element is computed by one task in one fixed order,
/// so the result does not depend on the split or the thread count.
///
/// # Panics
/// If the shapes disagree, `columns_per_task` is not a positive multiple of 16, or panels are given to an
/// instruction set that does not use them (`isa` must come from [`Isa::detect`]).
pub fn matmul_parallel(isa: Isa, w: Projection, x: &Q8Rows, y: &mut [f32], columns_per_task: usize, par: &dyn ParallelFor) {
    matmul_parallel_then(isa, w, x, y, columns_per_task, par, &NoColumnWork);
}

/// Work a column task does around its part of the product (see [`matmul_parallel_then`]).
pub trait ColumnWork: Sync {
    /// Called when the task for columns `cols` starts, before any of its multiplies (e.g. prefetches).
    fn before(&self, cols: Range<usize>);
    /// Called when the task has written its columns `cols` of every row of `y` (the output's start, rows x N
    /// row-major); it may write those columns and nothing else.
    fn after(&self, cols: Range<usize>, y: *mut f32);
}

/// No work around the product.
pub struct NoColumnWork;

impl ColumnWork for NoColumnWork {
    fn before(&self, _cols: Range<usize>) {}
    fn after(&self, _cols: Range<usize>, _y: *mut f32) {}
}

/// [`matmul_parallel`], with `work.before(cols)` and `work.after(cols, y)` in each column task around its part of
/// the product: work on the product's columns without a second round of tasks (the SPACE adapter's low-rank path,
/// kernels/low_rank.rs).
///
/// # Panics
/// As [`matmul_parallel`].
pub fn matmul_parallel_then(
    isa: Isa,
    w: Projection,
    x: &Q8Rows,
    y: &mut [f32],
    columns_per_task: usize,
    par: &dyn ParallelFor,
    work: &dyn ColumnWork,
) {
    let n = w.n();
    assert_eq!(x.blocks_per_row() * BLOCK, w.k(), "activation width != K");
    assert_eq!(y.len(), x.rows() * n, "output size != rows x N");
    assert!(columns_per_task > 0 && columns_per_task.is_multiple_of(PANEL), "columns per task must be a multiple of {PANEL}");
    if let Projection::Panels(p) = w {
        assert!(isa.uses_panels(p.format()), "{} has no panel kernel for {}", isa.name(), p.format().name());
    }
    let out = SyncPtr(y.as_mut_ptr());
    let task = |t: usize| {
        let cols = t * columns_per_task..((t + 1) * columns_per_task).min(n);
        work.before(cols.clone());
        // SAFETY: `y` holds rows x n floats and task t writes only its columns (whole panels); K and the panel
        // kernel were checked above.
        unsafe {
            match w {
                Projection::Panels(p) => matmul_panel_columns(isa, p, x, cols.clone(), out.ptr(), n),
                Projection::Blocks(m) => matmul_columns(isa, m, x, cols.clone(), out.ptr(), n),
            }
        }
        work.after(cols, out.ptr());
    };
    par.run(n.div_ceil(columns_per_task), &task);
}

/// `y = x @ W^T` for all columns, on the calling thread (`y`: `x.rows() x w.n()`, row-major).
///
/// # Panics
/// If the shapes disagree.
pub fn matmul(isa: Isa, w: &BlockMatrix, x: &Q8Rows, y: &mut [f32]) {
    assert_eq!(x.blocks_per_row() * BLOCK, w.k(), "activation width != K");
    assert_eq!(y.len(), x.rows() * w.n(), "output size != rows x N");
    let best = Isa::detect();
    let isa = match isa {
        Isa::Avx512Vnni if best != Isa::Avx512Vnni => best,
        Isa::Avx2 if !best.has_avx2() => Isa::Scalar,
        other => other,
    };
    if isa.uses_panels(w.format()) {
        if let Some(panels) = PanelMatrix::new(w) {
            return matmul_panels(isa, &panels, x, y);
        }
    }
    // SAFETY: `y` covers rows x n exclusively and the shapes were checked above.
    unsafe { matmul_columns(isa, w, x, 0..w.n(), y.as_mut_ptr(), w.n()) }
}

/// `y = x @ W^T` from a panel copy with `isa`'s panel kernel, on the calling thread.
///
/// # Panics
/// If the shapes disagree, `isa` has no panel kernel for the format, or this CPU does not run `isa`.
pub fn matmul_panels(isa: Isa, w: &PanelMatrix, x: &Q8Rows, y: &mut [f32]) {
    assert_eq!(x.blocks_per_row() * BLOCK, w.k(), "activation width != K");
    assert_eq!(y.len(), x.rows() * w.n(), "output size != rows x N");
    assert!(isa.uses_panels(w.format()), "{} has no panel kernel for {}", isa.name(), w.format().name());
    let best = Isa::detect();
    assert!(best == isa || (isa == Isa::Avx2 && best.has_avx2()), "this CPU does not run {}", isa.name());
    // SAFETY: `y` covers rows x n exclusively, the shapes and the CPU were checked above.
    unsafe { matmul_panel_columns(isa, w, x, 0..w.n(), y.as_mut_ptr(), w.n()) }
}

/// The portable kernel: per (row, column), integer sub-block sums scaled and accumulated in sub-block order.
fn scalar_columns(w: &BlockMatrix, x: &Q8Rows, cols: Range<usize>, y: *mut f32, stride: usize) {
    let format = w.format();
    let (nb, sub, bytes) = (w.k() / format.block_weights(), format.sub_blocks(), format.block_bytes());
    for n in cols {
        let row = w.row_bytes(n);
        for r in 0..x.rows() {
            let mut acc = 0.0f32;
            let mut offsets = 0.0f32;
            for b in 0..nb {
                let block = &row[b * bytes..(b + 1) * bytes];
                for j in 0..sub {
                    let sb = format.sub_block(block, j);
                    let xb = b * sub + j;
                    let isum: i32 = sb.codes.iter().zip(x.codes(r, xb)).map(|(&q, &a)| q * i32::from(a)).sum();
                    acc += (sb.d * x.scale(r, xb)) * isum as f32;
                    offsets += sb.m * x.sum(r, xb);
                }
            }
            // SAFETY: the caller guarantees `y` is writable here (see `matmul_columns`).
            unsafe { *y.add(r * stride + n) = acc + offsets };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::block_format::BlockFormat;
    use crate::kernels::block_matrix::BlockMatrixError;

    /// Deterministic pseudo-random blocks with sane fp16 scales.
    fn blocks(format: BlockFormat, n: usize, k: usize, seed: u64) -> Vec<u8> {
        let mut s = seed;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let bytes = format.block_bytes();
        let mut out = vec![0u8; n * k / format.block_weights() * bytes];
        for block in out.chunks_exact_mut(bytes) {
            for b in block.iter_mut() {
                *b = next() as u8;
            }
            // d in [2^-10, 2^-6), m in (-2^-4, 2^-4): exponent fields 5..8, random mantissa and sign.
            let d = 0x1400 | (next() as u16 & 0x0FFF);
            let d_at = if format == BlockFormat::Q6_K { 208 } else { 0 };
            block[d_at..d_at + 2].copy_from_slice(&d.to_le_bytes());
            if format == BlockFormat::Q4_1 {
                let m = 0x2000 | (next() as u16 & 0x83FF);
                block[2..4].copy_from_slice(&m.to_le_bytes());
            }
            if format == BlockFormat::Q4_K {
                // dmin > 0 like the files (the min is subtracted)
                let dmin = 0x1000 | (next() as u16 & 0x0FFF);
                block[2..4].copy_from_slice(&dmin.to_le_bytes());
            }
        }
        out
    }

    fn activations(rows: usize, k: usize) -> Vec<f32> {
        (0..rows * k).map(|i| (((i * 7919) % 1013) as f32 / 1013.0 - 0.5) * if i % 97 == 0 { 40.0 } else { 3.0 }).collect()
    }

    /// f64 reference over the same quantized operands.
    fn reference(w: &BlockMatrix, x: &Q8Rows) -> Vec<f64> {
        let bytes = w.format().block_bytes();
        let mut y = vec![0f64; x.rows() * w.n()];
        for r in 0..x.rows() {
            for n in 0..w.n() {
                let row = w.row_bytes(n);
                let mut acc = 0f64;
                for xb in 0..w.k() / BLOCK {
                    // Weights (llama.cpp's dequantization) times quantized activations, plus the offset times the
                    // block's exact float sum for the formats with one.
                    let (b, j) = (xb / w.format().sub_blocks(), xb % w.format().sub_blocks());
                    let block = &row[b * bytes..(b + 1) * bytes];
                    let mut values = vec![0f32; w.format().block_weights()];
                    w.format().dequantize(block, &mut values);
                    let m = w.format().sub_block(block, j).m;
                    for (&v, &a) in values[j * BLOCK..(j + 1) * BLOCK].iter().zip(x.codes(r, xb)) {
                        acc += (f64::from(v) - f64::from(m)) * f64::from(a) * f64::from(x.scale(r, xb));
                    }
                    acc += f64::from(m) * f64::from(x.sum(r, xb));
                }
                y[r * w.n() + n] = acc;
            }
        }
        y
    }

    #[test]
    fn every_kernel_matches_the_f64_reference_for_every_format() {
        for format in BlockFormat::ALL {
            let (n, k, rows) = (37, 3 * format.block_weights(), 7);
            let data = blocks(format, n, k, 0x9E37_79B9 ^ format.block_bytes() as u64);
            let w = BlockMatrix::new(format, n, k, &data).expect("shape");
            let mut x = Q8Rows::new();
            x.quantize(&activations(rows, k), rows, k);
            let want = reference(&w, &x);
            let scale = want.iter().fold(0f64, |a, v| a.max(v.abs()));
            for isa in [Isa::Scalar, Isa::detect()] {
                let mut y = vec![0f32; rows * n];
                matmul(isa, &w, &x, &mut y);
                for (i, (&got, &exp)) in y.iter().zip(&want).enumerate() {
                    assert!((f64::from(got) - exp).abs() <= 1e-5 * scale, "{format:?} {isa:?} element {i}: {got} vs {exp}");
                }
            }
        }
    }

    #[test]
    fn a_row_gives_the_same_bits_alone_and_in_any_pass() {
        // The property the engine relies on for lossless speculative decoding (and a negative control: rows
        // quantized together with a different neighbour would still match, so we also check the bits change
        // when the row itself changes).
        for format in BlockFormat::ALL {
            let (n, k) = (45, 2 * format.block_weights().max(64));
            let data = blocks(format, n, k, 7 + format.block_bytes() as u64);
            let w = BlockMatrix::new(format, n, k, &data).expect("shape");
            let xs = activations(25, k);
            for isa in [Isa::Scalar, Isa::detect()] {
                let mut alone = Vec::new();
                for r in 0..25 {
                    let mut x = Q8Rows::new();
                    x.quantize(&xs[r * k..(r + 1) * k], 1, k);
                    let mut y = vec![0f32; n];
                    matmul(isa, &w, &x, &mut y);
                    alone.push(y);
                }
                for rows in [2, 3, 4, 5, 8, 9, 16, 25] {
                    let mut x = Q8Rows::new();
                    x.quantize(&xs[..rows * k], rows, k);
                    let mut y = vec![0f32; rows * n];
                    matmul(isa, &w, &x, &mut y);
                    for r in 0..rows {
                        let a: Vec<u32> = alone[r].iter().map(|v| v.to_bits()).collect();
                        let b: Vec<u32> = y[r * n..(r + 1) * n].iter().map(|v| v.to_bits()).collect();
                        assert_eq!(a, b, "{format:?} {isa:?}: row {r} of a {rows}-row pass differs from the row alone");
                    }
                }
                assert_ne!(alone[0], alone[1], "distinct rows must give distinct outputs");
            }
        }
    }

    #[test]
    fn the_panel_kernel_gives_the_scalar_kernels_bits() {
        // The AVX-512 VNNI kernel keeps the scalar reference's integer sums and float order exactly, so a model
        // computes the same numbers on both; 1..25 rows (whole and partial tiles), every format, two panels.
        let isas: Vec<Isa> =
            [Isa::Avx2, Isa::Avx512Vnni].into_iter().filter(|&i| Isa::detect() == i || (i == Isa::Avx2 && Isa::detect().has_avx2())).collect();
        if isas.is_empty() {
            eprintln!("skipped: this CPU has neither AVX2 nor AVX-512 VNNI");
            return;
        }
        for (isa, format) in isas.iter().flat_map(|&i| BlockFormat::ALL.into_iter().filter(move |&f| i.uses_panels(f)).map(move |f| (i, f))) {
            // 37 / 45 columns: two whole panels and a partial one (its missing lanes are never stored) of 5
            // columns (half 0 only) or 13 (both halves, the second partial: the tiles that take both in one walk)
            for n in [37, 45] {
                let k = 2 * format.block_weights().max(64);
                let data = blocks(format, n, k, 41 + format.block_bytes() as u64);
                let w = BlockMatrix::new(format, n, k, &data).expect("shape");
                let panels = PanelMatrix::new(&w).expect("every matrix has panels");
                for rows in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 16, 17, 25] {
                    let mut x = Q8Rows::new();
                    x.quantize(&activations(rows, k), rows, k);
                    // a sentinel after the output catches a store past the last column
                    let (mut want, mut got) = (vec![0f32; rows * n], vec![7f32; rows * n + 16]);
                    matmul(Isa::Scalar, &w, &x, &mut want);
                    matmul_panels(isa, &panels, &x, &mut got[..rows * n]);
                    assert!(got[rows * n..].iter().all(|&v| v == 7.0), "{format:?} {isa:?}: a store past N");
                    got.truncate(rows * n);
                    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&got), bits(&want), "{format:?} {isa:?}, {rows} rows, {n} columns");
                }
            }
            let (n, k) = (37, 2 * format.block_weights().max(64));
            let data = blocks(format, n, k, 41 + format.block_bytes() as u64);
            let w = BlockMatrix::new(format, n, k, &data).expect("shape");
            // negative control: the AVX2 kernel sums in another order and does not give these bits
            let mut x = Q8Rows::new();
            x.quantize(&activations(3, k), 3, k);
            let (mut scalar, mut blocks) = (vec![0f32; 3 * n], vec![0f32; 3 * n]);
            matmul(Isa::Scalar, &w, &x, &mut scalar);
            // SAFETY: the whole of a rows x n buffer; AVX2 is there (isas is not empty).
            unsafe { matmul_columns(Isa::Avx2, &w, &x, 0..n, blocks.as_mut_ptr(), n) };
            assert_ne!(scalar, blocks, "{format:?}: the control should differ in the last bits");
        }
    }

    #[test]
    fn q8_0_extreme_codes_do_not_saturate_the_avx2_panel_kernel() {
        // The AVX2 kernel multiplies Q8_0 as |q| x (x with q's sign) in int16 pair sums: the largest pair is
        // 2 x 128 x 127 (q = -128, x = -127). Every weight at -128 or +127 against activations of the same sign
        // at full scale (+-127 after quantization) must still give the scalar kernel's bits.
        if !Isa::detect().has_avx2() {
            eprintln!("skipped: no AVX2");
            return;
        }
        let (n, k) = (24, 64);
        for (code, x_sign) in [(0x80u8, -1.0f32), (0x7F, 1.0), (0x80, 1.0), (0x7F, -1.0)] {
            let mut data = vec![0u8; n * k / BLOCK * 34];
            for block in data.chunks_exact_mut(34) {
                block[..2].copy_from_slice(&0x3C00u16.to_le_bytes()); // d = 1.0
                block[2..].fill(code);
            }
            let w = BlockMatrix::new(BlockFormat::Q8_0, n, k, &data).expect("shape");
            let mut x = Q8Rows::new();
            x.quantize(&vec![x_sign; 2 * k], 2, k);
            assert!(x.codes(0, 0).iter().all(|&c| i32::from(c) == 127 * x_sign as i32), "full-scale activations");
            let (mut want, mut got) = (vec![0f32; 2 * n], vec![0f32; 2 * n]);
            matmul(Isa::Scalar, &w, &x, &mut want);
            matmul_panels(Isa::Avx2, &PanelMatrix::new(&w).expect("panels"), &x, &mut got);
            let q = f32::from(code as i8);
            let exact = f64::from(q) * 127.0 * f64::from(x_sign) * k as f64 * f64::from(x.scale(0, 0));
            assert!((f64::from(want[0]) - exact).abs() <= 1e-6 * exact.abs(), "the reference itself: {} vs {exact}", want[0]);
            assert_eq!(got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), want.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), "code {code:#x}");
        }
    }

    #[test]
    fn four_bit_extreme_codes_do_not_overflow_the_avx2_int16_sums() {
        // The AVX2 multi-row tiles add all 8 groups' pair sums of a 4-bit sub-block in int16 before widening:
        // at most 8 x 2 x 15 x 127 = 30,480 per lane. Every code 15 against activations at full scale (+-127)
        // reaches that bound; it must still give the scalar kernel's bits (a sum over 9 groups, or codes up to 16,
        // would wrap). Tiles of 2..6 rows and the one-walk two-row tile.
        if !Isa::detect().has_avx2() {
            eprintln!("skipped: no AVX2");
            return;
        }
        for format in [BlockFormat::Q4_0, BlockFormat::Q4_1, BlockFormat::Q4_K] {
            let (n, k) = (24, 2 * format.block_weights().max(64));
            let mut data = vec![0xFFu8; n * k / format.block_weights() * format.block_bytes()];
            for block in data.chunks_exact_mut(format.block_bytes()) {
                // d (and Q4_1's m, Q4_K's dmin) = 1.0; every 4-bit code (and Q4_K's 6-bit scales) all ones
                let scales: &[usize] = if format == BlockFormat::Q4_0 { &[0] } else { &[0, 2] };
                for &at in scales {
                    block[at..at + 2].copy_from_slice(&0x3C00u16.to_le_bytes());
                }
            }
            let w = BlockMatrix::new(format, n, k, &data).expect("shape");
            let panels = PanelMatrix::new(&w).expect("panels");
            for x_sign in [1.0f32, -1.0] {
                for rows in [2, 3, 4, 5, 6] {
                    let mut x = Q8Rows::new();
                    x.quantize(&vec![x_sign; rows * k], rows, k);
                    assert!(x.codes(0, 0).iter().all(|&c| i32::from(c) == 127 * x_sign as i32), "full-scale activations");
                    let (mut want, mut got) = (vec![0f32; rows * n], vec![0f32; rows * n]);
                    matmul(Isa::Scalar, &w, &x, &mut want);
                    matmul_panels(Isa::Avx2, &panels, &x, &mut got);
                    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&got), bits(&want), "{format:?}, {rows} rows, activations {x_sign}");
                }
            }
        }
    }

    #[test]
    fn a_column_restricted_matrix_gives_the_whole_matrix_s_bits_for_those_columns() {
        // The CTC NAT's output shortlist (MatMulGgml's `columns` input): the selected columns, gathered from the
        // block rows or from the panel copy, must give exactly the whole head's bits for those columns, every
        // format and kernel. 18 columns: unsorted, one repeated, from 4 panels, one whole output panel and a
        // partial one.
        let columns: Vec<u32> = vec![52, 0, 17, 16, 3, 3, 40, 31, 15, 33, 1, 50, 49, 48, 47, 46, 2, 9];
        let isas: Vec<Isa> = [Isa::Scalar, Isa::Avx2, Isa::Avx512Vnni]
            .into_iter()
            .filter(|&i| i == Isa::Scalar || Isa::detect() == i || (i == Isa::Avx2 && Isa::detect().has_avx2()))
            .collect();
        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        for format in BlockFormat::ALL {
            let (n, k, rows) = (53, 2 * format.block_weights().max(64), 5);
            let data = blocks(format, n, k, 123 + format.block_bytes() as u64);
            let w = BlockMatrix::new(format, n, k, &data).expect("shape");
            let mut x = Q8Rows::new();
            x.quantize(&activations(rows, k), rows, k);
            let s = columns.len();
            let mut reused = PanelMatrix::empty(format, k);
            for &isa in &isas {
                // each path against its own kernel over the whole matrix (the AVX2 block kernel sums in another
                // order than the panel kernels, by design)
                let select = |whole: &[f32]| -> Vec<f32> {
                    (0..rows).flat_map(|r| columns.iter().map(move |&c| (r, c))).map(|(r, c)| whole[r * n + c as usize]).collect()
                };
                let mut whole = vec![0f32; rows * n];
                // SAFETY: the whole of a rows x n buffer; the isa runs on this CPU (filtered above).
                unsafe { matmul_columns(isa, &w, &x, 0..n, whole.as_mut_ptr(), n) };
                let want = select(&whole);
                let mut buf = Vec::new();
                w.gather_rows(&columns, &mut buf);
                let sub = BlockMatrix::new(format, s, k, &buf).expect("gathered rows");
                let mut got = vec![0f32; rows * s];
                // SAFETY: the whole of a rows x s buffer; the isa runs on this CPU (filtered above).
                unsafe { matmul_columns(isa, &sub, &x, 0..s, got.as_mut_ptr(), s) };
                assert_eq!(bits(&got), bits(&want), "{format:?} {isa:?}: gathered block rows");
                if isa.uses_panels(format) {
                    let full = PanelMatrix::new(&w).expect("panels");
                    matmul_panels(isa, &full, &x, &mut whole);
                    let want = select(&whole);
                    // gather a larger set first, so the second gather reuses (and must fully overwrite) storage
                    full.gather_columns(&(0..n as u32).rev().collect::<Vec<_>>(), &mut reused);
                    full.gather_columns(&columns, &mut reused);
                    let mut got = vec![7f32; rows * s + 16];
                    matmul_panels(isa, &reused, &x, &mut got[..rows * s]);
                    assert!(got[rows * s..].iter().all(|&v| v == 7.0), "{format:?} {isa:?}: a store past S");
                    got.truncate(rows * s);
                    assert_eq!(bits(&got), bits(&want), "{format:?} {isa:?}: gathered panel columns");
                }
            }
        }
    }

    #[test]
    fn column_ranges_compose_to_the_whole() {
        let (n, k, rows) = (70, 64, 3);
        let data = blocks(BlockFormat::Q4_1, n, k, 99);
        let w = BlockMatrix::new(BlockFormat::Q4_1, n, k, &data).expect("shape");
        let mut x = Q8Rows::new();
        x.quantize(&activations(rows, k), rows, k);
        let isa = Isa::detect();
        let mut whole = vec![0f32; rows * n];
        matmul(isa, &w, &x, &mut whole);
        let mut parts = vec![0f32; rows * n];
        let panels = if isa.uses_panels(w.format()) { PanelMatrix::new(&w) } else { None };
        for c in (0..n).step_by(16) {
            // SAFETY: disjoint column ranges of a buffer of rows x n (panel-aligned for the panel kernel).
            unsafe {
                match &panels {
                    Some(p) => matmul_panel_columns(isa, p, &x, c..(c + 16).min(n), parts.as_mut_ptr(), n),
                    None => matmul_columns(isa, &w, &x, c..(c + 16).min(n), parts.as_mut_ptr(), n),
                }
            }
        }
        assert_eq!(whole, parts);
    }

    #[test]
    fn bad_shapes_are_errors() {
        assert_eq!(BlockMatrix::new(BlockFormat::Q4_1, 2, 48, &[0; 40]).unwrap_err(), BlockMatrixError::BadK { k: 48, block: 32, format: "Q4_1" });
        assert!(matches!(BlockMatrix::new(BlockFormat::Q4_K, 2, 96, &[0; 40]), Err(BlockMatrixError::BadK { block: 256, .. })));
        assert!(matches!(BlockMatrix::new(BlockFormat::Q8_0, 2, 64, &[0; 10]), Err(BlockMatrixError::Size { expected: 136, .. })));
    }
}

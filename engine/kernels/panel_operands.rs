//! What the two panel kernels (engine/kernels/block_matmul_avx512.rs, block_matmul_avx2_panels.rs) share: the
//! format codes their const generics take, one call's operands as raw pointers for the inner loops, and the
//! weight prefetch.

use super::block_format::BlockFormat;
use super::panel_matrix::{PanelMatrix, PANEL};
use super::q8_rows::Q8Rows;

/// Format codes for the kernels' `const F: u8` parameter.
pub(super) const Q4_0: u8 = 0;
pub(super) const Q4_1: u8 = 1;
pub(super) const Q8_0: u8 = 2;
pub(super) const Q4_K: u8 = 3;
pub(super) const Q6_K: u8 = 4;

/// The block format of a format code.
pub(super) const fn format_of(f: u8) -> BlockFormat {
    match f {
        Q4_0 => BlockFormat::Q4_0,
        Q4_1 => BlockFormat::Q4_1,
        Q8_0 => BlockFormat::Q8_0,
        Q4_K => BlockFormat::Q4_K,
        _ => BlockFormat::Q6_K,
    }
}

/// Operands of one call, as raw pointers for the inner loops.
#[derive(Clone, Copy)]
pub(super) struct Operands {
    pub weights: *const u8,
    pub panel_bytes: usize,
    /// Stored blocks per column (K / 32, or K / 256 for the K-quants).
    pub blocks: usize,
    /// Activation blocks per row (K / 32).
    pub xblocks: usize,
    pub codes: *const i8,
    pub scales: *const f32,
    pub sums: *const f32,
    pub half_sums: *const i32,
    pub y: *mut f32,
    pub stride: usize,
    /// Output columns: the last panel stores only `n % 16` of its lanes when N does not fill it.
    pub n: usize,
    /// How far ahead the kernels prefetch weights for this pass's row count ([`prefetch_bytes`]; 0: not at all).
    pub prefetch: usize,
}

impl Operands {
    /// The operands of `y = x @ W^T` from the panel copy `w`, writing `y[r * stride + n]`.
    pub fn new(w: &PanelMatrix, x: &Q8Rows, y: *mut f32, stride: usize) -> Self {
        Operands {
            weights: w.panel(0).as_ptr(),
            panel_bytes: w.panel_bytes(),
            blocks: w.k() / w.format().block_weights(),
            xblocks: x.blocks_per_row(),
            codes: x.all_codes().as_ptr(),
            scales: x.all_scales().as_ptr(),
            sums: x.all_sums().as_ptr(),
            half_sums: x.all_half_sums().as_ptr(),
            y,
            stride,
            n: w.n(),
            prefetch: prefetch_bytes(x.rows(), w.panel_bytes() * w.n().div_ceil(PANEL)),
        }
    }
}

/// How far ahead of the sub-block being multiplied its weights are prefetched on CPUs where that pays (bytes; a
/// panel and the panels after it are contiguous). Why: a one-row pass streams the weights from DRAM, and on the
/// Xeon the hardware prefetchers alone left the kernel at ~7 GB/s per thread where the memory gives ~11 (Xeon with
/// AMX, 2 vCPUs, 2026-12-02: 40 distinct Q4_K 1536 x 8960 matrices, 2 threads 9.0 -> 9.6-10.1 GB/s). End to end,
/// interleaved runs of `specrt bench` on that machine: Qwen2.5-Coder-1.5B decode 12.1/11.6 tok/s without,
/// 14.3/13.9 at 2048 bytes, 14.5/13.1 at 4096, 13.8/13.9 at 8192; SmolLM2-135M 95.7/95.1 without, 113.2/118.3
/// at 2048, 106.2/114.3 at 4096.
pub(super) const PREFETCH_BYTES: usize = 2048;

/// Fewest rows of a pass that prefetch at [`PREFETCH_BYTES`] where one-row passes do not ([`prefetch_bytes`]).
const ROWS_PREFETCH_MIN_ROWS: usize = 4;
/// Smallest matrix (panel bytes) whose passes of [`ROWS_PREFETCH_MIN_ROWS`] or more rows prefetch.
const ROWS_PREFETCH_MIN_BYTES: usize = 4 << 20;

/// The distance used on this CPU for a pass of `rows` rows over a matrix of `matrix_bytes`: [`PREFETCH_BYTES`],
/// except for one-row (and short) passes on AMD CPUs with AVX-512 (Zen 4 and later), where the
/// same prefetches cost decode speed (AMD EPYC Zen 4, 2 vCPUs, 2026-12-04, `make bench-prefetch`, alternating
/// processes: AVX-512 Qwen2.5-Coder-1.5B 29.1 tok/s without vs 24.9 at 2048 bytes, SmolLM2-135M 168.4 vs 155.9; its
/// hardware prefetchers already keep a panel's next sub-blocks coming). AMD CPUs without AVX-512 (Zen 3) need them
/// like Intel's: AMD EPYC Zen 3, 2 vCPUs, 2026-12-05, the same A/B on the AVX2 kernel (medians): Qwen 19.6 tok/s
/// without, 21.1 at 1024 bytes, 21.7 at 2048; SmolLM2 150.7, 150.7, 173.6 (a 1 GiB read loop gives 20 GB/s on
/// one thread and 36 on two there, and Qwen's decode without prefetch read ~19). Zen 5 keeps Zen 4's choice
/// (unmeasured).
///
/// Passes of 4 rows or more over matrices of 4 MiB or more prefetch [`PREFETCH_BYTES`] ahead on every CPU: on the
/// Zen 4 such a tile computes long enough per panel that the hardware prefetchers let the stream stall, and
/// compute and memory stopped overlapping (Qwen2.5-Coder-1.5B's 5-token pass ran its matmuls at ~78 MACs/ns per
/// thread against ~160 cache-hot; 2026-12-05 night, pass_cost at 256 cached tokens, 2 alternations: 5 / 9-token
/// passes 59.2-63.7 / 92.3-95.5 ms without, 43.4-46.7 / 64.3-64.6 at 2048 bytes, 48.9-51.4 / 75.1-75.8 at 4096).
/// Prefetching every multi-row pass instead cost SmolLM2 (whose only matrix past 4 MiB is its 30 MB output head)
/// 2-4 token passes 4-20% in two A/Bs, which is why the floors (docs/KERNELS.md "Prefetch for verify passes").
/// `SPECRT_PREFETCH_BYTES` overrides both distances (0: off) for A/B runs.
fn prefetch_bytes(rows: usize, matrix_bytes: usize) -> usize {
    static BYTES: std::sync::OnceLock<(usize, usize)> = std::sync::OnceLock::new();
    let (one_row, rows_default) = *BYTES.get_or_init(|| {
        let one_row = if cpu_is_amd() && has_avx512f() { 0 } else { PREFETCH_BYTES };
        match std::env::var("SPECRT_PREFETCH_BYTES").ok().and_then(|v| v.trim().parse().ok()) {
            Some(b) => (b, b),
            None => (one_row, PREFETCH_BYTES),
        }
    });
    if rows >= ROWS_PREFETCH_MIN_ROWS && matrix_bytes >= ROWS_PREFETCH_MIN_BYTES {
        rows_default
    } else {
        one_row
    }
}

/// Whether the CPU runs AVX-512 F (on AMD: Zen 4 and later).
fn has_avx512f() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether the CPU's vendor string (CPUID leaf 0) is AMD's.
fn cpu_is_amd() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        // CPUID leaf 0 exists on every x86-64 CPU (the intrinsic is safe to call).
        let r = std::arch::x86_64::__cpuid(0);
        // the 12-byte vendor string is EBX, EDX, ECX in that order
        [r.ebx, r.edx, r.ecx] == [*b"Auth", *b"enti", *b"cAMD"].map(u32::from_le_bytes)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Prefetches `len` bytes at `at + ahead` into L1 (nothing when `ahead` is 0). Prefetches never fault, so reading
/// past the end of the matrix is harmless.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn prefetch(at: *const u8, len: usize, ahead: usize) {
    use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
    if ahead == 0 {
        return;
    }
    let mut o = 0;
    while o < len {
        // SAFETY: a prefetch is a hint; it never faults whatever the address (wrapping_add: no provenance use).
        unsafe { _mm_prefetch::<_MM_HINT_T0>(at.wrapping_add(ahead + o) as *const i8) };
        o += 64;
    }
}

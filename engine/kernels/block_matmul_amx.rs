//! The AMX (Advanced Matrix Extensions, Intel Xeon 4th generation and later) path of the AVX-512 panel kernel
//! (engine/kernels/block_matmul_avx512.rs) for passes of several rows: BIT-IDENTICAL to it and to the scalar
//! reference, so a k-row verify pass on AMX gives the same numbers as k one-row decode steps on AVX-512 (the
//! engine's batch-invariance rule holds whichever path a pass takes).
//!
//! Why: on AVX-512 VNNI every extra row of a pass costs 8 `vpdpbusd` per 16 columns and 32 weights, so a 4-row
//! verify costs ~2.5x a decode step and a 16-row one ~10x (kernel_probe on a Xeon, 2026-12-02): the verify cost
//! curve is what decides whether drafting pays. A panel's 32-weight sub-block is already an AMX `B` tile (8 rows
//! of 64 bytes: row g holds inputs 4g..4g+4 of each of the 16 columns, docs/KERNELS.md), so one `tdpbsud` gives
//! up to 16 rows x 16 columns of exact integer sums. The integer fix-ups and the float part are the AVX-512
//! kernel's own functions, applied row by row to the stored tile, in the same order: hence the same bits.
//!
//! Per call: the tile configuration is loaded once per row group (16 rows, then the remainder) and released at
//! the end; per panel and sub-block the codes are unpacked once into a 512-byte `B` buffer (4-bit formats; Q8_0
//! tiles load straight from the panel). Q6_K needs inputs 0..16 and 16..32 apart (two half scales): two `tdpbsud`
//! over 16-byte halves. Linux hands out AMX state only on request (`arch_prctl(ARCH_REQ_XCOMP_PERM)`, once per
//! process); without it, or with `SPECRT_NO_AMX=1`, the AVX-512 loop runs.

use std::arch::asm;
use std::arch::x86_64::*;
use std::ops::Range;
use std::sync::atomic::{AtomicU8, Ordering};

use super::block_format::{BlockFormat, BLOCK};
use super::block_matmul_avx512::{accumulate, codes, column_scales, int_sum};
use super::panel_matrix::{self, PanelMatrix, PANEL};
use super::panel_operands::{format_of, Operands, Q4_0, Q4_1, Q4_K, Q6_K, Q8_0};
use super::q8_rows::Q8Rows;

/// Rows of a pass from which the AMX path is taken. Below it the AVX-512 loop is as fast (the unpacked `B` tile
/// is written to memory and read back, and the integer sums go through memory): measured with kernel_probe.
pub(super) const MIN_ROWS: usize = 4;

/// Rows of one tile (the hardware's maximum).
const TILE_ROWS: usize = 16;

const UNKNOWN: u8 = 0;
const OFF: u8 = 1;
const ON: u8 = 2;
static STATE: AtomicU8 = AtomicU8::new(UNKNOWN);

/// Whether this process runs the AMX path: the CPU has AMX-TILE and AMX-INT8, the kernel granted the tile data
/// state, and `SPECRT_NO_AMX` is unset (or empty or 0). Decided once per process.
pub fn enabled() -> bool {
    match STATE.load(Ordering::Relaxed) {
        ON => true,
        OFF => false,
        _ => {
            let on = probe();
            STATE.store(if on { ON } else { OFF }, Ordering::Relaxed);
            on
        }
    }
}

/// Turns the AMX path off or back on for this process (kernel_probe's A/B rows). Turning it on where
/// [`enabled`] found no AMX is refused (returns false).
pub fn set_enabled(on: bool) -> bool {
    if on && !probe() {
        return false;
    }
    STATE.store(if on { ON } else { OFF }, Ordering::Relaxed);
    true
}

fn probe() -> bool {
    if std::env::var_os("SPECRT_NO_AMX").is_some_and(|v| !v.is_empty() && v != "0") {
        return false;
    }
    // CPUID leaf 7: EDX bit 24 AMX-TILE, bit 25 AMX-INT8 (std's detection of these is not stable yet).
    // leaf 7 is read only where the CPU has it
    let cpu = __cpuid(0).eax >= 7 && {
        let edx = __cpuid_count(7, 0).edx;
        edx & (1 << 24) != 0 && edx & (1 << 25) != 0
    };
    cpu && request_tile_state()
}

/// Asks Linux for the AMX tile data state (XFEATURE_XTILEDATA, 18) for the whole process; the first tile
/// instruction without it kills the thread with SIGILL.
#[cfg(target_os = "linux")]
fn request_tile_state() -> bool {
    unsafe extern "C" {
        fn syscall(number: i64, ...) -> i64;
    }
    const SYS_ARCH_PRCTL: i64 = 158;
    const ARCH_REQ_XCOMP_PERM: i64 = 0x1023;
    const XFEATURE_XTILEDATA: i64 = 18;
    // SAFETY: arch_prctl with these arguments only changes the process's permitted xstate features.
    unsafe { syscall(SYS_ARCH_PRCTL, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0 }
}

#[cfg(not(target_os = "linux"))]
fn request_tile_state() -> bool {
    false
}

/// The 64-byte tile configuration (palette 1). All formats but Q6_K: tmm0/tmm1 integer sums (rows x 16 int32),
/// tmm2/tmm3 activation codes (rows x 32 bytes), tmm4/tmm5 weight codes (8 x 64 bytes): two sets, so that
/// consecutive sub-blocks do not wait for each other. Q6_K: tmm0/tmm1 the sums of inputs 0..16 and 16..32, tmm2/tmm3
/// their activation codes (rows x 16 bytes), tmm4/tmm5 their weight vectors (4 x 64 bytes).
#[repr(C, align(64))]
struct TileConfig([u8; 64]);

impl TileConfig {
    fn new(rows: usize, halves: bool) -> Self {
        let mut c = TileConfig([0; 64]);
        c.0[0] = 1;
        let (a, b): ((usize, u16), (usize, u16)) = if halves { ((rows, 16), (4, 64)) } else { ((rows, BLOCK as u16), (BLOCK / 4, 64)) };
        for (t, (r, bytes)) in [(rows, 64), (rows, 64), a, a, b, b].into_iter().enumerate() {
            c.0[16 + 2 * t..18 + 2 * t].copy_from_slice(&bytes.to_le_bytes());
            c.0[48 + t] = r as u8;
        }
        c
    }
}

/// Sub-blocks whose integer sums are computed before their float part runs (16 KiB of sums at 16 rows: L1).
const CHUNK: usize = 16;

/// What one sub-block of a panel leaves for the float part.
#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct SubBlock {
    /// Integer sums, rows x 16 columns (Q6_K: inputs 0..16).
    lo: [[i32; PANEL]; TILE_ROWS],
    /// Q6_K: inputs 16..32.
    hi: [[i32; PANEL]; TILE_ROWS],
    /// The weight scales `d`, the float offsets `m` and the integer scales of the 16 columns.
    d: __m512,
    m: __m512,
    s_lo: __m512i,
    s_hi: __m512i,
    /// The unpacked weight codes (the B tile of 4-bit formats).
    b: [u8; 8 * 64],
    /// Where the B tile is read: `b`, or Q8_0's codes in the panel.
    code_at: *const u8,
}

/// Computes panels `panels` of `y = x @ W^T` for every row of `x` on AMX tiles: the same bits as
/// `block_matmul_avx512::matmul_panels`.
///
/// # Safety
/// As `block_matmul_avx512::matmul_panels`, and [`enabled`] must have returned true in this process.
pub(super) unsafe fn matmul_panels(w: &PanelMatrix, x: &Q8Rows, panels: Range<usize>, y: *mut f32, stride: usize) {
    // SAFETY: forwarded from the caller.
    unsafe {
        match w.format() {
            BlockFormat::Q4_0 => rows::<Q4_0>(w, x, panels, y, stride),
            BlockFormat::Q4_1 => rows::<Q4_1>(w, x, panels, y, stride),
            BlockFormat::Q8_0 => rows::<Q8_0>(w, x, panels, y, stride),
            BlockFormat::Q4_K => rows::<Q4_K>(w, x, panels, y, stride),
            BlockFormat::Q6_K => rows::<Q6_K>(w, x, panels, y, stride),
        }
    }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
unsafe fn rows<const F: u8>(w: &PanelMatrix, x: &Q8Rows, panels: Range<usize>, y: *mut f32, stride: usize) {
    let ops = Operands::new(w, x, y, stride);
    // SAFETY: plain integers and vectors; every field is written before it is read.
    let mut chunk: Vec<SubBlock> = vec![unsafe { std::mem::zeroed() }; CHUNK];
    let mut r0 = 0;
    while r0 < x.rows() {
        let m = (x.rows() - r0).min(TILE_ROWS);
        let config = TileConfig::new(m, F == Q6_K);
        // SAFETY: the CPU has AMX and the process holds the tile state (caller contract); the configuration is
        // 64 bytes, aligned.
        unsafe { asm!("ldtilecfg [{}]", in(reg) config.0.as_ptr(), options(nostack, readonly)) };
        for p in panels.clone() {
            // SAFETY: rows r0..r0+m and panel p exist (caller contract).
            unsafe { tile::<F>(ops, p, r0, m, &mut chunk) };
        }
        r0 += m;
    }
    // SAFETY: gives the tile state back (no tile is live past this point).
    unsafe { asm!("tilerelease", options(nostack, nomem)) };
}

/// Output elements `y[r0..r0+m, 16p..16p+16]`, the tiles configured for `m` rows: the integer sums of up to
/// [`CHUNK`] sub-blocks on the tiles, then their float part row by row in sub-block order (the reference's).
#[inline(always)]
unsafe fn tile<const F: u8>(ops: Operands, p: usize, r0: usize, m: usize, chunk: &mut [SubBlock]) {
    let format = format_of(F);
    let has_m = F == Q4_1 || F == Q4_K;
    let sub = format.sub_blocks();
    let (header, scale_bytes, code_bytes) =
        (panel_matrix::header_bytes(format), panel_matrix::sub_scale_bytes(format), panel_matrix::code_bytes(format));
    let block_stride = panel_matrix::block_stride(format);
    let row_stride = ops.xblocks * BLOCK;
    let total = ops.blocks * sub;
    // SAFETY: every pointer below stays inside the panel, the activation buffers and the chunk (caller
    // contract); the tiles were configured for m rows by the caller.
    unsafe {
        let base = ops.weights.add(p * ops.panel_bytes);
        let mut acc = [_mm512_setzero_ps(); TILE_ROWS];
        let mut off = [_mm512_setzero_ps(); TILE_ROWS];
        let mut first = 0;
        while first < total {
            let count = (total - first).min(CHUNK);
            for (c, e) in chunk[..count].iter_mut().enumerate() {
                let sb = first + c;
                let (b, j) = (sb / sub, sb % sub);
                let blk = base.add(b * block_stride);
                e.d = _mm512_cvtph_ps(_mm256_loadu_si256(blk as *const __m256i));
                let mv = if has_m { _mm512_cvtph_ps(_mm256_loadu_si256(blk.add(2 * PANEL) as *const __m256i)) } else { _mm512_setzero_ps() };
                let at = blk.add(header + j * (scale_bytes + code_bytes));
                (e.s_lo, e.s_hi, e.m) = column_scales::<F>(at, mv);
                // the B tile: Q8_0's stored codes as they are, the others unpacked to one byte per code (all of the
                // chunk's before the first tile load: a tile load right after the vector stores it reads stalls)
                if F == Q8_0 {
                    e.code_at = at.add(scale_bytes);
                } else {
                    let v = codes::<F>(at.add(scale_bytes));
                    for (g, vec) in v.iter().enumerate() {
                        _mm512_store_si512(e.b.as_mut_ptr().add(64 * g) as *mut _, *vec);
                    }
                    e.code_at = e.b.as_ptr();
                }
            }
            for (c, e) in chunk[..count].iter_mut().enumerate() {
                let sb = first + c;
                let bt = e.code_at;
                let a = ops.codes.add((r0 * ops.xblocks + sb) * BLOCK) as *const u8;
                if F == Q6_K {
                    asm!(
                        "tilezero tmm0",
                        "tilezero tmm1",
                        "tileloadd tmm2, [{a} + {rs} * 1]",
                        "tileloadd tmm3, [{a16} + {rs} * 1]",
                        "tileloadd tmm4, [{b} + {bs} * 1]",
                        "tileloadd tmm5, [{b256} + {bs} * 1]",
                        "tdpbsud tmm0, tmm2, tmm4",
                        "tdpbsud tmm1, tmm3, tmm5",
                        "tilestored [{lo} + {bs} * 1], tmm0",
                        "tilestored [{hi} + {bs} * 1], tmm1",
                        a = in(reg) a, a16 = in(reg) a.add(16), rs = in(reg) row_stride,
                        b = in(reg) bt, b256 = in(reg) bt.add(256), bs = in(reg) 64usize,
                        lo = in(reg) e.lo.as_mut_ptr(), hi = in(reg) e.hi.as_mut_ptr(),
                        options(nostack),
                    );
                } else if c % 2 == 0 {
                    asm!(
                        "tilezero tmm0",
                        "tileloadd tmm2, [{a} + {rs} * 1]",
                        "tileloadd tmm4, [{b} + {bs} * 1]",
                        "tdpbsud tmm0, tmm2, tmm4",
                        "tilestored [{lo} + {bs} * 1], tmm0",
                        a = in(reg) a, rs = in(reg) row_stride, b = in(reg) bt, bs = in(reg) 64usize,
                        lo = in(reg) e.lo.as_mut_ptr(),
                        options(nostack),
                    );
                } else {
                    asm!(
                        "tilezero tmm1",
                        "tileloadd tmm3, [{a} + {rs} * 1]",
                        "tileloadd tmm5, [{b} + {bs} * 1]",
                        "tdpbsud tmm1, tmm3, tmm5",
                        "tilestored [{lo} + {bs} * 1], tmm1",
                        a = in(reg) a, rs = in(reg) row_stride, b = in(reg) bt, bs = in(reg) 64usize,
                        lo = in(reg) e.lo.as_mut_ptr(),
                        options(nostack),
                    );
                }
            }
            // the float part, four rows at a time: each row's sums are one dependency chain of adds (the
            // reference's order), so rows are interleaved to keep several chains in flight
            let mut r = 0;
            while r < m {
                let rows_here = (m - r).min(4);
                let (mut a, mut o) = ([_mm512_setzero_ps(); 4], [_mm512_setzero_ps(); 4]);
                a[..rows_here].copy_from_slice(&acc[r..r + rows_here]);
                o[..rows_here].copy_from_slice(&off[r..r + rows_here]);
                for (c, e) in chunk[..count].iter().enumerate() {
                    for q in 0..4 {
                        if q < rows_here {
                            let i = (r0 + r + q) * ops.xblocks + first + c;
                            let lo = _mm512_load_si512(e.lo[r + q].as_ptr() as *const _);
                            // one sum over the 32 inputs (exact), except Q6_K's two halves
                            let hi = if F == Q6_K { _mm512_load_si512(e.hi[r + q].as_ptr() as *const _) } else { _mm512_setzero_si512() };
                            let isum = int_sum::<F>(lo, hi, ops.half_sums.add(2 * i), e.s_lo, e.s_hi);
                            accumulate::<F>(&mut a[q], &mut o[q], e.d, e.m, isum, *ops.scales.add(i), *ops.sums.add(i));
                        }
                    }
                }
                acc[r..r + rows_here].copy_from_slice(&a[..rows_here]);
                off[r..r + rows_here].copy_from_slice(&o[..rows_here]);
                r += rows_here;
            }
            first += count;
        }
        let lanes = (ops.n - p * PANEL).min(PANEL);
        let keep: __mmask16 = if lanes == PANEL { 0xFFFF } else { (1u16 << lanes) - 1 };
        for r in 0..m {
            _mm512_mask_storeu_ps(ops.y.add((r0 + r) * ops.stride + p * PANEL), keep, _mm512_add_ps(acc[r], off[r]));
        }
    }
}

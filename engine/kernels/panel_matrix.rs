//! A GGML block matrix re-laid once as column panels for the AVX-512 VNNI kernel
//! (engine/kernels/block_matmul_avx512.rs): 16 output columns side by side, so one `vpdpbusd` multiplies 4
//! inputs of 16 columns against 4 broadcast activation bytes and a 32-weight sub-block of 16 columns takes 8 of
//! them. The GGUF layout (one column's blocks after another) needs ~15 instructions per column and block; the
//! panel needs ~2.
//!
//! The re-layout is exact: the codes are the same integers (as unsigned bytes with a format's zero point, which
//! the kernel subtracts in integer arithmetic) and every scale is the file's fp16 or 6/8-bit field, copied.
//!
//! Layout, per panel of 16 columns, K in order, each stored block (32 weights, or a 256-weight K-quant
//! super-block) as:
//! - a header: `d` of the 16 columns (fp16), then Q4_1's `m` or Q4_K's `dmin` (fp16) where the format has one;
//! - per 32-weight sub-block: K-quants' sub-scales (Q4_K: 16 six-bit scales then 16 mins as bytes; Q6_K: the 16
//!   columns' int8 scale of the first 16-weight half, then of the second), then the codes: 8 vectors of 64
//!   bytes, vector `g` holding inputs `4g..4g+4` of column `c` at bytes `4c..4c+4`. 4-bit formats store two
//!   vectors per 64 bytes (vector `h` in the low nibbles, `h + 4` in the high nibbles); Q6_K stores its low 4 bits
//!   so and its high 2 bits in 128 more bytes (byte `64 (g / 4) + lane` holds them at bits `2 (g % 4)`), the
//!   file's 6 bits per code.
//!
//! Unsigned codes `u` and the zero point `z` the kernel subtracts (`code = u - z`): Q4_0 nibble, 8; Q4_1 nibble,
//! 0; Q8_0 `q + 128`, 128; Q4_K nibble, 0 (the scale multiplies the integer sum); Q6_K the 6-bit `q`, 32.

use super::block_format::{q4k_scale_min, q6k_code, BlockFormat, BLOCK};
use super::block_matrix::BlockMatrix;
use super::weight_lines::WeightLines;

/// Output columns per panel (one 512-bit vector of int32 or float lanes).
pub const PANEL: usize = 16;

/// A block matrix re-laid as 16-column panels (see the module documentation).
#[derive(Debug, Clone)]
pub struct PanelMatrix {
    format: BlockFormat,
    n: usize,
    k: usize,
    /// 64-byte aligned storage: every 64-byte code vector is one cache line (on huge pages where the system gives
    /// them: [`WeightLines`]).
    data: WeightLines,
    panel_bytes: usize,
}

impl PanelMatrix {
    /// Re-lays `w`. A last panel that `N` does not fill holds zero codes and scales in its missing columns (the
    /// kernel computes them and never stores them). `None` is kept for layouts the kernel cannot take (none yet:
    /// the caller then keeps the block layout and its kernel).
    pub fn new(w: &BlockMatrix) -> Option<Self> {
        let format = w.format();
        let panel_bytes = panel_bytes(format, w.k());
        let total = w.n().div_ceil(PANEL) * panel_bytes;
        let mut data = WeightLines::for_weights(total.div_ceil(64));
        let bytes = data.bytes_mut();
        // Panels are independent: a large matrix is split over the machine's threads (Qwen2.5-1.5B's ~1 GB of
        // weights took 3.3 s on one thread at load before; the loop below writes each byte once).
        let panels = w.n().div_ceil(PANEL);
        let threads = if total < (8 << 20) { 1 } else { std::thread::available_parallelism().map_or(1, |t| t.get()).min(8) };
        let per = panels.div_ceil(threads);
        std::thread::scope(|scope| {
            for (t, part) in bytes[..total].chunks_mut(per * panel_bytes).enumerate() {
                scope.spawn(move || {
                    for (i, panel) in part.chunks_exact_mut(panel_bytes).enumerate() {
                        write_panel(w, t * per + i, panel);
                    }
                });
            }
        });
        Some(PanelMatrix { format, n: w.n(), k: w.k(), data, panel_bytes })
    }

    /// The block format the panel was made from.
    pub fn format(&self) -> BlockFormat {
        self.format
    }

    /// Output columns.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Inputs.
    pub fn k(&self) -> usize {
        self.k
    }

    /// Bytes of one panel (16 columns x K).
    pub fn panel_bytes(&self) -> usize {
        self.panel_bytes
    }

    /// An empty matrix (no columns) of `format` and `k` inputs, the reusable target of
    /// [`PanelMatrix::gather_columns`].
    pub fn empty(format: BlockFormat, k: usize) -> Self {
        PanelMatrix { format, n: 0, k, data: WeightLines::owned(), panel_bytes: panel_bytes(format, k) }
    }

    /// Makes `out` the panel matrix of the columns `columns` of `self` (in that order, repeats allowed): output
    /// column `i` of `out` is column `columns[i]` of `self`, byte for byte, so the panel kernel gives it the same
    /// bits as in the whole matrix. `out`'s storage is reused (grown, never shrunk).
    ///
    /// Why: the CTC NAT's per-sentence output shortlist (docs/BENCHMARKS.md section 5) multiplies ~300 of the
    /// head's ~6,600 columns. Every panel region is 16 lanes of 1, 2 or 4 bytes per column ([`lane_segments`]),
    /// so a column moves as 9 small copies per Q8_0 block (~15,000 for 286 columns at K = 192): a few
    /// microseconds, against ~100 us for the whole head of a 30-position pass.
    ///
    /// # Panics
    /// If a column is not below `n` (the operator checks the indices it was given).
    pub fn gather_columns(&self, columns: &[u32], out: &mut PanelMatrix) {
        let segments = lane_segments(self.format);
        let (stride, blocks, pb) = (block_stride(self.format), self.k / self.format.block_weights(), self.panel_bytes);
        let panels = columns.len().div_ceil(PANEL);
        out.format = self.format;
        out.k = self.k;
        out.n = columns.len();
        out.panel_bytes = pb;
        let lines = (panels * pb).div_ceil(64);
        out.data.grow_to(lines);
        let src = self.data.bytes();
        let dst = out.data.bytes_mut();
        for (i, &c) in columns.iter().enumerate() {
            let c = c as usize;
            assert!(c < self.n, "column {c} outside N = {}", self.n);
            let (s_panel, s_lane, d_panel, d_lane) = (c / PANEL, c % PANEL, i / PANEL, i % PANEL);
            for b in 0..blocks {
                let (s0, d0) = (s_panel * pb + b * stride, d_panel * pb + b * stride);
                for &(off, w) in &segments {
                    let (s, d) = (s0 + off + s_lane * w, d0 + off + d_lane * w);
                    dst[d..d + w].copy_from_slice(&src[s..s + w]);
                }
            }
        }
        // The last panel's missing lanes: zero codes and scales, as `new` leaves them (computed, never stored).
        for i in columns.len()..panels * PANEL {
            let (d_panel, d_lane) = (i / PANEL, i % PANEL);
            for b in 0..blocks {
                let d0 = d_panel * pb + b * stride;
                for &(off, w) in &segments {
                    dst[d0 + off + d_lane * w..d0 + off + (d_lane + 1) * w].fill(0);
                }
            }
        }
    }

    /// The bytes of panel `p` (columns `16p..16p+16`).
    pub fn panel(&self, p: usize) -> &[u8] {
        &self.data.bytes()[p * self.panel_bytes..(p + 1) * self.panel_bytes]
    }
}

/// Header bytes per stored block: fp16 `d` of 16 columns, and `m`/`dmin` where the format has one.
pub(crate) fn header_bytes(format: BlockFormat) -> usize {
    match format {
        BlockFormat::Q4_1 | BlockFormat::Q4_K => 4 * PANEL,
        _ => 2 * PANEL,
    }
}

/// Sub-scale bytes per 32-weight sub-block (K-quants only).
pub(crate) fn sub_scale_bytes(format: BlockFormat) -> usize {
    match format {
        BlockFormat::Q4_K | BlockFormat::Q6_K => 2 * PANEL,
        _ => 0,
    }
}

/// Code bytes per 32-weight sub-block of 16 columns: 256 for 4-bit codes, 384 for Q6_K's 6-bit ones, 512 for
/// 8-bit ones.
pub(crate) fn code_bytes(format: BlockFormat) -> usize {
    match format {
        BlockFormat::Q8_0 => 8 * 64,
        BlockFormat::Q6_K => 6 * 64,
        _ => 4 * 64,
    }
}

/// Whether the format's codes are stored as nibble pairs (two code vectors per 64 bytes; Q6_K's low 4 bits).
pub(crate) fn nibble_codes(format: BlockFormat) -> bool {
    format != BlockFormat::Q8_0
}

/// Bytes per stored block of a panel.
pub(crate) fn block_stride(format: BlockFormat) -> usize {
    header_bytes(format) + format.sub_blocks() * (sub_scale_bytes(format) + code_bytes(format))
}

/// The regions of one stored block of a panel as `(offset, width)`: 16 lanes of `width` bytes from `offset`, lane
/// `c` belonging to column `c` alone (the header's fp16 fields, the K-quants' sub-scale bytes, and each 64-byte
/// code vector, whose column `c` owns bytes `4c..4c+4` in every format, nibble-packed or not). They tile the block
/// (`16 x` their widths sum to [`block_stride`]), which is what lets [`PanelMatrix::gather_columns`] move a column.
fn lane_segments(format: BlockFormat) -> Vec<(usize, usize)> {
    let mut s = vec![(0, 2)];
    if header_bytes(format) == 4 * PANEL {
        s.push((2 * PANEL, 2));
    }
    let (scales, codes) = (sub_scale_bytes(format), code_bytes(format));
    for j in 0..format.sub_blocks() {
        let at = header_bytes(format) + j * (scales + codes);
        if scales > 0 {
            s.push((at, 1));
            s.push((at + PANEL, 1));
        }
        for v in 0..codes / 64 {
            s.push((at + scales + 64 * v, 4));
        }
    }
    s
}

fn panel_bytes(format: BlockFormat, k: usize) -> usize {
    k / format.block_weights() * block_stride(format)
}

/// The 32 unsigned codes `u` of sub-block `j` of a stored block (module documentation: `code = u - z`).
fn unsigned_codes(format: BlockFormat, block: &[u8], j: usize) -> [u8; BLOCK] {
    let mut u = [0u8; BLOCK];
    match format {
        BlockFormat::Q4_0 | BlockFormat::Q4_1 => {
            let qs = if format == BlockFormat::Q4_0 { &block[2..18] } else { &block[4..20] };
            for i in 0..BLOCK / 2 {
                u[i] = qs[i] & 0x0F;
                u[i + BLOCK / 2] = qs[i] >> 4;
            }
        }
        BlockFormat::Q8_0 => {
            for (o, &q) in u.iter_mut().zip(&block[2..34]) {
                *o = (i16::from(q as i8) + 128) as u8;
            }
        }
        BlockFormat::Q4_K => {
            let qs = &block[16 + 32 * (j / 2)..16 + 32 * (j / 2) + 32];
            for (o, &q) in u.iter_mut().zip(qs) {
                *o = (q >> (4 * (j % 2))) & 0x0F;
            }
        }
        BlockFormat::Q6_K => {
            for (i, o) in u.iter_mut().enumerate() {
                *o = (q6k_code(block, j, i) + 32) as u8;
            }
        }
    }
    u
}

/// Writes panel `p` of `w` into `out` (`panel_bytes` long).
fn write_panel(w: &BlockMatrix, p: usize, out: &mut [u8]) {
    let format = w.format();
    let (bytes, sub) = (format.block_bytes(), format.sub_blocks());
    let blocks = w.k() / format.block_weights();
    let stride = block_stride(format);
    let (d_at, m_at) = match format {
        BlockFormat::Q6_K => (208, None),
        BlockFormat::Q4_1 | BlockFormat::Q4_K => (0, Some(2)),
        _ => (0, None),
    };
    for b in 0..blocks {
        let dst = &mut out[b * stride..(b + 1) * stride];
        for c in 0..PANEL.min(w.n() - p * PANEL) {
            let row = w.row_bytes(p * PANEL + c);
            let block = &row[b * bytes..(b + 1) * bytes];
            dst[2 * c..2 * c + 2].copy_from_slice(&block[d_at..d_at + 2]);
            if let Some(m) = m_at {
                dst[2 * PANEL + 2 * c..2 * PANEL + 2 * c + 2].copy_from_slice(&block[m..m + 2]);
            }
            for j in 0..sub {
                let at = header_bytes(format) + j * (sub_scale_bytes(format) + code_bytes(format));
                match format {
                    BlockFormat::Q4_K => {
                        let (sc, min) = q4k_scale_min(&block[4..16], j);
                        dst[at + c] = sc;
                        dst[at + PANEL + c] = min;
                    }
                    BlockFormat::Q6_K => {
                        dst[at + c] = block[192 + 2 * j];
                        dst[at + PANEL + c] = block[193 + 2 * j];
                    }
                    _ => {}
                }
                let codes = &mut dst[at + sub_scale_bytes(format)..at + sub_scale_bytes(format) + code_bytes(format)];
                let u = unsigned_codes(format, block, j);
                for i4 in 0..4 {
                    let lane = 4 * c + i4;
                    if nibble_codes(format) {
                        // vector h < 4 in the low nibbles of 64-byte group h, vector h + 4 in its high nibbles;
                        // Q6_K's high 2 bits of vector g at bits 2 (g % 4) of byte group 4 + g / 4
                        for h in 0..4 {
                            let (lo, hi) = (u[4 * h + i4], u[4 * (h + 4) + i4]);
                            codes[64 * h + lane] = (lo & 0x0F) | ((hi & 0x0F) << 4);
                        }
                        if format == BlockFormat::Q6_K {
                            for half in 0..2 {
                                let mut bits = 0u8;
                                for s in 0..4 {
                                    bits |= (u[4 * (4 * half + s) + i4] >> 4) << (2 * s);
                                }
                                codes[256 + 64 * half + lane] = bits;
                            }
                        }
                    } else {
                        for g in 0..8 {
                            codes[64 * g + lane] = u[4 * g + i4];
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_segments_tile_every_format_s_block() {
        for format in BlockFormat::ALL {
            let segs = lane_segments(format);
            let mut covered = vec![0u8; block_stride(format)];
            for &(off, w) in &segs {
                for b in &mut covered[off..off + PANEL * w] {
                    *b += 1;
                }
            }
            assert!(covered.iter().all(|&c| c == 1), "{format:?}: segments must cover each byte of a block once");
        }
    }

    #[test]
    fn unsigned_codes_minus_the_zero_point_are_the_sub_block_codes() {
        // Every format: u - z times the sub-scale (K-quants) gives SubBlock::codes, the integers the scalar
        // reference multiplies.
        for format in BlockFormat::ALL {
            let block: Vec<u8> = (0..format.block_bytes()).map(|i| (i * 37 + 11) as u8).collect();
            for j in 0..format.sub_blocks() {
                let want = format.sub_block(&block, j).codes;
                let u = unsigned_codes(format, &block, j);
                for i in 0..BLOCK {
                    let code = i32::from(u[i]);
                    let got = match format {
                        BlockFormat::Q4_0 => code - 8,
                        BlockFormat::Q4_1 => code,
                        BlockFormat::Q8_0 => code - 128,
                        BlockFormat::Q4_K => i32::from(q4k_scale_min(&block[4..16], j).0) * code,
                        BlockFormat::Q6_K => i32::from(block[192 + 2 * j + i / 16] as i8) * (code - 32),
                    };
                    assert_eq!(got, want[i], "{format:?} sub-block {j} code {i}");
                }
            }
        }
    }

    #[test]
    fn panels_cover_every_column_and_have_the_blocks_size() {
        let data = vec![0u8; 24 * 20];
        let w = BlockMatrix::new(BlockFormat::Q4_1, 24, 32, &data).expect("shape");
        assert_eq!(PanelMatrix::new(&w).expect("a partial last panel").panel(1).len(), 320);
        let data = vec![0u8; 32 * 20];
        let w = BlockMatrix::new(BlockFormat::Q4_1, 32, 32, &data).expect("shape");
        let p = PanelMatrix::new(&w).expect("two panels");
        assert_eq!((p.n(), p.k(), p.panel_bytes()), (32, 32, 64 + 256));
        assert_eq!(p.panel(1).len(), 320);
    }
}

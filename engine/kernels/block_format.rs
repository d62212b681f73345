//! GGML's block formats, as stored in GGUF files. The legacy formats hold 32 weights per block behind an fp16
//! scale `d` (and for Q4_1 an fp16 offset `m`); the K-quants hold 256 weights per super-block with per-32 (Q4_K)
//! or per-16 (Q6_K) integer scales under one fp16 super-scale. The block matmul reads these bytes verbatim, so an
//! export that keeps them is an exact conversion of the checkpoint by construction (no re-packing, no
//! re-quantization).
//!
//! Every format is multiplied as 32-weight sub-blocks `value = d * code + m` ([`SubBlock`]), each against one
//! 32-value block of quantized activations: `code` is the integer the dot product uses, with a K-quant's integer
//! sub-scale already folded in (Q4_K: `sc * nibble`; Q6_K: `sc * (q - 32)` with the scale of each 16-half), so the
//! per-block integer sum is exact and one float multiply by `d` (the super-block scale) follows.

/// Weights per sub-block, and per activation block of the other operand.
pub const BLOCK: usize = 32;
/// Weights per K-quant super-block (GGML's `QK_K`).
pub const SUPER_BLOCK: usize = 256;

/// A GGML block format the block matmul can multiply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)] // GGML's own names, as the GGUF files and the exporter spell them
pub enum BlockFormat {
    /// `{d: f16, qs: [u8; 16]}`: value = d * (nibble - 8).
    Q4_0,
    /// `{d: f16, m: f16, qs: [u8; 16]}`: value = d * nibble + m.
    Q4_1,
    /// `{d: f16, qs: [i8; 32]}`: value = d * q.
    Q8_0,
    /// `{d: f16, dmin: f16, scales: [u8; 12], qs: [u8; 128]}` per 256: eight 6-bit (scale, min) pairs; value of
    /// sub-block j = d * sc_j * nibble - dmin * m_j. Byte i of 32-byte group g holds sub-block 2g (low nibble) and
    /// 2g + 1 (high nibble).
    Q4_K,
    /// `{ql: [u8; 128], qh: [u8; 64], scales: [i8; 16], d: f16}` per 256: 6-bit codes (low 4 bits in `ql`, high
    /// 2 in `qh`), one signed 8-bit scale per 16 weights; value = d * scale * (q - 32).
    Q6_K,
}

/// One 32-weight sub-block as the dot product sees it: `value_i = d * codes[i] + m`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SubBlock {
    /// Float scale (the block's or super-block's fp16 `d`, widened).
    pub d: f32,
    /// Float offset (Q4_1's `m`, Q4_K's `-dmin * min`; 0 otherwise).
    pub m: f32,
    /// Integer codes, sub-scales folded in.
    pub codes: [i32; BLOCK],
}

impl BlockFormat {
    /// Every format, in GGML's order.
    pub const ALL: [BlockFormat; 5] = [BlockFormat::Q4_0, BlockFormat::Q4_1, BlockFormat::Q8_0, BlockFormat::Q4_K, BlockFormat::Q6_K];

    /// The format named like GGML's type (`"Q4_1"`), or `None`.
    pub fn parse(name: &str) -> Option<Self> {
        BlockFormat::ALL.into_iter().find(|f| f.name() == name)
    }

    /// GGML's name for the format.
    pub fn name(self) -> &'static str {
        match self {
            BlockFormat::Q4_0 => "Q4_0",
            BlockFormat::Q4_1 => "Q4_1",
            BlockFormat::Q8_0 => "Q8_0",
            BlockFormat::Q4_K => "Q4_K",
            BlockFormat::Q6_K => "Q6_K",
        }
    }

    /// Weights per stored block: 32, or 256 for the K-quants.
    pub fn block_weights(self) -> usize {
        match self {
            BlockFormat::Q4_K | BlockFormat::Q6_K => SUPER_BLOCK,
            _ => BLOCK,
        }
    }

    /// 32-weight sub-blocks per stored block.
    pub fn sub_blocks(self) -> usize {
        self.block_weights() / BLOCK
    }

    /// Bytes per stored block.
    pub fn block_bytes(self) -> usize {
        match self {
            BlockFormat::Q4_0 => 18,
            BlockFormat::Q4_1 => 20,
            BlockFormat::Q8_0 => 34,
            BlockFormat::Q4_K => 144,
            BlockFormat::Q6_K => 210,
        }
    }

    /// Sub-block `j` (< [`BlockFormat::sub_blocks`]) of the stored `block`.
    pub fn sub_block(self, block: &[u8], j: usize) -> SubBlock {
        let f16 = |i: usize| f16_to_f32(u16::from_le_bytes([block[i], block[i + 1]]));
        let mut codes = [0i32; BLOCK];
        match self {
            BlockFormat::Q8_0 => {
                for (o, &q) in codes.iter_mut().zip(&block[2..34]) {
                    *o = i32::from(q as i8);
                }
                SubBlock { d: f16(0), m: 0.0, codes }
            }
            BlockFormat::Q4_0 | BlockFormat::Q4_1 => {
                // GGML's nibble order: byte i holds element i (low nibble) and element i + 16 (high nibble).
                let (qs, bias, m) = if self == BlockFormat::Q4_0 { (&block[2..18], 8, 0.0) } else { (&block[4..20], 0, f16(2)) };
                for i in 0..BLOCK / 2 {
                    codes[i] = i32::from(qs[i] & 0x0F) - bias;
                    codes[i + BLOCK / 2] = i32::from(qs[i] >> 4) - bias;
                }
                SubBlock { d: f16(0), m, codes }
            }
            BlockFormat::Q4_K => {
                let (sc, min) = q4k_scale_min(&block[4..16], j);
                let qs = &block[16 + 32 * (j / 2)..16 + 32 * (j / 2) + 32];
                let shift = 4 * (j % 2);
                for (o, &q) in codes.iter_mut().zip(qs) {
                    *o = i32::from(sc) * i32::from((q >> shift) & 0x0F);
                }
                SubBlock { d: f16(0), m: -(f16(2) * f32::from(min)), codes }
            }
            BlockFormat::Q6_K => {
                for (i, o) in codes.iter_mut().enumerate() {
                    *o = i32::from(block[192 + 2 * j + i / 16] as i8) * q6k_code(block, j, i);
                }
                SubBlock { d: f16(208), m: 0.0, codes }
            }
        }
    }

    /// The stored block's weights as float32, exactly as llama.cpp's `dequantize_row_*` computes them (fp16
    /// widened to fp32, the same float operations in the same order); `out` holds [`BlockFormat::block_weights`].
    pub fn dequantize(self, block: &[u8], out: &mut [f32]) {
        let f16 = |i: usize| f16_to_f32(u16::from_le_bytes([block[i], block[i + 1]]));
        for j in 0..self.sub_blocks() {
            let o = &mut out[j * BLOCK..(j + 1) * BLOCK];
            match self {
                BlockFormat::Q4_K => {
                    // y = (d * sc) * q - dmin * m
                    let (sc, min) = q4k_scale_min(&block[4..16], j);
                    let (d1, m1) = (f16(0) * f32::from(sc), f16(2) * f32::from(min));
                    let qs = &block[16 + 32 * (j / 2)..16 + 32 * (j / 2) + 32];
                    for (y, &q) in o.iter_mut().zip(qs) {
                        *y = d1 * f32::from((q >> (4 * (j % 2))) & 0x0F) - m1;
                    }
                }
                BlockFormat::Q6_K => {
                    // y = d * sc * (q - 32), evaluated left to right
                    for (i, y) in o.iter_mut().enumerate() {
                        let sc = f32::from(block[192 + 2 * j + i / 16] as i8);
                        *y = f16(208) * sc * q6k_code(block, j, i) as f32;
                    }
                }
                _ => {
                    let sb = self.sub_block(block, j);
                    for (y, &q) in o.iter_mut().zip(&sb.codes) {
                        *y = sb.d * q as f32 + sb.m;
                    }
                }
            }
        }
    }
}

/// GGML's `get_scale_min_k4`: the 6-bit scale and min of Q4_K sub-block `j` from the 12 packed bytes.
#[inline]
pub(crate) fn q4k_scale_min(scales: &[u8], j: usize) -> (u8, u8) {
    if j < 4 {
        (scales[j] & 63, scales[j + 4] & 63)
    } else {
        ((scales[j + 4] & 0x0F) | ((scales[j - 4] >> 6) << 4), (scales[j + 4] >> 4) | ((scales[j] >> 6) << 4))
    }
}

/// Q6_K's code `q - 32` of element `i` of sub-block `j`: sub-block j lies in 128-weight half `j / 4`, whose
/// `ql` bytes are 64 from 64 * half and `qh` bytes 32 from 128 + 32 * half; its position s = j % 4 in that half
/// picks the `ql` bytes (s odd: the second 32), the nibble (s >= 2: high) and the 2 bits of `qh` (shift 2s).
#[inline]
pub(crate) fn q6k_code(block: &[u8], j: usize, i: usize) -> i32 {
    let (half, s) = (j / 4, j % 4);
    let ql = block[64 * half + 32 * (s % 2) + i];
    let qh = block[128 + 32 * half + i];
    let low = if s >= 2 { ql >> 4 } else { ql & 0x0F };
    i32::from(low | (((qh >> (2 * s)) & 3) << 4)) - 32
}

pub use super::half::f16_to_f32;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn q4_1_block_dequantizes_in_ggml_nibble_order() {
        // d = 1.0, m = -2.0, byte j = (j+1 high, j low) -> element j = j % 16... checked element-wise.
        let mut block = vec![0u8; 20];
        block[0..2].copy_from_slice(&0x3C00u16.to_le_bytes());
        block[2..4].copy_from_slice(&0xC000u16.to_le_bytes());
        for j in 0..16 {
            block[4 + j] = (j as u8) | (((15 - j) as u8) << 4);
        }
        let mut w = [0f32; BLOCK];
        BlockFormat::Q4_1.dequantize(&block, &mut w);
        for j in 0..16 {
            assert_eq!(w[j], j as f32 - 2.0);
            assert_eq!(w[j + 16], (15 - j) as f32 - 2.0);
        }
    }

    #[test]
    fn names_round_trip() {
        for f in BlockFormat::ALL {
            assert_eq!(BlockFormat::parse(f.name()), Some(f));
            assert_eq!(f.block_weights() % BLOCK, 0);
        }
        assert_eq!(BlockFormat::parse("Q5_K"), None);
    }

    /// ggml-quants.c's `dequantize_row_q4_K`, transcribed loop for loop (the independent reference).
    fn ggml_dequantize_q4_k(x: &[u8]) -> Vec<f32> {
        let d = f16_to_f32(u16::from_le_bytes([x[0], x[1]]));
        let min = f16_to_f32(u16::from_le_bytes([x[2], x[3]]));
        let scales = &x[4..16];
        let get = |j: usize| -> (u8, u8) {
            if j < 4 {
                (scales[j] & 63, scales[j + 4] & 63)
            } else {
                ((scales[j + 4] & 0xF) | ((scales[j - 4] >> 6) << 4), (scales[j + 4] >> 4) | ((scales[j] >> 6) << 4))
            }
        };
        let (mut y, mut q, mut is) = (Vec::new(), 16usize, 0usize);
        for _ in (0..256).step_by(64) {
            let (sc, m) = get(is);
            let (d1, m1) = (d * f32::from(sc), min * f32::from(m));
            let (sc, m) = get(is + 1);
            let (d2, m2) = (d * f32::from(sc), min * f32::from(m));
            for l in 0..32 {
                y.push(d1 * f32::from(x[q + l] & 0xF) - m1);
            }
            for l in 0..32 {
                y.push(d2 * f32::from(x[q + l] >> 4) - m2);
            }
            q += 32;
            is += 2;
        }
        y
    }

    /// ggml-quants.c's `dequantize_row_q6_K`, transcribed loop for loop.
    fn ggml_dequantize_q6_k(x: &[u8]) -> Vec<f32> {
        let d = f16_to_f32(u16::from_le_bytes([x[208], x[209]]));
        let mut y = vec![0f32; 256];
        let (mut ql, mut qh, mut sc, mut yo) = (0usize, 128usize, 192usize, 0usize);
        for _ in (0..256).step_by(128) {
            for l in 0..32 {
                let is = l / 16;
                let q1 = ((x[ql + l] & 0xF) | ((x[qh + l] & 3) << 4)) as i8 - 32;
                let q2 = ((x[ql + l + 32] & 0xF) | (((x[qh + l] >> 2) & 3) << 4)) as i8 - 32;
                let q3 = ((x[ql + l] >> 4) | (((x[qh + l] >> 4) & 3) << 4)) as i8 - 32;
                let q4 = ((x[ql + l + 32] >> 4) | (((x[qh + l] >> 6) & 3) << 4)) as i8 - 32;
                let s = |k: usize| f32::from(x[sc + is + k] as i8);
                y[yo + l] = d * s(0) * f32::from(q1);
                y[yo + l + 32] = d * s(2) * f32::from(q2);
                y[yo + l + 64] = d * s(4) * f32::from(q3);
                y[yo + l + 96] = d * s(6) * f32::from(q4);
            }
            yo += 128;
            ql += 64;
            qh += 32;
            sc += 8;
        }
        y
    }

    fn random_block(format: BlockFormat, seed: u64) -> Vec<u8> {
        let mut s = seed | 1;
        let mut b: Vec<u8> = (0..format.block_bytes())
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                s as u8
            })
            .collect();
        // sane fp16 super-scales (exponent 5..8)
        let (d_at, dmin_at) = if format == BlockFormat::Q6_K { (208, None) } else { (0, Some(2)) };
        b[d_at..d_at + 2].copy_from_slice(&(0x1400u16 | (seed as u16 & 0x0FFF)).to_le_bytes());
        if let Some(i) = dmin_at {
            b[i..i + 2].copy_from_slice(&(0x1000u16 | ((seed >> 12) as u16 & 0x0FFF)).to_le_bytes());
        }
        b
    }

    #[test]
    fn k_quants_dequantize_bit_for_bit_like_ggml_and_their_sub_blocks_agree() {
        for (format, reference) in [(BlockFormat::Q4_K, ggml_dequantize_q4_k as fn(&[u8]) -> Vec<f32>), (BlockFormat::Q6_K, ggml_dequantize_q6_k)] {
            for seed in 1..40u64 {
                let block = random_block(format, seed * 0x9E37_79B9);
                let mut got = vec![0f32; 256];
                format.dequantize(&block, &mut got);
                let want = reference(&block);
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got), bits(&want), "{format:?} seed {seed}");
                // the dot product's view (d * code + m in f64) gives the same values up to one f32 rounding
                for j in 0..8 {
                    let sb = format.sub_block(&block, j);
                    for i in 0..BLOCK {
                        let v = f64::from(sb.d) * f64::from(sb.codes[i]) + f64::from(sb.m);
                        let w = f64::from(want[j * BLOCK + i]);
                        assert!((v - w).abs() <= 1e-6 * w.abs().max(1e-3), "{format:?} seed {seed} sub-block {j} element {i}: {v} vs {w}");
                    }
                }
            }
        }
    }
}

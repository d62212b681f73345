//! GGML's block formats, as stored in GGUF files: 32 weights per block, an fp16 scale `d` (and for Q4_1 an fp16
//! offset `m`) in front of the codes. The block matmul reads these bytes verbatim, so an export that keeps them
//! is an exact conversion of the checkpoint by construction (no re-packing, no re-quantization).

/// Weights per block, for every format here.
pub const BLOCK: usize = 32;

/// A GGML block format the block matmul can multiply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockFormat {
    /// `{d: f16, qs: [u8; 16]}`: value = d * (nibble - 8).
    Q4_0,
    /// `{d: f16, m: f16, qs: [u8; 16]}`: value = d * nibble + m.
    Q4_1,
    /// `{d: f16, qs: [i8; 32]}`: value = d * q.
    Q8_0,
}

impl BlockFormat {
    /// The format named like GGML's type (`"Q4_1"`), or `None`.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "Q4_0" => Some(BlockFormat::Q4_0),
            "Q4_1" => Some(BlockFormat::Q4_1),
            "Q8_0" => Some(BlockFormat::Q8_0),
            _ => None,
        }
    }

    /// GGML's name for the format.
    pub fn name(self) -> &'static str {
        match self {
            BlockFormat::Q4_0 => "Q4_0",
            BlockFormat::Q4_1 => "Q4_1",
            BlockFormat::Q8_0 => "Q8_0",
        }
    }

    /// Bytes per block of 32 weights.
    pub fn block_bytes(self) -> usize {
        match self {
            BlockFormat::Q4_0 => 18,
            BlockFormat::Q4_1 => 20,
            BlockFormat::Q8_0 => 34,
        }
    }

    /// Byte offset of the codes inside a block (after the fp16 scale and offset).
    pub fn codes_offset(self) -> usize {
        match self {
            BlockFormat::Q4_0 | BlockFormat::Q8_0 => 2,
            BlockFormat::Q4_1 => 4,
        }
    }

    /// The block's scale `d` and offset `m` (0 unless Q4_1).
    pub fn scale_offset(self, block: &[u8]) -> (f32, f32) {
        let d = f16_to_f32(u16::from_le_bytes([block[0], block[1]]));
        let m = match self {
            BlockFormat::Q4_1 => f16_to_f32(u16::from_le_bytes([block[2], block[3]])),
            _ => 0.0,
        };
        (d, m)
    }

    /// The block's 32 integer codes in element order, as the dot product sees them: Q4_0 nibble - 8, Q4_1
    /// nibble (0..15), Q8_0 the signed byte. GGML's nibble order: byte j holds element j (low nibble) and element
    /// j + 16 (high nibble).
    pub fn codes(self, block: &[u8]) -> [i32; BLOCK] {
        let qs = &block[self.codes_offset()..self.block_bytes()];
        let mut out = [0i32; BLOCK];
        match self {
            BlockFormat::Q8_0 => {
                for (o, &q) in out.iter_mut().zip(qs) {
                    *o = i32::from(q as i8);
                }
            }
            BlockFormat::Q4_0 | BlockFormat::Q4_1 => {
                let bias = if self == BlockFormat::Q4_0 { 8 } else { 0 };
                for j in 0..BLOCK / 2 {
                    out[j] = i32::from(qs[j] & 0x0F) - bias;
                    out[j + BLOCK / 2] = i32::from(qs[j] >> 4) - bias;
                }
            }
        }
        out
    }

    /// The block's 32 weights as float32, exactly as llama.cpp dequantizes them (fp16 widened to fp32).
    pub fn dequantize(self, block: &[u8]) -> [f32; BLOCK] {
        let (d, m) = self.scale_offset(block);
        let codes = self.codes(block);
        let mut out = [0f32; BLOCK];
        for (o, q) in out.iter_mut().zip(codes) {
            *o = d * q as f32 + m;
        }
        out
    }
}

/// IEEE half -> single precision (exact: every f16 value is an f32 value).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from((h >> 10) & 0x1F);
    let man = u32::from(h & 0x3FF);
    let bits = match (exp, man) {
        (0, 0) => sign,
        (0, _) => {
            // Subnormal: man * 2^-24, exact in f32.
            let v = man as f32 * (1.0 / 16_777_216.0);
            return if sign != 0 { -v } else { v };
        }
        (0x1F, _) => sign | 0x7F80_0000 | (man << 13),
        _ => sign | ((exp + 112) << 23) | (man << 13),
    };
    f32::from_bits(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_conversion_matches_known_values() {
        assert_eq!(f16_to_f32(0x3C00), 1.0);
        assert_eq!(f16_to_f32(0xC000), -2.0);
        assert_eq!(f16_to_f32(0x7BFF), 65504.0);
        assert_eq!(f16_to_f32(0x0001), 5.960_464_5e-8);
        assert_eq!(f16_to_f32(0x8000).to_bits(), 0x8000_0000);
        assert!(f16_to_f32(0x7C00).is_infinite());
        assert!(f16_to_f32(0x7E00).is_nan());
    }

    #[test]
    fn q4_1_block_dequantizes_in_ggml_nibble_order() {
        // d = 1.0, m = -2.0, byte j = (j+1 high, j low) -> element j = j % 16... checked element-wise.
        let mut block = vec![0u8; 20];
        block[0..2].copy_from_slice(&0x3C00u16.to_le_bytes());
        block[2..4].copy_from_slice(&0xC000u16.to_le_bytes());
        for j in 0..16 {
            block[4 + j] = (j as u8) | (((15 - j) as u8) << 4);
        }
        let w = BlockFormat::Q4_1.dequantize(&block);
        for j in 0..16 {
            assert_eq!(w[j], j as f32 - 2.0);
            assert_eq!(w[j + 16], (15 - j) as f32 - 2.0);
        }
    }

    #[test]
    fn names_round_trip() {
        for f in [BlockFormat::Q4_0, BlockFormat::Q4_1, BlockFormat::Q8_0] {
            assert_eq!(BlockFormat::parse(f.name()), Some(f));
        }
        assert_eq!(BlockFormat::parse("Q4_K"), None);
    }
}

//! IEEE half precision (fp16) as the kernels store it: GGUF block scales, and the KV cache of exports made with
//! `--kv-dtype fp16` (half the bytes a long context reads per token). Conversions are exact toward f32 and round
//! to nearest even toward f16, bit for bit what the F16C instructions do, so the scalar and SIMD paths agree.

/// f16 bits -> f32 (exact: every f16 value is an f32 value).
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

/// f32 -> f16 bits, rounding to nearest even (overflow to infinity, NaN kept quiet), like `vcvtps2ph` with
/// `_MM_FROUND_TO_NEAREST_INT`.
pub fn f32_to_f16(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xFF) as i32;
    let man = bits & 0x007F_FFFF;
    if exp == 0xFF {
        // infinity, or NaN with the top mantissa bits kept and the quiet bit set
        return sign | 0x7C00 | if man != 0 { 0x0200 | (man >> 13) as u16 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1F {
        return sign | 0x7C00;
    }
    if e <= 0 {
        // subnormal (or zero) in f16: shift the full significand, then round to nearest even
        if e < -10 {
            return sign;
        }
        let m = man | 0x0080_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let rest = m & ((1u32 << shift) - 1);
        let mut h = m >> shift;
        if rest > half || (rest == half && h & 1 == 1) {
            h += 1;
        }
        return sign | h as u16;
    }
    let mut h = ((e as u32) << 10) | (man >> 13);
    let rest = man & 0x1FFF;
    if rest > 0x1000 || (rest == 0x1000 && h & 1 == 1) {
        h += 1; // may carry into the exponent, up to infinity: still correct
    }
    sign | h as u16
}

/// A KV cache element: f32 or f16 bits. The attention kernel reads either, widened to f32.
pub trait KvElem: Copy + Send + Sync + 'static {
    /// The element as f32.
    fn widen(self) -> f32;
    /// Stores `x` in this format (f16: round to nearest even).
    fn narrow(x: f32) -> Self;
    /// Eight consecutive elements at `p` as f32 lanes.
    ///
    /// # Safety
    /// Eight elements readable at `p`; the CPU has AVX2 and F16C.
    #[cfg(target_arch = "x86_64")]
    unsafe fn load8(p: *const Self) -> std::arch::x86_64::__m256;
}

impl KvElem for f32 {
    #[inline(always)]
    fn widen(self) -> f32 {
        self
    }
    #[inline(always)]
    fn narrow(x: f32) -> Self {
        x
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn load8(p: *const Self) -> std::arch::x86_64::__m256 {
        // SAFETY: forwarded.
        unsafe { std::arch::x86_64::_mm256_loadu_ps(p) }
    }
}

/// An fp16 value's bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(transparent)]
pub struct F16(pub u16);

impl KvElem for F16 {
    #[inline(always)]
    fn widen(self) -> f32 {
        f16_to_f32(self.0)
    }
    #[inline(always)]
    fn narrow(x: f32) -> Self {
        F16(f32_to_f16(x))
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn load8(p: *const Self) -> std::arch::x86_64::__m256 {
        use std::arch::x86_64::*;
        // SAFETY: 16 readable bytes at `p` (forwarded); F16C checked by the caller.
        unsafe { _mm256_cvtph_ps(_mm_loadu_si128(p as *const __m128i)) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversion_matches_known_values() {
        assert_eq!(f16_to_f32(0x3C00), 1.0);
        assert_eq!(f16_to_f32(0xC000), -2.0);
        assert_eq!(f16_to_f32(0x7BFF), 65504.0);
        assert_eq!(f16_to_f32(0x0001), 5.960_464_5e-8);
        assert_eq!(f16_to_f32(0x8000).to_bits(), 0x8000_0000);
        assert!(f16_to_f32(0x7C00).is_infinite());
        assert!(f16_to_f32(0x7E00).is_nan());
        assert_eq!(f32_to_f16(65520.0), 0x7C00, "rounds up to infinity");
        assert_eq!(f32_to_f16(1.0 + 1.0 / 2048.0), 0x3C00, "a tie rounds to even");
        assert_eq!(f32_to_f16(1.0 + 3.0 / 2048.0), 0x3C02);
    }

    #[test]
    fn every_half_round_trips() {
        for h in 0..=u16::MAX {
            let x = f16_to_f32(h);
            if x.is_nan() {
                assert!(f16_to_f32(f32_to_f16(x)).is_nan());
            } else {
                assert_eq!(f32_to_f16(x), h, "{h:#06x} -> {x}");
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn narrowing_is_bit_for_bit_what_f16c_does() {
        if !(is_x86_feature_detected!("avx2") && is_x86_feature_detected!("f16c")) {
            return;
        }
        use std::arch::x86_64::*;
        let mut s = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..200_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            // all exponents, including f16's subnormal and overflow ranges
            let x = f32::from_bits(s as u32);
            if x.is_nan() {
                continue;
            }
            // SAFETY: F16C detected above.
            let hw = unsafe { _mm_extract_epi16(_mm_cvtps_ph(_mm_set_ss(x), _MM_FROUND_TO_NEAREST_INT), 0) as u16 };
            assert_eq!(f32_to_f16(x), hw, "{x:e}");
        }
    }
}

//! Test-only weights for the kernels' unit tests: deterministic values and GGML Q8_0 matrices with the weights
//! they decode to (what an f64 reference multiplies).

/// Deterministic values in [-1, 1).
pub fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

/// Q8_0 blocks of an `[n, k]` matrix (scale = max|w| / 127, round to nearest), and the weights they decode to.
pub fn q8_0(n: usize, k: usize, seed: u64, amp: f32) -> (Vec<u8>, Vec<f32>) {
    let w: Vec<f32> = values(n * k, seed).iter().map(|v| v * amp).collect();
    let (mut bytes, mut decoded) = (Vec::new(), Vec::new());
    for block in w.chunks_exact(32) {
        let amax = block.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        let d = crate::kernels::half::f16_to_f32(crate::kernels::half::f32_to_f16(amax / 127.0));
        bytes.extend_from_slice(&crate::kernels::half::f32_to_f16(d).to_le_bytes());
        for &v in block {
            let q = if d > 0.0 { (v / d).round().clamp(-127.0, 127.0) as i8 } else { 0 };
            bytes.push(q as u8);
            decoded.push(f32::from(q) * d);
        }
    }
    (bytes, decoded)
}

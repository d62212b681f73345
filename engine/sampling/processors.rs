//! Logits processors, applied in the order of Hugging Face transformers and llama.cpp: repetition penalty,
//! temperature, top-k (on logits), softmax, top-p and min-p (on probabilities). Filtered entries become
//! `-inf` (logits) or `0` (probabilities).

/// CTRL repetition penalty: each distinct token of `history` gets its positive logit divided by `penalty` and
/// its negative logit multiplied by it. `seen` is scratch space.
pub fn repetition_penalty(logits: &mut [f32], history: &[u32], penalty: f32, seen: &mut Vec<u32>) {
    if penalty == 1.0 {
        return;
    }
    seen.clear();
    seen.extend_from_slice(history);
    seen.sort_unstable();
    seen.dedup();
    for &t in seen.iter() {
        if let Some(l) = logits.get_mut(t as usize) {
            *l = if *l > 0.0 { *l / penalty } else { *l * penalty };
        }
    }
}

/// Divides logits by `t` (> 0).
pub fn temperature(logits: &mut [f32], t: f32) {
    if t != 1.0 && t > 0.0 {
        let inv = 1.0 / t;
        logits.iter_mut().for_each(|l| *l *= inv);
    }
}

/// Keeps the `k` largest logits (0 = off); ties at the threshold are kept.
pub fn top_k(logits: &mut [f32], k: usize, scratch: &mut Vec<u32>) {
    if k == 0 || k >= logits.len() {
        return;
    }
    scratch.clear();
    scratch.extend(0..logits.len() as u32);
    scratch.select_nth_unstable_by(k - 1, |&a, &b| logits[b as usize].total_cmp(&logits[a as usize]));
    let threshold = logits[scratch[k - 1] as usize];
    logits.iter_mut().for_each(|l| {
        if *l < threshold {
            *l = f32::NEG_INFINITY
        }
    });
}

/// In-place softmax that never yields NaN. Its limits stand in where the plain formula breaks: logits that
/// overflowed to `+inf` (an extreme repetition penalty or temperature) share all the mass, NaN logits get none,
/// and a vector with nothing finite left becomes uniform.
pub(crate) fn softmax(values: &mut [f32]) {
    // f32::max ignores NaN, so `max` is NaN only for an empty or all-NaN vector.
    let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    if max == f32::INFINITY {
        values.iter_mut().for_each(|v| *v = if *v == f32::INFINITY { 1.0 } else { 0.0 });
        normalise(values);
        return;
    }
    if !max.is_finite() {
        // All -inf or NaN: no token is preferred, and none may be drawn from NaN.
        let n = values.len().max(1) as f32;
        values.iter_mut().for_each(|v| *v = 1.0 / n);
        return;
    }
    let mut sum = 0.0f32;
    for v in values.iter_mut() {
        let e = (*v - max).exp();
        *v = if e.is_nan() { 0.0 } else { e };
        sum += *v;
    }
    // sum >= 1: the max itself contributes exp(0).
    let inv = 1.0 / sum;
    values.iter_mut().for_each(|v| *v *= inv);
}

/// Keeps the smallest set of most likely tokens whose mass reaches `p` (1 = off), then renormalises.
pub fn top_p(probs: &mut [f32], p: f32, scratch: &mut Vec<u32>) {
    if p >= 1.0 {
        return;
    }
    scratch.clear();
    scratch.extend((0..probs.len() as u32).filter(|&i| probs[i as usize] > 0.0));
    scratch.sort_unstable_by(|&a, &b| probs[b as usize].total_cmp(&probs[a as usize]));
    let mut acc = 0.0f32;
    let mut keep = scratch.len();
    for (n, &i) in scratch.iter().enumerate() {
        acc += probs[i as usize];
        if acc >= p {
            keep = n + 1;
            break;
        }
    }
    for &i in &scratch[keep..] {
        probs[i as usize] = 0.0;
    }
    normalise(probs);
}

/// Drops tokens whose probability is below `min_p` times the largest (0 = off), then renormalises.
pub fn min_p(probs: &mut [f32], min_p: f32) {
    if min_p <= 0.0 {
        return;
    }
    let max = probs.iter().copied().fold(0.0f32, f32::max);
    let cut = max * min_p;
    probs.iter_mut().for_each(|v| {
        if *v < cut {
            *v = 0.0
        }
    });
    normalise(probs);
}

fn normalise(probs: &mut [f32]) {
    let sum: f32 = probs.iter().sum();
    if sum > 0.0 {
        let inv = 1.0 / sum;
        probs.iter_mut().for_each(|v| *v *= inv);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repetition_penalty_once_per_distinct_token() {
        let mut l = vec![2.0, -2.0, 1.0];
        repetition_penalty(&mut l, &[0, 0, 1, 0], 2.0, &mut Vec::new());
        assert_eq!(l, vec![1.0, -4.0, 1.0]);
    }

    #[test]
    fn top_k_keeps_k() {
        let mut l = vec![1.0, 5.0, 3.0, 4.0];
        top_k(&mut l, 2, &mut Vec::new());
        assert_eq!(l, vec![f32::NEG_INFINITY, 5.0, f32::NEG_INFINITY, 4.0]);
    }

    #[test]
    fn top_p_keeps_the_nucleus() {
        let mut p = vec![0.5, 0.3, 0.15, 0.05];
        top_p(&mut p, 0.8, &mut Vec::new());
        assert!((p[0] - 0.625).abs() < 1e-6 && (p[1] - 0.375).abs() < 1e-6);
        assert_eq!(&p[2..], &[0.0, 0.0]);
    }

    #[test]
    fn min_p_cuts_relative_to_max() {
        let mut p = vec![0.6, 0.3, 0.1];
        min_p(&mut p, 0.2);
        assert!((p[0] - 2.0 / 3.0).abs() < 1e-6 && p[2] == 0.0);
    }

    #[test]
    fn softmax_sums_to_one() {
        let mut v = vec![1.0, 2.0, f32::NEG_INFINITY];
        softmax(&mut v);
        assert!((v.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert_eq!(v[2], 0.0);
    }
}

//! Causal attention for one query row and one head, batch-invariant by construction: the row's scores, softmax
//! and weighted sum are computed in one fixed order over its visible keys, whatever the other rows of the pass.
//!
//! Why the engine has its own: ONNX Runtime's GroupQueryAttention (CPU) multiplies a one-row pass through another
//! GEMM path than a multi-row pass, so one-token decode steps differ from the rows of a k-token verification pass
//! (measured 2e-7..5e-7 on SmolLM2's shapes, enough to flip near-ties after int8 activations), and lossless
//! speculative pipelines had to pad every decode step to two rows (docs/KERNELS.md). With this kernel and the
//! block matmul, a decode step and a verification row are the same computation.
//!
//! The math is GroupQueryAttention's with the options the decoder contract uses: rotate-half rotary embedding at
//! explicit positions, scale 1/sqrt(head_dim), an additive bias row, keys `0..=past + row` visible. The KV cache
//! holds f32 or fp16 ([`KvElem`]); fp16 halves the bytes a long context reads per token and is widened on load.

use super::half::KvElem;

/// Rotates `x` (one head, `head_dim` values) in place with rotate-half rope: `cos`/`sin` hold `head_dim / 2`
/// values for the token's position.
pub fn rope(x: &mut [f32], cos: &[f32], sin: &[f32]) {
    let half = x.len() / 2;
    let (lo, hi) = x.split_at_mut(half);
    for i in 0..half {
        let (a, b) = (lo[i], hi[i]);
        lo[i] = a * cos[i] - b * sin[i];
        hi[i] = b * cos[i] + a * sin[i];
    }
}

/// One query row against keys `0..visible` of one KV head: `out = softmax(q . k_j * scale + bias_j) v`.
///
/// `keys` and `values` hold at least `visible` rows of `q.len()` values; `bias` at least `visible` values;
/// `scores` is scratch of at least `visible` values; `out` gets `q.len()` values.
///
/// # Panics
/// If a slice is shorter than stated (the operator checks shapes first).
pub fn attend<T: KvElem>(q: &[f32], keys: &[T], values: &[T], bias: &[f32], visible: usize, scale: f32, scores: &mut [f32], out: &mut [f32]) {
    let d = q.len();
    assert!(keys.len() >= visible * d && values.len() >= visible * d && bias.len() >= visible && scores.len() >= visible);
    assert_eq!(out.len(), d);
    // A group of one head: the same code path as grouped-query attention, so the two cannot drift apart.
    attend_group(q, d, keys, values, bias, visible, scale, scores, out);
}

/// Query heads per KV head [`attend_group`] takes at once.
pub const MAX_GROUP: usize = 64;

/// [`attend`] for the `G = qs.len() / d` query heads that share one KV head (grouped-query attention): `qs` holds
/// their rotated queries (`G x d`), `scores` is scratch of at least `G x visible` values, `out` gets `G x d`. Each
/// head's result is bit for bit [`attend`]'s (the same operations in the same order for every output value: keys in
/// blocks of 8 from key 0, each lane's weighted sum in key order from zero), but the keys and values are walked in
/// blocks of 64 that every head of the group uses while they are in L1, instead of once per head from L2.
///
/// # Panics
/// If a slice is shorter than stated, `qs` is not a whole number of heads of `d`, or the group has more than
/// [`MAX_GROUP`] heads.
#[allow(clippy::too_many_arguments)]
pub fn attend_group<T: KvElem>(
    qs: &[f32],
    d: usize,
    keys: &[T],
    values: &[T],
    bias: &[f32],
    visible: usize,
    scale: f32,
    scores: &mut [f32],
    out: &mut [f32],
) {
    assert!(d > 0 && qs.len().is_multiple_of(d) && out.len() == qs.len());
    let g = qs.len() / d;
    assert!((1..=MAX_GROUP).contains(&g), "{g} query heads per KV head (at most {MAX_GROUP})");
    assert!(keys.len() >= visible * d && values.len() >= visible * d && bias.len() >= visible && scores.len() >= g * visible);
    #[cfg(target_arch = "x86_64")]
    if d.is_multiple_of(8) && super::Isa::detect().has_avx2() {
        // SAFETY: AVX2+FMA+F16C detected; lengths checked above.
        unsafe { avx2::attend_group(qs, d, keys, values, &bias[..visible], scale, &mut scores[..g * visible], out) };
        return;
    }
    for h in 0..g {
        let s = &mut scores[h * visible..(h + 1) * visible];
        attend_scalar(&qs[h * d..(h + 1) * d], keys, values, &bias[..visible], scale, s, &mut out[h * d..(h + 1) * d]);
    }
}

/// [`attend_group`] for several query rows of one pass that share a KV head (a verification pass's rows): each
/// row's results are bit for bit what [`attend_group`] gives it alone (the same operations per output value, heads
/// paired within the row as there), but the keys and values are walked in one sweep of 64-key blocks for all rows,
/// so a block read from memory serves every row while it is in L1. Row `r` (of `R = visible.len()`) has its
/// `G x d` rotated queries at `qs[r G d ..]`, sees keys `0..visible[r]` with the bias
/// `bias[r bias_stride .. + visible[r]]`, and gets its `G x d` results at `out[r out_stride ..]`. `scores` is
/// scratch of at least `G x` the sum of `visible`.
///
/// # Panics
/// If there are no rows or more than [`MAX_GROUP`] query heads in all, or a slice is shorter than stated.
#[allow(clippy::too_many_arguments)]
pub fn attend_group_rows<T: KvElem>(
    qs: &[f32],
    d: usize,
    keys: &[T],
    values: &[T],
    bias: &[f32],
    bias_stride: usize,
    visible: &[usize],
    scale: f32,
    scores: &mut [f32],
    out: &mut [f32],
    out_stride: usize,
) {
    let rows = visible.len();
    assert!(rows > 0 && d > 0 && qs.len().is_multiple_of(rows * d));
    let g = qs.len() / (rows * d);
    assert!(g > 0 && g * rows <= MAX_GROUP, "{rows} rows of {g} query heads (at most {MAX_GROUP} heads)");
    let most = visible.iter().copied().max().unwrap_or(0);
    let need: usize = visible.iter().map(|v| g * v).sum();
    assert!(visible.iter().enumerate().all(|(r, &v)| r * bias_stride + v <= bias.len()));
    assert!(out_stride >= g * d || rows == 1);
    assert!(keys.len() >= most * d && values.len() >= most * d && scores.len() >= need && out.len() >= (rows - 1) * out_stride + g * d);
    // SAFETY: every row's queries, bias, outputs and the scratch were checked to lie inside their slices, and the
    // rows' outputs do not overlap (out_stride >= G d).
    unsafe {
        attend_group_rows_raw(qs.as_ptr(), g, d, keys, values, bias.as_ptr(), bias_stride, visible, scale, scores, out.as_mut_ptr(), out_stride)
    }
}

/// [`attend_group_rows`] on raw pointers, for the attention operator, whose rows' outputs interleave with other
/// threads' (the other KV heads of the same rows).
///
/// # Safety
/// `qs` points at `visible.len() x g x d` values; row `r`'s bias at `bias + r bias_stride` holds `visible[r]`
/// values; `keys` and `values` hold the largest `visible` rows of `d` values; `scores` at least `g x` the sum of
/// `visible`; row `r`'s `g x d` outputs at `out + r out_stride` are valid for writes and written by no one else
/// during the call. `g x visible.len()` is at most [`MAX_GROUP`].
#[allow(clippy::too_many_arguments)]
pub unsafe fn attend_group_rows_raw<T: KvElem>(
    qs: *const f32,
    g: usize,
    d: usize,
    keys: &[T],
    values: &[T],
    bias: *const f32,
    bias_stride: usize,
    visible: &[usize],
    scale: f32,
    scores: &mut [f32],
    out: *mut f32,
    out_stride: usize,
) {
    #[cfg(target_arch = "x86_64")]
    if d.is_multiple_of(8) && super::Isa::detect().has_avx2() {
        // SAFETY: AVX2+FMA+F16C detected; the caller guarantees the pointers' extents.
        unsafe { avx2::attend_group_rows(qs, g, d, keys, values, bias, bias_stride, visible, scale, scores, out, out_stride) };
        return;
    }
    let mut at = 0;
    for (r, &v) in visible.iter().enumerate() {
        // SAFETY: the caller guarantees each row's extents.
        let (q, b, o) = unsafe {
            (
                std::slice::from_raw_parts(qs.add(r * g * d), g * d),
                std::slice::from_raw_parts(bias.add(r * bias_stride), v),
                std::slice::from_raw_parts_mut(out.add(r * out_stride), g * d),
            )
        };
        attend_group(q, d, keys, values, b, v, scale, &mut scores[at..at + g * v], o);
        at += g * v;
    }
}

/// The portable reference: the same steps as the SIMD path, one value at a time.
fn attend_scalar<T: KvElem>(q: &[f32], keys: &[T], values: &[T], bias: &[f32], scale: f32, scores: &mut [f32], out: &mut [f32]) {
    let d = q.len();
    for (j, s) in scores.iter_mut().enumerate() {
        let dot = q.iter().zip(&keys[j * d..(j + 1) * d]).fold(0.0f32, |acc, (x, y)| acc + x * y.widen());
        *s = dot * scale + bias[j];
    }
    let max = scores.iter().fold(f32::NEG_INFINITY, |m, &s| m.max(s));
    let mut sum = 0.0f32;
    for s in scores.iter_mut() {
        *s = (*s - max).exp();
        sum += *s;
    }
    out.fill(0.0);
    for (j, &p) in scores.iter().enumerate() {
        for (o, &x) in out.iter_mut().zip(&values[j * d..(j + 1) * d]) {
            *o += p * x.widen();
        }
    }
    let inv = 1.0 / sum;
    for o in out.iter_mut() {
        *o *= inv;
    }
}

#[cfg(target_arch = "x86_64")]
pub(super) mod avx2 {
    use std::arch::x86_64::*;

    use super::KvElem;

    /// Keys per block of [`attend_group`]: 64 rows of 64 f32 values are 16 KB, which stay in L1 for the group.
    const KEY_BLOCK: usize = 64;

    /// See [`super::attend_group`] (and [`super::attend`], a group of one): one row of [`attend_group_rows`].
    #[target_feature(enable = "avx2,fma,f16c")]
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn attend_group<T: KvElem>(
        qs: &[f32],
        d: usize,
        keys: &[T],
        values: &[T],
        bias: &[f32],
        scale: f32,
        scores: &mut [f32],
        out: &mut [f32],
    ) {
        let g = qs.len() / d;
        // SAFETY: the caller checked the lengths: one row of `g x d` queries and outputs, `bias.len()` keys.
        unsafe { attend_group_rows(qs.as_ptr(), g, d, keys, values, bias.as_ptr(), 0, &[bias.len()], scale, scores, out.as_mut_ptr(), g * d) }
    }

    /// See [`super::attend_group_rows`] (and [`super::attend_group`], one row). Scores: per key block, for each row
    /// that still sees keys there, its heads two at a time, 4 keys x 2 heads per step (an odd last head: 8 keys at
    /// a time), each key's dot product the same 8-lane FMA chain and reduction tree however many keys are reduced
    /// together, a row's last block's tail one key at a time; then each row's heads take a vectorized softmax over
    /// their own keys; the weighted sum per key block, each row's heads two per walk over 32 columns (an odd head
    /// or columns left over: one head over up to 64): the accumulators are loaded from the output, advanced over the
    /// block's keys in order and stored back (a store and reload does not round), then scaled once at the end. So a
    /// row's values are the same whatever rows share its sweep, and a block read from memory serves every row while
    /// it is in L1. Pairing the heads took SmolLM2's group of 3 over 256 cached keys from ~3.4 to ~2.8 us (AMD Zen
    /// 4, one thread, 2026-12-05): the loops were bound by loads (1 query + 8 keys, or 8 values + 1 weight, per 8
    /// FMAs), pairs share them. Measured on SmolLM2 at 2,000 cached tokens, the per-key scalar form (hsum per key,
    /// libm exp, out loaded and stored per key) cost ~0.5 ms per layer, and a column-outer weighted sum (each
    /// 256-byte value row read 8 times, 32 bytes at a time) lost the values from L2 between walks; each output lane
    /// still accumulates p_j * v_j in key order from zero.
    #[target_feature(enable = "avx2,fma,f16c")]
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn attend_group_rows<T: KvElem>(
        qs: *const f32,
        g: usize,
        d: usize,
        keys: &[T],
        values: &[T],
        bias: *const f32,
        bias_stride: usize,
        visible: &[usize],
        scale: f32,
        scores: &mut [f32],
        out: *mut f32,
        out_stride: usize,
    ) {
        let most = visible.iter().copied().max().unwrap_or(0);
        // SAFETY: see `attend_group_rows_raw`; each row's scores are its own `g x visible` run of `scores`.
        unsafe {
            let q_of = |r: usize| std::slice::from_raw_parts(qs.add(r * g * d), g * d);
            let bias_of = |r: usize| std::slice::from_raw_parts(bias.add(r * bias_stride), visible[r]);
            let mut from = 0;
            while from < most {
                let mut at = 0;
                for (r, &v) in visible.iter().enumerate() {
                    let sc = &mut scores[at..at + g * v];
                    at += g * v;
                    if from >= v {
                        continue;
                    }
                    let (q, b, to) = (q_of(r), bias_of(r), (from + KEY_BLOCK).min(v));
                    let mut h = 0;
                    while h + 2 <= g {
                        score_pair(q, d, keys, b, scale, sc, v, h, from, to);
                        h += 2;
                    }
                    if h < g {
                        score_one(q.as_ptr().add(h * d), d, keys, b, scale, sc.as_mut_ptr().add(h * v), from, to);
                    }
                }
                from += KEY_BLOCK;
            }
            let mut inv = [0f32; super::MAX_GROUP];
            let mut at = 0;
            for (r, &v) in visible.iter().enumerate() {
                for h in 0..g {
                    inv[r * g + h] = 1.0 / softmax_in_place(&mut scores[at + h * v..at + (h + 1) * v]);
                }
                at += g * v;
                std::slice::from_raw_parts_mut(out.add(r * out_stride), g * d).fill(0.0);
            }
            let mut from = 0;
            while from < most {
                let mut at = 0;
                for (r, &v) in visible.iter().enumerate() {
                    let sc = &scores[at..at + g * v];
                    at += g * v;
                    if from >= v {
                        continue;
                    }
                    let to = (from + KEY_BLOCK).min(v);
                    let o = std::slice::from_raw_parts_mut(out.add(r * out_stride), g * d);
                    let mut h = 0;
                    while h + 2 <= g {
                        let (p0, p1) = (&sc[h * v + from..h * v + to], &sc[(h + 1) * v + from..(h + 1) * v + to]);
                        let (o0, o1) = o[h * d..(h + 2) * d].split_at_mut(d);
                        let mut c = 0;
                        while c + 32 <= d {
                            accumulate_pair(p0, p1, values, from, d, c, o0, o1);
                            c += 32;
                        }
                        accumulate_columns(p0, values, from, d, c, o0);
                        accumulate_columns(p1, values, from, d, c, o1);
                        h += 2;
                    }
                    if h < g {
                        accumulate_columns(&sc[h * v + from..h * v + to], values, from, d, 0, &mut o[h * d..(h + 1) * d]);
                    }
                }
                from += KEY_BLOCK;
            }
            for r in 0..visible.len() {
                for h in 0..g {
                    let iv = _mm256_set1_ps(inv[r * g + h]);
                    let o = out.add(r * out_stride + h * d);
                    let mut c = 0;
                    while c < d {
                        _mm256_storeu_ps(o.add(c), _mm256_mul_ps(_mm256_loadu_ps(o.add(c)), iv));
                        c += 8;
                    }
                }
            }
        }
    }

    /// Scores of keys `from..to` for one head (query at `q`, scores row at `sc`): 8 keys at a time (8 dot products
    /// reduced together by [`hsum8`]), the tail one key at a time through the same tree.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn score_one<T: KvElem>(q: *const f32, d: usize, keys: &[T], bias: &[f32], scale: f32, sc: *mut f32, from: usize, to: usize) {
        // SAFETY: the caller checked that `keys` holds `to` rows of `d` values, `bias` and the scores row `to` values.
        unsafe {
            let mut j = from;
            while j + 8 <= to {
                let mut acc = [_mm256_setzero_ps(); 8];
                let mut c = 0;
                while c < d {
                    let qc = _mm256_loadu_ps(q.add(c));
                    for (t, a) in acc.iter_mut().enumerate() {
                        *a = _mm256_fmadd_ps(qc, T::load8(keys.as_ptr().add((j + t) * d + c)), *a);
                    }
                    c += 8;
                }
                let s = _mm256_fmadd_ps(hsum8(acc), _mm256_set1_ps(scale), _mm256_loadu_ps(bias.as_ptr().add(j)));
                _mm256_storeu_ps(sc.add(j), s);
                j += 8;
            }
            while j < to {
                *sc.add(j) = score_key(q, d, keys, j).mul_add(scale, bias[j]);
                j += 1;
            }
        }
    }

    /// Scores of keys `from..to` for heads `h` and `h + 1`: 4 keys x 2 heads at a time (8 accumulators, each key
    /// chunk loaded once for both heads), each reduced by [`hsum4`] (the first half of [`hsum8`]'s tree); the tail
    /// one key at a time.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn score_pair<T: KvElem>(
        qs: &[f32],
        d: usize,
        keys: &[T],
        bias: &[f32],
        scale: f32,
        scores: &mut [f32],
        visible: usize,
        h: usize,
        from: usize,
        to: usize,
    ) {
        // SAFETY: as [`score_one`], for two heads' query and scores rows.
        unsafe {
            let (q0, q1) = (qs.as_ptr().add(h * d), qs.as_ptr().add((h + 1) * d));
            let (s0, s1) = (scores.as_mut_ptr().add(h * visible), scores.as_mut_ptr().add((h + 1) * visible));
            let (scale4, mut j) = (_mm_set1_ps(scale), from);
            while j + 4 <= to {
                let (mut a0, mut a1) = ([_mm256_setzero_ps(); 4], [_mm256_setzero_ps(); 4]);
                let mut c = 0;
                while c < d {
                    let (x0, x1) = (_mm256_loadu_ps(q0.add(c)), _mm256_loadu_ps(q1.add(c)));
                    for t in 0..4 {
                        let k = T::load8(keys.as_ptr().add((j + t) * d + c));
                        a0[t] = _mm256_fmadd_ps(x0, k, a0[t]);
                        a1[t] = _mm256_fmadd_ps(x1, k, a1[t]);
                    }
                    c += 8;
                }
                let b = _mm_loadu_ps(bias.as_ptr().add(j));
                _mm_storeu_ps(s0.add(j), _mm_fmadd_ps(hsum4(a0), scale4, b));
                _mm_storeu_ps(s1.add(j), _mm_fmadd_ps(hsum4(a1), scale4, b));
                j += 4;
            }
            while j < to {
                *s0.add(j) = score_key(q0, d, keys, j).mul_add(scale, bias[j]);
                *s1.add(j) = score_key(q1, d, keys, j).mul_add(scale, bias[j]);
                j += 1;
            }
        }
    }

    /// One key's dot product with the query at `q`: the 8-lane FMA chain, reduced by [`hsum8`]'s tree.
    #[inline(always)]
    unsafe fn score_key<T: KvElem>(q: *const f32, d: usize, keys: &[T], j: usize) -> f32 {
        // SAFETY: the caller checked that `keys` holds row `j` of `d` values and `q` points at `d` values.
        unsafe {
            let mut a = _mm256_setzero_ps();
            let mut c = 0;
            while c < d {
                a = _mm256_fmadd_ps(_mm256_loadu_ps(q.add(c)), T::load8(keys.as_ptr().add(j * d + c)), a);
                c += 8;
            }
            _mm256_cvtss_f32(hsum8([a, a, a, a, a, a, a, a]))
        }
    }

    /// `o[c0..d] += sum_j p[j] * values[from + j, c0..d]` in key order, up to 64 columns per walk.
    #[inline(always)]
    unsafe fn accumulate_columns<T: KvElem>(p: &[f32], values: &[T], from: usize, d: usize, c0: usize, o: &mut [f32]) {
        // SAFETY: forwarded from the caller (`values` holds `from + p.len()` rows of `d` values).
        unsafe {
            let mut c = c0;
            while c < d {
                let width = (d - c).min(64) / 8;
                match width {
                    8 => accumulate::<T, 8>(p, values, from, d, c, o),
                    7 => accumulate::<T, 7>(p, values, from, d, c, o),
                    6 => accumulate::<T, 6>(p, values, from, d, c, o),
                    5 => accumulate::<T, 5>(p, values, from, d, c, o),
                    4 => accumulate::<T, 4>(p, values, from, d, c, o),
                    3 => accumulate::<T, 3>(p, values, from, d, c, o),
                    2 => accumulate::<T, 2>(p, values, from, d, c, o),
                    _ => accumulate::<T, 1>(p, values, from, d, c, o),
                }
                c += width * 8;
            }
        }
    }

    /// [`accumulate`] for two heads over columns `c0..c0 + 32`: each value chunk loaded once, used by both.
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    #[allow(clippy::too_many_arguments)]
    unsafe fn accumulate_pair<T: KvElem>(p0: &[f32], p1: &[f32], values: &[T], from: usize, d: usize, c0: usize, o0: &mut [f32], o1: &mut [f32]) {
        // SAFETY: the caller checked that `values` holds `from + p0.len()` rows of `d` values, `c0 + 32 <= d`,
        // `p1.len() == p0.len()` and both output rows hold `d` values.
        unsafe {
            let (mut a0, mut a1) = ([_mm256_setzero_ps(); 4], [_mm256_setzero_ps(); 4]);
            for t in 0..4 {
                a0[t] = _mm256_loadu_ps(o0.as_ptr().add(c0 + t * 8));
                a1[t] = _mm256_loadu_ps(o1.as_ptr().add(c0 + t * 8));
            }
            for j in 0..p0.len() {
                let (w0, w1) = (_mm256_set1_ps(*p0.get_unchecked(j)), _mm256_set1_ps(*p1.get_unchecked(j)));
                let row = values.as_ptr().add((from + j) * d + c0);
                for t in 0..4 {
                    let v = T::load8(row.add(t * 8));
                    a0[t] = _mm256_fmadd_ps(w0, v, a0[t]);
                    a1[t] = _mm256_fmadd_ps(w1, v, a1[t]);
                }
            }
            for t in 0..4 {
                _mm256_storeu_ps(o0.as_mut_ptr().add(c0 + t * 8), a0[t]);
                _mm256_storeu_ps(o1.as_mut_ptr().add(c0 + t * 8), a1[t]);
            }
        }
    }

    /// `acc[c0 .. c0 + 8N] += sum_j p[j] * values[from + j, c0 .. c0 + 8N]` in key order, `acc` (a head's output
    /// row) loaded once and stored once.
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn accumulate<T: KvElem, const N: usize>(p: &[f32], values: &[T], from: usize, d: usize, c0: usize, acc_row: &mut [f32]) {
        // SAFETY: the caller checked that `values` holds `from + p.len()` rows of `d` values and `c0 + 8N <= d`.
        unsafe {
            let mut acc = [_mm256_setzero_ps(); N];
            for (t, a) in acc.iter_mut().enumerate() {
                *a = _mm256_loadu_ps(acc_row.as_ptr().add(c0 + t * 8));
            }
            for (j, &pj) in p.iter().enumerate() {
                let pv = _mm256_set1_ps(pj);
                let row = values.as_ptr().add((from + j) * d + c0);
                for (t, a) in acc.iter_mut().enumerate() {
                    *a = _mm256_fmadd_ps(pv, T::load8(row.add(t * 8)), *a);
                }
            }
            for (t, a) in acc.iter().enumerate() {
                _mm256_storeu_ps(acc_row.as_mut_ptr().add(c0 + t * 8), *a);
            }
        }
    }

    /// `scores[j] = exp(scores[j] - max)` in place; returns their sum: [`attend`]'s softmax steps exactly.
    ///
    /// The sum's lanes follow the ordinal of each NON-ZERO term, not the key index: term number m (counting only
    /// the terms that are not exactly 0) goes to lane m mod 8. Without exact zeros this is the key index. With
    /// them (keys hidden by the mask, whose exp is exactly 0, or scores that underflow), a row sums exactly what it
    /// would sum over its visible keys alone, laid out contiguously. That is what makes a token-tree node bitwise
    /// equal to the chain pass over its own path: its ancestors sit at other key indices with siblings masked in
    /// between, and with lanes by key index the same terms were grouped differently (docs/KERNELS.md "Side
    /// branches exact"). The scores and the weighted sum already were: one key at a time, zeros adding nothing.
    #[inline(always)]
    unsafe fn softmax_in_place(scores: &mut [f32]) -> f32 {
        let visible = scores.len();
        // SAFETY: loads inside `scores` (8 at a time, the tail through a padded copy); the caller's target features.
        unsafe {
            let mut maxv = _mm256_set1_ps(f32::NEG_INFINITY);
            let mut j = 0;
            while j + 8 <= visible {
                maxv = _mm256_max_ps(maxv, _mm256_loadu_ps(scores.as_ptr().add(j)));
                j += 8;
            }
            let mut max = hmax(maxv);
            for &s in &scores[j..] {
                max = max.max(s);
            }
            let mv = _mm256_set1_ps(max);
            let zero = _mm256_setzero_ps();
            let mut sumv = zero;
            // The first chunk holding an exact zero among the real terms (the tail's padding lanes are not terms),
            // and the sum of the chunks before it.
            let mut first_zero: Option<(usize, __m256)> = None;
            let mut j = 0;
            // Whole chunks in place; only the tail goes through a padded copy (its -inf lanes add exp = 0). The copy
            // for every chunk cost ~7% of attention in memmove calls (perf, SmolLM2 shapes, 2026-12-05).
            while j + 8 <= visible {
                let e = exp(_mm256_sub_ps(_mm256_loadu_ps(scores.as_ptr().add(j)), mv));
                _mm256_storeu_ps(scores.as_mut_ptr().add(j), e);
                if first_zero.is_none() && _mm256_movemask_ps(_mm256_cmp_ps(e, zero, _CMP_EQ_OQ)) != 0 {
                    first_zero = Some((j, sumv));
                }
                sumv = _mm256_add_ps(sumv, e);
                j += 8;
            }
            if j < visible {
                let n = visible - j;
                let mut chunk = [f32::NEG_INFINITY; 8];
                chunk[..n].copy_from_slice(&scores[j..]);
                let e = exp(_mm256_sub_ps(_mm256_loadu_ps(chunk.as_ptr()), mv));
                _mm256_storeu_ps(chunk.as_mut_ptr(), e);
                scores[j..].copy_from_slice(&chunk[..n]);
                if first_zero.is_none() && _mm256_movemask_ps(_mm256_cmp_ps(e, zero, _CMP_EQ_OQ)) & ((1 << n) - 1) != 0 {
                    first_zero = Some((j, sumv));
                }
                sumv = _mm256_add_ps(sumv, e);
            }
            match first_zero {
                // No zero term: ordinals are key indices (every causal decode row and chain row without underflow).
                None => hsum(sumv),
                // Before the first zero, ordinals are still key indices: only the rest is compacted (in a tree row
                // the masked keys are the pass's own few rows, so the scalar part is a few dozen terms at most).
                Some((from, before)) => sum_nonzero(&scores[from..], before),
            }
        }
    }

    /// `sumv` (the lane sums of the chunks before `terms`, which start at a chunk boundary) plus the non-zero
    /// values of `terms`, the m-th of them in lane m mod 8 (chunks of 8 added in order, the last padded with
    /// zeros), reduced by [`hsum`]: the sum whose lanes follow the non-zero ordinals, given no zero term before
    /// `terms`. Over a slice without zeros, exactly the fast path's sum in [`softmax_in_place`].
    #[inline(always)]
    unsafe fn sum_nonzero(terms: &[f32], sumv: __m256) -> f32 {
        // SAFETY: register-only intrinsics and loads from a local array, under the caller's target features.
        unsafe {
            let mut sumv = sumv;
            let mut chunk = [0f32; 8];
            let mut n = 0;
            for &t in terms {
                if t != 0.0 {
                    chunk[n] = t;
                    n += 1;
                    if n == 8 {
                        sumv = _mm256_add_ps(sumv, _mm256_loadu_ps(chunk.as_ptr()));
                        n = 0;
                    }
                }
            }
            if n > 0 {
                chunk[n..].fill(0.0);
                sumv = _mm256_add_ps(sumv, _mm256_loadu_ps(chunk.as_ptr()));
            }
            hsum(sumv)
        }
    }

    /// Lane t = the sum of the 8 lanes of v[t].
    #[inline(always)]
    unsafe fn hsum8(v: [__m256; 8]) -> __m256 {
        // SAFETY: register-only intrinsics under the caller's target features.
        unsafe {
            let a = _mm256_hadd_ps(v[0], v[1]);
            let b = _mm256_hadd_ps(v[2], v[3]);
            let c = _mm256_hadd_ps(v[4], v[5]);
            let e = _mm256_hadd_ps(v[6], v[7]);
            let ab = _mm256_hadd_ps(a, b);
            let ce = _mm256_hadd_ps(c, e);
            // ab = [s0 s1 s2 s3 | s0' s1' s2' s3'] (low/high 128-bit halves of each key's sum), likewise ce.
            let lo = _mm256_permute2f128_ps(ab, ce, 0x20);
            let hi = _mm256_permute2f128_ps(ab, ce, 0x31);
            _mm256_add_ps(lo, hi)
        }
    }

    /// Lane t = the sum of the 8 lanes of v[t] for 4 vectors: the same tree as [`hsum8`] (pairs within each 128-bit
    /// half, then the two halves), so a key's score does not depend on how many keys were reduced with it.
    #[inline(always)]
    unsafe fn hsum4(v: [__m256; 4]) -> __m128 {
        // SAFETY: register-only intrinsics under the caller's target features.
        unsafe {
            let ab = _mm256_hadd_ps(_mm256_hadd_ps(v[0], v[1]), _mm256_hadd_ps(v[2], v[3]));
            _mm_add_ps(_mm256_castps256_ps128(ab), _mm256_extractf128_ps(ab, 1))
        }
    }

    #[inline(always)]
    unsafe fn hsum(v: __m256) -> f32 {
        let s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        let s = _mm_add_ps(s, _mm_movehl_ps(s, s));
        _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)))
    }

    #[inline(always)]
    unsafe fn hmax(v: __m256) -> f32 {
        let s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        let s = _mm_max_ps(s, _mm_movehl_ps(s, s));
        _mm_cvtss_f32(_mm_max_ss(s, _mm_movehdup_ps(s)))
    }

    /// e^x for 8 lanes (Cephes' single-precision polynomial, relative error ~2e-7; its last coefficient
    /// 5.0000001201e-1 is 0.5 in f32); 0 below -87.
    #[inline(always)]
    pub(crate) unsafe fn exp(x: __m256) -> __m256 {
        // SAFETY: register-only intrinsics under the caller's target features.
        unsafe {
            let small = _mm256_cmp_ps(x, _mm256_set1_ps(-87.0), _CMP_LT_OQ);
            let x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.0)), _mm256_set1_ps(88.0));
            let fx = _mm256_floor_ps(_mm256_fmadd_ps(x, _mm256_set1_ps(std::f32::consts::LOG2_E), _mm256_set1_ps(0.5)));
            let x = _mm256_fnmadd_ps(fx, _mm256_set1_ps(0.693_359_4), x);
            let x = _mm256_fnmadd_ps(fx, _mm256_set1_ps(-2.121_944_4e-4), x);
            let mut y = _mm256_set1_ps(1.987_569_1e-4);
            for c in [1.398_199_9e-3, 8.333_452e-3, 4.166_579_6e-2, 1.666_666_5e-1, 0.5] {
                y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(c));
            }
            y = _mm256_fmadd_ps(y, _mm256_mul_ps(x, x), _mm256_add_ps(x, _mm256_set1_ps(1.0)));
            let pow2 = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvttps_epi32(fx), _mm256_set1_epi32(127)), 23);
            _mm256_andnot_ps(small, _mm256_mul_ps(y, _mm256_castsi256_ps(pow2)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(n: usize, seed: usize) -> Vec<f32> {
        (0..n).map(|i| (((i * 7919 + seed * 104_729) % 1009) as f32 / 1009.0 - 0.5) * 2.0).collect()
    }

    #[test]
    fn attention_matches_a_float64_softmax() {
        // head dims 64 (SmolLM2: one walk over the values), 128 (Qwen: two), 72 and 8 (partial walks)
        for (d, t) in [(64, 37), (128, 45), (72, 19), (8, 11)] {
            matches_a_float64_softmax(d, t);
        }
    }

    fn matches_a_float64_softmax(d: usize, t: usize) {
        let (q, k, v) = (data(d, 1), data(t * d, 2), data(t * d, 3));
        let mut bias = vec![0.0f32; t];
        bias[5] = -1.0e9; // a hidden key (the engine's mask value is large and finite)
        bias[9] = 0.75;
        let mut scores = vec![0.0; t];
        let mut out = vec![0.0; d];
        let scale = 1.0 / (d as f32).sqrt();
        attend(&q, &k, &v, &bias, t, scale, &mut scores, &mut out);
        let s: Vec<f64> =
            (0..t).map(|j| (0..d).map(|c| f64::from(q[c]) * f64::from(k[j * d + c])).sum::<f64>() * f64::from(scale) + f64::from(bias[j])).collect();
        let m = s.iter().cloned().fold(f64::MIN, f64::max);
        let e: Vec<f64> = s.iter().map(|x| (x - m).exp()).collect();
        let z: f64 = e.iter().sum();
        for c in 0..d {
            let want: f64 = (0..t).map(|j| e[j] / z * f64::from(v[j * d + c])).sum();
            assert!((f64::from(out[c]) - want).abs() < 1e-5, "d {d}, column {c}: {} vs {want}", out[c]);
        }
        assert!(e[5] / z < 1e-30, "the hidden key must get no weight");
    }

    #[test]
    fn an_fp16_cache_gives_the_f32_result_on_its_widened_values() {
        use crate::kernels::half::F16;
        let (d, t) = (64, 29);
        let (q, k, v) = (data(d, 4), data(t * d, 5), data(t * d, 6));
        let (k16, v16): (Vec<F16>, Vec<F16>) = (k.iter().map(|&x| F16::narrow(x)).collect(), v.iter().map(|&x| F16::narrow(x)).collect());
        let (kw, vw): (Vec<f32>, Vec<f32>) = (k16.iter().map(|x| x.widen()).collect(), v16.iter().map(|x| x.widen()).collect());
        let bias = vec![0.0f32; t];
        let scale = 1.0 / (d as f32).sqrt();
        let (mut s1, mut s2, mut o1, mut o2, mut o3) = (vec![0.0; t], vec![0.0; t], vec![0.0; d], vec![0.0; d], vec![0.0; d]);
        attend(&q, &k16, &v16, &bias, t, scale, &mut s1, &mut o1);
        attend(&q, &kw, &vw, &bias, t, scale, &mut s2, &mut o2);
        // reading fp16 is exactly reading its widened f32 values
        assert_eq!(o1, o2);
        // and differs from the unrounded cache (negative control: the rounding is real)
        attend(&q, &k, &v, &bias, t, scale, &mut s2, &mut o3);
        assert_ne!(o1, o3);
        assert!(o1.iter().zip(&o3).all(|(a, b)| (a - b).abs() < 2e-3), "fp16 rounding stays small");
    }

    #[test]
    fn a_group_of_heads_computes_each_head_bit_for_bit_as_attend() {
        use crate::kernels::half::F16;
        // SmolLM2 (3 heads per KV head, d 64), Qwen (6, d 128), one head; key counts across block and tail edges
        // (heads pair up two by two with an odd one alone; d 8 and 72 leave columns outside the pairs' 32-wide walks)
        for (g, d, t) in [(3, 64, 150), (6, 128, 67), (1, 64, 9), (3, 64, 64), (2, 72, 130), (4, 8, 13), (5, 128, 261), (2, 64, 5)] {
            let (qs, k, v) = (data(g * d, 7), data(t * d, 8), data(t * d, 9));
            let mut bias = data(t, 10);
            bias[3] = -1.0e9;
            let scale = 1.0 / (d as f32).sqrt();
            let mut want = vec![0.0; g * d];
            let mut scratch = vec![0.0; t];
            for h in 0..g {
                attend(&qs[h * d..(h + 1) * d], &k, &v, &bias, t, scale, &mut scratch, &mut want[h * d..(h + 1) * d]);
            }
            let (mut got, mut scores) = (vec![1.0; g * d], vec![0.0; g * t]);
            attend_group(&qs, d, &k, &v, &bias, t, scale, &mut scores, &mut got);
            assert!(got.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits()), "g {g} d {d} t {t}");
            let (k16, v16): (Vec<F16>, Vec<F16>) = (k.iter().map(|&x| F16::narrow(x)).collect(), v.iter().map(|&x| F16::narrow(x)).collect());
            for h in 0..g {
                attend(&qs[h * d..(h + 1) * d], &k16, &v16, &bias, t, scale, &mut scratch, &mut want[h * d..(h + 1) * d]);
            }
            attend_group(&qs, d, &k16, &v16, &bias, t, scale, &mut scores, &mut got);
            assert!(got.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits()), "fp16, g {g} d {d} t {t}");
        }
        // negative control: a different scale is visible in the result
        let (qs, k, v) = (data(128, 1), data(20 * 64, 2), data(20 * 64, 3));
        let bias = vec![0.0; 20];
        let (mut a, mut b, mut s) = (vec![0.0; 128], vec![0.0; 128], vec![0.0; 40]);
        attend_group(&qs, 64, &k, &v, &bias, 20, 0.125, &mut s, &mut a);
        attend_group(&qs, 64, &k, &v, &bias, 20, 0.126, &mut s, &mut b);
        assert_ne!(a, b);
    }

    /// Several rows of a pass in one sweep give each row what `attend_group` gives it alone, bit for bit: rows of
    /// a verification chain (past + s + 1 keys each) and of a token tree (some keys hidden), key counts across the
    /// 8-lane chunks and the 64-key blocks, groups of 1 to 6 heads, f32 and fp16 caches. The control: rows given
    /// one another's biases differ, so the test sees each row's own keys.
    #[test]
    fn rows_in_one_sweep_compute_each_row_bit_for_bit_as_alone() {
        use crate::kernels::half::F16;
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut controls = 0;
        for case in 0..120 {
            let (g, d) = [(3, 64), (6, 128), (1, 64), (2, 8), (5, 72)][case % 5];
            let n_rows = 1 + (next() % (MAX_GROUP / g).min(9) as u64) as usize;
            let past = (next() % 140) as usize;
            let t = past + n_rows;
            let (k, v) = (data(t * d, case + 1), data(t * d, case + 2));
            let qs: Vec<Vec<f32>> = (0..n_rows).map(|r| data(g * d, 1000 * case + r)).collect();
            let tree = case % 2 == 1;
            let biases: Vec<Vec<f32>> = (0..n_rows)
                .map(|r| {
                    let visible = past + r + 1;
                    (0..visible)
                        .map(|j| if tree && j >= past && j + 1 < visible && next() % 2 == 0 { HIDDEN_BIAS } else { 0.01 * (j % 7) as f32 })
                        .collect()
                })
                .collect();
            let scale = 1.0 / (d as f32).sqrt();
            let total: usize = biases.iter().map(|b| g * b.len()).sum();
            let alone = |k: &[f32], v: &[f32]| -> Vec<Vec<f32>> {
                (0..n_rows)
                    .map(|r| {
                        let visible = biases[r].len();
                        let (mut out, mut sc) = (vec![0.0; g * d], vec![0.0; g * visible]);
                        attend_group(&qs[r], d, k, v, &biases[r], visible, scale, &mut sc, &mut out);
                        out
                    })
                    .collect()
            };
            // the rows' inputs as the operator lays them out: queries contiguous, bias rows and outputs strided
            let stride = t + 3;
            let mut bias_rows = vec![f32::NAN; n_rows * stride];
            for (r, b) in biases.iter().enumerate() {
                bias_rows[r * stride..r * stride + b.len()].copy_from_slice(b);
            }
            let visible: Vec<usize> = biases.iter().map(Vec::len).collect();
            let out_stride = g * d + 5;
            let lay = RowsLayout { g, d, bias_rows: &bias_rows, stride, visible: &visible, scale, total, out_stride };
            let swept = |qs: &[Vec<f32>], k: &[f32], v: &[f32]| lay.sweep(qs, k, v, case);
            let same = |a: &[Vec<f32>], b: &[Vec<f32>]| a.iter().flatten().zip(b.iter().flatten()).all(|(x, y)| x.to_bits() == y.to_bits());
            assert!(same(&swept(&qs, &k, &v), &alone(&k, &v)), "case {case}: g {g} d {d} past {past} rows {n_rows}");
            let half = |x: &[f32]| -> Vec<F16> { x.iter().map(|&y| F16::narrow(y)).collect() };
            let (k16, v16) = (half(&k), half(&v));
            let got16 = lay.sweep(&qs, &k16, &v16, case);
            for (r, got) in got16.iter().enumerate() {
                let (mut want, mut sc) = (vec![0.0; g * d], vec![0.0; g * visible[r]]);
                attend_group(&qs[r], d, &k16, &v16, &biases[r], visible[r], scale, &mut sc, &mut want);
                assert!(got.iter().zip(&want).all(|(x, y)| x.to_bits() == y.to_bits()), "fp16 case {case} row {r}");
            }
            if n_rows > 1 {
                // the control: the first two rows' queries swapped (each attends with the other's query over its
                // own keys) gives other results
                let mut swapped = qs.clone();
                swapped.swap(0, 1);
                controls += usize::from(!same(&swept(&swapped, &k, &v), &alone(&k, &v)));
            }
        }
        assert!(controls > 50, "only {controls} swapped-query controls differ");
    }

    /// The operator's layout of a pass's rows for [`attend_group_rows`] (test helper).
    struct RowsLayout<'a> {
        g: usize,
        d: usize,
        bias_rows: &'a [f32],
        stride: usize,
        visible: &'a [usize],
        scale: f32,
        total: usize,
        out_stride: usize,
    }

    impl RowsLayout<'_> {
        /// The rows attended in one sweep; checks that nothing was written between the rows' outputs.
        fn sweep<T: KvElem>(&self, qs: &[Vec<f32>], k: &[T], v: &[T], case: usize) -> Vec<Vec<f32>> {
            let (g, d, n_rows) = (self.g, self.d, self.visible.len());
            let flat: Vec<f32> = qs.concat();
            let mut out = vec![7.0; n_rows * self.out_stride];
            let mut scores = vec![0.0; self.total];
            attend_group_rows(&flat, d, k, v, self.bias_rows, self.stride, self.visible, self.scale, &mut scores, &mut out, self.out_stride);
            for r in 0..n_rows {
                assert!(out[r * self.out_stride + g * d..(r + 1) * self.out_stride].iter().all(|&x| x == 7.0), "case {case}: wrote past row {r}");
            }
            (0..n_rows).map(|r| out[r * self.out_stride..r * self.out_stride + g * d].to_vec()).collect()
        }
    }

    /// A row whose keys are partly hidden by the mask (a token-tree node: siblings and cousins between its
    /// ancestors) must give bit for bit what the same row gives over its visible keys alone, laid out contiguously
    /// (the chain pass over the node's own path). Masks at random places, key counts across the 8-lane chunks and
    /// the 64-key blocks, groups of 1 to 6 heads, f32 and fp16 caches; and one row whose scores underflow without
    /// a mask. Before the sum's lanes followed the non-zero ordinal this failed (lanes by key index: 1-2 ulp).
    #[test]
    fn hidden_keys_change_no_bit_of_a_row() {
        use crate::kernels::half::F16;
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut differing_before = 0;
        for case in 0..300 {
            let (g, d) = [(3, 64), (6, 128), (1, 64), (2, 8)][case % 4];
            let t = 2 + (next() % 150) as usize;
            let (qs, k, v) = (data(g * d, case), data(t * d, case + 1), data(t * d, case + 2));
            // The newest key (the node itself) is always visible, as in a tree row.
            let visible: Vec<usize> = (0..t).filter(|&j| j + 1 == t || next() % 3 != 0).collect();
            let mut bias = vec![HIDDEN_BIAS; t];
            for &j in &visible {
                bias[j] = 0.0;
            }
            let scale = 1.0 / (d as f32).sqrt();
            let gather = |x: &[f32]| -> Vec<f32> { visible.iter().flat_map(|&j| x[j * d..(j + 1) * d].to_vec()).collect() };
            let (kc, vc) = (gather(&k), gather(&v));
            let n = visible.len();
            let run = |k: &[f32], v: &[f32], bias: &[f32], t: usize| {
                let (mut out, mut scores) = (vec![0.0; g * d], vec![0.0; g * t]);
                attend_group(&qs, d, k, v, bias, t, scale, &mut scores, &mut out);
                out
            };
            let masked = run(&k, &v, &bias, t);
            let compact = run(&kc, &vc, &vec![0.0; n], n);
            assert!(masked.iter().zip(&compact).all(|(a, b)| a.to_bits() == b.to_bits()), "case {case}: g {g} d {d} t {t}, {n} visible");
            differing_before += usize::from(n < t && lanes_by_key_index_differ(&qs[..d], &k, &bias, &kc, scale));
            let half = |x: &[f32]| -> Vec<F16> { x.iter().map(|&y| F16::narrow(y)).collect() };
            let (k16, v16, kc16, vc16) = (half(&k), half(&v), half(&kc), half(&vc));
            let (mut a, mut b, mut s1, mut s2) = (vec![0.0; g * d], vec![0.0; g * d], vec![0.0; g * t], vec![0.0; g * n]);
            attend_group(&qs, d, &k16, &v16, &bias, t, scale, &mut s1, &mut a);
            attend_group(&qs, d, &kc16, &vc16, &vec![0.0; n], n, scale, &mut s2, &mut b);
            assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()), "fp16 case {case}");
        }
        // The control: summing by key index (the old lanes) gives other bits for many of these rows, so the
        // property above is not an accident of the data.
        if crate::kernels::Isa::detect().has_avx2() {
            assert!(differing_before > 20, "only {differing_before} of 300 rows differ with lanes by key index");
        }
        // A row whose scores underflow (exp exactly 0) without any mask: the same rule, the same bits as the
        // row over its non-underflowing keys.
        let d = 64;
        let q = vec![1.0f32; d];
        let mut k = data(20 * d, 3);
        for j in [2usize, 9, 10] {
            k[j * d..(j + 1) * d].fill(-30.0); // scores ~ -240 below the others: exp underflows to 0
        }
        let v = data(20 * d, 4);
        let keep: Vec<usize> = (0..20).filter(|j| ![2, 9, 10].contains(j)).collect();
        let gather = |x: &[f32]| -> Vec<f32> { keep.iter().flat_map(|&j| x[j * d..(j + 1) * d].to_vec()).collect() };
        let (mut a, mut b, mut s) = (vec![0.0; d], vec![0.0; d], vec![0.0; 20]);
        attend(&q, &k, &v, &[0.0; 20], 20, 0.125, &mut s, &mut a);
        attend(&q, &gather(&k), &gather(&v), &[0.0; 17], 17, 0.125, &mut s, &mut b);
        assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()));
    }

    /// The engine's mask value (engine/model/mask.rs `HIDDEN`).
    const HIDDEN_BIAS: f32 = -1.0e9;

    /// Whether the softmax denominator summed with lanes by KEY INDEX (the kernel before hidden keys were
    /// skipped) differs from the one over the compacted keys: the negative control of the test above.
    fn lanes_by_key_index_differ(q: &[f32], k: &[f32], bias: &[f32], kc: &[f32], scale: f32) -> bool {
        let d = q.len();
        let scores = |k: &[f32], bias: Option<&[f32]>| -> Vec<f32> {
            let t = k.len() / d;
            let mut s = vec![0.0; t];
            let mut out = vec![0.0; d];
            let zeros = vec![0.0; t];
            attend(q, k, &vec![0.0; t * d], bias.unwrap_or(&zeros), t, scale, &mut s, &mut out);
            s // exp(score - max), in place
        };
        let lane_sum = |e: &[f32]| -> f32 {
            let mut lanes = [0f32; 8];
            for (j, x) in e.iter().enumerate() {
                lanes[j % 8] += x;
            }
            // hsum's tree: (l0+l4, l1+l5, l2+l6, l3+l7), then pairs (0+2, 1+3), then the two.
            let s: Vec<f32> = (0..4).map(|i| lanes[i] + lanes[i + 4]).collect();
            (s[0] + s[2]) + (s[1] + s[3])
        };
        lane_sum(&scores(k, Some(bias))) != lane_sum(&scores(kc, None))
    }

    #[test]
    fn rope_rotates_pairs_half_apart() {
        let mut x = vec![1.0f32, 2.0, 3.0, 4.0];
        rope(&mut x, &[0.0, 1.0], &[1.0, 0.0]);
        // pair (x0, x2) rotated by 90 degrees, pair (x1, x3) by 0
        assert_eq!(x, vec![-3.0, 2.0, 1.0, 4.0]);
    }
}

//! Host-side planning of one decoder pass on the GPU, kept free of driver calls so it is unit-tested on machines
//! without a GPU: how a pass is cut into chunks, which logits rows each chunk produces and where they land, which
//! chunk shapes get a CUDA graph, and whether the attention bias needs uploading at all.

/// Rows per chunk: a pass of S tokens runs as ceil(S / CHUNK_ROWS) chunks over the same scratch buffers, so the
/// activation memory does not grow with the prompt. Chunking is exact: the bias adds to causal order, so a row
/// never sees a later row, and every kernel computes a row the same way whatever the chunk holds.
pub(crate) const CHUNK_ROWS: usize = 64;

/// Chunks of at most this many rows (decode steps, verify passes, token trees) are captured as CUDA graphs and
/// replayed; longer ones (prefill) run directly, since each prompt length would otherwise capture a graph used once.
pub(crate) const GRAPH_MAX_ROWS: usize = 32;

/// One chunk of a pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chunk {
    /// First row of the pass in this chunk.
    pub start: usize,
    /// Rows in this chunk.
    pub len: usize,
    /// The chunk-local indices of the rows that need logits (ascending).
    pub logits_rows: Vec<i32>,
    /// Where this chunk's first logits row goes in the pass's logits output.
    pub out_row: usize,
}

impl Chunk {
    /// The key of the CUDA graph this chunk replays, or None when it runs without one.
    pub(crate) fn graph_key(&self) -> Option<GraphKey> {
        (self.len <= GRAPH_MAX_ROWS).then_some(GraphKey { rows: self.len, logits_rows: self.logits_rows.len() })
    }
}

/// What a captured graph is specialised for: everything else (past length, bias, ids, positions, which rows) is
/// read from device buffers the graph's kernels take by address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct GraphKey {
    /// Token rows of the pass.
    pub rows: usize,
    /// Rows that get logits.
    pub logits_rows: usize,
}

/// Cuts a pass of `rows` tokens into chunks of at most `chunk` rows and assigns the requested logits rows
/// (ascending indices into 0..rows) to them.
pub(crate) fn plan_chunks(rows: usize, logits_rows: &[i64], chunk: usize) -> Vec<Chunk> {
    let chunk = chunk.max(1);
    let mut out = Vec::with_capacity(rows.div_ceil(chunk));
    let mut next_logit = 0usize;
    let mut start = 0usize;
    while start < rows {
        let len = chunk.min(rows - start);
        let out_row = next_logit;
        let mut local = Vec::new();
        while next_logit < logits_rows.len() && (logits_rows[next_logit] as usize) < start + len {
            local.push((logits_rows[next_logit] as usize - start) as i32);
            next_logit += 1;
        }
        out.push(Chunk { start, len, logits_rows: local, out_row });
        start += len;
    }
    out
}

/// Whether an additive bias `[s, past + s]` hides anything the kernels' own causal order shows: row `i` sees slots
/// `0..=past + i`, so only those columns matter. A causal chain (decode steps, verify passes) uploads no bias; a
/// token tree or a SPACE group mask does.
pub(crate) fn bias_is_needed(bias: &[f32], past: usize, s: usize) -> bool {
    let t = past + s;
    bias.len() == s * t && (0..s).any(|i| bias[i * t..i * t + past + i + 1].iter().any(|&b| b != 0.0))
}

/// Checks a pass against the decoder's limits; the message names what is wrong.
pub(crate) fn validate_pass(
    ids: &[i64],
    positions: &[i64],
    bias_len: usize,
    logits_rows: &[i64],
    past_len: usize,
    capacity: usize,
    vocab: usize,
    max_positions: usize,
) -> Result<(), String> {
    let s = ids.len();
    if s == 0 {
        return Err("a pass needs at least one token".into());
    }
    if positions.len() != s {
        return Err(format!("{} position ids for {s} tokens", positions.len()));
    }
    if past_len + s > capacity {
        return Err(format!("{past_len} cached + {s} new tokens exceed the KV cache's {capacity} slots"));
    }
    if let Some(bad) = ids.iter().find(|&&t| t < 0 || t as usize >= vocab) {
        return Err(format!("token id {bad} is outside the vocabulary (0..{vocab})"));
    }
    if let Some(bad) = positions.iter().find(|&&p| p < 0 || p as usize >= max_positions) {
        return Err(format!("position {bad} is outside the rotary table (0..{max_positions})"));
    }
    if bias_len != 0 && bias_len != s * (past_len + s) {
        return Err(format!("attention bias has {bias_len} values, [S, past + S] needs {}", s * (past_len + s)));
    }
    if logits_rows.windows(2).any(|w| w[0] >= w[1]) || logits_rows.iter().any(|&r| r < 0 || r as usize >= s) {
        return Err(format!("logits rows {logits_rows:?} must be ascending indices into 0..{s}"));
    }
    Ok(())
}

/// Warps per multiprocessor a one-row matmul launch should offer before K is split: at decode a warp streams one
/// weight row with a few loads in flight, so the memory is kept busy by the number of warps, and an SM holds 64.
const SPLIT_WARPS_PER_SM: usize = 64;

/// The shortest K part worth a warp: one round of 8 loads in flight per lane covers 32 x 8 x 8 = 2,048 weights.
const SPLIT_MIN_SPAN: usize = 2048;

/// How a `[N, K]` matmul is cut along K (kernels.cu `matmul_part_f16w`): `(parts, span)`, each part `span` weights
/// long (a multiple of 256, the lanes' stride, so every part starts on the same lane layout) and the last part
/// shorter. Doubles the parts (at most 8) while the launch has fewer warps than `multiprocessors` x 64 and each part
/// keeps at least 2,048 weights; `(1, K)` means no split. Depends on N, K and the device only, never on the rows of
/// a pass, so a verify pass and decode steps split alike (batch invariance). Examples on an H200 (132 SMs): an 8B
/// shape's down projection (4096 x 14336) -> 4 parts, its o and q/k/v projections (K = 4096) -> 2; Qwen2.5-1.5B's
/// down (1536 x 8960) -> 4; SmolLM2's projections (K <= 1536) are not split.
pub(crate) fn matmul_splits(n: usize, k: usize, multiprocessors: usize) -> (usize, usize) {
    let target = multiprocessors.max(1) * SPLIT_WARPS_PER_SM;
    let mut parts = 1;
    while parts < 8 && n * parts < target && k / (2 * parts) >= SPLIT_MIN_SPAN {
        parts *= 2;
    }
    let span = k.div_ceil(parts).div_ceil(256) * 256;
    (k.div_ceil(span.max(1)).max(1), span.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_rows_with_few_warps_are_split_and_short_ones_are_not() {
        // An H200 has 132 SMs: 8,448 warps wanted.
        assert_eq!(matmul_splits(4096, 14336, 132), (4, 3584), "8B down: 4 parts of 3,584");
        assert_eq!(matmul_splits(4096, 4096, 132), (2, 2048), "8B o: 2 parts");
        assert_eq!(matmul_splits(6144, 4096, 132), (2, 2048), "8B q/k/v: 2 parts");
        assert_eq!(matmul_splits(1536, 8960, 132), (4, 2304), "Qwen-1.5B down: the last part shorter");
        assert_eq!(matmul_splits(576, 1536, 132), (1, 1536), "SmolLM2: K too short to split");
        assert_eq!(matmul_splits(151936, 1536, 132), (1, 1536), "a vocabulary head has warps enough");
        assert_eq!(matmul_splits(16384, 14336, 132), (1, 14336), "enough warps already");
        assert_eq!(matmul_splits(64, 1 << 20, 132), (8, 131072), "at most 8 parts");
    }

    #[test]
    fn every_split_covers_k_once_in_parts_aligned_to_the_lane_stride() {
        for sms in [1, 16, 132] {
            for n in [1, 64, 1000, 4096] {
                for k in (8..40_000).step_by(1992) {
                    let (parts, span) = matmul_splits(n, k, sms);
                    assert!((1..=8).contains(&parts), "n {n} k {k}: {parts} parts");
                    if parts > 1 {
                        assert_eq!(span % 256, 0, "n {n} k {k}");
                        assert!(span >= SPLIT_MIN_SPAN, "n {n} k {k}: parts of {span}");
                    }
                    assert!((parts - 1) * span < k && parts * span >= k, "n {n} k {k}: {parts} x {span}");
                }
            }
        }
    }

    #[test]
    fn a_decode_step_is_one_chunk_with_one_graph() {
        let chunks = plan_chunks(1, &[0], CHUNK_ROWS);
        assert_eq!(chunks, vec![Chunk { start: 0, len: 1, logits_rows: vec![0], out_row: 0 }]);
        assert_eq!(chunks[0].graph_key(), Some(GraphKey { rows: 1, logits_rows: 1 }));
    }

    #[test]
    fn a_long_prefill_is_cut_and_only_its_last_row_gets_logits() {
        let chunks = plan_chunks(150, &[149], 64);
        assert_eq!(chunks.len(), 3);
        assert_eq!((chunks[0].start, chunks[0].len, chunks[0].logits_rows.len()), (0, 64, 0));
        assert_eq!((chunks[2].start, chunks[2].len), (128, 22));
        assert_eq!(chunks[2].logits_rows, vec![21]);
        assert_eq!(chunks[2].out_row, 0);
        // Prefill-sized chunks run without a graph; the short tail gets one.
        assert_eq!(chunks[0].graph_key(), None);
        assert_eq!(chunks[2].graph_key(), Some(GraphKey { rows: 22, logits_rows: 1 }));
    }

    #[test]
    fn logits_rows_spanning_chunks_keep_their_order_in_the_output() {
        let rows: Vec<i64> = vec![3, 63, 64, 70, 99];
        let chunks = plan_chunks(100, &rows, 64);
        assert_eq!(chunks[0].logits_rows, vec![3, 63]);
        assert_eq!(chunks[0].out_row, 0);
        assert_eq!(chunks[1].logits_rows, vec![0, 6, 35]);
        assert_eq!(chunks[1].out_row, 2);
        // Every requested row lands exactly once, in order.
        let back: Vec<i64> = chunks.iter().flat_map(|c| c.logits_rows.iter().map(move |&r| (c.start + r as usize) as i64)).collect();
        assert_eq!(back, rows);
    }

    #[test]
    fn a_causal_pass_uploads_no_bias_and_a_tree_does() {
        // One token after 3: nothing hidden.
        assert!(!bias_is_needed(&[0.0; 4], 3, 1));
        // A causal chain of 2 after 1: the upper triangle is hidden, which the kernels' causal order already does.
        let h = -1e9;
        assert!(!bias_is_needed(&[0.0, 0.0, h, 0.0, 0.0, 0.0], 1, 2));
        // A tree whose second node is a sibling of the first (hides column 1 from row 1): needed.
        assert!(bias_is_needed(&[0.0, 0.0, h, 0.0, h, 0.0], 1, 2));
        // No bias at all.
        assert!(!bias_is_needed(&[], 1, 2));
    }

    #[test]
    fn bad_passes_name_what_is_wrong() {
        let ok = validate_pass(&[1, 2], &[5, 6], 0, &[1], 5, 16, 10, 100);
        assert!(ok.is_ok());
        assert!(validate_pass(&[1, 2], &[5, 6], 0, &[1], 15, 16, 10, 100).unwrap_err().contains("exceed"));
        assert!(validate_pass(&[1, 12], &[5, 6], 0, &[1], 5, 16, 10, 100).unwrap_err().contains("token id 12"));
        assert!(validate_pass(&[1, 2], &[5, 600], 0, &[1], 5, 16, 10, 100).unwrap_err().contains("position 600"));
        assert!(validate_pass(&[1, 2], &[5, 6], 13, &[1], 5, 16, 10, 100).unwrap_err().contains("needs 14"));
        assert!(validate_pass(&[1, 2], &[5, 6], 0, &[1, 0], 5, 16, 10, 100).unwrap_err().contains("ascending"));
        assert!(validate_pass(&[], &[], 0, &[], 0, 16, 10, 100).is_err());
    }
}

//! The KV cache and masks of a model session: cached decoding equals recomputation, rollback is exact, and a
//! token tree verified in one pass equals decoding each path token by token, before and after compaction.

mod common;

use common::*;
use specrt::model::TokenTree;

/// Greedy tokens decoded step by step with the cache.
fn cached_greedy(model: &mut specrt::model::LanguageModel, prompt: &[u32], n: usize) -> Vec<u32> {
    model.reset();
    let mut out = Vec::new();
    let mut next = argmax(model.append(prompt).unwrap());
    for _ in 0..n {
        out.push(next);
        next = argmax(model.append(&[next]).unwrap());
    }
    out
}

/// Greedy tokens where every step recomputes the whole sequence from an empty cache.
fn recomputed_greedy(model: &mut specrt::model::LanguageModel, prompt: &[u32], n: usize) -> Vec<u32> {
    let mut seq = prompt.to_vec();
    let mut out = Vec::new();
    for _ in 0..n {
        model.reset();
        let t = argmax(model.append(&seq).unwrap());
        out.push(t);
        seq.push(t);
    }
    out
}

#[test]
fn tiny_cached_decoding_equals_full_recompute() {
    let mut m = open(&tiny(), 256);
    for prompt in [vec![5u32, 17, 99, 3], vec![1, 200, 201, 202, 7, 7, 7], vec![42]] {
        let a = cached_greedy(&mut m, &prompt, 64);
        let b = recomputed_greedy(&mut m, &prompt, 64);
        assert_eq!(a, b, "prompt {prompt:?}");
        let distinct: std::collections::HashSet<_> = a.iter().collect();
        assert!(distinct.len() > 4, "degenerate tiny output {a:?}");
    }
}

#[test]
fn smollm2_64_cached_tokens_equal_full_recompute() {
    let mut m = open(&smollm2("fp32"), 256);
    let tok = specrt::text::Tokenizer::load(&smollm2("fp32").join("tokenizer.json")).unwrap();
    let prompt = tok.encode("Write a short story about a robot who learns to paint.").unwrap();
    let a = cached_greedy(&mut m, &prompt, 64);
    let b = recomputed_greedy(&mut m, &prompt, 64);
    assert_eq!(a, b);
}

#[test]
fn chain_logits_equal_token_by_token_logits() {
    let mut m = open(&tiny(), 128);
    let prompt = [9u32, 8, 7, 6, 5];
    let chain = [11u32, 12, 13, 14];
    m.append(&prompt).unwrap();
    let all = m.append_all(&chain).unwrap().to_vec();
    let v = m.vocab_size();
    m.reset();
    m.append(&prompt).unwrap();
    for (i, &t) in chain.iter().enumerate() {
        let one = m.append(&[t]).unwrap();
        assert!(max_abs_diff(one, &all[i * v..(i + 1) * v]) < 1e-4, "row {i}");
    }
}

#[test]
fn rollback_then_continue_equals_a_fresh_run() {
    let mut m = open(&tiny(), 128);
    m.append(&[1, 2, 3, 4, 5, 6]).unwrap();
    m.append(&[50, 51, 52]).unwrap();
    m.truncate(6).unwrap();
    let after_rollback = m.append(&[60, 61]).unwrap().to_vec();
    let kv_rollback = m.read_kv().expect("the ONNX Runtime decoder shows its KV cache");
    m.reset();
    let fresh = m.append(&[1, 2, 3, 4, 5, 6, 60, 61]).unwrap().to_vec();
    let kv_fresh = m.read_kv().expect("the ONNX Runtime decoder shows its KV cache");
    assert!(max_abs_diff(&after_rollback, &fresh) < 1e-4);
    assert!(max_abs_diff(&kv_rollback, &kv_fresh) < 1e-4);
    assert!(m.truncate(100).is_err(), "cannot roll forward");
}

#[test]
fn tree_verification_equals_sequential_paths_and_compaction_keeps_the_cache_exact() {
    let mut m = open(&tiny(), 128);
    let prompt = [3u32, 1, 4, 1, 5, 9, 2, 6];
    // Tree: a -> b -> c, a -> d, e (second root) -> f
    let mut tree = TokenTree::default();
    let a = tree.push(20, None);
    let b = tree.push(21, Some(a));
    let c = tree.push(22, Some(b));
    let d = tree.push(23, Some(a));
    let e = tree.push(24, None);
    let f = tree.push(25, Some(e));
    m.append(&prompt).unwrap();
    let tree_logits = m.eval_tree(&tree).unwrap().to_vec();
    let v = m.vocab_size();
    for node in [a, b, c, d, e, f] {
        let path: Vec<u32> = tree.path_to(node).iter().map(|&n| tree.tokens[n]).collect();
        m.truncate(prompt.len()).unwrap();
        let seq = m.append(&path).unwrap();
        let diff = max_abs_diff(seq, &tree_logits[node * v..(node + 1) * v]);
        assert!(diff < 1e-4, "node {node}: {diff}");
    }
    // Compact the path a -> d, then continue: equals a fresh run over prompt + [20, 23].
    m.truncate(prompt.len()).unwrap();
    m.eval_tree(&tree).unwrap();
    m.commit_tree_path(&[a, d]).unwrap();
    assert_eq!(m.len(), prompt.len() + 2);
    let kv_compacted = m.read_kv().expect("the ONNX Runtime decoder shows its KV cache");
    let next = m.append(&[30]).unwrap().to_vec();
    m.reset();
    let mut seq = prompt.to_vec();
    seq.extend([20, 23]);
    m.append(&seq).unwrap();
    let kv_fresh = m.read_kv().expect("the ONNX Runtime decoder shows its KV cache");
    let next_fresh = m.append(&[30]).unwrap().to_vec();
    assert!(max_abs_diff(&kv_compacted, &kv_fresh) < 1e-4);
    assert!(max_abs_diff(&next, &next_fresh) < 1e-4);
}

#[test]
fn context_overflow_is_an_error_not_a_panic() {
    let mut m = open(&tiny(), 16);
    m.append(&[1; 10]).unwrap();
    let err = m.append(&[1; 7]).unwrap_err().to_string();
    assert!(err.contains("exceed the context length 16"), "{err}");
    assert_eq!(m.len(), 10, "a failed append commits nothing");
}

#[test]
fn long_prompts_prefill_in_chunks() {
    // More than one PREFILL_CHUNK: the chunked prefill must equal token-by-token decoding.
    let n = specrt::model::session::PREFILL_CHUNK + 37;
    let prompt: Vec<u32> = (0..n as u32).map(|i| (i * 7 + 3) % 300 + 3).collect();
    let mut m = open(&tiny(), 1024);
    let chunked = m.append(&prompt).unwrap().to_vec();
    m.reset();
    let mut last = Vec::new();
    for &t in &prompt {
        last = m.append(&[t]).unwrap().to_vec();
    }
    assert!(max_abs_diff(&chunked, &last) < 1e-3);
}

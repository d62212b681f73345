//! Token trees with real branches, lossless: on the engine's attention kernel every node of a tree pass equals the
//! chain pass over its own path bitwise (engine/kernels/attention.rs sums a row over its visible keys alone), the
//! load-time probe (engine/model/invariance.rs `probe_side_branches`) finds it, and the tree strategy then accepts
//! side nodes too when asked (`side_branches: exact`; by default the walk keeps to the main chain): greedy output
//! still equals AR over many prompts x 260 tokens, for every head kind, while side nodes carry accepted tokens. On
//! ONNX Runtime's attention (SmolLM2 int4) the probe finds side nodes inexact, and the walk keeps to the main chain
//! (docs/METHODS.md section 3, "Numerics").

mod common;

use common::*;
use specrt::config::{DrafterConfig, HybridLookup, SideBranchPolicy, StrategyConfig, WindowConfig, WindowPolicyKind};
use specrt::model::SideBranches;
use specrt::stats::Details;
use specrt::{GenerationRequest, Pipeline, Prompt};

/// The tiny target with hidden states on the engine's attention kernel (`--attention-kernel specrt`); the random
/// heads of the tiny target bind to it (same checkpoint).
fn target() -> std::path::PathBuf {
    model_dir("tiny-fp32-hs-specrt")
}

fn probe(dir: &std::path::Path) -> SideBranches {
    let mut model = open(dir, 256);
    model.ensure_batch_invariance().unwrap();
    model.side_branches().unwrap()
}

#[test]
fn the_probe_finds_side_branches_exact_on_the_engine_attention_kernel_only() {
    assert_eq!(probe(&target()), SideBranches::Exact, "engine attention kernel (tiny fp32)");
    assert_eq!(probe(&model_dir("smollm2-135m-instruct-int4-ggml-hs")), SideBranches::Exact, "engine kernels (SmolLM2)");
    // The negative control: ONNX Runtime's GroupQueryAttention (and MatMulNBits) on SmolLM2, where a side node
    // was measured to flip a near-tie against AR.
    assert_eq!(probe(&smollm2("int4")), SideBranches::MainChainOnly, "ONNX Runtime attention (SmolLM2 int4)");
}

fn greedy(prompt: &[u32], n: usize) -> GenerationRequest {
    GenerationRequest { prompt: Some(Prompt::Tokens(prompt.to_vec())), max_tokens: Some(n), ignore_eos: true, ..Default::default() }
}

/// The tiny target's random `kind` head with `side_branches: exact` (follow side nodes where the probe allows).
fn head(kind: &str, max_nodes: usize, max_depth: usize, ngram: bool, policy: WindowPolicyKind) -> StrategyConfig {
    let mut config = tiny_head(kind, max_nodes, max_depth, HybridLookup::Switch(ngram), policy);
    if let StrategyConfig::Speculative { drafter: DrafterConfig::Head { side_branches, .. }, .. } = &mut config {
        *side_branches = SideBranchPolicy::Exact;
    }
    config
}

/// Without `side_branches: exact` (the default) the walk keeps to the main chain, side branches exact or not.
#[test]
fn by_default_the_walk_keeps_to_the_main_chain() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = pipeline_yaml(dir.path(), &target(), &format!("context_length: 512\n{SPECULATIVE_YAML}"));
    let mut p = Pipeline::load(&cfg).unwrap();
    let prompt = repeating_prompts(1, 3, 40).remove(0);
    p.set_strategy(tiny_head("eagle", 6, 2, HybridLookup::Switch(false), WindowPolicyKind::Static)).unwrap();
    let out = p.generate(&greedy(&prompt, 200), &mut |_| true).unwrap();
    let Details::Tree { side_branches, side_tokens, .. } = &out.stats.details else { panic!("tree details expected") };
    assert_eq!((side_branches.as_str(), *side_tokens), ("main_chain", 0));
    // The control: the same request with `side_branches: exact` accepts side nodes.
    p.set_strategy(head("eagle", 6, 2, false, WindowPolicyKind::Static)).unwrap();
    let exact = p.generate(&greedy(&prompt, 200), &mut |_| true).unwrap();
    assert_eq!(exact.tokens, out.tokens);
    let Details::Tree { side_tokens, .. } = &exact.stats.details else { panic!("tree details expected") };
    assert!(*side_tokens > 0);
}

#[test]
fn trees_that_accept_side_nodes_equal_ar_for_every_head_kind() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = pipeline_yaml(dir.path(), &target(), &format!("context_length: 512\n{SPECULATIVE_YAML}"));
    let mut p = Pipeline::load(&cfg).unwrap();
    let prompts = repeating_prompts(60, 23, 40);
    let n = 260;
    p.set_strategy(StrategyConfig::Ar {}).unwrap();
    let reference: Vec<Vec<u32>> = prompts.iter().map(|q| p.generate(&greedy(q, n), &mut |_| true).unwrap().tokens).collect();
    let (fixed, sized) = (WindowPolicyKind::Static, WindowPolicyKind::CostModel);
    // Bushy static trees (every alternative verified), a deeper one with lookup, and trees sized by the budget.
    let shapes = [(6, 2, false, fixed), (8, 3, false, fixed), (12, 6, true, fixed), (8, 3, false, sized), (12, 4, true, sized)];
    for kind in ["ctc", "medusa", "eagle"] {
        let (mut side, mut accepted) = (0, 0);
        for (i, (prompt, want)) in prompts.iter().zip(&reference).enumerate() {
            let (nodes, depth, hybrid, policy) = shapes[i % shapes.len()];
            p.set_strategy(head(kind, nodes, depth, hybrid, policy)).unwrap();
            let out = p.generate(&greedy(prompt, n), &mut |_| true).unwrap();
            let diff = out.tokens.iter().zip(want).position(|(a, b)| a != b);
            assert_eq!(
                diff, None,
                "{kind} head, tree ({nodes} nodes, depth {depth}, ngram {hybrid}, {policy:?}): prompt {i} differs from AR at {diff:?}"
            );
            assert_eq!(out.tokens.len(), want.len());
            let Details::Tree { side_branches, side_tokens, .. } = &out.stats.details else { panic!("tree details expected") };
            assert_eq!(side_branches, "exact");
            side += side_tokens;
            accepted += out.stats.accepted;
        }
        // The walk did leave the main chain: side nodes held the target's token and were accepted.
        assert!(side > 0, "{kind}: no token accepted on a side node ({accepted} accepted)");
        eprintln!("{kind}: {side} of {accepted} accepted tokens on side nodes");
    }
}

/// Sampling through trees whose side nodes are accepted keeps the target's distribution: tokens 2-10 of 1,200
/// seeded runs per strategy against AR sampling, chi-square per position, Bonferroni to a family-wise 0.001.
#[test]
fn tree_sampling_with_side_nodes_matches_ar_sampling() {
    const ALPHA: f64 = 0.001;
    const CHAIN: usize = 10;
    let dir = tempfile::tempdir().unwrap();
    let cfg = pipeline_yaml(dir.path(), &target(), &format!("context_length: 512\n{SPECULATIVE_YAML}"));
    let mut p = Pipeline::load(&cfg).unwrap();
    let prompt = vec![10u32, 20, 30, 40, 10, 20, 30, 40, 10, 20];
    let runs = 1200u64;
    let law = |p: &mut Pipeline, offset: u64, side: &mut usize| {
        sampling_law(p, &prompt, CHAIN, runs, offset, |out| {
            if let Details::Tree { side_tokens, .. } = &out.stats.details {
                *side += side_tokens;
            }
        })
    };
    p.set_strategy(StrategyConfig::Ar {}).unwrap();
    let mut none = 0;
    let ar = law(&mut p, 0, &mut none);
    for kind in ["medusa", "eagle"] {
        p.set_strategy(head(kind, 6, 2, false, WindowPolicyKind::Static)).unwrap();
        let mut side = 0;
        let sp = law(&mut p, 7_000_000, &mut side);
        assert!(side > 0, "{kind}: no side node accepted under sampling");
        for pos in 1..CHAIN {
            let (stat, dof, pv) = chi2_two_sample(&ar[pos], &sp[pos]);
            assert!(pv > ALPHA / (CHAIN - 1) as f64, "{kind}: token {} differs from AR: chi2 {stat:.1} (dof {dof}), p {pv:.2e}", pos + 1);
        }
    }
}

/// Committing a side path leaves the KV cache that decoding its tokens one by one leaves, bitwise (the side rows
/// were computed exactly and compacted into place), and the next step's logits agree.
#[test]
fn committing_a_side_path_leaves_the_ar_cache() {
    let mut m = open(&target(), 256);
    m.ensure_batch_invariance().unwrap();
    let prompt = [5u32, 9, 14, 3, 77, 21, 8];
    // 1 -> 2 -> 3 is the main chain; 4 (a second child of the root) -> 5 is the side path committed.
    let mut tree = specrt::model::TokenTree::default();
    let root = tree.push(40, None);
    let a = tree.push(41, Some(root));
    tree.push(42, Some(a));
    let side = tree.push(43, Some(root));
    let deep = tree.push(44, Some(side));
    tree.push(45, Some(a));
    m.append(&prompt).unwrap();
    m.eval_tree(&tree).unwrap();
    m.commit_tree_path(&[root, side, deep]).unwrap();
    let kv_tree = m.read_kv().expect("the ONNX Runtime decoder shows its KV cache");
    let next_tree = m.append(&[46]).unwrap().to_vec();
    m.reset();
    m.append(&prompt).unwrap();
    for t in [40, 43, 44] {
        m.append(&[t]).unwrap();
    }
    let kv_ar = m.read_kv().unwrap();
    let next_ar = m.append(&[46]).unwrap().to_vec();
    assert_eq!(kv_tree.len(), kv_ar.len());
    assert!(kv_tree.iter().zip(&kv_ar).all(|(x, y)| x.to_bits() == y.to_bits()), "KV after a committed side path differs from AR's");
    assert!(next_tree.iter().zip(&next_ar).all(|(x, y)| x.to_bits() == y.to_bits()));
}

#[test]
fn on_onnx_runtime_attention_the_walk_keeps_to_the_main_chain() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = pipeline_yaml(dir.path(), &model_dir("smollm2-135m-instruct-int4-hs"), SPECULATIVE_YAML);
    let mut p = Pipeline::load(&cfg).unwrap();
    let prompt: Vec<u32> = p.tokenizer().encode("def fibonacci(n):\n    \"\"\"Return the n-th Fibonacci number.\"\"\"\n").unwrap();
    p.set_strategy(StrategyConfig::Ar {}).unwrap();
    let ar = p.generate(&greedy(&prompt, 64), &mut |_| true).unwrap();
    p.set_strategy(StrategyConfig::Speculative {
        drafter: DrafterConfig::Head {
            model: model_dir("smollm2-135m-instruct-int4-medusa-head"),
            beam: 4,
            top_k: 3,
            max_nodes: 8,
            max_depth: 3,
            ngram: HybridLookup::Switch(false),
            side_branches: SideBranchPolicy::Exact,
        },
        window: WindowConfig { policy: WindowPolicyKind::Static, fallback: false, ..Default::default() },
        allow_lossy: false,
    })
    .unwrap();
    let out = p.generate(&greedy(&prompt, 64), &mut |_| true).unwrap();
    assert_eq!(out.tokens, ar.tokens);
    let Details::Tree { side_branches, side_tokens, .. } = &out.stats.details else { panic!("tree details expected") };
    assert_eq!(side_branches, "main_chain_only");
    assert_eq!(*side_tokens, 0);
}

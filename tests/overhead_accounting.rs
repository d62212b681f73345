//! The honest-overhead figures of the benchmark (issue 14 item 5, docs/BENCHMARKS.md "Honest overhead"): the
//! backend's fixed costs come from tiny graphs that really run, and every model's run calls are counted, so the
//! per-call share a strategy is charged follows the calls it makes.

mod common;

use common::*;
use specrt::backend::Backend;
use specrt::config::{DrafterConfig, StrategyConfig, WindowConfig, WindowPolicyKind};
use specrt::{GenerationRequest, Pipeline, Prompt};

#[test]
fn onnx_runtime_reports_its_fixed_costs_per_call_and_per_node() {
    let cost = backend(2).call_cost().expect("the probe graphs run").expect("ONNX Runtime measures its costs");
    // A run of a one-node graph costs something, and far less than a millisecond on any machine we run on
    // (measured 1.1-1.8 us on an EPYC); a chain of nodes costs more per run than one node.
    assert!(cost.per_call_seconds > 0.0 && cost.per_call_seconds < 1e-3, "{cost:?}");
    assert!(cost.per_node_seconds > 0.0 && cost.per_node_seconds < 1e-3, "{cost:?}");
}

/// The tiny model's speculative pipeline, its cost-curve cache in a temporary folder (kept alive by the caller).
fn tiny_pipeline() -> (tempfile::TempDir, Pipeline) {
    let dir = tempfile::tempdir().unwrap();
    std::env::set_var("SPECRT_CACHE_DIR", dir.path().join("cache"));
    let cfg = pipeline_yaml(dir.path(), &tiny(), &format!("context_length: 256\n{SPECULATIVE_YAML}"));
    let p = Pipeline::load(&cfg).unwrap();
    (dir, p)
}

/// Speculative decoding with `drafter`, a static window of 3 drafts and no payoff guard.
fn static_k3(drafter: DrafterConfig) -> StrategyConfig {
    StrategyConfig::Speculative {
        drafter,
        window: WindowConfig { policy: WindowPolicyKind::Static, k: 3, fallback: false, ..Default::default() },
        allow_lossy: false,
    }
}

fn request(prompt: &[u32], max_tokens: usize) -> GenerationRequest {
    GenerationRequest { prompt: Some(Prompt::Tokens(prompt.to_vec())), max_tokens: Some(max_tokens), ignore_eos: true, ..Default::default() }
}

#[test]
fn every_models_run_calls_are_counted() {
    let (_dir, mut p) = tiny_pipeline();
    let prompt: Vec<u32> = (3..40).collect();

    // AR: the target's calls are all the calls (one prefill + one per further token).
    p.set_strategy(StrategyConfig::Ar {}).unwrap();
    let ar = p.generate(&request(&prompt, 24), &mut |_| true).unwrap();
    assert_eq!(ar.stats.backend_calls, ar.stats.target_calls as u64);
    assert_eq!(ar.stats.target_calls, 24, "prefill gives the first token, 23 steps the rest");

    // A draft model: its calls are counted on top of the target's (negative control: the n-gram drafter has none).
    p.set_strategy(static_k3(DrafterConfig::DraftModel { model: model_dir("tiny-draft-fp32") })).unwrap();
    let drafted = p.generate(&request(&prompt, 24), &mut |_| true).unwrap();
    assert!(drafted.stats.backend_calls > drafted.stats.target_calls as u64 + 3, "{:?}", drafted.stats);
    p.set_strategy(static_k3(DrafterConfig::Ngram { n_max: 3, n_min: 1, window: 1024, match_ratio: 0.0, corpus: None })).unwrap();
    let ngram = p.generate(&request(&prompt, 24), &mut |_| true).unwrap();
    assert_eq!(ngram.stats.backend_calls, ngram.stats.target_calls as u64);
}

#[test]
fn each_generation_counts_its_target_passes_by_size() {
    let (_dir, mut p) = tiny_pipeline();
    // A prompt that repeats itself, so prompt lookup drafts and verifies chains.
    let prompt: Vec<u32> = (3..20).chain(3..20).collect();

    // AR: 23 one-token steps after the prefill, and nothing else (the 34-token prompt is not a pass of the curve).
    p.set_strategy(StrategyConfig::Ar {}).unwrap();
    let ar = p.generate(&request(&prompt, 24), &mut |_| true).unwrap();
    let rows = ar.stats.target_passes.rows();
    assert_eq!(rows.iter().map(|r| (r.tokens, r.calls)).collect::<Vec<_>>(), vec![(1, 23)], "{rows:?}");
    assert!(rows[0].mean_ms > 0.0 && rows[0].steps == 1.0);

    // Speculative: every target call after the prefill is one counted pass, of 1 + its drafts' tokens; a second
    // generation counts only its own (the model's totals keep growing, each request takes the difference).
    p.set_strategy(static_k3(DrafterConfig::Ngram { n_max: 3, n_min: 1, window: 1024, match_ratio: 0.0, corpus: None })).unwrap();
    for _ in 0..2 {
        let spec = p.generate(&request(&prompt, 24), &mut |_| true).unwrap();
        let passes = &spec.stats.target_passes;
        assert_eq!(passes.total_calls(), spec.stats.target_calls as u64 - 1, "{:?}", passes.rows());
        assert!(passes.rows().iter().any(|r| r.tokens == 4), "static k = 3 verifies 4-token chains: {:?}", passes.rows());
        let drafted: u64 = passes.rows().iter().map(|r| (r.tokens as u64 - 1) * r.calls).sum();
        assert_eq!(drafted, spec.stats.drafted as u64, "each pass carries the pending token and the round's drafts");
    }
}

//! Speculative decoding on the real SmolLM2-135M-Instruct (the fast int4 export, made batch-invariant by padded
//! one-token steps): 256 greedy tokens identical to AR for every drafter, on several real prompts.

mod common;

use common::*;
use specrt::config::{DrafterConfig, StrategyConfig, WindowConfig, WindowPolicyKind};
use specrt::{GenerationRequest, Pipeline};

const PROMPTS: [&str; 3] = [
    "def fibonacci(n):\n    \"\"\"Return the n-th Fibonacci number.\"\"\"\n",
    "Write a short story about a dragon who is afraid of fire.",
    "Summarize: The Industrial Revolution began in Britain in the late 18th century. It transformed economies that had been based on agriculture and handicrafts into economies based on large-scale industry, mechanized manufacturing, and the factory system.",
];

fn spec(drafter: DrafterConfig, policy: WindowPolicyKind, k: usize) -> StrategyConfig {
    StrategyConfig::Speculative { drafter, window: WindowConfig { policy, k, k_min: 1, k_max: 10, ..Default::default() }, allow_lossy: false }
}

#[test]
fn speculative_outputs_equal_ar_on_smollm2() {
    let dir = tempfile::tempdir().unwrap();
    std::env::set_var("SPECRT_CACHE_DIR", dir.path().join("cache"));
    let strategies = [
        (
            "ngram/static",
            spec(DrafterConfig::Ngram { n_max: 3, n_min: 1, window: 1024, match_ratio: 0.0, corpus: None }, WindowPolicyKind::Static, 4),
        ),
        (
            "ngram/cost_model",
            spec(DrafterConfig::Ngram { n_max: 3, n_min: 1, window: 1024, match_ratio: 0.0, corpus: None }, WindowPolicyKind::CostModel, 4),
        ),
        (
            // The shipped configs/smollm2-ngram.yaml drafter: match-length drafting and the committed corpus.
            "ngram/match+corpus",
            spec(
                DrafterConfig::Ngram {
                    n_max: 8,
                    n_min: 2,
                    window: 1024,
                    match_ratio: 1.0,
                    corpus: Some(specrt::config::CorpusConfig {
                        path: root().join("export/trained/smollm2-lookup-corpus"),
                        max_tokens: 2,
                        n_max: 4,
                        n_min: 2,
                        min_count: 2,
                        min_share: 0.5,
                    }),
                },
                WindowPolicyKind::CostModel,
                4,
            ),
        ),
        (
            "layer_skip/heuristic",
            spec(DrafterConfig::LayerSkip { model: model_dir("smollm2-135m-instruct-int4-skip22") }, WindowPolicyKind::Heuristic, 3),
        ),
    ];
    // The pipeline is speculative, so its target pads one-token steps; `set_strategy(ar)` keeps that, making AR
    // the exact reference (the same numerics the verification pass has).
    let cfg = pipeline_yaml(dir.path(), &smollm2("int4"), "strategy:\n  kind: speculative\n  drafter: {kind: ngram}\n");
    let mut p = Pipeline::load(&cfg).unwrap();
    for prompt in PROMPTS {
        let req = GenerationRequest { max_tokens: Some(256), chat: Some(true), ignore_eos: true, ..GenerationRequest::text(prompt) };
        p.set_strategy(StrategyConfig::Ar {}).unwrap();
        let ar = p.generate(&req, &mut |_| true).unwrap();
        assert_eq!(ar.tokens.len(), 256);
        for (name, s) in &strategies {
            p.set_strategy(s.clone()).unwrap();
            let out = p.generate(&req, &mut |_| true).unwrap();
            let first_diff = out.tokens.iter().zip(&ar.tokens).position(|(a, b)| a != b);
            assert_eq!(first_diff, None, "{name} differs from AR at token {first_diff:?} on {prompt:?}");
            assert_eq!(out.tokens.len(), ar.tokens.len());
            assert!(out.stats.drafted > 0, "{name} never drafted");
            eprintln!("{name}: tau {:.2}, acceptance {:.0}% on {:.30}", out.stats.tau(), 100.0 * out.stats.acceptance_rate(), prompt);
        }
    }
}

#[test]
fn speculative_pipelines_pad_one_token_steps_and_ar_pipelines_do_not() {
    // With padding the speculative pipeline loads; the batch-invariance switch is on for it and off for AR.
    let dir = tempfile::tempdir().unwrap();
    let cfg = pipeline_yaml(dir.path(), &smollm2("int4"), "strategy:\n  kind: speculative\n  drafter: {kind: ngram}\n");
    let mut p = Pipeline::load(&cfg).unwrap();
    assert!(p.target_mut().is_batch_invariant());
    let cfg = pipeline_yaml(dir.path(), &smollm2("int4"), "");
    let mut p = Pipeline::load(&cfg).unwrap();
    assert!(!p.target_mut().is_batch_invariant(), "plain AR pipelines keep the fastest decode path");
}

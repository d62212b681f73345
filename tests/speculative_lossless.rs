//! Speculative decoding is lossless: greedy outputs equal plain AR token for token for every drafter and window
//! policy over hundreds of prompts with 256+ new tokens; exact speculative sampling keeps the target's
//! distribution (chi-square tests at significance level 0.001, with a negative control that must be caught);
//! stops inside accepted drafts end exactly where AR ends; the KV cache after speculative decoding equals a fresh
//! AR cache over the committed tokens.

mod common;

use std::collections::HashMap;

use common::*;
use rand::{Rng, SeedableRng};
use specrt::config::{DrafterConfig, StrategyConfig, WindowConfig, WindowPolicyKind};
use specrt::generate::OutputSink;
use specrt::sampling::{Sampler, SamplingParams};
use specrt::stats::Stats;
use specrt::strategy::speculative::verify::{self, ResidualRule};
use specrt::strategy::{DecodeContext, Strategy};
use specrt::{GenerationRequest, Pipeline, Prompt};

/// Significance level of every statistical test in this file.
const ALPHA: f64 = 0.001;

const POLICIES: [WindowPolicyKind; 5] =
    [WindowPolicyKind::Static, WindowPolicyKind::Heuristic, WindowPolicyKind::Ewma, WindowPolicyKind::Entropy, WindowPolicyKind::CostModel];

fn drafters() -> Vec<(&'static str, DrafterConfig)> {
    vec![
        ("ngram", DrafterConfig::Ngram { n_max: 3, n_min: 1, window: 1024, match_ratio: 0.0, corpus: None }),
        ("layer_skip", DrafterConfig::LayerSkip { model: model_dir("tiny-fp32-skip1") }),
        ("draft_model", DrafterConfig::DraftModel { model: model_dir("tiny-draft-fp32") }),
        // The target drafting for itself: every draft is accepted, which stresses the full-accept path.
        ("self", DrafterConfig::DraftModel { model: tiny() }),
    ]
}

fn strategy(drafter: &DrafterConfig, policy: WindowPolicyKind, k: usize) -> StrategyConfig {
    StrategyConfig::Speculative {
        drafter: drafter.clone(),
        // The payoff guard off: these tests exercise drafting on every round (a test below turns it on).
        window: WindowConfig { policy, k, k_min: 1, k_max: 8, fallback: false, ..Default::default() },
        allow_lossy: false,
    }
}

fn tiny_pipeline(extra: &str) -> (tempfile::TempDir, Pipeline) {
    let dir = tempfile::tempdir().unwrap();
    // The cost model caches its curve; keep the tests' cache out of the user's home.
    std::env::set_var("SPECRT_CACHE_DIR", dir.path().join("cache"));
    let cfg = pipeline_yaml(dir.path(), &tiny(), &format!("context_length: 512\n{SPECULATIVE_YAML}{extra}"));
    (dir, Pipeline::load(&cfg).unwrap())
}

/// Deterministic prompts: random token runs, some with repeats so n-gram drafts find matches.
fn prompts(n: usize, seed: u64) -> Vec<Vec<u32>> {
    repeating_prompts(n, seed, 48)
}

fn greedy_request(prompt: &[u32], max_tokens: usize) -> GenerationRequest {
    GenerationRequest { prompt: Some(Prompt::Tokens(prompt.to_vec())), max_tokens: Some(max_tokens), ignore_eos: true, ..Default::default() }
}

#[test]
fn greedy_speculative_equals_ar_for_every_drafter_and_policy() {
    let (_d, mut p) = tiny_pipeline("");
    let prompts = prompts(200, 7);
    let max_tokens = 260;
    p.set_strategy(StrategyConfig::Ar {}).unwrap();
    let reference: Vec<Vec<u32>> = prompts.iter().map(|q| p.generate(&greedy_request(q, max_tokens), &mut |_| true).unwrap().tokens).collect();
    assert!(reference.iter().all(|r| r.len() == max_tokens));
    for (name, drafter) in drafters() {
        let mut drafted = 0;
        let mut accepted = 0;
        for (i, (prompt, want)) in prompts.iter().zip(&reference).enumerate() {
            let policy = POLICIES[i % POLICIES.len()];
            p.set_strategy(strategy(&drafter, policy, 1 + i % 6)).unwrap();
            let out = p.generate(&greedy_request(prompt, max_tokens), &mut |_| true).unwrap();
            assert_eq!(&out.tokens, want, "{name} / {policy:?}: prompt {i} differs from AR");
            drafted += out.stats.drafted;
            accepted += out.stats.accepted;
        }
        assert!(drafted > 0, "{name} never drafted");
        eprintln!("{name}: {accepted}/{drafted} draft tokens accepted over {} prompts", prompts.len());
        if name == "self" {
            assert_eq!(accepted, drafted, "a model drafting for itself must have every token accepted");
        }
    }
}

fn ngram(n_max: usize, n_min: usize, match_ratio: f32, corpus: Option<&std::path::Path>) -> DrafterConfig {
    DrafterConfig::Ngram {
        n_max,
        n_min,
        window: 1024,
        match_ratio,
        corpus: corpus.map(|c| specrt::config::CorpusConfig {
            path: c.to_path_buf(),
            max_tokens: 3,
            n_max: 4,
            n_min: 2,
            min_count: 1,
            min_share: 0.3,
        }),
    }
}

#[test]
fn match_length_drafting_and_the_lookup_corpus_stay_lossless() {
    let (d, mut p) = tiny_pipeline("");
    // The corpus is what a deployment would collect: the model's own greedy answers, to other prompts.
    p.set_strategy(StrategyConfig::Ar {}).unwrap();
    let answers: Vec<Vec<u32>> = prompts(80, 5).iter().map(|q| p.generate(&greedy_request(q, 200), &mut |_| true).unwrap().tokens).collect();
    let corpus = write_corpus(&d.path().join("corpus"), &tiny(), &answers, |s| s);
    let prompts = prompts(120, 21);
    let max_tokens = 256;
    let reference: Vec<Vec<u32>> = prompts.iter().map(|q| p.generate(&greedy_request(q, max_tokens), &mut |_| true).unwrap().tokens).collect();
    let configs =
        [("match", ngram(8, 2, 1.0, None)), ("match + corpus", ngram(8, 2, 1.0, Some(&corpus))), ("corpus", ngram(3, 1, 0.0, Some(&corpus)))];
    let mut totals = Vec::new();
    for (name, drafter) in &configs {
        let (mut drafted, mut accepted) = (0, 0);
        for (i, (prompt, want)) in prompts.iter().zip(&reference).enumerate() {
            let policy = POLICIES[i % POLICIES.len()];
            p.set_strategy(strategy(drafter, policy, 1 + i % 6)).unwrap();
            let out = p.generate(&greedy_request(prompt, max_tokens), &mut |_| true).unwrap();
            assert_eq!(&out.tokens, want, "{name} / {policy:?}: prompt {i} differs from AR");
            drafted += out.stats.drafted;
            accepted += out.stats.accepted;
        }
        eprintln!("{name}: {accepted}/{drafted} draft tokens accepted over {} prompts", prompts.len());
        totals.push((drafted, accepted));
    }
    // The corpus answers where the context has no match, and is right there often enough to matter.
    assert!(totals[1].0 > totals[0].0 && totals[1].1 > totals[0].1, "the corpus added no accepted drafts: {totals:?}");
}

#[test]
fn a_corpus_that_does_not_match_the_target_is_a_clear_error() {
    let (d, mut p) = tiny_pipeline("");
    let docs = vec![vec![5u32, 6, 7, 8], vec![9, 10, 11]];
    let cases: [(&str, Box<dyn Fn(String) -> String>, &str); 4] = [
        ("tokenizer", Box::new(|s: String| s.replacen("\"tokenizer_sha256\": \"", "\"tokenizer_sha256\": \"00", 1)), "tokenizer sha256"),
        ("tokens", Box::new(|s: String| s.replacen("\"tokens_sha256\": \"", "\"tokens_sha256\": \"00", 1)), "tokens.bin has sha256"),
        ("format", Box::new(|s: String| s.replacen("specrt-lookup-corpus", "other", 1)), "format is `other`"),
        ("count", Box::new(|s: String| s.replacen("\"documents\": 2", "\"documents\": 3", 1)), "holds 2 documents"),
    ];
    for (name, tamper, want) in cases {
        let dir = write_corpus(&d.path().join(name), &tiny(), &docs, tamper);
        let err = p.set_strategy(strategy(&ngram(3, 1, 0.0, Some(&dir)), WindowPolicyKind::Static, 2)).unwrap_err().to_string();
        assert!(err.contains("lookup corpus") && err.contains(want) && err.contains(&dir.display().to_string()), "{name}: {err}");
    }
    // An id outside the vocabulary, and a folder that is not there.
    let dir = write_corpus(&d.path().join("vocab"), &tiny(), &[vec![1, 100_000]], |s| s);
    let err = p.set_strategy(strategy(&ngram(3, 1, 0.0, Some(&dir)), WindowPolicyKind::Static, 2)).unwrap_err().to_string();
    assert!(err.contains("id 100000 at position 1"), "{err}");
    let err = p.set_strategy(strategy(&ngram(3, 1, 0.0, Some(&d.path().join("nowhere"))), WindowPolicyKind::Static, 2)).unwrap_err().to_string();
    assert!(err.contains("corpus.json"), "{err}");
    // The untampered folder loads (the control for the cases above).
    let dir = write_corpus(&d.path().join("good"), &tiny(), &docs, |s| s);
    p.set_strategy(strategy(&ngram(3, 1, 0.0, Some(&dir)), WindowPolicyKind::Static, 2)).unwrap();
}

#[test]
fn the_payoff_guard_falls_back_to_plain_steps_and_stays_lossless() {
    // An unrelated 1-layer draft model is rarely right: each round costs k draft passes for ~1 token, so drafting
    // does not pay and the guard must stop it after the warm-up (probing again now and then). Compared in the
    // same run with the guard off, so the check does not depend on this machine's speed; the output must stay AR's.
    let (_d, mut p) = tiny_pipeline("");
    let prompts = prompts(20, 13);
    let with = |fallback: bool| StrategyConfig::Speculative {
        drafter: DrafterConfig::DraftModel { model: model_dir("tiny-draft-fp32") },
        window: WindowConfig { k: 4, fallback, ..Default::default() },
        allow_lossy: false,
    };
    let (mut guarded, mut unguarded) = (0, 0);
    for prompt in &prompts {
        p.set_strategy(StrategyConfig::Ar {}).unwrap();
        let ar = p.generate(&greedy_request(prompt, 200), &mut |_| true).unwrap();
        for (fallback, drafted) in [(true, &mut guarded), (false, &mut unguarded)] {
            p.set_strategy(with(fallback)).unwrap();
            let out = p.generate(&greedy_request(prompt, 200), &mut |_| true).unwrap();
            assert_eq!(out.tokens, ar.tokens, "fallback {fallback}");
            assert!(out.stats.drafted > 0, "the warm-up drafts");
            *drafted += out.stats.drafted;
        }
    }
    assert!(guarded * 2 < unguarded, "the guard barely stopped drafting: {guarded} drafted vs {unguarded} without it");
}

#[test]
fn stops_inside_accepted_drafts_end_where_ar_ends() {
    let (_d, mut p) = tiny_pipeline("");
    let prompts = prompts(12, 11);
    for prompt in &prompts {
        p.set_strategy(StrategyConfig::Ar {}).unwrap();
        let full = p.generate(&greedy_request(prompt, 80), &mut |_| true).unwrap();
        // max_tokens at every length from 1 to 40: most fall inside an accepted draft of the self-drafter.
        for max_tokens in (1..40).step_by(3) {
            for (name, drafter) in [drafters().remove(3), drafters().remove(0)] {
                p.set_strategy(strategy(&drafter, WindowPolicyKind::Static, 7)).unwrap();
                let out = p.generate(&greedy_request(prompt, max_tokens), &mut |_| true).unwrap();
                assert_eq!(out.tokens, full.tokens[..max_tokens], "{name}: max_tokens {max_tokens}");
            }
        }
        // A stop string taken from the middle of the AR text.
        let text = full.text.clone();
        let chars: Vec<char> = text.chars().collect();
        if chars.len() < 20 {
            continue;
        }
        let stop: String = chars[chars.len() / 2..chars.len() / 2 + 2].iter().collect();
        let mut req = greedy_request(prompt, 80);
        req.stop = Some(vec![stop.clone()]);
        p.set_strategy(StrategyConfig::Ar {}).unwrap();
        let ar = p.generate(&req, &mut |_| true).unwrap();
        p.set_strategy(strategy(&drafters()[3].1, WindowPolicyKind::Static, 7)).unwrap();
        let mut streamed = String::new();
        let sp = p
            .generate(&req, &mut |s| {
                streamed.push_str(s);
                true
            })
            .unwrap();
        assert_eq!(sp.text, ar.text, "stop {stop:?}");
        assert_eq!(streamed, ar.text, "streamed text past a stop string");
        assert_eq!(sp.finish_reason, ar.finish_reason);
    }
}

#[test]
fn stop_tokens_inside_accepted_drafts_end_where_ar_ends() {
    // Make a frequent token of the AR output a stop id (a copy of the tiny model with an edited manifest).
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m");
    std::fs::create_dir_all(&model).unwrap();
    for e in std::fs::read_dir(tiny()).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), model.join(e.file_name())).unwrap();
    }
    let cfg = pipeline_yaml(dir.path(), &tiny(), SPECULATIVE_YAML);
    let mut ar = Pipeline::load(&cfg).unwrap();
    ar.set_strategy(StrategyConfig::Ar {}).unwrap();
    let prompt = prompts(1, 5).remove(0);
    let full = ar.generate(&greedy_request(&prompt, 60), &mut |_| true).unwrap();
    let stop_id = full.tokens[25];
    let path = model.join("manifest.json");
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    v["tokens"]["stop_ids"] = serde_json::json!([stop_id]);
    std::fs::write(&path, v.to_string()).unwrap();
    let cfg = pipeline_yaml(dir.path(), &model, SPECULATIVE_YAML);
    let mut p = Pipeline::load(&cfg).unwrap();
    p.set_strategy(StrategyConfig::Ar {}).unwrap();
    let mut req = greedy_request(&prompt, 60);
    req.ignore_eos = false;
    let ar_out = p.generate(&req, &mut |_| true).unwrap();
    let first = full.tokens.iter().position(|&t| t == stop_id).unwrap();
    assert_eq!(ar_out.tokens, full.tokens[..first]);
    for policy in POLICIES {
        p.set_strategy(strategy(&DrafterConfig::DraftModel { model: model.clone() }, policy, 6)).unwrap();
        let out = p.generate(&req, &mut |_| true).unwrap();
        assert_eq!(out.tokens, ar_out.tokens, "{policy:?}");
        assert_eq!(out.finish_reason, specrt::FinishReason::Stop);
    }
}

#[test]
fn kv_cache_after_speculative_decoding_equals_a_fresh_ar_cache() {
    let loader = specrt::model::ModelLoader::new(std::sync::Arc::new(backend(2)), 512);
    let tok = specrt::text::Tokenizer::load(&tiny().join("tokenizer.json")).unwrap();
    for (name, drafter) in drafters() {
        for policy in POLICIES {
            let mut target = loader.open(&tiny()).unwrap();
            target.ensure_batch_invariance().unwrap();
            let mut strat = specrt::strategy::build(&strategy(&drafter, policy, 5), &loader, target.manifest()).unwrap();
            strat.prepare(&mut target).unwrap();
            target.reset();
            let prompt = prompts(1, 3).remove(0);
            let mut sampler = Sampler::new(SamplingParams::default());
            let mut stats = Stats::default();
            let mut on_text = |_: &str| true;
            let mut sink = OutputSink::new(&tok, &[], &[], 150, &mut on_text, None);
            let mut ctx = DecodeContext { target: &mut target, prompt: &prompt, sampler: &mut sampler, sink: &mut sink, stats: &mut stats };
            strat.generate(&mut ctx).unwrap();
            let output = sink.tokens().to_vec();
            // The last output token is pending (sampled, not yet fed to the target).
            let mut committed = prompt.clone();
            committed.extend_from_slice(&output[..output.len() - 1]);
            assert_eq!(target.len(), committed.len(), "{name}/{policy:?}: committed length");
            let kv = target.read_kv().expect("the ONNX Runtime decoder shows its KV cache");
            target.reset();
            target.append(&committed).unwrap();
            let fresh = target.read_kv().expect("the ONNX Runtime decoder shows its KV cache");
            let diff = max_abs_diff(&kv, &fresh);
            assert!(diff < 1e-4, "{name}/{policy:?}: KV differs by {diff}");
        }
    }
}

/// Draws the token that exact verification outputs first for a one-token draft drawn from q.
fn first_token_law(p_logits: &[f32], q: &[f32], rule: ResidualRule, n: usize, seed: u64) -> Vec<usize> {
    let vocab = p_logits.len();
    let mut sampler = Sampler::new(SamplingParams { temperature: 1.0, seed, ..Default::default() });
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ 99);
    let mut counts = vec![0usize; vocab];
    let mut residual = Vec::new();
    // rows: the logits before the draft token and after it (the second row only matters on full acceptance).
    let rows: Vec<f32> = p_logits.iter().chain(p_logits.iter()).copied().collect();
    for _ in 0..n {
        let x = specrt::sampling::draw(q, rng.random::<f32>());
        let mut history = Vec::new();
        let v = verify::exact(&rows, vocab, &[x], Some(&[q.to_vec()]), &mut sampler, &mut history, &mut residual, rule);
        let first = if v.accepted == 1 { x } else { v.bonus };
        counts[first as usize] += 1;
    }
    counts
}

#[test]
fn exact_acceptance_keeps_the_target_distribution_and_a_biased_rule_is_caught() {
    // Target p and a deliberately different draft q over 6 tokens.
    let p_logits = [1.2f32, 0.3, -0.5, 0.9, -1.0, 0.0];
    let mut p: Vec<f64> = p_logits.iter().map(|&l| (l as f64).exp()).collect();
    let z: f64 = p.iter().sum();
    p.iter_mut().for_each(|v| *v /= z);
    let q = [0.05f32, 0.4, 0.3, 0.05, 0.1, 0.1];
    let n = 20_000;
    let good = first_token_law(&p_logits, &q, ResidualRule::Residual, n, 1);
    let (stat, dof, pv) = chi2_goodness(&good, &p);
    assert!(pv > ALPHA, "exact rule rejected: chi2 {stat:.1} (dof {dof}), p-value {pv:.2e}");
    // Negative control: drawing the replacement from p (the reference-code bug) must be detected.
    let bad = first_token_law(&p_logits, &q, ResidualRule::BiasedFromTarget, n, 2);
    let (stat, dof, pv) = chi2_goodness(&bad, &p);
    assert!(pv < ALPHA, "the biased rule went unnoticed: chi2 {stat:.1} (dof {dof}), p-value {pv:.2e}");
}

/// Tokens per sampled generation in the end-to-end distribution tests: long enough that drafts of k >= 2 are
/// verified and accepted many times per run (the first token comes from the prefill in every strategy).
const CHAIN: usize = 12;

/// Per-position token counts (positions 1..CHAIN) and the joint counts of positions (1, 2) as one category.
type Law = (Vec<HashMap<u32, usize>>, HashMap<u32, usize>);

fn sampled_law(generate: &mut dyn FnMut(u64) -> (Vec<u32>, Stats), runs: u64, offset: u64, drafted: &mut usize) -> Law {
    let mut by_pos: Vec<HashMap<u32, usize>> = vec![HashMap::new(); CHAIN];
    let mut pairs = HashMap::new();
    for s in 0..runs {
        let (tokens, stats) = generate(offset + s);
        assert_eq!(tokens.len(), CHAIN);
        *drafted += stats.drafted;
        for (i, &t) in tokens.iter().enumerate() {
            *by_pos[i].entry(t).or_default() += 1;
        }
        *pairs.entry(tokens[1] * 1000 + tokens[2]).or_default() += 1;
    }
    (by_pos, pairs)
}

/// The smallest p-value over the per-position tests (positions 1..CHAIN) and the joint (1, 2) test, with the
/// number of tests for a Bonferroni correction.
fn min_p_value(a: &Law, b: &Law) -> (f64, usize) {
    let mut worst = chi2_two_sample(&a.1, &b.1).2;
    for pos in 1..CHAIN {
        worst = worst.min(chi2_two_sample(&a.0[pos], &b.0[pos]).2);
    }
    (worst, CHAIN)
}

/// The law of `runs` sampled generations of the pipeline's current strategy.
fn pipeline_law(p: &mut Pipeline, prompt: &[u32], runs: u64, offset: u64, drafted: &mut usize) -> Law {
    sampled_law(
        &mut |seed| {
            let o = p.generate(&sampled_request(prompt, seed), &mut |_| true).unwrap();
            (o.tokens, o.stats)
        },
        runs,
        offset,
        drafted,
    )
}

fn sampled_request(prompt: &[u32], seed: u64) -> GenerationRequest {
    GenerationRequest {
        prompt: Some(Prompt::Tokens(prompt.to_vec())),
        max_tokens: Some(CHAIN),
        temperature: Some(1.0),
        // top_k = 8 keeps the support small so the chi-square tests have power.
        top_k: Some(8),
        seed: Some(seed),
        ignore_eos: true,
        ..Default::default()
    }
}

#[test]
fn speculative_sampling_matches_ar_sampling_over_long_chains() {
    let (_d, mut p) = tiny_pipeline("");
    // Repeats give the n-gram drafter matches to draft from.
    let prompt = vec![10u32, 20, 30, 40, 10, 20, 30, 40, 10, 20];
    let runs = 1500;
    p.set_strategy(StrategyConfig::Ar {}).unwrap();
    let ar = pipeline_law(&mut p, &prompt, runs, 0, &mut 0);
    for (name, drafter) in drafters().into_iter().take(3) {
        p.set_strategy(strategy(&drafter, WindowPolicyKind::Static, 3)).unwrap();
        let mut drafted = 0;
        let sp = pipeline_law(&mut p, &prompt, runs, 1_000_000, &mut drafted);
        assert!(drafted as u64 > runs, "{name}: drafted only {drafted} tokens over {runs} runs");
        let (pv, tests) = min_p_value(&ar, &sp);
        assert!(pv > ALPHA / tests as f64, "{name}: a token distribution differs from AR (min p {pv:.2e} over {tests} tests)");
    }
}

#[test]
fn end_to_end_sampling_test_catches_a_biased_residual() {
    // Negative control for the test above: the same harness must reject the reference-code rule (replacement
    // drawn from p instead of the residual) with the layer-skip drafter, whose q overlaps p only partly (an unrelated
    // model's q barely overlaps p, so replacements from p are then nearly exact and nothing can be detected).
    let (_d, mut p) = tiny_pipeline("");
    let prompt = vec![10u32, 20, 30, 40, 10, 20, 30, 40, 10, 20];
    let runs = 1500;
    p.set_strategy(StrategyConfig::Ar {}).unwrap();
    let ar = pipeline_law(&mut p, &prompt, runs, 0, &mut 0);
    let loader = specrt::model::ModelLoader::new(std::sync::Arc::new(backend(2)), 512);
    let mut target = loader.open(&tiny()).unwrap();
    target.ensure_batch_invariance().unwrap();
    let draft = loader.open(&model_dir("tiny-fp32-skip1")).unwrap();
    let mut biased = specrt::strategy::speculative::Speculative::new(
        Box::new(specrt::strategy::speculative::draft_model::DraftModel::new(draft, false, target.manifest())),
        specrt::strategy::speculative::window::build(&WindowConfig { k: 3, ..Default::default() }),
    )
    .with_residual_rule(ResidualRule::BiasedFromTarget);
    let tok = specrt::text::Tokenizer::load(&tiny().join("tokenizer.json")).unwrap();
    let mut drafted = 0;
    let bad = sampled_law(
        &mut |seed| {
            let params = SamplingParams { temperature: 1.0, top_k: 8, seed, ..Default::default() };
            let mut sampler = Sampler::new(params);
            let mut stats = Stats::default();
            let mut on_text = |_: &str| true;
            let mut sink = OutputSink::new(&tok, &[], &[], CHAIN, &mut on_text, None);
            target.reset();
            let mut ctx = DecodeContext { target: &mut target, prompt: &prompt, sampler: &mut sampler, sink: &mut sink, stats: &mut stats };
            biased.generate(&mut ctx).unwrap();
            (sink.tokens().to_vec(), stats)
        },
        runs,
        2_000_000,
        &mut drafted,
    );
    assert!(drafted > 0);
    let (pv, tests) = min_p_value(&ar, &bad);
    assert!(pv < ALPHA / tests as f64, "the biased rule went unnoticed end to end (min p {pv:.2e} over {tests} tests)");
}

#[test]
fn sampling_with_a_biased_strategy_is_refused_unless_allowed() {
    let backend = backend(1);
    let target = specrt::model::LanguageModel::open(&backend, &tiny(), Some(64)).unwrap();
    let s = specrt::strategy::speculative::Speculative::new(
        Box::new(specrt::strategy::speculative::ngram::NgramDrafter::new(3, 1, 0)),
        specrt::strategy::speculative::window::build(&WindowConfig::default()),
    );
    assert!(s.exact_under_sampling());
    let biased = s.with_residual_rule(ResidualRule::BiasedFromTarget);
    assert!(!biased.exact_under_sampling());
    drop(target);
}

//! Draft heads with token-tree verification are lossless: for every head kind (ctc, medusa, eagle; random-weight
//! heads bound to the tiny target) and several tree shapes, with and without prompt lookup, greedy output equals
//! AR of the same target and numerics over many prompts and 256+ tokens; sampled output follows the target's
//! distribution (chi-square, alpha 0.001). A head bound to another target, or a target without hidden states,
//! is a clear error. Trees sized each round from the measured cost curve (`window.policy: cost_model`) are lossless
//! too.

mod common;

use common::*;
use specrt::config::{CorpusConfig, DrafterConfig, HybridLookup, LookupSettings, StrategyConfig, WindowConfig, WindowPolicyKind};
use specrt::{GenerationRequest, Pipeline, Prompt};

const ALPHA: f64 = 0.001;
const KINDS: [&str; 3] = ["ctc", "medusa", "eagle"];

fn head(kind: &str, max_nodes: usize, max_depth: usize, ngram: bool) -> StrategyConfig {
    head_with(kind, max_nodes, max_depth, ngram, WindowPolicyKind::Static)
}

/// `policy: cost_model` sizes the tree each round from the measured verify-cost curve (at most `max_nodes`).
fn head_with(kind: &str, max_nodes: usize, max_depth: usize, ngram: bool, policy: WindowPolicyKind) -> StrategyConfig {
    head_lookup(kind, max_nodes, max_depth, HybridLookup::Switch(ngram), policy)
}

/// A head drafter with hybrid lookup `ngram` (a switch, or the `kind: ngram` drafter's settings).
fn head_lookup(kind: &str, max_nodes: usize, max_depth: usize, ngram: HybridLookup, policy: WindowPolicyKind) -> StrategyConfig {
    tiny_head(kind, max_nodes, max_depth, ngram, policy)
}

fn target() -> std::path::PathBuf {
    model_dir("tiny-fp32-hs")
}

/// A pipeline on the hidden-states target whose numerics were probed (so AR afterwards is the exact reference).
fn pipeline(dir: &std::path::Path) -> Pipeline {
    let cfg = pipeline_yaml(dir, &target(), &format!("context_length: 512\n{SPECULATIVE_YAML}"));
    Pipeline::load(&cfg).unwrap()
}

fn prompts(n: usize, seed: u64) -> Vec<Vec<u32>> {
    repeating_prompts(n, seed, 40)
}

fn greedy(prompt: &[u32], n: usize) -> GenerationRequest {
    GenerationRequest { prompt: Some(Prompt::Tokens(prompt.to_vec())), max_tokens: Some(n), ignore_eos: true, ..Default::default() }
}

#[test]
fn greedy_tree_verification_equals_ar_for_every_head_kind_and_shape() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = pipeline(dir.path());
    let prompts = prompts(60, 17);
    let n = 260;
    p.set_strategy(StrategyConfig::Ar {}).unwrap();
    let reference: Vec<Vec<u32>> = prompts.iter().map(|q| p.generate(&greedy(q, n), &mut |_| true).unwrap().tokens).collect();
    // (nodes, depth, hybrid, sizing): a chain-like tree, a small bushy tree, a larger tree with prompt lookup, and
    // trees sized each round from the cost curve (with and without prompt lookup).
    let (fixed, sized) = (WindowPolicyKind::Static, WindowPolicyKind::CostModel);
    let shapes = [(4, 3, false, fixed), (6, 2, false, fixed), (12, 6, true, fixed), (8, 3, false, sized), (12, 4, true, sized)];
    for kind in KINDS {
        let (mut drafted, mut accepted) = (0, 0);
        for (i, (prompt, want)) in prompts.iter().zip(&reference).enumerate() {
            let (nodes, depth, hybrid, policy) = shapes[i % shapes.len()];
            p.set_strategy(head_with(kind, nodes, depth, hybrid, policy)).unwrap();
            let out = p.generate(&greedy(prompt, n), &mut |_| true).unwrap();
            let diff = out.tokens.iter().zip(want).position(|(a, b)| a != b);
            assert_eq!(
                diff, None,
                "{kind} head, tree ({nodes} nodes, depth {depth}, ngram {hybrid}, {policy:?}): prompt {i} differs from AR at token {diff:?}"
            );
            assert_eq!(out.tokens.len(), want.len());
            drafted += out.stats.drafted;
            accepted += out.stats.accepted;
        }
        assert!(drafted > 0, "{kind}: never drafted");
        assert!(accepted > 0, "{kind}: nothing accepted (the random heads copy the target's own head, so some drafts must hit)");
        eprintln!("{kind}: {accepted}/{drafted} tree nodes accepted over {} prompts", prompts.len());
    }
}

/// The heads exported at `--precision q8_0` (every matrix as GGML Q8_0 blocks on the engine's int8 kernel): still
/// lossless (the target verifies), and drafting like the float heads they were made from: their accepted nodes are
/// within 20% of the fp32 heads' on the same prompts (the rounding flips only near-ties of the draft's top-k). The
/// EAGLE head also at `--precision q4_1` (Q4_1 blocks in its one-node export), under the same bounds.
#[test]
fn q8_0_heads_stay_lossless_and_draft_like_their_float_heads() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = pipeline(dir.path());
    let prompts = prompts(24, 29);
    let n = 256;
    p.set_strategy(StrategyConfig::Ar {}).unwrap();
    let reference: Vec<Vec<u32>> = prompts.iter().map(|q| p.generate(&greedy(q, n), &mut |_| true).unwrap().tokens).collect();
    for kind in KINDS {
        // EAGLE also at Q4_1 (`--precision q4_1`, its one-node export with 4-bit blocks).
        let mut folders = vec![format!("tiny-fp32-{kind}-head"), format!("tiny-fp32-{kind}-head-q8_0")];
        if kind == "eagle" {
            folders.push("tiny-fp32-eagle-head-q4_1".into());
        }
        let mut accepted = vec![0usize; folders.len()];
        for (f, folder) in folders.iter().enumerate() {
            let drafter = DrafterConfig::Head {
                model: model_dir(folder),
                beam: 4,
                top_k: 3,
                max_nodes: 6,
                max_depth: 3,
                ngram: HybridLookup::Switch(false),
                side_branches: Default::default(),
            };
            let window = WindowConfig { policy: WindowPolicyKind::Static, fallback: false, ..Default::default() };
            p.set_strategy(StrategyConfig::Speculative { drafter, window, allow_lossy: false }).unwrap();
            for (i, (prompt, want)) in prompts.iter().zip(&reference).enumerate() {
                let out = p.generate(&greedy(prompt, n), &mut |_| true).unwrap();
                assert_eq!(&out.tokens, want, "{folder}: prompt {i} differs from AR");
                accepted[f] += out.stats.accepted;
            }
        }
        eprintln!("{kind}: accepted {accepted:?} ({folders:?})");
        assert!(accepted.iter().all(|&a| a > 0), "{kind}: {accepted:?}");
        for (folder, &a) in folders.iter().zip(&accepted).skip(1) {
            let ratio = a as f64 / accepted[0] as f64;
            assert!((0.8..=1.25).contains(&ratio), "{folder}: accepted {a} nodes, the fp32 head {}", accepted[0]);
        }
    }
}

/// The q8_0 EAGLE head as one `ai.specrt::EagleHeadGgml` node (the default export) computes what the same head node
/// by node computes (`--unfused-layers`): over a drafting-like sequence of calls (sliding windows of committed pairs,
/// then drafted pairs appended), the logits agree to float rounding and the top draft is the same; the fused node
/// remembers pairs across calls, which these calls exercise. Negative control: the same comparison against the
/// previous call's logits fails.
#[test]
fn the_fused_eagle_head_computes_what_the_node_by_node_head_computes() {
    use specrt::backend::{Backend, HeadGraph, HeadInput};
    use specrt::contract::GraphSpec;
    let backend = common::backend(2);
    let open = |folder: &str| -> Box<dyn HeadGraph> {
        let dir = model_dir(folder);
        let manifest: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
        let graph: GraphSpec = serde_json::from_value(manifest["graph"].clone()).unwrap();
        backend.open_head(&dir, &graph).unwrap()
    };
    let onnx = |folder: &str| std::fs::read(model_dir(folder).join("model.onnx")).unwrap();
    let has = |bytes: &[u8], what: &str| bytes.windows(what.len()).any(|w| w == what.as_bytes());
    assert!(has(&onnx("tiny-fp32-eagle-head-q8_0"), "EagleHeadGgml"), "the default q8_0 EAGLE export is not the fused node");
    assert!(!has(&onnx("tiny-fp32-eagle-head-q8_0-unfused"), "EagleHeadGgml"));
    let (mut fused, mut nodes) = (open("tiny-fp32-eagle-head-q8_0"), open("tiny-fp32-eagle-head-q8_0-unfused"));
    let h = 64usize;
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let stream: Vec<f32> = (0..60 * h).map(|_| (next() % 2001) as f32 / 500.0 - 2.0).collect();
    let tokens: Vec<i64> = (0..60).map(|_| (next() % 256) as i64).collect();
    let (mut worst, mut range, mut same_top, mut calls) = (0.0f32, 0.0f32, 0, 0);
    let mut previous: Option<Vec<f32>> = None;
    let mut control = f32::INFINITY;
    for end in (1usize..=60).step_by(3) {
        let start = end.saturating_sub(16);
        let (mut hidden, mut ids) = (stream[start * h..end * h].to_vec(), tokens[start..end].to_vec());
        for depth in 0..3 {
            let s = ids.len() as i64;
            let inputs = [
                HeadInput::F32 { name: "hidden_states", data: &hidden, shape: &[1, s, h as i64] },
                HeadInput::I64 { name: "input_ids", data: &ids, shape: &[1, s] },
            ];
            fused.run(&inputs).unwrap();
            nodes.run(&inputs).unwrap();
            let (a, b) = (fused.output("logits").unwrap().to_vec(), nodes.output("logits").unwrap().to_vec());
            assert_eq!(a.len(), b.len());
            let diff = a.iter().zip(&b).fold(0.0f32, |m, (x, y)| m.max((x - y).abs()));
            worst = worst.max(diff);
            range = range.max(b.iter().fold(0.0f32, |m, v| m.max(v.abs())));
            let top = |v: &[f32]| v.iter().enumerate().max_by(|x, y| x.1.total_cmp(y.1)).map(|(i, _)| i);
            same_top += usize::from(top(&a) == top(&b));
            calls += 1;
            if let Some(p) = &previous {
                control = control.min(a.iter().zip(p).fold(0.0f32, |m, (x, y)| m.max((x - y).abs())));
            }
            previous = Some(a);
            // The next depth appends the head's own feature and its top token, as a drafting round does.
            let feature = fused.output("features").unwrap().to_vec();
            if ids.len() == 16 {
                hidden.drain(..h);
                ids.remove(0);
            }
            hidden.extend_from_slice(&feature);
            ids.push(((depth * 37 + end) % 256) as i64);
        }
    }
    eprintln!("fused vs node-by-node EAGLE head: {calls} calls, logits differ by <= {worst} (range {range}), same top draft in {same_top}");
    assert!(worst <= 1e-3 * range.max(1.0), "the fused head's logits differ from the node-by-node head's by {worst} (range {range})");
    assert!(same_top * 10 >= calls * 9, "the fused head's top draft agrees in only {same_top} of {calls} calls");
    assert!(control > 100.0 * worst, "negative control: consecutive calls' logits differ by only {control} (vs {worst})");
}

#[test]
fn tree_sampling_matches_ar_sampling() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = pipeline(dir.path());
    let prompt = vec![10u32, 20, 30, 40, 10, 20, 30, 40, 10, 20];
    const CHAIN: usize = 10;
    let runs = 1200u64;
    let law =
        |p: &mut Pipeline, offset: u64, accepted: &mut usize| sampling_law(p, &prompt, CHAIN, runs, offset, |out| *accepted += out.stats.accepted);
    p.set_strategy(StrategyConfig::Ar {}).unwrap();
    let mut none = 0;
    let ar = law(&mut p, 0, &mut none);
    for kind in ["ctc", "medusa"] {
        p.set_strategy(head(kind, 6, 3, true)).unwrap();
        let mut accepted = 0;
        let sp = law(&mut p, 9_000_000, &mut accepted);
        assert!(accepted > 0, "{kind}: no draft accepted under sampling");
        for pos in 1..CHAIN {
            let (stat, dof, pv) = chi2_two_sample(&ar[pos], &sp[pos]);
            // Bonferroni over the positions: family-wise level ALPHA.
            assert!(pv > ALPHA / (CHAIN - 1) as f64, "{kind}: token {} differs from AR: chi2 {stat:.1} (dof {dof}), p {pv:.2e}", pos + 1);
        }
    }
}

#[test]
fn kv_cache_after_tree_decoding_equals_a_fresh_ar_cache() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = pipeline(dir.path());
    let prompt = prompts(1, 5).remove(0);
    p.set_strategy(head("ctc", 8, 4, true)).unwrap();
    let out = p.generate(&greedy(&prompt, 120), &mut |_| true).unwrap();
    p.set_strategy(StrategyConfig::Ar {}).unwrap();
    let ar = p.generate(&greedy(&prompt, 120), &mut |_| true).unwrap();
    assert_eq!(out.tokens, ar.tokens);
    assert!(
        out.stats.target_calls < ar.stats.target_calls,
        "tree decoding must save target calls: {} vs {}",
        out.stats.target_calls,
        ar.stats.target_calls
    );
}

#[test]
fn a_head_for_another_target_or_a_target_without_hidden_states_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    // tiny-fp32 has no hidden_states output.
    let cfg = pipeline_yaml(
        dir.path(),
        &tiny(),
        &format!("strategy:\n  kind: speculative\n  drafter: {{kind: head, model: {}}}\n", model_dir("tiny-fp32-ctc-head").display()),
    );
    let err = Pipeline::load(&cfg).err().expect("refused").to_string();
    assert!(err.contains("hidden_states") && err.contains("--hidden-states"), "{err}");
    // A head whose target checkpoint differs (the 1-layer draft model is another random checkpoint).
    let other = dir.path().join("head");
    std::fs::create_dir_all(&other).unwrap();
    for e in std::fs::read_dir(model_dir("tiny-fp32-medusa-head")).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), other.join(e.file_name())).unwrap();
    }
    let path = other.join("manifest.json");
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    v["target"]["source_sha256"] = "0".repeat(64).into();
    std::fs::write(&path, v.to_string()).unwrap();
    let cfg =
        pipeline_yaml(dir.path(), &target(), &format!("strategy:\n  kind: speculative\n  drafter: {{kind: head, model: {}}}\n", other.display()));
    let err = Pipeline::load(&cfg).err().expect("refused").to_string();
    assert!(err.contains("belongs to the checkpoint"), "{err}");
    // A head whose hidden size does not match.
    v["target"]["source_sha256"] = serde_json::Value::String(String::new());
    let mut w: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(model_dir("tiny-fp32-medusa-head").join("manifest.json")).unwrap()).unwrap();
    w["target"]["hidden_size"] = 65.into();
    std::fs::write(&path, w.to_string()).unwrap();
    let err = Pipeline::load(&cfg).err().expect("refused").to_string();
    assert!(err.contains("hidden size 65"), "{err}");
    // A decoder folder given as a head.
    let cfg =
        pipeline_yaml(dir.path(), &target(), &format!("strategy:\n  kind: speculative\n  drafter: {{kind: head, model: {}}}\n", tiny().display()));
    let err = Pipeline::load(&cfg).err().expect("refused").to_string();
    assert!(err.contains("kind is `decoder`"), "{err}");
    // Bad shapes are config errors naming the key.
    let cfg = pipeline_yaml(dir.path(), &target(), "strategy:\n  kind: speculative\n  drafter: {kind: head, model: x, max_nodes: 1}\n");
    let err = specrt::config::load_file(&cfg).expect_err("invalid").to_string();
    assert!(err.contains("strategy.drafter.max_nodes"), "{err}");
}

#[test]
fn trained_heads_on_smollm2_are_lossless() {
    // The committed heads, on the int4 target with hidden states: 3 real chat prompts x 256 tokens.
    const PROMPTS: [&str; 3] = [
        "Write a Python function that checks whether a string is a palindrome.",
        "Explain in a few sentences why the sky is blue.",
        "List three tips for writing clear commit messages.",
    ];
    let dir = tempfile::tempdir().unwrap();
    let cfg = pipeline_yaml(dir.path(), &model_dir("smollm2-135m-instruct-int4-hs"), SPECULATIVE_YAML);
    let mut p = Pipeline::load(&cfg).unwrap();
    for prompt in PROMPTS {
        let req = GenerationRequest { max_tokens: Some(256), chat: Some(true), ignore_eos: true, ..GenerationRequest::text(prompt) };
        p.set_strategy(StrategyConfig::Ar {}).unwrap();
        let ar = p.generate(&req, &mut |_| true).unwrap();
        // The static 4-node tree of the shipped configs, Medusa with the tree sized from the cost curve, and the
        // retrained EAGLE head (export/trained/smollm2-eagle-ggml-head: depth by depth, its calls priced by the
        // node budget; trained on the engine-kernel export, run here on this target's numerics, which only its
        // acceptance may notice).
        for (kind, max_nodes, policy) in [
            ("ctc", 4, WindowPolicyKind::Static),
            ("medusa", 4, WindowPolicyKind::Static),
            ("medusa", 8, WindowPolicyKind::CostModel),
            ("eagle-ggml", 8, WindowPolicyKind::CostModel),
        ] {
            let drafter = DrafterConfig::Head {
                model: model_dir(&format!("smollm2-135m-instruct-int4-{kind}-head")),
                beam: 3,
                top_k: 3,
                max_nodes,
                max_depth: 3,
                ngram: HybridLookup::Switch(true),
                side_branches: Default::default(),
            };
            let window = WindowConfig { policy, fallback: false, ..Default::default() };
            p.set_strategy(StrategyConfig::Speculative { drafter, window, allow_lossy: false }).unwrap();
            let out = p.generate(&req, &mut |_| true).unwrap();
            let diff = out.tokens.iter().zip(&ar.tokens).position(|(a, b)| a != b);
            assert_eq!(diff, None, "{kind} head ({policy:?}) differs from AR at token {diff:?} on {prompt:?}");
            assert_eq!(out.tokens.len(), ar.tokens.len());
            assert!(out.stats.accepted > 0, "{kind}: the trained head never hit on {prompt:?}");
            eprintln!("{kind}: tau {:.2}, acceptance {:.0}% on {prompt:.30}", out.stats.tau(), 100.0 * out.stats.acceptance_rate());
        }
    }
}

/// The retrained SmolLM2 EAGLE head as shipped for the engine kernels (`--precision q8_0`: one
/// `ai.specrt::EagleHeadGgml` node, remembering pairs across calls) on the engine-kernel target it was trained on:
/// alone and in the hybrid with lookup, 3 chat prompts x 256 tokens identical to AR, and its drafts hit.
#[test]
fn the_one_node_eagle_head_on_the_engine_kernels_is_lossless() {
    const PROMPTS: [&str; 3] = [
        "Write a Python function that returns the n-th Fibonacci number.",
        "Give me three ideas for a rainy weekend.",
        "What does a compiler do? Answer briefly.",
    ];
    let dir = tempfile::tempdir().unwrap();
    let cfg = pipeline_yaml(dir.path(), &model_dir("smollm2-135m-instruct-int4-ggml-hs"), SPECULATIVE_YAML);
    let mut p = Pipeline::load(&cfg).unwrap();
    let head = model_dir("smollm2-135m-instruct-int4-ggml-eagle-ggml-head-q8_0");
    assert!(std::fs::read_to_string(head.join("manifest.json")).unwrap().contains("EagleHeadGgml"), "{} is not the one-node export", head.display());
    for prompt in PROMPTS {
        let req = GenerationRequest { max_tokens: Some(256), chat: Some(true), ignore_eos: true, ..GenerationRequest::text(prompt) };
        p.set_strategy(StrategyConfig::Ar {}).unwrap();
        let ar = p.generate(&req, &mut |_| true).unwrap();
        for hybrid in [false, true] {
            let drafter = DrafterConfig::Head {
                model: head.clone(),
                beam: 3,
                top_k: 3,
                max_nodes: 8,
                max_depth: 3,
                ngram: HybridLookup::Switch(hybrid),
                side_branches: Default::default(),
            };
            let window = WindowConfig { policy: WindowPolicyKind::CostModel, fallback: false, ..Default::default() };
            p.set_strategy(StrategyConfig::Speculative { drafter, window, allow_lossy: false }).unwrap();
            let out = p.generate(&req, &mut |_| true).unwrap();
            let diff = out.tokens.iter().zip(&ar.tokens).position(|(a, b)| a != b);
            assert_eq!(diff, None, "one-node EAGLE head (lookup {hybrid}) differs from AR at token {diff:?} on {prompt:?}");
            assert_eq!(out.tokens.len(), ar.tokens.len());
            assert!(out.stats.accepted > 0, "the one-node head never hit on {prompt:?}");
            eprintln!(
                "one-node eagle (lookup {hybrid}): tau {:.2}, acceptance {:.0}% on {prompt:.30}",
                out.stats.tau(),
                100.0 * out.stats.acceptance_rate()
            );
        }
    }
}

/// The shipped configs/smollm2-eagle-lookup.yaml as a user loads it (the one-node EAGLE head, match lookup with the
/// committed corpus, side branches exact): 2 prompts x 256 tokens identical to AR of the same target, the probe
/// finds the engine kernels' side branches exact so the walk follows them, and drafts are accepted.
#[test]
fn the_shipped_smollm2_eagle_lookup_config_is_lossless_and_follows_side_branches() {
    use specrt::stats::Details;
    // Two prompts (code, chat): the long lossless sweeps over many prompts are the tests above; this one is the file.
    const PROMPTS: [&str; 2] =
        ["Write a Python function that merges two sorted lists into one sorted list.", "Explain what a hash table is to a new programmer."];
    let config = root().join("configs/smollm2-eagle-lookup.yaml");
    let mut p = Pipeline::load(&config).unwrap();
    let shipped = p.config().strategy.clone();
    let (mut side_tokens, mut lookup_rounds, mut accepted) = (0, 0, 0);
    for prompt in PROMPTS {
        let req = GenerationRequest { max_tokens: Some(256), chat: Some(true), ignore_eos: true, ..GenerationRequest::text(prompt) };
        p.set_strategy(shipped.clone()).unwrap();
        let out = p.generate(&req, &mut |_| true).unwrap();
        p.set_strategy(StrategyConfig::Ar {}).unwrap();
        let ar = p.generate(&req, &mut |_| true).unwrap();
        let diff = out.tokens.iter().zip(&ar.tokens).position(|(a, b)| a != b);
        assert_eq!(diff, None, "smollm2-eagle-lookup differs from AR at token {diff:?} on {prompt:?}");
        assert_eq!(out.tokens.len(), 256);
        assert_eq!(out.tokens.len(), ar.tokens.len());
        let Details::Tree { side_branches, side_tokens: side, lookup_only_rounds, .. } = &out.stats.details else { panic!("tree details expected") };
        assert_eq!(side_branches, "exact", "the probe should find the engine kernels' side branches exact");
        side_tokens += side;
        lookup_rounds += lookup_only_rounds;
        accepted += out.stats.accepted;
        eprintln!("smollm2-eagle-lookup: tau {:.2}, side tokens {side}, lookup rounds {lookup_only_rounds} on {prompt:.30}", out.stats.tau());
    }
    assert!(accepted > 0 && lookup_rounds > 0, "accepted {accepted}, lookup-only rounds {lookup_rounds}");
    // How many side nodes get verified depends on the trees the cost model sizes from this machine's timings, so
    // their acceptance is not asserted here (tests/tree_side_branches.rs does, on fixed trees).
    eprintln!("side tokens accepted over {} prompts: {side_tokens}", PROMPTS.len());
}

#[test]
fn hybrid_rounds_with_a_lookup_continuation_skip_the_head_call() {
    // With a lookup continuation as the main chain, a lossless walk could only end on the head's side branches;
    // the strategy skips the head's call in those rounds (tree.rs). Outputs stay AR's (the test above); here: the
    // rounds are counted, and the head is called less often than in the same run without lookup.
    use specrt::stats::Details;
    let dir = tempfile::tempdir().unwrap();
    let mut p = pipeline(dir.path());
    let (mut lookup_only, mut calls_hybrid, mut calls_head) = (0, 0u64, 0u64);
    for prompt in prompts(12, 5) {
        for hybrid in [true, false] {
            p.set_strategy(head_with("medusa", 8, 3, hybrid, WindowPolicyKind::Static)).unwrap();
            let out = p.generate(&greedy(&prompt, 120), &mut |_| true).unwrap();
            let Details::Tree { lookup_only_rounds, .. } = out.stats.details else { panic!("tree details expected") };
            if hybrid {
                lookup_only += lookup_only_rounds;
                calls_hybrid += out.stats.backend_calls - out.stats.target_calls as u64;
            } else {
                assert_eq!(lookup_only_rounds, 0, "no lookup, no lookup-only rounds");
                calls_head += out.stats.backend_calls - out.stats.target_calls as u64;
            }
        }
    }
    assert!(lookup_only > 0, "repeating prompts: prompt lookup must supply some rounds");
    assert!(calls_hybrid < calls_head, "head calls: hybrid {calls_hybrid} vs head alone {calls_head}");
}

/// The hybrid takes the n-gram drafter's own settings (`ngram: {n_max, n_min, match_ratio, corpus}`): match-length
/// drafting and a lookup corpus inside the tree stay lossless for every head kind (static and cost-model trees, the
/// payoff guards on and off), and the corpus supplies rounds
/// the context alone does not (more lookup-only rounds than the same settings without it). Negative control: the
/// corpus is the target's own answers to OTHER prompts, so any gain is the corpus's, not a copy of the reference.
#[test]
fn hybrid_lookup_with_match_length_and_a_corpus_stays_lossless() {
    use specrt::stats::Details;
    let dir = tempfile::tempdir().unwrap();
    let mut p = pipeline(dir.path());
    p.set_strategy(StrategyConfig::Ar {}).unwrap();
    let answers: Vec<Vec<u32>> = prompts(40, 91).iter().map(|q| p.generate(&greedy(q, 200), &mut |_| true).unwrap().tokens).collect();
    let corpus = write_corpus(&dir.path().join("corpus"), &target(), &answers, |s| s);
    let settings = |corpus: Option<&std::path::Path>| {
        HybridLookup::Settings(LookupSettings {
            n_max: 8,
            n_min: 2,
            window: 1024,
            match_ratio: 1.0,
            corpus: corpus.map(|c| CorpusConfig { path: c.to_path_buf(), max_tokens: 3, n_max: 4, n_min: 2, min_count: 1, min_share: 0.3 }),
        })
    };
    let prompts = prompts(30, 13);
    let n = 256;
    let reference: Vec<Vec<u32>> = prompts.iter().map(|q| p.generate(&greedy(q, n), &mut |_| true).unwrap().tokens).collect();
    let mut lookup_rounds = [0usize; 2];
    for kind in KINDS {
        for (i, (prompt, want)) in prompts.iter().zip(&reference).enumerate() {
            for (c, corpus) in [None, Some(corpus.as_path())].into_iter().enumerate() {
                let policy = if i % 2 == 0 { WindowPolicyKind::Static } else { WindowPolicyKind::CostModel };
                let mut strategy = head_lookup(kind, 8, 4, settings(corpus), policy);
                // Every third prompt with the payoff guards on (lookup rounds and head rounds are judged apart).
                if let StrategyConfig::Speculative { window, .. } = &mut strategy {
                    window.fallback = i % 3 == 2;
                }
                p.set_strategy(strategy).unwrap();
                let out = p.generate(&greedy(prompt, n), &mut |_| true).unwrap();
                let diff = out.tokens.iter().zip(want).position(|(a, b)| a != b);
                assert_eq!(diff, None, "{kind} head, hybrid lookup (corpus {}), {policy:?}: prompt {i} differs from AR at token {diff:?}", c == 1);
                assert_eq!(out.tokens.len(), want.len());
                let Details::Tree { lookup_only_rounds, .. } = out.stats.details else { panic!("tree details expected") };
                lookup_rounds[c] += lookup_only_rounds;
            }
        }
    }
    eprintln!("lookup-only rounds without / with the corpus: {lookup_rounds:?}");
    assert!(lookup_rounds[1] > lookup_rounds[0], "the corpus supplied no rounds: {lookup_rounds:?}");
}

/// A hybrid's corpus is checked like the n-gram drafter's: one bound to another tokenizer is a clear error naming
/// the folder (the untampered folder loads: the control).
#[test]
fn a_hybrid_corpus_for_another_tokenizer_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = pipeline(dir.path());
    let docs = vec![vec![5u32, 6, 7, 8, 9]];
    let lookup = |c: &std::path::Path| {
        HybridLookup::Settings(LookupSettings {
            corpus: Some(CorpusConfig { path: c.to_path_buf(), max_tokens: 2, n_max: 4, n_min: 2, min_count: 1, min_share: 0.5 }),
            ..LookupSettings::default()
        })
    };
    let bad = write_corpus(&dir.path().join("bad"), &target(), &docs, |s| s.replacen("\"tokenizer_sha256\": \"", "\"tokenizer_sha256\": \"00", 1));
    let err = p.set_strategy(head_lookup("medusa", 4, 3, lookup(&bad), WindowPolicyKind::Static)).unwrap_err().to_string();
    assert!(err.contains("lookup corpus") && err.contains(&bad.display().to_string()), "{err}");
    let good = write_corpus(&dir.path().join("good"), &target(), &docs, |s| s);
    p.set_strategy(head_lookup("medusa", 4, 3, lookup(&good), WindowPolicyKind::Static)).unwrap();
}

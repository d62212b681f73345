//! Shared helpers for the integration tests: where the fixture models are, and opening them.
//!
//! The fixtures are made by the exporter (`make fixtures`, run by `make test`): tiny random-weight models and
//! the real SmolLM2-135M-Instruct exports. A missing fixture fails the test with the command that makes it.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use specrt::backend::onnxruntime::OnnxRuntime;
use specrt::config::BackendConfig;
use specrt::model::LanguageModel;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A model folder under `models/`, which must exist.
pub fn model_dir(name: &str) -> PathBuf {
    let dir = root().join("models").join(name);
    assert!(dir.join("manifest.json").is_file(), "fixture model {} is missing: run `make fixtures` (or `make test`, which runs it)", dir.display());
    dir
}

/// The tiny random-weight fp32 model.
pub fn tiny() -> PathBuf {
    model_dir("tiny-fp32")
}

/// SmolLM2-135M-Instruct in the given precision (`int8`, `int4`, `fp32`).
pub fn smollm2(precision: &str) -> PathBuf {
    model_dir(&format!("smollm2-135m-instruct-{precision}"))
}

/// An ONNX Runtime backend with `threads` threads on the CPU.
pub fn backend(threads: usize) -> OnnxRuntime {
    OnnxRuntime::new(&BackendConfig { threads: Some(threads), ..Default::default() }).expect("ONNX Runtime loads")
}

/// Opens a model with the given context.
pub fn open(dir: &Path, context: usize) -> LanguageModel {
    LanguageModel::open(&backend(2), dir, Some(context)).expect("model opens")
}

/// Writes a pipeline YAML for `model` into `dir` and returns its path.
pub fn pipeline_yaml(dir: &Path, model: &Path, extra: &str) -> PathBuf {
    let path = dir.join("pipeline.yaml");
    std::fs::write(&path, format!("model: {}\nbackend:\n  threads: 2\n{extra}", model.display())).unwrap();
    path
}

/// YAML that makes a pipeline speculative (n-gram), so its target is probed for batch invariance at load and
/// `set_strategy(ar)` afterwards runs AR with the same numerics the verification pass has: the exact reference.
pub const SPECULATIVE_YAML: &str = "strategy:\n  kind: speculative\n  drafter: {kind: ngram}\n";

/// Deterministic random token prompts of 4..`max_len` tokens (ids 3..380 of the tiny vocabulary); every third
/// repeats its first half so n-gram drafts find matches.
pub fn repeating_prompts(n: usize, seed: u64, max_len: usize) -> Vec<Vec<u32>> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|i| {
            let len = rng.random_range(4..max_len);
            let mut p: Vec<u32> = (0..len).map(|_| rng.random_range(3..380)).collect();
            if i % 3 == 0 {
                let copy = p.clone();
                p.extend_from_slice(&copy[..len / 2]);
            }
            p
        })
        .collect()
}

/// Index of the largest logit.
pub fn argmax(row: &[f32]) -> u32 {
    specrt::sampling::argmax(row)
}

/// Largest absolute difference between two slices.
pub fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

/// Survival function of the chi-square distribution (P[X >= x]) with `dof` degrees of freedom, via the
/// regularized upper incomplete gamma function Q(dof/2, x/2) (series for small x, continued fraction otherwise).
pub fn chi2_sf(x: f64, dof: usize) -> f64 {
    let a = dof as f64 / 2.0;
    let x = x / 2.0;
    if x <= 0.0 {
        return 1.0;
    }
    let ln_gamma_a = ln_gamma(a);
    if x < a + 1.0 {
        // P(a, x) by series; Q = 1 - P.
        let mut sum = 1.0 / a;
        let mut term = sum;
        let mut n = a;
        for _ in 0..10_000 {
            n += 1.0;
            term *= x / n;
            sum += term;
            if term.abs() < sum.abs() * 1e-15 {
                break;
            }
        }
        1.0 - sum * (-x + a * x.ln() - ln_gamma_a).exp()
    } else {
        // Lentz's continued fraction for Q(a, x).
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..10_000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < tiny {
                d = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            let delta = d * c;
            h *= delta;
            if (delta - 1.0).abs() < 1e-15 {
                break;
            }
        }
        (-x + a * x.ln() - ln_gamma_a).exp() * h
    }
}

/// ln Γ(x) (Lanczos approximation).
pub fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        std::f64::consts::PI.ln() - (std::f64::consts::PI * x).sin().ln() - ln_gamma(1.0 - x)
    } else {
        let x = x - 1.0;
        let mut a = G[0];
        let t = x + 7.5;
        for (i, g) in G.iter().enumerate().skip(1) {
            a += g / (x + i as f64);
        }
        0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
    }
}

/// Two-sample chi-square test of homogeneity over categories; categories with too few expected counts are
/// pooled into one. Returns (statistic, degrees of freedom, p-value).
pub fn chi2_two_sample(a: &std::collections::HashMap<u32, usize>, b: &std::collections::HashMap<u32, usize>) -> (f64, usize, f64) {
    let na: usize = a.values().sum();
    let nb: usize = b.values().sum();
    let mut keys: Vec<u32> = a.keys().chain(b.keys()).copied().collect();
    keys.sort_unstable();
    keys.dedup();
    let mut cells: Vec<(f64, f64)> = Vec::new();
    let mut pooled = (0.0, 0.0);
    for k in keys {
        let (x, y) = (*a.get(&k).unwrap_or(&0) as f64, *b.get(&k).unwrap_or(&0) as f64);
        if x + y < 10.0 {
            pooled.0 += x;
            pooled.1 += y;
        } else {
            cells.push((x, y));
        }
    }
    if pooled.0 + pooled.1 > 0.0 {
        cells.push(pooled);
    }
    let n = (na + nb) as f64;
    let mut stat = 0.0;
    for (x, y) in &cells {
        let total = x + y;
        let ea = total * na as f64 / n;
        let eb = total * nb as f64 / n;
        stat += (x - ea).powi(2) / ea + (y - eb).powi(2) / eb;
    }
    let dof = cells.len().saturating_sub(1).max(1);
    (stat, dof, chi2_sf(stat, dof))
}

/// One-sample chi-square goodness of fit of `counts` against `probs`.
pub fn chi2_goodness(counts: &[usize], probs: &[f64]) -> (f64, usize, f64) {
    let n: usize = counts.iter().sum();
    let mut stat = 0.0;
    let mut dof = 0usize;
    for (c, p) in counts.iter().zip(probs) {
        if *p > 0.0 {
            let e = p * n as f64;
            stat += (*c as f64 - e).powi(2) / e;
            dof += 1;
        }
    }
    let dof = dof.saturating_sub(1).max(1);
    (stat, dof, chi2_sf(stat, dof))
}

/// The files under `dir` (recursively) whose extension is `ext`, e.g. every `.yaml` config or `.rs` source.
pub fn files_with_extension(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == ext) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Writes a lookup corpus folder (engine/strategy/speculative/corpus.rs) of `docs` for the model in `model`, with
/// `tamper` applied to corpus.json's text before it is written.
pub fn write_corpus(dir: &std::path::Path, model: &std::path::Path, docs: &[Vec<u32>], tamper: impl Fn(String) -> String) -> std::path::PathBuf {
    use sha2::{Digest, Sha256};
    let manifest: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(model.join("manifest.json")).unwrap()).unwrap();
    let tokenizer_sha = manifest["files"]["tokenizer.json"].as_str().unwrap().to_string();
    let vocab = manifest["dims"]["vocab_size"].as_u64().unwrap();
    let mut bytes = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        if i > 0 {
            bytes.extend_from_slice(&u32::MAX.to_le_bytes());
        }
        d.iter().for_each(|t| bytes.extend_from_slice(&t.to_le_bytes()));
    }
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("tokens.bin"), &bytes).unwrap();
    let sha: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
    let json = serde_json::json!({
        "format": "specrt-lookup-corpus", "format_version": 1, "tokenizer_sha256": tokenizer_sha, "vocab_size": vocab,
        "tokens_file": "tokens.bin", "tokens_sha256": sha, "documents": docs.len(),
        "tokens": docs.iter().map(Vec::len).sum::<usize>(), "sources": "test",
    });
    std::fs::write(dir.join("corpus.json"), tamper(serde_json::to_string_pretty(&json).unwrap())).unwrap();
    dir.to_path_buf()
}

/// A speculative strategy drafting with the tiny target's random `kind` head (`tiny-fp32-{kind}-head`: beam 4,
/// top-k 3) in trees of at most `max_nodes` nodes and `max_depth` levels, hybrid lookup `ngram`, sized by
/// `policy`; the payoff guard off, so the tree runs on every round.
pub fn tiny_head(
    kind: &str,
    max_nodes: usize,
    max_depth: usize,
    ngram: specrt::config::HybridLookup,
    policy: specrt::config::WindowPolicyKind,
) -> specrt::config::StrategyConfig {
    specrt::config::StrategyConfig::Speculative {
        drafter: specrt::config::DrafterConfig::Head {
            model: model_dir(&format!("tiny-fp32-{kind}-head")),
            beam: 4,
            top_k: 3,
            max_nodes,
            max_depth,
            ngram,
            side_branches: Default::default(),
        },
        window: specrt::config::WindowConfig { policy, fallback: false, ..Default::default() },
        allow_lossy: false,
    }
}

/// The law of the first `chain` sampled tokens after `prompt`: per position, token counts over `runs` seeded
/// generations (temperature 1, top-k 8, seeds `offset..offset + runs`); `each` sees every output.
pub fn sampling_law(
    p: &mut specrt::Pipeline,
    prompt: &[u32],
    chain: usize,
    runs: u64,
    offset: u64,
    mut each: impl FnMut(&specrt::Output),
) -> Vec<std::collections::HashMap<u32, usize>> {
    let mut by_pos: Vec<std::collections::HashMap<u32, usize>> = vec![std::collections::HashMap::new(); chain];
    for s in 0..runs {
        let req = specrt::GenerationRequest {
            prompt: Some(specrt::Prompt::Tokens(prompt.to_vec())),
            max_tokens: Some(chain),
            ignore_eos: true,
            temperature: Some(1.0),
            top_k: Some(8),
            seed: Some(offset + s),
            ..Default::default()
        };
        let out = p.generate(&req, &mut |_| true).unwrap();
        each(&out);
        for (i, &t) in out.tokens.iter().enumerate() {
            *by_pos[i].entry(t).or_default() += 1;
        }
    }
    by_pos
}

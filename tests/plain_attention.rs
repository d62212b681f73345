//! The GPU form of the decoder contract (`--attention-kernel plain`: standard ONNX operators only, the graph
//! `specrt build-plans` hands TensorRT) computes what the CPU form computes: on ONNX Runtime's CPU provider the
//! plain export of tiny-fp32's weights gives tiny-fp32's greedy tokens over many prompts and 256 new tokens, and
//! speculative decoding on it (n-gram and draft-model drafts: multi-token verify passes through its explicit
//! mask) equals its own AR. The negative control: another model's tokens must differ under the same comparison.

mod common;

use common::*;
use specrt::config::{DrafterConfig, StrategyConfig, WindowConfig};
use specrt::{GenerationRequest, Pipeline, Prompt};

fn pipeline(model: &std::path::Path, dir: &tempfile::TempDir) -> Pipeline {
    Pipeline::load(&pipeline_yaml(dir.path(), model, "context_length: 512\n")).unwrap()
}

fn greedy(p: &mut Pipeline, prompt: &[u32], max_tokens: usize) -> Vec<u32> {
    let req =
        GenerationRequest { prompt: Some(Prompt::Tokens(prompt.to_vec())), max_tokens: Some(max_tokens), ignore_eos: true, ..Default::default() };
    p.generate(&req, &mut |_| true).unwrap().tokens
}

#[test]
fn the_plain_form_gives_the_cpu_forms_greedy_tokens() {
    let (d1, d2, d3) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut gqa = pipeline(&tiny(), &d1);
    let mut plain = pipeline(&model_dir("tiny-fp32-plain"), &d2);
    let mut other = pipeline(&model_dir("tiny-fp32-skip1"), &d3);
    let prompts = repeating_prompts(40, 21, 48);
    let mut control_differs = 0;
    for (i, prompt) in prompts.iter().enumerate() {
        let want = greedy(&mut gqa, prompt, 256);
        assert_eq!(greedy(&mut plain, prompt, 256), want, "prompt {i}: the plain form differs from the GroupQueryAttention form");
        if i < 5 && greedy(&mut other, prompt, 256) != want {
            control_differs += 1;
        }
    }
    assert_eq!(control_differs, 5, "negative control: a 1-layer model must not match the 2-layer model's tokens");
}

#[test]
fn speculative_decoding_on_the_plain_form_equals_its_ar() {
    let d = tempfile::tempdir().unwrap();
    let mut p = pipeline(&model_dir("tiny-fp32-plain"), &d);
    let drafters =
        [DrafterConfig::Ngram { n_max: 3, n_min: 1, window: 1024, match_ratio: 0.0, corpus: None }, DrafterConfig::DraftModel { model: tiny() }];
    for (i, prompt) in repeating_prompts(24, 5, 48).iter().enumerate() {
        p.set_strategy(StrategyConfig::Ar {}).unwrap();
        let want = greedy(&mut p, prompt, 256);
        let drafter = drafters[i % drafters.len()].clone();
        let window = WindowConfig { k: 2 + i % 5, fallback: false, ..Default::default() };
        p.set_strategy(StrategyConfig::Speculative { drafter, window, allow_lossy: false }).unwrap();
        assert_eq!(greedy(&mut p, prompt, 256), want, "prompt {i}: speculative on the plain form differs from its AR");
    }
}

#[test]
fn onnx_runtimes_gpu_providers_are_refused_for_both_forms_with_the_reason() {
    let d = tempfile::tempdir().unwrap();
    let load = |model: &std::path::Path| {
        let path = d.path().join("gpu.yaml");
        std::fs::write(&path, format!("model: {}\nbackend:\n  providers: [cuda]\n", model.display())).unwrap();
        Pipeline::load(&path).map(|_| ()).unwrap_err().to_string()
    };
    let e = load(&tiny());
    assert!(e.contains("`cuda` could not be registered") && e.contains("GroupQueryAttention takes no attention_bias"), "{e}");
    let e = load(&model_dir("tiny-fp32-plain"));
    assert!(e.contains("KV cache in host memory") && e.contains("backend: {kind: cuda}"), "{e}");
}

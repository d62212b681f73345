//! `specrt bench` over a matrix of pipelines on the tiny random-weight models, run one pipeline after another and
//! interleaved (`interleave: true`): both give the same rows and the same greedy outputs, every lossless pipeline
//! is identical to its AR, and the per-prompt records carry what was generated (export/head_gap.py replays them).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Three pipelines over two targets: plain AR, n-gram speculative (same target), a Medusa head on the
/// hidden-states target.
fn matrix(dir: &Path, interleave: bool) -> PathBuf {
    write(dir, "ar.yaml", &format!("name: tiny-ar\nmodel: {}\nbackend: {{threads: 1}}\nstrategy: {{kind: ar}}\n", tiny().display()));
    write(dir, "ngram.yaml", &format!("name: tiny-ngram\nmodel: {}\nbackend: {{threads: 1}}\n{SPECULATIVE_YAML}", tiny().display()));
    write(
        dir,
        "head.yaml",
        &format!(
            "name: tiny-medusa\nmodel: {}\nbackend: {{threads: 1}}\nstrategy:\n  kind: speculative\n  drafter: {{kind: head, model: {}}}\n",
            model_dir("tiny-fp32-hs").display(),
            model_dir("tiny-fp32-medusa-head").display()
        ),
    );
    write(
        dir,
        if interleave { "interleaved.yaml" } else { "sequential.yaml" },
        &format!(
            "categories: [builtin]\nprompts_per_category: 3\nmax_new_tokens: 40\nwarmup: 1\nignore_eos: true\ninterleave: {interleave}\n\
             pipelines: [ar.yaml, ngram.yaml, head.yaml]\n"
        ),
    )
}

fn bench(config: &Path, out: &Path) -> (serde_json::Value, Vec<serde_json::Value>, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_specrt"))
        .args(["bench", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .output()
        .expect("specrt runs");
    assert!(o.status.success(), "bench failed: {}", String::from_utf8_lossy(&o.stderr));
    let results: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let records = std::fs::read_to_string(out.join("records.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    (results, records, String::from_utf8_lossy(&o.stderr).into_owned())
}

/// (pipeline, strategy, prompt id) -> output ids.
fn outputs(records: &[serde_json::Value]) -> Vec<(String, String, String, Vec<u64>)> {
    let mut v: Vec<_> = records
        .iter()
        .map(|r| {
            let ids = r["output_ids"].as_array().expect("records carry output_ids").iter().map(|x| x.as_u64().unwrap()).collect();
            (r["pipeline"].as_str().unwrap().to_string(), r["strategy"].as_str().unwrap().to_string(), r["id"].as_str().unwrap().to_string(), ids)
        })
        .collect();
    v.sort();
    v
}

#[test]
fn interleaved_and_sequential_runs_agree() {
    let dir = tempfile::tempdir().unwrap();
    let (seq, seq_records, seq_log) = bench(&matrix(dir.path(), false), &dir.path().join("seq"));
    let (int, int_records, int_log) = bench(&matrix(dir.path(), true), &dir.path().join("int"));
    // The two modes really ran differently: prompt by prompt across pipelines (3 AR instances, one per target and numerics:
    // the speculative tiny pipeline pads its steps; and 2 strategies) vs pipeline by pipeline.
    assert!(int_log.contains("bench: interleaved: 3/3 prompts x 5 runs") && !int_log.contains("[ar]: "), "{int_log}");
    assert!(!seq_log.contains("interleaved") && seq_log.contains("tiny-ngram [ar]: ") || seq_log.contains("reusing"), "{seq_log}");
    let rows = |r: &serde_json::Value| -> Vec<(String, String, String)> {
        let mut v: Vec<_> = r["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| (x["pipeline"].as_str().unwrap().into(), x["strategy"].as_str().unwrap().into(), x["category"].as_str().unwrap().into()))
            .collect();
        v.sort();
        v
    };
    assert_eq!(rows(&seq), rows(&int));
    // AR + own strategy for the two speculative pipelines, AR only for the AR one (one category: no overall rows).
    assert_eq!(rows(&int).len(), 1 + 2 + 2);
    let (a, b) = (outputs(&seq_records), outputs(&int_records));
    assert_eq!(a.len(), 3 * 5, "3 prompts x (1 + 2 + 2) runs");
    assert_eq!(a, b, "greedy outputs do not depend on the run order");
    for r in int["results"].as_array().unwrap() {
        if r["strategy"] == "speculative" {
            assert_eq!(r["identical_to_ar"], true, "{r}");
        }
    }
    for r in &int_records {
        assert!(r["prompt"].as_str().is_some_and(|p| !p.is_empty()) && r["chat"].is_boolean(), "{r}");
        assert_eq!(r["output_ids"].as_array().unwrap().len(), 40, "ignore_eos: every output is max_new_tokens long");
    }
}

#[test]
fn interleave_must_be_a_boolean() {
    let dir = tempfile::tempdir().unwrap();
    let m = matrix(dir.path(), true);
    let text = std::fs::read_to_string(&m).unwrap().replace("interleave: true", "interleave: sometimes");
    std::fs::write(&m, text).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_specrt"))
        .args(["bench", "--config", m.to_str().unwrap(), "--out", dir.path().join("o").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("interleave") && err.contains("interleaved.yaml"), "{err}");
}

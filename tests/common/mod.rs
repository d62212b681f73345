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
    assert!(
        dir.join("manifest.json").is_file(),
        "fixture model {} is missing: run `make fixtures` (or `make test`, which runs it)",
        dir.display()
    );
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

/// Index of the largest logit.
pub fn argmax(row: &[f32]) -> u32 {
    specrt::sampling::argmax(row)
}

/// Largest absolute difference between two slices.
pub fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

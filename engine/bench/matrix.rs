//! The benchmark matrix file: which pipelines, which prompt sets, how many tokens.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Error, Result};

/// A parsed benchmark matrix (paths absolute).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchMatrix {
    /// Pipeline YAML files (relative to this file).
    pub pipelines: Vec<PathBuf>,
    /// Folder of `<category>.jsonl` prompt sets made by `python -m export.datasets` (relative to this file).
    #[serde(default)]
    pub datasets: Option<PathBuf>,
    /// Categories to run, in order. `builtin` is a small set compiled into specrt (works with no datasets).
    #[serde(default = "default_categories")]
    pub categories: Vec<String>,
    /// Prompts taken from each category (the first N, a fixed order).
    #[serde(default = "default_per_category")]
    pub prompts_per_category: usize,
    /// New tokens per prompt.
    #[serde(default = "default_max_new_tokens")]
    pub max_new_tokens: usize,
    /// Unmeasured generations before measuring each pipeline.
    #[serde(default = "default_warmup")]
    pub warmup: usize,
    /// Generate exactly `max_new_tokens` (ignore stop tokens), as speed comparisons with peers need.
    #[serde(default = "yes")]
    pub ignore_eos: bool,
    /// Context lengths at which per-token decode latency is measured (empty = skip).
    #[serde(default)]
    pub latency_contexts: Vec<usize>,
    /// Name of the pipeline whose AR rows are "the fastest AR" that `speedup_vs_fastest_ar` divides by (e.g. the
    /// unpadded int4 AR users get from the default config); default: the fastest AR row of each category.
    #[serde(default)]
    pub fastest_ar: Option<String>,
    /// Run the pipelines prompt by prompt in turn (every pipeline loaded at once, the order rotating with each
    /// prompt) instead of one pipeline after another. The VMs these figures come from drift by up to 35% within
    /// minutes, and another process on the machine shifts a sequential run's later pipelines; interleaving
    /// spreads both over every pipeline alike, so ratios between pipelines stay meaningful. Costs the memory of
    /// all pipelines plus one AR instance per target.
    #[serde(default)]
    pub interleave: bool,
}

fn default_categories() -> Vec<String> {
    vec!["builtin".into()]
}
fn default_per_category() -> usize {
    5
}
fn default_max_new_tokens() -> usize {
    256
}
fn default_warmup() -> usize {
    1
}
fn yes() -> bool {
    true
}

impl BenchMatrix {
    /// Reads a matrix file, or wraps a single pipeline YAML (a file with a top-level `model:` key) as a
    /// one-pipeline matrix over the built-in prompts.
    pub fn load(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let base = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let value: serde_yaml::Value = serde_yaml::from_str(&text).map_err(|e| config_error(path, &e))?;
        if value.get("model").is_some() {
            return Ok(BenchMatrix {
                pipelines: vec![path.to_path_buf()],
                datasets: None,
                categories: default_categories(),
                prompts_per_category: default_per_category(),
                max_new_tokens: default_max_new_tokens(),
                warmup: default_warmup(),
                ignore_eos: true,
                latency_contexts: Vec::new(),
                fastest_ar: None,
                interleave: false,
            });
        }
        let mut m: BenchMatrix = serde_yaml::from_str(&text).map_err(|e| config_error(path, &e))?;
        for p in &mut m.pipelines {
            if p.is_relative() {
                *p = base.join(&*p);
            }
        }
        if let Some(d) = m.datasets.as_mut() {
            if d.is_relative() {
                *d = base.join(&*d);
            }
        }
        if m.pipelines.is_empty() {
            return Err(Error::Config {
                file: path.display().to_string(),
                line: 0,
                column: 0,
                message: "pipelines: list at least one pipeline".into(),
            });
        }
        Ok(m)
    }
}

fn config_error(path: &Path, e: &serde_yaml::Error) -> Error {
    let (line, column) = e.location().map(|l| (l.line(), l.column())).unwrap_or((0, 0));
    Error::Config { file: path.display().to_string(), line, column, message: e.to_string() }
}

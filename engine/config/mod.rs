//! YAML pipeline files: the schema ([`schema`]), loading with errors that name the file, line and key, and
//! validation of values serde cannot check on its own.
//!
//! Paths inside a config resolve relative to the config file's folder, so a pipeline can be run from anywhere.

mod locate;
pub mod schema;

use std::path::{Path, PathBuf};

pub use schema::{
    BackendConfig, BackendKind, CorpusConfig, CtcDecodeKind, CudaOptions, DrafterConfig, GenerationDefaults, HybridLookup, LevelConfig,
    LookupSettings, OptimizationLevel, PipelineConfig, ProviderConfig, SideBranchPolicy, SpaceCandidates, SpaceLookup, StrategyConfig, ThresholdRule,
    WindowConfig, WindowPolicyKind,
};

use crate::error::{Error, Result};

/// A parsed and validated pipeline config together with where it came from.
#[derive(Debug, Clone)]
pub struct LoadedConfig {
    /// The validated settings, with every path made absolute.
    pub config: PipelineConfig,
    /// The file it was read from (`<string>` for inline YAML).
    pub source: String,
    /// The folder relative paths were resolved against.
    pub base_dir: PathBuf,
}

/// Reads and validates a pipeline YAML file.
pub fn load_file(path: &Path) -> Result<LoadedConfig> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let text = String::from_utf8(bytes).map_err(|e| Error::Config {
        file: path.display().to_string(),
        line: 0,
        column: 0,
        message: format!("file is not valid UTF-8 (byte {})", e.utf8_error().valid_up_to()),
    })?;
    let base = path.parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."));
    let base = if base.as_os_str().is_empty() { PathBuf::from(".") } else { base };
    parse_str(&text, &path.display().to_string(), &base)
}

/// Parses YAML text; relative paths resolve against `base_dir`. `source` names the text in errors.
pub fn parse_str(text: &str, source: &str, base_dir: &Path) -> Result<LoadedConfig> {
    let mut config: PipelineConfig = serde_yaml::from_str(text).map_err(|e| {
        let message = e.to_string();
        let (line, column) = match e.location().map(|l| (l.line(), l.column())) {
            // Line 1, column 1 is where serde points for anything inside a tagged enum's buffered mapping.
            Some((1, 1)) | None => {
                locate::unknown_field_position(text, &message).or_else(|| locate::invalid_value_position(text, &message)).unwrap_or((0, 0))
            }
            Some(at) => at,
        };
        Error::Config { file: source.to_string(), line, column, message }
    })?;
    let base_dir = base_dir.canonicalize().unwrap_or_else(|_| base_dir.to_path_buf());
    config.resolve_paths(&base_dir);
    if let Err(problem) = config.validate() {
        let (line, column) = locate::key_position(text, &problem.key).unwrap_or((0, 0));
        return Err(Error::Config { file: source.to_string(), line, column, message: format!("{}: {}", problem.key.join("."), problem.message) });
    }
    Ok(LoadedConfig { config, source: source.to_string(), base_dir })
}

/// A value that parsed but is not allowed, with the dotted key path that holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct Invalid {
    /// Key path from the document root, e.g. `["generation", "top_p"]`.
    pub key: Vec<String>,
    /// What is wrong with the value.
    pub message: String,
}

impl Invalid {
    pub(crate) fn new(key: &[&str], message: impl Into<String>) -> Self {
        Invalid { key: key.iter().map(|s| s.to_string()).collect(), message: message.into() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<LoadedConfig> {
        parse_str(text, "test.yaml", Path::new("."))
    }

    #[test]
    fn minimal_config_gets_defaults() {
        let c = parse("model: m\n").unwrap().config;
        assert_eq!(c.strategy, StrategyConfig::Ar {});
        assert_eq!(c.backend.threads, None);
        assert!(c.model.is_absolute());
    }

    #[test]
    fn unknown_key_names_file_line_and_key() {
        let err = parse("model: m\ngeneration:\n  max_tokens: 3\n  temprature: 0.5\n").unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with("test.yaml:4:"), "{msg}");
        assert!(msg.contains("temprature"), "{msg}");
    }

    #[test]
    fn wrong_type_names_the_key() {
        let err = parse("model: m\ngeneration:\n  max_tokens: many\n").unwrap_err().to_string();
        assert!(err.contains("test.yaml:3:"), "{err}");
        assert!(err.contains("max_tokens"), "{err}");
    }

    #[test]
    fn semantic_errors_point_at_the_key() {
        let err = parse("model: m\ngeneration:\n  top_p: 1.5\n").unwrap_err().to_string();
        assert!(err.starts_with("test.yaml:3:"), "{err}");
        assert!(err.contains("generation.top_p"), "{err}");
        let err = parse("model: m\nbackend:\n  threads: 0\n").unwrap_err().to_string();
        assert!(err.contains("backend.threads"), "{err}");
    }

    /// Every bounded number: a value past its range is an error at its file, line and key; the range's ends load.
    #[test]
    fn numeric_values_have_upper_bounds() {
        let spec = "strategy:\n  kind: speculative\n  drafter: {kind: ngram}\n  window:\n";
        let hsddw = "strategy:\n  kind: hsddw\n  levels: [{kind: ngram}, {kind: model, model: d}]\n";
        let corpus = "strategy:\n  kind: speculative\n  drafter:\n    kind: ngram\n    corpus:\n      path: c\n";
        let hybrid = "strategy:\n  kind: speculative\n  drafter:\n    kind: head\n    model: h\n    ngram:\n";
        let cases: &[(String, &str)] = &[
            ("backend:\n  threads: 100000\n".into(), "backend.threads"),
            ("backend:\n  cuda:\n    device_id: 100000\n".into(), "backend.cuda.device_id"),
            ("backend:\n  providers: [{cuda: {device_id: -1}}]\n".into(), "backend.providers"),
            ("context_length: 1000000000000\n".into(), "context_length"),
            (format!("{spec}    k_max: 100000\n"), "strategy.window.k_max"),
            (format!("{spec}    probe_every: 100000000000\n"), "strategy.window.probe_every"),
            (format!("{spec}    entropy_threshold: .inf\n"), "strategy.window.entropy_threshold"),
            ("strategy:\n  kind: speculative\n  drafter:\n    kind: ngram\n    n_max: 100000\n".into(), "strategy.drafter.n_max"),
            ("strategy:\n  kind: speculative\n  drafter:\n    kind: ngram\n    window: 100000000000\n".into(), "strategy.drafter.window"),
            ("strategy:\n  kind: speculative\n  drafter:\n    kind: ngram\n    match_ratio: 1000\n".into(), "strategy.drafter.match_ratio"),
            (format!("{corpus}      max_tokens: 100000\n"), "strategy.drafter.corpus.max_tokens"),
            (format!("{corpus}      n_max: 100000\n"), "strategy.drafter.corpus.n_max"),
            (format!("{corpus}      min_share: 2\n"), "strategy.drafter.corpus.min_share"),
            (format!("{corpus}      min_count: 0\n"), "strategy.drafter.corpus.min_count"),
            (format!("{hybrid}      match_ratio: 1000\n"), "strategy.drafter.ngram.match_ratio"),
            (format!("{hybrid}      n_max: 100000\n"), "strategy.drafter.ngram.n_max"),
            (format!("{hybrid}      corpus:\n        path: c\n        min_share: 2\n"), "strategy.drafter.ngram.corpus.min_share"),
            (format!("{hsddw}  gamma: 100000\n"), "strategy.gamma"),
            (format!("{hsddw}  buffer_cap: 100000000\n"), "strategy.buffer_cap"),
            (format!("{hsddw}  tau_init: 1.0e30\n"), "strategy.tau_init"),
            ("strategy:\n  kind: hsddw\n  levels: [{kind: ngram, n_min: 0}, {kind: model, model: d}]\n".into(), "strategy.levels.n_min"),
            ("strategy:\n  kind: nat\n  beam_width: 100000\n".into(), "strategy.beam_width"),
            ("strategy:\n  kind: nat\n  beam_top_k: 100000\n".into(), "strategy.beam_top_k"),
            ("strategy:\n  kind: nat\n  batch_size: 100000000\n".into(), "strategy.batch_size"),
            ("generation:\n  max_tokens: 1000000000000\n".into(), "generation.max_tokens"),
            (format!("generation:\n  stop: [{}]\n", vec!["x"; 17].join(", ")), "generation.stop"),
        ];
        for (extra, key) in cases {
            let yaml = format!("model: m\n{extra}");
            let err = parse(&yaml).unwrap_err().to_string();
            assert!(err.starts_with("test.yaml:") && err.contains(&format!("{key}:")), "{yaml}\n-> {err}");
            if !key.starts_with("strategy.levels") && !key.starts_with("backend.providers") {
                // The line of the key's own text, not 0.
                let leaf = key.rsplit('.').next().unwrap();
                let line = yaml.lines().position(|l| l.contains(leaf)).unwrap() + 1;
                assert!(err.starts_with(&format!("test.yaml:{line}:")), "{yaml}\n-> {err}");
            }
        }
        let ends = "context_length: 1048576\nbackend:\n  threads: 1024\ngeneration:\n  max_tokens: 1048576\n";
        parse(&format!("model: m\n{ends}")).unwrap();
        parse(&format!("model: m\n{spec}    k_min: 1\n    k: 1\n    k_max: 256\n")).unwrap();
    }

    #[test]
    fn the_lookup_corpus_resolves_next_to_the_config_and_refuses_unknown_keys() {
        let yaml = "model: m\nstrategy:\n  kind: speculative\n  drafter: {kind: ngram, match_ratio: 1.5, corpus: {path: c}}\n";
        let c = parse_str(yaml, "x.yaml", Path::new("/configs")).unwrap().config;
        let StrategyConfig::Speculative { drafter: DrafterConfig::Ngram { match_ratio, corpus: Some(corpus), .. }, .. } = c.strategy else {
            panic!("{:?}", c.strategy)
        };
        assert_eq!(match_ratio, 1.5);
        assert_eq!(corpus.path, Path::new("/configs/c"));
        assert_eq!((corpus.max_tokens, corpus.n_max, corpus.n_min, corpus.min_count), (2, 4, 2, 2));
        let err =
            parse("model: m\nstrategy:\n  kind: speculative\n  drafter:\n    kind: ngram\n    corpus: {path: c, size: 3}\n").unwrap_err().to_string();
        assert!(err.starts_with("test.yaml:6:") && err.contains("size"), "{err}");
    }

    /// A head drafter's `ngram` is a switch (`true`: the n 3..1 lookup the hybrids were first measured with) or the
    /// n-gram drafter's own settings, whose corpus resolves next to the config and whose unknown keys are errors at
    /// their own line.
    #[test]
    fn a_hybrid_lookup_is_a_switch_or_the_ngram_settings() {
        let head = |ngram: &str| format!("model: m\nstrategy:\n  kind: speculative\n  drafter:\n    kind: head\n    model: h\n    ngram: {ngram}\n");
        let lookup = |yaml: &str| match parse_str(yaml, "x.yaml", Path::new("/configs")).unwrap().config.strategy {
            StrategyConfig::Speculative { drafter: DrafterConfig::Head { ngram, .. }, .. } => ngram,
            other => panic!("{other:?}"),
        };
        assert_eq!(lookup(&head("false")).settings(), None);
        assert_eq!(lookup(&head("true")).settings(), Some(LookupSettings::default()));
        assert_eq!((LookupSettings::default().n_max, LookupSettings::default().n_min, LookupSettings::default().window), (3, 1, 1024));
        let s = lookup(&head("{n_max: 8, n_min: 2, match_ratio: 1, corpus: {path: c}}")).settings().unwrap();
        assert_eq!((s.n_max, s.n_min, s.window, s.match_ratio), (8, 2, 1024, 1.0));
        assert_eq!(s.corpus.unwrap().path, Path::new("/configs/c"));
        let yaml = "model: m\nstrategy:\n  kind: speculative\n  drafter:\n    kind: head\n    model: h\n    ngram:\n      n_max: 8\n      size: 3\n";
        let err = parse(yaml).unwrap_err().to_string();
        assert!(err.starts_with("test.yaml:9:") && err.contains("size"), "{err}");
        let err = parse(&head("maybe")).unwrap_err().to_string();
        assert!(err.starts_with("test.yaml:7:") && err.contains("true, false, or a mapping"), "{err}");
    }

    #[test]
    fn unknown_strategy_is_rejected() {
        let err = parse("model: m\nstrategy:\n  kind: telepathy\n").unwrap_err().to_string();
        assert!(err.contains("telepathy"), "{err}");
    }

    #[test]
    fn providers_by_name_or_with_options() {
        let c = parse("model: m\nbackend:\n  providers: [cuda, {tensorrt: {fp16: true}}, cpu]\n").unwrap().config;
        assert_eq!(c.backend.providers[0], ProviderConfig::Cuda { device_id: 0 });
        assert!(matches!(c.backend.providers[1], ProviderConfig::Tensorrt { fp16: true, .. }));
        let err = parse("model: m\nbackend:\n  providers: [{cuda: {device: 1}}]\n").unwrap_err().to_string();
        assert!(err.contains("device"), "{err}");
    }

    #[test]
    fn unknown_provider_is_rejected() {
        let err = parse("model: m\nbackend:\n  providers: [quantum]\n").unwrap_err().to_string();
        assert!(err.contains("quantum"), "{err}");
    }

    #[test]
    fn paths_resolve_relative_to_the_config() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("p.yaml"), "model: ../models/x\n").unwrap();
        let c = load_file(&dir.path().join("p.yaml")).unwrap();
        let expected = dir.path().canonicalize().unwrap().join("../models/x");
        assert_eq!(c.config.model, expected);
    }

    #[test]
    fn invalid_utf8_file_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("p.yaml"), b"model: \xff\xfe\n").unwrap();
        let err = load_file(&dir.path().join("p.yaml")).unwrap_err().to_string();
        assert!(err.contains("UTF-8"), "{err}");
    }
}

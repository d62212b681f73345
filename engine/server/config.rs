//! `configs/server.yaml`: where the server listens, how it schedules, and which pipelines it serves. Like the
//! pipeline schema, every struct rejects unknown keys, errors name the file, line and key, and paths resolve
//! relative to the server file's folder.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::config::LoadedConfig;
use crate::error::{Error, Result};

/// The server file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    /// Address to bind (default `127.0.0.1`).
    #[serde(default = "default_host")]
    pub host: String,
    /// Port to bind (default 8080; 0 picks a free port).
    #[serde(default = "default_port")]
    pub port: u16,
    /// Inference worker threads per pipeline; each loads its own copy of the pipeline (default 1).
    #[serde(default = "default_workers")]
    pub workers: usize,
    /// Requests that may wait per pipeline beyond the ones running; a full queue answers 429 (default 16).
    #[serde(default = "default_queue_capacity")]
    pub queue_capacity: usize,
    /// Wall-clock limit of one request, queueing included; past it the generation is cancelled (default 300).
    #[serde(default = "default_request_timeout")]
    pub request_timeout_seconds: f64,
    /// Largest accepted request body; larger ones answer 413 (default 1 MiB).
    #[serde(default = "default_max_body_bytes")]
    pub max_body_bytes: usize,
    /// On SIGINT/SIGTERM, how long in-flight requests may go on before they are cancelled (default 10).
    #[serde(default = "default_shutdown_grace")]
    pub shutdown_grace_seconds: f64,
    /// How long a client may take to send a request's head (request line and headers), counted from its first
    /// byte; past it the connection is closed (default 10).
    #[serde(default = "default_header_read_timeout")]
    pub header_read_timeout_seconds: f64,
    /// How long a connection may stay open with no request in progress and no bytes received (before the first
    /// request, and between keep-alive requests); past it the connection is closed (default 60).
    #[serde(default = "default_idle_timeout")]
    pub idle_timeout_seconds: f64,
    /// How long reading one request body may take; past it the request gets 408 (default 30).
    #[serde(default = "default_body_read_timeout")]
    pub body_read_timeout_seconds: f64,
    /// How long a response may stay stuck because the client reads nothing (the socket's send buffer is full and
    /// no byte has gone out); past it the connection is closed and its generation cancelled (default 30).
    #[serde(default = "default_write_timeout")]
    pub write_timeout_seconds: f64,
    /// Most open client connections; a connection beyond it gets 503 and is closed at once (default 256).
    #[serde(default = "default_max_connections")]
    pub max_connections: usize,
    /// The pipelines served; a request picks one by its `model` field.
    pub pipelines: Vec<ServedPipeline>,
}

/// One served pipeline.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServedPipeline {
    /// The name clients use as `model` (default: the pipeline's own name).
    #[serde(default)]
    pub name: Option<String>,
    /// The pipeline YAML file, relative to the server file.
    pub config: PathBuf,
    /// Serving settings of a NAT pipeline (`strategy: {kind: nat}`): request limits and dynamic batching. Only
    /// valid on a NAT pipeline (a decoder pipeline with this section is an error at start).
    #[serde(default)]
    pub nat: Option<NatServing>,
}

/// How the server serves one NAT pipeline (docs/SERVER.md "NAT pipelines").
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NatServing {
    /// Most sentences one request may carry (a list `prompt` or `text`); more answer 400 (default 64).
    #[serde(default = "default_max_sentences")]
    pub max_sentences_per_request: usize,
    /// Most bytes of one sentence, checked before it is tokenized; a longer sentence is an error for that
    /// sentence only. Default: the model's positions x 128 bytes (no token of a real vocabulary is longer).
    #[serde(default)]
    pub max_sentence_bytes: Option<usize>,
    /// How long a worker that took a request waits for more before it runs the pass, milliseconds; 0 takes only
    /// what is already queued (default 3).
    #[serde(default = "default_batch_window_ms")]
    pub batch_window_ms: f64,
    /// Most sentences gathered into one batch. A batch always takes one whole request; more requests join while
    /// the total stays within this, so 1 turns cross-request batching off. Default: the pipeline's
    /// `strategy.batch_size` (sentences per forward pass), so a gathered batch is one pass.
    #[serde(default)]
    pub max_batch_sentences: Option<usize>,
}

impl Default for NatServing {
    fn default() -> Self {
        NatServing {
            max_sentences_per_request: default_max_sentences(),
            max_sentence_bytes: None,
            batch_window_ms: default_batch_window_ms(),
            max_batch_sentences: None,
        }
    }
}

fn default_max_sentences() -> usize {
    64
}
fn default_batch_window_ms() -> f64 {
    3.0
}

fn default_host() -> String {
    "127.0.0.1".into()
}
fn default_port() -> u16 {
    8080
}
fn default_workers() -> usize {
    1
}
fn default_queue_capacity() -> usize {
    16
}
fn default_request_timeout() -> f64 {
    300.0
}
fn default_max_body_bytes() -> usize {
    1 << 20
}
fn default_shutdown_grace() -> f64 {
    10.0
}
fn default_header_read_timeout() -> f64 {
    10.0
}
fn default_idle_timeout() -> f64 {
    60.0
}
fn default_body_read_timeout() -> f64 {
    30.0
}
fn default_write_timeout() -> f64 {
    30.0
}
fn default_max_connections() -> usize {
    256
}

impl ServerConfig {
    /// Reads and validates a server YAML file; pipeline paths become absolute.
    pub fn load(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let base = path.parent().map(Path::to_path_buf).filter(|p| !p.as_os_str().is_empty()).unwrap_or_else(|| ".".into());
        Self::parse_str(&text, &path.display().to_string(), &base)
    }

    /// Parses server YAML text; `source` names it in errors and relative paths resolve against `base_dir`.
    pub fn parse_str(text: &str, source: &str, base_dir: &Path) -> Result<Self> {
        let mut config: ServerConfig = serde_yaml::from_str(text).map_err(|e| {
            let (line, column) = e.location().map(|l| (l.line(), l.column())).unwrap_or((0, 0));
            Error::Config { file: source.to_string(), line, column, message: e.to_string() }
        })?;
        let base_dir = base_dir.canonicalize().unwrap_or_else(|_| base_dir.to_path_buf());
        for p in &mut config.pipelines {
            if p.config.is_relative() {
                p.config = base_dir.join(&p.config);
            }
        }
        if let Err((key, message)) = config.validate() {
            let (line, column) = key_line(text, key);
            return Err(Error::Config { file: source.to_string(), line, column, message: format!("{key}: {message}") });
        }
        if let Err((i, key, message)) = config.validate_nat() {
            let (line, column) = nat_key_line(text, i, key);
            return Err(Error::Config { file: source.to_string(), line, column, message: format!("{key}: {message}") });
        }
        Ok(config)
    }

    /// Checks every number against its documented range (docs/SERVER.md "Configuration"): each one sizes
    /// memory (queue slots, pipeline copies, bodies) or a `Duration`, which panics past ~5.8e11 years.
    fn validate(&self) -> std::result::Result<(), (&'static str, String)> {
        let count = |key: &'static str, v: usize, lo: usize, hi: usize| {
            if (lo..=hi).contains(&v) {
                Ok(())
            } else {
                Err((key, format!("must be in {lo}..={hi} (got {v})")))
            }
        };
        count("workers", self.workers, 1, MAX_WORKERS)?;
        count("queue_capacity", self.queue_capacity, 1, MAX_QUEUE_CAPACITY)?;
        if !(self.request_timeout_seconds > 0.0 && self.request_timeout_seconds <= MAX_REQUEST_TIMEOUT_SECONDS) {
            return Err(("request_timeout_seconds", format!("must be in (0, {MAX_REQUEST_TIMEOUT_SECONDS}] (got {})", self.request_timeout_seconds)));
        }
        if !(self.shutdown_grace_seconds >= 0.0 && self.shutdown_grace_seconds <= MAX_SHUTDOWN_GRACE_SECONDS) {
            return Err(("shutdown_grace_seconds", format!("must be in [0, {MAX_SHUTDOWN_GRACE_SECONDS}] (got {})", self.shutdown_grace_seconds)));
        }
        count("max_body_bytes", self.max_body_bytes, 64, MAX_BODY_BYTES)?;
        let seconds = |key: &'static str, v: f64, hi: f64| {
            if v > 0.0 && v <= hi {
                Ok(())
            } else {
                Err((key, format!("must be in (0, {hi}] (got {v})")))
            }
        };
        seconds("header_read_timeout_seconds", self.header_read_timeout_seconds, MAX_HEADER_READ_TIMEOUT_SECONDS)?;
        seconds("idle_timeout_seconds", self.idle_timeout_seconds, MAX_IDLE_TIMEOUT_SECONDS)?;
        seconds("body_read_timeout_seconds", self.body_read_timeout_seconds, MAX_BODY_READ_TIMEOUT_SECONDS)?;
        seconds("write_timeout_seconds", self.write_timeout_seconds, MAX_WRITE_TIMEOUT_SECONDS)?;
        count("max_connections", self.max_connections, 1, MAX_CONNECTIONS)?;
        if self.pipelines.is_empty() {
            return Err(("pipelines", "list at least one pipeline".into()));
        }
        count("pipelines", self.pipelines.len(), 1, MAX_PIPELINES)?;
        Ok(())
    }

    /// Checks each pipeline's `nat:` numbers; the error names the occurrence of the key (the `i`-th `nat:` section).
    fn validate_nat(&self) -> std::result::Result<(), (usize, &'static str, String)> {
        for (i, n) in self.pipelines.iter().filter_map(|p| p.nat.as_ref()).enumerate() {
            let count = |key: &'static str, v: usize, hi: usize| {
                if (1..=hi).contains(&v) {
                    Ok(())
                } else {
                    Err((i, key, format!("must be in 1..={hi} (got {v})")))
                }
            };
            count("max_sentences_per_request", n.max_sentences_per_request, MAX_SENTENCES_PER_REQUEST)?;
            if let Some(b) = n.max_sentence_bytes {
                count("max_sentence_bytes", b, MAX_SENTENCE_BYTES)?;
            }
            if let Some(b) = n.max_batch_sentences {
                count("max_batch_sentences", b, MAX_BATCH_SENTENCES)?;
            }
            if !(n.batch_window_ms >= 0.0 && n.batch_window_ms <= MAX_BATCH_WINDOW_MS) {
                return Err((i, "batch_window_ms", format!("must be in [0, {MAX_BATCH_WINDOW_MS}] (got {})", n.batch_window_ms)));
            }
        }
        Ok(())
    }
}

/// Most `nat.max_sentences_per_request`: each sentence of a request is held and answered together.
pub(crate) const MAX_SENTENCES_PER_REQUEST: usize = 4096;
/// Largest `nat.max_sentence_bytes` (1 MiB): far beyond any model's positions x 128 bytes.
pub(crate) const MAX_SENTENCE_BYTES: usize = 1 << 20;
/// Most `nat.max_batch_sentences`: a gathered batch is held in memory with its logits.
pub(crate) const MAX_BATCH_SENTENCES: usize = 4096;
/// Longest `nat.batch_window_ms` (one second): every request of a batch waits this long at most.
pub(crate) const MAX_BATCH_WINDOW_MS: f64 = 1000.0;

/// Most inference workers per pipeline (`workers`); each holds a full copy of the pipeline.
pub(crate) const MAX_WORKERS: usize = 64;
/// Most waiting requests per pipeline (`queue_capacity`); the queue preallocates its slots.
pub(crate) const MAX_QUEUE_CAPACITY: usize = 65_536;
/// Longest `request_timeout_seconds` (one day).
pub(crate) const MAX_REQUEST_TIMEOUT_SECONDS: f64 = 86_400.0;
/// Longest `shutdown_grace_seconds` (one hour).
pub(crate) const MAX_SHUTDOWN_GRACE_SECONDS: f64 = 3_600.0;
/// Largest `max_body_bytes` (64 MiB): a body is held in memory while it is read.
pub(crate) const MAX_BODY_BYTES: usize = 64 << 20;
/// Most served pipelines (`pipelines`).
pub(crate) const MAX_PIPELINES: usize = 64;
/// Longest `header_read_timeout_seconds` (one hour): a slow head holds a connection slot meanwhile.
pub(crate) const MAX_HEADER_READ_TIMEOUT_SECONDS: f64 = 3_600.0;
/// Longest `idle_timeout_seconds` (one day): an idle connection holds a connection slot meanwhile.
pub(crate) const MAX_IDLE_TIMEOUT_SECONDS: f64 = 86_400.0;
/// Longest `body_read_timeout_seconds` (one hour): a slow body holds a connection slot meanwhile.
pub(crate) const MAX_BODY_READ_TIMEOUT_SECONDS: f64 = 3_600.0;
/// Longest `write_timeout_seconds` (one hour): a client that reads nothing holds a connection slot and a worker
/// meanwhile.
pub(crate) const MAX_WRITE_TIMEOUT_SECONDS: f64 = 3_600.0;
/// Most `max_connections`: each open connection holds a task and up to ~400 KiB of read buffer.
pub(crate) const MAX_CONNECTIONS: usize = 65_536;

/// 1-based line and column of a top-level key, (0, 0) when not found.
fn key_line(text: &str, key: &str) -> (usize, usize) {
    text.lines().position(|l| l.starts_with(key) && l[key.len()..].trim_start().starts_with(':')).map(|i| (i + 1, 1)).unwrap_or((0, 0))
}

/// 1-based line and column of `key:` inside the `nth` (0-based) `nat:` section, (0, 0) when not found.
fn nat_key_line(text: &str, nth: usize, key: &str) -> (usize, usize) {
    let is_key = |l: &str, k: &str| {
        let t = l.trim_start().trim_start_matches("- ");
        t.starts_with(k) && t[k.len()..].trim_start().starts_with(':')
    };
    let Some(start) = text.lines().enumerate().filter(|(_, l)| is_key(l, "nat")).map(|(i, _)| i).nth(nth) else { return (0, 0) };
    text.lines().enumerate().skip(start).find(|(_, l)| is_key(l, key)).map(|(i, l)| (i + 1, l.len() - l.trim_start().len() + 1)).unwrap_or((0, 0))
}

/// Loads each served pipeline's YAML (errors keep the pipeline file's name, line and key).
pub(crate) fn load_pipeline_configs(config: &ServerConfig) -> Result<Vec<(Option<String>, LoadedConfig)>> {
    config.pipelines.iter().map(|p| Ok((p.name.clone(), crate::config::load_file(&p.config)?))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_relative_paths() {
        let c = ServerConfig::parse_str("pipelines:\n  - config: p.yaml\n", "s.yaml", Path::new("/tmp")).unwrap();
        assert_eq!(c.port, 8080);
        assert_eq!(c.workers, 1);
        assert!(c.pipelines[0].config.is_absolute());
    }

    #[test]
    fn unknown_key_names_file_and_line() {
        let err = ServerConfig::parse_str("port: 1\nqueue_capacty: 3\npipelines: []\n", "s.yaml", Path::new(".")).unwrap_err().to_string();
        assert!(err.starts_with("s.yaml:2:"), "{err}");
        assert!(err.contains("queue_capacty"), "{err}");
    }

    /// The values of issue 17 that exhausted memory or panicked: each is an error at its line and key.
    #[test]
    fn numeric_values_have_upper_bounds() {
        let cases = [
            ("workers: 100000", "workers"),
            ("queue_capacity: 1000000000000", "queue_capacity"),
            ("request_timeout_seconds: 1.0e20", "request_timeout_seconds"),
            ("request_timeout_seconds: .inf", "request_timeout_seconds"),
            ("shutdown_grace_seconds: 1.0e19", "shutdown_grace_seconds"),
            ("shutdown_grace_seconds: -1", "shutdown_grace_seconds"),
            ("max_body_bytes: 1000000000000", "max_body_bytes"),
            ("header_read_timeout_seconds: 0", "header_read_timeout_seconds"),
            ("header_read_timeout_seconds: 1.0e20", "header_read_timeout_seconds"),
            ("idle_timeout_seconds: .nan", "idle_timeout_seconds"),
            ("idle_timeout_seconds: 100000", "idle_timeout_seconds"),
            ("body_read_timeout_seconds: -1", "body_read_timeout_seconds"),
            ("body_read_timeout_seconds: 3601", "body_read_timeout_seconds"),
            ("write_timeout_seconds: 0", "write_timeout_seconds"),
            ("write_timeout_seconds: 1.0e19", "write_timeout_seconds"),
            ("max_connections: 0", "max_connections"),
            ("max_connections: 1000000", "max_connections"),
        ];
        for (line, key) in cases {
            let text = format!("port: 0\n{line}\npipelines:\n  - config: p.yaml\n");
            let err = ServerConfig::parse_str(&text, "s.yaml", Path::new(".")).unwrap_err().to_string();
            assert!(err.starts_with("s.yaml:2:") && err.contains(&format!("{key}:")), "{line} -> {err}");
        }
        let many: String = (0..65).map(|i| format!("  - config: p{i}.yaml\n")).collect();
        let err = ServerConfig::parse_str(&format!("pipelines:\n{many}"), "s.yaml", Path::new(".")).unwrap_err().to_string();
        assert!(err.contains("pipelines:"), "{err}");
        let ends = "workers: 64\nqueue_capacity: 65536\nrequest_timeout_seconds: 86400\nshutdown_grace_seconds: 3600\nmax_body_bytes: 67108864\n\
                    header_read_timeout_seconds: 3600\nidle_timeout_seconds: 86400\nbody_read_timeout_seconds: 3600\nwrite_timeout_seconds: 3600\nmax_connections: 65536\n";
        ServerConfig::parse_str(&format!("{ends}pipelines:\n  - config: p.yaml\n"), "s.yaml", Path::new(".")).unwrap();
    }

    #[test]
    fn nat_section_values_are_checked_at_their_line() {
        let ok = "pipelines:\n  - config: p.yaml\n    nat:\n      max_sentences_per_request: 8\n      batch_window_ms: 0\n";
        let c = ServerConfig::parse_str(ok, "s.yaml", Path::new(".")).unwrap();
        assert_eq!(c.pipelines[0].nat.as_ref().unwrap().max_sentences_per_request, 8);
        let cases = [
            ("max_sentences_per_request: 0", "max_sentences_per_request"),
            ("max_sentences_per_request: 5000", "max_sentences_per_request"),
            ("max_sentence_bytes: 0", "max_sentence_bytes"),
            ("max_batch_sentences: 100000", "max_batch_sentences"),
            ("batch_window_ms: -1", "batch_window_ms"),
            ("batch_window_ms: .nan", "batch_window_ms"),
            ("batch_window_ms: 2000", "batch_window_ms"),
        ];
        for (line, key) in cases {
            // The second pipeline's section is the bad one: the error points at its line, not the first's.
            let text = format!("pipelines:\n  - config: a.yaml\n    nat:\n      batch_window_ms: 1\n  - config: p.yaml\n    nat:\n      {line}\n");
            let err = ServerConfig::parse_str(&text, "s.yaml", Path::new(".")).unwrap_err().to_string();
            assert!(err.starts_with("s.yaml:7:7") && err.contains(&format!("{key}:")), "{line} -> {err}");
        }
        let err = ServerConfig::parse_str("pipelines:\n  - config: p.yaml\n    nat:\n      batch_windw_ms: 1\n", "s.yaml", Path::new("."))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("s.yaml:4:") && err.contains("batch_windw_ms"), "{err}");
    }

    #[test]
    fn semantic_errors_name_the_key() {
        let err = ServerConfig::parse_str("workers: 0\npipelines:\n  - config: p.yaml\n", "s.yaml", Path::new(".")).unwrap_err().to_string();
        assert!(err.starts_with("s.yaml:1:"), "{err}");
        assert!(err.contains("workers"), "{err}");
    }
}

//! The library's typed errors. Every error names what the user must fix: the file, line and key of a bad
//! config, the input name and shape of a model that breaks the contract, the path of a missing library.

use std::path::PathBuf;

/// Everything that can go wrong in specrt, as one enum so the CLI, the C ABI and the server can map it.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A YAML pipeline file that does not parse or does not validate.
    #[error("{file}:{line}:{column}: {message}")]
    Config {
        /// The config file (or `<string>` for YAML given inline).
        file: String,
        /// 1-based line of the offending key or value (0 when unknown).
        line: usize,
        /// 1-based column (0 when unknown).
        column: usize,
        /// What is wrong, naming the key.
        message: String,
    },
    /// A model folder that is missing files or whose manifest cannot be read.
    #[error("model folder {path}: {message}")]
    Model {
        /// The model folder or file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The ONNX graph does not match the contract its manifest states.
    #[error("model {model}: graph does not match the contract: {message}")]
    Contract {
        /// The model folder.
        model: PathBuf,
        /// Which input/output, and the expected versus found name, dtype or shape.
        message: String,
    },
    /// libonnxruntime could not be found or loaded.
    #[error("ONNX Runtime library: {0}")]
    RuntimeLibrary(String),
    /// TensorRT (engine/backend/tensorrt/): a library that cannot be loaded or has the wrong major version, a
    /// plan that does not match its manifest or its GPU, a refused shape or binding; the text names which.
    #[error("TensorRT: {0}")]
    TensorRt(String),
    /// An error reported by the backend (ONNX Runtime) while building a session or running a graph.
    #[error("backend: {0}")]
    Backend(String),
    /// An execution provider listed in the config could not be registered.
    #[error("execution provider `{provider}` could not be registered: {message}")]
    Provider {
        /// The provider's name as written in the config.
        provider: String,
        /// Why registration failed.
        message: String,
    },
    /// Tokenizer loading, encoding or decoding failed.
    #[error("tokenizer: {0}")]
    Tokenizer(String),
    /// The chat template failed to render.
    #[error("chat template: {0}")]
    ChatTemplate(String),
    /// The prompt (plus at least one new token) does not fit into the model's context.
    #[error("prompt has {prompt_tokens} tokens but the context holds {context} (the prompt plus at least one new token must fit); shorten the prompt or raise the pipeline's top-level context_length (model maximum {model_max})")]
    PromptTooLong {
        /// Tokens in the prompt after the chat template.
        prompt_tokens: usize,
        /// The KV capacity in use.
        context: usize,
        /// The model's maximum position count.
        model_max: usize,
    },
    /// A text prompt too long to fit the context whatever it tokenizes to, refused before tokenizing it (which
    /// costs ~100x the text's size in memory).
    #[error("prompt has {bytes} bytes, more than the {limit} a context of {context} tokens can hold (at most {per_token} bytes per token); shorten the prompt or raise the pipeline's top-level context_length")]
    PromptTooLarge {
        /// UTF-8 bytes of the prompt text (all message contents and roles for a chat).
        bytes: usize,
        /// The byte limit: `context * per_token`.
        limit: usize,
        /// The KV capacity in use.
        context: usize,
        /// The bytes-per-token bound ([`crate::pipeline::MAX_PROMPT_BYTES_PER_TOKEN`]).
        per_token: usize,
    },
    /// A request that is invalid on its own (bad sampling values, empty prompt, ...).
    #[error("invalid request: {0}")]
    InvalidRequest(String),
    /// A value outside its allowed range or set, named by its key (`temperature`, `strategy.window.k`, ...).
    #[error("invalid request: {key} {message}")]
    InvalidValue {
        /// The key (or dotted key path) at fault.
        key: String,
        /// What is wrong with it.
        message: String,
    },
    /// An invariant of the engine itself was broken: a bug, never the caller's input.
    #[error("internal error (please report): {0}")]
    Internal(String),
    /// The caller cancelled the generation.
    #[error("generation cancelled")]
    Cancelled,
    /// A buffer sized from a config, manifest or request could not be allocated (the process would otherwise
    /// abort).
    #[error("could not allocate {bytes} bytes for {what}; lower context_length or use a smaller model")]
    Allocation {
        /// What the buffer is for (`KV cache`, `logits`, ...).
        what: String,
        /// The size asked for, computed without overflow (it may exceed the address space).
        bytes: u128,
    },
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Builds a [`Error::Io`] for `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }

    /// Builds a [`Error::Allocation`] for `count` elements of `T`.
    pub fn allocation<T>(what: impl Into<String>, count: u128) -> Self {
        Error::Allocation { what: what.into(), bytes: count.saturating_mul(std::mem::size_of::<T>() as u128) }
    }

    /// Builds a [`Error::Model`] for `path`.
    pub fn model(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Error::Model { path: path.into(), message: message.into() }
    }
}

/// Grows `buf` to `len` elements of `value` (never shrinks it), returning [`Error::Allocation`] naming `what` and
/// the size instead of aborting the process when the memory is not there: sizes that come from a config, a
/// manifest or a request must fail as errors ("no function aborts" holds for the C ABI too).
pub(crate) fn try_resize<T: Clone>(buf: &mut Vec<T>, len: usize, value: T, what: &str) -> Result<()> {
    if len > buf.len() {
        buf.try_reserve_exact(len - buf.len()).map_err(|_| Error::allocation::<T>(what, len as u128))?;
        buf.resize(len, value);
    }
    Ok(())
}

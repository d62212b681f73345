//! The ONNX Runtime backend (through the `ort` crate, loading `libonnxruntime` at run time).
//!
//! - [`library`]: finding and loading libonnxruntime, once per process.
//! - [`providers`]: the execution providers a config may list, each option documented.
//! - [`contract`]: checking a session's inputs and outputs against the model manifest.
//! - [`decoder`]: the decoder runner: one preallocated KV buffer per layer bound as both past and present, and a
//!   hot path on the raw C API so a decode step costs one `Run` and no large allocation.
//! - [`encoder`]: the encoder runner (CTC NAT): preallocated logits read in place.
//! - [`head`]: the runner for small auxiliary graphs (draft heads).
//! - [`call_cost`]: ONNX Runtime's own cost of one `Run` (a one-node graph), for the benchmark's overhead table.
//! - [`custom_ops`]: the engine's own operators (`ai.specrt`: [`block_matmul_op`] for GGUF-block linear layers,
//!   [`attention_op`] for batch-invariant attention, [`encoder_layer_op`] for a whole encoder layer, [`eagle_head_op`]
//!   for a whole EAGLE-style draft head, [`argmax_op`]
//!   for row argmaxes), registered on every session.
//!
//! This folder is the only place in the engine that uses the `ort` crate (scripts/check_layers.py checks it).

pub mod argmax_op;
pub mod attention_op;
pub mod block_matmul_op;
mod call_cost;
pub mod contract;
pub mod custom_ops;
pub mod decoder;
pub mod eagle_head_op;
pub mod encoder;
pub mod encoder_layer_op;
pub mod head;
mod layer_op_parts;
pub mod library;
mod op_io;
pub mod providers;
mod raw;

use std::path::Path;

use crate::backend::{Backend, DecoderGraph, EncoderGraph, HeadGraph};
use crate::config::{BackendConfig, OptimizationLevel};
use crate::contract::{GraphSpec, Manifest};
use crate::error::{Error, Result};

/// Serializes session creation (see [`OnnxRuntime::session`]).
static SESSION_CREATION: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Opens graphs with ONNX Runtime.
#[derive(Debug, Clone)]
pub struct OnnxRuntime {
    settings: BackendConfig,
    threads: usize,
}

impl OnnxRuntime {
    /// Loads libonnxruntime (once per process) and prepares a backend with `settings`.
    pub fn new(settings: &BackendConfig) -> Result<Self> {
        let threads = settings.threads.unwrap_or_else(default_threads);
        library::environment(settings.library.as_deref(), threads)?;
        Ok(OnnxRuntime { settings: settings.clone(), threads })
    }

    /// Intra-op threads sessions get.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Builds an `ort` session for `model_file` with the configured threads, optimization and providers.
    pub(crate) fn session(&self, model_file: &Path) -> Result<ort::session::Session> {
        self.session_from(SessionSource::File(model_file))
    }

    /// Builds a session the same way from a model held in memory (the per-call probe's tiny graph).
    pub(crate) fn session_from_memory(&self, model: &[u8]) -> Result<ort::session::Session> {
        self.session_from(SessionSource::Memory(model))
    }

    fn session_from(&self, source: SessionSource<'_>) -> Result<ort::session::Session> {
        use ort::session::builder::GraphOptimizationLevel as G;
        let (env, shared_pool) = library::environment(self.settings.library.as_deref(), self.threads)?;
        let level = match self.settings.optimization {
            OptimizationLevel::Disable => G::Disable,
            OptimizationLevel::Basic => G::Level1,
            OptimizationLevel::Extended => G::Level2,
            OptimizationLevel::All => G::All,
        };
        let backend_err = |e: ort::Error<ort::session::builder::SessionBuilder>| Error::Backend(e.to_string());
        let mut builder = ort::session::Session::builder(&env)
            .map_err(|e| Error::Backend(e.to_string()))?
            .with_optimization_level(level)
            .map_err(backend_err)?
            .with_intra_threads(self.threads)
            .map_err(backend_err)?;
        if self.threads != shared_pool {
            // This pipeline asked for another thread count than the process's shared pool (set by the first
            // pipeline loaded): it gets a pool of its own, so `backend.threads` is what it runs with (before, the
            // setting was silently ignored for every pipeline but the first, e.g. a one-thread NAT beside a
            // two-thread AR baseline in one bench process). A private pool of several threads does not spin, so
            // its idle threads cannot slow the shared pool's sessions when both run in one process.
            builder = builder.with_independent_thread_pool().map_err(backend_err)?;
            if self.threads > 1 {
                builder = builder.with_intra_op_spinning(false).map_err(backend_err)?;
            }
        }
        if let Some(prefix) = std::env::var_os("SPECRT_ORT_PROFILE") {
            // A developer's switch (docs/KERNELS.md): ONNX Runtime's per-node profile, written as
            // PREFIX_<date>.json when the session is dropped. Costs time on every node: never for figures.
            builder = builder.with_profiling(prefix).map_err(backend_err)?;
        }
        let ops = custom_ops::domain().map_err(|e| Error::Backend(format!("cannot create the ai.specrt operators: {e}")))?;
        builder = builder.with_operators(ops).map_err(backend_err)?;
        builder = providers::register(builder, &self.settings.providers)?;
        // ONNX Runtime adds a session's custom-op domain to ONNX's process-wide domain/version table with a
        // check-then-add that takes no lock: two sessions created at the same time can both add `ai.specrt`, and
        // one fails ("Trying to add a domain to DomainToVersion map, but the domain is already exist", seen in CI
        // with tests loading pipelines on parallel threads). Session creation is therefore one at a time.
        let _one_at_a_time = SESSION_CREATION.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        // The attention operator splits verification passes by this session's thread count (its kernels are
        // created during the commit below, under the same lock).
        attention_op::SESSION_THREADS.store(self.threads, std::sync::atomic::Ordering::Relaxed);
        attention_op::layout_from_env();
        match source {
            SessionSource::File(model_file) => {
                builder.commit_from_file(model_file).map_err(|e| Error::Backend(format!("cannot load {}: {e}", model_file.display())))
            }
            SessionSource::Memory(bytes) => {
                builder.commit_from_memory(bytes).map_err(|e| Error::Backend(format!("cannot load a model from memory: {e}")))
            }
        }
    }
}

/// Where a session's model comes from.
enum SessionSource<'a> {
    File(&'a Path),
    Memory(&'a [u8]),
}

/// Physical parallelism available to this process.
fn default_threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

impl Backend for OnnxRuntime {
    fn name(&self) -> &'static str {
        "onnxruntime"
    }

    fn device(&self) -> String {
        let names: Vec<&str> = self.settings.providers.iter().map(|p| p.name()).collect();
        format!("onnxruntime/{}", names.join("+"))
    }

    fn call_cost(&self) -> Result<Option<crate::backend::CallCost>> {
        call_cost::measure(self).map(Some)
    }

    fn open_decoder(&self, manifest: &Manifest, capacity: usize) -> Result<Box<dyn DecoderGraph>> {
        // The CPU forms of the contract feed GroupQueryAttention an `attention_bias` (token trees need it), which
        // ONNX Runtime's CUDA kernel rejects (and registers for fp16/bf16 only); the GPU form
        // (`attention_kernel: plain`) has no such operator, but this backend binds the KV cache, bias and logits
        // in host memory, so a GPU provider would copy the whole cache across PCIe every step. Either way the
        // config is refused up front instead of failing or crawling inside the first step (docs/GPU.md).
        if let Some(p) = self.settings.providers.iter().find(|p| !matches!(p, crate::config::ProviderConfig::Cpu)) {
            let why = if manifest.precision.attention_kernel.as_deref() == Some("plain") {
                "this backend keeps the KV cache in host memory (no device binding), so every step would copy the whole cache"
            } else {
                "its GroupQueryAttention takes no attention_bias and only fp16/bf16"
            };
            return Err(Error::Provider {
                provider: p.name().into(),
                message: format!(
                    "ONNX Runtime's {} provider cannot run the decoder contract ({why}): run decoders on a GPU with \
                     `backend: {{kind: cuda}}` (the native CUDA backend, docs/GPU.md)",
                    p.name()
                ),
            });
        }
        Ok(Box::new(decoder::OrtDecoder::open(self, manifest, capacity)?))
    }

    fn open_encoder(&self, dir: &Path, graph: &GraphSpec, logits_width: usize) -> Result<Box<dyn EncoderGraph>> {
        Ok(Box::new(encoder::OrtEncoder::open(self, dir, graph, logits_width)?))
    }

    fn open_head(&self, dir: &Path, graph: &GraphSpec) -> Result<Box<dyn HeadGraph>> {
        Ok(Box::new(head::OrtHead::open(self, dir, graph)?))
    }
}

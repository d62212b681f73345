//! The native CUDA backend (cargo feature `cuda`): the decoder contract run on an NVIDIA GPU from the export's
//! float16 weights (`gpu.safetensors`), with kernels compiled at run time by NVRTC. It needs only the driver
//! (libcuda) and NVRTC (libnvrtc); no cuBLAS, cuDNN or toolkit. docs/GPU.md says what it implements and measures.
//!
//! - [`driver`]: RAII handles over the driver API (context, stream, device and pinned buffers, graphs, events).
//! - [`kernels`]: kernels.cu compiled with NVRTC and looked up.
//! - [`weights`]: gpu.safetensors read into device memory, or synthetic weights of a named shape.
//! - [`plan`]: host-side planning of a pass (chunks, logits rows, graph keys), unit-tested without a GPU.
//! - [`decoder`]: [`decoder::CudaDecoder`], the [`DecoderGraph`] with a device-resident KV cache.
//!
//! On a machine without a driver every entry point returns a clear error (cudarc's loader would panic; we check
//! for the library first).

pub mod decoder;
pub mod driver;
pub mod kernels;
pub mod plan;
pub mod weights;

use std::path::Path;
use std::sync::Arc;

use crate::backend::{Backend, DecoderGraph, EncoderGraph, HeadGraph};
use crate::config::BackendConfig;
use crate::contract::{GraphSpec, Manifest};
use crate::error::{Error, Result};

pub use decoder::{CudaDecoder, GraphStats};
pub use weights::{Shape, Weights};

/// Opens decoders on one GPU.
#[derive(Debug, Clone)]
pub struct CudaBackend {
    // Declaration order is drop order: the module before the context it was loaded into.
    kernels: Arc<kernels::Kernels>,
    ctx: Arc<driver::Context>,
    graphs: bool,
}

impl CudaBackend {
    /// Initialises device `backend.cuda.device_id` and compiles the kernels for it.
    pub fn new(settings: &BackendConfig) -> Result<CudaBackend> {
        let ctx = Arc::new(driver::Context::new(settings.cuda.device_id)?);
        let kernels = kernels::Kernels::load(ctx.capability)?;
        Ok(CudaBackend { kernels, ctx, graphs: settings.cuda.graphs })
    }

    /// The device context (benchmarks).
    pub fn context(&self) -> &Arc<driver::Context> {
        &self.ctx
    }

    /// A decoder of `shape` with deterministic random weights (benchmarks: no model file needed).
    pub(crate) fn synthetic_decoder(&self, shape: &Shape, capacity: usize, seed: u32) -> Result<CudaDecoder> {
        self.ctx.bind()?;
        shape.validate()?;
        let stream = driver::Stream::new()?;
        let weights = Weights::synthetic(shape, &self.kernels, &stream, seed)?;
        CudaDecoder::new(self.ctx.clone(), self.kernels.clone(), shape.clone(), weights, capacity, false, self.graphs)
    }

    /// Opens the decoder of `manifest` as a concrete [`CudaDecoder`] (benchmarks read its graph statistics).
    pub(crate) fn open_cuda_decoder(&self, manifest: &Manifest, capacity: usize) -> Result<CudaDecoder> {
        self.ctx.bind()?;
        let file = manifest.gpu_weights.as_ref().ok_or_else(|| Error::Model {
            path: manifest.header.dir.clone(),
            message: "the manifest names no `gpu_weights`: the cuda backend runs the float16 GPU form of the contract; write it with \
                      `python -m export gpu-weights SOURCE --model-dir DIR`"
                .into(),
        })?;
        let shape = Shape::from_manifest(manifest);
        shape.validate()?;
        let weights = Weights::load(&manifest.header.dir.join(file), &shape)?;
        CudaDecoder::new(self.ctx.clone(), self.kernels.clone(), shape, weights, capacity, manifest.hidden_states, self.graphs)
    }
}

impl Backend for CudaBackend {
    fn name(&self) -> &'static str {
        "cuda"
    }

    fn device(&self) -> String {
        format!("cuda:{} {}", self.ctx.ordinal, self.ctx.name)
    }

    fn open_decoder(&self, manifest: &Manifest, capacity: usize) -> Result<Box<dyn DecoderGraph>> {
        Ok(Box::new(self.open_cuda_decoder(manifest, capacity)?))
    }

    fn open_encoder(&self, dir: &Path, _graph: &GraphSpec, _logits_width: usize) -> Result<Box<dyn EncoderGraph>> {
        Err(Error::Backend(format!(
            "cuda: {} is a CTC NAT encoder; the cuda backend runs decoders only so far (run the NAT pipeline with `backend: {{kind: onnxruntime}}`)",
            dir.display()
        )))
    }

    fn open_head(&self, dir: &Path, _graph: &GraphSpec) -> Result<Box<dyn HeadGraph>> {
        Err(Error::Backend(format!(
            "cuda: {} is a draft head; the cuda backend runs decoders only so far (draft-head pipelines run with `backend: {{kind: onnxruntime}}`)",
            dir.display()
        )))
    }
}

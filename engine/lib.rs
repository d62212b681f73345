//! specrt: deploy LLMs exported to ONNX and decode them fast.
//!
//! The layers, each pointing one way: interfaces (CLI, C ABI, server) -> [`Pipeline`] (a YAML file, loaded) ->
//! [`strategy`] (how tokens are decided) -> [`model`] (a decoder with its KV cache, masks, positions) ->
//! [`backend`] (ONNX Runtime today) -> [`contract`] (the manifests every layer reads). A strategy never knows
//! which backend runs it; `scripts/check_layers.py` keeps the folders free of import cycles.
//!
//! ```no_run
//! use specrt::{GenerationRequest, Pipeline};
//! let mut pipeline = Pipeline::load("configs/default.yaml".as_ref())?;
//! let out = pipeline.generate(&GenerationRequest::text("The capital of France is"), &mut |piece| {
//!     print!("{piece}");
//!     true
//! })?;
//! eprintln!("{}", out.stats.summary_line());
//! # Ok::<(), specrt::Error>(())
//! ```

pub mod backend;
#[cfg(feature = "cli")]
pub mod bench;
pub mod config;
pub mod contract;
pub mod error;
pub mod ffi;
pub mod generate;
pub mod kernels;
pub mod model;
pub mod nat;
pub mod pipeline;
pub mod sampling;
#[cfg(feature = "server")]
pub mod server;
pub mod stats;
pub mod strategy;
pub mod text;

pub use error::{Error, Result};
pub use generate::{FinishReason, GenerationRequest, Output, Prompt};
pub use pipeline::Pipeline;
pub use stats::Stats;
pub use text::ChatMessage;

//! TensorRT (cargo feature `tensorrt`): plans built from the GPU form of the decoder contract and run through a
//! thin C++ shim over TensorRT's API. docs/GPU.md ("TensorRT") says what works and what is measured.
//!
//! - `shim/`: specrt_trt.{h,cpp} (compiled by build.rs) and the vendored TensorRT 11.4 headers (Apache-2.0, see
//!   shim/include/tensorrt/README.md). libnvinfer and libnvonnxparser are opened with dlopen at run time.
//! - [`shim`]: the raw C interface. [`library`]: safe handles (library, engine, execution context).
//! - [`profiles`]: the prefill and decode/verify optimization profiles of a decoder, from its manifest.
//! - [`plans`]: `specrt build-plans` (plans/*.plan + a manifest per plan) and the checked loader.
//! - [`graphs`]: CUDA graphs around enqueue, one per shape bucket, with a direct fallback.
//!
//! A machine without TensorRT gets `TensorRT: opening TensorRT: cannot load libnvinfer.so.11: ...`; a TensorRT
//! of another major version gets an error naming both versions (the C++ ABI and plans are tied to it).

pub mod graphs;
pub mod library;
pub mod plans;
pub mod profiles;
pub mod shim;

pub use library::{header_version, Engine, ExecutionContext, IoTensor, LibraryPaths, TensorRt};
pub use plans::{build_plan, load_plan, BuildOptions, PlanManifest};
pub use profiles::ProfileLimits;

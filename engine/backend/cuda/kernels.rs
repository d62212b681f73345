//! Compiling kernels.cu with NVRTC and looking its kernels up once per process (per device).
//!
//! NVRTC needs no GPU: [`compile_ptx`] also runs on machines without a driver, which is how the kernels are
//! checked in CI (tests/cuda_kernels.rs). The driver then JIT-compiles the PTX for the device at hand.

use std::sync::Arc;

use super::driver::{nvrtc_present, Function, Module};
use crate::error::{Error, Result};

/// The kernels' source (compiled at run time, so the binary needs no CUDA toolkit at build time).
pub const SOURCE: &str = include_str!("kernels.cu");

/// Index of the past length in the kernels' `params` buffer (P_PAST in kernels.cu).
pub(crate) const PARAM_PAST: usize = 0;
/// Index of the bias row stride (P_BIAS_STRIDE).
pub(crate) const PARAM_BIAS_STRIDE: usize = 1;
/// Index of the bias flag (P_BIAS_ON).
pub(crate) const PARAM_BIAS_ON: usize = 2;
/// Length of the params buffer.
pub(crate) const PARAM_LEN: usize = 4;

/// Rows per matmul tile (MT in kernels.cu).
pub(crate) const MATMUL_ROWS: usize = 8;
/// Threads per matmul block: 4 warps, one output feature each.
pub(crate) const MATMUL_THREADS: u32 = 128;

/// Every kernel the decoder launches.
pub const KERNEL_NAMES: [&str; 16] = [
    "matmul_f16w",
    "matmul_tile_f16w",
    "matmul_part_f16w",
    "matmul_part_tile_f16w",
    "splitk_sum",
    "matmul_gate_up_f16w",
    "matmul_gate_up_tile_f16w",
    "rmsnorm",
    "embed_rows",
    "rope_store_kv",
    "attention",
    "attention_d64",
    "attention_d128",
    "compact_kv",
    "fill_random_f16",
    "fill_f32",
];

/// Compiles [`SOURCE`] to PTX for `compute_{major}{minor}`. The error carries NVRTC's log (file:line of the fault).
pub fn compile_ptx(capability: (i32, i32)) -> Result<String> {
    compile_source(SOURCE, capability)
}

/// Compiles CUDA C `source` to PTX (see [`compile_ptx`]); public so tests can show a broken kernel is reported.
pub fn compile_source(source: &str, capability: (i32, i32)) -> Result<String> {
    if !nvrtc_present() {
        return Err(Error::Backend(
            "cuda: libnvrtc could not be loaded (the kernels are compiled at run time): install the CUDA runtime compiler \
             (e.g. `pip install nvidia-cuda-nvrtc`) and put its lib folder on LD_LIBRARY_PATH"
                .into(),
        ));
    }
    let opts = cudarc::nvrtc::CompileOptions {
        options: vec![format!("--gpu-architecture=compute_{}{}", capability.0, capability.1), "--std=c++17".into()],
        name: Some("specrt_kernels.cu".into()),
        ..Default::default()
    };
    match cudarc::nvrtc::compile_ptx_with_opts(source, opts) {
        Ok(ptx) => Ok(ptx.to_src()),
        Err(cudarc::nvrtc::CompileError::CompileError { log, .. }) => {
            Err(Error::Backend(format!("cuda: NVRTC rejected kernels.cu:\n{}", log.to_string_lossy())))
        }
        Err(e) => Err(Error::Backend(format!("cuda: NVRTC: {e:?}"))),
    }
}

/// The loaded module and its kernels.
#[derive(Debug)]
pub struct Kernels {
    _module: Module,
    /// `matmul_f16w`.
    pub matmul: Function,
    /// `matmul_tile_f16w` (the same sums with fewer loads in flight, for passes of several rows).
    pub matmul_tile: Function,
    /// `matmul_part_f16w` (split-K: one part of K per grid.z, sums to a scratch buffer).
    pub matmul_part: Function,
    /// `matmul_part_tile_f16w` (the same for passes of several rows).
    pub matmul_part_tile: Function,
    /// `splitk_sum` (adds the split-K parts in order, plus bias / accumulate).
    pub splitk_sum: Function,
    /// `matmul_gate_up_f16w` (gate and up rows per warp, SwiGLU epilogue).
    pub matmul_gate_up: Function,
    /// `matmul_gate_up_tile_f16w` (for passes of several rows).
    pub matmul_gate_up_tile: Function,
    /// `rmsnorm`.
    pub rmsnorm: Function,
    /// `embed_rows`.
    pub embed: Function,
    /// `rope_store_kv`.
    pub rope_store_kv: Function,
    /// `attention` (any even head_dim).
    pub attention: Function,
    /// `attention_d64` (head_dim 64, loads batched).
    pub attention_d64: Function,
    /// `attention_d128` (head_dim 128).
    pub attention_d128: Function,
    /// `compact_kv`.
    pub compact_kv: Function,
    /// `fill_random_f16` (synthetic benchmark weights).
    pub fill_random_f16: Function,
    /// `fill_f32`.
    pub fill_f32: Function,
}

impl Kernels {
    /// Compiles and loads the kernels for a device of `capability` (context already current).
    pub fn load(capability: (i32, i32)) -> Result<Arc<Kernels>> {
        let ptx = compile_ptx(capability)?;
        let module = Module::load_ptx(&ptx)?;
        Ok(Arc::new(Kernels {
            matmul: module.function("matmul_f16w")?,
            matmul_tile: module.function("matmul_tile_f16w")?,
            matmul_part: module.function("matmul_part_f16w")?,
            matmul_part_tile: module.function("matmul_part_tile_f16w")?,
            splitk_sum: module.function("splitk_sum")?,
            matmul_gate_up: module.function("matmul_gate_up_f16w")?,
            matmul_gate_up_tile: module.function("matmul_gate_up_tile_f16w")?,
            rmsnorm: module.function("rmsnorm")?,
            embed: module.function("embed_rows")?,
            rope_store_kv: module.function("rope_store_kv")?,
            attention: module.function("attention")?,
            attention_d64: module.function("attention_d64")?,
            attention_d128: module.function("attention_d128")?,
            compact_kv: module.function("compact_kv")?,
            fill_random_f16: module.function("fill_random_f16")?,
            fill_f32: module.function("fill_f32")?,
            _module: module,
        }))
    }
}

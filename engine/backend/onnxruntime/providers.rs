//! Execution providers. Each entry of `backend.providers` is registered in order with `error_on_failure`, so a
//! provider that cannot be used (a CPU-only libonnxruntime, no driver, a build without the cargo feature) is an
//! error that names it, never a silent fall back to the CPU.
//!
//! | YAML | options | needs |
//! |---|---|---|
//! | `cpu` | none | nothing |
//! | `cuda` / `{cuda: {device_id: N}}` | `device_id`: GPU index | cargo feature `cuda`, a CUDA build of libonnxruntime |
//! | `{tensorrt: {device_id, fp16, engine_cache}}` | `fp16`: build fp16 engines; `engine_cache`: folder for built engines (skips rebuilds) | cargo feature `tensorrt`, a TensorRT build of libonnxruntime |

use ort::session::builder::SessionBuilder;

use crate::config::ProviderConfig;
use crate::error::{Error, Result};

/// Registers `providers` on `builder` in order; the first failure is returned as [`Error::Provider`].
pub(crate) fn register(mut builder: SessionBuilder, providers: &[ProviderConfig]) -> Result<SessionBuilder> {
    for provider in providers {
        let dispatch = dispatch(provider)?;
        builder =
            builder.with_execution_providers([dispatch]).map_err(|e| Error::Provider { provider: provider.name().into(), message: e.to_string() })?;
    }
    Ok(builder)
}

fn dispatch(provider: &ProviderConfig) -> Result<ort::ep::ExecutionProviderDispatch> {
    match provider {
        ProviderConfig::Cpu => Ok(ort::ep::CPU::default().build().error_on_failure()),
        ProviderConfig::Cuda { device_id } => cuda(*device_id),
        ProviderConfig::Tensorrt { device_id, fp16, engine_cache } => tensorrt(*device_id, *fp16, engine_cache.as_deref()),
    }
}

#[cfg(feature = "cuda")]
fn cuda(device_id: i32) -> Result<ort::ep::ExecutionProviderDispatch> {
    Ok(ort::ep::CUDA::default().with_device_id(device_id).build().error_on_failure())
}

#[cfg(not(feature = "cuda"))]
fn cuda(_device_id: i32) -> Result<ort::ep::ExecutionProviderDispatch> {
    Err(Error::Provider {
        provider: "cuda".into(),
        message: "this specrt was built without the `cuda` cargo feature (cargo build --features cuda)".into(),
    })
}

#[cfg(feature = "tensorrt")]
fn tensorrt(device_id: i32, fp16: bool, engine_cache: Option<&std::path::Path>) -> Result<ort::ep::ExecutionProviderDispatch> {
    let mut ep = ort::ep::TensorRT::default().with_device_id(device_id).with_fp16(fp16);
    if let Some(dir) = engine_cache {
        ep = ep.with_engine_cache(true).with_engine_cache_path(dir.display());
    }
    Ok(ep.build().error_on_failure())
}

#[cfg(not(feature = "tensorrt"))]
fn tensorrt(_device_id: i32, _fp16: bool, _engine_cache: Option<&std::path::Path>) -> Result<ort::ep::ExecutionProviderDispatch> {
    Err(Error::Provider {
        provider: "tensorrt".into(),
        message: "this specrt was built without the `tensorrt` cargo feature (cargo build --features tensorrt)".into(),
    })
}

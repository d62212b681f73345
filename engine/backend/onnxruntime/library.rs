//! Finding and loading `libonnxruntime`. `ort` panics when it cannot dlopen the library on its default path, so
//! the path is resolved and checked here first, and every failure becomes a clear [`Error::RuntimeLibrary`].

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use crate::error::{Error, Result};

/// The ONNX Runtime version the `ort` crate was built against (older libraries are refused).
pub const EXPECTED_MINOR_VERSION: u32 = 31;

static ENVIRONMENT: OnceLock<(ort::environment::Environment, PathBuf)> = OnceLock::new();
static INIT_LOCK: Mutex<()> = Mutex::new(());

/// Where the library is looked for, in order: the config's `backend.library`, `$ORT_DYLIB_PATH`, next to the
/// executable (`./libonnxruntime.so`, `../lib/libonnxruntime.so`), then the copy `make setup` puts in the source
/// tree's `.cache/lib/`.
pub fn candidates(configured: Option<&Path>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(p) = configured {
        out.push(p.to_path_buf());
        return out;
    }
    if let Some(p) = std::env::var_os("ORT_DYLIB_PATH") {
        out.push(PathBuf::from(p));
        return out;
    }
    if let Ok(exe) = std::env::current_exe() {
        if let Some(dir) = exe.parent() {
            out.push(dir.join("libonnxruntime.so"));
            out.push(dir.join("../lib/libonnxruntime.so"));
        }
    }
    out.push(Path::new(env!("CARGO_MANIFEST_DIR")).join(".cache/lib/libonnxruntime.so"));
    out
}

/// The process-wide ONNX Runtime environment, loading the library on first use.
///
/// The environment owns ONE intra-op thread pool of `threads` threads that every session uses. A speculative
/// pipeline runs two or three sessions in turn; with a pool per session their idle threads spin while another
/// session works, and on a 2-core machine the draft model then ran ~3x slower than alone (measured). The first
/// pipeline of a process sets the pool size.
pub fn environment(configured: Option<&Path>, threads: usize) -> Result<ort::environment::Environment> {
    if let Some((env, _)) = ENVIRONMENT.get() {
        return Ok(env.clone());
    }
    let _guard = INIT_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((env, _)) = ENVIRONMENT.get() {
        return Ok(env.clone());
    }
    let tried = candidates(configured);
    let path = tried.iter().find(|p| p.is_file()).cloned().ok_or_else(|| {
        let list: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
        Error::RuntimeLibrary(format!(
            "libonnxruntime.so not found (looked at: {}). Run `make setup`, set ORT_DYLIB_PATH, or set backend.library in the config",
            list.join(", ")
        ))
    })?;
    let builder = ort::init_from(&path).map_err(|e| Error::RuntimeLibrary(format!("{}: {e}", path.display())))?;
    let pool = ort::environment::GlobalThreadPoolOptions::default()
        .with_intra_threads(threads.max(1))
        .and_then(|p| p.with_spin_control(true))
        .map_err(|e| Error::RuntimeLibrary(format!("cannot configure the thread pool: {e}")))?;
    let env = builder
        .with_name("specrt")
        .with_global_thread_pool(pool)
        .build()
        .map_err(|e| Error::RuntimeLibrary(format!("{}: cannot create the environment: {e}", path.display())))?;
    let _ = ENVIRONMENT.set((env.clone(), path));
    Ok(env)
}

/// The library path in use, once loaded.
pub fn loaded_path() -> Option<&'static Path> {
    ENVIRONMENT.get().map(|(_, p)| p.as_path())
}

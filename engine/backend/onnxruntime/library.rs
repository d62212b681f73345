//! Finding and loading `libonnxruntime`. `ort` panics when it cannot dlopen the library on its default path, so
//! the path is resolved and checked here first, and every failure becomes a clear [`Error::RuntimeLibrary`].

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use crate::error::{Error, Result};

/// The process-wide environment's life: not yet created, created, or released by [`shutdown`] (final: ONNX
/// Runtime allows one environment per process, so it cannot be created again).
enum State {
    Unloaded,
    /// The environment, the library's path and the size of the shared intra-op pool.
    Ready(ort::environment::Environment, PathBuf, usize),
    ShutDown,
}

/// A mutex, not a `OnceLock`, so that [`shutdown`] can take the environment back. Taken only when a session is
/// built (pipeline load), never per step.
static ENVIRONMENT: Mutex<State> = Mutex::new(State::Unloaded);

fn state() -> MutexGuard<'static, State> {
    // Nothing under this lock panics halfway through a change; a poisoned lock is still consistent.
    ENVIRONMENT.lock().unwrap_or_else(|p| p.into_inner())
}

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

/// The process-wide ONNX Runtime environment, loading the library on first use, and the size of its shared pool.
///
/// The environment owns ONE intra-op thread pool that sessions share. A speculative pipeline runs two or three
/// sessions in turn; with a pool per session their idle threads spin while another session works, and on a 2-core
/// machine the draft model then ran ~3x slower than alone (measured). The first pipeline of a process sets the
/// shared pool's size (`threads`); a session that asks for another size gets its own pool
/// ([`super::OnnxRuntime`] decides), so a pipeline's `backend.threads` is always what it runs with.
pub fn environment(configured: Option<&Path>, threads: usize) -> Result<(ort::environment::Environment, usize)> {
    let mut state = state();
    match &*state {
        State::Ready(env, _, pool) => return Ok((env.clone(), *pool)),
        State::ShutDown => {
            return Err(Error::RuntimeLibrary("ONNX Runtime was shut down in this process (specrt_shutdown); it cannot be started again".into()))
        }
        State::Unloaded => {}
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
    let pool = threads.max(1);
    *state = State::Ready(env.clone(), path, pool);
    Ok((env, pool))
}

/// The library path in use, once loaded (and until [`shutdown`]).
pub fn loaded_path() -> Option<PathBuf> {
    match &*state() {
        State::Ready(_, path, _) => Some(path.clone()),
        _ => None,
    }
}

/// Releases the process's reference to the environment, for good. Once every session built from it is dropped
/// too (the C ABI's `specrt_shutdown` checks that no pipeline is loaded), ONNX Runtime releases the environment
/// and joins its thread pool, so no pool thread still runs when the process exits. (One idle ONNX Runtime
/// thread that the first environment starts survives `ReleaseEnv`: measured with 1.31.1 through the C API.) Returns whether an
/// environment was held (false when none was ever created or it was already released).
pub fn shutdown() -> bool {
    let previous = std::mem::replace(&mut *state(), State::ShutDown);
    // Dropped here, outside the lock: releasing the environment joins threads.
    matches!(previous, State::Ready(..))
}

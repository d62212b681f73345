//! The library's process-wide life as the C ABI sees it: how many pipelines are loaded, and whether
//! `specrt_shutdown` has run. Depends on nothing else in engine/ffi/, so every entry point's guard can read it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Set once by a successful `specrt_shutdown`; read at the start of every entry point (a load, no lock).
static SHUT_DOWN: AtomicBool = AtomicBool::new(false);

/// Pipelines loaded and not yet freed, counted from the start of a load (so a shutdown cannot slip in while a
/// load is building sessions) to the end of their free.
static PIPELINES: Mutex<usize> = Mutex::new(0);

fn pipelines() -> MutexGuard<'static, usize> {
    // A counter: a poisoned lock still holds a valid count.
    PIPELINES.lock().unwrap_or_else(|p| p.into_inner())
}

/// Whether `specrt_shutdown` has run in this process.
pub(crate) fn is_shut_down() -> bool {
    SHUT_DOWN.load(Ordering::SeqCst)
}

/// Counts a pipeline that is being loaded; `false` (nothing counted) once the library is shut down.
pub(crate) fn pipeline_opened() -> bool {
    let mut n = pipelines();
    if is_shut_down() {
        return false;
    }
    *n += 1;
    true
}

/// Uncounts a pipeline whose load failed or that was freed.
pub(crate) fn pipeline_closed() {
    let mut n = pipelines();
    *n = n.saturating_sub(1);
}

/// Marks the library shut down when no pipeline is loaded (or it already is), and returns `Ok(())`; otherwise
/// leaves it running and returns how many pipelines are still loaded. `release` runs under the same lock, after
/// the mark, so no load can start between the check and the release.
pub(crate) fn shut_down(release: impl FnOnce()) -> Result<(), usize> {
    let n = pipelines();
    if is_shut_down() {
        return Ok(());
    }
    if *n > 0 {
        return Err(*n);
    }
    SHUT_DOWN.store(true, Ordering::SeqCst);
    release();
    drop(n);
    Ok(())
}

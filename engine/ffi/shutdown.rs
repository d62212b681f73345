//! `specrt_shutdown`: the last call of a host, releasing ONNX Runtime's process-wide environment and joining its
//! threads before the process exits.

use super::error::{guard_running, FfiError};
use super::lifecycle;
use super::status::specrt_status;

/// Releases the process-wide ONNX Runtime environment and joins its thread pool, so no thread that runs the
/// library's work (and reads its buffers) is still running while the process exits. (ONNX Runtime itself keeps
/// one idle internal thread that its first environment starts and no API stops; measured with 1.31.1.) Call it
/// last, after freeing every pipeline (requests and results too: they cannot be freed afterwards).
///
/// Returns `SPECRT_BUSY` and changes nothing while a pipeline is still loaded (free it first). Once it has
/// returned `SPECRT_OK`, the library is done for this process: `specrt_abi_version`, `specrt_version`,
/// `specrt_status_name` and `specrt_last_error` still work, `specrt_shutdown` again returns `SPECRT_OK`, and
/// every other function returns `SPECRT_SHUT_DOWN` and does nothing (ONNX Runtime allows one environment per
/// process, so the library cannot be started again). Optional: a host that never calls it keeps working, and the
/// operating system reclaims everything at exit.
#[no_mangle]
pub extern "C" fn specrt_shutdown() -> specrt_status {
    guard_running("specrt_shutdown", || {
        lifecycle::shut_down(crate::backend::shutdown).map_err(|loaded| {
            FfiError::new(
                specrt_status::SPECRT_BUSY,
                format!("{loaded} pipeline(s) still loaded: free every pipeline (specrt_pipeline_free) before shutting down"),
            )
        })
    })
}

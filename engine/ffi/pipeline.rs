//! `specrt_pipeline`: a loaded pipeline, and `specrt_generate`.

use std::ffi::{c_char, c_int, c_void};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use super::error::{guard, out_arg, str_arg, FfiResult};
use super::handle::{self, HandleKind};
use super::request::{specrt_request, RequestState};
use super::result::{specrt_result, ResultState};
use super::status::specrt_status;
use crate::pipeline::Pipeline;

/// A loaded pipeline (opaque). Thread-safe: any thread may use it, and calls of `specrt_generate` on one
/// pipeline from several threads run one after another (a mutex; each waits for the previous to finish).
/// `specrt_pipeline_cancel` may be called from any thread at any time. It must not be freed while another
/// call uses it.
#[allow(non_camel_case_types)]
pub struct specrt_pipeline {
    _private: [u8; 0],
}

/// The state behind a `specrt_pipeline`.
pub struct PipelineState {
    pipeline: Mutex<Pipeline>,
    cancel: AtomicBool,
}

impl HandleKind for PipelineState {
    const MAGIC: u64 = 0x5350_4543_5049_5045; // "SPECPIPE"
    const NAME: &'static str = "specrt_pipeline";
}

const _: () = {
    const fn send<T: Send>() {}
    send::<Pipeline>();
};

/// Called with each piece of generated text as it becomes final: `piece` is UTF-8, `len` bytes long and also
/// NUL-terminated; it is valid only during the call. Return 0 to go on, nonzero to stop the generation (it then
/// ends with finish_reason "cancelled" and `specrt_generate` still returns `SPECRT_OK` with a result).
#[allow(non_camel_case_types)]
pub type specrt_stream_callback = Option<unsafe extern "C" fn(piece: *const c_char, len: usize, user_data: *mut c_void) -> c_int>;

fn finish_load(loaded: crate::Result<Pipeline>, out: &mut *mut specrt_pipeline) -> FfiResult {
    let pipeline = loaded?;
    *out = handle::into_raw(PipelineState { pipeline: Mutex::new(pipeline), cancel: AtomicBool::new(false) });
    Ok(())
}

/// Loads the pipeline a YAML file describes (UTF-8 path; relative paths inside resolve against the file's
/// folder) into `*out`. Errors: `SPECRT_IO` (unreadable file), `SPECRT_CONFIG` (with file:line:column),
/// `SPECRT_MODEL`, `SPECRT_BACKEND`.
#[no_mangle]
pub unsafe extern "C" fn specrt_pipeline_load_file(path_utf8: *const c_char, out: *mut *mut specrt_pipeline) -> specrt_status {
    guard("specrt_pipeline_load_file", || {
        let out = out_arg(out, "out")?;
        *out = std::ptr::null_mut();
        let path = str_arg(path_utf8, "path_utf8")?;
        finish_load(Pipeline::load(Path::new(path)), out)
    })
}

/// Loads a pipeline from YAML text; relative paths in it (e.g. `model:`) resolve against `base_dir_utf8`
/// (NULL = the current directory).
#[no_mangle]
pub unsafe extern "C" fn specrt_pipeline_load_yaml(
    yaml_utf8: *const c_char,
    base_dir_utf8: *const c_char,
    out: *mut *mut specrt_pipeline,
) -> specrt_status {
    guard("specrt_pipeline_load_yaml", || {
        let out = out_arg(out, "out")?;
        *out = std::ptr::null_mut();
        let yaml = str_arg(yaml_utf8, "yaml_utf8")?;
        let base = if base_dir_utf8.is_null() { "." } else { str_arg(base_dir_utf8, "base_dir_utf8")? };
        finish_load(Pipeline::from_yaml_str(yaml, Path::new(base)), out)
    })
}

/// Frees `*pipeline` and sets it to NULL; a no-op when `*pipeline` is already NULL.
#[no_mangle]
pub unsafe extern "C" fn specrt_pipeline_free(pipeline: *mut *mut specrt_pipeline) -> specrt_status {
    guard("specrt_pipeline_free", || handle::free::<PipelineState, _>(pipeline, "pipeline"))
}

/// Asks the generation running on `pipeline` to stop (checked between tokens); it then returns `SPECRT_OK`
/// with the text so far and finish_reason "cancelled". Callable from any thread. The flag is reset when a
/// generation starts, so a cancel issued while no generation runs has no effect on later ones.
#[no_mangle]
pub unsafe extern "C" fn specrt_pipeline_cancel(pipeline: *const specrt_pipeline) -> specrt_status {
    guard("specrt_pipeline_cancel", || {
        handle::get::<PipelineState, _>(pipeline, "pipeline")?.cancel.store(true, Ordering::SeqCst);
        Ok(())
    })
}

/// Generates for `request` on `pipeline`, blocking until done, and returns the result in `*out_result` (free
/// it with `specrt_result_free`). `callback` (may be NULL) receives the text as it is generated, with
/// `user_data`. Calls from several threads on one pipeline run one after another.
/// Errors: `SPECRT_INVALID_ARGUMENT` (no prompt, bad sampling values), `SPECRT_PROMPT_TOO_LONG`,
/// `SPECRT_BACKEND`, `SPECRT_MODEL`.
#[no_mangle]
pub unsafe extern "C" fn specrt_generate(
    pipeline: *const specrt_pipeline,
    request: *const specrt_request,
    callback: specrt_stream_callback,
    user_data: *mut c_void,
    out_result: *mut *mut specrt_result,
) -> specrt_status {
    guard("specrt_generate", || {
        let state = handle::get::<PipelineState, _>(pipeline, "pipeline")?;
        let request = handle::get::<RequestState, _>(request, "request")?.request.clone();
        let out = out_arg(out_result, "out_result")?;
        *out = std::ptr::null_mut();
        // A panic in an earlier generation poisons the mutex; every generation resets the model's state first,
        // so the pipeline stays usable.
        let mut pipeline = state.pipeline.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        state.cancel.store(false, Ordering::SeqCst);
        let mut buf: Vec<u8> = Vec::new();
        let mut on_text = |piece: &str| -> bool {
            let Some(cb) = callback else { return true };
            buf.clear();
            buf.extend_from_slice(piece.as_bytes());
            buf.push(0);
            // SAFETY: the host's callback, called with a NUL-terminated buffer of `len + 1` bytes.
            unsafe { cb(buf.as_ptr().cast(), piece.len(), user_data) == 0 }
        };
        let output = pipeline.generate_with_cancel(&request, &mut on_text, Some(&state.cancel))?;
        drop(pipeline);
        *out = handle::into_raw(ResultState::new(output));
        Ok(())
    })
}

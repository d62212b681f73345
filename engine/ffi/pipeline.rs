//! `specrt_pipeline`: a loaded pipeline (a decoder pipeline, or a NAT translation pipeline), and
//! `specrt_generate`.

use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use super::error::{guard, out_arg, str_arg, FfiError, FfiResult};
use super::handle::{self, HandleKind};
use super::lifecycle;
use super::nat;
use super::request::{specrt_request, RequestState};
use super::result::{specrt_result, ResultState};
use super::status::specrt_status;
use crate::config::{self, LoadedConfig, StrategyConfig};
use crate::nat::NatPipeline;
use crate::pipeline::Pipeline;

/// A loaded pipeline (opaque): a decoder pipeline, or a NAT pipeline (`strategy: {kind: nat}`) that translates
/// the sentences of `specrt_request_set_sources`. Thread-safe: any thread may use it, and calls of
/// `specrt_generate` on one pipeline from several threads run one after another (a mutex; each waits for the
/// previous to finish).
/// `specrt_pipeline_cancel` may be called from any thread at any time, including from a stream callback.
/// From inside its own stream callback, `specrt_generate` and `specrt_pipeline_free` on the same pipeline
/// return `SPECRT_REENTRANT` (they would wait for, or free, the generation that is calling them).
/// `specrt_pipeline_free` from another thread while a generation runs cancels it and waits for it (and for
/// calls waiting for the pipeline) before freeing.
#[allow(non_camel_case_types)]
pub struct specrt_pipeline {
    _private: [u8; 0],
}

/// The state behind a `specrt_pipeline`. The parts a running call uses live behind an `Arc`, so that
/// `specrt_pipeline_free` can release the handle while a generation still holds what it needs and then wait
/// for it: freeing can never pull the pipeline out from under a running call.
pub(crate) struct PipelineState {
    shared: Arc<Shared>,
}

/// What `specrt_generate` holds for the duration of a call.
struct Shared {
    pipeline: Mutex<Loaded>,
    cancel: AtomicBool,
    /// Set by `specrt_pipeline_free`: calls still waiting for the mutex return instead of generating.
    closing: AtomicBool,
    /// Calls of `specrt_generate` inside the pipeline (running or waiting for the mutex); free waits for 0.
    active: Mutex<usize>,
    idle: Condvar,
    /// Last field, so it is dropped after the pipeline (its sessions) is: `specrt_shutdown` sees the pipeline
    /// gone only once nothing of it holds ONNX Runtime's environment any more.
    _counted: Counted,
}

/// What a YAML file loads into: its strategy decides.
enum Loaded {
    Decoder(Box<Pipeline>),
    Nat(Box<NatPipeline>),
}

impl Loaded {
    fn from_config(loaded: LoadedConfig) -> crate::Result<Self> {
        Ok(match loaded.config.strategy {
            StrategyConfig::Nat { .. } => Loaded::Nat(Box::new(NatPipeline::from_config(loaded)?)),
            _ => Loaded::Decoder(Box::new(Pipeline::from_config(loaded)?)),
        })
    }
}

/// One pipeline in the library's count (see `lifecycle`), from the start of its load until it is dropped.
struct Counted(());

impl Counted {
    fn new() -> FfiResult<Self> {
        if !lifecycle::pipeline_opened() {
            return Err(FfiError::new(specrt_status::SPECRT_SHUT_DOWN, "the library was shut down (specrt_shutdown)"));
        }
        Ok(Counted(()))
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        lifecycle::pipeline_closed();
    }
}

/// Serializes "check the handle and take a reference" (generate, cancel) against "check the handle and
/// release it" (free). Without it a call could read the handle after a concurrent free released it. Held only
/// for those few instructions, never during a generation or while free waits.
static HANDLES: Mutex<()> = Mutex::new(());

fn handles() -> MutexGuard<'static, ()> {
    // Nothing runs under this lock that can panic halfway through a change; a poisoned lock is still usable.
    HANDLES.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

thread_local! {
    /// The pipelines whose generation runs on this thread (their `Shared` addresses). A call on one of them can
    /// only come from its own stream callback: waiting for the pipeline's mutex there would wait forever.
    static RUNNING: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

fn key(shared: &Arc<Shared>) -> usize {
    Arc::as_ptr(shared) as usize
}

fn running_here(shared: &Arc<Shared>) -> bool {
    RUNNING.try_with(|r| r.borrow().contains(&key(shared))).unwrap_or(false)
}

fn reentrant(function: &str) -> FfiError {
    FfiError::new(
        specrt_status::SPECRT_REENTRANT,
        format!(
            "called from inside a stream callback of a generation on the same pipeline; {function} would wait for \
             (or free) the generation that is calling it. Return from the callback first (it may call \
             specrt_pipeline_cancel, or return nonzero to stop)"
        ),
    )
}

/// Marks a generation as running on this thread while alive.
struct RunningMark(usize);

impl RunningMark {
    fn new(shared: &Arc<Shared>) -> Self {
        let k = key(shared);
        let _ = RUNNING.try_with(|r| r.borrow_mut().push(k));
        RunningMark(k)
    }
}

impl Drop for RunningMark {
    fn drop(&mut self) {
        let _ = RUNNING.try_with(|r| {
            let mut r = r.borrow_mut();
            if let Some(i) = r.iter().rposition(|&k| k == self.0) {
                r.remove(i);
            }
        });
    }
}

/// Counts a call in `Shared::active` while alive (also when the call fails or panics), waking a waiting free.
struct ActiveCall(Arc<Shared>);

impl ActiveCall {
    fn enter(shared: Arc<Shared>) -> Self {
        *shared.active.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        ActiveCall(shared)
    }
}

impl Drop for ActiveCall {
    fn drop(&mut self) {
        let mut active = self.0.active.lock().unwrap_or_else(|p| p.into_inner());
        *active = active.saturating_sub(1);
        if *active == 0 {
            self.0.idle.notify_all();
        }
    }
}

impl HandleKind for PipelineState {
    const KIND: handle::Kind = handle::PIPELINE;
}

const _: () = {
    const fn send<T: Send>() {}
    send::<Pipeline>();
    send::<NatPipeline>();
};

/// Called with each piece of generated text as it becomes final: `piece` is UTF-8, `len` bytes long and also
/// NUL-terminated; it is valid only during the call. Return 0 to go on, nonzero to stop the generation (it then
/// ends with finish_reason "cancelled" and `specrt_generate` still returns `SPECRT_OK` with a result). NAT
/// pipelines do not call it: they write every output in one pass.
#[allow(non_camel_case_types)]
pub type specrt_stream_callback = Option<unsafe extern "C" fn(piece: *const c_char, len: usize, user_data: *mut c_void) -> c_int>;

fn finish_load(counted: Counted, config: crate::Result<LoadedConfig>, out: &mut *mut specrt_pipeline) -> FfiResult {
    let pipeline = Loaded::from_config(config?)?;
    let shared = Shared {
        pipeline: Mutex::new(pipeline),
        cancel: AtomicBool::new(false),
        closing: AtomicBool::new(false),
        active: Mutex::new(0),
        idle: Condvar::new(),
        _counted: counted,
    };
    *out = handle::into_raw(PipelineState { shared: Arc::new(shared) });
    Ok(())
}

/// Loads the pipeline a YAML file describes (UTF-8 path; relative paths inside resolve against the file's
/// folder) into `*out`; a `strategy: {kind: nat}` file loads a NAT (translation) pipeline. Errors: `SPECRT_IO`
/// (unreadable file), `SPECRT_CONFIG` (with file:line:column), `SPECRT_MODEL`, `SPECRT_BACKEND`;
/// `SPECRT_SHUT_DOWN` after `specrt_shutdown`.
#[no_mangle]
pub unsafe extern "C" fn specrt_pipeline_load_file(path_utf8: *const c_char, out: *mut *mut specrt_pipeline) -> specrt_status {
    guard("specrt_pipeline_load_file", || {
        let out = out_arg(out, "out")?;
        *out = std::ptr::null_mut();
        let path = str_arg(path_utf8, "path_utf8")?;
        let counted = Counted::new()?;
        finish_load(counted, config::load_file(Path::new(path)), out)
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
        let counted = Counted::new()?;
        finish_load(counted, config::parse_str(yaml, "<string>", Path::new(base)), out)
    })
}

/// Frees `*pipeline` and sets it to NULL; a no-op when `*pipeline` is already NULL.
///
/// While generations run on the pipeline (on other threads), free cancels the running one, makes calls still
/// waiting for the pipeline return `SPECRT_CANCELLED`, waits for all of them to return, and then frees: it
/// never frees under a running call. Called from inside a stream callback of a generation on this pipeline,
/// it frees nothing and returns `SPECRT_REENTRANT` (`*pipeline` is left as it was). Using the pointer after
/// free returns (or passing it to a call that starts after free began) is still an error of the caller.
#[no_mangle]
pub unsafe extern "C" fn specrt_pipeline_free(pipeline: *mut *mut specrt_pipeline) -> specrt_status {
    guard("specrt_pipeline_free", || {
        if pipeline.is_null() {
            return Err(FfiError::null("pipeline"));
        }
        if (*pipeline).is_null() {
            return Ok(());
        }
        let shared = {
            let _handles = handles();
            let shared = handle::get::<PipelineState, _>(*pipeline, "*pipeline")?.shared.clone();
            if running_here(&shared) {
                return Err(reentrant("specrt_pipeline_free"));
            }
            // `closing` before `cancel`: a call that takes the mutex after this sees `closing`; one that took it
            // before has already reset `cancel` (see specrt_generate), so the cancel below reaches it.
            shared.closing.store(true, Ordering::SeqCst);
            shared.cancel.store(true, Ordering::SeqCst);
            handle::free::<PipelineState, _>(pipeline, "pipeline")?;
            shared
        };
        // The handle is gone; `shared` keeps the pipeline alive until every call that got in has returned.
        let active = shared.active.lock().unwrap_or_else(|p| p.into_inner());
        drop(shared.idle.wait_while(active, |n| *n > 0).unwrap_or_else(|p| p.into_inner()));
        Ok(())
    })
}

/// Asks the generation running on `pipeline` to stop (checked between tokens); it then returns `SPECRT_OK`
/// with the text so far and finish_reason "cancelled". Callable from any thread. The flag is reset when a
/// generation starts, so a cancel issued while no generation runs has no effect on later ones.
#[no_mangle]
pub unsafe extern "C" fn specrt_pipeline_cancel(pipeline: *const specrt_pipeline) -> specrt_status {
    guard("specrt_pipeline_cancel", || {
        let _handles = handles();
        handle::get::<PipelineState, _>(pipeline, "pipeline")?.shared.cancel.store(true, Ordering::SeqCst);
        Ok(())
    })
}

/// Generates for `request` on `pipeline`, blocking until done, and returns the result in `*out_result` (free
/// it with `specrt_result_free`). `callback` (may be NULL) receives the text as it is generated, with
/// `user_data`. Calls from several threads on one pipeline run one after another.
///
/// On a NAT pipeline it translates the request's sources (`specrt_request_set_sources`), or its prompt with one
/// sentence per non-empty line as `specrt generate` reads it, in passes of the pipeline's `batch_size`: the
/// result has one output per sentence (`specrt_result_output_count`, `specrt_result_output_text`), and a
/// sentence that fails (NULL, not UTF-8, empty, longer than the model's positions) fails alone. The call itself
/// fails only for the request as a whole: no sentences, a prompt of more than `SPECRT_MAX_SOURCES` lines, a
/// temperature above 0 (NAT decoding is deterministic). The callback is not called and a cancel has no effect
/// (the call is bounded by `SPECRT_MAX_SOURCES` sentences). Sampling and length options do not apply.
///
/// Errors: `SPECRT_INVALID_ARGUMENT` (no prompt, bad sampling values, sources on a decoder pipeline),
/// `SPECRT_PROMPT_TOO_LONG`, `SPECRT_BACKEND`, `SPECRT_MODEL`; `SPECRT_REENTRANT` when called from inside a
/// stream callback of a generation on the same pipeline (it would wait for itself forever; nothing is generated);
/// `SPECRT_CANCELLED` when `specrt_pipeline_free` was called while this call waited for the pipeline.
#[no_mangle]
pub unsafe extern "C" fn specrt_generate(
    pipeline: *const specrt_pipeline,
    request: *const specrt_request,
    callback: specrt_stream_callback,
    user_data: *mut c_void,
    out_result: *mut *mut specrt_result,
) -> specrt_status {
    guard("specrt_generate", || {
        // Counted as active under the handle lock, so a free that starts after this waits for this call.
        let call = {
            let _handles = handles();
            ActiveCall::enter(handle::get::<PipelineState, _>(pipeline, "pipeline")?.shared.clone())
        };
        if running_here(&call.0) {
            return Err(reentrant("specrt_generate"));
        }
        let request = handle::get::<RequestState, _>(request, "request")?.clone();
        let out = out_arg(out_result, "out_result")?;
        *out = std::ptr::null_mut();
        let state = &*call.0;
        // A panic in an earlier generation poisons the mutex; every generation resets the model's state first,
        // so the pipeline stays usable.
        let mut pipeline = state.pipeline.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        // Reset before reading `closing` (free sets them in the other order), so a free racing this call either
        // stops it here or cancels the generation below.
        state.cancel.store(false, Ordering::SeqCst);
        if state.closing.load(Ordering::SeqCst) {
            return Err(FfiError::new(specrt_status::SPECRT_CANCELLED, "the pipeline was freed while this call waited for it"));
        }
        let _running = RunningMark::new(&call.0);
        let pipeline = match &mut *pipeline {
            Loaded::Nat(nat) => {
                *out = handle::into_raw(nat::translate(nat, &request)?);
                return Ok(());
            }
            Loaded::Decoder(decoder) => decoder,
        };
        if request.sources.is_some() {
            return Err(FfiError::invalid(
                "this is a decoder pipeline: source sentences (specrt_request_set_sources) are for NAT pipelines; set a prompt",
            ));
        }
        let mut buf: Vec<u8> = Vec::new();
        let mut on_text = |piece: &str| -> bool {
            let Some(cb) = callback else { return true };
            buf.clear();
            buf.extend_from_slice(piece.as_bytes());
            buf.push(0);
            // SAFETY: the host's callback, called with a NUL-terminated buffer of `len + 1` bytes.
            unsafe { cb(buf.as_ptr().cast(), piece.len(), user_data) == 0 }
        };
        let output = pipeline.generate_with_cancel(&request.request, &mut on_text, Some(&state.cancel))?;
        *out = handle::into_raw(ResultState::new(output));
        Ok(())
    })
}

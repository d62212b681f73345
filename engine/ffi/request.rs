//! `specrt_request`: what to generate (prompt, sampling, limits; or the source sentences a NAT pipeline
//! translates). Unset values take the pipeline's defaults.

use std::ffi::{c_char, c_int};

use super::error::{guard, str_arg, FfiError, FfiResult};
use super::handle::{self, HandleKind};
use super::sources::{self, Source};
use super::status::specrt_status;
use crate::generate::{GenerationRequest, Prompt};

/// A generation request (opaque). Create with `specrt_request_new`, free with `specrt_request_free`. A request
/// may be reused for several generations; it must not be modified while a `specrt_generate` call uses it.
#[allow(non_camel_case_types)]
pub struct specrt_request {
    _private: [u8; 0],
}

/// The state behind a `specrt_request`.
#[derive(Clone)]
pub(crate) struct RequestState {
    pub(crate) request: GenerationRequest,
    /// The sentences for a NAT pipeline (`specrt_request_set_sources`), each with its own error if it has one.
    pub(crate) sources: Option<Vec<Source>>,
}

impl HandleKind for RequestState {
    const KIND: handle::Kind = handle::REQUEST;
}

unsafe fn with_request(fname: &str, req: *mut specrt_request, f: impl FnOnce(&mut GenerationRequest) -> FfiResult) -> specrt_status {
    guard(fname, || f(&mut handle::get_mut::<RequestState, _>(req, "request")?.request))
}

fn flag(value: c_int, name: &str) -> FfiResult<bool> {
    match value {
        0 => Ok(false),
        1 => Ok(true),
        v => Err(FfiError::invalid(format!("{name} must be 0 or 1, got {v}"))),
    }
}

/// Creates an empty request (no prompt yet; every option at the pipeline's default) in `*out`.
#[no_mangle]
pub unsafe extern "C" fn specrt_request_new(out: *mut *mut specrt_request) -> specrt_status {
    guard("specrt_request_new", || {
        let out = super::error::out_arg(out, "out")?;
        *out = handle::into_raw(RequestState { request: GenerationRequest::default(), sources: None });
        Ok(())
    })
}

/// Frees `*request` and sets it to NULL; a no-op when `*request` is already NULL.
#[no_mangle]
pub unsafe extern "C" fn specrt_request_free(request: *mut *mut specrt_request) -> specrt_status {
    guard("specrt_request_free", || handle::free::<RequestState, _>(request, "request"))
}

/// Sets the prompt (UTF-8 text, copied). Whether the chat template is applied follows `specrt_request_set_chat`
/// (default: the pipeline's `generation.chat`).
#[no_mangle]
pub unsafe extern "C" fn specrt_request_set_prompt(request: *mut specrt_request, prompt_utf8: *const c_char) -> specrt_status {
    with_request("specrt_request_set_prompt", request, |r| {
        r.prompt = Some(Prompt::Text(str_arg(prompt_utf8, "prompt_utf8")?.to_owned()));
        Ok(())
    })
}

/// Applies the model's chat template to the prompt (1) or not (0). Other values: `SPECRT_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn specrt_request_set_chat(request: *mut specrt_request, chat: c_int) -> specrt_status {
    with_request("specrt_request_set_chat", request, |r| {
        r.chat = Some(flag(chat, "chat")?);
        Ok(())
    })
}

/// Maximum new tokens (at least 1).
#[no_mangle]
pub unsafe extern "C" fn specrt_request_set_max_tokens(request: *mut specrt_request, max_tokens: i64) -> specrt_status {
    with_request("specrt_request_set_max_tokens", request, |r| {
        if max_tokens < 1 || max_tokens > u32::MAX as i64 {
            return Err(FfiError::invalid(format!("max_tokens must be between 1 and {}, got {max_tokens}", u32::MAX)));
        }
        r.max_tokens = Some(max_tokens as usize);
        Ok(())
    })
}

/// Sampling temperature: 0 = greedy, otherwise a finite value > 0.
#[no_mangle]
pub unsafe extern "C" fn specrt_request_set_temperature(request: *mut specrt_request, temperature: f64) -> specrt_status {
    with_request("specrt_request_set_temperature", request, |r| {
        if !temperature.is_finite() || temperature < 0.0 {
            return Err(FfiError::invalid(format!("temperature must be a finite number >= 0, got {temperature}")));
        }
        r.temperature = Some(temperature as f32);
        Ok(())
    })
}

/// Nucleus sampling: keep the smallest set of tokens whose probability reaches `top_p`, in (0, 1] (1 = off).
#[no_mangle]
pub unsafe extern "C" fn specrt_request_set_top_p(request: *mut specrt_request, top_p: f64) -> specrt_status {
    with_request("specrt_request_set_top_p", request, |r| {
        if !(top_p > 0.0 && top_p <= 1.0) {
            return Err(FfiError::invalid(format!("top_p must be in (0, 1], got {top_p}")));
        }
        r.top_p = Some(top_p as f32);
        Ok(())
    })
}

/// Keep the `top_k` most likely tokens (0 = off); negative values are `SPECRT_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn specrt_request_set_top_k(request: *mut specrt_request, top_k: i64) -> specrt_status {
    with_request("specrt_request_set_top_k", request, |r| {
        if top_k < 0 {
            return Err(FfiError::invalid(format!("top_k must be >= 0 (0 = off), got {top_k}")));
        }
        r.top_k = Some(top_k as usize);
        Ok(())
    })
}

/// Seed of the sampler's random generator (same seed, same request, same pipeline: same output).
#[no_mangle]
pub unsafe extern "C" fn specrt_request_set_seed(request: *mut specrt_request, seed: u64) -> specrt_status {
    with_request("specrt_request_set_seed", request, |r| {
        r.seed = Some(seed);
        Ok(())
    })
}

/// Keep generating past stop tokens (1) until max_tokens, e.g. for benchmarks; 0 restores the default.
#[no_mangle]
pub unsafe extern "C" fn specrt_request_set_ignore_eos(request: *mut specrt_request, ignore_eos: c_int) -> specrt_status {
    with_request("specrt_request_set_ignore_eos", request, |r| {
        r.ignore_eos = flag(ignore_eos, "ignore_eos")?;
        Ok(())
    })
}

/// Adds a stop string (UTF-8, non-empty, copied). The first call replaces the pipeline's stop strings; the
/// output ends before the first occurrence of any of them.
#[no_mangle]
pub unsafe extern "C" fn specrt_request_add_stop(request: *mut specrt_request, stop_utf8: *const c_char) -> specrt_status {
    with_request("specrt_request_add_stop", request, |r| {
        let stop = str_arg(stop_utf8, "stop_utf8")?;
        if stop.is_empty() {
            return Err(FfiError::invalid("stop strings must not be empty"));
        }
        r.stop.get_or_insert_with(Vec::new).push(stop.to_owned());
        Ok(())
    })
}

/// Sets the source sentences a NAT (translation) pipeline translates, one output each (copied; replaces earlier
/// sources). `sources_utf8` points to `count` NUL-terminated UTF-8 strings, 1 <= `count` <=
/// `SPECRT_MAX_SOURCES`; otherwise (or a NULL array) this call fails and the request is unchanged. A NULL entry
/// or an entry that is not UTF-8 is not this call's error: that sentence alone fails in the result
/// (`specrt_result_output_text` returns its `SPECRT_NULL_ARGUMENT` / `SPECRT_INVALID_UTF8`), and the other
/// sentences are translated. Decoder pipelines refuse a request with sources (`SPECRT_INVALID_ARGUMENT`).
#[no_mangle]
pub unsafe extern "C" fn specrt_request_set_sources(request: *mut specrt_request, sources_utf8: *const *const c_char, count: usize) -> specrt_status {
    guard("specrt_request_set_sources", || {
        let state = handle::get_mut::<RequestState, _>(request, "request")?;
        state.sources = Some(sources::read(sources_utf8, count)?);
        Ok(())
    })
}

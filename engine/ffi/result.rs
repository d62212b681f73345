//! `specrt_result`: the text and statistics of one generation (or of one NAT batch: one output per source
//! sentence, each with its own status), read through string keys so new statistics never change the ABI.

use std::collections::BTreeMap;
use std::ffi::{c_char, CString};

use serde_json::Value;

use super::error::{guard, out_arg, str_arg, FfiError, FfiResult};
use super::handle::{self, HandleKind};
use super::status::specrt_status;
use crate::generate::Output;
use crate::nat::Translation;

/// The result of a generation (opaque, immutable: any thread may read it). Free with `specrt_result_free`;
/// every string it hands out stays valid until then.
#[allow(non_camel_case_types)]
pub struct specrt_result {
    _private: [u8; 0],
}

/// The state behind a `specrt_result`.
pub(crate) struct ResultState {
    /// The text with a trailing NUL (interior NULs kept; `text_len` excludes the trailing one).
    text: Vec<u8>,
    /// One entry per output (one for a decoder generation, one per source sentence for NAT): its text with a
    /// trailing NUL, or the error of that sentence.
    outputs: Vec<Result<Vec<u8>, FfiError>>,
    numbers: BTreeMap<String, Value>,
    strings: BTreeMap<String, CString>,
}

fn nul_terminated(text: &str) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(text.len() + 1);
    bytes.extend_from_slice(text.as_bytes());
    bytes.push(0);
    bytes
}

impl HandleKind for ResultState {
    const KIND: handle::Kind = handle::RESULT;
}

fn cstring(s: &str) -> CString {
    CString::new(s.replace('\0', "")).unwrap_or_default()
}

impl ResultState {
    /// Flattens an output: numbers of `Stats::to_json()` (plus `committed_tokens`) under their names; strings
    /// (`text`, `finish_reason`, `strategy`), arrays as JSON text, and the whole as `stats_json`.
    pub fn new(output: Output) -> Self {
        let mut json = output.stats.to_json();
        let obj = json.as_object_mut().expect("stats are a JSON object");
        obj.insert("committed_tokens".into(), output.stats.committed_tokens.into());
        obj.insert("finish_reason".into(), output.finish_reason.as_str().into());
        Self::flatten(json, output.text.clone(), vec![Ok(output.text)])
    }

    /// A NAT batch: one output per source sentence (a translation, or that sentence's error), `seconds` the
    /// call's wall time. Numbers: `sentences`, `failed_sentences`, `prompt_tokens` / `new_tokens` /
    /// `committed_tokens` (summed over the translated sentences), `decode_seconds`, `decode_tokens_per_second`,
    /// `backend_seconds`; strings: `strategy` ("nat"), `decode` ("greedy" or "beam"), `finish_reason` ("stop"),
    /// `text` (the outputs joined by newlines, a failed sentence as an empty line, like the CLI's output) and
    /// `outputs_json` (per sentence: text, tokens, source_tokens, positions, log_prob; or status and error).
    pub(crate) fn from_translations(items: Vec<Result<Translation, FfiError>>, seconds: f64, decode: &str) -> Self {
        let ok = || items.iter().filter_map(|t| t.as_ref().ok());
        let new_tokens: usize = ok().map(|t| t.tokens.len()).sum();
        let per_sentence: Vec<Value> = items
            .iter()
            .map(|t| match t {
                Ok(t) => serde_json::json!({"text": t.text, "tokens": t.tokens, "source_tokens": t.source_tokens,
                    "positions": t.positions, "log_prob": t.log_prob}),
                Err(e) => serde_json::json!({"status": e.status.name(), "error": e.message}),
            })
            .collect();
        let json = serde_json::json!({
            "strategy": "nat",
            "decode": decode,
            "finish_reason": "stop",
            "sentences": items.len(),
            "failed_sentences": items.iter().filter(|t| t.is_err()).count(),
            "prompt_tokens": ok().map(|t| t.source_tokens).sum::<usize>(),
            "new_tokens": new_tokens,
            "committed_tokens": new_tokens,
            "decode_seconds": seconds,
            "decode_tokens_per_second": if seconds > 0.0 { new_tokens as f64 / seconds } else { 0.0 },
            "backend_seconds": ok().map(|t| t.forward_seconds).sum::<f64>(),
            "outputs_json": Value::Array(per_sentence),
        });
        let text = items.iter().map(|t| t.as_ref().map_or("", |t| t.text.as_str())).collect::<Vec<_>>().join("\n");
        let outputs = items.into_iter().map(|t| t.map(|t| t.text)).collect();
        Self::flatten(json, text, outputs)
    }

    fn flatten(json: Value, text: String, outputs: Vec<Result<String, FfiError>>) -> Self {
        let mut numbers = BTreeMap::new();
        let mut strings = BTreeMap::new();
        for (key, value) in json.as_object().into_iter().flatten() {
            match value {
                Value::Number(_) => {
                    numbers.insert(key.clone(), value.clone());
                }
                Value::String(s) => {
                    strings.insert(key.clone(), cstring(s));
                }
                other => {
                    strings.insert(key.clone(), cstring(&other.to_string()));
                }
            }
        }
        strings.insert("text".into(), cstring(&text));
        strings.insert("stats_json".into(), cstring(&json.to_string()));
        let outputs = outputs.into_iter().map(|o| o.map(|t| nul_terminated(&t))).collect();
        ResultState { text: nul_terminated(&text), outputs, numbers, strings }
    }

    fn keys(&self) -> String {
        let numbers: Vec<&str> = self.numbers.keys().map(String::as_str).collect();
        let strings: Vec<&str> = self.strings.keys().map(String::as_str).collect();
        format!("numbers: {}; strings: {}", numbers.join(", "), strings.join(", "))
    }

    fn number(&self, key: &str, getter: &str) -> FfiResult<&Value> {
        if let Some(v) = self.numbers.get(key) {
            return Ok(v);
        }
        if self.strings.contains_key(key) {
            return Err(FfiError::invalid(format!("key `{key}` is a string: read it with specrt_result_get_string, not {getter}")));
        }
        Err(self.unknown(key))
    }

    fn unknown(&self, key: &str) -> FfiError {
        FfiError::invalid(format!("unknown result key `{key}` (known keys: {})", self.keys()))
    }
}

unsafe fn result_arg<'a>(result: *const specrt_result) -> FfiResult<&'a ResultState> {
    handle::get::<ResultState, _>(result, "result")
}

/// Frees `*result` and sets it to NULL; a no-op when `*result` is already NULL.
#[no_mangle]
pub unsafe extern "C" fn specrt_result_free(result: *mut *mut specrt_result) -> specrt_status {
    guard("specrt_result_free", || handle::free::<ResultState, _>(result, "result"))
}

/// The generated text (UTF-8, NUL-terminated) in `*out`, valid until the result is freed.
#[no_mangle]
pub unsafe extern "C" fn specrt_result_text(result: *const specrt_result, out: *mut *const c_char) -> specrt_status {
    guard("specrt_result_text", || {
        let r = result_arg(result)?;
        *out_arg(out, "out")? = r.text.as_ptr().cast();
        Ok(())
    })
}

/// The length of the generated text in bytes (without the trailing NUL) in `*out`.
#[no_mangle]
pub unsafe extern "C" fn specrt_result_text_len(result: *const specrt_result, out: *mut usize) -> specrt_status {
    guard("specrt_result_text_len", || {
        let r = result_arg(result)?;
        *out_arg(out, "out")? = r.text.len() - 1;
        Ok(())
    })
}

/// A numeric statistic as a double, e.g. "tau", "acceptance_rate", "decode_tokens_per_second" (integer
/// statistics convert too). The keys are the numbers of the CLI's `--json` stats: prompt_tokens, new_tokens,
/// committed_tokens, target_calls, drafted, accepted (integers); prefill_seconds, decode_seconds,
/// prefill_tokens_per_second, decode_tokens_per_second, tau, acceptance_rate, draft_seconds, verify_seconds,
/// other_seconds, backend_seconds, overhead_share. New statistics appear as new keys. An unknown key, or a
/// string key, is `SPECRT_INVALID_ARGUMENT` (the message lists the keys).
#[no_mangle]
pub unsafe extern "C" fn specrt_result_get_f64(result: *const specrt_result, key_utf8: *const c_char, out: *mut f64) -> specrt_status {
    guard("specrt_result_get_f64", || {
        let r = result_arg(result)?;
        let key = str_arg(key_utf8, "key_utf8")?;
        let out = out_arg(out, "out")?;
        *out = r.number(key, "specrt_result_get_f64")?.as_f64().unwrap_or(f64::NAN);
        Ok(())
    })
}

/// An integer statistic, e.g. "prompt_tokens", "new_tokens", "committed_tokens", "target_calls", "drafted",
/// "accepted". A fractional statistic (e.g. "tau") is `SPECRT_INVALID_ARGUMENT`: read it with
/// `specrt_result_get_f64`.
#[no_mangle]
pub unsafe extern "C" fn specrt_result_get_i64(result: *const specrt_result, key_utf8: *const c_char, out: *mut i64) -> specrt_status {
    guard("specrt_result_get_i64", || {
        let r = result_arg(result)?;
        let key = str_arg(key_utf8, "key_utf8")?;
        let out = out_arg(out, "out")?;
        let value = r.number(key, "specrt_result_get_i64")?;
        *out = value
            .as_i64()
            .or_else(|| value.as_u64().map(|u| u.min(i64::MAX as u64) as i64))
            .ok_or_else(|| FfiError::invalid(format!("key `{key}` is not an integer ({value}): read it with specrt_result_get_f64")))?;
        Ok(())
    })
}

/// A string: "text", "finish_reason" ("stop", "length" or "cancelled"), "strategy", "stats_json" (every
/// statistic as one JSON object), and list statistics as JSON arrays ("acceptance_per_position"). Valid until
/// the result is freed. A numeric key is `SPECRT_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn specrt_result_get_string(result: *const specrt_result, key_utf8: *const c_char, out: *mut *const c_char) -> specrt_status {
    guard("specrt_result_get_string", || {
        let r = result_arg(result)?;
        let key = str_arg(key_utf8, "key_utf8")?;
        let out = out_arg(out, "out")?;
        if let Some(s) = r.strings.get(key) {
            *out = s.as_ptr();
            return Ok(());
        }
        if r.numbers.contains_key(key) {
            return Err(FfiError::invalid(format!("key `{key}` is a number: read it with specrt_result_get_f64 or specrt_result_get_i64")));
        }
        Err(r.unknown(key))
    })
}

/// The number of outputs in `*out`: 1 for a decoder generation, one per source sentence for a NAT pipeline
/// (in the order of `specrt_request_set_sources`).
#[no_mangle]
pub unsafe extern "C" fn specrt_result_output_count(result: *const specrt_result, out: *mut usize) -> specrt_status {
    guard("specrt_result_output_count", || {
        let r = result_arg(result)?;
        *out_arg(out, "out")? = r.outputs.len();
        Ok(())
    })
}

/// Output `index` (0-based): its text (UTF-8, NUL-terminated, valid until the result is freed) in `*out_text`
/// and its length in bytes in `*out_len` (`out_len` may be NULL). Returns `SPECRT_OK`, or the status of that
/// output's own failure with `specrt_last_error()` saying why (it names the sentence; `*out_text` is then NULL): a
/// NAT sentence that was NULL (`SPECRT_NULL_ARGUMENT`), not UTF-8 (`SPECRT_INVALID_UTF8`), empty or longer than
/// the model's positions (`SPECRT_INVALID_ARGUMENT`), or whose pass failed (`SPECRT_BACKEND`). An `index` past
/// the last output is `SPECRT_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn specrt_result_output_text(
    result: *const specrt_result,
    index: usize,
    out_text: *mut *const c_char,
    out_len: *mut usize,
) -> specrt_status {
    guard("specrt_result_output_text", || {
        let r = result_arg(result)?;
        let out_text = out_arg(out_text, "out_text")?;
        *out_text = std::ptr::null();
        let output = r
            .outputs
            .get(index)
            .ok_or_else(|| FfiError::invalid(format!("output index {index} is out of range (the result has {} outputs)", r.outputs.len())))?;
        let text = output.as_ref().map_err(Clone::clone)?;
        *out_text = text.as_ptr().cast();
        if let Some(len) = out_len.as_mut() {
            *len = text.len() - 1;
        }
        Ok(())
    })
}

//! `specrt_result`: the text and statistics of one generation, read through string keys so new statistics
//! never change the ABI.

use std::collections::BTreeMap;
use std::ffi::{c_char, CString};

use serde_json::Value;

use super::error::{guard, out_arg, str_arg, FfiError, FfiResult};
use super::handle::{self, HandleKind};
use super::status::specrt_status;
use crate::generate::Output;

/// The result of a generation (opaque, immutable: any thread may read it). Free with `specrt_result_free`;
/// every string it hands out stays valid until then.
#[allow(non_camel_case_types)]
pub struct specrt_result {
    _private: [u8; 0],
}

/// The state behind a `specrt_result`.
pub struct ResultState {
    /// The text with a trailing NUL (interior NULs kept; `text_len` excludes the trailing one).
    text: Vec<u8>,
    numbers: BTreeMap<String, Value>,
    strings: BTreeMap<String, CString>,
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
        let mut numbers = BTreeMap::new();
        let mut strings = BTreeMap::new();
        for (key, value) in obj.iter() {
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
        strings.insert("text".into(), cstring(&output.text));
        strings.insert("stats_json".into(), cstring(&json.to_string()));
        let mut text = output.text.into_bytes();
        text.push(0);
        ResultState { text, numbers, strings }
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

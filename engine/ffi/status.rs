//! Status codes of the C ABI, and the mapping from the engine's [`crate::Error`].

use std::ffi::{c_char, c_int};

use crate::error::Error;

/// What every `specrt_*` function returns. `SPECRT_OK` is 0; on any other value `specrt_last_error()` says
/// what went wrong. New codes may be added at the end (hosts should treat unknown codes as errors).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum specrt_status {
    /// Success.
    SPECRT_OK = 0,
    /// A required pointer argument was NULL.
    SPECRT_NULL_ARGUMENT = 1,
    /// A string argument was not valid UTF-8.
    SPECRT_INVALID_UTF8 = 2,
    /// An argument had a wrong value (a sampling value out of range, an unknown result key, ...).
    SPECRT_INVALID_ARGUMENT = 3,
    /// A handle of another type (or a freed one) was passed, e.g. a request where a pipeline is expected.
    SPECRT_WRONG_HANDLE = 4,
    /// The YAML pipeline config does not parse or validate (the message names file, line and key).
    SPECRT_CONFIG = 5,
    /// A model folder is missing files, its manifest, tokenizer or chat template is broken, or its graph breaks
    /// the contract.
    SPECRT_MODEL = 6,
    /// ONNX Runtime could not be loaded, an execution provider failed, or a graph run failed.
    SPECRT_BACKEND = 7,
    /// A file could not be read.
    SPECRT_IO = 8,
    /// The prompt does not fit into the context.
    SPECRT_PROMPT_TOO_LONG = 9,
    /// The engine reported a cancelled generation without a result. (A generation stopped by
    /// `specrt_pipeline_cancel` or by the callback returns `SPECRT_OK` with finish_reason "cancelled".)
    SPECRT_CANCELLED = 10,
    /// A bug: the library panicked. The message says where; the handles involved should be freed.
    SPECRT_PANIC = 11,
    /// The call was made from inside a stream callback of a generation on the same pipeline
    /// (`specrt_generate` or `specrt_pipeline_free`): it would wait for the generation that is calling it, or
    /// free the pipeline under it. Nothing was done; return from the callback first (a callback may call
    /// `specrt_pipeline_cancel`, or use another pipeline).
    SPECRT_REENTRANT = 12,
    /// The call came after `specrt_shutdown`: nothing was done (only the version getters, `specrt_status_name`,
    /// `specrt_last_error` and `specrt_shutdown` work then).
    SPECRT_SHUT_DOWN = 13,
    /// `specrt_shutdown` was called while pipelines are still loaded: nothing was done; free them first.
    SPECRT_BUSY = 14,
}

impl specrt_status {
    /// The code's name, e.g. `"SPECRT_OK"`.
    pub fn name(self) -> &'static str {
        match self {
            specrt_status::SPECRT_OK => "SPECRT_OK",
            specrt_status::SPECRT_NULL_ARGUMENT => "SPECRT_NULL_ARGUMENT",
            specrt_status::SPECRT_INVALID_UTF8 => "SPECRT_INVALID_UTF8",
            specrt_status::SPECRT_INVALID_ARGUMENT => "SPECRT_INVALID_ARGUMENT",
            specrt_status::SPECRT_WRONG_HANDLE => "SPECRT_WRONG_HANDLE",
            specrt_status::SPECRT_CONFIG => "SPECRT_CONFIG",
            specrt_status::SPECRT_MODEL => "SPECRT_MODEL",
            specrt_status::SPECRT_BACKEND => "SPECRT_BACKEND",
            specrt_status::SPECRT_IO => "SPECRT_IO",
            specrt_status::SPECRT_PROMPT_TOO_LONG => "SPECRT_PROMPT_TOO_LONG",
            specrt_status::SPECRT_CANCELLED => "SPECRT_CANCELLED",
            specrt_status::SPECRT_PANIC => "SPECRT_PANIC",
            specrt_status::SPECRT_REENTRANT => "SPECRT_REENTRANT",
            specrt_status::SPECRT_SHUT_DOWN => "SPECRT_SHUT_DOWN",
            specrt_status::SPECRT_BUSY => "SPECRT_BUSY",
        }
    }

    /// The status an engine error maps to.
    pub fn of(error: &Error) -> Self {
        match error {
            Error::Config { .. } => specrt_status::SPECRT_CONFIG,
            Error::Model { .. } | Error::Contract { .. } | Error::Tokenizer(_) | Error::ChatTemplate(_) => specrt_status::SPECRT_MODEL,
            Error::RuntimeLibrary(_) | Error::Backend(_) | Error::TensorRt(_) | Error::Provider { .. } | Error::Allocation { .. } => {
                specrt_status::SPECRT_BACKEND
            }
            Error::PromptTooLong { .. } | Error::PromptTooLarge { .. } => specrt_status::SPECRT_PROMPT_TOO_LONG,
            Error::InvalidRequest(_) | Error::InvalidValue { .. } => specrt_status::SPECRT_INVALID_ARGUMENT,
            Error::Cancelled => specrt_status::SPECRT_CANCELLED,
            Error::Internal(_) => specrt_status::SPECRT_PANIC,
            Error::Io { .. } => specrt_status::SPECRT_IO,
        }
    }
}

const STATUS_NAMES: [&str; 15] = [
    "SPECRT_OK\0",
    "SPECRT_NULL_ARGUMENT\0",
    "SPECRT_INVALID_UTF8\0",
    "SPECRT_INVALID_ARGUMENT\0",
    "SPECRT_WRONG_HANDLE\0",
    "SPECRT_CONFIG\0",
    "SPECRT_MODEL\0",
    "SPECRT_BACKEND\0",
    "SPECRT_IO\0",
    "SPECRT_PROMPT_TOO_LONG\0",
    "SPECRT_CANCELLED\0",
    "SPECRT_PANIC\0",
    "SPECRT_REENTRANT\0",
    "SPECRT_SHUT_DOWN\0",
    "SPECRT_BUSY\0",
];

/// The name of a status code (e.g. `"SPECRT_MODEL"`) as a static string; `"SPECRT_UNKNOWN"` for a value that
/// is not a status. Takes an `int` so any value is safe to pass.
#[no_mangle]
pub extern "C" fn specrt_status_name(status: c_int) -> *const c_char {
    let name = usize::try_from(status).ok().and_then(|i| STATUS_NAMES.get(i)).copied().unwrap_or("SPECRT_UNKNOWN\0");
    name.as_ptr().cast()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_codes() {
        for (i, n) in STATUS_NAMES.iter().enumerate() {
            let s = unsafe { std::ffi::CStr::from_ptr(specrt_status_name(i as c_int)) };
            assert_eq!(s.to_str().unwrap(), n.trim_end_matches('\0'));
        }
        assert_eq!(specrt_status::SPECRT_PANIC.name(), STATUS_NAMES[specrt_status::SPECRT_PANIC as usize].trim_end_matches('\0'));
        for s in [specrt_status::SPECRT_REENTRANT, specrt_status::SPECRT_SHUT_DOWN, specrt_status::SPECRT_BUSY] {
            assert_eq!(s.name(), STATUS_NAMES[s as usize].trim_end_matches('\0'));
        }
    }
}

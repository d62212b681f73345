//! The source sentences of a request to a NAT (translation) pipeline, read from C: one entry per sentence, each
//! either its text or the error that sentence alone gets (NULL, invalid UTF-8), so one bad sentence never fails
//! the others.

use std::ffi::{c_char, CStr};

use super::error::{FfiError, FfiResult};
use super::status::specrt_status;

/// The most sentences one request may carry. A NAT pipeline translates them all in one call (in passes of its
/// `batch_size`); the bound keeps one call's memory bounded (a sentence may have at most 128 bytes per model
/// position, so 4096 sentences for the committed 256-position model are 128 MB of text at most).
pub const SPECRT_MAX_SOURCES: usize = 4096;

/// One source sentence: its text, or the error it gets in the result.
pub(crate) type Source = Result<String, FfiError>;

/// Reads `count` sentences from `sources`. The array itself must be valid (1..=`SPECRT_MAX_SOURCES` entries,
/// non-NULL): that is the call's error. A NULL entry or invalid UTF-8 is that sentence's error.
///
/// # Safety
/// `sources` is NULL or points to `count` pointers, each NULL or a NUL-terminated string.
pub unsafe fn read(sources: *const *const c_char, count: usize) -> FfiResult<Vec<Source>> {
    if count == 0 {
        return Err(FfiError::invalid("no sentences: count must be at least 1"));
    }
    if sources.is_null() {
        return Err(FfiError::null("sources_utf8"));
    }
    if count > SPECRT_MAX_SOURCES {
        return Err(FfiError::invalid(format!("{count} sentences, more than SPECRT_MAX_SOURCES ({SPECRT_MAX_SOURCES}) per request: split them")));
    }
    let ptrs = std::slice::from_raw_parts(sources, count);
    Ok(ptrs.iter().enumerate().map(|(i, &p)| sentence(i, p)).collect())
}

unsafe fn sentence(i: usize, ptr: *const c_char) -> Source {
    if ptr.is_null() {
        return Err(FfiError::new(specrt_status::SPECRT_NULL_ARGUMENT, format!("sentence {i} is NULL (sources_utf8[{i}])")));
    }
    let bytes = CStr::from_ptr(ptr).to_bytes();
    std::str::from_utf8(bytes).map(str::to_owned).map_err(|e| {
        FfiError::new(specrt_status::SPECRT_INVALID_UTF8, format!("sentence {i} is not valid UTF-8 (invalid byte at offset {})", e.valid_up_to()))
    })
}

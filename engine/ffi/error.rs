//! The thread-local last error, and the guard every entry point runs in (argument checks, `catch_unwind`).

use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::lifecycle;
use super::status::specrt_status;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// A failure inside an entry point: the status to return and the message for `specrt_last_error()`.
#[derive(Debug, Clone)]
pub struct FfiError {
    /// The status returned.
    pub status: specrt_status,
    /// The message stored.
    pub message: String,
}

impl FfiError {
    /// A failure with `status`.
    pub fn new(status: specrt_status, message: impl Into<String>) -> Self {
        FfiError { status, message: message.into() }
    }

    /// `SPECRT_NULL_ARGUMENT` for the argument `name`.
    pub fn null(name: &str) -> Self {
        Self::new(specrt_status::SPECRT_NULL_ARGUMENT, format!("argument `{name}` is NULL"))
    }

    /// `SPECRT_INVALID_ARGUMENT`.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(specrt_status::SPECRT_INVALID_ARGUMENT, message)
    }
}

impl From<crate::Error> for FfiError {
    fn from(e: crate::Error) -> Self {
        FfiError::new(specrt_status::of(&e), e.to_string())
    }
}

/// The result type of the entry points' bodies.
pub(crate) type FfiResult<T = ()> = Result<T, FfiError>;

fn set_last_error(message: &str) {
    // Interior NULs would truncate the C string: make them visible instead.
    let c = CString::new(message.replace('\0', "\\0")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

fn clear_last_error() {
    LAST_ERROR.with(|e| {
        let mut e = e.borrow_mut();
        if !e.as_bytes().is_empty() {
            *e = CString::default();
        }
    });
}

/// Runs the body of the entry point `function`: clears the last error, refuses every call after
/// `specrt_shutdown` (`SPECRT_SHUT_DOWN`, the body does not run), catches panics, and turns a failure into its
/// status with the message `function: message` stored for `specrt_last_error()`.
pub fn guard(function: &str, body: impl FnOnce() -> FfiResult) -> specrt_status {
    if lifecycle::is_shut_down() {
        return guard_running(function, || {
            Err(FfiError::new(specrt_status::SPECRT_SHUT_DOWN, "the library was shut down (specrt_shutdown); nothing was done"))
        });
    }
    guard_running(function, body)
}

/// [`guard`] without the shut-down check, for `specrt_shutdown` itself.
pub(crate) fn guard_running(function: &str, body: impl FnOnce() -> FfiResult) -> specrt_status {
    clear_last_error();
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => specrt_status::SPECRT_OK,
        Ok(Err(e)) => {
            set_last_error(&format!("{function}: {}", e.message));
            e.status
        }
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            set_last_error(&format!("{function}: internal error (panic): {what}; please report it"));
            specrt_status::SPECRT_PANIC
        }
    }
}

/// A string argument: NULL -> `SPECRT_NULL_ARGUMENT`, invalid UTF-8 -> `SPECRT_INVALID_UTF8`.
///
/// # Safety
/// `ptr` is NULL or points to a NUL-terminated string that lives as long as `'a`.
pub unsafe fn str_arg<'a>(ptr: *const c_char, name: &str) -> FfiResult<&'a str> {
    if ptr.is_null() {
        return Err(FfiError::null(name));
    }
    let bytes = CStr::from_ptr(ptr).to_bytes();
    std::str::from_utf8(bytes).map_err(|e| {
        FfiError::new(
            specrt_status::SPECRT_INVALID_UTF8,
            format!("argument `{name}` is not valid UTF-8 (invalid byte at offset {})", e.valid_up_to()),
        )
    })
}

/// Checks an out-parameter for NULL.
pub(crate) fn out_arg<'a, T>(ptr: *mut T, name: &str) -> FfiResult<&'a mut T> {
    // SAFETY: non-null pointers are the caller's writable out-parameters (the ABI's contract).
    unsafe { ptr.as_mut() }.ok_or_else(|| FfiError::null(name))
}

/// The calling thread's last error message: `""` after a successful call. The pointer stays valid until the
/// next `specrt_*` call on the same thread (copy the text to keep it). Never NULL.
#[no_mangle]
pub extern "C" fn specrt_last_error() -> *const c_char {
    LAST_ERROR.try_with(|e| e.borrow().as_ptr()).unwrap_or(c"".as_ptr())
}

//! The C ABI: `libspecrt.so` / `libspecrt.a` with the header `engine/include/specrt.h` (generated from this
//! module by cbindgen; see `tests/c_header_fresh.rs`).
//!
//! Conventions every entry point follows:
//! - it returns a [`status::specrt_status`] (the getters of constant data excepted) and never unwinds: a panic
//!   inside becomes `SPECRT_PANIC`;
//! - on failure, `specrt_last_error()` holds a readable message for the calling thread;
//! - every pointer is checked for null, every string for UTF-8, every handle for its type (a magic number);
//! - out-parameters are written only on success (`*out` is set to NULL first where it is a handle);
//! - handles are freed with `specrt_*_free(&handle)`, which nulls the caller's pointer;
//! - after `specrt_shutdown` (shutdown.rs, state in lifecycle.rs) every entry point returns `SPECRT_SHUT_DOWN`.
//!
//! A pipeline handle holds a decoder pipeline or a NAT (translation) pipeline; a NAT request carries a batch of
//! sentences (sources.rs) and its result one output per sentence, each with its own status (nat.rs, result.rs).

pub mod error;
pub mod handle;
mod lifecycle;
mod nat;
pub mod pipeline;
pub mod request;
pub mod result;
pub mod shutdown;
pub mod sources;
pub mod status;

pub use error::specrt_last_error;
pub use pipeline::{specrt_pipeline, specrt_stream_callback};
pub use request::specrt_request;
pub use result::specrt_result;
pub use shutdown::specrt_shutdown;
pub use sources::SPECRT_MAX_SOURCES;
pub use status::specrt_status;

use std::ffi::c_char;

/// Version of the C ABI this header describes. It changes only when an existing function or type changes
/// incompatibly (new functions and new result keys keep it). Compare it with `specrt_abi_version()` at load.
pub const SPECRT_ABI_VERSION: u32 = 1;

/// The library's version (e.g. `"0.1.0"`), a static NUL-terminated string.
#[no_mangle]
pub extern "C" fn specrt_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// The ABI version of the loaded library; a host compares it with the `SPECRT_ABI_VERSION` it was compiled
/// against and refuses to run on a mismatch.
#[no_mangle]
pub extern "C" fn specrt_abi_version() -> u32 {
    SPECRT_ABI_VERSION
}

//! Typed handles: every object given to C is a `Box<Handle<T>>` whose first field is a magic number naming its
//! type, so a handle of the wrong type (or, often, a freed one) is reported as `SPECRT_WRONG_HANDLE` instead of
//! being misused. The C side only sees opaque pointers.

use super::error::{FfiError, FfiResult};
use super::status::specrt_status;

/// A kind of handle: its magic number and its C type name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kind {
    /// The first 8 bytes of every handle of this kind.
    pub magic: u64,
    /// The C type name, for messages.
    pub name: &'static str,
}

/// `specrt_pipeline` ("SPECPIPE").
pub(crate) const PIPELINE: Kind = Kind { magic: 0x5350_4543_5049_5045, name: "specrt_pipeline" };
/// `specrt_request` ("SPECREQU").
pub(crate) const REQUEST: Kind = Kind { magic: 0x5350_4543_5245_5155, name: "specrt_request" };
/// `specrt_result` ("SPECRESU").
pub(crate) const RESULT: Kind = Kind { magic: 0x5350_4543_5245_5355, name: "specrt_result" };

/// Every kind, for naming a mix-up. The kinds are defined here, not by the handle types, so this table depends on
/// no file that depends on it (scripts/check_layers.py checks the files of engine/ffi/ for cycles).
const KINDS: [Kind; 3] = [PIPELINE, REQUEST, RESULT];

/// A type stored behind a handle.
pub trait HandleKind {
    /// Its kind (one of the constants above).
    const KIND: Kind;
}

/// Written over the magic number before a handle is freed.
const FREED: u64 = 0x5350_4543_4652_4545; // "SPECFREE"

/// The allocation behind a C handle.
#[repr(C)]
pub(crate) struct Handle<T> {
    magic: u64,
    value: T,
}

/// Boxes `value` into a new handle and returns it as the opaque C pointer type `C`.
pub(crate) fn into_raw<T: HandleKind, C>(value: T) -> *mut C {
    Box::into_raw(Box::new(Handle { magic: T::KIND.magic, value })).cast()
}

fn check<T: HandleKind>(ptr: *const u8, name: &str) -> FfiResult<()> {
    if ptr.is_null() {
        return Err(FfiError::null(name));
    }
    // SAFETY: a non-null handle argument points at one of our `Handle<_>` allocations (the ABI's contract);
    // every one of them starts with the u64 magic.
    let magic = unsafe { std::ptr::read_unaligned(ptr.cast::<u64>()) };
    if magic == T::KIND.magic {
        return Ok(());
    }
    let found = if magic == FREED {
        "a handle that was already freed".to_string()
    } else if let Some(other) = KINDS.iter().find(|k| k.magic == magic) {
        format!("a {}", other.name)
    } else {
        "not a specrt handle (freed, or a stray pointer)".to_string()
    };
    Err(FfiError::new(specrt_status::SPECRT_WRONG_HANDLE, format!("argument `{name}` must be a {}, but it is {found}", T::KIND.name)))
}

/// Borrows the value behind a handle after checking it.
///
/// # Safety
/// `ptr` is NULL or a pointer the library handed out (the check reads its first 8 bytes).
pub unsafe fn get<'a, T: HandleKind, C>(ptr: *const C, name: &str) -> FfiResult<&'a T> {
    check::<T>(ptr.cast(), name)?;
    Ok(&(*ptr.cast::<Handle<T>>()).value)
}

/// Mutably borrows the value behind a handle after checking it.
///
/// # Safety
/// As [`get`]; and no other thread uses the handle meanwhile.
pub unsafe fn get_mut<'a, T: HandleKind, C>(ptr: *mut C, name: &str) -> FfiResult<&'a mut T> {
    check::<T>(ptr.cast(), name)?;
    Ok(&mut (*ptr.cast::<Handle<T>>()).value)
}

/// Frees the handle `*slot` points to and sets `*slot` to NULL. `*slot == NULL` is a no-op; `slot == NULL` is
/// `SPECRT_NULL_ARGUMENT`; a handle of another type is left alone (`SPECRT_WRONG_HANDLE`).
///
/// # Safety
/// As [`get`], for `*slot`.
pub unsafe fn free<T: HandleKind, C>(slot: *mut *mut C, name: &str) -> FfiResult {
    if slot.is_null() {
        return Err(FfiError::null(name));
    }
    let ptr = *slot;
    if ptr.is_null() {
        return Ok(());
    }
    check::<T>(ptr.cast(), &format!("*{name}"))?;
    let handle = ptr.cast::<Handle<T>>();
    *slot = std::ptr::null_mut();
    // Marked before the memory goes back to the allocator, so a use through another copy of the pointer is
    // likely (not certain: the allocator may reuse the bytes) to be reported as a freed handle.
    (*handle).magic = FREED;
    drop(Box::from_raw(handle));
    Ok(())
}

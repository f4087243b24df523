//! `rdma_seterrno`, the error convention of the whole API.

use core::ffi::c_int;

use super::export::{Refused, observed};
use rdmaverbs_abi::sys::set_errno;
use rdmaverbs_observe::Call;
use rdmaverbs_observe::Status;

/// Turns a verbs result into the API's convention: `0` stays `0`; anything
/// else (a positive errno, or a negative value from a provider that returns
/// those) becomes `errno`, and the result is `-1`.
#[inline(always)]
pub(crate) fn seterrno(ret: c_int) -> c_int {
    if ret != 0 { fail(ret) } else { ret }
}

/// The failing half of [`seterrno`], out of line: the success path then
/// falls straight through to the return (a taken branch less per call).
#[cold]
#[inline(never)]
fn fail(ret: c_int) -> c_int {
    set_errno(ret);
    -1
}

/// The error for input the original would crash on, assert on or silently
/// truncate (see docs/deviations.md): -1 with `errno = EINVAL`.
/// Out of line, so that the checks cost the fast path only a compare each.
#[cold]
#[inline(never)]
pub(crate) fn invalid() -> c_int {
    seterrno(libc::EINVAL)
}

/// As [`invalid`], for the registration helpers, which return a pointer.
#[cold]
#[inline(never)]
pub(crate) fn invalid_ptr<T>() -> *mut T {
    invalid();
    core::ptr::null_mut()
}

impl Refused for c_int {
    fn refused() -> Self {
        invalid()
    }
}

/// An object made, a registration, an address: NULL, with `errno =
/// EINVAL`; for every pointer an export returns.
impl<T> Refused for *mut T {
    fn refused() -> Self {
        invalid_ptr()
    }
}

/// An errno value: `EINVAL` returned (`errno` is not touched: the value is
/// the error).
impl Refused for Status {
    fn refused() -> Self {
        Status(libc::EINVAL)
    }
}

/// `ssize_t`, a count or a negative errno value: `-EINVAL`.
impl Refused for isize {
    fn refused() -> Self {
        -(libc::EINVAL as isize)
    }
}

/// A value read (an `ibv_wc_read_*` of a NULL CQ): 0, with `errno =
/// EINVAL`, the only way the caller can tell.
macro_rules! values {
    ($($t:ty),*) => {
        $(
            impl Refused for $t {
                fn refused() -> Self {
                    invalid();
                    0
                }
            }
        )*
    };
}
values!(u8, u16, u32, u64);

/// A `void` function given NULL does nothing.
impl Refused for () {
    fn refused() -> Self {}
}

/// Sets errno to a non-zero ret and returns -1; returns 0 for 0.
///
/// # Safety
/// None needed: it takes no pointer. It is `unsafe` only so that every export
/// of this library has the same shape.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_seterrno(ret: c_int) -> c_int {
    observed!(SetErrno, -, Call::SetErrno(ret), seterrno(ret))
}

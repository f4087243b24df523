//! What glibc has and the `libc` crate does not declare.

use core::ffi::{c_char, c_int};

unsafe extern "C" {
    /// `secure_getenv(3)`: `getenv`, but NULL in a secure-execution process
    /// (set-user-ID and the like).
    pub fn secure_getenv(name: *const c_char) -> *mut c_char;

    /// `pthread_atfork(3)`. It comes from libc_nonshared, which ties the
    /// handlers to the shared object that links it (this library): they go
    /// away when it is unloaded.
    pub fn pthread_atfork(
        prepare: Option<extern "C" fn()>,
        parent: Option<extern "C" fn()>,
        child: Option<extern "C" fn()>,
    ) -> c_int;
}

/// `CLOCK_MONOTONIC` now: through the vDSO, no system call. The bounded
/// waits' deadlines and the trace lines' `t=` are on it (as bpftrace's
/// `nsecs` is).
pub(crate) fn monotonic() -> libc::timespec {
    let mut t = core::mem::MaybeUninit::<libc::timespec>::uninit();
    // SAFETY: CLOCK_MONOTONIC always exists; `t` is written.
    unsafe {
        libc::clock_gettime(libc::CLOCK_MONOTONIC, t.as_mut_ptr());
        t.assume_init()
    }
}

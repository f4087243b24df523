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

/// A `CLOCK_MONOTONIC` time in nanoseconds (584 years from boot fit).
pub(crate) fn ns(t: &libc::timespec) -> u64 {
    (t.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(t.tv_nsec as u64)
}

/// A descriptor that a system call returned, or that a variable holds:
/// `None` for -1 (the call failed; no descriptor).
pub(crate) fn descriptor(fd: c_int) -> Option<c_int> {
    (fd >= 0).then_some(fd)
}

/// This thread's `errno`.
pub(crate) fn errno() -> c_int {
    // SAFETY: __errno_location() returns this thread's errno, always valid.
    unsafe { *libc::__errno_location() }
}

/// Keeps this thread's `errno` across a path of the observer that makes
/// system calls (a write-out, a thread's first line, a counters block looked
/// for): put back when dropped. Every such path holds one, so that watching
/// never changes a program's `errno`, and the common path (a line built in
/// place, a count added) neither saves nor restores it.
pub(crate) struct KeepErrno(c_int);

impl KeepErrno {
    pub(crate) fn new() -> Self {
        KeepErrno(errno())
    }
}

impl Drop for KeepErrno {
    fn drop(&mut self) {
        // SAFETY: as in `errno`.
        unsafe { *libc::__errno_location() = self.0 };
    }
}

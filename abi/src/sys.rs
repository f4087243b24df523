//! The system calls and glibc functions of the library, in the forms it
//! uses them: what the `libc` crate does not declare, `errno` read, set
//! and kept, `fstat(2)`, whether a thread of this process still exists, the
//! monotonic clock, and a static the library writes only where no other
//! thread can look.

use core::cell::UnsafeCell;
use core::ffi::{c_char, c_int};
use core::mem::MaybeUninit;

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

/// The longest path, with its NUL (`PATH_MAX`).
pub const PATH_MAX: usize = libc::PATH_MAX as usize;

/// `CLOCK_MONOTONIC` now: through the vDSO, no system call. The bounded
/// waits' deadlines and the trace lines' `t=` are on it (as bpftrace's
/// `nsecs` is).
pub fn monotonic() -> libc::timespec {
    let mut t = MaybeUninit::<libc::timespec>::uninit();
    // SAFETY: CLOCK_MONOTONIC always exists; `t` is written.
    unsafe {
        libc::clock_gettime(libc::CLOCK_MONOTONIC, t.as_mut_ptr());
        t.assume_init()
    }
}

/// A `CLOCK_MONOTONIC` time in nanoseconds (584 years from boot fit).
pub fn ns(t: &libc::timespec) -> u64 {
    (t.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(t.tv_nsec as u64)
}

/// A descriptor that a system call returned, or that a variable holds:
/// `None` for -1 (the call failed; no descriptor).
pub fn descriptor(fd: c_int) -> Option<c_int> {
    (fd >= 0).then_some(fd)
}

/// This thread's `errno`.
pub fn errno() -> c_int {
    // SAFETY: __errno_location() returns this thread's errno, always valid.
    unsafe { *libc::__errno_location() }
}

/// Sets this thread's `errno`.
pub fn set_errno(value: c_int) {
    // SAFETY: as in `errno`.
    unsafe { *libc::__errno_location() = value };
}

/// Keeps this thread's `errno` across a path of the observer that makes
/// system calls (a write-out, a thread's first line, a counters block looked
/// for): put back when dropped. Every such path holds one, so that watching
/// never changes a program's `errno`, and the common path (a line built in
/// place, a count added) neither saves nor restores it.
pub struct KeepErrno(c_int);

impl KeepErrno {
    /// Keeps the `errno` of now.
    pub fn new() -> Self {
        KeepErrno(errno())
    }
}

impl Default for KeepErrno {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for KeepErrno {
    fn drop(&mut self) {
        set_errno(self.0);
    }
}

/// `fstat(2)` of `fd`; `None` when it fails.
pub fn fstat(fd: c_int) -> Option<libc::stat> {
    let mut st = MaybeUninit::<libc::stat>::uninit();
    // SAFETY: fstat writes `st` or fails.
    (unsafe { libc::fstat(fd, st.as_mut_ptr()) } == 0).then(|| unsafe { st.assume_init() })
}

/// The calling thread's id (`gettid(2)`, which cannot fail).
#[inline]
pub fn gettid() -> c_int {
    // SAFETY: no argument, no failure.
    unsafe { libc::gettid() }
}

/// Whether the thread `tid` of this process has exited: a signal 0 to it
/// finds no such thread (`ESRCH`). A thread that exists, or a test that
/// fails otherwise, is not taken for exited. Sets `errno`.
pub fn thread_exited(tid: c_int) -> bool {
    // SAFETY: getpid cannot fail; signal 0 only asks whether the thread
    // exists.
    let gone = unsafe { libc::syscall(libc::SYS_tgkill, libc::getpid(), tid, 0) } != 0;
    gone && errno() == libc::ESRCH
}

/// A static of the library that it writes only where no other thread can
/// look at it (its constructor, before any call; a forked child, which has
/// one thread), or whose every byte is read and written by one protocol of
/// its own (a thread's buffer below its published head): the `Sync` the
/// compiler cannot see. Each static says which.
#[repr(transparent)]
pub struct StaticCell<T>(UnsafeCell<T>);

// SAFETY: every static of this type states the rule that keeps its reads
// and writes apart (see the type's documentation).
unsafe impl<T> Sync for StaticCell<T> {}

impl<T> StaticCell<T> {
    /// A cell holding `value`.
    pub const fn new(value: T) -> Self {
        StaticCell(UnsafeCell::new(value))
    }

    /// The contents' address.
    pub const fn get(&self) -> *mut T {
        self.0.get()
    }
}

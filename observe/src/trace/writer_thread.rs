//! The trace file's writer thread: every [`PERIOD_MS`] it runs one job,
//! the write-out of every thread's buffer whose lines have waited there
//! long enough (`buffers::pass`), so that a line is in the file soon whatever
//! its thread does next: posts more, waits in its own code, or has exited.
//!
//! - Started at the first line that is buffered, not at load: a library
//!   constructor may run inside `dlopen`, under the loader's lock, and a
//!   process that traces nothing gets no thread.
//! - It blocks every signal (the program's signals go to the program's
//!   threads) and is named `rdmaverbs-trace` (`top -H`, `ps -L`).
//! - It runs under `SCHED_IDLE` (`sched(7)`): its wake-ups never preempt
//!   the program's threads, and it takes the CPU time they leave (or, with
//!   every CPU busy, the small share the kernel gives such threads). Under
//!   the normal policy, its wake-ups every period moved busy-polling
//!   threads between CPUs: perftest's `ib_send_lat`, traced, took 1.30x
//!   the time of the untraced program in the Soft-RoCE guest, against
//!   1.24x at `SCHED_IDLE` (BENCHMARKS.md's findings).
//! - It uses none of the library's thread-locals, so a `dlopen`ed copy
//!   allocates no thread-local storage for it.
//! - Stopped and joined when the library is unloaded (or the process
//!   exits), before the last write-out: no thread runs the library's code
//!   after `dlclose`. A forked child has no copy of it until its own first
//!   buffered line starts one.
//! - If it cannot be started (no threads left, a sandbox), one warning, and
//!   the lines are still written by their own threads: when a buffer fills,
//!   when a thread traces again [`buffers::MAX_AGE_MS`] after its oldest
//!   unwritten line, at exit.

use core::ffi::{c_int, c_void};
use core::mem::MaybeUninit;
use core::ptr;
use core::sync::atomic::{AtomicU32, AtomicUsize, Ordering::*};

use super::buffers;
use super::line::write_line;

/// How often the thread writes the buffers out.
pub(crate) const PERIOD_MS: i64 = 50;

/// The writer thread's stack, 64 KiB: it formats nothing, and writes from
/// the buffers.
const STACK: usize = 65_536;
/// The futex operations on [`STOP`], private to the process.
const WAIT: c_int = libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG;
const WAKE: c_int = libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG;

const IDLE: u32 = 0;
const STARTING: u32 = 1;
const RUNNING: u32 = 2;
const FAILED: u32 = 3;

static STATE: AtomicU32 = AtomicU32::new(IDLE);
/// The futex the thread sleeps on: 1 asks it to end.
static STOP: AtomicU32 = AtomicU32::new(0);
/// The thread (a `pthread_t`), while `RUNNING`.
static THREAD: AtomicUsize = AtomicUsize::new(0);

/// Starts the thread, once (nothing if it is running or could not be
/// started).
pub(crate) fn start() {
    if STATE
        .compare_exchange(IDLE, STARTING, Acquire, Relaxed)
        .is_err()
    {
        return;
    }
    STOP.store(0, Relaxed);
    let mut t = MaybeUninit::<libc::pthread_t>::uninit();
    let mut all = MaybeUninit::<libc::sigset_t>::uninit();
    let mut old = MaybeUninit::<libc::sigset_t>::uninit();
    let mut attr = MaybeUninit::<libc::pthread_attr_t>::uninit();
    // SAFETY: each call initialises what the next one reads; the new thread
    // inherits the mask of all signals blocked, which is put back here.
    let ret = unsafe {
        libc::sigfillset(all.as_mut_ptr());
        libc::pthread_sigmask(libc::SIG_SETMASK, all.as_ptr(), old.as_mut_ptr());
        libc::pthread_attr_init(attr.as_mut_ptr());
        libc::pthread_attr_setstacksize(attr.as_mut_ptr(), STACK);
        let ret = libc::pthread_create(t.as_mut_ptr(), attr.as_ptr(), body, ptr::null_mut());
        libc::pthread_attr_destroy(attr.as_mut_ptr());
        libc::pthread_sigmask(libc::SIG_SETMASK, old.as_ptr(), ptr::null_mut());
        ret
    };
    if ret != 0 {
        STATE.store(FAILED, Relaxed);
        write_line(libc::STDERR_FILENO, |line| {
            line.push(
                b"rdmaverbs: warning: cannot start the trace writer thread; each thread writes \
                  its own lines (when its buffer fills, ",
            );
            line.dec(b"", buffers::MAX_AGE_MS as i64);
            line.push(b" ms after its oldest one, at exit)");
        });
        return;
    }
    // SAFETY: pthread_create succeeded, so `t` is written.
    THREAD.store(unsafe { t.assume_init() } as usize, Relaxed);
    STATE.store(RUNNING, Release);
}

/// The thread: the buffers' pass every period, and once more when asked to
/// end.
extern "C" fn body(_: *mut c_void) -> *mut c_void {
    // SAFETY: a name of 15 bytes and its NUL, for this thread; then its own
    // policy lowered (always allowed; if refused, it keeps the normal one).
    unsafe {
        libc::pthread_setname_np(libc::pthread_self(), c"rdmaverbs-trace".as_ptr());
        libc::sched_setscheduler(
            0,
            libc::SCHED_IDLE,
            &libc::sched_param { sched_priority: 0 },
        );
    }
    loop {
        let period = libc::timespec {
            tv_sec: 0,
            tv_nsec: PERIOD_MS * 1_000_000,
        };
        // SAFETY: a futex wait on our own word, for at most `period`; an
        // early return (a wake, a changed word, EINTR) only runs the pass
        // sooner.
        unsafe { libc::syscall(libc::SYS_futex, STOP.as_ptr(), WAIT, 0u32, &period) };
        buffers::pass();
        if STOP.load(Acquire) != 0 {
            return ptr::null_mut();
        }
    }
}

/// Ends the thread and waits for it (at unload and exit).
pub(crate) fn stop() {
    if STATE.load(Acquire) != RUNNING {
        return;
    }
    STOP.store(1, Release);
    // SAFETY: a wake of our own futex word; then the join of our thread,
    // which ends at its next wake-up.
    unsafe {
        libc::syscall(libc::SYS_futex, STOP.as_ptr(), WAKE, 1);
        libc::pthread_join(THREAD.load(Relaxed) as libc::pthread_t, ptr::null_mut());
    }
    STATE.store(IDLE, Relaxed);
}

/// In a forked child: the parent's thread is not here; the child's first
/// buffered line starts its own.
pub(crate) fn after_fork_in_child() {
    STATE.store(IDLE, Relaxed);
}

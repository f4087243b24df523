//! The observer across `fork(2)`: the trace buffers are written out before
//! it (so that no line is written twice, or lost), with no write-out left
//! half done; a child starts with empty buffers, no writer thread until its
//! first line, its own counters, at zero, and, when the trace file's path
//! has `%p`, its own trace file.

use core::sync::atomic::{AtomicBool, Ordering::Relaxed};

use super::{buffer, counters, flusher, mine, writer};
use crate::sys::pthread_atfork;

/// Registers the handlers, once (when something is watched).
pub(super) fn register() {
    static DONE: AtomicBool = AtomicBool::new(false);
    if DONE.swap(true, Relaxed) {
        return;
    }
    // SAFETY: functions that live as long as the library.
    unsafe { pthread_atfork(Some(before), Some(in_parent), Some(in_child)) };
}

extern "C" fn before() {
    buffer::before_fork();
    writer::before_fork();
}

extern "C" fn in_parent() {
    writer::after_fork();
    buffer::after_fork(false);
}

/// Runs in the child, which has one thread: only async-signal-safe calls.
extern "C" fn in_child() {
    mine::forget_tid();
    flusher::after_fork_in_child();
    writer::after_fork();
    buffer::after_fork(true);
    counters::after_fork_in_child();
    writer::after_fork_in_child();
}

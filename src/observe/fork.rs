//! The observer across `fork(2)`: a child starts with its own counters, at
//! zero, and, when the trace file's path has `%p`, its own trace file.

use core::sync::atomic::{AtomicBool, Ordering::Relaxed};

use super::{counters, writer};
use crate::sys::pthread_atfork;

/// Registers the handlers, once (when something is watched).
pub(super) fn register() {
    static DONE: AtomicBool = AtomicBool::new(false);
    if DONE.swap(true, Relaxed) {
        return;
    }
    // SAFETY: functions that live as long as the library.
    unsafe { pthread_atfork(None, None, Some(in_child)) };
}

/// Runs in the child, which has one thread: only async-signal-safe calls.
extern "C" fn in_child() {
    counters::reset();
    writer::after_fork_in_child();
}

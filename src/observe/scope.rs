//! One watched call of an export, from before its body runs to its record
//! ([`Scope`]); and the thread's "inside an export" flag, which keeps the
//! provider ops that an export calls from being recorded twice.

use core::cell::Cell;
use core::sync::atomic::{AtomicBool, Ordering::Relaxed};

use super::call::{Call, Returned};
use super::{config, counters, probes, trace, writer};
use crate::functions::Func;
use crate::sys::errno;

thread_local! {
    /// Set while an export runs its body, so that the provider ops it calls
    /// are not recorded a second time.
    static IN_API: Cell<bool> = const { Cell::new(false) };
}

/// Some thread has entered an export's watched path: until then no thread
/// is inside one, and a wrapped op need not read the thread-local flag (a
/// call of `__tls_get_addr` in a shared library) to know it.
static ENTERED: AtomicBool = AtomicBool::new(false);

/// This thread is inside an export, whose record covers the ops it calls.
#[inline]
pub(super) fn inside_export() -> bool {
    ENTERED.load(Relaxed) && in_api()
}

/// The flag itself, out of line, so that its thread-local address is not
/// computed before `ENTERED` is tested.
#[inline(never)]
fn in_api() -> bool {
    IN_API.get()
}

/// One watched call of an export, from before its body runs to its record.
pub(crate) struct Scope {
    outer: bool,
}

impl Scope {
    /// Marks this thread as inside an export.
    pub(crate) fn enter() -> Scope {
        if !ENTERED.load(Relaxed) {
            ENTERED.store(true, Relaxed);
        }
        Scope {
            outer: IN_API.replace(true),
        }
    }

    /// Records the call `call` of `f`, which returned `ret`: its counters and
    /// trace line. `errno` is left as the call left it (see
    /// [`KeepErrno`](crate::sys::KeepErrno)).
    pub(crate) fn record<R: Returned>(self, f: Func, call: Call, ret: R) {
        IN_API.set(self.outer);
        // Read before anything else; nothing below changes it (KeepErrno).
        let err = if ret.failed() { errno() } else { 0 };
        if config::stats() {
            let failed = ret.failed();
            // SAFETY: the call succeeded, so its pointers were valid and read.
            let bytes = if failed { 0 } else { unsafe { call.bytes() } };
            counters::tally(f, failed, bytes);
        }
        if writer::tracing() {
            // SAFETY: the pointers in `call` are the caller's, valid by the
            // export's contract (or NULL, which is not read).
            unsafe { trace::call_line(f, call, ret, err) };
        }
        // SAFETY: as for the trace line.
        probes::fire(f, || unsafe { call.probe_args(ret) });
    }
}

/// A call of `f` is about to wait for a completion event (once per call;
/// the caller knows whether it already did): it is counted as blocked.
/// (Its trace lines need no write-out before it sleeps: the writer thread
/// writes them within its period.)
pub(crate) fn blocked(f: Func) {
    if config::stats() {
        counters::blocked(f);
    }
}

//! What the observer keeps per thread, in one thread-local (in a shared
//! library each look-up of one is a call of `__tls_get_addr`):
//!
//! - whether the thread is inside an export's watched path, so that the
//!   provider ops the export calls (wrapped by the preload library) are not
//!   recorded a second time;
//! - its trace buffer's slot (`trace/buffers.rs`), its line start
//!   `rdmaverbs[TID]: ` and the ` t=SECONDS.` of its last line
//!   (`trace/line.rs`), each made once and copied after that.
//!
//! No destructor: nothing is registered or allocated when a thread first
//! traces. The writer thread uses none of it.

use core::cell::Cell;
use core::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// Room for a line start, or for ` t=SECONDS.`, copied 32 bytes at a time.
pub(crate) type Text = [u8; 32];

/// A thread's state.
pub(crate) struct Thread {
    /// Inside an export's watched path.
    in_export: Cell<bool>,
    /// Its buffer slot, plus one (0: none yet).
    pub(crate) slot: Cell<usize>,
    /// `rdmaverbs[TID]: `, and its length (0 until its first line).
    pub(crate) head: Cell<Text>,
    pub(crate) head_len: Cell<u8>,
    /// The seconds of its last time stamp (none before its first line), and
    /// ` t=SECONDS.` for them.
    pub(crate) sec: Cell<i64>,
    pub(crate) sec_text: Cell<Text>,
    pub(crate) sec_len: Cell<u8>,
}

impl Thread {
    /// A thread's state before its first call.
    const NEW: Thread = Thread {
        in_export: Cell::new(false),
        slot: Cell::new(0),
        head: Cell::new([0; 32]),
        head_len: Cell::new(0),
        sec: Cell::new(i64::MIN),
        sec_text: Cell::new([0; 32]),
        sec_len: Cell::new(0),
    };

    /// A state of its own, for a unit test.
    #[cfg(test)]
    pub(crate) fn for_tests() -> Thread {
        Self::NEW
    }
}

thread_local! {
    static THREAD: Thread = const { Thread::NEW };
}

/// Runs `f` with this thread's state.
#[inline]
pub(crate) fn with<R>(f: impl FnOnce(&Thread) -> R) -> R {
    THREAD.with(f)
}

/// Some thread has entered an export's watched path: until then no thread
/// is inside one, and a wrapped op need not look up the thread-local to
/// know it.
static ENTERED: AtomicBool = AtomicBool::new(false);

/// Marks this thread as inside an export; what it was before, for
/// [`leave_export`].
pub(crate) fn enter_export() -> bool {
    if !ENTERED.load(Relaxed) {
        ENTERED.store(true, Relaxed);
    }
    with(|t| t.in_export.replace(true))
}

/// Puts back what [`enter_export`] returned.
pub(crate) fn leave_export(outer: bool) {
    with(|t| t.in_export.set(outer));
}

/// This thread is inside an export, whose record covers the ops it calls.
#[inline]
pub(crate) fn inside_export() -> bool {
    ENTERED.load(Relaxed) && in_export()
}

/// The flag itself, out of line, so that the thread-local's address is not
/// computed before `ENTERED` is tested.
#[inline(never)]
fn in_export() -> bool {
    with(|t| t.in_export.get())
}

/// In a forked child (its one thread has a new id): the line start is made
/// again, and the child's first line takes a buffer slot as a first line
/// does (the parent's slots are not the child's).
pub(crate) fn after_fork_in_child() {
    with(|t| {
        t.head_len.set(0);
        t.slot.set(0);
    })
}

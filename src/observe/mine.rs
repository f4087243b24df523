//! This thread's own state for its trace lines, in one thread-local, so that
//! a line costs one look-up of it (in a shared library each is a call of
//! `__tls_get_addr`): its buffer slot (`buffer.rs`), its line start
//! `rdmaverbs[TID]: ` and the ` t=SECONDS.` of its last line (`line.rs`),
//! each made once and copied after that. No destructor: nothing is
//! registered or allocated when a thread first traces.

use core::cell::Cell;

/// Room for a line start, or for ` t=SECONDS.`, copied 32 bytes at a time.
pub(super) type Text = [u8; 32];

/// A thread's state.
pub(super) struct Mine {
    /// Its buffer slot, plus one (0: none yet).
    pub(super) slot: Cell<usize>,
    /// `rdmaverbs[TID]: `, and its length (0 until its first line).
    pub(super) head: Cell<Text>,
    pub(super) head_len: Cell<u8>,
    /// The seconds of its last time stamp (none before its first line), and
    /// ` t=SECONDS.` for them.
    pub(super) sec: Cell<i64>,
    pub(super) sec_text: Cell<Text>,
    pub(super) sec_len: Cell<u8>,
}

impl Mine {
    /// A thread's state before its first line.
    const NEW: Mine = Mine {
        slot: Cell::new(0),
        head: Cell::new([0; 32]),
        head_len: Cell::new(0),
        sec: Cell::new(i64::MIN),
        sec_text: Cell::new([0; 32]),
        sec_len: Cell::new(0),
    };

    /// A state of its own, for a unit test.
    #[cfg(test)]
    pub(super) fn for_tests() -> Mine {
        Self::NEW
    }
}

thread_local! {
    static MINE: Mine = const { Mine::NEW };
}

/// Runs `f` with this thread's state.
#[inline]
pub(super) fn with<R>(f: impl FnOnce(&Mine) -> R) -> R {
    MINE.with(f)
}

/// In a forked child (its one thread has a new id): the line start is made
/// again.
pub(super) fn forget_tid() {
    MINE.with(|m| m.head_len.set(0));
}

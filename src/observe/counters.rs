//! `RDMAVERBS_STATS`: per function, calls, bytes, errors and (for the
//! functions that may block) calls that had to wait; printed as a table on
//! stderr at exit.

use core::ffi::c_int;
use core::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::say::write_line;
use crate::functions::Func;

struct Counters {
    calls: AtomicU64,
    bytes: AtomicU64,
    errors: AtomicU64,
    blocked: AtomicU64,
}

static COUNTERS: [Counters; Func::COUNT] = [const {
    Counters {
        calls: AtomicU64::new(0),
        bytes: AtomicU64::new(0),
        errors: AtomicU64::new(0),
        blocked: AtomicU64::new(0),
    }
}; Func::COUNT];

/// Adds one call of `f` to its counters.
pub(super) fn tally(f: Func, failed: bool, bytes: u64) {
    let c = &COUNTERS[f as usize];
    c.calls.fetch_add(1, Relaxed);
    if failed {
        c.errors.fetch_add(1, Relaxed);
    }
    if bytes != 0 {
        c.bytes.fetch_add(bytes, Relaxed);
    }
}

/// Counts a call of `f` that had to wait for a completion event.
pub(super) fn blocked(f: Func) {
    COUNTERS[f as usize].blocked.fetch_add(1, Relaxed);
}

/// Sets every counter to zero (in the child of a fork, whose calls are its
/// own).
pub(super) fn reset() {
    for c in &COUNTERS {
        for n in [&c.calls, &c.bytes, &c.errors, &c.blocked] {
            n.store(0, Relaxed);
        }
    }
}

/// The counters as a table, one `write(2)` per line (async-signal-safe: a
/// signal handler prints it too); nothing when no call was made (a
/// preloaded shell prints no empty table).
pub(super) fn print_table(fd: c_int) {
    if COUNTERS.iter().all(|c| c.calls.load(Relaxed) == 0) {
        return;
    }
    // SAFETY: getpid cannot fail.
    let pid = unsafe { libc::getpid() };
    write_line(fd, |line| {
        line.dec(b"rdmaverbs: calls of process ", pid.into());
        line.push(b" (RDMAVERBS_STATS=1):");
    });
    write_line(fd, |line| {
        line.push(b"rdmaverbs: function            ");
        line.push(b"        calls          bytes     errors    blocked");
    });
    for (&f, c) in Func::ALL.iter().zip(&COUNTERS) {
        let calls = c.calls.load(Relaxed);
        if calls == 0 {
            continue;
        }
        write_line(fd, |line| {
            line.push(b"rdmaverbs: ");
            line.left(f.name().as_bytes(), 20);
            line.right(calls, 13);
            line.right(c.bytes.load(Relaxed), 15);
            line.right(c.errors.load(Relaxed), 11);
            if f.may_block() {
                line.right(c.blocked.load(Relaxed), 11);
            } else {
                line.push(b"          -");
            }
        });
    }
}

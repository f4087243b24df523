//! The gate: one 64-bit word that every export compares one of its pointer
//! arguments with, where it would test it for NULL anyway. Its three views
//! are here and nowhere else.
//!
//! ```text
//!  63            48 47                                               0
//! +----------------+--------------------------------------------------+
//! | USDT semaphore |  0: only NULL goes cold (nothing watched)        |
//! | (bytes 6 and 7)|  all ones: every pointer goes cold (watching)    |
//! +----------------+--------------------------------------------------+
//! ```
//!
//! - [`gate`]`(p)`: `p <= GATE`, true for NULL always, for every user-space
//!   pointer (below 2^47) when the low bits are all ones, and for every
//!   pointer while the semaphore is not zero: the export takes its cold
//!   path, which refuses NULL and records the call.
//! - [`watching`]: the word is not zero (something traces, counts or
//!   probes): an export that takes no pointer checks this instead.
//! - [`probe_attached`]: the semaphore, bytes 6 and 7 (little-endian), is
//!   not zero. A tracer that attaches to one of the library's USDT probes
//!   adds to it; bcc and bpftrace find a semaphore in the section
//!   `.probes`, hence the word's section, and the kernel counts it in the
//!   file-backed data of the mapping. Every probe note names `GATE + 6`
//!   (`probes/mod.rs`).
//!
//! A plain read of the word, not an atomic load, lets the compare take its
//! operand from memory: watching costs the fast path no instruction. The
//! word is written by the constructor ([`open`], before any export can be
//! called) and by the kernel (the semaphore).

use core::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, Ordering::Relaxed};

/// The word (see the module's picture).
#[unsafe(link_section = ".probes")]
pub(crate) static GATE: AtomicU64 = AtomicU64::new(0);

/// The semaphore's lowest bit in the word.
#[cfg(feature = "probes")]
const SEMAPHORE_SHIFT: u32 = 48;

// Every probe note names the semaphore as `GATE + 6` (`probes/mod.rs`,
// where `sdt!` needs the number written out): its first byte, at the shift.
#[cfg(feature = "probes")]
const _: () = assert!(SEMAPHORE_SHIFT == 8 * 6);

/// True when `p` must take the export's cold path: it is NULL, or calls are
/// being watched. One compare with a loaded value, where the NULL check alone
/// would be a compare with zero.
#[inline(always)]
pub fn gate<T>(p: *const T) -> bool {
    // SAFETY: see the module: a plain read of a word written only before
    // any export runs, and by the kernel.
    p as usize as u64 <= unsafe { *GATE.as_ptr() }
}

/// True when calls are traced, counted or probed. (A plain read, as in
/// [`gate`]: a compare with memory.)
#[inline(always)]
pub fn watching() -> bool {
    // SAFETY: as in `gate`.
    unsafe { *GATE.as_ptr() != 0 }
}

/// True while a tracer is attached to one of the library's probes.
#[cfg(feature = "probes")]
#[inline]
pub(crate) fn probe_attached() -> bool {
    // SAFETY: as in `gate`.
    (unsafe { *GATE.as_ptr() }) >> SEMAPHORE_SHIFT != 0
}

/// Without the probes compiled in: never. (Not mutated by `make mutants`,
/// which tests the build with the probes.)
#[cfg(not(feature = "probes"))]
#[cfg_attr(mutants, mutants::skip)]
#[inline]
pub(crate) fn probe_attached() -> bool {
    false
}

/// Sets the word's low 48 bits (when something is watched), leaving the
/// semaphore, which a tracer may already have counted, untouched.
pub(crate) fn open() {
    let p = GATE.as_ptr().cast::<u16>();
    // SAFETY: 8 aligned bytes of GATE, seen as four 2-byte halves; the
    // stores do not overlap the semaphore.
    unsafe {
        AtomicU32::from_ptr(p.cast::<u32>()).store(u32::MAX, Relaxed);
        AtomicU16::from_ptr(p.add(2)).store(u16::MAX, Relaxed);
    }
}

/// Counts the semaphore up, as a tracer attaching does (the C tests'
/// probe recorder, `probes/recorder.rs`).
#[cfg(all(feature = "c-tests", feature = "probes"))]
pub(crate) fn attach_as_a_tracer_does() {
    GATE.fetch_add(1 << SEMAPHORE_SHIFT, Relaxed);
}

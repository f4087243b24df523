//! The one record pipeline: every call the observer is told of (an export's
//! call, [`export`]; a wrapped provider op's, [`op`]; a wrapped op of the
//! extended API's, [`extended`]) becomes counters, trace lines and probe
//! firings here, in that order, and nowhere else.
//!
//! A source describes its call as [`Events`]: whether it failed, and its
//! events (a work request posted, a completion polled, or the call itself),
//! each with the bytes it moved, its trace line and its probe's arguments,
//! the last two as closures that only a watched call runs. [`emit`] then
//! takes one of two paths:
//!
//! - **counting only** (no trace, no probe attached, or a call with no
//!   event, such as an empty poll, whose events are not walked), inline:
//!   the events' bytes summed, one [`count::tally`];
//! - **watched**, out of line: the call counted ([`count::call`]), then for
//!   each event its bytes counted, its line written, its probe fired.
//!
//! Line formats live beside each source; their shared vocabulary (an id, a
//! CQ, a completion, the opcodes' names) in [`show`].

pub(crate) mod export;
pub(crate) mod extended;
pub(crate) mod op;
pub(crate) mod returned;
pub(crate) mod show;

use core::ffi::c_int;

use rdmaverbs_abi::functions::Func;
use rdmaverbs_abi::sys::errno;

use self::export::{Call, ExportCall};
use crate::probes::{self, Args};
use crate::trace::{self, line::Line};
use crate::{count, gate, settings, thread};

/// What a source tells the pipeline of one call.
pub(crate) trait Events: Copy {
    /// The call has no event: it is only counted, on the counting path
    /// (an empty poll), whatever else is watched.
    fn quiet(self) -> bool {
        false
    }

    /// The call failed: an error is counted.
    fn failed(self) -> bool;

    /// The function the call is counted under.
    fn func(self) -> Func;

    /// The watched path for the call: [`emit_watched`], out of line. (A
    /// source whose calls are known at compile time overrides it with one
    /// function per kind of call, taking its arguments in registers: the
    /// counting path then stores none of them.)
    ///
    /// # Safety
    /// As [`Events::each`].
    #[inline(always)]
    unsafe fn watched(self) {
        // SAFETY: forwarded.
        unsafe { emit_watched(self) };
    }

    /// Gives `out` each event of the call, in order.
    ///
    /// # Safety
    /// What the source's constructor requires: the pointers the call was
    /// made with are still valid for what a record reads.
    unsafe fn each(self, out: &mut impl Out);
}

/// Where [`Events::each`] puts each event.
pub(crate) trait Out {
    /// One event of `f` (a constant where the source knows it, so that the
    /// line's name and the probe's site are chosen at compile time): `bytes`
    /// moved, its trace line (when it has one; `fill` completes it after its
    /// start), its probe's arguments.
    fn event(
        &mut self,
        f: Func,
        bytes: u64,
        line: Option<impl FnOnce(&mut Line)>,
        args: impl FnOnce() -> Args,
    );
}

/// Records one call: the only way a call becomes counters, trace lines and
/// probe firings. A call with no event is only counted; otherwise the
/// watched case is tested first, as it takes precedence (why that costs the
/// counting path nothing: docs/design.md, "Decisions").
///
/// # Safety
/// As [`Events::each`].
#[inline(always)]
pub(crate) unsafe fn emit<E: Events>(e: E) {
    if e.quiet() {
        // No event: no bytes to walk to.
        if settings::stats() {
            count::tally(e.func(), e.failed(), 0);
        }
    } else if trace::tracing() || gate::probe_attached() {
        // SAFETY: forwarded.
        unsafe { e.watched() };
    } else if settings::stats() {
        let mut sum = Sum(0);
        // SAFETY: forwarded.
        unsafe { e.each(&mut sum) };
        count::tally(e.func(), e.failed(), sum.0);
    }
}

/// The watched path of [`emit`], out of the counting path: counted, then
/// each event's bytes, line and probe.
///
/// # Safety
/// As [`emit`].
#[inline(never)]
pub(crate) unsafe fn emit_watched<E: Events>(e: E) {
    let tracing = trace::tracing();
    // Two copies of the events' walk, so that neither tests, per event,
    // whether it counts: without counting, the bytes are not even worked
    // out.
    // SAFETY: forwarded.
    unsafe {
        if settings::stats() {
            let counted = count::call(e.func(), e.failed());
            e.each(&mut Watched { counted, tracing });
        } else {
            e.each(&mut Watched {
                counted: (),
                tracing,
            });
        }
    }
}

/// The counting path's [`Out`]: the bytes summed, nothing else run.
struct Sum(u64);

impl Out for Sum {
    #[inline(always)]
    fn event(
        &mut self,
        _f: Func,
        bytes: u64,
        _line: Option<impl FnOnce(&mut Line)>,
        _args: impl FnOnce() -> Args,
    ) {
        self.0 = self.0.wrapping_add(bytes);
    }
}

/// The watched path's [`Out`]: `C` is [`count::Counted`] when counting,
/// `()` when not.
struct Watched<C> {
    counted: C,
    tracing: bool,
}

/// Where a watched call's bytes go: its counters, or nowhere.
trait Bytes {
    fn bytes(&self, n: u64);
}

impl Bytes for count::Counted {
    #[inline(always)]
    fn bytes(&self, n: u64) {
        count::Counted::bytes(*self, n);
    }
}

impl Bytes for () {
    #[inline(always)]
    fn bytes(&self, _: u64) {}
}

impl<C: Bytes> Out for Watched<C> {
    #[inline(always)]
    fn event(
        &mut self,
        f: Func,
        bytes: u64,
        line: Option<impl FnOnce(&mut Line)>,
        args: impl FnOnce() -> Args,
    ) {
        self.counted.bytes(bytes);
        if let (true, Some(fill)) = (self.tracing, line) {
            trace::line(f, fill);
        }
        probes::fire(f, args);
    }
}

/// What an export returns: a status, a count, an address, an object, a
/// registered MR, a value read, or nothing (each implemented in
/// `returned.rs`, with how it is shown: the trait is sealed).
pub trait Returned: Copy + shown::Shown {
    /// The call failed.
    fn failed(self) -> bool;
    /// The value, for a probe's argument.
    fn value(self) -> isize;
    /// A failed call set `errno` (not so where the value is the error).
    fn sets_errno(self) -> bool {
        true
    }
}

/// How a result is shown on a trace line, out of the exports' sight.
pub(crate) mod shown {
    use crate::trace::line::Line;

    /// ` ret=...` and what follows from it, on a trace line.
    pub trait Shown {
        /// Adds it to `line`.
        fn show(self, line: &mut Line);
    }
}

/// One watched call of an export, from before its body runs to its record:
/// while it runs, the provider ops it calls (wrapped, under the preload
/// library) are not recorded a second time.
pub struct Scope {
    outer: bool,
}

impl Scope {
    /// Marks this thread as inside an export.
    pub fn enter() -> Scope {
        Scope {
            outer: thread::enter_export(),
        }
    }

    /// Records the call `call` of `f`, which returned `ret`. `errno` is left
    /// as the call left it (every path of the observer that makes a system
    /// call keeps it: `KeepErrno`).
    ///
    /// # Safety
    /// The pointers in `call` are NULL or valid, as the export's contract
    /// says; those of a call that succeeded were read by it.
    pub unsafe fn record<R: Returned>(self, f: Func, call: Call, ret: R) {
        thread::leave_export(self.outer);
        // Read before anything else; nothing below changes it.
        let err: c_int = if (ret.failed() || call.refused()) && ret.sets_errno() {
            errno()
        } else {
            0
        };
        // SAFETY: forwarded.
        unsafe { emit(ExportCall { f, call, ret, err }) };
    }
}

/// A call of `f` is about to wait for a completion event (once per call;
/// the caller knows whether it already did): it is counted as blocked.
/// (Its trace lines need no write-out before it sleeps: the writer thread
/// writes them within its period.)
pub fn blocked(f: Func) {
    if settings::stats() {
        count::blocked(f);
    }
}

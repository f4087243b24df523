//! Configuration from the environment, read once when the library is loaded:
//! `RDMAVERBS_TRACE`, `RDMAVERBS_STATS` and `RDMAVERBS_POLL_SPIN` (see
//! `rdmaverbs(7)`).
//!
//! The rules, for a library that is loaded into other people's processes:
//! the variables are read with `secure_getenv(3)`, so a set-user-ID (or
//! otherwise secure-execution) process ignores them, as glibc ignores
//! `MALLOC_TRACE`; a value that cannot be used gets one warning line on
//! stderr, with its control characters escaped, and the default applies.
//!
//! When none is set, nothing here costs the fast paths anything: each export
//! compares one of its pointer arguments with [`GATE`] where it would test it
//! for NULL anyway (see [`gate`]).

use core::ffi::CStr;
use core::sync::atomic::{AtomicBool, AtomicU16, AtomicU32, AtomicU64, Ordering::Relaxed};

use super::say::warn;
use super::{counters, published, signals, writer};

/// Every export's pointer argument at or below this takes the cold path.
///
/// Its low 48 bits are 0 (only NULL takes it: the input check) when nothing
/// is watched, all ones (every user-space pointer) when tracing or
/// counting. Its top 16 bits are the semaphore of the library's USDT probes
/// (bytes 6 and 7, little-endian): a tracer that attaches to a probe adds to
/// it, so that every call takes the cold path, where the probes are, for as
/// long as one is attached. Hence the section: bcc and bpftrace find a
/// semaphore in `.probes`, and the kernel counts it in the file-backed data
/// of the mapping (see `probes.rs`).
#[unsafe(link_section = ".probes")]
pub(super) static GATE: AtomicU64 = AtomicU64::new(0);

/// Whether the per-function counters are kept.
static STATS: AtomicBool = AtomicBool::new(false);
/// Whether the table of counts is printed at exit (not when
/// `rdmaverbs-trace -c`, which prints its own, asked for the counts).
static TABLE: AtomicBool = AtomicBool::new(false);

/// How many more times `rdma_get_*_comp` polls before arming the CQ.
static POLL_SPIN: AtomicU32 = AtomicU32::new(0);

/// The largest `RDMAVERBS_POLL_SPIN` accepted.
const MAX_SPIN: u32 = 1_000_000_000;

/// The name of the symbol that only the preload library exports
/// (`src/preload.map`): its presence in the process tells the linked library
/// that the preload library observes the process, and that it must not.
pub(crate) const PRELOAD_MARKER: &CStr = c"rdmaverbs_preload";

/// The marker itself, in both libraries (exported only by the preload one).
#[unsafe(no_mangle)]
#[allow(non_upper_case_globals)]
pub static rdmaverbs_preload: u8 = 1;

/// True when another library's marker is in the process: this is the linked
/// library and the preload library is loaded too. Its copies of the exports
/// are then the ones a program linked with us calls, and it wraps the ops
/// that ours would call: if this library watched as well, a call could be
/// counted twice.
fn preload_elsewhere() -> bool {
    // SAFETY: a C string; RTLD_DEFAULT is always a valid handle.
    let found = unsafe { libc::dlsym(libc::RTLD_DEFAULT, PRELOAD_MARKER.as_ptr()) };
    !found.is_null() && found.cast_const() != (&raw const rdmaverbs_preload).cast()
}

/// True when `p` must take the export's cold path: it is NULL, or calls are
/// being watched. One compare with a loaded value, where the NULL check alone
/// would be a compare with zero: watching costs the fast path no instruction.
#[inline(always)]
pub(crate) fn gate<T>(p: *const T) -> bool {
    // SAFETY: GATE is written by the constructor, before any export can be
    // called, and by the kernel (the probes' semaphore). A plain read lets
    // the compare take its operand from memory (an atomic load would cost a
    // separate instruction).
    p as usize as u64 <= unsafe { *GATE.as_ptr() }
}

/// True when calls are traced, counted or probed. (A plain read, as in
/// [`gate`]: a compare with memory.)
#[inline(always)]
pub(crate) fn watching() -> bool {
    // SAFETY: as in `gate`.
    unsafe { *GATE.as_ptr() != 0 }
}

/// True when counting calls.
pub(crate) fn stats() -> bool {
    STATS.load(Relaxed)
}

/// Extra polls before arming the CQ (`RDMAVERBS_POLL_SPIN`).
#[inline(always)]
pub(crate) fn poll_spin() -> u32 {
    POLL_SPIN.load(Relaxed)
}

/// Reads the environment when the library is loaded. Nothing here may panic
/// or abort the host program, or block.
#[ctor::ctor(unsafe)]
fn load() {
    // SAFETY: called before main or inside dlopen, as every library
    // constructor is; the strings are used at once.
    let (trace, stats, spin, session) = unsafe {
        (
            getenv(c"RDMAVERBS_TRACE"),
            getenv(c"RDMAVERBS_STATS"),
            getenv(c"RDMAVERBS_POLL_SPIN"),
            getenv(c"RDMAVERBS_STATS_SESSION"),
        )
    };
    // The preload library in the process watches; this one must not.
    let (trace, stats) = if preload_elsewhere() {
        (None, None)
    } else {
        (trace, stats)
    };
    if let Some(v) = trace {
        match v.to_bytes() {
            b"0" => {}
            b"1" => writer::to_stderr(),
            path if path.contains(&b'/') => {
                if let Err(why) = writer::open(v) {
                    warn(c"RDMAVERBS_TRACE", v, why);
                }
            }
            _ => warn(
                c"RDMAVERBS_TRACE",
                v,
                "not 0, 1 or a path (a path has a '/', as ./FILE does); not tracing",
            ),
        }
    }
    if let Some(v) = stats {
        match v.to_bytes() {
            b"0" => {}
            b"1" => {
                STATS.store(true, Relaxed);
                let session = session.and_then(|v| parse_u64(v.to_bytes())).unwrap_or(0);
                TABLE.store(session == 0, Relaxed);
                if let Err(why) = counters::publish(session) {
                    warn(c"RDMAVERBS_STATS", v, why);
                }
            }
            _ => warn(c"RDMAVERBS_STATS", v, "not 0 or 1; not counting"),
        }
    }
    if let Some(v) = spin {
        match parse_u32(v.to_bytes()).filter(|&n| n <= MAX_SPIN) {
            Some(n) => POLL_SPIN.store(n, Relaxed),
            None => warn(
                c"RDMAVERBS_POLL_SPIN",
                v,
                "not a number from 0 to 1000000000; 0",
            ),
        }
    }
    if writer::tracing() || self::stats() {
        open_gate();
        super::fork::register();
        if writer::to_file() || self::stats() {
            signals::install(TABLE.load(Relaxed));
        }
        // SAFETY: a function that lives as long as the library: the atexit
        // linked into a shared library runs it at dlclose too.
        unsafe { libc::atexit(unload) };
    }
}

/// At exit, or when the library is unloaded: the trace written out and
/// closed, the table printed (if any call was made), the counters' file
/// removed (unless it is kept for `rdmaverbs-trace -c`), the signal
/// handlers taken away (their code goes with the library).
extern "C" fn unload() {
    writer::close();
    if TABLE.load(Relaxed) {
        counters::print_table(libc::STDERR_FILENO);
    }
    published::remove();
    signals::uninstall();
}

/// Sets the gate's low 48 bits, leaving the probes' semaphore (bytes 6 and
/// 7), which a tracer may already have counted, untouched.
fn open_gate() {
    let p = GATE.as_ptr().cast::<u16>();
    // SAFETY: 8 aligned bytes of GATE, seen as four 2-byte halves; the
    // stores do not overlap the semaphore.
    unsafe {
        AtomicU32::from_ptr(p.cast::<u32>()).store(u32::MAX, Relaxed);
        AtomicU16::from_ptr(p.add(2)).store(u16::MAX, Relaxed);
    }
}

/// A variable's value, `None` when it is unset or empty, or when the process
/// runs in secure-execution mode (set-user-ID and the like).
///
/// # Safety
/// As `getenv(3)`: no thread may be changing the environment.
unsafe fn getenv(name: &CStr) -> Option<&'static CStr> {
    // SAFETY: `name` is a C string; secure_getenv returns NULL or a C string
    // that lives as long as the environment is not changed.
    let v = unsafe { crate::sys::secure_getenv(name.as_ptr()) };
    // SAFETY: non-NULL, so a C string (above).
    let v = (!v.is_null()).then(|| unsafe { CStr::from_ptr(v) })?;
    (!v.is_empty()).then_some(v)
}

/// A decimal number without sign or spaces.
fn parse_u32(s: &[u8]) -> Option<u32> {
    parse_u64(s).and_then(|n| u32::try_from(n).ok())
}

/// A decimal number without sign or spaces, of at most 19 digits.
fn parse_u64(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 19 {
        return None;
    }
    let mut n: u64 = 0;
    for &c in s {
        if !c.is_ascii_digit() {
            return None;
        }
        n = n * 10 + u64::from(c - b'0');
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::{parse_u32, parse_u64};

    #[test]
    fn numbers() {
        assert_eq!(parse_u32(b"0"), Some(0));
        assert_eq!(parse_u32(b"1000"), Some(1000));
        assert_eq!(parse_u32(b"4294967295"), Some(u32::MAX));
        assert_eq!(parse_u32(b"4294967296"), None);
        assert_eq!(parse_u32(b"99999999999"), None);
        assert_eq!(parse_u64(b"1234567890123"), Some(1_234_567_890_123));
        assert_eq!(
            parse_u64(b"1234567890123456789"),
            Some(1_234_567_890_123_456_789)
        );
        assert_eq!(parse_u64(b"12345678901234567890"), None);
        for bad in [&b""[..], b"-1", b"+1", b" 1", b"1k", b"0x10"] {
            assert_eq!(parse_u32(bad), None);
        }
    }
}

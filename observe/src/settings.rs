//! What the environment asks for, read once when the library is loaded
//! (`process::load`): `RDMAVERBS_TRACE`, `RDMAVERBS_STATS`,
//! `RDMAVERBS_POLL_SPIN` and `RDMAVERBS_STATS_SESSION` (see
//! `rdmaverbs(7)`), and what was decided from it.
//!
//! The rules, for a library that is loaded into other people's processes:
//! the variables are read with `secure_getenv(3)`, so a set-user-ID (or
//! otherwise secure-execution) process ignores them, as glibc ignores
//! `MALLOC_TRACE`; a value that cannot be used gets one warning line on
//! stderr, with its control characters escaped, and the default applies.

use core::ffi::CStr;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};

use rdmaverbs_abi::sys::secure_getenv;

use crate::trace::line::warn_setting;

/// Whether the per-function counters are kept.
static STATS: AtomicBool = AtomicBool::new(false);
/// Whether the table of counts is printed at exit (not when
/// `rdmaverbs-trace -c`, which prints its own, asked for the counts).
static TABLE: AtomicBool = AtomicBool::new(false);
/// How many more times `rdma_get_*_comp` polls before arming the CQ.
static POLL_SPIN: AtomicU32 = AtomicU32::new(0);

/// The largest `RDMAVERBS_POLL_SPIN` accepted.
const MAX_SPIN: u32 = 1_000_000_000;

/// True when counting calls.
pub(crate) fn stats() -> bool {
    STATS.load(Relaxed)
}

/// True when the table of counts is printed at exit and on a fatal signal.
pub(crate) fn table() -> bool {
    TABLE.load(Relaxed)
}

/// Extra polls before arming the CQ (`RDMAVERBS_POLL_SPIN`): a behaviour of
/// the exports' waits, read here with the other variables.
#[inline(always)]
pub fn poll_spin() -> u32 {
    POLL_SPIN.load(Relaxed)
}

/// The variables as the process has them (none in secure-execution mode).
pub(crate) struct Env {
    pub(crate) trace: Option<&'static CStr>,
    pub(crate) stats: Option<&'static CStr>,
    pub(crate) spin: Option<&'static CStr>,
    pub(crate) session: Option<&'static CStr>,
}

/// Reads the variables.
///
/// # Safety
/// As `getenv(3)`: no thread may be changing the environment (a library
/// constructor).
pub(crate) unsafe fn read() -> Env {
    // SAFETY: forwarded.
    unsafe {
        Env {
            trace: getenv(c"RDMAVERBS_TRACE"),
            stats: getenv(c"RDMAVERBS_STATS"),
            spin: getenv(c"RDMAVERBS_POLL_SPIN"),
            session: getenv(c"RDMAVERBS_STATS_SESSION"),
        }
    }
}

/// Where `RDMAVERBS_TRACE` sends the lines.
pub(crate) enum Trace {
    Off,
    Stderr,
    File(&'static CStr),
}

/// `RDMAVERBS_TRACE`'s value: 0, 1 or a path (with a '/'); one warning for
/// anything else.
pub(crate) fn trace(v: &'static CStr) -> Trace {
    match v.to_bytes() {
        b"0" => Trace::Off,
        b"1" => Trace::Stderr,
        path if path.contains(&b'/') => Trace::File(v),
        _ => {
            warn_setting(
                c"RDMAVERBS_TRACE",
                v,
                "not 0, 1 or a path (a path has a '/', as ./FILE does); not tracing",
            );
            Trace::Off
        }
    }
}

/// `RDMAVERBS_STATS`'s value: counting on for 1, with its table at exit
/// unless `session` (`RDMAVERBS_STATS_SESSION`, a number) asks for the file
/// to be kept; its session (0 for none). `None` for 0, and with one warning
/// for anything else.
pub(crate) fn stats_from(v: &CStr, session: Option<&CStr>) -> Option<u64> {
    match v.to_bytes() {
        b"0" => None,
        b"1" => {
            let session = session.and_then(|v| parse_u64(v.to_bytes())).unwrap_or(0);
            STATS.store(true, Relaxed);
            TABLE.store(session == 0, Relaxed);
            Some(session)
        }
        _ => {
            warn_setting(c"RDMAVERBS_STATS", v, "not 0 or 1; not counting");
            None
        }
    }
}

/// `RDMAVERBS_POLL_SPIN`'s value, kept; one warning when it is not a
/// number from 0 to [`MAX_SPIN`].
pub(crate) fn spin_from(v: &CStr) {
    match parse_u32(v.to_bytes()).filter(|&n| n <= MAX_SPIN) {
        Some(n) => POLL_SPIN.store(n, Relaxed),
        None => warn_setting(
            c"RDMAVERBS_POLL_SPIN",
            v,
            "not a number from 0 to 1000000000; 0",
        ),
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
    let v = unsafe { secure_getenv(name.as_ptr()) };
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

//! Where trace lines go: standard error, or a file opened by these rules
//! (the trace's descriptor is kept here for both).
//!
//! - The path must contain a `/` (the caller checks); `%p` in it becomes the
//!   process id, `%%` a `%`, so that every process of a preloaded script
//!   gets its own file.
//! - The file is opened without following a final symbolic link
//!   (`O_NOFOLLOW`) and without blocking (`O_NONBLOCK`: a FIFO with no
//!   reader fails at once instead of hanging the process at load), is
//!   created `0600` (a trace holds addresses and keys), and must be a
//!   regular file.
//! - Its descriptor is moved up to 256 or above (`F_DUPFD_CLOEXEC`), out of
//!   the way of a program's own small descriptors, and before every write
//!   it is checked to still be that file (device and inode): a program that
//!   closes its descriptors and opens its own files never gets trace lines in
//!   them; tracing stops there, with one warning.
//! - Lines are buffered per thread (`buffers.rs`) and appended in whole
//!   lines (`O_APPEND`), laid out so that none straddles a 4 KiB boundary
//!   of the file (`append.rs`): a write cut short by `SIGKILL` or a full
//!   disk ends at the end of a line. Standard error is written a line at a
//!   time.
//! - The file may change under the writer: truncated (`: > FILE`), the
//!   lines go on from its new end; deleted, full (`ENOSPC`, or any failed
//!   or short write), or at the process's file size limit (`RLIMIT_FSIZE`,
//!   checked before each write, so that no `SIGXFSZ` kills the program),
//!   tracing stops there with one warning and the descriptor is closed.
//! - A process writes out one write-out at a time (a lock held only around
//!   the `fstat(2)` and `writev(2)` of a write-out, never per line), so
//!   that each knows where in the file it lands.
//! - It is closed when the library is unloaded (or the process exits), after
//!   the writer thread is stopped and the buffers are written out
//!   ([`close`]); on a fatal signal the buffers are written out too
//!   (`process.rs` orders both).

use core::ffi::{CStr, c_int};
use core::mem::MaybeUninit;
use core::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering::*};

use rdmaverbs_abi::sys::{PATH_MAX, StaticCell, descriptor, errno, fstat};

use super::append::{plan, write_pieces};
use super::buffers::spin_take;
use super::line::{Line, room, warn_setting, write_line};

/// The trace's descriptor; [`CLOSED`] when not tracing.
static FD: AtomicI32 = AtomicI32::new(CLOSED);
/// [`FD`] when not tracing.
const CLOSED: c_int = -1;
/// A trace file was opened (not stderr): its identity is checked.
static FILE: AtomicBool = AtomicBool::new(false);
/// The file's device and inode.
static DEV: AtomicU64 = AtomicU64::new(0);
static INO: AtomicU64 = AtomicU64::new(0);
/// The process's file size limit when the file was opened (bytes).
static FSIZE: AtomicU64 = AtomicU64::new(u64::MAX);
/// Held around each write-out to the file.
static WRITING: AtomicBool = AtomicBool::new(false);
/// A fatal signal is being handled: the lock is only tried.
static DYING: AtomicBool = AtomicBool::new(false);
/// The path as given (with `%p`), for the child of a fork: written only by
/// the constructor (before any other thread can read it), read in a fork's
/// child (one thread).
static TEMPLATE: StaticCell<[u8; PATH_MAX]> = StaticCell::new([0; PATH_MAX]);

/// The lowest descriptor the trace file is moved to.
const HIGH_FD: c_int = 256;
/// How the file is opened (see the rules above).
const OPEN_FLAGS: c_int = libc::O_WRONLY
    | libc::O_CREAT
    | libc::O_APPEND
    | libc::O_CLOEXEC
    | libc::O_NOFOLLOW
    | libc::O_NONBLOCK;

/// A trace file was opened at load (it may have been stopped since).
pub(crate) fn opened() -> bool {
    FILE.load(Relaxed)
}

/// The trace's descriptor, while tracing.
#[inline]
pub(crate) fn current() -> Option<c_int> {
    descriptor(FD.load(Relaxed))
}

/// Traces to standard error.
pub(crate) fn set_stderr() {
    FILE.store(false, Relaxed);
    FD.store(libc::STDERR_FILENO, Relaxed);
}

/// Traces to the file `template` names, opened by the rules above; the
/// reason when it cannot.
pub(crate) fn open(template: &CStr) -> Result<(), &'static str> {
    let t = template.to_bytes_with_nul();
    let dst = TEMPLATE.get().cast::<u8>();
    if t.len() > PATH_MAX {
        return Err("too long a path; not tracing");
    }
    // SAFETY: `dst` has PATH_MAX bytes; the constructor is the only writer.
    unsafe { core::ptr::copy_nonoverlapping(t.as_ptr(), dst, t.len()) };
    let fd = open_file()?;
    FILE.store(true, Relaxed);
    FD.store(fd, Relaxed);
    Ok(())
}

/// At unload or exit, once the writer thread is stopped and the buffers
/// are written out: the file closed.
pub(crate) fn close() {
    if lock() {
        if let Some(fd) = descriptor(FD.swap(CLOSED, Relaxed)) {
            // SAFETY: our own descriptor, closed once (swapped out above).
            unsafe { libc::close(fd) };
        }
        unlock();
    }
}

/// On a fatal signal, before the last write-outs: the lock is only tried
/// from here on (the interrupted thread may hold it).
pub(crate) fn dying() {
    DYING.store(true, Relaxed);
}

/// Takes the write-out lock; while a fatal signal is handled, only tries.
/// True when taken.
fn lock() -> bool {
    spin_take(&WRITING, || DYING.load(Relaxed))
}

fn unlock() {
    WRITING.store(false, Release);
}

/// Before a fork: no write-out half done in the child.
pub(crate) fn before_fork() {
    lock();
}

/// After a fork, on both sides.
pub(crate) fn after_fork() {
    unlock();
}

/// Opens the file of [`TEMPLATE`] for this process; records its identity.
fn open_file() -> Result<c_int, &'static str> {
    let mut path = [0u8; PATH_MAX];
    // SAFETY: TEMPLATE is a NUL-terminated string (see `open`).
    let template = unsafe { CStr::from_ptr(TEMPLATE.get().cast()) };
    if !expand(template.to_bytes(), &mut path) {
        return Err("too long a path once %p is expanded; not tracing");
    }
    // SAFETY: `path` is NUL-terminated (expand).
    let Some(fd) =
        descriptor(unsafe { libc::open(path.as_ptr().cast(), OPEN_FLAGS, 0o600 as c_int) })
    else {
        return Err(match errno() {
            libc::ELOOP => "a symbolic link, which is not followed; not tracing",
            libc::ENXIO => "a FIFO with no reader; not tracing",
            _ => "cannot open it; not tracing",
        });
    };
    let Some(st) = fstat(fd).filter(|st| st.st_mode & libc::S_IFMT == libc::S_IFREG) else {
        // SAFETY: our own descriptor.
        unsafe { libc::close(fd) };
        return Err("not a regular file (a FIFO, a device, a socket); not tracing");
    };
    DEV.store(st.st_dev, Relaxed);
    INO.store(st.st_ino, Relaxed);
    let mut limit = MaybeUninit::<libc::rlimit>::uninit();
    // SAFETY: getrlimit writes `limit` or fails.
    if unsafe { libc::getrlimit(libc::RLIMIT_FSIZE, limit.as_mut_ptr()) } == 0 {
        // SAFETY: written.
        let cur = unsafe { limit.assume_init() }.rlim_cur;
        FSIZE.store(
            if cur == libc::RLIM_INFINITY {
                u64::MAX
            } else {
                cur
            },
            Relaxed,
        );
    }
    // SAFETY: `fd` is open; F_DUPFD_CLOEXEC makes a new descriptor.
    let Some(high) = descriptor(unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, HIGH_FD) }) else {
        return Ok(fd);
    };
    // SAFETY: our own descriptor, replaced by `high`.
    unsafe { libc::close(fd) };
    Ok(high)
}

/// `template` with `%p` replaced by the process id and `%%` by `%`, into
/// `out`, NUL-terminated; false when it does not fit.
fn expand(template: &[u8], out: &mut [u8; PATH_MAX]) -> bool {
    let mut room = room();
    let mut pid = Line::on(&mut room);
    // SAFETY: getpid cannot fail.
    pid.dec(b"", unsafe { libc::getpid() }.into());
    let pid = pid.text();
    let mut n = 0;
    let mut put = |bytes: &[u8]| {
        for &b in bytes {
            match out.get_mut(n) {
                Some(slot) => *slot = b,
                None => return false,
            }
            n += 1;
        }
        true
    };
    let mut i = 0;
    while let Some(&c) = template.get(i) {
        let ok = match (c, template.get(i + 1)) {
            (b'%', Some(b'p')) => {
                i += 1;
                put(pid)
            }
            (b'%', Some(b'%')) => {
                i += 1;
                put(b"%")
            }
            _ => put(&[c]),
        };
        if !ok {
            return false;
        }
        i += 1;
    }
    put(&[0])
}

/// Appends `bytes` (whole lines) to the trace file, with the write-out
/// lock held (only tried while a fatal signal is handled).
pub(crate) fn append(bytes: &[u8]) {
    if lock() {
        append_checked(bytes);
        unlock();
    }
}

/// With the lock held: `bytes` appended to the trace file, if it still is
/// the file, laid out by `append::plan` from its end; tracing stopped, with
/// one warning, when it is no longer the file or cannot take the lines.
fn append_checked(bytes: &[u8]) {
    let Some(fd) = current() else {
        return;
    };
    let Some(st) =
        fstat(fd).filter(|st| st.st_dev == DEV.load(Relaxed) && st.st_ino == INO.load(Relaxed))
    else {
        return stop(fd, false, |line| {
            line.dec(b"rdmaverbs: warning: descriptor ", fd.into());
            line.push(b" is no longer the trace file (the program closed or reused it); ");
        });
    };
    if st.st_nlink == 0 {
        return stop(fd, true, |line| {
            line.push(b"rdmaverbs: warning: the trace file was deleted; ")
        });
    }
    let mut at = st.st_size as u64;
    let mut rest = bytes;
    while !rest.is_empty() {
        let p = plan(at, rest);
        let limit = FSIZE.load(Relaxed);
        if !within(at, p.len, limit) {
            return stop(fd, true, |line| {
                line.push(b"rdmaverbs: warning: the trace file has reached the file size limit");
                line.dec(b" (RLIMIT_FSIZE, ", limit as i64);
                line.push(b" bytes); ");
            });
        }
        if let Err(err) = write_pieces(fd, p.pieces.get(..p.n).unwrap_or_default()) {
            return stop(fd, true, |line| {
                line.dec(
                    b"rdmaverbs: warning: cannot write the trace file (errno ",
                    err.into(),
                );
                line.push(b"; a full disk?); ");
            });
        }
        at += p.len;
        rest = rest.get(p.used..).unwrap_or_default();
    }
}

/// Whether `len` bytes written at `at` end within a file size limit of
/// `limit` bytes (at it, exactly, is within).
fn within(at: u64, len: u64, limit: u64) -> bool {
    at.saturating_add(len) <= limit
}

/// Stops tracing at `fd` (with the lock held), with one warning: what
/// `why` writes, then "not tracing from here". `close`: the descriptor is
/// still the trace file's, and is closed.
fn stop(fd: c_int, close: bool, why: impl FnOnce(&mut Line)) {
    if FD.compare_exchange(fd, CLOSED, Relaxed, Relaxed).is_err() {
        return;
    }
    write_line(libc::STDERR_FILENO, |line| {
        why(line);
        line.push(b"not tracing from here");
    });
    if close {
        // SAFETY: our own descriptor, swapped out above.
        unsafe { libc::close(fd) };
    }
}

/// In the child of a fork: a trace file whose path has `%p` is the
/// parent's; the child opens its own (and stops tracing if it cannot).
pub(crate) fn after_fork_in_child() {
    // SAFETY: TEMPLATE is NUL-terminated (empty until a file is traced).
    let template = unsafe { CStr::from_ptr(TEMPLATE.get().cast()) };
    let Some(fd) = current().filter(|_| opened()) else {
        return;
    };
    if !template.to_bytes().windows(2).any(|w| w == b"%p") {
        return;
    }
    // SAFETY: the child's copy of the parent's descriptor.
    unsafe { libc::close(fd) };
    match open_file() {
        Ok(new) => FD.store(new, Relaxed),
        Err(why) => {
            FD.store(CLOSED, Relaxed);
            warn_setting(c"RDMAVERBS_TRACE", template, why);
        }
    }
}

#[cfg(test)]
mod tests {
    //! The trace file's pure rules: `%p` expanded, the file size limit.

    use super::*;

    #[test]
    fn percent_p() {
        let mut out = [0u8; PATH_MAX];
        assert!(expand(b"/tmp/t.%p.%%p%x", &mut out));
        let s = CStr::from_bytes_until_nul(&out).unwrap().to_str().unwrap();
        assert_eq!(s, format!("/tmp/t.{}.%p%x", std::process::id()));
        let long = vec![b'a'; PATH_MAX];
        assert!(!expand(&long, &mut out));
    }

    #[test]
    fn file_size_limit() {
        assert!(within(0, 10, 10));
        assert!(within(4096, 0, 4096));
        assert!(!within(1, 10, 10));
        assert!(!within(u64::MAX - 1, 2, u64::MAX - 1));
        // No limit (RLIM_INFINITY is u64::MAX): every write is within it.
        assert!(within(u64::MAX, 1, u64::MAX));
    }
}

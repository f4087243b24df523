//! Where trace lines go: standard error, or a file opened by these rules.
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
//! - Lines are buffered per thread (`buffer.rs`) and appended in whole
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
//!   (`signals.rs`).

use core::cell::UnsafeCell;
use core::ffi::{CStr, c_int};
use core::mem::MaybeUninit;
use core::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering::*};

use super::append::{plan, write_pieces};
use super::line::{Line, room};
use super::say::{warn, write_all, write_line};
use super::{buffer, flusher};
use crate::functions::Func;
use crate::sys::{descriptor, errno, monotonic};

/// The trace's descriptor; [`CLOSED`] when not tracing.
static FD: AtomicI32 = AtomicI32::new(CLOSED);
/// [`FD`] when not tracing.
const CLOSED: c_int = -1;
/// The trace is a file (not stderr): its identity is checked.
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
/// The path as given (with `%p`), for the child of a fork.
static TEMPLATE: Template = Template(UnsafeCell::new([0; PATH_MAX]));

const PATH_MAX: usize = libc::PATH_MAX as usize;
/// The lowest descriptor the trace file is moved to.
const HIGH_FD: c_int = 256;
/// How the file is opened (see the rules above).
const FLAGS: c_int = libc::O_WRONLY
    | libc::O_CREAT
    | libc::O_APPEND
    | libc::O_CLOEXEC
    | libc::O_NOFOLLOW
    | libc::O_NONBLOCK;

struct Template(UnsafeCell<[u8; PATH_MAX]>);
// SAFETY: written only by the constructor (before any other thread can
// read it) and read in a fork's child (one thread).
unsafe impl Sync for Template {}

/// True when trace lines are written to a file.
pub(super) fn to_file() -> bool {
    FILE.load(Relaxed) && tracing()
}

/// True when trace lines are written.
pub(super) fn tracing() -> bool {
    current().is_some()
}

/// The trace's descriptor, while tracing.
fn current() -> Option<c_int> {
    descriptor(FD.load(Relaxed))
}

/// Traces to standard error.
pub(super) fn to_stderr() {
    FILE.store(false, Relaxed);
    FD.store(libc::STDERR_FILENO, Relaxed);
}

/// Traces to the file `template` names, opened by the rules above; the
/// reason when it cannot.
pub(super) fn open(template: &CStr) -> Result<(), &'static str> {
    let t = template.to_bytes_with_nul();
    let dst = TEMPLATE.0.get().cast::<u8>();
    if t.len() > PATH_MAX {
        return Err("too long a path; not tracing");
    }
    // SAFETY: `dst` has PATH_MAX bytes; the constructor is the only writer.
    unsafe { core::ptr::copy_nonoverlapping(t.as_ptr(), dst, t.len()) };
    let fd = open_file()?;
    FILE.store(true, Relaxed);
    FD.store(fd, Relaxed);
    buffer::start(write_out);
    Ok(())
}

/// At unload or exit: the writer thread stopped, the buffers written out,
/// the file closed.
pub(super) fn close() {
    if !FILE.load(Relaxed) {
        return;
    }
    flusher::stop();
    buffer::flush_all(true);
    if lock() {
        if let Some(fd) = descriptor(FD.swap(CLOSED, Relaxed)) {
            // SAFETY: our own descriptor, closed once (swapped out above).
            unsafe { libc::close(fd) };
        }
        unlock();
    }
}

/// On a fatal signal: every buffer written out that no other writer holds.
/// Only async-signal-safe calls.
pub(super) fn flush_dying() {
    DYING.store(true, Relaxed);
    buffer::flush_all(false);
}

/// Takes the write-out lock; while a fatal signal is handled, only tries
/// (the interrupted thread may hold it). True when taken.
fn lock() -> bool {
    buffer::spin_take(&WRITING, || DYING.load(Relaxed))
}

fn unlock() {
    WRITING.store(false, Release);
}

/// Before a fork: no write-out half done in the child.
pub(super) fn before_fork() {
    lock();
}

/// After a fork, on both sides.
pub(super) fn after_fork() {
    unlock();
}

/// Opens the file of [`TEMPLATE`] for this process; records its identity.
fn open_file() -> Result<c_int, &'static str> {
    let mut path = [0u8; PATH_MAX];
    // SAFETY: TEMPLATE is a NUL-terminated string (see `open`).
    let template = unsafe { CStr::from_ptr(TEMPLATE.0.get().cast()) };
    if !expand(template.to_bytes(), &mut path) {
        return Err("too long a path once %p is expanded; not tracing");
    }
    // SAFETY: `path` is NUL-terminated (expand).
    let Some(fd) = descriptor(unsafe { libc::open(path.as_ptr().cast(), FLAGS, 0o600 as c_int) })
    else {
        return Err(match errno() {
            libc::ELOOP => "a symbolic link, which is not followed; not tracing",
            libc::ENXIO => "a FIFO with no reader; not tracing",
            _ => "cannot open it; not tracing",
        });
    };
    let mut st = MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `fd` is open; `st` is written by fstat.
    let regular = unsafe { libc::fstat(fd, st.as_mut_ptr()) } == 0
        // SAFETY: fstat succeeded, so `st` is written.
        && unsafe { st.assume_init_ref() }.st_mode & libc::S_IFMT == libc::S_IFREG;
    if !regular {
        // SAFETY: our own descriptor.
        unsafe { libc::close(fd) };
        return Err("not a regular file (a FIFO, a device, a socket); not tracing");
    }
    // SAFETY: as above.
    let st = unsafe { st.assume_init() };
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

/// Adds one trace line of `f`, which `fill` completes: built in this
/// thread's buffer for a file, else on the stack and written at once.
#[inline]
pub(super) fn line(f: Func, fill: impl FnOnce(&mut Line)) {
    if !tracing() {
        return;
    }
    if FILE.load(Relaxed) {
        buffer::line(f, fill);
    } else {
        buffer::on_stack(f, &monotonic(), fill, write_out);
    }
}

/// Writes `bytes` (whole lines) to the trace: to standard error as they
/// are; to the file, appended by [`append_checked`].
pub(super) fn write_out(bytes: &[u8]) {
    if !FILE.load(Relaxed) {
        if let Some(fd) = current() {
            write_all(fd, bytes);
        }
        return;
    }
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
    let mut st = MaybeUninit::<libc::stat>::uninit();
    // SAFETY: fstat writes `st` or fails.
    let ok = unsafe { libc::fstat(fd, st.as_mut_ptr()) } == 0;
    // SAFETY: written when `ok`.
    let st = ok.then(|| unsafe { st.assume_init() });
    let Some(st) = st.filter(|st| st.st_dev == DEV.load(Relaxed) && st.st_ino == INO.load(Relaxed))
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
pub(super) fn after_fork_in_child() {
    // SAFETY: TEMPLATE is NUL-terminated (empty until a file is traced).
    let template = unsafe { CStr::from_ptr(TEMPLATE.0.get().cast()) };
    let Some(fd) = current().filter(|_| to_file()) else {
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
            warn(c"RDMAVERBS_TRACE", template, why);
        }
    }
}

#[cfg(test)]
#[path = "writer_tests.rs"]
mod tests;

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
//! - Lines are buffered per thread (`buffer.rs`) and written out in whole
//!   lines; standard error is written a line at a time.
//! - It is closed when the library is unloaded (or the process exits), after
//!   the buffers are written out; they are written out too on a fatal
//!   signal whose action is the default (`SIGSEGV`, `SIGBUS`, `SIGILL`,
//!   `SIGFPE`, `SIGABRT`, `SIGTERM`, `SIGINT`, `SIGHUP`, `SIGQUIT`): the
//!   handler writes them out and lets the signal do what it would have done.

use core::cell::UnsafeCell;
use core::ffi::{CStr, c_int};
use core::mem::MaybeUninit;
use core::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering::Relaxed};

use super::buffer;
use super::line::{Line, room, warn, write_all, write_line};
use crate::functions::Func;

/// The trace's descriptor; -1 when not tracing.
static FD: AtomicI32 = AtomicI32::new(-1);
/// The trace is a file (not stderr): its identity is checked.
static FILE: AtomicBool = AtomicBool::new(false);
/// The file's device and inode.
static DEV: AtomicU64 = AtomicU64::new(0);
static INO: AtomicU64 = AtomicU64::new(0);
/// The path as given (with `%p`), for the child of a fork.
static TEMPLATE: Template = Template(UnsafeCell::new([0; PATH_MAX]));

const PATH_MAX: usize = libc::PATH_MAX as usize;
/// The lowest descriptor the trace file is moved to.
const HIGH_FD: c_int = 256;

struct Template(UnsafeCell<[u8; PATH_MAX]>);
// SAFETY: written only by the constructor (before any other thread can
// read it) and read in a fork's child (one thread).
unsafe impl Sync for Template {}

/// True when trace lines are written.
pub(super) fn tracing() -> bool {
    FD.load(Relaxed) >= 0
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
    extern "C" fn at_unload() {
        buffer::flush_all(true, write_out);
        let fd = FD.swap(-1, Relaxed);
        if fd >= 0 && FILE.load(Relaxed) {
            // SAFETY: our own descriptor, closed once (swapped out above).
            unsafe { libc::close(fd) };
        }
        off_fatal_signals();
    }
    // SAFETY: a function that lives as long as the library: the atexit
    // linked into a shared library runs it at dlclose too.
    unsafe { libc::atexit(at_unload) };
    buffer::start();
    on_fatal_signals();
    Ok(())
}

/// The signals whose default action ends the process, and that the
/// handler below writes the buffers out for.
const FATAL: [c_int; 9] = [
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGILL,
    libc::SIGFPE,
    libc::SIGABRT,
    libc::SIGTERM,
    libc::SIGINT,
    libc::SIGHUP,
    libc::SIGQUIT,
];

/// Installs [`fatal`] for each of [`FATAL`] whose action is the default (a
/// program's own handler, or an ignored signal, is left alone).
fn on_fatal_signals() {
    for sig in FATAL {
        let mut old = MaybeUninit::<libc::sigaction>::zeroed();
        // SAFETY: queries the current action into `old`.
        if unsafe { libc::sigaction(sig, core::ptr::null(), old.as_mut_ptr()) } != 0
            // SAFETY: written by sigaction.
            || unsafe { old.assume_init_ref() }.sa_sigaction != libc::SIG_DFL
        {
            continue;
        }
        // SAFETY: a zeroed sigaction is a valid one; the handler is ours.
        let mut sa: libc::sigaction = unsafe { MaybeUninit::zeroed().assume_init() };
        sa.sa_sigaction = fatal as extern "C" fn(c_int) as usize;
        // Back to the default on entry, and not blocked inside the handler:
        // a raise() there (or the fault again, on return) does the default.
        sa.sa_flags = libc::SA_RESETHAND | libc::SA_NODEFER;
        // SAFETY: a valid action for a catchable signal.
        unsafe { libc::sigaction(sig, &sa, core::ptr::null_mut()) };
    }
}

/// Puts back the default action where ours still is (at unload: the
/// handler's code goes with the library).
fn off_fatal_signals() {
    for sig in FATAL {
        let mut old = MaybeUninit::<libc::sigaction>::zeroed();
        // SAFETY: queries the current action into `old`.
        if unsafe { libc::sigaction(sig, core::ptr::null(), old.as_mut_ptr()) } == 0
            // SAFETY: written by sigaction.
            && unsafe { old.assume_init_ref() }.sa_sigaction == fatal as extern "C" fn(c_int) as usize
        {
            // SAFETY: SIG_DFL for a catchable signal.
            unsafe { libc::signal(sig, libc::SIG_DFL) };
        }
    }
}

/// A fatal signal: the buffers written out (skipping one another writer
/// holds), then what the signal would have done. A fault returns, to fault
/// again with the default action (a core dump of the real place); an
/// asynchronous signal is raised again. Only async-signal-safe calls.
extern "C" fn fatal(sig: c_int) {
    buffer::flush_all(false, write_out);
    if !matches!(
        sig,
        libc::SIGSEGV | libc::SIGBUS | libc::SIGILL | libc::SIGFPE | libc::SIGABRT
    ) {
        // SAFETY: the action is the default again (SA_RESETHAND).
        unsafe { libc::raise(sig) };
    }
}

/// Opens the file of [`TEMPLATE`] for this process; records its identity.
fn open_file() -> Result<c_int, &'static str> {
    let mut path = [0u8; PATH_MAX];
    // SAFETY: TEMPLATE is a NUL-terminated string (see `open`).
    let template = unsafe { CStr::from_ptr(TEMPLATE.0.get().cast()) };
    if !expand(template.to_bytes(), &mut path) {
        return Err("too long a path once %p is expanded; not tracing");
    }
    let flags = libc::O_WRONLY
        | libc::O_CREAT
        | libc::O_APPEND
        | libc::O_CLOEXEC
        | libc::O_NOFOLLOW
        | libc::O_NONBLOCK;
    // SAFETY: `path` is NUL-terminated (expand).
    let fd = unsafe { libc::open(path.as_ptr().cast(), flags, 0o600 as c_int) };
    if fd < 0 {
        // SAFETY: errno of this thread.
        return Err(match unsafe { *libc::__errno_location() } {
            libc::ELOOP => "a symbolic link, which is not followed; not tracing",
            libc::ENXIO => "a FIFO with no reader; not tracing",
            _ => "cannot open it; not tracing",
        });
    }
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
    // SAFETY: `fd` is open; F_DUPFD_CLOEXEC makes a new descriptor.
    let high = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, HIGH_FD) };
    if high < 0 {
        return Ok(fd);
    }
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
    if FD.load(Relaxed) < 0 {
        return;
    }
    if FILE.load(Relaxed) {
        buffer::line(f, fill, write_out);
    } else {
        buffer::on_stack(f, fill, write_out);
    }
}

/// Writes `bytes` (whole lines) to the trace, unless the file's descriptor
/// is no longer the trace file: then tracing stops, with one warning.
pub(super) fn write_out(bytes: &[u8]) {
    let fd = FD.load(Relaxed);
    if fd < 0 {
        return;
    }
    if FILE.load(Relaxed) && !still_the_file(fd) {
        if FD.swap(-1, Relaxed) == fd {
            write_line(libc::STDERR_FILENO, |line| {
                line.dec(b"rdmaverbs: warning: descriptor ", fd.into());
                line.push(b" is no longer the trace file (the program closed or reused it); ");
                line.push(b"not tracing from here");
            });
        }
        return;
    }
    write_all(fd, bytes);
}

/// `fd` is still open on the file the trace was opened on.
fn still_the_file(fd: c_int) -> bool {
    let mut st = MaybeUninit::<libc::stat>::uninit();
    // SAFETY: fstat writes `st` or fails.
    if unsafe { libc::fstat(fd, st.as_mut_ptr()) } != 0 {
        return false;
    }
    // SAFETY: fstat succeeded.
    let st = unsafe { st.assume_init_ref() };
    st.st_dev == DEV.load(Relaxed) && st.st_ino == INO.load(Relaxed)
}

/// In the child of a fork: a trace file whose path has `%p` is the
/// parent's; the child opens its own (and stops tracing if it cannot).
pub(super) fn after_fork_in_child() {
    let fd = FD.load(Relaxed);
    // SAFETY: TEMPLATE is NUL-terminated once a file is traced.
    let template = unsafe { CStr::from_ptr(TEMPLATE.0.get().cast()) };
    if fd < 0 || !FILE.load(Relaxed) || !template.to_bytes().windows(2).any(|w| w == b"%p") {
        return;
    }
    // SAFETY: the child's copy of the parent's descriptor.
    unsafe { libc::close(fd) };
    match open_file() {
        Ok(new) => FD.store(new, Relaxed),
        Err(why) => {
            FD.store(-1, Relaxed);
            warn(c"RDMAVERBS_TRACE", template, why);
        }
    }
}

#[cfg(test)]
mod tests {
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
}

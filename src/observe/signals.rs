//! Fatal signals: a program stopped by `SIGINT`, `SIGTERM` and the like, or
//! one that crashes, still leaves its trace lines in the file and, with
//! `RDMAVERBS_STATS=1`, its table of counts on stderr, as an exit would.
//!
//! A handler is installed only for a signal whose action is the default
//! when the library loads: a program's own handler, or an ignored signal,
//! is left alone (a program that catches `SIGINT` and calls `exit(3)` gets
//! the table from the exit). The handler writes the buffers out (skipping
//! one another writer holds), prints the table, then lets the signal do what
//! it would have done: its action is the default again on entry
//! (`SA_RESETHAND`), an asynchronous signal is raised again, and a fault
//! returns to fault again, so that a core dump shows the real place. Only
//! async-signal-safe calls (`write(2)`, `writev(2)`, `fstat(2)`,
//! `raise(3)`). The handlers are taken away when the library is unloaded,
//! since their code goes with it.

use core::ffi::c_int;
use core::mem::MaybeUninit;
use core::sync::atomic::{AtomicBool, Ordering::Relaxed};

use super::{counters, published, writer};

/// The signals whose default action ends the process.
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

/// The handler prints the counters' table.
static TABLE: AtomicBool = AtomicBool::new(false);

/// The current action of `sig`, if it can be read.
fn action(sig: c_int) -> Option<libc::sighandler_t> {
    let mut old = MaybeUninit::<libc::sigaction>::zeroed();
    // SAFETY: queries the current action into `old`.
    let ok = unsafe { libc::sigaction(sig, core::ptr::null(), old.as_mut_ptr()) } == 0;
    // SAFETY: written by sigaction when it succeeded.
    ok.then(|| unsafe { old.assume_init_ref() }.sa_sigaction)
}

/// Installs [`fatal`] for each of [`FATAL`] whose action is the default;
/// `table`: it prints the counters' table too.
/// The handler's flags: back to the default on entry, and the signal not
/// blocked inside the handler, so that a raise() there (or the fault again,
/// on return) does the default.
const FLAGS: c_int = libc::SA_RESETHAND | libc::SA_NODEFER;

pub(super) fn install(table: bool) {
    TABLE.store(table, Relaxed);
    for sig in FATAL {
        if action(sig) != Some(libc::SIG_DFL) {
            continue;
        }
        // SAFETY: a zeroed sigaction is a valid one; the handler is ours.
        let mut sa: libc::sigaction = unsafe { MaybeUninit::zeroed().assume_init() };
        sa.sa_sigaction = fatal as extern "C" fn(c_int) as usize;
        sa.sa_flags = FLAGS;
        // SAFETY: a valid action for a catchable signal.
        unsafe { libc::sigaction(sig, &sa, core::ptr::null_mut()) };
    }
}

/// Puts back the default action where ours still is (at unload).
pub(super) fn uninstall() {
    for sig in FATAL {
        if action(sig) == Some(fatal as extern "C" fn(c_int) as usize) {
            // SAFETY: SIG_DFL for a catchable signal.
            unsafe { libc::signal(sig, libc::SIG_DFL) };
        }
    }
}

/// A fatal signal: the trace written out and the table printed, then what
/// the signal would have done.
extern "C" fn fatal(sig: c_int) {
    writer::flush_dying();
    if TABLE.load(Relaxed) {
        counters::print_table(libc::STDERR_FILENO);
    }
    published::remove();
    if !matches!(
        sig,
        libc::SIGSEGV | libc::SIGBUS | libc::SIGILL | libc::SIGFPE | libc::SIGABRT
    ) {
        // SAFETY: the action is the default again (SA_RESETHAND).
        unsafe { libc::raise(sig) };
    }
}

//! The process events, side by side: the library loaded, unloaded (or the
//! process exiting), a fatal signal, and a fork (before it, after it in the
//! parent, after it in the child). Each is a short list of calls into the
//! subsystems; the rules that order them are written here once:
//!
//! 1. The writer thread is stopped before the last write-out, so that no
//!    thread runs the library's code after `dlclose`, and no line is written
//!    after the file is closed.
//! 2. The trace is written out before the table is printed (a reader of
//!    both sees the lines first), and the table before the counters file is
//!    removed (the table is read from it).
//! 3. Across a fork every lock and flag is held: each buffer's flag (its
//!    lines written out first, so that the child starts with empty ones)
//!    and the write-out lock, so that no child starts with one held or a
//!    write-out half done; both sides release them after. The preload
//!    library's registries (its wrapped contexts, QPs and CQs) hold their
//!    own locks across a fork by handlers of their own (`src/preload/ops.rs`,
//!    `fork_handlers`: this crate cannot name them). Those are registered
//!    later, when the first context is wrapped, so (`pthread_atfork`
//!    runs `prepare` handlers in the reverse order of registration, the
//!    others in order) their locks are taken before this file's and
//!    released after them: the registries' outside, these inside.
//! 4. A forked child, which has one thread, uses only async-signal-safe
//!    calls: it forgets what was the parent's (its thread's line start and
//!    buffer, the writer thread, the counts and their file) and makes its
//!    own when it first needs them.
//!
//! Nothing here may panic, abort the host program, or block.

use core::ffi::{CStr, c_int};
use core::mem::MaybeUninit;
use core::sync::atomic::{AtomicBool, Ordering::Relaxed};

use rdmaverbs_abi::sys::pthread_atfork;

use crate::settings::{self, Trace};
use crate::trace::line::warn_setting;
use crate::trace::{buffers, file, writer_thread};
use crate::{count, gate, thread, trace};

/// The name of the symbol that only the preload library exports
/// (`src/preload.map`): its presence in the process tells the linked library
/// that the preload library observes the process, and that it must not.
pub const PRELOAD_MARKER: &CStr = c"rdmaverbs_preload";

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

/// Loaded: the environment read, what it asks for set up; when anything is
/// watched, the gate opened and the handlers of the other events installed.
#[ctor::ctor(unsafe)]
fn load() {
    #[cfg(all(feature = "c-tests", feature = "probes"))]
    crate::probes::recorder::attach();
    // SAFETY: called before main or inside dlopen, as every library
    // constructor is; the strings are used at once.
    let env = unsafe { settings::read() };
    // The preload library in the process watches; this one must not.
    let (trace, stats) = if preload_elsewhere() {
        (None, None)
    } else {
        (env.trace, env.stats)
    };
    if let Some(v) = trace {
        match settings::trace(v) {
            Trace::Off => {}
            Trace::Stderr => trace::to_stderr(),
            Trace::File(path) => {
                if let Err(why) = trace::to_file(path) {
                    warn_setting(c"RDMAVERBS_TRACE", v, why);
                }
            }
        }
    }
    if let Some(v) = stats {
        if let Some(session) = settings::stats_from(v, env.session) {
            if let Err(why) = count::publish(session) {
                warn_setting(c"RDMAVERBS_STATS", v, why);
            }
        }
    }
    if let Some(v) = env.spin {
        settings::spin_from(v);
    }
    if trace::tracing() || settings::stats() {
        gate::open();
        fork_handlers();
        if trace::to_a_file() || settings::stats() {
            install_signal_handlers();
        }
        // SAFETY: a function that lives as long as the library: the atexit
        // linked into a shared library runs it at dlclose too.
        unsafe { libc::atexit(unload) };
    }
}

/// At exit, or when the library is unloaded (rules 1 and 2): the trace
/// written out and closed, the table printed (if any call was made), the
/// counters' file removed (unless it is kept for `rdmaverbs-trace -c`),
/// the signal handlers taken away (their code goes with the library).
extern "C" fn unload() {
    if file::opened() {
        writer_thread::stop();
        buffers::flush_all(true);
        file::close();
    }
    if settings::table() {
        count::print_table(libc::STDERR_FILENO);
    }
    count::file::remove();
    uninstall_signal_handlers();
}

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

/// The handler's flags: back to the default on entry, and the signal not
/// blocked inside the handler, so that a raise() there (or the fault again,
/// on return) does the default.
const HANDLER_FLAGS: c_int = libc::SA_RESETHAND | libc::SA_NODEFER;

/// A fatal signal (rule 2, async-signal-safe calls only: `write(2)`,
/// `writev(2)`, `fstat(2)`, `unlink(2)`, `raise(3)`): the trace written out
/// (skipping a buffer another writer holds), the table printed, the
/// counters' file removed, then what the signal would have done: its action
/// is the default again on entry (`SA_RESETHAND`), an asynchronous signal
/// is raised again, and a fault returns to fault again, so that a core dump
/// shows the real place.
extern "C" fn fatal(sig: c_int) {
    file::dying();
    buffers::flush_all(false);
    if settings::table() {
        count::print_table(libc::STDERR_FILENO);
    }
    count::file::remove();
    if !matches!(
        sig,
        libc::SIGSEGV | libc::SIGBUS | libc::SIGILL | libc::SIGFPE | libc::SIGABRT
    ) {
        // SAFETY: the action is the default again (SA_RESETHAND).
        unsafe { libc::raise(sig) };
    }
}

/// The current action of `sig`, if it can be read.
fn action(sig: c_int) -> Option<libc::sighandler_t> {
    let mut old = MaybeUninit::<libc::sigaction>::zeroed();
    // SAFETY: queries the current action into `old`.
    let ok = unsafe { libc::sigaction(sig, core::ptr::null(), old.as_mut_ptr()) } == 0;
    // SAFETY: written by sigaction when it succeeded.
    ok.then(|| unsafe { old.assume_init_ref() }.sa_sigaction)
}

/// [`fatal`] for each of [`FATAL`] whose action is the default when the
/// library loads (when tracing to a file or counting): a program's own
/// handler, or an ignored signal, is left alone (a program that catches
/// `SIGINT` and calls `exit(3)` gets the table from the exit).
fn install_signal_handlers() {
    for sig in FATAL {
        if action(sig) != Some(libc::SIG_DFL) {
            continue;
        }
        // SAFETY: a zeroed sigaction is a valid one; the handler is ours.
        let mut sa: libc::sigaction = unsafe { MaybeUninit::zeroed().assume_init() };
        // libc's sa_sigaction is a usize: the handler's address as one.
        sa.sa_sigaction = fatal as extern "C" fn(c_int) as usize;
        sa.sa_flags = HANDLER_FLAGS;
        // SAFETY: a valid action for a catchable signal.
        unsafe { libc::sigaction(sig, &sa, core::ptr::null_mut()) };
    }
}

/// The default action put back where ours still is (at unload).
fn uninstall_signal_handlers() {
    for sig in FATAL {
        if action(sig) == Some(fatal as extern "C" fn(c_int) as usize) {
            // SAFETY: SIG_DFL for a catchable signal.
            unsafe { libc::signal(sig, libc::SIG_DFL) };
        }
    }
}

/// Registers the fork handlers, once (when something is watched).
fn fork_handlers() {
    static DONE: AtomicBool = AtomicBool::new(false);
    if DONE.swap(true, Relaxed) {
        return;
    }
    // SAFETY: functions that live as long as the library.
    unsafe { pthread_atfork(Some(before_fork), Some(in_parent), Some(in_child)) };
}

/// Before a fork (rule 3): every buffer written out and its flag held, then
/// the write-out lock held.
extern "C" fn before_fork() {
    buffers::before_fork();
    file::before_fork();
}

/// After it, in the parent (rule 3): released, in the reverse order.
extern "C" fn in_parent() {
    file::after_fork();
    buffers::after_fork(false);
}

/// After it, in the child (rules 3 and 4; one thread, async-signal-safe
/// calls only): its thread's line start and buffer forgotten, no writer
/// thread until its first buffered line, the locks released, the buffers
/// emptied and freed, its counts at zero (in a file of its own, made at its
/// first count), and, when the trace file's path has `%p`, a trace file of
/// its own.
extern "C" fn in_child() {
    thread::after_fork_in_child();
    writer_thread::after_fork_in_child();
    file::after_fork();
    buffers::after_fork(true);
    count::after_fork_in_child();
    file::after_fork_in_child();
}

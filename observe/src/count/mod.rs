//! `RDMAVERBS_STATS`: per function, calls, bytes, errors and (for the
//! functions that may block) calls that had to wait; printed as a table on
//! stderr at exit, and published in a file for `rdmaverbs-stat`
//! ([`file`]).
//!
//! The counts are kept per thread, in the layout of `rdmaverbs-format`: a
//! thread adds to a block of its own, with a plain load and store (no
//! locked instruction, and no cache line written by two threads), and a
//! reader adds all the blocks up. A thread finds its block by its thread
//! pointer (no thread-local: in a shared library each look-up of one is a
//! call): a hash of it picks the block where it looks first; its
//! first count claims a free one (or one whose thread has exited) nearby
//! with a compare-and-swap; a thread that finds none adds to the shared
//! block, with atomic adds. A thread that gets the thread pointer an exited
//! one had takes its block over, and the counts go on adding up.
//!
//! The blocks are the mapped file when there is one, else [`AREA`], the
//! library's own memory in the same layout. A forked child starts at zero,
//! in [`AREA`], and makes its own file at its first count.

pub(crate) mod file;

use core::ffi::c_int;
use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, Ordering::Relaxed};

use rdmaverbs_abi::functions::Func;
use rdmaverbs_abi::sys::{self, KeepErrno, StaticCell, thread_exited};
use rdmaverbs_format as layout;

use self::file::FILE_BYTES;
use crate::trace::line::write_line;

/// Functions counted: the table's rows.
const N: usize = Func::COUNT;

/// The counters when no file is mapped: the layout, in the library (read
/// and written only through atomics, by the module's rules).
static AREA: StaticCell<[u64; FILE_BYTES / 8]> = StaticCell::new([0; FILE_BYTES / 8]);

/// Where the counters are: [`AREA`], or the mapped file.
static BASE: AtomicPtr<u8> = AtomicPtr::new(AREA.get().cast());

/// How many blocks a thread looks at, from its home, for one to claim.
const PROBES: usize = 8;
/// The shared block.
const SHARED: usize = layout::THREAD_BLOCKS;

/// A forked child makes its own file at its first count.
static PENDING: AtomicBool = AtomicBool::new(false);

/// Publishes the counters in a file of this process's (at load); `session`
/// as for [`file::make`]. The reason when it cannot (the counts are
/// then kept in [`AREA`]).
pub(crate) fn publish(session: u64) -> Result<(), &'static str> {
    BASE.store(file::make(session)?, Relaxed);
    Ok(())
}

/// In a forked child (one thread): its counts start at zero, in [`AREA`],
/// and, if the parent published its own, in a file of the child's, made at
/// its first count, so that a child that only execs or exits leaves no
/// file. Only memory and `munmap`.
pub(crate) fn after_fork_in_child() {
    let old = BASE.load(Relaxed);
    BASE.store(AREA.get().cast(), Relaxed);
    reset();
    if file::made() {
        file::forget();
        PENDING.store(true, Relaxed);
        // SAFETY: the parent's mapping, which the child must not write; its
        // one thread uses AREA from now on.
        unsafe { libc::munmap(old.cast(), FILE_BYTES) };
    }
}

/// A forked child's first count: its file made, if it is pending.
#[cold]
fn make_pending() {
    if PENDING.swap(false, Relaxed) {
        if let Ok(base) = file::make(file::session()) {
            BASE.store(base, Relaxed);
        }
    }
}

/// Block `i` (at most [`SHARED`]) of the counters at `base`.
#[inline(always)]
fn block_at(base: *mut u8, i: usize) -> *mut u8 {
    // SAFETY: inside the layout's FILE_BYTES bytes for the callers' `i`.
    unsafe { base.add(layout::block_offset(N, i)) }
}

/// A block's owner (0: free) and its thread's id.
fn owner(b: *mut u8) -> &'static AtomicU64 {
    // SAFETY: the first 8 bytes of a block, aligned; the memory lives as
    // long as the process (a mapping is never unmapped under a counter).
    unsafe { AtomicU64::from_ptr(b.cast()) }
}

fn tid(b: *mut u8) -> &'static AtomicU32 {
    // SAFETY: bytes 8 to 11 of a block, aligned; as in `owner`.
    unsafe { AtomicU32::from_ptr(b.add(8).cast()) }
}

/// Counter `column` of `f` in block `b`.
fn counter(b: *mut u8, f: Func, column: usize) -> &'static AtomicU64 {
    let at = layout::BLOCK_HEAD + (f as usize * layout::COLUMNS + column) * 8;
    // SAFETY: inside the block, aligned; as in `owner`.
    unsafe { AtomicU64::from_ptr(b.add(at).cast()) }
}

/// This thread's identity for its counters: its thread pointer (the x86-64 and AArch64 ABIs
/// keep it in `%fs:0` and `tpidr_el0`; glibc's `pthread_self()` elsewhere),
/// unique among live threads, never 0.
#[inline(always)]
fn thread_pointer() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        let tp: u64;
        // SAFETY: reads the first word of the thread's control block, the
        // thread pointer itself (the ABI's TLS layout).
        unsafe {
            core::arch::asm!("mov {}, fs:0", out(reg) tp, options(nostack, readonly, preserves_flags))
        };
        tp
    }
    #[cfg(target_arch = "aarch64")]
    {
        let tp: u64;
        // SAFETY: reads the thread pointer register.
        unsafe {
            core::arch::asm!("mrs {}, tpidr_el0", out(reg) tp, options(nomem, nostack, preserves_flags))
        };
        tp
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    // SAFETY: pthread_self cannot fail.
    unsafe {
        libc::pthread_self() as u64
    }
}

/// The top bits of the hash that pick one of the [`layout::THREAD_BLOCKS`]
/// (a power of two).
const HOME_SHIFT: u32 = 64 - layout::THREAD_BLOCKS.trailing_zeros();
const _: () = assert!(layout::THREAD_BLOCKS.is_power_of_two());

/// Where a thread looks first (below [`SHARED`]): thread pointers differ
/// in their middle bits (stacks are megabytes apart), which the multiply
/// (Fibonacci hashing) carries to the top.
#[inline(always)]
fn home(tp: u64) -> usize {
    (tp.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> HOME_SHIFT) as usize
}

/// The `k`-th block from the home of the thread whose pointer is `tp`.
#[inline(always)]
fn near(base: *mut u8, tp: u64, k: usize) -> *mut u8 {
    block_at(base, (home(tp) + k) % layout::THREAD_BLOCKS)
}

/// This thread's own block; `None`: it must count in the shared one. Its
/// home, or the next one (a thread whose home another has), are looked at
/// here; further ones in [`find`].
#[inline(always)]
fn own_block() -> Option<*mut u8> {
    let base = BASE.load(Relaxed);
    let tp = thread_pointer();
    let b = near(base, tp, 0);
    if owner(b).load(Relaxed) == tp {
        return Some(b);
    }
    let b = near(base, tp, 1);
    if owner(b).load(Relaxed) == tp {
        return Some(b);
    }
    find(base, tp)
}

/// A thread's first count (or one after its block was taken over): the
/// block it owns, a free one it claims, or one of an exited thread it takes
/// over, near its home; `None` when there is none.
#[cold]
#[inline(never)]
fn find(base: *mut u8, tp: u64) -> Option<*mut u8> {
    let _keep = KeepErrno::new();
    if PENDING.load(Relaxed) {
        make_pending();
        return find(BASE.load(Relaxed), tp);
    }
    let near = |k: usize| near(base, tp, k);
    let take = |b: *mut u8, from: u64| {
        let won = owner(b)
            .compare_exchange(from, tp, Relaxed, Relaxed)
            .is_ok();
        if won {
            tid(b).store(sys::gettid() as u32, Relaxed);
        }
        won
    };
    if let Some(b) = (0..PROBES)
        .map(near)
        .find(|&b| owner(b).load(Relaxed) == tp)
    {
        return Some(b);
    }
    for k in 0..PROBES {
        let b = near(k);
        if owner(b).load(Relaxed) == 0 && take(b, 0) {
            return Some(b);
        }
    }
    for k in 0..PROBES {
        let b = near(k);
        let o = owner(b).load(Relaxed);
        if thread_exited(tid(b).load(Relaxed) as c_int) && take(b, o) {
            return Some(b);
        }
    }
    None
}

/// Adds `n` to counter `column` of `f` in a thread's own block: a plain
/// load and store.
#[inline(always)]
fn add(b: *mut u8, f: Func, column: usize, n: u64) {
    let c = counter(b, f, column);
    c.store(c.load(Relaxed).wrapping_add(n), Relaxed);
}

/// As [`add`], in the shared block: an atomic add.
#[cold]
fn add_shared(f: Func, column: usize, n: u64) {
    counter(block_at(BASE.load(Relaxed), SHARED), f, column).fetch_add(n, Relaxed);
}

/// Adds one call of `f` to its counters.
#[inline]
pub(crate) fn tally(f: Func, failed: bool, bytes: u64) {
    let Some(b) = own_block() else {
        return tally_shared(f, failed, bytes);
    };
    add(b, f, layout::CALLS, 1);
    if failed {
        add(b, f, layout::ERRORS, 1);
    }
    if bytes != 0 {
        add(b, f, layout::BYTES, bytes);
    }
}

/// [`tally`] in the shared block.
#[cold]
#[inline(never)]
fn tally_shared(f: Func, failed: bool, bytes: u64) {
    add_shared(f, layout::CALLS, 1);
    if failed {
        add_shared(f, layout::ERRORS, 1);
    }
    add_shared(f, layout::BYTES, bytes);
}

/// One call of `f` counted as a record walks it: its call and error added
/// at once ([`call`]), its bytes as they are found ([`Counted::bytes`]).
#[derive(Clone, Copy)]
pub(crate) struct Counted {
    f: Func,
    /// The thread's own block; `None`: the shared one.
    block: Option<*mut u8>,
}

impl Counted {
    /// Adds `n` bytes to the call.
    #[inline(always)]
    pub(crate) fn bytes(self, n: u64) {
        if n == 0 {
            return;
        }
        match self.block {
            Some(b) => add(b, self.f, layout::BYTES, n),
            None => add_shared(self.f, layout::BYTES, n),
        }
    }
}

/// Adds one call of `f` (and an error if it `failed`) to its counters; its
/// bytes follow through the handle.
#[inline]
pub(crate) fn call(f: Func, failed: bool) -> Counted {
    let block = own_block();
    match block {
        Some(b) => {
            add(b, f, layout::CALLS, 1);
            if failed {
                add(b, f, layout::ERRORS, 1);
            }
        }
        None => {
            add_shared(f, layout::CALLS, 1);
            if failed {
                add_shared(f, layout::ERRORS, 1);
            }
        }
    }
    Counted { f, block }
}

/// Counts a call of `f` that had to wait for a completion event.
pub(crate) fn blocked(f: Func) {
    match own_block() {
        Some(b) => add(b, f, layout::BLOCKED, 1),
        None => add_shared(f, layout::BLOCKED, 1),
    }
}

/// Every counter at zero, every block free.
fn reset() {
    let base = BASE.load(Relaxed);
    for i in 0..layout::BLOCKS {
        let b = block_at(base, i);
        owner(b).store(0, Relaxed);
        for &f in Func::ALL {
            for column in 0..layout::COLUMNS {
                counter(b, f, column).store(0, Relaxed);
            }
        }
    }
}

/// The sum over all blocks of counter `column` of `f`.
fn total(f: Func, column: usize) -> u64 {
    let base = BASE.load(Relaxed);
    (0..layout::BLOCKS)
        .map(|i| counter(block_at(base, i), f, column).load(Relaxed))
        .fold(0, u64::wrapping_add)
}

/// The narrowest column of the table's names.
const NAME_COLUMN: usize = 20;

/// The counters as a table, one `write(2)` per line (async-signal-safe: a
/// signal handler prints it too); nothing when no call was made (a
/// preloaded shell prints no empty table).
pub(crate) fn print_table(fd: c_int) {
    if Func::ALL.iter().all(|&f| total(f, layout::CALLS) == 0) {
        return;
    }
    // SAFETY: getpid cannot fail.
    let pid = unsafe { libc::getpid() };
    write_line(fd, |line| {
        line.dec(b"rdmaverbs: calls of process ", pid.into());
        line.push(b" (RDMAVERBS_STATS=1):");
    });
    // The names' column: 20 wide, or as wide as the longest name shown
    // (verbs.h's go up to 35).
    let width = Func::ALL
        .iter()
        .filter(|&&f| total(f, layout::CALLS) != 0)
        .map(|f| f.name().len() + 1)
        .fold(NAME_COLUMN, usize::max);
    write_line(fd, |line| {
        line.push(b"rdmaverbs: ");
        line.left(b"function", width);
        line.push(b"        calls          bytes     errors    blocked");
    });
    for &f in Func::ALL {
        let calls = total(f, layout::CALLS);
        if calls == 0 {
            continue;
        }
        write_line(fd, |line| {
            line.push(b"rdmaverbs: ");
            line.left(f.name().as_bytes(), width);
            line.right(calls, 13);
            line.right(total(f, layout::BYTES), 15);
            line.right(total(f, layout::ERRORS), 11);
            if f.may_block() {
                line.right(total(f, layout::BLOCKED), 11);
            } else {
                line.push(b"          -");
            }
        });
    }
}

#[cfg(test)]
mod tests;

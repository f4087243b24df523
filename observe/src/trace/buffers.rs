//! Per-thread buffers for a trace file: lines are written in place, with no
//! copy, no system call and no lock, and written out in whole lines soon
//! after: by the thread itself when its buffer fills, or when it traces
//! again [`MAX_AGE_MS`] after its oldest unwritten line; by the writer
//! thread (`writer_thread.rs`, every [`writer_thread::PERIOD_MS`]) once that line is
//! [`HOLD_MS`] old, whatever the thread does next (goes quiet, blocks in
//! its own code, exits): so every line is in the file within `HOLD_MS +
//! PERIOD_MS`, and a thread that traces on writes its own lines,
//! with no other thread taking its buffer's flag under it; at exit (and
//! unload), before a fork, and on a fatal signal.
//!
//! The buffers are [`SLOTS`] regions of [`BUFFER_BYTES`] bytes, zero-initialised
//! static memory of the library (1 MiB of address space, whose pages cost
//! nothing until a thread traces; it goes away with the library when it is
//! unloaded, and is never unmapped under a thread still writing at exit).
//! A thread takes a free slot at its first line (a compare-and-swap of the
//! slot's owner to its thread id) and keeps it; when every slot is taken,
//! slots whose owner thread has exited are flushed and reused, and if none
//! is, the thread writes each line directly (one `write(2)`, as on stderr).
//!
//! Whole lines are written out by the trace's write-out (`mod.rs`: the
//! file's checked append, `file.rs`).
//!
//! Each slot has one producer, its thread, which appends at `head` and
//! publishes each whole line with a Release store. Whoever writes a slot out
//! (the writer thread, its own thread, another one at exit, fork or a
//! signal) takes the slot's `flushing` flag, writes `[tail, head)` and
//! advances `tail`; only the owner, holding the flag, moves both back to 0.
//! So a line is written once, whole, by one writer; lines of different
//! threads never interleave, and each thread's lines stay in its order.

use core::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize, Ordering};

use rdmaverbs_abi::functions::Func;
use rdmaverbs_abi::sys::{self, KeepErrno, StaticCell, monotonic, ns, thread_exited};

use super::line::{Line, MAX, room};
use super::writer_thread;
use crate::thread::{self, Thread};

/// Bytes per thread.
const BUFFER_BYTES: usize = 16 * 1024;
/// Threads with a buffer at once.
const SLOTS: usize = 64;
/// The age of its oldest unwritten line at which a thread that traces
/// writes its buffer out itself (when there is no writer thread, this keeps
/// its lines moving).
pub(crate) const MAX_AGE_MS: u64 = 100;
/// The age of a buffer's oldest unwritten line at which the writer thread
/// writes the buffer out.
pub(crate) const HOLD_MS: u64 = 25;

struct Slot {
    /// The owning thread's id; 0 when free.
    owner: AtomicI32,
    /// Bytes of whole lines appended.
    head: AtomicUsize,
    /// Bytes of them written out.
    tail: AtomicUsize,
    /// Held by whoever writes the slot out.
    flushing: AtomicBool,
    /// When its oldest unwritten line was made (`CLOCK_MONOTONIC`, ns): set
    /// by the owner when it appends to a slot with nothing pending (a later
    /// write-out that races the append leaves it older, never newer, than
    /// that line: a write-out comes sooner, never later).
    since: AtomicU64,
}

static SLOT: [Slot; SLOTS] = [const {
    Slot {
        owner: AtomicI32::new(0),
        head: AtomicUsize::new(0),
        tail: AtomicUsize::new(0),
        flushing: AtomicBool::new(false),
        since: AtomicU64::new(0),
    }
}; SLOTS];

/// The slots' bytes: each slot's are written by its owner only, beyond
/// `head`, and read by writers only below `head` (the module's protocol).
static MEMORY: StaticCell<[u8; BUFFER_BYTES * SLOTS]> = StaticCell::new([0; BUFFER_BYTES * SLOTS]);

/// Lines are buffered (a trace file is open).
static BUFFERING: AtomicBool = AtomicBool::new(false);

/// Buffers the lines from now on (when a trace file is opened).
pub(crate) fn start() {
    BUFFERING.store(true, Ordering::Release);
}

/// Writes whole lines out: the trace's write-out (a unit test's collector
/// instead, when it set one).
fn write_out(bytes: &[u8]) {
    #[cfg(test)]
    if let Some(collect) = tests::collector() {
        return collect(bytes);
    }
    super::write_out(bytes);
}

/// The bytes of slot `i`.
fn bytes(i: usize) -> *mut u8 {
    // SAFETY: inside the array (i < SLOTS).
    unsafe { MEMORY.get().cast::<u8>().add(i * BUFFER_BYTES) }
}

/// [`MAX_AGE_MS`] and [`HOLD_MS`] in nanoseconds.
const AGE_NS: u64 = MAX_AGE_MS * 1_000_000;
const HOLD_NS: u64 = HOLD_MS * 1_000_000;

/// Builds one trace line of `f` with `fill`, in place at the end of this
/// thread's buffer (no copy); on the stack, and written out at once, when
/// there is no buffer for it.
#[inline]
pub(crate) fn line(f: Func, fill: impl FnOnce(&mut Line)) {
    thread::with(|me| {
        let t = monotonic();
        let Some((i, s)) = own_slot(me).and_then(|i| Some((i, SLOT.get(i)?))) else {
            return on_stack_of(me, f, &t, fill);
        };
        let now = ns(&t);
        let mut head = s.head.load(Ordering::Relaxed);
        if own_turn(head, s.since.load(Ordering::Relaxed), now) {
            // Written out and started again from 0: room for any line.
            flush_own(s, i);
            head = 0;
        }
        if head == s.tail.load(Ordering::Relaxed) {
            s.since.store(now, Ordering::Relaxed);
        }
        // SAFETY: [head, head + MAX) is inside this thread's slot, beyond
        // what any writer reads (it reads below `head`), and only this
        // thread writes there.
        let mut line = unsafe { Line::at(bytes(i).add(head)) };
        line.begin(me, f, &t);
        fill(&mut line);
        let n = line.finish().len();
        s.head.store(head + n, Ordering::Release);
    })
}

/// Whether a thread writes its buffer out before its next line (made at
/// `now`, ns), the buffer holding `head` bytes and its oldest unwritten line
/// made at `since`: the buffer holds something, and a longest line might
/// not fit, or that line is over [`MAX_AGE_MS`] old.
fn own_turn(head: usize, since: u64, now: u64) -> bool {
    head != 0 && (BUFFER_BYTES - head < MAX || now.wrapping_sub(since) > AGE_NS)
}

/// Whether the writer thread writes a buffer out at `now`, its oldest
/// unwritten line made at `since`: that line is [`HOLD_MS`] old.
fn writer_turn(since: u64, now: u64) -> bool {
    now.wrapping_sub(since) >= HOLD_NS
}

/// A trace line made at `t`, built on the stack and written out at once
/// (standard error).
#[cold]
pub(crate) fn on_stack(f: Func, t: &libc::timespec, fill: impl FnOnce(&mut Line)) {
    thread::with(|me| on_stack_of(me, f, t, fill));
}

/// As [`on_stack`], for the thread whose state is `me` (a thread without a
/// buffer).
#[cold]
fn on_stack_of(me: &Thread, f: Func, t: &libc::timespec, fill: impl FnOnce(&mut Line)) {
    let _keep = KeepErrno::new();
    let mut room = room();
    let mut line = Line::on(&mut room);
    line.begin(me, f, t);
    fill(&mut line);
    write_out(line.finish());
}

/// The writer thread's job: every buffer whose oldest unwritten line is
/// [`HOLD_MS`] old written out, but one that another writer holds (its
/// owner, writing it out itself). A thread that traces on has younger
/// lines: its own write-outs keep them moving.
pub(crate) fn pass() {
    let now = ns(&monotonic());
    for (i, s) in SLOT.iter().enumerate() {
        if writer_turn(s.since.load(Ordering::Relaxed), now) {
            flush(s, i, false);
        }
    }
}

/// This thread's slot, taking one at its first line.
#[inline(always)]
fn own_slot(me: &Thread) -> Option<usize> {
    if !BUFFERING.load(Ordering::Relaxed) {
        return None;
    }
    match me.slot.get().checked_sub(1) {
        Some(i) => Some(i),
        None => first_slot(me),
    }
}

/// A slot for this thread's first line (and the writer thread started if
/// it is not running).
#[cold]
#[inline(never)]
fn first_slot(me: &Thread) -> Option<usize> {
    let _keep = KeepErrno::new();
    let tid = sys::gettid();
    let i = claim(tid).or_else(|| reclaim(tid))?;
    me.slot.set(i + 1);
    writer_thread::start();
    Some(i)
}

/// A free slot, now owned by the thread `tid`.
fn claim(tid: i32) -> Option<usize> {
    SLOT.iter().position(|s| {
        s.owner.load(Ordering::Relaxed) == 0
            && s.owner
                .compare_exchange(0, tid, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
    })
}

/// A slot whose owner thread has exited, written out and now owned by the
/// thread `tid`.
#[cold]
fn reclaim(tid: i32) -> Option<usize> {
    for (i, s) in SLOT.iter().enumerate() {
        let owner = s.owner.load(Ordering::Relaxed);
        if owner != 0
            && thread_exited(owner)
            && s.owner
                .compare_exchange(owner, tid, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
        {
            flush_own(s, i);
            return Some(i);
        }
    }
    None
}

/// Takes the slot's flag; `wait`: spin while another writer holds it (else
/// give up, as in a signal handler). True when taken.
fn take(s: &Slot, wait: bool) -> bool {
    spin_take(&s.flushing, || !wait)
}

/// Takes `flag` (a lock held for one write), waiting while another holds
/// it, unless `give_up()` says not to wait; true when taken. It yields the
/// CPU while it waits: the holder is in a system call, and may need the CPU
/// to finish.
pub(crate) fn spin_take(flag: &AtomicBool, give_up: impl Fn() -> bool) -> bool {
    while flag.swap(true, Ordering::Acquire) {
        if give_up() {
            return false;
        }
        // SAFETY: always safe.
        unsafe { libc::sched_yield() };
    }
    true
}

fn release(s: &Slot) {
    s.flushing.store(false, Ordering::Release);
}

/// With the flag held: writes `[tail, head)` of slot `i` out.
fn write_locked(s: &Slot, i: usize) {
    let head = s.head.load(Ordering::Acquire);
    let tail = s.tail.load(Ordering::Relaxed);
    if head != tail {
        // SAFETY: [tail, head) holds whole lines of the slot.
        let text = unsafe { core::slice::from_raw_parts(bytes(i).add(tail), head - tail) };
        write_out(text);
        s.tail.store(head, Ordering::Relaxed);
    }
}

/// The owner writes its slot out and starts it again from 0.
fn flush_own(s: &Slot, i: usize) {
    let _keep = KeepErrno::new();
    take(s, true);
    write_locked(s, i);
    s.head.store(0, Ordering::Relaxed);
    s.tail.store(0, Ordering::Relaxed);
    release(s);
}

/// Another thread writes slot `i` out (its owner may go on appending).
fn flush(s: &Slot, i: usize, wait: bool) {
    if take(s, wait) {
        write_locked(s, i);
        release(s);
    }
}

/// Writes every buffer out (at exit; by the writer thread and in a signal
/// handler, `wait` false, skipping a slot another writer holds).
pub(crate) fn flush_all(wait: bool) {
    if !BUFFERING.load(Ordering::Acquire) {
        return;
    }
    for (i, s) in SLOT.iter().enumerate() {
        flush(s, i, wait);
    }
}

/// Before a fork: every buffer written out, every flag held, so that the
/// child starts with empty, free buffers (see [`after_fork`]).
pub(crate) fn before_fork() {
    if !BUFFERING.load(Ordering::Acquire) {
        return;
    }
    for (i, s) in SLOT.iter().enumerate() {
        take(s, true);
        write_locked(s, i);
    }
}

/// After a fork: in the parent, the flags released; in the child (one
/// thread), every buffer emptied (what is in them is the parent's to write)
/// and freed, this thread's too: its next line takes a slot as a first line
/// does (`thread::after_fork_in_child` forgets its slot), which starts the
/// child's own writer thread.
pub(crate) fn after_fork(child: bool) {
    if !BUFFERING.load(Ordering::Acquire) {
        return;
    }
    for s in &SLOT {
        if child {
            s.head.store(0, Ordering::Relaxed);
            s.tail.store(0, Ordering::Relaxed);
            s.owner.store(0, Ordering::Relaxed);
        }
        release(s);
    }
}

#[cfg(test)]
mod tests;

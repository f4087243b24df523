//! Per-thread buffers for a trace file: lines are written in place, with no
//! copy, no system call and no lock, and written out in whole lines when a
//! buffer fills, when its thread is about to block in the kernel for a
//! completion event, at exit (and unload), before a fork, and on a fatal
//! signal.
//!
//! The buffers are [`SLOTS`] regions of [`SIZE`] bytes, zero-initialised
//! static memory of the library (1 MiB of address space, whose pages cost
//! nothing until a thread traces; it goes away with the library when it is
//! unloaded, and is never unmapped under a thread still writing at exit).
//! A thread takes a free slot at its first line (a compare-and-swap of the
//! slot's owner to its thread id) and keeps it; when every slot is taken,
//! slots whose owner thread has exited are flushed and reused, and if none
//! is, the thread writes each line directly (one `write(2)`, as on stderr).
//!
//! Whole lines are written out by `sink` (the writer's identity-checked
//! write), which every entry point is given.
//!
//! Each slot has one producer, its thread, which appends at `head` and
//! publishes each whole line with a Release store. Whoever writes a slot out
//! (its thread, or another one at exit, fork or a signal) takes the slot's
//! `flushing` flag, writes `[tail, head)` and advances `tail`; only the
//! owner, holding the flag, moves both back to 0. So a line is written once,
//! whole, by one writer; lines of different threads never interleave.

use core::cell::{Cell, UnsafeCell};
use core::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};

use super::line::{Line, MAX, room};
use crate::functions::Func;

/// Bytes per thread.
const SIZE: usize = 16 * 1024;
/// Threads with a buffer at once.
const SLOTS: usize = 64;

struct Slot {
    /// The owning thread's id; 0 when free.
    owner: AtomicI32,
    /// Bytes of whole lines appended.
    head: AtomicUsize,
    /// Bytes of them written out.
    tail: AtomicUsize,
    /// Held by whoever writes the slot out.
    flushing: AtomicBool,
}

static SLOT: [Slot; SLOTS] = [const {
    Slot {
        owner: AtomicI32::new(0),
        head: AtomicUsize::new(0),
        tail: AtomicUsize::new(0),
        flushing: AtomicBool::new(false),
    }
}; SLOTS];

/// The slots' bytes.
static MEMORY: Memory = Memory(UnsafeCell::new([0; SIZE * SLOTS]));
struct Memory(UnsafeCell<[u8; SIZE * SLOTS]>);
// SAFETY: each slot's bytes are written by its owner only, beyond `head`,
// and read by writers only below `head` (see the module's protocol).
unsafe impl Sync for Memory {}

/// Lines are buffered (a trace file is open).
static BUFFERING: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// This thread's slot, plus one (0: none yet). No destructor: nothing
    /// is registered or allocated when a thread first traces.
    static MINE: Cell<usize> = const { Cell::new(0) };
}

/// Buffers the lines from now on (when a trace file is opened).
pub(super) fn start() {
    BUFFERING.store(true, Ordering::Release);
}

/// The bytes of slot `i`.
fn bytes(i: usize) -> *mut u8 {
    // SAFETY: inside the array (i < SLOTS).
    unsafe { MEMORY.0.get().cast::<u8>().add(i * SIZE) }
}

/// What writes whole lines out.
pub(super) type Sink = fn(&[u8]);

/// Builds one trace line of `f` with `fill`, in place at the end of this
/// thread's buffer (no copy); on the stack, and written by `sink` at once,
/// when there is no buffer for it.
#[inline]
pub(super) fn line(f: Func, fill: impl FnOnce(&mut Line), sink: Sink) {
    let Some((i, s)) = my_slot(sink).and_then(|i| Some((i, SLOT.get(i)?))) else {
        return on_stack(f, fill, sink);
    };
    let mut head = s.head.load(Ordering::Relaxed);
    if SIZE - head < MAX {
        flush_own(s, i, sink);
        head = s.head.load(Ordering::Relaxed);
        if SIZE - head < MAX {
            return on_stack(f, fill, sink);
        }
    }
    // SAFETY: [head, head + MAX) is inside this thread's slot, beyond what
    // any flusher reads (it reads below `head`), and only this thread
    // writes there.
    let mut line = unsafe { Line::at(bytes(i).add(head)) };
    line.begin(f);
    fill(&mut line);
    let n = line.finish().len();
    s.head.store(head + n, Ordering::Release);
}

/// A trace line built on the stack and written by `sink` (standard error,
/// or a thread without a buffer).
#[cold]
pub(super) fn on_stack(f: Func, fill: impl FnOnce(&mut Line), sink: Sink) {
    let mut room = room();
    let mut line = Line::on(&mut room);
    line.begin(f);
    fill(&mut line);
    sink(line.finish());
}

/// Writes out this thread's buffer (before it blocks in the kernel).
pub(super) fn flush_mine(sink: Sink) {
    let i = MINE.get();
    if let Some(s) = i.checked_sub(1).and_then(|i| SLOT.get(i)) {
        flush_own(s, i - 1, sink);
    }
}

/// This thread's slot, taking one at its first line.
fn my_slot(sink: Sink) -> Option<usize> {
    if !BUFFERING.load(Ordering::Relaxed) {
        return None;
    }
    if let Some(i) = MINE.get().checked_sub(1) {
        return Some(i);
    }
    // SAFETY: gettid cannot fail.
    let me = unsafe { libc::gettid() };
    let i = claim(me).or_else(|| reclaim(me, sink))?;
    MINE.set(i + 1);
    Some(i)
}

/// A free slot, now owned by `me`.
fn claim(me: i32) -> Option<usize> {
    SLOT.iter().position(|s| {
        s.owner.load(Ordering::Relaxed) == 0
            && s.owner
                .compare_exchange(0, me, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
    })
}

/// A slot whose owner thread has exited, written out and now owned by `me`.
#[cold]
fn reclaim(me: i32, sink: Sink) -> Option<usize> {
    // SAFETY: getpid cannot fail.
    let pid = unsafe { libc::getpid() };
    for (i, s) in SLOT.iter().enumerate() {
        let owner = s.owner.load(Ordering::Relaxed);
        // SAFETY: signal 0 only asks whether the thread exists.
        let gone = owner != 0
            && unsafe { libc::syscall(libc::SYS_tgkill, pid, owner, 0) } != 0
            && unsafe { *libc::__errno_location() } == libc::ESRCH;
        if gone
            && s.owner
                .compare_exchange(owner, me, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
        {
            flush_own(s, i, sink);
            return Some(i);
        }
    }
    None
}

/// Takes the slot's flag; `wait`: spin while another writer holds it (else
/// give up, as in a signal handler). True when taken.
fn take(s: &Slot, wait: bool) -> bool {
    while s.flushing.swap(true, Ordering::Acquire) {
        if !wait {
            return false;
        }
        core::hint::spin_loop();
    }
    true
}

fn release(s: &Slot) {
    s.flushing.store(false, Ordering::Release);
}

/// With the flag held: writes `[tail, head)` of slot `i` out.
fn write_locked(s: &Slot, i: usize, sink: Sink) {
    let head = s.head.load(Ordering::Acquire);
    let tail = s.tail.load(Ordering::Relaxed);
    if head > tail {
        // SAFETY: [tail, head) holds whole lines of the slot.
        let text = unsafe { core::slice::from_raw_parts(bytes(i).add(tail), head - tail) };
        sink(text);
        s.tail.store(head, Ordering::Relaxed);
    }
}

/// The owner writes its slot out and starts it again from 0.
fn flush_own(s: &Slot, i: usize, sink: Sink) {
    take(s, true);
    write_locked(s, i, sink);
    s.head.store(0, Ordering::Relaxed);
    s.tail.store(0, Ordering::Relaxed);
    release(s);
}

/// Another thread writes slot `i` out (its owner may go on appending).
fn flush(s: &Slot, i: usize, wait: bool, sink: Sink) {
    if take(s, wait) {
        write_locked(s, i, sink);
        release(s);
    }
}

/// Writes every buffer out (at exit, before a fork). `wait`: false in a
/// signal handler, which skips a slot another writer holds.
pub(super) fn flush_all(wait: bool, sink: Sink) {
    if !BUFFERING.load(Ordering::Acquire) {
        return;
    }
    for (i, s) in SLOT.iter().enumerate() {
        if s.owner.load(Ordering::Relaxed) != 0 {
            flush(s, i, wait, sink);
        }
    }
}

/// Before a fork: every buffer written out, every flag held, so that the
/// child starts with empty, free buffers (see [`after_fork`]).
pub(super) fn before_fork(sink: Sink) {
    if !BUFFERING.load(Ordering::Acquire) {
        return;
    }
    for (i, s) in SLOT.iter().enumerate() {
        take(s, true);
        write_locked(s, i, sink);
    }
}

/// After a fork: in the parent, the flags released; in the child (one
/// thread), every buffer emptied (what is in them is the parent's to write)
/// and freed, but this thread's, which is now owned by its new id.
pub(super) fn after_fork(child: bool) {
    if !BUFFERING.load(Ordering::Acquire) {
        return;
    }
    let mine = MINE.get().checked_sub(1);
    for (i, s) in SLOT.iter().enumerate() {
        if child {
            s.head.store(0, Ordering::Relaxed);
            s.tail.store(0, Ordering::Relaxed);
            // SAFETY: gettid cannot fail.
            let owner = if Some(i) == mine {
                unsafe { libc::gettid() }
            } else {
                0
            };
            s.owner.store(owner, Ordering::Relaxed);
        }
        release(s);
    }
}

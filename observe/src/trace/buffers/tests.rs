//! The buffers' protocol under contention: a thread traces (four, one after
//! the other, each with a buffer of its own) while another
//! writes every buffer out as fast as it can (and the writer thread does
//! every 50 ms); each line reaches the sink once, whole, in its order.

use super::*;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool as Flag;

static OUT: Mutex<Vec<u8>> = Mutex::new(Vec::new());
/// One test of the slots at a time: they are the process's.
static ONE: Mutex<()> = Mutex::new(());

fn collect(bytes: &[u8]) {
    OUT.lock().unwrap().extend_from_slice(bytes);
}

/// The tests write out into [`OUT`] (once one has started collecting).
static COLLECTING: Flag = Flag::new(false);

/// Where the buffers' write-out goes in a test.
pub(super) fn collector() -> Option<fn(&[u8])> {
    COLLECTING
        .load(Ordering::Relaxed)
        .then_some(collect as fn(&[u8]))
}

/// Buffers the lines, written out into [`OUT`].
fn start_collecting() {
    COLLECTING.store(true, Ordering::Relaxed);
    start();
}

#[test]
fn every_line_once_whole_in_order_under_write_outs() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    const N: i64 = 200_000;
    const ROUNDS: i64 = 4;
    static DONE: Flag = Flag::new(false);
    start_collecting();
    let other = std::thread::spawn(|| {
        while !DONE.load(Ordering::Relaxed) {
            flush_all(false);
            flush_all(true);
        }
    });
    for round in 0..ROUNDS {
        std::thread::spawn(move || {
            for i in round * N..(round + 1) * N {
                line(Func::SetErrno, |l| l.dec(b" n=", i));
            }
        })
        .join()
        .unwrap();
    }
    DONE.store(true, Ordering::Relaxed);
    other.join().unwrap();
    flush_all(true);
    let out = OUT.lock().unwrap();
    // Each thread's lines in its order (threads' lines may interleave).
    let mut next: Vec<i64> = (0..ROUNDS).map(|r| r * N).collect();
    for l in out.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let text = core::str::from_utf8(l).expect("a whole line");
        assert!(text.starts_with("rdmaverbs["), "a torn line: {text:?}");
        let n: i64 = text
            .rsplit(" n=")
            .next()
            .and_then(|v| v.parse().ok())
            .expect(text);
        let r = (n / N) as usize;
        assert_eq!(
            n, next[r],
            "a line missing, doubled or out of order: {text:?}"
        );
        next[r] += 1;
    }
    assert_eq!(next, (1..=ROUNDS).map(|r| r * N).collect::<Vec<_>>());
}

#[test]
fn whose_turn_to_write_out() {
    let t = 5_000_000_000;
    // The owner: nothing in the buffer, nothing to write, however old.
    assert!(!own_turn(0, 0, u64::MAX));
    // Room for exactly a longest line: not yet; a byte less: now.
    assert!(!own_turn(BUFFER_BYTES - MAX, t, t));
    assert!(own_turn(BUFFER_BYTES - MAX + 1, t, t));
    // The oldest line exactly MAX_AGE_MS old: not yet; a nanosecond more: now.
    assert!(!own_turn(1, t, t + AGE_NS));
    assert!(own_turn(1, t, t + AGE_NS + 1));
    // The writer thread: from HOLD_MS on, not a nanosecond before.
    assert!(!writer_turn(t, t + HOLD_NS - 1));
    assert!(writer_turn(t, t + HOLD_NS));
    assert!(!writer_turn(t, t));
}

#[test]
fn a_live_threads_slot_is_not_taken_over() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    start_collecting();
    let saved: Vec<i32> = SLOT
        .iter()
        .map(|s| s.owner.load(Ordering::Relaxed))
        .collect();
    // Every slot owned by a thread that is alive (this one), and errno
    // ESRCH, as an earlier call may leave it: none is taken.
    let alive = unsafe { libc::gettid() };
    for s in &SLOT {
        s.owner.store(alive, Ordering::Relaxed);
    }
    rdmaverbs_abi::sys::set_errno(libc::ESRCH);
    assert_eq!(reclaim(alive + 1), None, "a live thread's slot taken");
    assert!(
        SLOT.iter()
            .all(|s| s.owner.load(Ordering::Relaxed) == alive)
    );
    // One of them exited (no thread of that id): its slot is taken over.
    let s = &SLOT[5];
    assert!(take(s, true));
    let (head, tail) = (
        s.head.load(Ordering::Relaxed),
        s.tail.load(Ordering::Relaxed),
    );
    release(s);
    assert_eq!(head, tail, "slot 5 holds nothing pending");
    s.owner.store(0x3fff_ffff, Ordering::Relaxed);
    assert_eq!(reclaim(alive + 1), Some(5));
    assert_eq!(s.owner.load(Ordering::Relaxed), alive + 1);
    for (s, &o) in SLOT.iter().zip(&saved) {
        s.owner.store(o, Ordering::Relaxed);
    }
}

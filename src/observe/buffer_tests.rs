//! The buffers' protocol under contention: a thread traces (four, one after
//! the other, each with a buffer of its own) while another
//! writes every buffer out as fast as it can (and the writer thread does
//! every 50 ms); each line reaches the sink once, whole, in its order.

use super::*;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool as Flag;

static OUT: Mutex<Vec<u8>> = Mutex::new(Vec::new());

fn collect(bytes: &[u8]) {
    OUT.lock().unwrap().extend_from_slice(bytes);
}

#[test]
fn every_line_once_whole_in_order_under_write_outs() {
    const N: i64 = 200_000;
    const ROUNDS: i64 = 4;
    static DONE: Flag = Flag::new(false);
    start(collect);
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
    assert!(!own_turn(SIZE - MAX, t, t));
    assert!(own_turn(SIZE - MAX + 1, t, t));
    // The oldest line exactly MAX_AGE_MS old: not yet; a nanosecond more: now.
    assert!(!own_turn(1, t, t + AGE_NS));
    assert!(own_turn(1, t, t + AGE_NS + 1));
    // The writer thread: from HOLD_MS on, not a nanosecond before.
    assert!(!writer_turn(t, t + HOLD_NS - 1));
    assert!(writer_turn(t, t + HOLD_NS));
    assert!(!writer_turn(t, t));
}

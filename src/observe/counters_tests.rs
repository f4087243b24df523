//! The counters' blocks, from threads of this test process (the library's
//! own memory, AREA: nothing is published here).

use std::sync::{Barrier, Mutex};

use super::*;

/// One test at a time: the counters are the process's.
static ONE: Mutex<()> = Mutex::new(());

/// `threads` threads alive at once, each counting `calls` calls of `f`
/// (every third failed, each of 7 bytes) and one blocked wait; what each
/// saw of itself: (thread pointer, thread id, its block if it had one).
fn count_in(threads: usize, calls: u64, f: Func) -> Vec<(u64, u32, Option<usize>)> {
    let all = Barrier::new(threads);
    std::thread::scope(|s| {
        let all = &all;
        let hs: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(move || {
                    for k in 0..calls {
                        tally(f, k % 3 == 0, 7);
                    }
                    blocked(f);
                    let base = BASE.load(Relaxed);
                    let mine =
                        (0..SHARED).find(|&i| owner(block_at(base, i)).load(Relaxed) == me());
                    let who = (me(), unsafe { libc::gettid() } as u32, mine);
                    all.wait(); // every thread alive until all have counted
                    who
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

fn shared(f: Func, column: usize) -> u64 {
    counter(block_at(BASE.load(Relaxed), SHARED), f, column).load(Relaxed)
}

#[test]
fn each_thread_counts_in_a_block_of_its_own() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    reset();
    let f = Func::ALL[0];
    let who = count_in(12, 30, f);
    let base = BASE.load(Relaxed);
    for &(me, tid, mine) in &who {
        let b = block_at(base, mine.expect("a thread without a block of its own"));
        assert_eq!(self::tid(b).load(Relaxed), tid);
        assert_eq!(owner(b).load(Relaxed), me);
        assert_eq!(counter(b, f, layout::CALLS).load(Relaxed), 30);
        assert_eq!(counter(b, f, layout::ERRORS).load(Relaxed), 10);
        assert_eq!(counter(b, f, layout::BYTES).load(Relaxed), 210);
        assert_eq!(counter(b, f, layout::BLOCKED).load(Relaxed), 1);
    }
    // (12 threads of 64 blocks, 8 looked at from each home: the shared
    // block is for when those are all taken.)
    assert_eq!(shared(f, layout::CALLS), 0);
    assert_eq!(total(f, layout::CALLS), 12 * 30);
    reset();
    assert_eq!(total(f, layout::CALLS), 0);
    assert!((0..layout::BLOCKS).all(|i| owner(block_at(base, i)).load(Relaxed) == 0));
}

#[test]
fn more_threads_than_blocks_lose_no_count() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    reset();
    let f = Func::ALL[1];
    let who = count_in(80, 30, f);
    // At least 16 of them in the shared block; every count somewhere.
    assert!(who.iter().filter(|w| w.2.is_none()).count() >= 16);
    assert!(shared(f, layout::CALLS) >= 16 * 30);
    assert_eq!(total(f, layout::CALLS), 80 * 30);
    assert_eq!(total(f, layout::ERRORS), 80 * 10);
    assert_eq!(total(f, layout::BYTES), 80 * 210);
    assert_eq!(total(f, layout::BLOCKED), 80);
    // Those threads have exited: new ones take their blocks over, and the
    // counts go on adding up.
    let who = count_in(16, 30, f);
    assert!(
        who.iter().all(|w| w.2.is_some()),
        "exited threads' blocks not taken over"
    );
    assert_eq!(total(f, layout::CALLS), 96 * 30);
    reset();
}

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
                    let mine = (0..SHARED)
                        .find(|&i| owner(block_at(base, i)).load(Relaxed) == thread_pointer());
                    let who = (thread_pointer(), unsafe { libc::gettid() } as u32, mine);
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

#[test]
fn homes_spread_and_each_thread_tries_distinct_blocks() {
    let base = BASE.load(Relaxed);
    let index = |b: *mut u8| (0..SHARED).find(|&i| block_at(base, i) == b);
    // Thread pointers as glibc places them: stacks of 8 MiB and a guard page.
    let tps: Vec<u64> = (0..64).map(|i| 0x7f12_3400_0000 + i * 0x80_1000).collect();
    assert!(
        tps.iter().all(|&tp| home(tp) < layout::THREAD_BLOCKS),
        "a home is a block"
    );
    let mut homes: Vec<usize> = tps
        .iter()
        .map(|&tp| index(near(base, tp, 0)).unwrap())
        .collect();
    homes.sort_unstable();
    homes.dedup();
    assert!(homes.len() >= 32, "64 threads in {} homes", homes.len());
    for &tp in &tps {
        let mut tried: Vec<usize> = (0..PROBES)
            .map(|k| index(near(base, tp, k)).unwrap())
            .collect();
        tried.sort_unstable();
        tried.dedup();
        assert_eq!(
            tried.len(),
            PROBES,
            "a thread tries {PROBES} distinct blocks"
        );
    }
}

#[test]
fn a_live_threads_block_is_not_taken_over() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    reset();
    let base = BASE.load(Relaxed);
    let me = 0x7f55_5500_0000;
    // Every block near its home owned by another thread, which is alive
    // (this one's id), and errno ESRCH, as an earlier call may leave it.
    let alive = unsafe { libc::gettid() } as u32;
    for k in 0..PROBES {
        let b = near(base, me, k);
        owner(b).store(0x1000 + k as u64, Relaxed);
        tid(b).store(alive, Relaxed);
    }
    rdmaverbs_abi::sys::set_errno(libc::ESRCH);
    assert_eq!(find(base, me), None, "a live thread's block taken");
    // One of them exited (no thread of that id): its block is taken over.
    let b = near(base, me, 3);
    tid(b).store(0x3fff_ffff, Relaxed);
    assert_eq!(find(base, me), Some(b));
    assert_eq!(owner(b).load(Relaxed), me);
    reset();
}

//! The registry as its users rely on it: every key found with its own value
//! however many share a home, replaced in place, gone once removed, the
//! table at most half full and spread (short probes), writers held off
//! between `before_fork` and the parent's after.

use super::*;
use core::sync::atomic::Ordering;

/// Addresses as the objects have them: 64-byte aligned, one after another.
fn key(i: usize) -> *const () {
    (0x5555_0000_0000 + i * 64) as *const ()
}

/// Slots holding a live entry, and the table's length.
fn fill(r: &Registry<u64>) -> (usize, usize) {
    // SAFETY: a published table (tests are single-threaded here).
    let t = unsafe { &*r.table.load(Ordering::Acquire) };
    (
        t.slots()
            .iter()
            .filter(|s| s.key.load(Ordering::Relaxed) > REMOVED)
            .count(),
        t.len,
    )
}

#[test]
fn every_key_its_own_value_through_growth() {
    let r = Registry::<u64>::new();
    assert_eq!(r.get(key(1)), None);
    for i in 0..1000 {
        assert!(r.insert(key(i), i as u64 * 3), "insert {i}");
        let (live, len) = fill(&r);
        assert_eq!(live, i + 1);
        assert!(
            2 * live <= len,
            "{live} entries in {len} slots: over half full"
        );
        assert!(len.is_power_of_two());
    }
    for i in 0..1000 {
        assert_eq!(r.get(key(i)), Some(i as u64 * 3), "key {i}");
    }
    assert_eq!(r.get(key(1000)), None);
}

#[test]
fn replaced_in_place_and_removed() {
    let r = Registry::<u64>::new();
    for i in 0..40 {
        assert!(r.insert(key(i), i as u64));
    }
    assert!(r.insert(key(7), 700));
    assert_eq!(r.get(key(7)), Some(700));
    assert_eq!(fill(&r).0, 40, "a replaced key takes no second slot");
    for i in (0..40).step_by(2) {
        assert_eq!(r.remove(key(i)), Some(if i == 7 { 700 } else { i as u64 }));
        assert_eq!(r.get(key(i)), None, "removed {i}");
        assert_eq!(r.remove(key(i)), None);
    }
    for i in (1..40).step_by(2) {
        let want = if i == 7 { 700 } else { i as u64 };
        assert_eq!(r.get(key(i)), Some(want), "kept {i}, past the tombstones");
    }
    // Tombstones are reused, and left behind when the table grows.
    for i in 100..400 {
        assert!(r.insert(key(i), i as u64));
    }
    let (live, len) = fill(&r);
    assert_eq!(live, 320);
    // SAFETY: as in fill.
    let used = unsafe { &*r.table.load(Ordering::Acquire) }.used;
    assert!(
        used >= live && 2 * used <= len,
        "used {used}, live {live}, len {len}"
    );
    for i in 100..400 {
        assert_eq!(r.get(key(i)), Some(i as u64));
    }
}

#[test]
fn homes_spread() {
    let mut seen = [false; 2048];
    for i in 0..1024 {
        seen[home(key(i) as usize, 2048)] = true;
    }
    let homes = seen.iter().filter(|&&s| s).count();
    assert!(homes >= 512, "1024 keys on {homes} homes of 2048");
}

#[test]
fn a_writer_waits_out_a_fork() {
    static R: Registry<u64> = Registry::new();
    R.before_fork();
    let t = std::thread::spawn(|| R.insert(key(5), 5));
    std::thread::sleep(std::time::Duration::from_millis(100));
    assert_eq!(
        R.get(key(5)),
        None,
        "inserted while the lock was held for a fork"
    );
    R.after_fork_in_parent();
    assert!(t.join().unwrap());
    assert_eq!(R.get(key(5)), Some(5));
}

/// The slot of `k` in the published table.
fn slot_of(r: &Registry<u64>, k: *const ()) -> Option<usize> {
    // SAFETY: as in fill.
    let t = unsafe { &*r.table.load(Ordering::Acquire) };
    t.slots()
        .iter()
        .position(|s| s.key.load(Ordering::Relaxed) == k as usize)
}

/// `n` keys whose home is the same in a table of `len` slots.
fn same_home(n: usize, len: usize) -> Vec<*const ()> {
    let h = home(key(0) as usize, len);
    (0..)
        .map(key)
        .filter(|&k| home(k as usize, len) == h)
        .take(n)
        .collect()
}

#[test]
fn a_new_key_takes_the_first_tombstone_on_its_probe() {
    let r = Registry::<u64>::new();
    let k = same_home(3, FIRST);
    assert!(r.insert(k[0], 0) && r.insert(k[1], 1));
    let (first, second) = (slot_of(&r, k[0]).unwrap(), slot_of(&r, k[1]).unwrap());
    assert_eq!(r.remove(k[0]), Some(0));
    assert_eq!(r.remove(k[1]), Some(1));
    // SAFETY: as in fill.
    let used = |r: &Registry<u64>| unsafe { &*r.table.load(Ordering::Acquire) }.used;
    let before = used(&r);
    assert!(r.insert(k[2], 2));
    assert_eq!(
        slot_of(&r, k[2]),
        Some(first),
        "not the second tombstone, {second}"
    );
    assert_eq!(used(&r), before, "a tombstone reused, no empty slot taken");
    assert_eq!(r.get(k[2]), Some(2));
}

#[test]
fn growth_drops_the_tombstones() {
    let r = Registry::<u64>::new();
    assert!(r.insert(key(0), 0));
    let (mut live, mut next, mut grown) = (1, 1, 0);
    // Insert two, remove one, until the table has grown three times.
    while grown < 3 {
        let len = fill(&r).1;
        for _ in 0..2 {
            assert!(r.insert(key(next), next as u64));
            next += 1;
            live += 1;
            if fill(&r).1 != len {
                grown += 1;
                // SAFETY: as in fill.
                let used = unsafe { &*r.table.load(Ordering::Acquire) }.used;
                assert_eq!(used, live, "right after growing: the live entries only");
            }
        }
        assert!(r.remove(key(next - 2)).is_some());
        live -= 1;
    }
}

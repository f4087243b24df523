//! A table from an object's address (a device context, a QP, a CQ) to what
//! the preload library saved of it: written on the set-up paths (open,
//! create, close, destroy) under a lock, read on the data path without one.
//!
//! Open addressing with linear probing, at most half full; a removed entry
//! leaves a tombstone, so that probing continues past it. The table grows by
//! doubling: the new one is published with one atomic store, and the old one
//! is never freed (a reader may still be probing it), which costs at most as
//! much again as the live table. There is no fixed limit: a set-up path may
//! allocate, the data path never does. Memory comes from `calloc(3)`, which
//! has no panic path; when it fails, the object is simply not wrapped.
//!
//! The lock is a pthread mutex that a forked child cannot inherit held: the
//! preload library's fork handlers take every registry's lock before the
//! fork and release it on both sides (`before_fork` and the two after).

use core::cell::UnsafeCell;
use core::mem::{MaybeUninit, size_of};
use core::ptr::null_mut;
use core::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

/// A slot's key when it never held one.
const EMPTY: usize = 0;
/// A slot's key after its entry was removed (real keys are addresses > 1).
const REMOVED: usize = 1;
/// The first table's size.
const FIRST: usize = 16;

struct Slot<V> {
    key: AtomicUsize,
    value: UnsafeCell<MaybeUninit<V>>,
}

/// A table of `len` (a power of two) slots, right after its header.
#[repr(C)]
struct Table<V> {
    len: usize,
    /// Entries and tombstones (under the lock).
    used: usize,
    slots: [Slot<V>; 0],
}

impl<V> Table<V> {
    fn slots(&self) -> &[Slot<V>] {
        // SAFETY: the table was allocated with `len` slots after the header.
        unsafe { core::slice::from_raw_parts(self.slots.as_ptr(), self.len) }
    }

    /// A zeroed table of `len` slots (every key EMPTY); NULL when out of memory.
    fn new(len: usize) -> *mut Table<V> {
        let bytes = size_of::<Table<V>>() + len * size_of::<Slot<V>>();
        // SAFETY: calloc returns zeroed memory or NULL; zero is EMPTY.
        let t = unsafe { libc::calloc(1, bytes) }.cast::<Table<V>>();
        if !t.is_null() {
            // SAFETY: a fresh allocation of the header's size at least.
            unsafe { (*t).len = len };
        }
        t
    }
}

/// Where `key` starts probing in a table of `len` slots.
fn home(key: usize, len: usize) -> usize {
    ((key as u64 >> 4).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as usize & (len - 1)
}

/// The table; `V` is what is saved per object.
pub(super) struct Registry<V: Copy> {
    table: AtomicPtr<Table<V>>,
    lock: UnsafeCell<libc::pthread_mutex_t>,
}

// SAFETY: entries are written under `lock` and published with Release
// stores of their keys; readers load keys with Acquire (see `get`).
unsafe impl<V: Copy> Sync for Registry<V> {}

impl<V: Copy> Registry<V> {
    pub(super) const fn new() -> Self {
        Registry {
            table: AtomicPtr::new(null_mut()),
            lock: UnsafeCell::new(libc::PTHREAD_MUTEX_INITIALIZER),
        }
    }

    /// What was saved for `key`; lock-free.
    #[inline]
    pub(super) fn get(&self, key: *const ()) -> Option<V> {
        let key = key as usize;
        let t = self.table.load(Ordering::Acquire);
        if t.is_null() {
            return None;
        }
        // SAFETY: published tables are never freed.
        let slots = unsafe { &*t }.slots();
        let mask = slots.len() - 1;
        let mut i = home(key, slots.len());
        for _ in 0..slots.len() {
            let slot = slots.get(i)?;
            match slot.key.load(Ordering::Acquire) {
                k if k == key => {
                    // SAFETY: the value was written before its key was
                    // published (Release in `insert`).
                    return Some(unsafe { (*slot.value.get()).assume_init() });
                }
                EMPTY => return None,
                _ => i = (i + 1) & mask,
            }
        }
        None
    }

    /// Saves `value` for `key` (replacing what was saved); false when out of
    /// memory.
    pub(super) fn insert(&self, key: *const (), value: V) -> bool {
        self.locked(|| {
            let key = key as usize;
            let Some(t) = self.room() else {
                return false;
            };
            // SAFETY: `t` is the live table; we hold the lock.
            let table = unsafe { &mut *t };
            let Some((slot, fresh)) = Self::find_or_free(table, key) else {
                return false;
            };
            // SAFETY: under the lock no one else writes; a reader reads a
            // value only after seeing its key, published below.
            unsafe { (*slot.value.get()).write(value) };
            slot.key.store(key, Ordering::Release);
            table.used += usize::from(fresh);
            true
        })
    }

    /// Removes `key`'s entry; what was saved for it.
    pub(super) fn remove(&self, key: *const ()) -> Option<V> {
        self.locked(|| {
            let v = self.get(key)?;
            let t = self.table.load(Ordering::Relaxed);
            // SAFETY: non-NULL (`get` found the key); we hold the lock.
            let slots = unsafe { &*t }.slots();
            let slot = slots
                .iter()
                .find(|s| s.key.load(Ordering::Relaxed) == key as usize)?;
            slot.key.store(REMOVED, Ordering::Release);
            Some(v)
        })
    }

    /// The slot of `key`, or the first free one (EMPTY or REMOVED) on its
    /// probe; whether it is a new slot (EMPTY). The table has room, so one
    /// is found.
    fn find_or_free(table: &Table<V>, key: usize) -> Option<(&Slot<V>, bool)> {
        let slots = table.slots();
        let mask = slots.len() - 1;
        let mut i = home(key, slots.len());
        let mut free = None;
        for _ in 0..slots.len() {
            let s = slots.get(i)?;
            match s.key.load(Ordering::Relaxed) {
                k if k == key => return Some((s, false)),
                EMPTY => return Some(free.map_or((s, true), |f| (f, false))),
                REMOVED if free.is_none() => free = Some(s),
                _ => {}
            }
            i = (i + 1) & mask;
        }
        free.map(|f| (f, false))
    }

    /// The live table, grown (or made) so that it stays at most half full
    /// after one more entry; None when out of memory. Under the lock.
    fn room(&self) -> Option<*mut Table<V>> {
        let old = self.table.load(Ordering::Relaxed);
        // SAFETY: a published table, or NULL.
        // Twice the old length: `used` (entries and tombstones) is then at
        // most a quarter of it, tombstones dropped.
        let len = match unsafe { old.as_ref() } {
            Some(t) if 2 * (t.used + 1) <= t.len => return Some(old),
            Some(t) => t.len * 2,
            None => FIRST,
        };
        let new = Table::<V>::new(len);
        // SAFETY: a fresh zeroed table, or NULL.
        let table = unsafe { new.as_mut() }?;
        // SAFETY: the old table is live; we hold the lock.
        for s in unsafe { old.as_ref() }.map_or(&[][..], Table::slots) {
            let key = s.key.load(Ordering::Relaxed);
            if key > REMOVED {
                let (d, _) = Self::find_or_free(table, key)?;
                // SAFETY: the old slot's value was written before its key.
                unsafe { (*d.value.get()).write((*s.value.get()).assume_init()) };
                d.key.store(key, Ordering::Relaxed);
                table.used += 1;
            }
        }
        // Published whole: a reader sees either table, both consistent.
        self.table.store(new, Ordering::Release);
        Some(new)
    }

    /// Runs `f` with the lock held.
    fn locked<R>(&self, f: impl FnOnce() -> R) -> R {
        // SAFETY: a statically initialised mutex.
        unsafe { libc::pthread_mutex_lock(self.lock.get()) };
        let r = f();
        // SAFETY: locked above, by this thread.
        unsafe { libc::pthread_mutex_unlock(self.lock.get()) };
        r
    }

    /// Before a fork: takes the lock, so that no other thread holds it
    /// while the process is copied.
    pub(super) fn before_fork(&self) {
        // SAFETY: a statically initialised mutex.
        unsafe { libc::pthread_mutex_lock(self.lock.get()) };
    }

    /// After a fork, in the parent: releases the lock taken before it.
    pub(super) fn after_fork_in_parent(&self) {
        // SAFETY: locked by this thread in `before_fork`.
        unsafe { libc::pthread_mutex_unlock(self.lock.get()) };
    }

    /// After a fork, in the child (one thread): a fresh, unlocked lock.
    pub(super) fn after_fork_in_child(&self) {
        // SAFETY: no other thread exists in the child to hold it.
        unsafe { libc::pthread_mutex_init(self.lock.get(), core::ptr::null()) };
    }
}

#[cfg(test)]
mod tests;

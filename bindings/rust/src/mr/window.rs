//! [`Window`]: registered memory the peer may read, write or update,
//! reached here only by copies and atomics; [`RemoteAddr`], the peer's.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::mr::MrInner;
/// A peer's memory, as its keys message names it: address and `rkey`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RemoteAddr {
    pub addr: u64,
    pub rkey: u32,
}

impl RemoteAddr {
    /// `offset` bytes further on.
    pub fn offset(self, offset: u64) -> RemoteAddr {
        RemoteAddr {
            addr: self.addr + offset,
            rkey: self.rkey,
        }
    }
}

/// Registered memory the peer reaches by its key: RDMA reads and writes,
/// atomics. The peer may change it at any time, so the program never holds
/// a reference into it: it copies bytes in and out ([`read`](Self::read),
/// [`write`](Self::write), volatile) and reads and writes 8-byte words
/// atomically ([`load_u64`](Self::load_u64), [`store_u64`](Self::store_u64):
/// an atomic of the peer's is one too). Cloning it shares the memory; it is
/// deregistered and freed when the last clone goes.
#[derive(Clone)]
pub struct Window {
    mr: Arc<MrInner>,
}

impl Window {
    pub(crate) fn new(mr: Arc<MrInner>) -> Window {
        Window { mr }
    }

    /// Its address, as the peer names it (`remote_addr`).
    pub fn addr(&self) -> u64 {
        self.mr.mem.as_ptr() as u64
    }

    /// The key the peer names it by.
    pub fn rkey(&self) -> u32 {
        self.mr.rkey
    }

    /// Its size in bytes.
    pub fn len(&self) -> usize {
        self.mr.len
    }

    /// Whether it is empty (never: a Window has at least one byte).
    pub fn is_empty(&self) -> bool {
        self.mr.len == 0
    }

    /// What to send the peer: address and key.
    pub fn remote(&self) -> RemoteAddr {
        RemoteAddr {
            addr: self.addr(),
            rkey: self.rkey(),
        }
    }

    fn word(&self, offset: usize) -> &AtomicU64 {
        assert!(
            offset % 8 == 0 && offset + 8 <= self.len(),
            "word at {offset}: not an aligned word of the {} bytes",
            self.len()
        );
        // SAFETY: 8-byte aligned (page-aligned memory, offset a multiple of
        // 8), within the memory, alive as long as &self; every access of
        // the program's is atomic.
        unsafe { AtomicU64::from_ptr(self.mr.mem.as_ptr().add(offset).cast()) }
    }

    /// The 8-byte word at `offset` (a multiple of 8), in host order.
    ///
    /// # Panics
    /// If `offset` is not a multiple of 8 within it.
    pub fn load_u64(&self, offset: usize) -> u64 {
        self.word(offset).load(Ordering::SeqCst)
    }

    /// Sets the 8-byte word at `offset` (a multiple of 8).
    ///
    /// # Panics
    /// As [`load_u64`](Self::load_u64).
    pub fn store_u64(&self, offset: usize, value: u64) {
        self.word(offset).store(value, Ordering::SeqCst)
    }

    fn range(&self, offset: usize, n: usize) -> *mut u8 {
        assert!(
            offset.checked_add(n).is_some_and(|end| end <= self.len()),
            "bytes {offset}..+{n} beyond the {} of the window",
            self.len()
        );
        // SAFETY: within the memory (checked).
        unsafe { self.mr.mem.as_ptr().add(offset) }
    }

    /// Copies bytes out, from `offset` (volatile reads: the peer may be
    /// writing them).
    ///
    /// # Panics
    /// If the range is beyond its end.
    pub fn read(&self, offset: usize, out: &mut [u8]) {
        let p = self.range(offset, out.len());
        for (i, b) in out.iter_mut().enumerate() {
            // SAFETY: within the memory (range checked).
            *b = unsafe { p.add(i).read_volatile() };
        }
    }

    /// Copies bytes in, at `offset` (volatile writes).
    ///
    /// # Panics
    /// If the range is beyond its end.
    pub fn write(&self, offset: usize, bytes: &[u8]) {
        let p = self.range(offset, bytes.len());
        for (i, b) in bytes.iter().enumerate() {
            // SAFETY: within the memory (range checked).
            unsafe { p.add(i).write_volatile(*b) };
        }
    }
}

impl fmt::Debug for Window {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Window")
            .field("addr", &format_args!("{:#x}", self.addr()))
            .field("len", &self.len())
            .field("rkey", &format_args!("{:#x}", self.rkey()))
            .finish()
    }
}

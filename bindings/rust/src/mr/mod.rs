//! Registered memory: the MR ([`Access`]) and [`Buf`] (local, owned, moved
//! into a post and handed back with its completion).

pub(crate) mod window;

use std::alloc::Layout;
use std::ffi::c_void;
use std::fmt;
use std::ops::{BitOr, Deref, DerefMut};
use std::ptr::NonNull;
use std::sync::Arc;

use rdmaverbs_sys as raw;

use crate::pd::PdInner;

/// What an MR lets the card do, beside the local reads every MR allows
/// (`IBV_ACCESS_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Access(u32);

impl Access {
    /// Nothing more than local reads (the memory of sends).
    pub const NONE: Access = Access(0);
    /// The card writes it: receives, the results of reads and atomics.
    pub const LOCAL_WRITE: Access = Access(raw::IBV_ACCESS_LOCAL_WRITE as u32);
    /// The peer writes it (`IBV_WR_RDMA_WRITE`).
    pub const REMOTE_WRITE: Access = Access(raw::IBV_ACCESS_REMOTE_WRITE as u32);
    /// The peer reads it (`IBV_WR_RDMA_READ`).
    pub const REMOTE_READ: Access = Access(raw::IBV_ACCESS_REMOTE_READ as u32);
    /// The peer's atomics update it (8-byte words).
    pub const REMOTE_ATOMIC: Access = Access(raw::IBV_ACCESS_REMOTE_ATOMIC as u32);

    /// The `IBV_ACCESS_*` bits.
    pub fn bits(self) -> u32 {
        self.0
    }

    /// Whether every bit of `other` is set.
    pub fn contains(self, other: Access) -> bool {
        self.0 & other.0 == other.0
    }
}

impl BitOr for Access {
    type Output = Access;
    fn bitor(self, other: Access) -> Access {
        Access(self.0 | other.0)
    }
}

/// Where the card frees the memory it was given (after deregistration).
enum Memory {
    /// Allocated here, with this layout.
    Ours(Layout),
    /// A `Box<[u8]>` handed over (`Buf::from_raw`).
    Boxed,
}

/// An MR and the memory it registers: deregistered, then freed, when the
/// last [`Buf`] or [`Window`] of it goes (a posted one is held by its queue
/// until its completion is reaped, or the queue is destroyed).
pub(crate) struct MrInner {
    mr: *mut c_void,
    lkey: u32,
    pub(crate) rkey: u32,
    pub(crate) mem: NonNull<u8>,
    pub(crate) len: usize,
    memory: Memory,
    _pd: Option<Arc<PdInner>>,
}

// SAFETY: the MR and the memory are the process's; libibverbs' MR calls are
// thread-safe; the bytes are reached through a Buf's exclusive range or a
// Window's atomic and volatile copies.
unsafe impl Send for MrInner {}
// SAFETY: as Send.
unsafe impl Sync for MrInner {}

impl MrInner {
    /// Allocates `len` zeroed bytes (page-aligned) and registers them on pd.
    pub(crate) fn new(
        pd: &Arc<PdInner>,
        len: usize,
        access: Access,
    ) -> std::io::Result<Arc<MrInner>> {
        if len == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "a buffer of 0 bytes",
            ));
        }
        let layout = Layout::from_size_align(len, 4096)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
        // SAFETY: a layout of a non-zero size.
        let mem = NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) })
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::OutOfMemory))?;
        let addr = mem.as_ptr().cast::<c_void>();
        // SAFETY: pd is alive (held by the Arc); the memory is ours, len bytes.
        let mr = unsafe { raw::ibv_reg_mr_iova2(pd.pd, addr, len, addr as u64, access.bits()) };
        match mr {
            Ok(mr) => {
                // SAFETY: an ibv_mr libibverbs made, alive until ibv_dereg_mr.
                let m = unsafe { *mr.cast::<raw::ibv_mr>() };
                Ok(Arc::new(MrInner {
                    mr,
                    lkey: m.lkey,
                    rkey: m.rkey,
                    mem,
                    len,
                    memory: Memory::Ours(layout),
                    _pd: Some(pd.clone()),
                }))
            }
            Err(e) => {
                // SAFETY: allocated above with this layout; never registered.
                unsafe { std::alloc::dealloc(mem.as_ptr(), layout) };
                Err(e)
            }
        }
    }
}

impl Drop for MrInner {
    fn drop(&mut self) {
        if !self.mr.is_null() {
            // SAFETY: our MR; nothing is posted on it (every Buf and Window is gone).
            if unsafe { raw::ibv_dereg_mr(self.mr) }.is_err() {
                // Still registered: the card (or a peer, by its rkey) may
                // still reach the memory. Leaked, never freed.
                return;
            }
        }
        match self.memory {
            // SAFETY: allocated in new() with this layout.
            Memory::Ours(layout) => unsafe { std::alloc::dealloc(self.mem.as_ptr(), layout) },
            // SAFETY: the Box<[u8]> of Buf::from_raw, len bytes.
            Memory::Boxed => drop(unsafe {
                Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                    self.mem.as_ptr(),
                    self.len,
                ))
            }),
        }
    }
}

/// Registered memory of this program's own: bytes the card reads (a send,
/// an RDMA write) or writes (a receive, an RDMA read, an atomic's old value)
/// when a work request names them, and nothing else touches (its MR gives
/// the peer no access).
///
/// A `Buf` is owned, like a `Vec<u8>`: it derefs to its bytes while the
/// program holds it. Posting a work request *moves* it into the queue; the
/// [`Completion`](crate::Completion) of that request hands it back. So the
/// borrow checker refuses any use of a posted buffer, and a buffer the
/// program forgot is never freed under the card: it stays with its queue
/// until the completion is reaped, or until the queue (the QP, the SRQ) is
/// destroyed, after which it is freed.
///
/// ```compile_fail,E0382
/// # fn f(ep: &rdmaverbs::Endpoint) -> std::io::Result<()> {
/// use rdmaverbs::SendWr;
/// let msg = ep.pd().alloc_from(b"hello")?;
/// ep.post_send([SendWr::send(1, msg)])?;
/// drop(msg); // refused: `msg` was moved into the post, until its completion
/// # Ok(()) }
/// ```
///
/// ```compile_fail,E0382
/// # fn f(ep: &rdmaverbs::Endpoint) -> std::io::Result<()> {
/// use rdmaverbs::RecvWr;
/// let slot = ep.pd().alloc(64)?;
/// ep.post_recv([RecvWr::new(1, slot)])?;
/// println!("{}", slot[0]); // refused: the card writes it until the completion
/// # Ok(()) }
/// ```
///
/// The same without those uses compiles (so the line each adds is what is
/// refused; `tests/borrowck.rs` checks the error is E0382, the move), and
/// the completion gives the buffer back:
///
/// ```no_run
/// # fn f(ep: &rdmaverbs::Endpoint) -> std::io::Result<()> {
/// use std::time::Duration;
/// use rdmaverbs::{RecvWr, SendWr};
/// let msg = ep.pd().alloc_from(b"hello")?;
/// ep.post_send([SendWr::send(1, msg)])?;
/// let slot = ep.pd().alloc(64)?;
/// ep.post_recv([RecvWr::new(1, slot)])?;
/// let done = ep.send_cq().wait(1, Duration::from_secs(5))?.remove(0).ok()?;
/// let msg = done.into_bufs().remove(0); // the same memory, the program's again
/// assert_eq!(&msg[..], b"hello");
/// # Ok(()) }
/// ```
pub struct Buf {
    mr: Arc<MrInner>,
    ptr: NonNull<u8>,
    pub(crate) len: usize,
    cap: usize,
}

// SAFETY: a Buf owns its byte range exclusively (pieces never overlap); the
// MR is Send and Sync.
unsafe impl Send for Buf {}
// SAFETY: &Buf gives &[u8] only.
unsafe impl Sync for Buf {}

impl Buf {
    pub(crate) fn whole(mr: Arc<MrInner>) -> Buf {
        let (ptr, len) = (mr.mem, mr.len);
        Buf {
            mr,
            ptr,
            len,
            cap: len,
        }
    }

    /// A buffer over memory registered elsewhere (the raw layer's
    /// `ibv_reg_mr_iova2`, `rdma_reg_msgs`, ...) under `lkey`: freed (as the
    /// Box it is) when the last piece of it goes; never deregistered here.
    ///
    /// # Safety
    /// `memory` is registered under `lkey` for as long as this buffer or a
    /// piece of it is posted, with the access its posts need.
    pub unsafe fn from_raw(memory: Box<[u8]>, lkey: u32) -> Buf {
        let len = memory.len();
        let mem = NonNull::new(Box::into_raw(memory).cast::<u8>()).expect("a Box is never NULL");
        Buf::whole(Arc::new(MrInner {
            mr: std::ptr::null_mut(),
            lkey,
            rkey: 0,
            mem,
            len,
            memory: Memory::Boxed,
            _pd: None,
        }))
    }

    /// Its address, as work requests name it (`ibv_sge.addr`).
    pub fn addr(&self) -> u64 {
        self.ptr.as_ptr() as u64
    }

    /// The local key of its MR (`ibv_sge.lkey`).
    pub fn lkey(&self) -> u32 {
        self.mr.lkey
    }

    /// The bytes it owns; a post hands the card the first [`len`](Deref)
    /// of them.
    pub fn capacity(&self) -> usize {
        self.cap
    }

    /// Sets how many of its bytes it shows and a post hands the card (a
    /// message shorter than the buffer).
    ///
    /// # Panics
    /// If `len` is larger than its capacity.
    pub fn set_len(&mut self, len: usize) {
        assert!(
            len <= self.cap,
            "set_len({len}) beyond the capacity {}",
            self.cap
        );
        self.len = len;
    }

    /// Splits it in two at `at` (of its capacity): two buffers of one MR,
    /// each posted on its own or as two SGEs of one work request.
    ///
    /// # Panics
    /// If `at` is larger than its capacity.
    pub fn split_at(self, at: usize) -> (Buf, Buf) {
        assert!(
            at <= self.cap,
            "split_at({at}) beyond the capacity {}",
            self.cap
        );
        // SAFETY: at <= cap: within the range this Buf owns.
        let tail = unsafe { NonNull::new_unchecked(self.ptr.as_ptr().add(at)) };
        let (len, cap) = (self.len, self.cap);
        let second = Buf {
            mr: self.mr.clone(),
            ptr: tail,
            len: len.saturating_sub(at),
            cap: cap - at,
        };
        (
            Buf {
                mr: self.mr,
                ptr: self.ptr,
                len: len.min(at),
                cap: at,
            },
            second,
        )
    }

    /// Cuts it into pieces of `size` bytes (the last one shorter if the
    /// capacity is not a multiple of it): the slots of a receive ring.
    ///
    /// # Panics
    /// If `size` is 0.
    pub fn chunks(self, size: usize) -> Vec<Buf> {
        assert!(size > 0, "chunks of 0 bytes");
        let mut out = Vec::with_capacity(self.cap.div_ceil(size));
        let mut rest = self;
        rest.len = rest.cap;
        while rest.cap > size {
            let (head, tail) = rest.split_at(size);
            out.push(head);
            rest = tail;
        }
        out.push(rest);
        out
    }

    /// Joins a piece split from this one back to it: `other` must begin
    /// where this one's capacity ends, in the same MR (else both are given
    /// back). The joined buffer shows its whole capacity.
    pub fn join(self, other: Buf) -> Result<Buf, (Buf, Buf)> {
        // SAFETY: one past the end of the range this Buf owns.
        let end = unsafe { self.ptr.as_ptr().add(self.cap) };
        if !Arc::ptr_eq(&self.mr, &other.mr) || end != other.ptr.as_ptr() {
            return Err((self, other));
        }
        let cap = self.cap + other.cap;
        Ok(Buf {
            mr: self.mr,
            ptr: self.ptr,
            len: cap,
            cap,
        })
    }

    /// The SGE a post hands the card: address, length, lkey.
    pub(crate) fn sge(&self) -> raw::ibv_sge {
        raw::ibv_sge {
            addr: self.addr(),
            length: self.len as u32,
            lkey: self.mr.lkey,
        }
    }
}

impl Deref for Buf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: the range is this Buf's alone, initialised (zeroed at
        // allocation), and no card writes it while the program holds it.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl DerefMut for Buf {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as deref; &mut self is the one reference.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl fmt::Debug for Buf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Buf")
            .field("addr", &format_args!("{:#x}", self.addr()))
            .field("len", &self.len)
            .field("capacity", &self.cap)
            .field("lkey", &format_args!("{:#x}", self.lkey()))
            .finish()
    }
}

//! The objects made on a device context: PD, completion channel, CQ, SRQ.
//! Each holds what it was made from, so that whatever the program drops
//! first, C destroys them in the order they depend on each other.

use std::ffi::{c_int, c_void};
use std::fmt;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use rdmaverbs_sys as raw;

use crate::cm::IdInner;
use crate::fd;
use crate::mem::{Access, Buf, MrInner, Window};
use crate::wr::{self, Completion, Pending, PostError, RecvWr};

/// The device context of an rdma_cm id ([`CmId::context`](crate::CmId::context)):
/// what PDs, CQs and completion channels are made on. It keeps the id alive
/// (librdmacm's context is the id's), so the id is destroyed after every
/// object made on it.
#[derive(Clone)]
pub struct Context {
    /// Holds the id (the context is its), never read.
    #[allow(dead_code)]
    pub(crate) id: Arc<IdInner>,
    pub(crate) ctx: *mut c_void,
}

// SAFETY: libibverbs' context is thread-safe; the id is held by an Arc.
unsafe impl Send for Context {}
// SAFETY: as Send.
unsafe impl Sync for Context {}

impl Context {
    /// A protection domain (`ibv_alloc_pd`).
    pub fn alloc_pd(&self) -> io::Result<Pd> {
        // SAFETY: a live context.
        let pd = unsafe { raw::ibv_alloc_pd(self.ctx) }?;
        Ok(Pd {
            inner: Arc::new(PdInner {
                pd,
                _ctx: self.clone(),
            }),
        })
    }

    /// A completion channel (`ibv_create_comp_channel`), its descriptor
    /// non-blocking.
    pub fn create_comp_channel(&self) -> io::Result<CompChannel> {
        // SAFETY: a live context.
        let ch = unsafe { raw::ibv_create_comp_channel(self.ctx) }?;
        // SAFETY: the channel libibverbs made.
        let fd = unsafe { (*ch.cast::<raw::ibv_comp_channel>()).fd };
        let inner = Arc::new(CompChannelInner {
            ch,
            fd,
            _ctx: self.clone(),
        });
        fd::set_nonblocking(fd)?;
        Ok(CompChannel { inner })
    }

    /// A CQ of `cqe` entries (`ibv_create_cq`); on `channel`, if given,
    /// whose events for it carry `context` ([`CqEvent::context`]).
    pub fn create_cq(
        &self,
        cqe: i32,
        channel: Option<&CompChannel>,
        context: usize,
    ) -> io::Result<Cq> {
        let ch = channel.map_or(std::ptr::null_mut(), |c| c.inner.ch);
        // SAFETY: a live context and channel.
        let cq = unsafe { raw::ibv_create_cq(self.ctx, cqe, context as *mut c_void, ch, 0) }?;
        Ok(Cq {
            inner: Arc::new(CqInner {
                cq,
                owned: true,
                sources: Mutex::new(Vec::new()),
                _channel: channel.map(|c| c.inner.clone()),
                _ctx: Some(self.clone()),
            }),
        })
    }
}

pub(crate) struct PdInner {
    pub(crate) pd: *mut c_void,
    _ctx: Context,
}

// SAFETY: libibverbs' PD calls are thread-safe.
unsafe impl Send for PdInner {}
// SAFETY: as Send.
unsafe impl Sync for PdInner {}

impl Drop for PdInner {
    fn drop(&mut self) {
        // SAFETY: our PD; every MR, SRQ and QP on it is gone (they hold it).
        let _ = unsafe { raw::ibv_dealloc_pd(self.pd) };
    }
}

/// A protection domain: registers memory, makes SRQs and QPs. Deallocated
/// when it and everything made on it are gone.
#[derive(Clone)]
pub struct Pd {
    pub(crate) inner: Arc<PdInner>,
}

impl Pd {
    /// `len` zeroed bytes of local memory, registered for the card to read
    /// and write (`IBV_ACCESS_LOCAL_WRITE`): sends, receives, the local side
    /// of RDMA reads and writes, atomics' results.
    pub fn alloc(&self, len: usize) -> io::Result<Buf> {
        Ok(Buf::whole(MrInner::new(
            &self.inner,
            len,
            Access::LOCAL_WRITE,
        )?))
    }

    /// A registered buffer holding a copy of `bytes`.
    pub fn alloc_from(&self, bytes: &[u8]) -> io::Result<Buf> {
        let mut b = self.alloc(bytes.len())?;
        b.copy_from_slice(bytes);
        Ok(b)
    }

    /// `len` zeroed bytes (page-aligned) the peer reaches with `access`
    /// (`REMOTE_READ`, `REMOTE_WRITE`, `REMOTE_ATOMIC`; `LOCAL_WRITE` is
    /// added, as verbs requires with the last two).
    pub fn alloc_window(&self, len: usize, access: Access) -> io::Result<Window> {
        Ok(Window::new(MrInner::new(
            &self.inner,
            len,
            access | Access::LOCAL_WRITE,
        )?))
    }

    /// A shared receive queue of `max_wr` requests of up to `max_sge` SGEs
    /// (`ibv_create_srq`).
    pub fn create_srq(&self, max_wr: u32, max_sge: u32) -> io::Result<Srq> {
        let mut attr = raw::ibv_srq_init_attr {
            attr: raw::ibv_srq_attr {
                max_wr,
                max_sge,
                srq_limit: 0,
            },
            ..Default::default()
        };
        // SAFETY: a live PD; attr lives across the call.
        let srq = unsafe { raw::ibv_create_srq(self.inner.pd, &mut attr) }?;
        Ok(Srq {
            inner: Arc::new(SrqInner {
                srq,
                owned: true,
                pending: Arc::new(Pending::default()),
                _pd: Some(self.inner.clone()),
            }),
        })
    }

    /// The `struct ibv_pd *`, for the raw layer.
    pub fn as_ptr(&self) -> *mut c_void {
        self.inner.pd
    }
}

pub(crate) struct CompChannelInner {
    pub(crate) ch: *mut c_void,
    fd: RawFd,
    _ctx: Context,
}

// SAFETY: libibverbs' channel calls are thread-safe.
unsafe impl Send for CompChannelInner {}
// SAFETY: as Send.
unsafe impl Sync for CompChannelInner {}

impl Drop for CompChannelInner {
    fn drop(&mut self) {
        // SAFETY: our channel; every CQ on it is gone (they hold it).
        let _ = unsafe { raw::ibv_destroy_comp_channel(self.ch) };
    }
}

/// A completion channel: an armed CQ on it ([`Cq::req_notify`]) makes an
/// event there at its next completion. Its descriptor is non-blocking:
/// watch it with poll(2), epoll, or tokio ([`AsyncCompChannel`](crate::AsyncCompChannel)).
#[derive(Clone)]
pub struct CompChannel {
    pub(crate) inner: Arc<CompChannelInner>,
}

impl CompChannel {
    /// The next event, waiting `timeout` at most (`ETIMEDOUT`); acknowledged
    /// already (`ibv_ack_cq_events`: a CQ is never left waiting for it).
    pub fn get_event(&self, timeout: Duration) -> io::Result<CqEvent> {
        let deadline = fd::deadline(timeout);
        loop {
            if let Some(ev) = self.try_get_event()? {
                return Ok(ev);
            }
            fd::readable(self.inner.fd, deadline)?;
        }
    }

    /// The next event if there is one now.
    pub fn try_get_event(&self) -> io::Result<Option<CqEvent>> {
        let (mut cq, mut context) = (std::ptr::null_mut(), std::ptr::null_mut());
        // SAFETY: our channel, non-blocking; the out-pointers live across the call.
        match unsafe { raw::ibv_get_cq_event(self.inner.ch, &mut cq, &mut context) } {
            Ok(_) => {
                // SAFETY: the CQ of the event, alive (ibv_destroy_cq waits for
                // this acknowledgement).
                unsafe { raw::ibv_ack_cq_events(cq, 1) };
                Ok(Some(CqEvent {
                    cq: cq as usize,
                    context: context as usize,
                }))
            }
            Err(e) if fd::would_block(&e) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

impl AsRawFd for CompChannel {
    fn as_raw_fd(&self) -> RawFd {
        self.inner.fd
    }
}

impl AsFd for CompChannel {
    fn as_fd(&self) -> BorrowedFd<'_> {
        // SAFETY: the channel's descriptor, open as long as the channel.
        unsafe { BorrowedFd::borrow_raw(self.inner.fd) }
    }
}

/// An event of a completion channel: which CQ, with its context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CqEvent {
    cq: usize,
    context: usize,
}

impl CqEvent {
    /// Whether it is `cq`'s.
    pub fn is_for(&self, cq: &Cq) -> bool {
        self.cq == cq.inner.cq as usize
    }

    /// The context its CQ was made with.
    pub fn context(&self) -> usize {
        self.context
    }
}

pub(crate) struct CqInner {
    pub(crate) cq: *mut c_void,
    owned: bool,
    /// The queues whose completions land here (a QP's send or receive
    /// queue, an SRQ), to hand each request's buffers back.
    sources: Mutex<Vec<Weak<Pending>>>,
    _channel: Option<Arc<CompChannelInner>>,
    _ctx: Option<Context>,
}

// SAFETY: libibverbs' CQ calls are thread-safe (the provider locks).
unsafe impl Send for CqInner {}
// SAFETY: as Send.
unsafe impl Sync for CqInner {}

impl Drop for CqInner {
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: our CQ; every QP on it is gone (they hold it), every
            // event acknowledged (get_event does at once).
            let _ = unsafe { raw::ibv_destroy_cq(self.cq) };
        }
    }
}

/// A completion queue: [`poll`](Self::poll) (one `ibv_poll_cq` of several)
/// and [`wait`](Self::wait) (polls until there are enough, bounded) give
/// [`Completion`]s, each with its request's buffers.
#[derive(Clone)]
pub struct Cq {
    pub(crate) inner: Arc<CqInner>,
}

impl Cq {
    /// A CQ made elsewhere (the raw layer, another library), which this
    /// one never destroys.
    ///
    /// # Safety
    /// `cq` is a `struct ibv_cq *` that outlives this Cq and every QP made
    /// with it here.
    pub unsafe fn from_raw(cq: *mut c_void) -> Cq {
        Cq {
            inner: Arc::new(CqInner {
                cq,
                owned: false,
                sources: Mutex::new(Vec::new()),
                _channel: None,
                _ctx: None,
            }),
        }
    }

    /// The `struct ibv_cq *`, for the raw layer.
    pub fn as_ptr(&self) -> *mut c_void {
        self.inner.cq
    }

    pub(crate) fn add_source(&self, pending: &Arc<Pending>) {
        let mut s = self.inner.sources.lock().unwrap_or_else(|e| e.into_inner());
        s.retain(|w| w.strong_count() > 0);
        s.push(Arc::downgrade(pending));
    }

    /// Arms it (`ibv_req_notify_cq`): its next completion (`solicited_only`:
    /// its next solicited one) makes an event on its channel.
    pub fn req_notify(&self, solicited_only: bool) -> io::Result<()> {
        // SAFETY: our CQ.
        unsafe { raw::ibv_req_notify_cq(self.inner.cq, solicited_only as c_int) }.map(drop)
    }

    /// Up to `max` completions, in one `ibv_poll_cq`; none if there are
    /// none yet.
    pub fn poll(&self, max: usize) -> io::Result<Vec<Completion>> {
        let mut wc = vec![raw::ibv_wc::default(); max];
        let n = c_int::try_from(max).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        // SAFETY: our CQ; wc has max entries.
        let n = unsafe { raw::ibv_poll_cq(self.inner.cq, n, &mut wc) }? as usize;
        if n == 0 {
            return Ok(Vec::new());
        }
        let sources: Vec<Arc<Pending>> = {
            let s = self.inner.sources.lock().unwrap_or_else(|e| e.into_inner());
            s.iter().filter_map(Weak::upgrade).collect()
        };
        Ok(wc[..n]
            .iter()
            .map(|w| Completion::new(*w, sources.iter().find_map(|p| p.take(w.wr_id))))
            .collect())
    }

    /// Polls until `n` completions (up to `n` at a time, a millisecond's
    /// sleep after an empty poll), for `timeout` at most: `ETIMEDOUT` then,
    /// and the completions polled so far (with their buffers) are dropped;
    /// [`wait_into`](Self::wait_into) keeps them.
    pub fn wait(&self, n: usize, timeout: Duration) -> io::Result<Vec<Completion>> {
        let mut out = Vec::with_capacity(n);
        self.wait_into(&mut out, n, timeout)?;
        Ok(out)
    }

    /// As [`wait`](Self::wait), into `out`, which keeps what was polled
    /// when the wait ends in an error.
    pub fn wait_into(
        &self,
        out: &mut Vec<Completion>,
        n: usize,
        timeout: Duration,
    ) -> io::Result<()> {
        let deadline = fd::deadline(timeout);
        let want = out.len() + n;
        while out.len() < want {
            let got = self.poll(want - out.len())?;
            if got.is_empty() {
                if Instant::now() >= deadline {
                    return Err(fd::timed_out());
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            out.extend(got);
        }
        Ok(())
    }
}

impl fmt::Debug for Cq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Cq({:p})", self.inner.cq)
    }
}

pub(crate) struct SrqInner {
    pub(crate) srq: *mut c_void,
    owned: bool,
    pub(crate) pending: Arc<Pending>,
    _pd: Option<Arc<PdInner>>,
}

// SAFETY: libibverbs' SRQ calls are thread-safe.
unsafe impl Send for SrqInner {}
// SAFETY: as Send.
unsafe impl Sync for SrqInner {}

impl Drop for SrqInner {
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: our SRQ; every QP on it is gone (they hold it). Its
            // receives' buffers are freed after this, with `pending`.
            let _ = unsafe { raw::ibv_destroy_srq(self.srq) };
        } else {
            // Not ours to destroy: the card may still write what is posted.
            self.pending.leak();
        }
    }
}

/// A shared receive queue: receives posted here are consumed by every QP
/// made on it.
#[derive(Clone)]
pub struct Srq {
    pub(crate) inner: Arc<SrqInner>,
}

impl Srq {
    /// An SRQ made elsewhere, which this one never destroys; buffers still
    /// posted on it when the last clone goes are leaked, never freed.
    ///
    /// # Safety
    /// `srq` is a `struct ibv_srq *` that outlives this Srq and every QP
    /// made with it here.
    pub unsafe fn from_raw(srq: *mut c_void) -> Srq {
        Srq {
            inner: Arc::new(SrqInner {
                srq,
                owned: false,
                pending: Arc::new(Pending::default()),
                _pd: None,
            }),
        }
    }

    /// Posts receives, in one `ibv_post_srq_recv` of a list: each buffer is
    /// the SRQ's until its completion hands it back.
    pub fn post_recv(
        &self,
        wrs: impl IntoIterator<Item = RecvWr>,
    ) -> Result<(), PostError<RecvWr>> {
        let srq = self.inner.srq;
        wr::post_recv(
            &self.inner.pending,
            wrs.into_iter().collect(),
            |first, bad| {
                // SAFETY: our SRQ; the list and its SGEs live across the call.
                unsafe { raw::ibv_post_srq_recv(srq, first.cast(), bad) }.map(drop)
            },
        )
    }

    /// How many receives are posted and not completed.
    pub fn posted(&self) -> usize {
        self.inner.pending.len()
    }

    /// The `struct ibv_srq *`, for the raw layer.
    pub fn as_ptr(&self) -> *mut c_void {
        self.inner.srq
    }
}

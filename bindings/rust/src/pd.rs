//! The device context of an id, and the protection domain made on it.

use std::ffi::c_void;
use std::io;
use std::sync::{Arc, Mutex};

use rdmaverbs_sys as raw;

use crate::channel::{CompChannel, CompChannelInner};
use crate::cq::{Cq, CqInner};
use crate::errors::Life;
use crate::id::IdInner;
use crate::mr::window::Window;
use crate::mr::{Access, Buf, MrInner};
use crate::os;
use crate::srq::{Srq, SrqInner};
use crate::wr::post::Pending;

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
            life: Life::new("CompChannel", vec![self.id.life.clone()]),
            _ctx: self.clone(),
        });
        os::set_nonblocking(fd)?;
        Ok(CompChannel { inner })
    }

    /// A CQ of `cqe` entries (`ibv_create_cq`); on `channel`, if given,
    /// whose events for it carry `context` ([`CqEvent::context`](crate::CqEvent::context)).
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
                life: Life::new(
                    "Cq",
                    std::iter::once(self.id.life.clone())
                        .chain(channel.map(|c| c.inner.life.clone()))
                        .collect(),
                ),
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

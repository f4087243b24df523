//! The channels: rdma_cm's event channel ([`EventChannel`], its events)
//! and the completion channel ([`CompChannel`], its [`CqEvent`]s).

use std::ffi::c_void;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::sync::Arc;
use std::time::Duration;

use rdmaverbs_sys as raw;

use crate::cq::Cq;
use crate::errors::Life;
use crate::id::{AsRawCmId, CmEventKind, CmId, IdInner, PortSpace};
use crate::os;
use crate::pd::Context;

pub(crate) struct ChannelInner {
    ch: *mut c_void,
    fd: RawFd,
    pub(crate) life: Arc<Life>,
}

// SAFETY: librdmacm's channel calls are thread-safe.
unsafe impl Send for ChannelInner {}
// SAFETY: as Send.
unsafe impl Sync for ChannelInner {}

impl Drop for ChannelInner {
    fn drop(&mut self) {
        // SAFETY: our channel; every id on it is gone (they hold it), every
        // event acknowledged (next_event does at once).
        unsafe { raw::rdma_destroy_event_channel(self.ch) }
    }
}

/// An rdma_cm event channel: the events of the ids made on it. Its
/// descriptor is non-blocking: watch it with poll(2), epoll, or tokio
/// ([`AsyncEventChannel`](crate::AsyncEventChannel)).
#[derive(Clone)]
pub struct EventChannel {
    pub(crate) inner: Arc<ChannelInner>,
}

impl EventChannel {
    /// `rdma_create_event_channel`.
    pub fn new() -> io::Result<EventChannel> {
        // SAFETY: no argument.
        let ch = unsafe { raw::rdma_create_event_channel() }?;
        // SAFETY: the channel librdmacm made.
        let fd = unsafe { (*ch.cast::<raw::rdma_event_channel>()).fd };
        let inner = Arc::new(ChannelInner {
            ch,
            fd,
            life: Life::new("EventChannel", vec![]),
        });
        os::set_nonblocking(fd)?;
        Ok(EventChannel { inner })
    }

    /// An id on it (`rdma_create_id`).
    pub fn create_id(&self, ps: PortSpace) -> io::Result<CmId> {
        let mut id = std::ptr::null_mut();
        // SAFETY: our channel; the out-pointer lives across the call.
        unsafe { raw::rdma_create_id(self.inner.ch, &mut id, std::ptr::null_mut(), ps.raw()) }?;
        Ok(CmId {
            inner: Arc::new(IdInner {
                id,
                owned: true,
                life: Life::new("CmId", vec![self.inner.life.clone()]),
                _channel: Some(self.inner.clone()),
            }),
        })
    }

    /// The next event, waiting `timeout` at most (`ETIMEDOUT`); read and
    /// acknowledged (`rdma_ack_cm_event`).
    /// A [`close`](Self::close) of the channel, from any clone, thread or
    /// task, ends it at once: [`Closed`](crate::Closed).
    pub fn next_event(&self, timeout: Duration) -> io::Result<CmEvent> {
        self.next_event_of(&self.inner.life, timeout)
    }

    /// The next event, waiting on `life` (the channel's, or an id's on it).
    fn next_event_of(&self, life: &Life, timeout: Duration) -> io::Result<CmEvent> {
        let deadline = os::deadline(timeout);
        loop {
            life.check("rdma_get_cm_event")?;
            if let Some(ev) = self.try_next_event()? {
                return Ok(ev);
            }
            os::readable(self.inner.fd, life, deadline, "rdma_get_cm_event")?;
        }
    }

    /// The next event if there is one now.
    pub fn try_next_event(&self) -> io::Result<Option<CmEvent>> {
        self.inner.life.check("rdma_get_cm_event")?;
        let mut ev = std::ptr::null_mut();
        // SAFETY: our channel, non-blocking; the out-pointer lives across the call.
        match unsafe { raw::rdma_get_cm_event(self.inner.ch, &mut ev) } {
            Ok(_) => {}
            Err(e) if os::would_block(&e) => return Ok(None),
            Err(e) => return Err(e),
        }
        // SAFETY: the event librdmacm gave, read before it is acknowledged.
        let e = unsafe { *ev.cast::<raw::rdma_cm_event>() };
        // SAFETY: acknowledged once.
        unsafe { raw::rdma_ack_cm_event(ev) }?;
        let kind = CmEventKind::from(e.event);
        // A connection request's id is new, on this channel: the program's
        // (destroyed, the request refused, if it drops it).
        let request = (kind == CmEventKind::ConnectRequest).then(|| CmId {
            inner: Arc::new(IdInner {
                id: e.id,
                owned: true,
                life: Life::new("CmId", vec![self.inner.life.clone()]),
                _channel: Some(self.inner.clone()),
            }),
        });
        Ok(Some(CmEvent {
            kind,
            status: e.status,
            id: e.id as usize,
            listen_id: e.listen_id as usize,
            request,
        }))
    }

    /// The next event, which must be `kind`, of `id` (for a connection
    /// request: of the listening `id`), with status 0: else an error naming
    /// what came (`ConnectionRefused` for a rejection, `TimedOut` for none).
    /// A close of the channel or of `id` ends it at once:
    /// [`Closed`](crate::Closed).
    pub fn expect(
        &self,
        kind: CmEventKind,
        id: &impl AsRawCmId,
        timeout: Duration,
    ) -> io::Result<CmEvent> {
        let life = id.life_ref().map(|l| l.0);
        let ev = self.next_event_of(life.as_deref().unwrap_or(&self.inner.life), timeout)?;
        expected(ev, kind, id)
    }

    /// Closes the channel for every clone: each wait on it, and on the ids
    /// made on it and what was made on their contexts, ends at once
    /// ([`Closed`](crate::Closed)), as does every later one; rdma_cm's
    /// channel is destroyed when the last clone and id go, as before.
    pub fn close(&self) {
        self.inner.life.close();
    }

    /// Whether it was closed.
    pub fn is_closed(&self) -> bool {
        self.inner.life.is_closed()
    }
}

pub(crate) fn expected(ev: CmEvent, kind: CmEventKind, id: &impl AsRawCmId) -> io::Result<CmEvent> {
    if ev.kind == kind && ev.status == 0 && ev.concerns(id) {
        return Ok(ev);
    }
    let what = format!(
        "rdma_cm event {} (status {}); want {kind}",
        ev.kind, ev.status
    );
    Err(match ev.kind {
        CmEventKind::Rejected => io::Error::new(io::ErrorKind::ConnectionRefused, what),
        _ => io::Error::other(what),
    })
}

impl AsRawFd for EventChannel {
    fn as_raw_fd(&self) -> RawFd {
        self.inner.fd
    }
}

impl AsFd for EventChannel {
    fn as_fd(&self) -> BorrowedFd<'_> {
        // SAFETY: the channel's descriptor, open as long as the channel.
        unsafe { BorrowedFd::borrow_raw(self.inner.fd) }
    }
}

/// An rdma_cm event, copied out of librdmacm's and acknowledged.
#[derive(Debug)]
pub struct CmEvent {
    kind: CmEventKind,
    status: i32,
    id: usize,
    listen_id: usize,
    request: Option<CmId>,
}

impl CmEvent {
    pub fn kind(&self) -> CmEventKind {
        self.kind
    }

    /// Its status: 0, a negative errno value, or (a rejection) the peer's
    /// reason.
    pub fn status(&self) -> i32 {
        self.status
    }

    /// Whether it is `id`'s (a connection request: the listening id's).
    pub fn concerns(&self, id: &impl AsRawCmId) -> bool {
        let p = id.as_raw_cm_id() as usize;
        p == self.id || (self.kind == CmEventKind::ConnectRequest && p == self.listen_id)
    }

    /// A connection request's new id (accept it by making its QP and
    /// [`Endpoint::accept`](crate::Endpoint::accept); dropping it refuses the request).
    pub fn into_request(self) -> Option<CmId> {
        self.request
    }
}

pub(crate) struct CompChannelInner {
    pub(crate) ch: *mut c_void,
    pub(crate) fd: RawFd,
    pub(crate) life: Arc<Life>,
    pub(crate) _ctx: Context,
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
    /// A [`close`](Self::close) of the channel (or of the id whose
    /// context it is on) ends it at once: [`Closed`](crate::Closed).
    pub fn get_event(&self, timeout: Duration) -> io::Result<CqEvent> {
        let deadline = os::deadline(timeout);
        loop {
            if let Some(ev) = self.try_get_event()? {
                return Ok(ev);
            }
            os::readable(
                self.inner.fd,
                &self.inner.life,
                deadline,
                "ibv_get_cq_event",
            )?;
        }
    }

    /// Closes the channel for every clone: each wait on it, and on the CQs
    /// made on it, ends at once ([`Closed`](crate::Closed)), as does every
    /// later one; libibverbs' channel is destroyed when the last clone and
    /// CQ go, as before.
    pub fn close(&self) {
        self.inner.life.close();
    }

    /// Whether it (or the id of its context) was closed.
    pub fn is_closed(&self) -> bool {
        self.inner.life.is_closed()
    }

    /// The next event if there is one now.
    pub fn try_get_event(&self) -> io::Result<Option<CqEvent>> {
        self.inner.life.check("ibv_get_cq_event")?;
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
            Err(e) if os::would_block(&e) => Ok(None),
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

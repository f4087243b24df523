//! The endpoint: an rdma_cm id with its QP.

use std::ffi::c_void;
use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use rdmaverbs_sys as raw;

use crate::cq::Cq;
use crate::errors::{Life, PostError};
use crate::id::{AsRawCmId, CmId, ConnParam, IdInner, LifeRef};
use crate::os::socket_addr;
use crate::pd::{Context, Pd};
use crate::srq::Srq;
use crate::wr::post::{self, Pending};
use crate::wr::{RecvWr, SendWr};

/// An rdma_cm id with its QP: connects or accepts, posts work requests
/// (each buffer the queue's until its [`Completion`](crate::Completion)
/// hands it back), disconnects. It holds its PD, CQs and SRQ; dropping it
/// destroys the QP (`rdma_destroy_qp`), then frees the buffers still
/// posted, then lets go of the objects it held, the id last (the objects
/// made on its context hold it too).
pub struct Endpoint {
    id: Arc<IdInner>,
    qp: *mut c_void,
    qp_num: u32,
    owned: bool,
    send: Arc<Pending>,
    recv: Arc<Pending>,
    pd: Option<Pd>,
    send_cq: Cq,
    recv_cq: Cq,
    srq: Option<Srq>,
}

// SAFETY: libibverbs' posts are thread-safe (the provider locks); the rest
// is Arcs and Mutexes.
unsafe impl Send for Endpoint {}
// SAFETY: as Send.
unsafe impl Sync for Endpoint {}

impl Drop for Endpoint {
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: our QP; after this the card touches none of its buffers,
            // which go with self.send and self.recv.
            unsafe { raw::rdma_destroy_qp(self.id.id) }
        } else {
            // Not ours to destroy: the card may still use what is posted.
            self.send.leak();
            self.recv.leak();
        }
    }
}

impl AsRawCmId for Endpoint {
    fn as_raw_cm_id(&self) -> *mut c_void {
        self.id.id
    }

    fn life_ref(&self) -> Option<LifeRef> {
        Some(LifeRef(self.id.life.clone()))
    }
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Endpoint {{ id: {:p}, qp_num: {} }}",
            self.id.id, self.qp_num
        )
    }
}

impl Endpoint {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        id: Arc<IdInner>,
        qp: *mut c_void,
        qp_num: u32,
        owned: bool,
        pd: Option<Pd>,
        send_cq: &Cq,
        recv_cq: &Cq,
        srq: Option<&Srq>,
    ) -> Endpoint {
        id.life.rename("Endpoint");
        let (send, recv) = (Arc::new(Pending::default()), Arc::new(Pending::default()));
        send_cq.add_source(&send);
        recv_cq.add_source(srq.map_or(&recv, |s| &s.inner.pending));
        Endpoint {
            id,
            qp,
            qp_num,
            owned,
            send,
            recv,
            pd,
            send_cq: send_cq.clone(),
            recv_cq: recv_cq.clone(),
            srq: srq.cloned(),
        }
    }

    /// An endpoint over an id and its QP made elsewhere (the raw layer,
    /// another library), which this one neither destroys nor disconnects:
    /// its requests' completions come from `send_cq` and `recv_cq` (made
    /// with [`Cq::from_raw`] or here), its receives from `srq` if given.
    /// Buffers still posted when it goes are leaked, never freed. It has no
    /// [`pd`](Self::pd).
    ///
    /// # Safety
    /// `id` is a `struct rdma_cm_id *` whose `qp` is set, and both outlive
    /// this endpoint; the QP's completions go to those CQs.
    pub unsafe fn from_raw(
        id: *mut c_void,
        send_cq: &Cq,
        recv_cq: &Cq,
        srq: Option<&Srq>,
    ) -> Endpoint {
        // SAFETY: as the caller promised.
        let qp = unsafe { (*id.cast::<raw::rdma_cm_id>()).qp };
        // SAFETY: as the caller promised.
        let qp_num = unsafe { (*qp.cast::<raw::ibv_qp>()).qp_num };
        let inner = Arc::new(IdInner {
            id,
            owned: false,
            life: Life::new("Endpoint", vec![]),
            _channel: None,
        });
        Endpoint::new(inner, qp, qp_num, false, None, send_cq, recv_cq, srq)
    }

    /// `rdma_connect`: `Established` follows on its channel.
    pub fn connect(&self, param: &ConnParam) -> io::Result<()> {
        self.id.life.check("rdma_connect")?;
        let mut p = param.raw();
        // SAFETY: our id; p lives across the call.
        unsafe { raw::rdma_connect(self.id.id, &mut p) }.map(drop)
    }

    /// `rdma_accept` of a connection request's id: `Established` follows.
    pub fn accept(&self, param: &ConnParam) -> io::Result<()> {
        self.id.life.check("rdma_accept")?;
        let mut p = param.raw();
        // SAFETY: our id; p lives across the call.
        unsafe { raw::rdma_accept(self.id.id, &mut p) }.map(drop)
    }

    /// `rdma_disconnect`: `Disconnected` follows, on both sides; what is
    /// still posted completes in error (flushed).
    pub fn disconnect(&self) -> io::Result<()> {
        self.id.life.check("rdma_disconnect")?;
        // SAFETY: our id.
        unsafe { raw::rdma_disconnect(self.id.id) }.map(drop)
    }

    /// Posts send work requests, in one `ibv_post_send` of a list: each
    /// request's buffers are the queue's until its completion hands them
    /// back. On an error, those not posted come back in it.
    pub fn post_send(
        &self,
        wrs: impl IntoIterator<Item = SendWr>,
    ) -> Result<(), PostError<SendWr>> {
        let wrs: Vec<SendWr> = wrs.into_iter().collect();
        if let Err(error) = self.id.life.check("ibv_post_send") {
            return Err(PostError {
                error,
                unposted: wrs,
            });
        }
        let qp = self.qp;
        post::post_send(&self.send, wrs, |first, bad| {
            // SAFETY: our QP; the list and its SGEs live across the call.
            unsafe { raw::ibv_post_send(qp, first.cast(), bad) }.map(drop)
        })
    }

    /// Posts receives on its own receive queue (not its SRQ's: that is
    /// [`Srq::post_recv`]), in one `ibv_post_recv`.
    pub fn post_recv(
        &self,
        wrs: impl IntoIterator<Item = RecvWr>,
    ) -> Result<(), PostError<RecvWr>> {
        let wrs: Vec<RecvWr> = wrs.into_iter().collect();
        if let Err(error) = self.id.life.check("ibv_post_recv") {
            return Err(PostError {
                error,
                unposted: wrs,
            });
        }
        let qp = self.qp;
        post::post_recv(&self.recv, wrs, |first, bad| {
            // SAFETY: our QP; the list and its SGEs live across the call.
            unsafe { raw::ibv_post_recv(qp, first.cast(), bad) }.map(drop)
        })
    }

    /// Closes it for every clone: each wait for its events, on its CQs and
    /// completion channels made on its context, in any thread or task, ends
    /// at once, as does every later post, connect, accept or wait:
    /// [`Closed`](crate::Closed). The QP and the id are destroyed when the
    /// last clone and what holds them go, as before (`Drop`).
    pub fn close(&self) {
        self.id.life.close();
    }

    /// Whether it (or its event channel) was closed.
    pub fn is_closed(&self) -> bool {
        self.id.life.is_closed()
    }

    /// How many of its send requests are posted and not completed.
    pub fn sends_posted(&self) -> usize {
        self.send.len()
    }

    /// Its QP's number (`qp_num`, as its completions name it).
    pub fn qp_num(&self) -> u32 {
        self.qp_num
    }

    /// The PD its QP is on.
    ///
    /// # Panics
    /// For an endpoint made by [`from_raw`](Self::from_raw).
    pub fn pd(&self) -> &Pd {
        self.pd
            .as_ref()
            .expect("an endpoint made by from_raw has no Pd of this crate's")
    }

    pub fn send_cq(&self) -> &Cq {
        &self.send_cq
    }

    pub fn recv_cq(&self) -> &Cq {
        &self.recv_cq
    }

    pub fn srq(&self) -> Option<&Srq> {
        self.srq.as_ref()
    }

    /// Its device context (what more objects are made on).
    pub fn context(&self) -> io::Result<Context> {
        CmId {
            inner: self.id.clone(),
        }
        .context()
    }

    /// Its local address (`rdma_get_local_addr`).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        // SAFETY: our id; the address is in its route.
        unsafe { socket_addr(raw::rdma_get_local_addr(self.id.id)?) }
    }

    /// Its peer's address (`rdma_get_peer_addr`).
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        // SAFETY: our id; the address is in its route.
        unsafe { socket_addr(raw::rdma_get_peer_addr(self.id.id)?) }
    }
}

//! rdma_cm: the event channel, ids, and the endpoint (an id with its QP).

use std::ffi::{c_int, c_void};
use std::fmt;
use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6, ToSocketAddrs};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::sync::Arc;
use std::time::Duration;

use rdmaverbs_sys as raw;

use crate::fd;
use crate::verbs::{Context, Cq, Pd, Srq};
use crate::wr::{self, Pending, PostError, RecvWr, SendWr};

pub(crate) struct ChannelInner {
    ch: *mut c_void,
    fd: RawFd,
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
    inner: Arc<ChannelInner>,
}

impl EventChannel {
    /// `rdma_create_event_channel`.
    pub fn new() -> io::Result<EventChannel> {
        // SAFETY: no argument.
        let ch = unsafe { raw::rdma_create_event_channel() }?;
        // SAFETY: the channel librdmacm made.
        let fd = unsafe { (*ch.cast::<raw::rdma_event_channel>()).fd };
        let inner = Arc::new(ChannelInner { ch, fd });
        fd::set_nonblocking(fd)?;
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
                _channel: Some(self.inner.clone()),
            }),
        })
    }

    /// The next event, waiting `timeout` at most (`ETIMEDOUT`); read and
    /// acknowledged (`rdma_ack_cm_event`).
    pub fn next_event(&self, timeout: Duration) -> io::Result<CmEvent> {
        let deadline = fd::deadline(timeout);
        loop {
            if let Some(ev) = self.try_next_event()? {
                return Ok(ev);
            }
            fd::readable(self.inner.fd, deadline)?;
        }
    }

    /// The next event if there is one now.
    pub fn try_next_event(&self) -> io::Result<Option<CmEvent>> {
        let mut ev = std::ptr::null_mut();
        // SAFETY: our channel, non-blocking; the out-pointer lives across the call.
        match unsafe { raw::rdma_get_cm_event(self.inner.ch, &mut ev) } {
            Ok(_) => {}
            Err(e) if fd::would_block(&e) => return Ok(None),
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
    pub fn expect(
        &self,
        kind: CmEventKind,
        id: &impl AsRawCmId,
        timeout: Duration,
    ) -> io::Result<CmEvent> {
        expected(self.next_event(timeout)?, kind, id)
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

/// An rdma_cm port space (`enum rdma_port_space`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortSpace {
    /// Reliable connections (`RDMA_PS_TCP`).
    Tcp,
    /// Datagrams (`RDMA_PS_UDP`).
    Udp,
    /// Either (`RDMA_PS_IB`).
    Ib,
}

impl PortSpace {
    fn raw(self) -> u32 {
        (match self {
            PortSpace::Tcp => raw::RDMA_PS_TCP,
            PortSpace::Udp => raw::RDMA_PS_UDP,
            PortSpace::Ib => raw::RDMA_PS_IB,
        }) as u32
    }
}

/// An rdma_cm event's type (`enum rdma_cm_event_type`); shown as
/// `rdma_event_str` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmEventKind {
    AddrResolved,
    AddrError,
    RouteResolved,
    RouteError,
    ConnectRequest,
    ConnectResponse,
    ConnectError,
    Unreachable,
    Rejected,
    Established,
    Disconnected,
    DeviceRemoval,
    TimewaitExit,
    Other(u32),
}

impl From<u32> for CmEventKind {
    fn from(v: u32) -> CmEventKind {
        match v as i32 {
            raw::RDMA_CM_EVENT_ADDR_RESOLVED => CmEventKind::AddrResolved,
            raw::RDMA_CM_EVENT_ADDR_ERROR => CmEventKind::AddrError,
            raw::RDMA_CM_EVENT_ROUTE_RESOLVED => CmEventKind::RouteResolved,
            raw::RDMA_CM_EVENT_ROUTE_ERROR => CmEventKind::RouteError,
            raw::RDMA_CM_EVENT_CONNECT_REQUEST => CmEventKind::ConnectRequest,
            raw::RDMA_CM_EVENT_CONNECT_RESPONSE => CmEventKind::ConnectResponse,
            raw::RDMA_CM_EVENT_CONNECT_ERROR => CmEventKind::ConnectError,
            raw::RDMA_CM_EVENT_UNREACHABLE => CmEventKind::Unreachable,
            raw::RDMA_CM_EVENT_REJECTED => CmEventKind::Rejected,
            raw::RDMA_CM_EVENT_ESTABLISHED => CmEventKind::Established,
            raw::RDMA_CM_EVENT_DISCONNECTED => CmEventKind::Disconnected,
            raw::RDMA_CM_EVENT_DEVICE_REMOVAL => CmEventKind::DeviceRemoval,
            raw::RDMA_CM_EVENT_TIMEWAIT_EXIT => CmEventKind::TimewaitExit,
            _ => CmEventKind::Other(v),
        }
    }
}

impl CmEventKind {
    fn raw(self) -> u32 {
        (match self {
            CmEventKind::AddrResolved => raw::RDMA_CM_EVENT_ADDR_RESOLVED,
            CmEventKind::AddrError => raw::RDMA_CM_EVENT_ADDR_ERROR,
            CmEventKind::RouteResolved => raw::RDMA_CM_EVENT_ROUTE_RESOLVED,
            CmEventKind::RouteError => raw::RDMA_CM_EVENT_ROUTE_ERROR,
            CmEventKind::ConnectRequest => raw::RDMA_CM_EVENT_CONNECT_REQUEST,
            CmEventKind::ConnectResponse => raw::RDMA_CM_EVENT_CONNECT_RESPONSE,
            CmEventKind::ConnectError => raw::RDMA_CM_EVENT_CONNECT_ERROR,
            CmEventKind::Unreachable => raw::RDMA_CM_EVENT_UNREACHABLE,
            CmEventKind::Rejected => raw::RDMA_CM_EVENT_REJECTED,
            CmEventKind::Established => raw::RDMA_CM_EVENT_ESTABLISHED,
            CmEventKind::Disconnected => raw::RDMA_CM_EVENT_DISCONNECTED,
            CmEventKind::DeviceRemoval => raw::RDMA_CM_EVENT_DEVICE_REMOVAL,
            CmEventKind::TimewaitExit => raw::RDMA_CM_EVENT_TIMEWAIT_EXIT,
            CmEventKind::Other(v) => return v,
        }) as u32
    }
}

impl fmt::Display for CmEventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // SAFETY: rdma_event_str takes any value.
        f.write_str(&unsafe { raw::rdma_event_str(self.raw()) })
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
    /// [`Endpoint::accept`]; dropping it refuses the request).
    pub fn into_request(self) -> Option<CmId> {
        self.request
    }
}

/// An rdma_cm id's or an endpoint's `struct rdma_cm_id *`: what an event
/// is compared with ([`CmEvent::concerns`]), and for the raw layer.
pub trait AsRawCmId {
    fn as_raw_cm_id(&self) -> *mut c_void;
}

pub(crate) struct IdInner {
    pub(crate) id: *mut c_void,
    owned: bool,
    _channel: Option<Arc<ChannelInner>>,
}

// SAFETY: librdmacm's id calls are thread-safe.
unsafe impl Send for IdInner {}
// SAFETY: as Send.
unsafe impl Sync for IdInner {}

impl Drop for IdInner {
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: our id; its QP and every object on its context are
            // gone (they hold it), its events acknowledged.
            let _ = unsafe { raw::rdma_destroy_id(self.id) };
        }
    }
}

/// An rdma_cm id: resolves an address and a route, or listens; its
/// [`context`](Self::context) makes the objects its QP is made on
/// ([`create_qp`](Self::create_qp), which gives the [`Endpoint`]).
#[derive(Debug)]
pub struct CmId {
    inner: Arc<IdInner>,
}

impl fmt::Debug for IdInner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:p}", self.id)
    }
}

impl AsRawCmId for CmId {
    fn as_raw_cm_id(&self) -> *mut c_void {
        self.inner.id
    }
}

fn millis(d: Duration) -> c_int {
    d.as_millis().min(c_int::MAX as u128) as c_int
}

impl CmId {
    /// Resolves `dst` to a device and a port (`rdma_resolve_addr`, within
    /// `timeout`): the event `AddrResolved` follows.
    pub fn resolve_addr(&self, dst: SocketAddr, timeout: Duration) -> io::Result<()> {
        let mut sa = SockAddr::from(dst);
        // SAFETY: our id; the address lives across the call.
        unsafe {
            raw::rdma_resolve_addr(
                self.inner.id,
                std::ptr::null_mut(),
                sa.as_mut_ptr(),
                millis(timeout),
            )
        }
        .map(drop)
    }

    /// Resolves the route (`rdma_resolve_route`): `RouteResolved` follows.
    pub fn resolve_route(&self, timeout: Duration) -> io::Result<()> {
        // SAFETY: our id.
        unsafe { raw::rdma_resolve_route(self.inner.id, millis(timeout)) }.map(drop)
    }

    /// `rdma_bind_addr`.
    pub fn bind(&self, addr: SocketAddr) -> io::Result<()> {
        let mut sa = SockAddr::from(addr);
        // SAFETY: our id; the address lives across the call.
        unsafe { raw::rdma_bind_addr(self.inner.id, sa.as_mut_ptr()) }.map(drop)
    }

    /// `rdma_listen`: connection requests come as `ConnectRequest` events.
    pub fn listen(&self, backlog: i32) -> io::Result<()> {
        // SAFETY: our id.
        unsafe { raw::rdma_listen(self.inner.id, backlog) }.map(drop)
    }

    /// Its device context, once its address is resolved or bound to a
    /// device (`ENODEV` before).
    pub fn context(&self) -> io::Result<Context> {
        // SAFETY: our id, read as librdmacm's struct.
        let ctx = unsafe { (*self.inner.id.cast::<raw::rdma_cm_id>()).verbs };
        if ctx.is_null() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                "the id has no device yet: resolve its address or bind it first",
            ));
        }
        Ok(Context {
            id: self.inner.clone(),
            ctx,
        })
    }

    /// Its QP (`rdma_create_qp`, RC), on `pd`, with its completions on
    /// `send_cq` and `recv_cq`, its receives from `srq` if given: the id
    /// becomes an [`Endpoint`].
    pub fn create_qp(
        self,
        pd: &Pd,
        send_cq: &Cq,
        recv_cq: &Cq,
        srq: Option<&Srq>,
        cap: QpCap,
    ) -> io::Result<Endpoint> {
        let mut attr = raw::ibv_qp_init_attr {
            send_cq: send_cq.inner.cq,
            recv_cq: recv_cq.inner.cq,
            srq: srq.map_or(std::ptr::null_mut(), |s| s.inner.srq),
            cap: raw::ibv_qp_cap {
                max_send_wr: cap.max_send_wr,
                max_recv_wr: cap.max_recv_wr,
                max_send_sge: cap.max_send_sge,
                max_recv_sge: cap.max_recv_sge,
                max_inline_data: cap.max_inline_data,
            },
            qp_type: raw::IBV_QPT_RC as u32,
            ..Default::default()
        };
        // SAFETY: our id, a live PD and CQs; attr lives across the call.
        unsafe { raw::rdma_create_qp(self.inner.id, pd.inner.pd, &mut attr) }?;
        // SAFETY: the QP rdma_create_qp made: the id's.
        let qp = unsafe { (*self.inner.id.cast::<raw::rdma_cm_id>()).qp };
        // SAFETY: as above.
        let qp_num = unsafe { (*qp.cast::<raw::ibv_qp>()).qp_num };
        Ok(Endpoint::new(
            self.inner,
            qp,
            qp_num,
            true,
            Some(pd.clone()),
            send_cq,
            recv_cq,
            srq,
        ))
    }

    /// Its local address (`rdma_get_local_addr`).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        // SAFETY: our id; the address is in its route.
        unsafe { socket_addr(raw::rdma_get_local_addr(self.inner.id)?) }
    }
}

/// What a QP holds: requests and SGEs in each direction (`struct ibv_qp_cap`).
/// The default: 16 and 16 requests of one SGE each. With an SRQ, the
/// receive side is the SRQ's (0 and 0 here).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QpCap {
    pub max_send_wr: u32,
    pub max_recv_wr: u32,
    pub max_send_sge: u32,
    pub max_recv_sge: u32,
    pub max_inline_data: u32,
}

impl Default for QpCap {
    fn default() -> QpCap {
        QpCap {
            max_send_wr: 16,
            max_recv_wr: 16,
            max_send_sge: 1,
            max_recv_sge: 1,
            max_inline_data: 0,
        }
    }
}

/// The connection's parameters (`struct rdma_conn_param`). The default: one
/// RDMA read or atomic outstanding each way (`responder_resources`,
/// `initiator_depth` 1), 7 retries of a lost packet and of a send the peer
/// had no receive for (7: for ever).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnParam {
    pub responder_resources: u8,
    pub initiator_depth: u8,
    pub retry_count: u8,
    pub rnr_retry_count: u8,
}

impl Default for ConnParam {
    fn default() -> ConnParam {
        ConnParam {
            responder_resources: 1,
            initiator_depth: 1,
            retry_count: 7,
            rnr_retry_count: 7,
        }
    }
}

impl ConnParam {
    fn raw(&self) -> raw::rdma_conn_param {
        raw::rdma_conn_param {
            responder_resources: self.responder_resources,
            initiator_depth: self.initiator_depth,
            retry_count: self.retry_count,
            rnr_retry_count: self.rnr_retry_count,
            ..Default::default()
        }
    }
}

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
    fn new(
        id: Arc<IdInner>,
        qp: *mut c_void,
        qp_num: u32,
        owned: bool,
        pd: Option<Pd>,
        send_cq: &Cq,
        recv_cq: &Cq,
        srq: Option<&Srq>,
    ) -> Endpoint {
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
            _channel: None,
        });
        Endpoint::new(inner, qp, qp_num, false, None, send_cq, recv_cq, srq)
    }

    /// The usual client: an event channel and an id of its own, the
    /// address and route of `addr` resolved, a PD, one CQ for both
    /// directions, the QP, connected; each step waits `timeout` at most.
    pub fn connect_to(
        addr: impl ToSocketAddrs,
        cap: QpCap,
        param: &ConnParam,
        timeout: Duration,
    ) -> io::Result<Endpoint> {
        let addr = addr
            .to_socket_addrs()?
            .next()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no address"))?;
        let ch = EventChannel::new()?;
        let id = ch.create_id(PortSpace::Tcp)?;
        id.resolve_addr(addr, timeout)?;
        ch.expect(CmEventKind::AddrResolved, &id, timeout)?;
        id.resolve_route(timeout)?;
        ch.expect(CmEventKind::RouteResolved, &id, timeout)?;
        let ctx = id.context()?;
        let (pd, cq) = (
            ctx.alloc_pd()?,
            ctx.create_cq(cap.max_send_wr as i32 + cap.max_recv_wr as i32, None, 0)?,
        );
        let ep = id.create_qp(&pd, &cq, &cq, None, cap)?;
        ep.connect(param)?;
        ch.expect(CmEventKind::Established, &ep, timeout)?;
        Ok(ep)
    }

    /// `rdma_connect`: `Established` follows on its channel.
    pub fn connect(&self, param: &ConnParam) -> io::Result<()> {
        let mut p = param.raw();
        // SAFETY: our id; p lives across the call.
        unsafe { raw::rdma_connect(self.id.id, &mut p) }.map(drop)
    }

    /// `rdma_accept` of a connection request's id: `Established` follows.
    pub fn accept(&self, param: &ConnParam) -> io::Result<()> {
        let mut p = param.raw();
        // SAFETY: our id; p lives across the call.
        unsafe { raw::rdma_accept(self.id.id, &mut p) }.map(drop)
    }

    /// `rdma_disconnect`: `Disconnected` follows, on both sides; what is
    /// still posted completes in error (flushed).
    pub fn disconnect(&self) -> io::Result<()> {
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
        let qp = self.qp;
        wr::post_send(&self.send, wrs.into_iter().collect(), |first, bad| {
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
        let qp = self.qp;
        wr::post_recv(&self.recv, wrs.into_iter().collect(), |first, bad| {
            // SAFETY: our QP; the list and its SGEs live across the call.
            unsafe { raw::ibv_post_recv(qp, first.cast(), bad) }.map(drop)
        })
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

/// A `struct sockaddr_in6` (the raw layer declares the IPv4 one only).
#[repr(C)]
#[derive(Clone, Copy)]
struct SockAddrIn6 {
    family: u16,
    port: u16,
    flowinfo: u32,
    addr: [u8; 16],
    scope_id: u32,
}

/// A socket address laid out for C.
enum SockAddr {
    V4(raw::sockaddr_in),
    V6(SockAddrIn6),
}

impl From<SocketAddr> for SockAddr {
    fn from(a: SocketAddr) -> SockAddr {
        match a {
            SocketAddr::V4(a) => SockAddr::V4(raw::sockaddr_in {
                sin_family: raw::AF_INET as u16,
                sin_port: a.port().to_be(),
                sin_addr: u32::from_ne_bytes(a.ip().octets()),
                sin_zero: [0; 8],
            }),
            SocketAddr::V6(a) => SockAddr::V6(SockAddrIn6 {
                family: raw::AF_INET6 as u16,
                port: a.port().to_be(),
                flowinfo: a.flowinfo().to_be(),
                addr: a.ip().octets(),
                scope_id: a.scope_id(),
            }),
        }
    }
}

impl SockAddr {
    fn as_mut_ptr(&mut self) -> *mut c_void {
        match self {
            SockAddr::V4(a) => (a as *mut raw::sockaddr_in).cast(),
            SockAddr::V6(a) => (a as *mut SockAddrIn6).cast(),
        }
    }
}

/// The `SocketAddr` of a `struct sockaddr *` of C's.
///
/// # Safety
/// `sa` points to a sockaddr of its family's size.
unsafe fn socket_addr(sa: *mut c_void) -> io::Result<SocketAddr> {
    // SAFETY: every sockaddr begins with its family.
    let family = i32::from(unsafe { *sa.cast::<u16>() });
    if family == raw::AF_INET {
        // SAFETY: an AF_INET address is a sockaddr_in.
        let a = unsafe { *sa.cast::<raw::sockaddr_in>() };
        let ip = Ipv4Addr::from(a.sin_addr.to_ne_bytes());
        Ok(SocketAddr::V4(SocketAddrV4::new(
            ip,
            u16::from_be(a.sin_port),
        )))
    } else if family == raw::AF_INET6 {
        // SAFETY: an AF_INET6 address is a sockaddr_in6.
        let a = unsafe { *sa.cast::<SockAddrIn6>() };
        let ip = Ipv6Addr::from(a.addr);
        Ok(SocketAddr::V6(SocketAddrV6::new(
            ip,
            u16::from_be(a.port),
            u32::from_be(a.flowinfo),
            a.scope_id,
        )))
    } else {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!("address family {family}"),
        ))
    }
}

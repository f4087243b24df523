//! rdma_cm ids: [`CmId`] (resolve, bind, listen, make its QP), the port
//! space, and what a QP and a connection are made with ([`QpCap`],
//! [`ConnParam`]).

use std::ffi::{c_int, c_void};
use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use rdmaverbs_sys as raw;

use crate::channel::ChannelInner;
use crate::cq::Cq;
use crate::endpoint::Endpoint;
use crate::errors::Life;
use crate::os::{socket_addr, SockAddr};
use crate::pd::{Context, Pd};
use crate::srq::Srq;

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
    pub(crate) fn raw(self) -> u32 {
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

/// An rdma_cm id's or an endpoint's `struct rdma_cm_id *`: what an event
/// is compared with ([`CmEvent::concerns`](crate::CmEvent::concerns)), and for the raw layer.
pub trait AsRawCmId {
    fn as_raw_cm_id(&self) -> *mut c_void;

    /// Whether it is closed, for a wait for its events (this crate's ids
    /// and endpoints; none for others).
    #[doc(hidden)]
    fn life_ref(&self) -> Option<LifeRef> {
        None
    }
}

/// An id's closed state, for [`AsRawCmId::life_ref`] (opaque).
#[doc(hidden)]
pub struct LifeRef(pub(crate) Arc<Life>);

pub(crate) struct IdInner {
    pub(crate) id: *mut c_void,
    pub(crate) owned: bool,
    pub(crate) life: Arc<Life>,
    pub(crate) _channel: Option<Arc<ChannelInner>>,
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
    pub(crate) inner: Arc<IdInner>,
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

    fn life_ref(&self) -> Option<LifeRef> {
        Some(LifeRef(self.inner.life.clone()))
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
            sq_sig_all: 1, // every send completes (each is signaled too: its completion hands its buffers back)
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

    /// Closes it for every clone: each wait for its events, and on what
    /// was made on its context (its CQs, completion channels), ends at once
    /// ([`Closed`](crate::Closed)), as does every later one; rdma_cm's id
    /// is destroyed when the last clone and what holds it go, as before.
    pub fn close(&self) {
        self.inner.life.close();
    }

    /// Whether it (or its channel) was closed.
    pub fn is_closed(&self) -> bool {
        self.inner.life.is_closed()
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
    pub(crate) fn raw(&self) -> raw::rdma_conn_param {
        raw::rdma_conn_param {
            responder_resources: self.responder_resources,
            initiator_depth: self.initiator_depth,
            retry_count: self.retry_count,
            rnr_retry_count: self.rnr_retry_count,
            ..Default::default()
        }
    }
}

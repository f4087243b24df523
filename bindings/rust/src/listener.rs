//! The simple path: [`Endpoint::connect_to`] (a client) and [`Listener`]
//! (a server), each endpoint with a PD, a send CQ and a receive CQ of its
//! own, its receives posted before the connection is established; blocking,
//! or (feature `tokio`) as futures.

use std::io;
use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Duration;

use crate::channel::{CmEvent, EventChannel};
use crate::endpoint::Endpoint;
use crate::id::{CmEventKind, CmId, ConnParam, PortSpace, QpCap};

/// The first address `addr` names.
fn one_addr(addr: impl ToSocketAddrs) -> io::Result<SocketAddr> {
    addr.to_socket_addrs()?
        .next()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no address"))
}

/// An id whose address is resolved (or a connect request's), its QP made:
/// on a PD of its own, its sends completing on a CQ of `max_send_wr`
/// entries, its receives on another of `max_recv_wr`; then `setup` (which
/// posts the receives the peer's first messages land in).
fn endpoint(
    id: CmId,
    cap: QpCap,
    setup: impl FnOnce(&Endpoint) -> io::Result<()>,
) -> io::Result<Endpoint> {
    let ctx = id.context()?;
    let pd = ctx.alloc_pd()?;
    let send_cq = ctx.create_cq(cap.max_send_wr.max(1) as i32, None, 0)?;
    let recv_cq = ctx.create_cq(cap.max_recv_wr.max(1) as i32, None, 0)?;
    let ep = id.create_qp(&pd, &send_cq, &recv_cq, None, cap)?;
    setup(&ep)?;
    Ok(ep)
}

impl Endpoint {
    /// The usual client: an event channel and an id of its own, the address
    /// and route of `addr` resolved, a PD, a send CQ and a receive CQ, the
    /// QP (every send signaled), connected; each step waits `timeout` at
    /// most. [`connect_to_with`](Self::connect_to_with) posts receives
    /// before the connection is established.
    pub fn connect_to(
        addr: impl ToSocketAddrs,
        cap: QpCap,
        param: &ConnParam,
        timeout: Duration,
    ) -> io::Result<Endpoint> {
        Endpoint::connect_to_with(addr, cap, param, timeout, |_| Ok(()))
    }

    /// As [`connect_to`](Self::connect_to), `setup` called on the endpoint
    /// before `rdma_connect` (to post the receives the peer's first
    /// messages land in: `ep.post_recv([RecvWr::new(1, ep.pd().alloc(64)?)])`).
    pub fn connect_to_with(
        addr: impl ToSocketAddrs,
        cap: QpCap,
        param: &ConnParam,
        timeout: Duration,
        setup: impl FnOnce(&Endpoint) -> io::Result<()>,
    ) -> io::Result<Endpoint> {
        let addr = one_addr(addr)?;
        let ch = EventChannel::new()?;
        let id = ch.create_id(PortSpace::Tcp)?;
        id.resolve_addr(addr, timeout)?;
        ch.expect(CmEventKind::AddrResolved, &id, timeout)?;
        id.resolve_route(timeout)?;
        ch.expect(CmEventKind::RouteResolved, &id, timeout)?;
        let ep = endpoint(id, cap, setup)?;
        ep.connect(param)?;
        ch.expect(CmEventKind::Established, &ep, timeout)?;
        Ok(ep)
    }
}

/// A listening id on an event channel of its own: [`accept`](Self::accept)
/// gives each connection as an [`Endpoint`] (a PD, a send CQ and a receive
/// CQ of its own, its receives posted before `rdma_accept`). One connection
/// is set up at a time: an event of another id while one is accepted is an
/// error (the request refused).
pub struct Listener {
    ch: EventChannel,
    id: CmId,
    #[cfg(feature = "tokio")]
    aio: std::sync::OnceLock<crate::AsyncEventChannel>,
}

impl Listener {
    /// An id bound to `addr` (`rdma_bind_addr`), listening
    /// (`rdma_listen`, `backlog`).
    pub fn bind(addr: impl ToSocketAddrs, backlog: i32) -> io::Result<Listener> {
        let addr = one_addr(addr)?;
        let ch = EventChannel::new()?;
        let id = ch.create_id(PortSpace::Tcp)?;
        id.bind(addr)?;
        id.listen(backlog)?;
        Ok(Listener {
            ch,
            id,
            #[cfg(feature = "tokio")]
            aio: std::sync::OnceLock::new(),
        })
    }

    /// The next connection: its connect request (waited for `timeout` at
    /// most), its endpoint made, `setup` called on it (post the receives
    /// there), accepted (`rdma_accept`), established.
    pub fn accept(
        &self,
        cap: QpCap,
        param: &ConnParam,
        timeout: Duration,
        setup: impl FnOnce(&Endpoint) -> io::Result<()>,
    ) -> io::Result<Endpoint> {
        let req = self
            .ch
            .expect(CmEventKind::ConnectRequest, &self.id, timeout)?;
        let ep = endpoint(request(req)?, cap, setup)?;
        ep.accept(param)?;
        self.ch.expect(CmEventKind::Established, &ep, timeout)?;
        Ok(ep)
    }

    /// Its address (`rdma_get_local_addr`).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.id.local_addr()
    }

    /// The listening id.
    pub fn id(&self) -> &CmId {
        &self.id
    }

    /// Its event channel (the accepted endpoints' events come there too).
    pub fn channel(&self) -> &EventChannel {
        &self.ch
    }

    /// Closes it: a wait in [`accept`](Self::accept) (and every wait on an
    /// endpoint it gave, their CQs) ends at once with
    /// [`Closed`](crate::Closed). The id and channel go with `Drop`.
    pub fn close(&self) {
        self.ch.close();
    }
}

fn request(ev: CmEvent) -> io::Result<CmId> {
    ev.into_request()
        .ok_or_else(|| io::Error::other("a connect request without its id"))
}

#[cfg(feature = "tokio")]
mod aio {
    use super::*;
    use crate::AsyncEventChannel;

    impl Endpoint {
        /// [`connect_to_with`](Self::connect_to_with) as a future: each
        /// event awaited on tokio's reactor, `timeout` at most each.
        pub async fn connect_to_async(
            addr: impl ToSocketAddrs,
            cap: QpCap,
            param: &ConnParam,
            timeout: Duration,
            setup: impl FnOnce(&Endpoint) -> io::Result<()>,
        ) -> io::Result<Endpoint> {
            let addr = one_addr(addr)?;
            let ch = AsyncEventChannel::new(EventChannel::new()?)?;
            let id = ch.create_id(PortSpace::Tcp)?;
            id.resolve_addr(addr, timeout)?;
            ch.expect(CmEventKind::AddrResolved, &id, timeout).await?;
            id.resolve_route(timeout)?;
            ch.expect(CmEventKind::RouteResolved, &id, timeout).await?;
            let ep = endpoint(id, cap, setup)?;
            ep.connect(param)?;
            ch.expect(CmEventKind::Established, &ep, timeout).await?;
            Ok(ep)
        }
    }

    impl Listener {
        /// [`accept`](Self::accept) as a future (make it inside a runtime:
        /// the channel is registered with its reactor at the first call).
        pub async fn accept_async(
            &self,
            cap: QpCap,
            param: &ConnParam,
            timeout: Duration,
            setup: impl FnOnce(&Endpoint) -> io::Result<()>,
        ) -> io::Result<Endpoint> {
            let ch = match self.aio.get() {
                Some(ch) => ch,
                None => {
                    let ch = AsyncEventChannel::new(self.ch.clone())?;
                    self.aio.get_or_init(|| ch)
                }
            };
            let req = ch
                .expect(CmEventKind::ConnectRequest, &self.id, timeout)
                .await?;
            let ep = endpoint(request(req)?, cap, setup)?;
            ep.accept(param)?;
            ch.expect(CmEventKind::Established, &ep, timeout).await?;
            Ok(ep)
        }
    }
}

//! The peer's connection, through RDMA CM (sideway::rdmacm). The server
//! binds ADDR:PORT, listens, prints `pingpong: listening`, and accepts one
//! connection; the client resolves ADDR:PORT and connects. As sideway does
//! not wrap rdma_create_ep/rdma_create_qp, the QP is created with sideway's
//! verbs on the cm_id's device and moved through INIT/RTR/RTS with the
//! attributes rdma_init_qp_attr gives (what librdmacm does itself for
//! rdma_create_ep): an RC QP from ibv_create_qp_ex, send and receive queue
//! depth 16, max_inline_data 64; one send CQ and one receive CQ of 16
//! entries each (as rdma_create_ep makes), both from ibv_create_cq_ex; the
//! 16 receives posted before connecting.
use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use sideway::ibverbs::completion::{ExtendedCompletionQueue, GenericCompletionQueue};
use sideway::ibverbs::device_context::DeviceContext;
use sideway::ibverbs::memory_region::MemoryRegion;
use sideway::ibverbs::protection_domain::ProtectionDomain;
use sideway::ibverbs::queue_pair::{
    ExtendedQueuePair, QueuePair, QueuePairState, SendOperationFlags,
};
use sideway::ibverbs::AccessFlags;
use sideway::rdmacm::communication_manager::{
    ConnectionParameter, Event, EventChannel, EventType, Identifier, PortSpace,
};

use crate::datapath::{ok, post_recv};
use crate::exchange::{fail, DEPTH, SIZE};

/// librdmacm's own timeout for rdma_getaddrinfo/rdma_create_ep resolution.
const RESOLVE_TIMEOUT: Duration = Duration::from_millis(2000);

/// The next RDMA CM event on `channel`, which must be of type `want`.
fn expect_event(channel: &Arc<EventChannel>, want: EventType) -> Event {
    let event = ok("rdma_get_cm_event", channel.get_cm_event());
    let got = event.event_type();
    if got != want {
        fail(format!(
            "rdma cm: expected {want:?}, got {got:?} (status {})",
            event.status()
        ));
    }
    event
}

/// Everything of one side's connection, in drop order (QP first, then CQs,
/// MR, PD; the cm ids and the event channel last).
pub struct Side {
    pub r: Resources,
    pub id: Arc<Identifier>,
    pub _listen_id: Option<Arc<Identifier>>,
    pub _channel: Arc<EventChannel>,
}

/// PD, CQs, QP (in INIT) and the receive MR on the cm id's device, with the
/// DEPTH receives posted; in drop order.
pub struct Resources {
    pub qp: ExtendedQueuePair,
    pub send_cq: Arc<ExtendedCompletionQueue>,
    pub recv_cq: Arc<ExtendedCompletionQueue>,
    pub recv_mr: Arc<MemoryRegion>,
    pub pd: Arc<ProtectionDomain>,
    /// The receive slots' memory (DEPTH * SIZE bytes), registered as recv_mr;
    /// only read through raw pointers once a completion says it was written.
    pub recv_buf: Box<[u8]>,
}

fn make_resources(id: &Arc<Identifier>) -> Resources {
    let ctx: Arc<DeviceContext> = id
        .get_device_context()
        .unwrap_or_else(|| fail("rdma cm id has no device (address not bound to an RDMA device?)"));
    let pd = ok("ibv_alloc_pd", ctx.alloc_pd());
    let send_cq = ok(
        "ibv_create_cq_ex (send)",
        ctx.create_cq_builder().setup_cqe(DEPTH as u32).build_ex(),
    );
    let recv_cq = ok(
        "ibv_create_cq_ex (recv)",
        ctx.create_cq_builder().setup_cqe(DEPTH as u32).build_ex(),
    );
    let mut builder = pd.create_qp_builder();
    builder
        .setup_max_send_wr(DEPTH as u32)
        .setup_max_recv_wr(DEPTH as u32)
        .setup_max_send_sge(1)
        .setup_max_recv_sge(1)
        .setup_max_inline_data(SIZE as u32)
        .setup_send_ops_flags(SendOperationFlags::Send)
        .setup_send_cq(GenericCompletionQueue::from(Arc::clone(&send_cq)))
        .setup_recv_cq(GenericCompletionQueue::from(Arc::clone(&recv_cq)));
    let mut qp = ok("ibv_create_qp_ex", builder.build_ex());
    let attr = ok(
        "rdma_init_qp_attr (INIT)",
        id.get_qp_attr(QueuePairState::Init),
    );
    ok("ibv_modify_qp (INIT)", qp.modify(&attr));

    let mut recv_buf = vec![0u8; DEPTH * SIZE].into_boxed_slice();
    // SAFETY: recv_buf lives in Resources beside recv_mr and is dropped after it.
    let recv_mr = ok("ibv_reg_mr", unsafe {
        pd.reg_mr(
            recv_buf.as_mut_ptr() as usize,
            recv_buf.len(),
            AccessFlags::LocalWrite,
        )
    });
    let mut r = Resources {
        qp,
        send_cq,
        recv_cq,
        recv_mr,
        pd,
        recv_buf,
    };
    for slot in 0..DEPTH {
        post_recv(&mut r.qp, &r.recv_mr, r.recv_buf.as_mut_ptr(), slot);
    }
    r
}

/// Moves the QP to RTR, then RTS, with the attributes of the cm id.
fn ready(id: &Identifier, qp: &mut ExtendedQueuePair) {
    let attr = ok(
        "rdma_init_qp_attr (RTR)",
        id.get_qp_attr(QueuePairState::ReadyToReceive),
    );
    ok("ibv_modify_qp (RTR)", qp.modify(&attr));
    let attr = ok(
        "rdma_init_qp_attr (RTS)",
        id.get_qp_attr(QueuePairState::ReadyToSend),
    );
    ok("ibv_modify_qp (RTS)", qp.modify(&attr));
}

fn conn_param(qp: &ExtendedQueuePair) -> ConnectionParameter {
    // Default: responder_resources 1, initiator_depth 1, retry_count 7,
    // rnr_retry_count 7 (pingpong.py's rdma_conn_param).
    let mut param = ConnectionParameter::default();
    param.setup_qp_number(qp.qp_number());
    param
}

pub fn server(addr: SocketAddr) -> Side {
    let channel = ok("rdma_create_event_channel", EventChannel::new());
    let listen_id = ok("rdma_create_id", channel.create_id(PortSpace::Tcp));
    ok("rdma_bind_addr", listen_id.bind_addr(addr));
    ok("rdma_listen", listen_id.listen(1));
    println!("pingpong: listening");
    let _ = std::io::stdout().flush();

    let event = expect_event(&channel, EventType::ConnectRequest);
    let id = event
        .cm_id()
        .unwrap_or_else(|| fail("connect request without an id"));
    drop(event);
    let mut r = make_resources(&id);
    ready(&id, &mut r.qp);
    ok("rdma_accept", id.accept(conn_param(&r.qp)));
    drop(expect_event(&channel, EventType::Established));
    Side {
        r,
        id,
        _listen_id: Some(listen_id),
        _channel: channel,
    }
}

pub fn client(addr: SocketAddr) -> Side {
    let channel = ok("rdma_create_event_channel", EventChannel::new());
    let id = ok("rdma_create_id", channel.create_id(PortSpace::Tcp));
    ok(
        "rdma_resolve_addr",
        id.resolve_addr(None, addr, RESOLVE_TIMEOUT),
    );
    drop(expect_event(&channel, EventType::AddressResolved));
    ok("rdma_resolve_route", id.resolve_route(RESOLVE_TIMEOUT));
    drop(expect_event(&channel, EventType::RouteResolved));
    let mut r = make_resources(&id);
    ok("rdma_connect", id.connect(conn_param(&r.qp)));
    drop(expect_event(&channel, EventType::ConnectResponse));
    ready(&id, &mut r.qp);
    ok("rdma_establish", id.establish());
    Side {
        r,
        id,
        _listen_id: None,
        _channel: channel,
    }
}

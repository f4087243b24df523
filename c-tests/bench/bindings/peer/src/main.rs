//! peer-pingpong: the RC ping-pong of c-tests/bench/pingpong.py (64-byte
//! messages, 16 receive slots, 100 warm-up round trips) written with a peer
//! crate from crates.io, sideway, to compare with the ways of
//! c-tests/bench/bindings/rust (make bench: rs-peer). sideway, not
//! rust-ibverbs' ibverbs (which builds here too): it has the RDMA CM, so the
//! connection is made as ours is; ibverbs has none, and no inline send.
//!
//! Usage: peer-pingpong server|client ADDR PORT ROUNDTRIPS
//!
//! Connection: RDMA CM (sideway::rdmacm). The server binds ADDR:PORT,
//! listens, prints `pingpong: listening`, and accepts one connection; the
//! client resolves ADDR:PORT and connects. As sideway does not wrap
//! rdma_create_ep/rdma_create_qp, the QP is created with sideway's verbs on
//! the cm_id's device and moved through INIT/RTR/RTS with the attributes
//! rdma_init_qp_attr gives (what librdmacm does itself for rdma_create_ep).
//!
//! Data path, sideway's normal (extended verbs) way:
//! - RC QP from ibv_create_qp_ex, send and receive queue depth 16,
//!   max_inline_data 64; one send CQ and one receive CQ of 16 entries each
//!   (as rdma_create_ep makes), both from ibv_create_cq_ex;
//! - every send signaled, from a registered 64-byte buffer, as the ways of
//!   c-tests/bench/bindings/rust send (the safe crate has no inline send):
//!   ibv_wr_start, ibv_wr_send, ibv_wr_set_sge, ibv_wr_complete;
//! - receives: ibv_post_recv (sideway's PostRecvGuard) into one registered
//!   buffer of 16 slots of 64 bytes, all 16 posted before connecting;
//! - waiting: busy polling, one completion at a time (ibv_start_poll, read
//!   the one completion, ibv_end_poll; never ibv_next_poll, see poll_one).
//!
//! The client times the last ROUNDTRIPS round trips and prints
//! `pingpong: way=peer allocs=A latency_us=L` (A: the heap allocations of a
//! round trip, counted by the global allocator). Errors: a message on
//! stderr, exit 1.
use std::io::Write;
use std::net::{SocketAddr, ToSocketAddrs};
use std::process::exit;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sideway::ibverbs::completion::{
    ExtendedCompletionQueue, GenericCompletionQueue, PollCompletionQueueError, WorkCompletionStatus,
};
use sideway::ibverbs::device_context::DeviceContext;
use sideway::ibverbs::memory_region::MemoryRegion;
use sideway::ibverbs::protection_domain::ProtectionDomain;
use sideway::ibverbs::queue_pair::{
    ExtendedQueuePair, PostSendGuard, QueuePair, QueuePairState, SendOperationFlags,
    SetScatterGatherEntry, WorkRequestFlags,
};
use sideway::ibverbs::AccessFlags;
use sideway::rdmacm::communication_manager::{
    ConnectionParameter, Event, EventChannel, EventType, Identifier, PortSpace,
};

const SIZE: usize = 64;
const DEPTH: usize = 16;
const WARMUP: usize = 100;

#[path = "../../allocs.rs"]
mod allocs;
use allocs::{allocs_per, mark};
/// librdmacm's own timeout for rdma_getaddrinfo/rdma_create_ep resolution.
const RESOLVE_TIMEOUT: Duration = Duration::from_millis(2000);
const SEND_WR_ID: u64 = u64::MAX;

fn fail(what: impl std::fmt::Display) -> ! {
    eprintln!("pingpong: {what}");
    exit(1)
}

/// Unwraps `r`, or fails with `what` and the error (with its sources).
fn ok<T, E: std::error::Error>(what: &str, r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| {
        let mut msg = format!("{what}: {e}");
        let mut src = e.source();
        while let Some(s) = src {
            msg.push_str(&format!(": {s}"));
            src = s.source();
        }
        fail(msg)
    })
}

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
struct Side {
    qp: ExtendedQueuePair,
    send_cq: Arc<ExtendedCompletionQueue>,
    recv_cq: Arc<ExtendedCompletionQueue>,
    recv_mr: Arc<MemoryRegion>,
    _pd: Arc<ProtectionDomain>,
    /// The receive slots' memory (DEPTH * SIZE bytes), registered as recv_mr;
    /// only read through raw pointers once a completion says it was written.
    recv_buf: Box<[u8]>,
    id: Arc<Identifier>,
    _listen_id: Option<Arc<Identifier>>,
    _channel: Arc<EventChannel>,
}

/// PD, CQs, QP (in INIT) and the receive MR on the cm id's device, with the
/// DEPTH receives posted.
struct Resources {
    qp: ExtendedQueuePair,
    send_cq: Arc<ExtendedCompletionQueue>,
    recv_cq: Arc<ExtendedCompletionQueue>,
    recv_mr: Arc<MemoryRegion>,
    pd: Arc<ProtectionDomain>,
    recv_buf: Box<[u8]>,
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
    // SAFETY: recv_buf lives in Side beside recv_mr and is dropped after it.
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

/// Posts a receive of SIZE bytes into slot `slot` of the buffer at `base`
/// (wr_id: the slot).
fn post_recv(qp: &mut ExtendedQueuePair, mr: &MemoryRegion, base: *mut u8, slot: usize) {
    let mut guard = qp.start_post_recv();
    let wr = guard.construct_wr(slot as u64);
    // SAFETY: the slot is inside the registered buffer, which outlives the QP.
    unsafe { wr.setup_sge(mr.lkey(), base.add(slot * SIZE) as u64, SIZE as u32) };
    ok("ibv_post_recv", guard.post());
}

/// Posts the SIZE-byte message at `addr` (registered as `mr`), signaled.
#[inline]
fn post_send(qp: &mut ExtendedQueuePair, mr: &MemoryRegion, addr: *const u8) {
    let mut guard = qp.start_post_send();
    let wr = guard
        .construct_wr(SEND_WR_ID, WorkRequestFlags::Signaled)
        .setup_send();
    // SAFETY: the message's buffer is registered as mr and outlives the QP.
    unsafe { wr.setup_sge(mr.lkey(), addr as u64, SIZE as u32) };
    ok("ibv_wr_complete", guard.post());
}

/// Busy-polls `cq` for one completion; returns its wr_id, failing on an
/// unsuccessful status.
///
/// One completion per ibv_start_poll/ibv_end_poll pair: the poller's first
/// item is the completion ibv_start_poll returned, and the poller is dropped
/// (ibv_end_poll) before ibv_next_poll is ever called. (rdma-core 44's rxe
/// also advances the consumer index twice when ibv_next_poll returns ENOENT
/// and ibv_end_poll follows; fixed only in rdma-core 55/61.)
#[inline]
fn poll_one(cq: &ExtendedCompletionQueue, what: &str) -> u64 {
    loop {
        match cq.start_poll() {
            Ok(mut poller) => {
                let (wr_id, status) = match poller.next() {
                    Some(wc) => (wc.wr_id(), wc.status()),
                    None => fail("ibv_start_poll: no completion after success"),
                };
                drop(poller);
                if status != WorkCompletionStatus::Success as u32 {
                    fail(format!(
                        "{what} completion status {status} ({:?}), wr_id {wr_id}",
                        WorkCompletionStatus::from(status)
                    ));
                }
                return wr_id;
            }
            Err(PollCompletionQueueError::CompletionQueueEmpty) => continue,
            Err(e) => ok("ibv_start_poll", Err::<(), _>(e)),
        }
    }
}

fn conn_param(qp: &ExtendedQueuePair) -> ConnectionParameter {
    // Default: responder_resources 1, initiator_depth 1, retry_count 7,
    // rnr_retry_count 7 (pingpong.py's rdma_conn_param).
    let mut param = ConnectionParameter::default();
    param.setup_qp_number(qp.qp_number());
    param
}

fn server(addr: SocketAddr) -> Side {
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
    let attr = ok(
        "rdma_init_qp_attr (RTR)",
        id.get_qp_attr(QueuePairState::ReadyToReceive),
    );
    ok("ibv_modify_qp (RTR)", r.qp.modify(&attr));
    let attr = ok(
        "rdma_init_qp_attr (RTS)",
        id.get_qp_attr(QueuePairState::ReadyToSend),
    );
    ok("ibv_modify_qp (RTS)", r.qp.modify(&attr));
    ok("rdma_accept", id.accept(conn_param(&r.qp)));
    drop(expect_event(&channel, EventType::Established));
    Side {
        qp: r.qp,
        send_cq: r.send_cq,
        recv_cq: r.recv_cq,
        recv_mr: r.recv_mr,
        _pd: r.pd,
        recv_buf: r.recv_buf,
        id,
        _listen_id: Some(listen_id),
        _channel: channel,
    }
}

fn client(addr: SocketAddr) -> Side {
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
    let attr = ok(
        "rdma_init_qp_attr (RTR)",
        id.get_qp_attr(QueuePairState::ReadyToReceive),
    );
    ok("ibv_modify_qp (RTR)", r.qp.modify(&attr));
    let attr = ok(
        "rdma_init_qp_attr (RTS)",
        id.get_qp_attr(QueuePairState::ReadyToSend),
    );
    ok("ibv_modify_qp (RTS)", r.qp.modify(&attr));
    ok("rdma_establish", id.establish());
    Side {
        qp: r.qp,
        send_cq: r.send_cq,
        recv_cq: r.recv_cq,
        recv_mr: r.recv_mr,
        _pd: r.pd,
        recv_buf: r.recv_buf,
        id,
        _listen_id: None,
        _channel: channel,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 5 || (args[1] != "server" && args[1] != "client") {
        fail("usage: peer-pingpong server|client ADDR PORT ROUNDTRIPS");
    }
    let is_server = args[1] == "server";
    let port: u16 = args[3]
        .parse()
        .unwrap_or_else(|_| fail(format!("bad PORT {:?}", args[3])));
    let n: usize = args[4]
        .parse()
        .unwrap_or_else(|_| fail(format!("bad ROUNDTRIPS {:?}", args[4])));
    let addr = ok("resolving ADDR", (args[2].as_str(), port).to_socket_addrs())
        .next()
        .unwrap_or_else(|| fail(format!("no address for {:?}", args[2])));

    let mut side = if is_server {
        server(addr)
    } else {
        client(addr)
    };

    let mut msg = vec![0u8; SIZE].into_boxed_slice();
    msg[..4].copy_from_slice(if is_server { b"pong" } else { b"ping" });
    // SAFETY: msg lives until after send_mr is dropped, below.
    let send_mr = ok("ibv_reg_mr", unsafe {
        side._pd
            .reg_mr(msg.as_mut_ptr() as usize, SIZE, AccessFlags::LocalWrite)
    });
    let text = msg.as_ptr();
    let base = side.recv_buf.as_mut_ptr();
    let iterations = if n > 0 { n + WARMUP } else { 1 };
    let mut t0 = Instant::now();
    for i in 0..iterations {
        if i == WARMUP {
            t0 = Instant::now();
            mark(0);
        }
        let slot = i % DEPTH;
        if is_server {
            poll_one(&side.recv_cq, "receive");
            post_recv(&mut side.qp, &side.recv_mr, base, slot);
            post_send(&mut side.qp, &send_mr, text);
            poll_one(&side.send_cq, "send");
        } else {
            post_send(&mut side.qp, &send_mr, text);
            poll_one(&side.send_cq, "send");
            poll_one(&side.recv_cq, "receive");
            // SAFETY: the slot is inside recv_buf, and its receive completed.
            let got = unsafe { std::slice::from_raw_parts(base.add(slot * SIZE), 4) };
            if got != b"pong" {
                fail(format!("round trip {i}: got {got:?}, not \"pong\""));
            }
            post_recv(&mut side.qp, &side.recv_mr, base, slot);
        }
    }
    let elapsed = t0.elapsed();
    mark(1);

    if !is_server {
        let latency_us = elapsed.as_secs_f64() * 1e6 / n.max(1) as f64;
        println!(
            "pingpong: way=peer allocs={:.1} latency_us={latency_us:.2}",
            allocs_per(n)
        );
        let _ = std::io::stdout().flush();
    }
    // Tear down in order: QP, CQs, MR, PD, then the cm ids and the channel.
    let Side {
        qp,
        send_cq,
        recv_cq,
        recv_mr,
        _pd,
        recv_buf,
        id,
        _listen_id,
        _channel,
    } = side;
    drop(qp);
    drop(send_cq);
    drop(recv_cq);
    drop(recv_mr);
    drop(send_mr);
    drop(msg);
    drop(_pd);
    drop(recv_buf);
    drop(id);
    drop(_listen_id);
    drop(_channel);
}

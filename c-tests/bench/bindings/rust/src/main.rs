//! make bench, Soft-RoCE: c-tests/bench/pingpong.py's ping-pong in Rust (a
//! 64-byte message answered by the peer; the send's and the reply's
//! completions taken; the receive posted again), both sides the same way,
//! and msgrate.c's message rate:
//!
//!   raw    the raw layer (`rdmaverbs::raw`, C names, `unsafe`)
//!   safe   the safe crate: `Endpoint`, `Listener`, `Buf`, `SendWr`, `Cq::poll`
//!   rate   not a ping-pong: msgrate.c's message rate, in the raw layer
//!          (ROUNDTRIPS: the messages)
//!
//! Both ping-pong ways send from registered memory (the safe crate has no
//! inline send) and busy-poll the CQs one completion at a time (its
//! `Cq::wait` sleeps a millisecond after an empty poll), as a peer crate
//! (c-tests/bench/bindings/peer) does.
//!
//! Usage: pingpong WAY server|client ADDR PORT ROUNDTRIPS
//! The client times the last ROUNDTRIPS round trips (after WARMUP) and
//! prints `pingpong: way=WAY allocs=A latency_us=L` (A: the heap
//! allocations of a round trip, counted by the global allocator; `msgrate:
//! way=rust msgs_s=T` for rate); each reply's first bytes are checked.
use std::ffi::{c_void, CString};
use std::io;
use std::process::exit;
use std::ptr::null_mut;
use std::time::{Duration, Instant};

use rdmaverbs::raw as rv;
use rdmaverbs::{Completion, ConnParam, Cq, Endpoint, Listener, QpCap, RecvWr, SendWr};

#[path = "../../allocs.rs"]
mod allocs;
#[path = "../../exchange.rs"]
mod exchange;
use allocs::{allocs_per, mark};
use exchange::{fail, DEPTH, SIZE, WARMUP};

const RATE_WINDOW: usize = 32; // msgrate.c's
const RATE_BATCH: usize = 16;

fn ok<T>(what: &str, r: io::Result<T>) -> T {
    r.unwrap_or_else(|e| fail(format!("{what}: {e}")))
}

/// The raw layer's connected id, its receive slots posted.
struct RawSide {
    id: *mut c_void,
    listen: *mut c_void,
    res: *mut c_void,
    buf: Vec<u8>,
    mr: *mut c_void,
}

impl RawSide {
    /// `sends` the send queue's depth; `recvs` receives posted, in `slots`
    /// slots of SIZE (receive i in slot i % slots, its wr_id that slot).
    unsafe fn new(
        server: bool,
        addr: &str,
        port: &str,
        sends: usize,
        recvs: usize,
        slots: usize,
    ) -> RawSide {
        let (node, service) = (CString::new(addr).unwrap(), CString::new(port).unwrap());
        let hints = rv::rdma_addrinfo {
            ai_port_space: rv::RDMA_PS_TCP,
            ai_flags: if server { rv::RAI_PASSIVE } else { 0 },
            ..Default::default()
        };
        let mut s = RawSide {
            id: null_mut(),
            listen: null_mut(),
            res: null_mut(),
            buf: vec![0u8; slots * SIZE],
            mr: null_mut(),
        };
        unsafe {
            ok(
                "rdma_getaddrinfo",
                rv::rdma_getaddrinfo(node.as_ptr(), service.as_ptr(), &hints, &mut s.res),
            );
            let mut attr = rv::ibv_qp_init_attr {
                cap: rv::ibv_qp_cap {
                    max_send_wr: sends as u32,
                    max_recv_wr: recvs as u32,
                    max_send_sge: 1,
                    max_recv_sge: 1,
                    max_inline_data: SIZE as u32,
                },
                qp_type: rv::IBV_QPT_RC as u32,
                sq_sig_all: 1,
                ..Default::default()
            };
            if server {
                ok(
                    "rdma_create_ep",
                    rv::rdma_create_ep(&mut s.listen, s.res, null_mut(), &mut attr),
                );
                ok("rdma_listen", rv::rdma_listen(s.listen, 1));
                println!("pingpong: listening");
                ok(
                    "rdma_get_request",
                    rv::rdma_get_request(s.listen, &mut s.id),
                );
            } else {
                ok(
                    "rdma_create_ep",
                    rv::rdma_create_ep(&mut s.id, s.res, null_mut(), &mut attr),
                );
            }
            s.mr = ok(
                "rdma_reg_msgs",
                rv::rdma_reg_msgs(s.id, s.buf.as_mut_ptr().cast(), slots * SIZE),
            );
            for i in 0..recvs {
                s.repost(i % slots);
            }
            let mut param = rv::rdma_conn_param {
                responder_resources: 1,
                initiator_depth: 1,
                retry_count: 7,
                rnr_retry_count: 7,
                ..Default::default()
            };
            if server {
                ok("rdma_accept", rv::rdma_accept(s.id, &mut param));
            } else {
                ok("rdma_connect", rv::rdma_connect(s.id, &mut param));
            }
        }
        s
    }

    /// Receives into slot i again (its wr_id: i).
    unsafe fn repost(&mut self, i: usize) {
        let slot = unsafe { self.buf.as_mut_ptr().add(SIZE * i) };
        let r =
            unsafe { rv::rdma_post_recv(self.id, i as *mut c_void, slot.cast(), SIZE, self.mr) };
        ok("rdma_post_recv", r);
    }

    /// The id's send CQ and receive CQ.
    unsafe fn cqs(&self) -> (*mut c_void, *mut c_void) {
        let id = unsafe { &*(self.id as *const rv::rdma_cm_id) };
        (id.send_cq, id.recv_cq)
    }
}

impl Drop for RawSide {
    fn drop(&mut self) {
        // SAFETY: what new() made, each once.
        unsafe {
            let _ = rv::rdma_dereg_mr(self.mr);
            rv::rdma_destroy_ep(self.id);
            if !self.listen.is_null() {
                rv::rdma_destroy_ep(self.listen);
            }
            rv::rdma_freeaddrinfo(self.res);
        }
    }
}

/// Up to `most` completions of `cq` (at least one: busy polling), checked.
unsafe fn take(cq: *mut c_void, wc: &mut [rv::ibv_wc], most: usize) -> usize {
    loop {
        let n = ok("ibv_poll_cq", unsafe {
            rv::ibv_poll_cq(cq, most as i32, wc)
        }) as usize;
        if n > 0 {
            for w in &wc[..n] {
                if w.status != rv::IBV_WC_SUCCESS as u32 {
                    fail(format!("completion status {}", w.status));
                }
            }
            return n;
        }
    }
}

unsafe fn raw(server: bool, addr: &str, port: &str, n: usize) -> Duration {
    let mut s = unsafe { RawSide::new(server, addr, port, DEPTH, DEPTH, DEPTH) };
    let (scq, rcq) = unsafe { s.cqs() };
    let mut msg = vec![0u8; SIZE];
    msg[..4].copy_from_slice(if server { b"pong" } else { b"ping" });
    let msg_mr = ok("rdma_reg_msgs", unsafe {
        rv::rdma_reg_msgs(s.id, msg.as_mut_ptr().cast(), SIZE)
    });
    let mut wc = [rv::ibv_wc::default(); 1];
    let mut t0 = Instant::now();
    for i in 0..if n > 0 { n + WARMUP } else { 1 } {
        if i == WARMUP {
            t0 = Instant::now();
            mark(0);
        }
        unsafe {
            let (id, text) = (s.id, msg.as_ptr() as *mut c_void);
            let send = || {
                ok(
                    "rdma_post_send",
                    rv::rdma_post_send(id, null_mut(), text, SIZE, msg_mr, 0),
                )
            };
            if server {
                take(rcq, &mut wc, 1);
                s.repost(i % DEPTH);
                send();
                take(scq, &mut wc, 1);
            } else {
                send();
                take(scq, &mut wc, 1);
                take(rcq, &mut wc, 1);
                let at = SIZE * (i % DEPTH);
                if &s.buf[at..at + 4] != b"pong" {
                    fail(format!("round trip {i}: no pong"));
                }
                s.repost(i % DEPTH);
            }
        }
    }
    let elapsed = t0.elapsed();
    mark(1);
    // SAFETY: registered above, no longer posted.
    let _ = unsafe { rv::rdma_dereg_mr(msg_mr) };
    elapsed
}

/// The next completion of `cq`, busy polling; checked.
fn next(cq: &Cq) -> Completion {
    loop {
        if let Some(c) = ok("poll", cq.poll(1)).pop() {
            return ok("completion", c.ok());
        }
    }
}

fn safe(server: bool, addr: &str, port: &str, n: usize) -> Duration {
    let t = Duration::from_secs(30);
    let cap = QpCap {
        max_send_wr: DEPTH as u32,
        max_recv_wr: DEPTH as u32,
        max_inline_data: SIZE as u32,
        ..QpCap::default()
    };
    let target = (addr, port.parse::<u16>().unwrap_or_else(|e| fail(e)));
    let post_slots = |ep: &Endpoint| -> io::Result<()> {
        let slots = ep.pd().alloc(DEPTH * SIZE)?.chunks(SIZE);
        ep.post_recv(
            slots
                .into_iter()
                .enumerate()
                .map(|(i, b)| RecvWr::new(i as u64, b)),
        )
        .map_err(|e| e.error)
    };
    let mut listener = None;
    let ep = if server {
        let l = ok("Listener::bind", Listener::bind(target, 1));
        println!("pingpong: listening");
        let ep = ok(
            "accept",
            l.accept(cap, &ConnParam::default(), t, post_slots),
        );
        listener = Some(l);
        ep
    } else {
        ok(
            "connect_to",
            Endpoint::connect_to_with(target, cap, &ConnParam::default(), t, post_slots),
        )
    };
    let mut text = [0u8; SIZE];
    text[..4].copy_from_slice(if server { b"pong" } else { b"ping" });
    let mut msg = Some(ok("alloc_from", ep.pd().alloc_from(&text)));
    let mut t0 = Instant::now();
    for i in 0..if n > 0 { n + WARMUP } else { 1 } {
        if i == WARMUP {
            t0 = Instant::now();
            mark(0);
        }
        let mut send = || {
            let wr = SendWr::send(0, msg.take().unwrap());
            ep.post_send([wr]).unwrap_or_else(|e| fail(e.error));
            msg = next(ep.send_cq()).into_bufs().pop();
        };
        if server {
            let got = next(ep.recv_cq());
            let (id, slot) = (got.wr_id(), got.into_bufs().pop().unwrap());
            ep.post_recv([RecvWr::new(id, slot)])
                .unwrap_or_else(|e| fail(e.error));
            send();
        } else {
            send();
            let got = next(ep.recv_cq());
            let (id, slot) = (got.wr_id(), got.into_bufs().pop().unwrap());
            if &slot[..4] != b"pong" {
                fail(format!("round trip {i}: no pong"));
            }
            ep.post_recv([RecvWr::new(id, slot)])
                .unwrap_or_else(|e| fail(e.error));
        }
    }
    let elapsed = t0.elapsed();
    mark(1);
    drop(ep);
    drop(listener);
    elapsed
}

/// msgrate.c's exchange: the server's n receives posted first (one slot),
/// the client's n inline sends, RATE_WINDOW in flight; completions taken
/// RATE_BATCH at a time (ibv_poll_cq, busy).
unsafe fn rate(server: bool, addr: &str, port: &str, n: usize) -> Duration {
    let recvs = if server { n } else { 1 };
    let s = unsafe { RawSide::new(server, addr, port, RATE_WINDOW, recvs, 1) };
    let (scq, rcq) = unsafe { s.cqs() };
    let mut wc = [rv::ibv_wc::default(); RATE_BATCH];
    let mut msg = [0u8; SIZE];
    msg[..4].copy_from_slice(b"rate");
    let text: *mut c_void = msg.as_mut_ptr().cast();
    let inline = rv::IBV_SEND_INLINE as i32;
    let send = || {
        ok("rdma_post_send", unsafe {
            rv::rdma_post_send(s.id, null_mut(), text, SIZE, null_mut(), inline)
        })
    };
    let t0 = Instant::now();
    unsafe {
        if server {
            let mut done = 0;
            while done < n {
                done += take(rcq, &mut wc, RATE_BATCH);
            }
            send();
            take(scq, &mut wc, 1);
        } else {
            let mut inflight = 0;
            for _ in 0..n {
                if inflight == RATE_WINDOW {
                    inflight -= take(scq, &mut wc, RATE_BATCH);
                }
                send();
                inflight += 1;
            }
            while inflight > 0 {
                inflight -= take(scq, &mut wc, RATE_BATCH);
            }
            take(rcq, &mut wc, 1);
        }
    }
    t0.elapsed()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 6
        || !["raw", "safe", "rate"].contains(&args[1].as_str())
        || !(args[2] == "server" || args[2] == "client")
    {
        eprintln!("usage: pingpong raw|safe|rate server|client ADDR PORT ROUNDTRIPS");
        exit(2);
    }
    let (way, server, addr, port) = (args[1].as_str(), args[2] == "server", &args[3], &args[4]);
    let n: usize = args[5].parse().unwrap_or_else(|e| fail(e));
    // SAFETY: the raw ways hand C only live buffers, structs and out-pointers.
    let elapsed = match way {
        "raw" => unsafe { raw(server, addr, port, n) },
        "safe" => safe(server, addr, port, n),
        _ => unsafe { rate(server, addr, port, n) },
    };
    if !server && way == "rate" {
        println!(
            "msgrate: way=rust msgs_s={:.0}",
            n as f64 / elapsed.as_secs_f64()
        );
    } else if !server {
        println!(
            "pingpong: way={way} allocs={:.1} latency_us={:.2}",
            allocs_per(n),
            elapsed.as_secs_f64() / n.max(1) as f64 * 1e6
        );
    }
}

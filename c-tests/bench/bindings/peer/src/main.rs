//! peer-pingpong: the RC ping-pong of c-tests/bench/pingpong.py (64-byte
//! messages, 16 receive slots, 100 warm-up round trips) written with a peer
//! crate from crates.io, sideway, to compare with the ways of
//! c-tests/bench/bindings/rust (make bench: rs-peer). sideway, not
//! rust-ibverbs' ibverbs (which builds here too): it has the RDMA CM, so the
//! connection is made as ours is; ibverbs has none, and no inline send.
//!
//! Usage: peer-pingpong server|client ADDR PORT ROUNDTRIPS
//!
//! The connection: connect.rs (RDMA CM); the data path: datapath.rs
//! (sideway's extended verbs, busy polling one completion at a time); this
//! file: the arguments and the timed round trips.
//!
//! The client times the last ROUNDTRIPS round trips and prints
//! `pingpong: way=peer allocs=A latency_us=L` (A: the heap allocations of a
//! round trip, counted by the global allocator). Errors: a message on
//! stderr, exit 1.
use std::io::Write;
use std::net::ToSocketAddrs;
use std::time::Instant;

use sideway::ibverbs::AccessFlags;

#[path = "../../allocs.rs"]
mod allocs;
mod connect;
mod datapath;
#[path = "../../exchange.rs"]
mod exchange;
use allocs::{allocs_per, mark};
use connect::{client, server, Resources, Side};
use datapath::{ok, poll_one, post_recv, post_send};
use exchange::{fail, DEPTH, SIZE, WARMUP};

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
        side.r
            .pd
            .reg_mr(msg.as_mut_ptr() as usize, SIZE, AccessFlags::LocalWrite)
    });
    let text = msg.as_ptr();
    let r = &mut side.r;
    let base = r.recv_buf.as_mut_ptr();
    let iterations = if n > 0 { n + WARMUP } else { 1 };
    let mut t0 = Instant::now();
    for i in 0..iterations {
        if i == WARMUP {
            t0 = Instant::now();
            mark(0);
        }
        let slot = i % DEPTH;
        if is_server {
            poll_one(&r.recv_cq, "receive");
            post_recv(&mut r.qp, &r.recv_mr, base, slot);
            post_send(&mut r.qp, &send_mr, text);
            poll_one(&r.send_cq, "send");
        } else {
            post_send(&mut r.qp, &send_mr, text);
            poll_one(&r.send_cq, "send");
            poll_one(&r.recv_cq, "receive");
            // SAFETY: the slot is inside recv_buf, and its receive completed.
            let got = unsafe { std::slice::from_raw_parts(base.add(slot * SIZE), 4) };
            if got != b"pong" {
                fail(format!("round trip {i}: got {got:?}, not \"pong\""));
            }
            post_recv(&mut r.qp, &r.recv_mr, base, slot);
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
        r:
            Resources {
                qp,
                send_cq,
                recv_cq,
                recv_mr,
                pd,
                recv_buf,
            },
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
    drop(pd);
    drop(recv_buf);
    drop(id);
    drop(_listen_id);
    drop(_channel);
}

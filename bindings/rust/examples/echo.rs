//! The minimal RC echo server, as short as the README's client: a client
//! (rdma-core's rdma_client, rdmacm-utils) connects, sends a message, and
//! takes it back. `echo ADDR PORT`; row `rust echo` of make e2e-host.
#![forbid(unsafe_code)]
use rdmaverbs::{ConnParam, Listener, QpCap, RecvWr, SendWr};
use std::time::Duration;

fn main() -> std::io::Result<()> {
    let (t, args) = (
        Duration::from_secs(20),
        std::env::args().collect::<Vec<_>>(),
    );
    let listener = Listener::bind((args[1].as_str(), args[2].parse().unwrap()), 1)?;
    println!("echo: listening");
    let ep = listener.accept(QpCap::default(), &ConnParam::default(), t, |ep| {
        Ok(ep.post_recv([RecvWr::new(1, ep.pd().alloc(64)?)])?) // before rdma_accept
    })?;
    let got = ep.recv_cq().wait(1, t)?.remove(0).ok()?; // bounded: ETIMEDOUT after t
    let (n, mut msg) = (got.byte_len() as usize, got.into_bufs().remove(0));
    msg.set_len(n); // what arrived, sent back
    ep.post_send([SendWr::send(2, msg)])?;
    ep.send_cq().wait(1, t)?.remove(0).ok()?;
    println!("echo: PASS bytes={n}");
    Ok(())
}

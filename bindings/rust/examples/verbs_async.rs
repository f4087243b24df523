//! The verbs exchange of bindings/verbs-protocol.md through the safe crate
//! on tokio (feature `tokio`), as objects.rs does it blocking: as the server
//! against the C peer's client (`peer verbs client`) or as the client
//! against its server. Every wait is a future on a current-thread runtime,
//! bounded: the event channel's and the completion channel's descriptors
//! watched by tokio's AsyncFd, a CQ without a channel polled between 1 ms
//! sleeps. A second task, on the same thread, counts the milliseconds it
//! ran while one of those waits was pending (it can run only while the
//! main task is parked in one); the program prints the count after its
//! PASS line: `async: other task ran N times while waiting`.
//!
//! Usage: verbs_async server|client ADDR PORT

#![forbid(unsafe_code)]

mod common;

use std::future::Future;
use std::io::{self, Write};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use common::*;
use rdmaverbs::{
    Access, AsyncCompChannel, AsyncEventChannel, Buf, CmEventKind, CmId, Completion, ConnParam, Cq,
    Endpoint, EventChannel, Pd, PortSpace, RecvWr, RemoteAddr, SendWr, Srq,
};

/// Set while the main task awaits a wait of the crate's.
static WAITING: AtomicBool = AtomicBool::new(false);
/// The other task's runs while it was set.
static RAN: AtomicU64 = AtomicU64::new(0);

/// Awaits a wait, marked as pending for the other task.
async fn waiting<T>(wait: impl Future<Output = io::Result<T>>) -> io::Result<T> {
    WAITING.store(true, Ordering::SeqCst);
    let r = wait.await;
    WAITING.store(false, Ordering::SeqCst);
    r
}

/// The other task: wakes every millisecond, and counts its runs that
/// found a wait pending.
async fn other_task() {
    loop {
        tokio::time::sleep(Duration::from_millis(1)).await;
        if WAITING.load(Ordering::SeqCst) {
            RAN.fetch_add(1, Ordering::SeqCst);
        }
    }
}

fn main() {
    let (server, addr) = args("verbs_async");
    let role = if server { "server" } else { "client" };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let r = rt.block_on(async {
        let other = tokio::spawn(other_task());
        let r = if server {
            run_server(addr).await
        } else {
            run_client(addr).await
        };
        other.abort();
        r
    });
    match r {
        Ok(line) => {
            println!("{line}");
            println!(
                "async: other task ran {} times while waiting",
                RAN.load(Ordering::SeqCst)
            );
        }
        Err(e) => {
            eprintln!("verbs {role}: {e}");
            std::process::exit(1);
        }
    }
}

/// A side's objects, on the id's context; the SRQ's eight receives posted.
struct Side {
    pd: Pd,
    comp: AsyncCompChannel,
    scq: Cq,
    rcq: Cq,
    srq: Srq,
}

impl Side {
    fn new(id: &CmId) -> io::Result<Side> {
        let ctx = id.context()?;
        let (pd, comp) = (
            ctx.alloc_pd()?,
            AsyncCompChannel::new(ctx.create_comp_channel()?)?,
        );
        let scq = ctx.create_cq(16, None, 0)?;
        let rcq = ctx.create_cq(16, Some(&comp), CQ_CONTEXT)?;
        let srq = pd.create_srq(SLOTS as u32, 1)?;
        let slots = pd.alloc(SLOTS * SLOT)?.chunks(SLOT);
        srq.post_recv(
            slots
                .into_iter()
                .enumerate()
                .map(|(i, b)| RecvWr::new(0x100 + i as u64, b)),
        )?;
        Ok(Side {
            pd,
            comp,
            scq,
            rcq,
            srq,
        })
    }

    fn endpoint(&self, id: CmId) -> io::Result<Endpoint> {
        id.create_qp(&self.pd, &self.scq, &self.rcq, Some(&self.srq), CAP)
    }

    /// The receive CQ's next event, awaited; the CQ armed again, then one
    /// poll of up to 8.
    async fn next_event(&self, solicited_only: bool) -> io::Result<Vec<Completion>> {
        let ev = waiting(self.comp.get_event(WAIT)).await?;
        check(ev.is_for(&self.rcq) && ev.context() == CQ_CONTEXT, || {
            "the event is not the receive CQ's".into()
        })?;
        self.rcq.req_notify(solicited_only)?;
        self.rcq.poll(8)
    }
}

async fn run_client(addr: SocketAddr) -> io::Result<String> {
    // 0. Set up.
    let ch = AsyncEventChannel::new(EventChannel::new()?)?;
    let id = ch.create_id(PortSpace::Tcp)?;
    id.resolve_addr(addr, RESOLVE)?;
    waiting(ch.expect(CmEventKind::AddrResolved, &id, WAIT)).await?;
    id.resolve_route(RESOLVE)?;
    waiting(ch.expect(CmEventKind::RouteResolved, &id, WAIT)).await?;
    let s = Side::new(&id)?;
    let ep = s.endpoint(id)?;
    let qp = ep.qp_num();
    s.rcq.req_notify(false)?;
    ep.connect(&ConnParam::default())?;
    waiting(ch.expect(CmEventKind::Established, &ep, WAIT)).await?;

    // 1. Keys, the first event; armed again for solicited completions.
    let wc = s.next_event(true).await?;
    check(wc.len() == 1, || {
        format!("the keys' event: {} completions", wc.len())
    })?;
    completion(&wc[0], 0x100, RECV, SLOT, GRH, 0, qp)?;
    let keys = &wc[0].bufs()[0];
    let word = RemoteAddr {
        addr: le64(&keys[..8]),
        rkey: u32::from_le_bytes(keys[8..12].try_into().unwrap()),
    };
    check(le64(&keys[16..24]) == INITIAL, || {
        "the word's value is not the initial one".into()
    })?;

    // 2. Atomics, one list; their old values land in three 8-byte buffers.
    let [a, b, c]: [Buf; 3] = s.pd.alloc(24)?.chunks(8).try_into().unwrap();
    ep.post_send([
        SendWr::fetch_add(0x700, a, word, ADD),
        SendWr::compare_swap(0x701, b, word, INITIAL.wrapping_add(ADD), SWAP),
        SendWr::compare_swap(0x702, c, word, INITIAL.wrapping_add(ADD), STALE_SWAP),
    ])?;
    let wc = waiting(s.scq.wait_async(3, WAIT)).await?;
    let opcodes = [
        rdmaverbs::raw::IBV_WC_FETCH_ADD,
        rdmaverbs::raw::IBV_WC_COMP_SWAP,
        rdmaverbs::raw::IBV_WC_COMP_SWAP,
    ];
    for (k, c) in wc.iter().enumerate() {
        completion(c, 0x700 + k as u64, opcodes[k], 8, 0, 0, qp)?;
    }
    let old: Vec<u64> = wc
        .iter()
        .map(|c| u64::from_ne_bytes(c.bufs()[0][..8].try_into().unwrap()))
        .collect();
    check(old == [INITIAL, INITIAL.wrapping_add(ADD), SWAP], || {
        format!("the atomics' old values {old:x?}")
    })?;

    // 3. Four sends into the server's SRQ, two SGEs each, immediate data.
    let mut slots = s.pd.alloc(5 * SLOT)?.chunks(SLOT);
    let done = slots.pop().unwrap();
    let sends = slots.into_iter().enumerate().map(|(k, mut slot)| {
        slot.copy_from_slice(&pattern(0xc1, k, SLOT));
        let (head, tail) = slot.split_at(16);
        SendWr::send_with_imm(0x300 + k as u64, 0xc0de_0000 + k as u32, [head, tail])
    });
    ep.post_send(sends.collect::<Vec<_>>())?;
    for (k, c) in waiting(s.scq.wait_async(4, WAIT)).await?.iter().enumerate() {
        completion(c, 0x300 + k as u64, SEND, SLOT, WITH_IMM, 0, qp)?;
    }

    // 4. The server's five, the event at the last (solicited): five at once.
    let wc = s.next_event(false).await?;
    check(wc.len() == 5, || {
        format!(
            "the solicited event: {} completions in one poll, not 5",
            wc.len()
        )
    })?;
    for (k, (c, len)) in wc.iter().zip(SERVER_LENS).enumerate() {
        completion(
            c,
            0x101 + k as u64,
            RECV,
            len,
            GRH | WITH_IMM,
            0x5e4d_0000 + k as u32,
            qp,
        )?;
        check(c.bufs()[0][..len] == pattern(0x51, k, len), || {
            format!("message {k}: its bytes differ")
        })?;
    }

    // 5. DONE, and the server's DONE with the word's last value.
    let mut msg = done;
    msg[..4].copy_from_slice(b"DONE");
    ep.post_send([SendWr::send(0x500, msg)])?;
    completion(
        &waiting(s.scq.wait_async(1, WAIT)).await?[0],
        0x500,
        SEND,
        SLOT,
        0,
        0,
        qp,
    )?;
    let wc = s.next_event(false).await?;
    check(wc.len() == 1, || {
        format!("the DONE event: {} completions", wc.len())
    })?;
    completion(&wc[0], 0x106, RECV, SLOT, GRH, 0, qp)?;
    let last = &wc[0].bufs()[0];
    check(&last[..4] == b"DONE" && le64(&last[8..16]) == SWAP, || {
        "no DONE with the word's value".into()
    })?;

    // 6. Disconnect; the objects close themselves, in order, as they go.
    ep.disconnect()?;
    waiting(ch.expect(CmEventKind::Disconnected, &ep, WAIT)).await?;
    Ok("verbs: PASS role=client completions=15 bytes=248".into())
}

async fn run_server(addr: SocketAddr) -> io::Result<String> {
    // 0. Set up: listen; the request's id; the objects; the word.
    let ch = AsyncEventChannel::new(EventChannel::new()?)?;
    let listen = ch.create_id(PortSpace::Tcp)?;
    listen.bind(addr)?;
    listen.listen(1)?;
    println!("verbs: listening");
    io::stdout().flush()?;
    let request = waiting(ch.expect(CmEventKind::ConnectRequest, &listen, WAIT)).await?;
    let id = request.into_request().unwrap();
    let s = Side::new(&id)?;
    let word =
        s.pd.alloc_window(24, Access::REMOTE_ATOMIC | Access::REMOTE_READ)?;
    word.store_u64(0, INITIAL);
    let ep = s.endpoint(id)?;
    let qp = ep.qp_num();
    ep.accept(&ConnParam::default())?;
    waiting(ch.expect(CmEventKind::Established, &ep, WAIT)).await?;

    // 1. Keys: the word's address, its rkey, its value.
    let mut slots = s.pd.alloc(5 * SLOT)?.chunks(SLOT);
    let mut keys = slots.remove(0);
    keys[..8].copy_from_slice(&word.addr().to_le_bytes());
    keys[8..12].copy_from_slice(&word.rkey().to_le_bytes());
    keys[16..24].copy_from_slice(&INITIAL.to_le_bytes());
    ep.post_send([SendWr::send(0x200, keys)])?;
    let sent = waiting(s.scq.wait_async(1, WAIT)).await?.remove(0);
    completion(&sent, 0x200, SEND, SLOT, 0, 0, qp)?;
    slots.insert(0, sent.into_bufs().remove(0));

    // 3. The client's four sends, into the SRQ (the receive CQ polled).
    for (k, c) in waiting(s.rcq.wait_async(4, WAIT)).await?.iter().enumerate() {
        completion(
            c,
            0x100 + k as u64,
            RECV,
            SLOT,
            GRH | WITH_IMM,
            0xc0de_0000 + k as u32,
            qp,
        )?;
        check(c.bufs()[0][..] == pattern(0xc1, k, SLOT), || {
            format!("message {k}: a byte differs")
        })?;
    }

    // 4. Five sends, the last solicited: the client's event.
    let sends: Vec<SendWr> = slots
        .into_iter()
        .zip(SERVER_LENS)
        .enumerate()
        .map(|(k, (mut slot, len))| {
            slot.set_len(len);
            slot.copy_from_slice(&pattern(0x51, k, len));
            let w = SendWr::send_with_imm(0x300 + k as u64, 0x5e4d_0000 + k as u32, slot);
            if k == 4 {
                w.solicited()
            } else {
                w
            }
        })
        .collect();
    ep.post_send(sends)?;
    let mut sent = waiting(s.scq.wait_async(5, WAIT)).await?;
    for (k, (c, len)) in sent.iter().zip(SERVER_LENS).enumerate() {
        completion(c, 0x300 + k as u64, SEND, len, WITH_IMM, 0, qp)?;
    }

    // 5. DONE: the word is the compare-and-swap's; DONE and the word back.
    let c = waiting(s.rcq.wait_async(1, WAIT)).await?.remove(0);
    completion(&c, 0x104, RECV, SLOT, GRH, 0, qp)?;
    check(&c.bufs()[0][..4] == b"DONE", || "no DONE".into())?;
    check(word.load_u64(0) == SWAP, || {
        "the word is not the compare-and-swap's value".into()
    })?;
    let mut reply = sent.remove(0).into_bufs().remove(0);
    reply.set_len(SLOT);
    reply.fill(0);
    reply[..4].copy_from_slice(b"DONE");
    reply[8..16].copy_from_slice(&word.load_u64(0).to_le_bytes());
    ep.post_send([SendWr::send(0x400, reply)])?;
    completion(
        &waiting(s.scq.wait_async(1, WAIT)).await?[0],
        0x400,
        SEND,
        SLOT,
        0,
        0,
        qp,
    )?;

    // 6. The client's disconnect; the objects close themselves as they go.
    waiting(ch.expect(CmEventKind::Disconnected, &ep, WAIT)).await?;
    Ok(format!(
        "verbs: PASS role=server completions=12 word={:#x}",
        word.load_u64(0)
    ))
}

//! The verbs exchange of bindings/verbs-protocol.md through the safe crate,
//! as the server against the C peer's client (`peer verbs client`) or as
//! the client against its server: an event channel and ids, a PD, two CQs
//! (the receive CQ on a completion channel), an SRQ, the endpoint (the
//! id's QP on them), registered buffers moved into each post and handed
//! back by its completion, atomics on the server's word, a wait on the
//! completion channel, five completions in one poll. No `unsafe`, no
//! teardown: dropping the objects closes them in order. VERBS_PROFILE=iwarp
//! in the environment: the exchange's iWARP profile (the client speaks
//! first, no atomics, no immediate data, no GRH; the fields RC leaves unset
//! not checked: siw does not write them).
//!
//! Usage: objects server|client ADDR PORT

#![forbid(unsafe_code)]

mod common;

use std::io::{self, Write};
use std::net::SocketAddr;

use common::*;
use rdmaverbs::{
    Access, Buf, CmEventKind, CmId, CompChannel, Completion, ConnParam, Cq, Endpoint, EventChannel,
    Pd, PortSpace, RecvWr, RemoteAddr, SendWr, Srq,
};

fn main() {
    let (server, addr) = args("objects");
    let role = if server { "server" } else { "client" };
    match if server {
        run_server(addr)
    } else {
        run_client(addr)
    } {
        Ok(line) => println!("{line}"),
        Err(e) => {
            eprintln!("verbs {role}: {e}");
            std::process::exit(1);
        }
    }
}

/// A side's objects, on the id's context; the SRQ's eight receives posted
/// (slot i of one registered buffer, wr_id 0x100 + i).
struct Side {
    pd: Pd,
    comp: CompChannel,
    scq: Cq,
    rcq: Cq,
    srq: Srq,
}

impl Side {
    fn new(id: &CmId) -> io::Result<Side> {
        let ctx = id.context()?;
        let (pd, comp) = (ctx.alloc_pd()?, ctx.create_comp_channel()?);
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

    /// The receive CQ's next event on its completion channel (acknowledged
    /// by get_event), the CQ armed again (solicited_only), then one poll of
    /// up to 8.
    fn next_event(&self, solicited_only: bool) -> io::Result<Vec<Completion>> {
        let ev = self.comp.get_event(WAIT)?;
        check(ev.is_for(&self.rcq) && ev.context() == CQ_CONTEXT, || {
            "the event is not the receive CQ's".into()
        })?;
        self.rcq.req_notify(solicited_only)?;
        self.rcq.poll(8)
    }

    /// Steps 4 and 5: the receive CQ's next event (RoCE); on iWARP its n
    /// completions by the bounded wait (siw, Linux 6.1, signals no
    /// solicited completion).
    fn received(&self, n: usize) -> io::Result<Vec<Completion>> {
        if iwarp() {
            self.rcq.wait(n, WAIT)
        } else {
            self.next_event(false)
        }
    }
}

fn run_client(addr: SocketAddr) -> io::Result<String> {
    // 0. Set up.
    let ch = EventChannel::new()?;
    let id = ch.create_id(PortSpace::Tcp)?;
    id.resolve_addr(addr, RESOLVE)?;
    ch.expect(CmEventKind::AddrResolved, &id, WAIT)?;
    id.resolve_route(RESOLVE)?;
    ch.expect(CmEventKind::RouteResolved, &id, WAIT)?;
    let s = Side::new(&id)?;
    let ep = s.endpoint(id)?;
    let qp = ep.qp_num();
    s.rcq.req_notify(false)?;
    ep.connect(&ConnParam::default())?;
    ch.expect(CmEventKind::Established, &ep, WAIT)?;
    let mut slots = s.pd.alloc(5 * SLOT)?.chunks(SLOT);
    let done = slots.pop().unwrap();
    if iwarp() {
        client_sends(&s, &ep, slots, qp)?; // the client speaks first
        slots = Vec::new();
    }

    // 1. Keys, the first event; armed again for solicited completions.
    let wc = s.next_event(true)?;
    check(wc.len() == 1, || {
        format!("the keys' event: {} completions", wc.len())
    })?;
    completion(&wc[0], 0x100, RECV, SLOT, grh(), 0, qp)?;
    let keys = &wc[0].bufs()[0];
    let word = RemoteAddr {
        addr: le64(&keys[..8]),
        rkey: u32::from_le_bytes(keys[8..12].try_into().unwrap()),
    };
    check(le64(&keys[16..24]) == INITIAL, || {
        "the word's value is not the initial one".into()
    })?;

    // 2. Atomics, one list; their old values land in three 8-byte buffers.
    // iWARP has none: a read of the word; then a write of SWAP and a read
    // back, one list (a write completes as siw sends it: after a read in
    // one list, its completion would come first).
    let [a, mut b, c]: [Buf; 3] = s.pd.alloc(24)?.chunks(8).try_into().unwrap();
    let mut wc = Vec::new();
    let (opcodes, second) = if iwarp() {
        b.copy_from_slice(&SWAP.to_ne_bytes());
        ep.post_send([SendWr::read(0x700, a, word)])?;
        wc = s.scq.wait(1, WAIT)?;
        ep.post_send([SendWr::write(0x701, b, word), SendWr::read(0x702, c, word)])?;
        ([raw_op::READ, raw_op::WRITE, raw_op::READ], SWAP)
    } else {
        ep.post_send([
            SendWr::fetch_add(0x700, a, word, ADD),
            SendWr::compare_swap(0x701, b, word, INITIAL.wrapping_add(ADD), SWAP),
            SendWr::compare_swap(0x702, c, word, INITIAL.wrapping_add(ADD), STALE_SWAP),
        ])?;
        (
            [raw_op::FETCH_ADD, raw_op::COMP_SWAP, raw_op::COMP_SWAP],
            INITIAL.wrapping_add(ADD),
        )
    };
    wc.extend(s.scq.wait(3 - wc.len(), WAIT)?);
    for (k, c) in wc.iter().enumerate() {
        completion(c, 0x700 + k as u64, opcodes[k], 8, 0, 0, qp)?;
    }
    let old: Vec<u64> = wc
        .iter()
        .map(|c| u64::from_ne_bytes(c.bufs()[0][..8].try_into().unwrap()))
        .collect();
    check(old == [INITIAL, second, SWAP], || {
        format!("the atomics' old values {old:x?}")
    })?;

    if !iwarp() {
        client_sends(&s, &ep, slots, qp)?;
    }

    // 4. The server's five, the event at the last (solicited): five at once.
    let wc = s.received(5)?;
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
            grh() | with_imm(),
            imm(0x5e4d_0000 + k as u32),
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
    completion(&s.scq.wait(1, WAIT)?[0], 0x500, SEND, SLOT, 0, 0, qp)?;
    let wc = s.received(1)?;
    check(wc.len() == 1, || {
        format!("the DONE event: {} completions", wc.len())
    })?;
    completion(&wc[0], 0x106, RECV, SLOT, grh(), 0, qp)?;
    let last = &wc[0].bufs()[0];
    check(&last[..4] == b"DONE" && le64(&last[8..16]) == SWAP, || {
        "no DONE with the word's value".into()
    })?;

    // 6. Disconnect; the objects close themselves, in order, as they go.
    ep.disconnect()?;
    ch.expect(CmEventKind::Disconnected, &ep, WAIT)?;
    Ok("verbs: PASS role=client completions=15 bytes=248".into())
}

/// 3. Four sends into the server's SRQ, two SGEs each (16 and 48 bytes of
/// a slot: two buffers), immediate data.
fn client_sends(s: &Side, ep: &Endpoint, slots: Vec<Buf>, qp: u32) -> io::Result<()> {
    let sends = slots.into_iter().enumerate().map(|(k, mut slot)| {
        slot.copy_from_slice(&pattern(0xc1, k, SLOT));
        let (head, tail) = slot.split_at(16);
        send_imm(0x300 + k as u64, 0xc0de_0000 + k as u32, [head, tail])
    });
    ep.post_send(sends.collect::<Vec<_>>())?;
    for (k, c) in s.scq.wait(4, WAIT)?.iter().enumerate() {
        completion(c, 0x300 + k as u64, SEND, SLOT, with_imm(), 0, qp)?;
    }
    Ok(())
}

fn run_server(addr: SocketAddr) -> io::Result<String> {
    // 0. Set up: listen; the request's id; the objects; the word the
    // client's atomics update (a window: the peer reaches it by its key).
    let ch = EventChannel::new()?;
    let listen = ch.create_id(PortSpace::Tcp)?;
    listen.bind(addr)?;
    listen.listen(1)?;
    println!("verbs: listening");
    io::stdout().flush()?;
    let id = ch
        .expect(CmEventKind::ConnectRequest, &listen, WAIT)?
        .into_request()
        .unwrap();
    let s = Side::new(&id)?;
    let remote = if iwarp() {
        Access::REMOTE_WRITE
    } else {
        Access::REMOTE_ATOMIC
    };
    let word = s.pd.alloc_window(24, remote | Access::REMOTE_READ)?;
    word.store_u64(0, INITIAL);
    let ep = s.endpoint(id)?;
    let qp = ep.qp_num();
    ep.accept(&ConnParam::default())?;
    ch.expect(CmEventKind::Established, &ep, WAIT)?;

    // 1. Keys: the word's address, its rkey, its value (on iWARP after
    // step 3: the client speaks first).
    let mut slots = s.pd.alloc(5 * SLOT)?.chunks(SLOT);
    let send_keys = |slots: &mut Vec<Buf>| -> io::Result<()> {
        let mut keys = slots.remove(0);
        keys[..8].copy_from_slice(&word.addr().to_le_bytes());
        keys[8..12].copy_from_slice(&word.rkey().to_le_bytes());
        keys[16..24].copy_from_slice(&INITIAL.to_le_bytes());
        ep.post_send([SendWr::send(0x200, keys)])?;
        let sent = s.scq.wait(1, WAIT)?.remove(0);
        completion(&sent, 0x200, SEND, SLOT, 0, 0, qp)?;
        slots.insert(0, sent.into_bufs().remove(0));
        Ok(())
    };
    if !iwarp() {
        send_keys(&mut slots)?;
    }

    // 3. The client's four sends, into the SRQ.
    for (k, c) in s.rcq.wait(4, WAIT)?.iter().enumerate() {
        completion(
            c,
            0x100 + k as u64,
            RECV,
            SLOT,
            grh() | with_imm(),
            imm(0xc0de_0000 + k as u32),
            qp,
        )?;
        check(c.bufs()[0][..] == pattern(0xc1, k, SLOT), || {
            format!("message {k}: a byte differs")
        })?;
    }
    if iwarp() {
        send_keys(&mut slots)?;
        // The client's write of SWAP into the word, before step 4: the five
        // must not join the keys in its first poll (on RoCE its four sends
        // come between).
        let end = std::time::Instant::now() + WAIT;
        while word.load_u64(0) != SWAP {
            check(std::time::Instant::now() < end, || {
                "the client's write of SWAP did not come within the wait".into()
            })?;
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    // 4. Five sends, the last solicited: the client's event.
    let sends: Vec<SendWr> = slots
        .into_iter()
        .zip(SERVER_LENS)
        .enumerate()
        .map(|(k, (mut slot, len))| {
            slot.set_len(len);
            slot.copy_from_slice(&pattern(0x51, k, len));
            let w = send_imm(0x300 + k as u64, 0x5e4d_0000 + k as u32, slot);
            if k == 4 {
                w.solicited()
            } else {
                w
            }
        })
        .collect();
    ep.post_send(sends)?;
    let mut sent = s.scq.wait(5, WAIT)?;
    for (k, (c, len)) in sent.iter().zip(SERVER_LENS).enumerate() {
        completion(c, 0x300 + k as u64, SEND, len, with_imm(), 0, qp)?;
    }

    // 5. DONE: the word is the compare-and-swap's; DONE and the word back.
    let c = s.rcq.wait(1, WAIT)?.remove(0);
    completion(&c, 0x104, RECV, SLOT, grh(), 0, qp)?;
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
    completion(&s.scq.wait(1, WAIT)?[0], 0x400, SEND, SLOT, 0, 0, qp)?;

    // 6. The client's disconnect; the objects close themselves as they go.
    ch.expect(CmEventKind::Disconnected, &ep, WAIT)?;
    Ok(format!(
        "verbs: PASS role=server completions=12 word={:#x}",
        word.load_u64(0)
    ))
}

/// The atomics' completion opcodes, and iWARP's read and write.
mod raw_op {
    pub const FETCH_ADD: i32 = rdmaverbs::raw::IBV_WC_FETCH_ADD;
    pub const COMP_SWAP: i32 = rdmaverbs::raw::IBV_WC_COMP_SWAP;
    pub const READ: i32 = rdmaverbs::raw::IBV_WC_RDMA_READ;
    pub const WRITE: i32 = rdmaverbs::raw::IBV_WC_RDMA_WRITE;
}

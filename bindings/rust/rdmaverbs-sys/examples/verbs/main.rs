//! The verbs exchange of bindings/verbs-protocol.md from Rust, as the client
//! against the C peer's server (`peer verbs server ADDR PORT`), through the
//! raw layer only (the rdmaverbs-sys crate): the RDMAVERBS_1.3 exports
//! (ibv_post_send, ibv_post_srq_recv, ibv_poll_cq, ibv_req_notify_cq) and the
//! real librdmacm and libibverbs calls (an event channel and an id, a PD, two
//! CQs, the receive CQ's completion channel, an SRQ, the id's QP on them,
//! MRs). The safe crate's version of the same exchange is
//! bindings/rust/examples/objects.rs.
//!
//! Usage: verbs client ADDR PORT

mod events;
mod mem;
mod side;

use std::ffi::{c_int, CString};
use std::io;
use std::process::exit;
use std::ptr::null_mut;

use rdmaverbs_sys as rv;

use events::{completion, event};
use side::Side;

const SLOT: usize = 64;
const SLOTS: usize = 8;
const INITIAL: u64 = 0x1122_3344_5566_7788;
const ADD: u64 = 0x1000_0000_0000_0001;
const SWAP: u64 = 0x0fed_cba9_8765_4321;
const STALE_SWAP: u64 = 0xdead_dead_dead_dead;
/// The receive CQ's cq_context, as ibv_get_cq_event gives it back.
const CQ_CONTEXT: usize = 0xc0ffee;
const WAIT_MS: c_int = 60_000;
const SERVER_LENS: [u32; 5] = [8, 16, 24, 32, 40];

fn fail(what: impl std::fmt::Display) -> ! {
    eprintln!("verbs client: {what}");
    exit(1)
}

fn check(ok: bool, what: impl std::fmt::Display) {
    if !ok {
        fail(what)
    }
}

fn ok<T>(what: &str, r: io::Result<T>) -> T {
    r.unwrap_or_else(|e| fail(format!("{what}: {e}")))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 || args[1] != "client" {
        eprintln!("usage: verbs client ADDR PORT");
        exit(2);
    }
    let node = CString::new(args[2].as_str()).unwrap();
    let service = CString::new(args[3].as_str()).unwrap();
    // SAFETY: every pointer handed to C is an object of C's still alive, a
    // Mem, or a struct or array that lives across the call.
    unsafe { client(&node, &service) };
    println!("verbs: PASS role=client completions=15 bytes=248");
}

unsafe fn client(node: &CString, service: &CString) {
    unsafe {
        // 0. Set up: an event channel and an id, the address and route
        // resolved, the objects and the QP, the SRQ's receives, the receive
        // CQ armed; connect.
        let hints = rv::rdma_addrinfo {
            ai_port_space: rv::RDMA_PS_TCP,
            ..Default::default()
        };
        let mut res = null_mut();
        ok(
            "rdma_getaddrinfo",
            rv::rdma_getaddrinfo(node.as_ptr(), service.as_ptr(), &hints, &mut res),
        );
        let channel = ok("rdma_create_event_channel", rv::rdma_create_event_channel());
        let mut id = null_mut();
        ok(
            "rdma_create_id",
            rv::rdma_create_id(channel, &mut id, null_mut(), rv::RDMA_PS_TCP as u32),
        );
        let dst = (*res.cast::<rv::rdma_addrinfo>()).ai_dst_addr;
        ok(
            "rdma_resolve_addr",
            rv::rdma_resolve_addr(id, null_mut(), dst, 2000),
        );
        event(channel, rv::RDMA_CM_EVENT_ADDR_RESOLVED, id);
        ok("rdma_resolve_route", rv::rdma_resolve_route(id, 2000));
        event(channel, rv::RDMA_CM_EVENT_ROUTE_RESOLVED, id);
        let s = Side::new(id);
        ok("ibv_req_notify_cq", rv::ibv_req_notify_cq(s.rcq, 0));
        let mut param = rv::rdma_conn_param {
            responder_resources: 1,
            initiator_depth: 1,
            retry_count: 7,
            rnr_retry_count: 7,
            ..Default::default()
        };
        ok("rdma_connect", rv::rdma_connect(id, &mut param));
        event(channel, rv::RDMA_CM_EVENT_ESTABLISHED, id);
        let recv_flags = rv::IBV_WC_GRH; // a receive's flags on RoCE (rxe)

        // 1. Keys, the first event; the CQ armed again for solicited
        // completions.
        let wc = s.next_event(true);
        check(
            wc.len() == 1,
            format!("the keys' event: {} completions", wc.len()),
        );
        completion(
            &wc[0],
            0x100,
            rv::IBV_WC_RECV,
            SLOT as u32,
            recv_flags,
            0,
            s.qp_num,
        );
        let keys = s.recv.read(0, 24);
        let word = u64::from_le_bytes(keys[..8].try_into().unwrap());
        let rkey = u32::from_le_bytes(keys[8..12].try_into().unwrap());
        let initial = u64::from_le_bytes(keys[16..24].try_into().unwrap());
        check(
            initial == INITIAL,
            format!("the word's value {initial:#x} is not the initial one"),
        );

        // 2. Atomics, one list: fetch-and-add, compare-and-swap, a stale one.
        let lkey = s.lkey(2);
        let sges: Vec<rv::ibv_sge> = (0..3)
            .map(|k| rv::ibv_sge {
                addr: s.atom.addr(8 * k),
                length: 8,
                lkey,
            })
            .collect();
        let mut wrs: Vec<rv::ibv_send_wr> = (0..3)
            .map(|k| {
                let mut w = rv::ibv_send_wr {
                    wr_id: 0x700 + k as u64,
                    sg_list: (&sges[k] as *const rv::ibv_sge).cast_mut().cast(),
                    num_sge: 1,
                    send_flags: rv::IBV_SEND_SIGNALED as u32,
                    ..Default::default()
                };
                w.opcode = if k == 0 {
                    rv::IBV_WR_ATOMIC_FETCH_AND_ADD
                } else {
                    rv::IBV_WR_ATOMIC_CMP_AND_SWP
                } as u32;
                w.wr.atomic = rv::ibv_send_wr_wr_atomic {
                    remote_addr: word,
                    rkey,
                    compare_add: if k == 0 {
                        ADD
                    } else {
                        INITIAL.wrapping_add(ADD)
                    },
                    swap: [0, SWAP, STALE_SWAP][k],
                };
                w
            })
            .collect();
        let wc = s.post(&mut wrs);
        for (k, opcode) in [
            rv::IBV_WC_FETCH_ADD,
            rv::IBV_WC_COMP_SWAP,
            rv::IBV_WC_COMP_SWAP,
        ]
        .into_iter()
        .enumerate()
        {
            completion(&wc[k], 0x700 + k as u64, opcode, 8, 0, 0, s.qp_num);
        }
        let old = [s.atom.word(0), s.atom.word(1), s.atom.word(2)];
        check(
            old == [INITIAL, INITIAL.wrapping_add(ADD), SWAP],
            format!("the atomics' old values {old:x?}"),
        );

        // 3. Four sends into the server's SRQ, one list, two SGEs each,
        // immediate data 0xc0de0000 + k (network order).
        let lkey = s.lkey(1);
        let mut sges = Vec::new();
        for k in 0..4 {
            let message: Vec<u8> = (0..SLOT).map(|j| (0xc1 + 7 * k + j) as u8).collect();
            s.send.write(SLOT * k, &message);
            sges.push(rv::ibv_sge {
                addr: s.send.addr(SLOT * k),
                length: 16,
                lkey,
            });
            sges.push(rv::ibv_sge {
                addr: s.send.addr(SLOT * k + 16),
                length: SLOT as u32 - 16,
                lkey,
            });
        }
        let mut wrs: Vec<rv::ibv_send_wr> = (0..4)
            .map(|k| {
                let mut w = rv::ibv_send_wr {
                    wr_id: 0x300 + k as u64,
                    sg_list: (&sges[2 * k] as *const rv::ibv_sge).cast_mut().cast(),
                    num_sge: 2,
                    send_flags: rv::IBV_SEND_SIGNALED as u32,
                    imm_data: (0xc0de_0000 + k as u32).to_be(),
                    ..Default::default()
                };
                w.opcode = rv::IBV_WR_SEND_WITH_IMM as u32;
                w
            })
            .collect();
        for (k, c) in s.post(&mut wrs).iter().enumerate() {
            completion(
                c,
                0x300 + k as u64,
                rv::IBV_WC_SEND,
                SLOT as u32,
                rv::IBV_WC_WITH_IMM,
                0,
                s.qp_num,
            );
        }

        // 4. The server's five, the event at the last (solicited): five at once.
        let wc = s.next_event(false);
        check(
            wc.len() == 5,
            format!(
                "the solicited event: {} completions in one poll, not 5",
                wc.len()
            ),
        );
        for (k, &len) in SERVER_LENS.iter().enumerate() {
            completion(
                &wc[k],
                0x101 + k as u64,
                rv::IBV_WC_RECV,
                len,
                recv_flags | rv::IBV_WC_WITH_IMM,
                0x5e4d_0000 + k as u32,
                s.qp_num,
            );
            let want: Vec<u8> = (0..len as usize)
                .map(|j| (0x51 + 7 * k + j) as u8)
                .collect();
            check(
                s.recv.read(SLOT * (1 + k), len as usize) == want,
                format!("message {k}: its bytes differ"),
            );
        }

        // 5. DONE, and the server's DONE with the word's last value.
        let mut done = [0u8; SLOT];
        done[..4].copy_from_slice(b"DONE");
        s.send.write(0, &done);
        let sge = rv::ibv_sge {
            addr: s.send.addr(0),
            length: SLOT as u32,
            lkey,
        };
        let mut wrs = [rv::ibv_send_wr {
            wr_id: 0x500,
            sg_list: (&sge as *const rv::ibv_sge).cast_mut().cast(),
            num_sge: 1,
            opcode: rv::IBV_WR_SEND as u32,
            send_flags: rv::IBV_SEND_SIGNALED as u32,
            ..Default::default()
        }];
        completion(
            &s.post(&mut wrs)[0],
            0x500,
            rv::IBV_WC_SEND,
            SLOT as u32,
            0,
            0,
            s.qp_num,
        );
        let wc = s.next_event(false);
        check(
            wc.len() == 1,
            format!("the DONE event: {} completions", wc.len()),
        );
        completion(
            &wc[0],
            0x106,
            rv::IBV_WC_RECV,
            SLOT as u32,
            recv_flags,
            0,
            s.qp_num,
        );
        let last = s.recv.read(6 * SLOT, 16);
        let value = u64::from_le_bytes(last[8..16].try_into().unwrap());
        check(
            &last[..4] == b"DONE" && value == SWAP,
            format!("no DONE with the word's value: {:?} {value:#x}", &last[..4]),
        );

        // 6. Teardown.
        ok("rdma_disconnect", rv::rdma_disconnect(id));
        event(channel, rv::RDMA_CM_EVENT_DISCONNECTED, id);
        s.teardown();
        rv::rdma_destroy_event_channel(channel);
        rv::rdma_freeaddrinfo(res);
    }
}

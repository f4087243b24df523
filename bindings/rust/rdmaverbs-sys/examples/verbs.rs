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

use std::ffi::{c_int, c_void, CString};
use std::io;
use std::process::exit;
use std::ptr::null_mut;

use rdmaverbs_sys as rv;

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

#[repr(C)]
struct PollFd {
    fd: c_int,
    events: i16,
    revents: i16,
}

unsafe extern "C" {
    fn poll(fds: *mut PollFd, nfds: u64, timeout: c_int) -> c_int;
    fn nanosleep(req: *const [i64; 2], rem: *mut [i64; 2]) -> c_int;
}

/// Waits (WAIT_MS) for a channel's file descriptor to be readable.
fn readable(fd: c_int, what: &str) {
    let mut p = PollFd {
        fd,
        events: 1, /* POLLIN */
        revents: 0,
    };
    // SAFETY: one pollfd, alive across the call.
    let n = unsafe { poll(&mut p, 1, WAIT_MS) };
    check(n == 1, format!("{what} (poll: {n})"));
}

/// Memory the provider reads and writes: reached only through its pointer
/// (never a Rust reference held across a call that lets the card at it),
/// 8-byte aligned (the atomics' words), freed at drop.
struct Mem(*mut u64, usize);

impl Mem {
    fn new(bytes: usize) -> Mem {
        let words = bytes.div_ceil(8);
        Mem(
            Box::into_raw(vec![0u64; words].into_boxed_slice()).cast(),
            words,
        )
    }
    fn ptr(&self) -> *mut c_void {
        self.0.cast()
    }
    fn addr(&self, offset: usize) -> u64 {
        self.0 as u64 + offset as u64
    }
    fn len(&self) -> usize {
        self.1 * 8
    }
    /// A copy of bytes [from, from + n).
    fn read(&self, from: usize, n: usize) -> Vec<u8> {
        assert!(from + n <= self.len());
        // SAFETY: within the allocation; nothing writes it during the copy
        // (no request on it is outstanding when the program reads it).
        unsafe { std::slice::from_raw_parts(self.0.cast::<u8>().add(from), n) }.to_vec()
    }
    fn write(&self, at: usize, bytes: &[u8]) {
        assert!(at + bytes.len() <= self.len());
        // SAFETY: within the allocation; the card reads it only once posted.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.0.cast::<u8>().add(at), bytes.len())
        }
    }
    fn word(&self, k: usize) -> u64 {
        assert!(k < self.1);
        // SAFETY: an aligned word of the allocation; volatile: the card wrote it.
        unsafe { self.0.add(k).read_volatile() }
    }
}

impl Drop for Mem {
    fn drop(&mut self) {
        // SAFETY: the Box of new(), deregistered before (teardown).
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.0, self.1)) });
    }
}

/// The channel's next rdma_cm event: of the type wanted, for id, status 0;
/// read, then acknowledged (its memory is librdmacm's).
unsafe fn event(channel: *mut c_void, want: i32, id: *mut c_void) {
    unsafe {
        readable(
            (*channel.cast::<rv::rdma_event_channel>()).fd,
            "no rdma_cm event within the wait",
        );
        let mut ev = null_mut();
        ok("rdma_get_cm_event", rv::rdma_get_cm_event(channel, &mut ev));
        let e = *ev.cast::<rv::rdma_cm_event>();
        ok("rdma_ack_cm_event", rv::rdma_ack_cm_event(ev));
        check(
            (e.event, e.status, e.id) == (want as u32, 0, id),
            format!(
                "rdma_cm event {} status {}; want {}",
                rv::rdma_event_str(e.event),
                e.status,
                rv::rdma_event_str(want as u32)
            ),
        );
    }
}

/// One completion, every field (bindings/verbs-protocol.md): what verbs
/// defines, and rxe's values where it does not (0 for what RC leaves).
fn completion(
    wc: &rv::ibv_wc,
    wr_id: u64,
    opcode: i32,
    len: u32,
    flags: i32,
    imm: u32,
    qp_num: u32,
) {
    let got = (
        wc.wr_id,
        wc.status,
        wc.opcode,
        wc.byte_len,
        wc.wc_flags,
        u32::from_be(wc.imm_data),
        wc.qp_num,
        (
            wc.vendor_err,
            wc.src_qp,
            wc.pkey_index,
            wc.slid,
            wc.sl,
            wc.dlid_path_bits,
        ),
    );
    let want = (
        wr_id,
        rv::IBV_WC_SUCCESS as u32,
        opcode as u32,
        len,
        flags as u32,
        imm,
        qp_num,
        (0, 0, 0, 0, 0, 0),
    );
    // SAFETY: ibv_wc_status_str takes any value.
    let status = unsafe { rv::ibv_wc_status_str(wc.status) };
    check(
        got == want,
        format!("completion {got:x?}; want {want:x?} ({status})"),
    );
}

/// Polls cq (up to 8 at once) until n completions: them.
unsafe fn completions(cq: *mut c_void, n: usize) -> Vec<rv::ibv_wc> {
    let (mut out, mut polls) = (Vec::new(), 0);
    while out.len() < n {
        let mut wc = [rv::ibv_wc::default(); 8];
        let want = (n - out.len()).min(8);
        let got = ok("ibv_poll_cq", unsafe {
            rv::ibv_poll_cq(cq, want as c_int, &mut wc)
        }) as usize;
        out.extend_from_slice(&wc[..got]);
        if got == 0 {
            polls += 1;
            check(polls < WAIT_MS, "too few completions within the wait");
            // SAFETY: a timespec of 1 ms.
            unsafe { nanosleep(&[0, 1_000_000], null_mut()) };
        }
    }
    out
}

/// The client's objects: made on the id's context, the QP on them.
struct Side {
    id: *mut c_void,
    pd: *mut c_void,
    channel: *mut c_void,
    scq: *mut c_void,
    rcq: *mut c_void,
    srq: *mut c_void,
    qp: *mut c_void,
    qp_num: u32,
    recv: Mem,
    send: Mem,
    atom: Mem,
    mrs: [*mut c_void; 3],
}

impl Side {
    unsafe fn new(id: *mut c_void) -> Side {
        unsafe {
            let ctx = (*id.cast::<rv::rdma_cm_id>()).verbs;
            let pd = ok("ibv_alloc_pd", rv::ibv_alloc_pd(ctx));
            let channel = ok("ibv_create_comp_channel", rv::ibv_create_comp_channel(ctx));
            let scq = ok(
                "ibv_create_cq",
                rv::ibv_create_cq(ctx, 16, null_mut(), null_mut(), 0),
            );
            let rcq = ok(
                "ibv_create_cq",
                rv::ibv_create_cq(ctx, 16, CQ_CONTEXT as *mut c_void, channel, 0),
            );
            let mut srq_attr = rv::ibv_srq_init_attr {
                attr: rv::ibv_srq_attr {
                    max_wr: SLOTS as u32,
                    max_sge: 1,
                    srq_limit: 0,
                },
                ..Default::default()
            };
            let srq = ok("ibv_create_srq", rv::ibv_create_srq(pd, &mut srq_attr));
            let mut attr = rv::ibv_qp_init_attr {
                send_cq: scq,
                recv_cq: rcq,
                srq,
                cap: rv::ibv_qp_cap {
                    max_send_wr: 8,
                    max_send_sge: 2,
                    ..Default::default()
                },
                qp_type: rv::IBV_QPT_RC as u32,
                ..Default::default()
            };
            ok("rdma_create_qp", rv::rdma_create_qp(id, pd, &mut attr));
            let qp = (*id.cast::<rv::rdma_cm_id>()).qp;
            let q = *qp.cast::<rv::ibv_qp>();
            check(
                (q.send_cq, q.recv_cq, q.srq) == (scq, rcq, srq),
                "the id's QP is not on the CQs and the SRQ given",
            );
            // The buffers live as long as this object: the MRs and the
            // posted work requests point into them.
            let (recv, send, atom) = (Mem::new(SLOTS * SLOT), Mem::new(5 * SLOT), Mem::new(3 * 8));
            let reg = |m: &Mem, access: i32| {
                ok(
                    "ibv_reg_mr_iova2",
                    rv::ibv_reg_mr_iova2(pd, m.ptr(), m.len(), m.addr(0), access as u32),
                )
            };
            let mrs = [
                reg(&recv, rv::IBV_ACCESS_LOCAL_WRITE),
                reg(&send, 0),
                reg(
                    &atom,
                    rv::IBV_ACCESS_LOCAL_WRITE
                        | rv::IBV_ACCESS_REMOTE_ATOMIC
                        | rv::IBV_ACCESS_REMOTE_READ,
                ),
            ];
            let s = Side {
                id,
                pd,
                channel,
                scq,
                rcq,
                srq,
                qp,
                qp_num: q.qp_num,
                recv,
                send,
                atom,
                mrs,
            };
            // The SRQ's receives, one list: slot i, wr_id 0x100 + i. The
            // list and its SGEs need only live across the call.
            let lkey = s.lkey(0);
            let sges: Vec<rv::ibv_sge> = (0..SLOTS)
                .map(|i| rv::ibv_sge {
                    addr: s.recv.addr(SLOT * i),
                    length: SLOT as u32,
                    lkey,
                })
                .collect();
            let mut recvs: Vec<rv::ibv_recv_wr> = (0..SLOTS)
                .map(|i| rv::ibv_recv_wr {
                    wr_id: 0x100 + i as u64,
                    sg_list: (&sges[i] as *const rv::ibv_sge).cast_mut().cast(),
                    num_sge: 1,
                    next: null_mut(),
                })
                .collect();
            for i in 0..SLOTS - 1 {
                recvs[i].next = (&mut recvs[i + 1] as *mut rv::ibv_recv_wr).cast();
            }
            let mut bad = null_mut();
            ok(
                "ibv_post_srq_recv",
                rv::ibv_post_srq_recv(srq, recvs.as_mut_ptr(), &mut bad),
            );
            s
        }
    }

    /// The lkey of MR i (recv, send, atom).
    fn lkey(&self, i: usize) -> u32 {
        // SAFETY: an MR of ours, registered until teardown.
        unsafe { (*self.mrs[i].cast::<rv::ibv_mr>()).lkey }
    }

    /// Posts a list of send work requests (joined here by next) in one
    /// ibv_post_send; then their completions.
    unsafe fn post(&self, wrs: &mut [rv::ibv_send_wr]) -> Vec<rv::ibv_wc> {
        for i in 0..wrs.len() - 1 {
            wrs[i].next = (&mut wrs[i + 1] as *mut rv::ibv_send_wr).cast();
        }
        let mut bad = null_mut();
        ok("ibv_post_send", unsafe {
            rv::ibv_post_send(self.qp, wrs.as_mut_ptr(), &mut bad)
        });
        unsafe { completions(self.scq, wrs.len()) }
    }

    /// The receive CQ's next event on its completion channel: checked,
    /// acknowledged, the CQ armed again (solicited_only), then polled: the
    /// completions, up to 8 in one ibv_poll_cq.
    unsafe fn next_event(&self, solicited_only: bool) -> Vec<rv::ibv_wc> {
        unsafe {
            readable(
                (*self.channel.cast::<rv::ibv_comp_channel>()).fd,
                "no completion event within the wait",
            );
            let (mut cq, mut context) = (null_mut(), null_mut());
            ok(
                "ibv_get_cq_event",
                rv::ibv_get_cq_event(self.channel, &mut cq, &mut context),
            );
            check(
                (cq, context as usize) == (self.rcq, CQ_CONTEXT),
                "the event is not the receive CQ's, with its context",
            );
            rv::ibv_ack_cq_events(cq, 1);
            ok(
                "ibv_req_notify_cq",
                rv::ibv_req_notify_cq(cq, solicited_only as c_int),
            );
            let mut wc = [rv::ibv_wc::default(); 8];
            let n = ok("ibv_poll_cq", rv::ibv_poll_cq(cq, 8, &mut wc)) as usize;
            wc[..n].to_vec()
        }
    }

    /// In the order the objects depend on each other (every CQ event
    /// acknowledged first: ibv_destroy_cq waits for it).
    unsafe fn teardown(self) {
        unsafe {
            rv::rdma_destroy_qp(self.id);
            ok("ibv_destroy_srq", rv::ibv_destroy_srq(self.srq));
            ok("ibv_destroy_cq", rv::ibv_destroy_cq(self.scq));
            ok("ibv_destroy_cq", rv::ibv_destroy_cq(self.rcq));
            ok(
                "ibv_destroy_comp_channel",
                rv::ibv_destroy_comp_channel(self.channel),
            );
            for mr in self.mrs {
                ok("ibv_dereg_mr", rv::ibv_dereg_mr(mr));
            }
            ok("ibv_dealloc_pd", rv::ibv_dealloc_pd(self.pd));
            ok("rdma_destroy_id", rv::rdma_destroy_id(self.id));
        }
        // the buffers are freed here, after their MRs
    }
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

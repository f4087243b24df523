//! What the safe crate's programs of the verbs exchange share
//! (objects.rs, blocking; verbs_async.rs, on tokio): the protocol's
//! constants (bindings/verbs-protocol.md), the checks of a completion's
//! every field and of the messages' bytes, the command line.

#![allow(dead_code)]

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use rdmaverbs::raw;
use rdmaverbs::{Completion, IntoSges, QpCap, SendWr};

pub const SLOT: usize = 64;
pub const SLOTS: usize = 8;
pub const INITIAL: u64 = 0x1122_3344_5566_7788;
pub const ADD: u64 = 0x1000_0000_0000_0001;
pub const SWAP: u64 = 0x0fed_cba9_8765_4321;
pub const STALE_SWAP: u64 = 0xdead_dead_dead_dead;
/// The receive CQ's context, as its completion channel's events give it.
pub const CQ_CONTEXT: usize = 0xc0ffee;
/// Every wait's bound.
pub const WAIT: Duration = Duration::from_secs(60);
/// rdma_resolve_addr's and rdma_resolve_route's.
pub const RESOLVE: Duration = Duration::from_millis(2000);
pub const SERVER_LENS: [usize; 5] = [8, 16, 24, 32, 40];
/// The QP: 8 sends of up to 2 SGEs; its receives are the SRQ's.
pub const CAP: QpCap = QpCap {
    max_send_wr: 8,
    max_recv_wr: 0,
    max_send_sge: 2,
    max_recv_sge: 0,
    max_inline_data: 0,
};
/// A receive's flags on RoCE (rxe): every packet has a GRH.
pub const GRH: u32 = raw::IBV_WC_GRH as u32;
pub const WITH_IMM: u32 = raw::IBV_WC_WITH_IMM as u32;
pub const SEND: i32 = raw::IBV_WC_SEND;
pub const RECV: i32 = raw::IBV_WC_RECV;

/// The exchange's iWARP profile (VERBS_PROFILE=iwarp in the environment):
/// the client speaks first, no atomics, no immediate data, no GRH; the
/// fields RC leaves unset not checked (siw does not write them).
pub fn iwarp() -> bool {
    std::env::var("VERBS_PROFILE").is_ok_and(|p| p == "iwarp")
}

/// A receive's flags: GRH on RoCE, none on iWARP.
pub fn grh() -> u32 {
    if iwarp() {
        0
    } else {
        GRH
    }
}

/// WITH_IMM, for a message with immediate data: none on iWARP.
pub fn with_imm() -> u32 {
    if iwarp() {
        0
    } else {
        WITH_IMM
    }
}

/// The immediate data a receive carries: none on iWARP.
pub fn imm(value: u32) -> u32 {
    if iwarp() {
        0
    } else {
        value
    }
}

/// A message with immediate data, or without on iWARP.
pub fn send_imm(wr_id: u64, imm: u32, bufs: impl IntoSges) -> SendWr {
    if iwarp() {
        SendWr::send(wr_id, bufs)
    } else {
        SendWr::send_with_imm(wr_id, imm, bufs)
    }
}

/// The error of a check that failed.
pub fn check(ok: bool, what: impl FnOnce() -> String) -> io::Result<()> {
    if ok {
        Ok(())
    } else {
        Err(io::Error::other(what()))
    }
}

/// One completion, every field (bindings/verbs-protocol.md): what verbs
/// defines, and rxe's values where it does not (0 for what RC leaves).
pub fn completion(
    c: &Completion,
    wr_id: u64,
    opcode: i32,
    len: usize,
    flags: u32,
    imm: u32,
    qp_num: u32,
) -> io::Result<()> {
    let w = c.raw();
    let got = (
        w.wr_id,
        w.status,
        w.opcode,
        w.byte_len,
        w.wc_flags,
        u32::from_be(w.imm_data),
        w.qp_num,
        (
            w.vendor_err,
            w.src_qp,
            w.pkey_index,
            w.slid,
            w.sl,
            w.dlid_path_bits,
        ),
    );
    let unset = if iwarp() {
        (0, w.src_qp, w.pkey_index, w.slid, w.sl, w.dlid_path_bits)
    } else {
        (0, 0, 0, 0, 0, 0)
    };
    let want = (
        wr_id,
        raw::IBV_WC_SUCCESS as u32,
        opcode as u32,
        len as u32,
        flags,
        imm,
        qp_num,
        unset,
    );
    check(got == want, || {
        format!("completion {got:x?}; want {want:x?} ({})", c.status())
    })
}

/// Byte j of message k of a side: (seed + 7k + j) mod 256.
pub fn pattern(seed: usize, k: usize, len: usize) -> Vec<u8> {
    (0..len).map(|j| (seed + 7 * k + j) as u8).collect()
}

pub fn le64(b: &[u8]) -> u64 {
    u64::from_le_bytes(b[..8].try_into().unwrap())
}

/// The command line: ROLE (server or client), ADDR, PORT.
pub fn args(program: &str) -> (bool, SocketAddr) {
    let a: Vec<String> = std::env::args().collect();
    if a.len() != 4 || !(a[1] == "server" || a[1] == "client") {
        eprintln!("usage: {program} server|client ADDR PORT");
        std::process::exit(2);
    }
    match format!("{}:{}", a[2], a[3]).parse() {
        Ok(addr) => (a[1] == "server", addr),
        Err(e) => {
            eprintln!("{program}: {}:{}: {e}", a[2], a[3]);
            std::process::exit(2);
        }
    }
}

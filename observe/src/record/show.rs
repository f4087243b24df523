//! The vocabulary that the records' trace lines and probe arguments share:
//! a CQ and a poll's result, an extended QP, a work completion (and an
//! extended CQ's current one), the names of the opcodes, the bytes of an
//! SGE list and of a completion.

use core::ffi::c_int;

use rdmaverbs_abi::verbs::{WC_STATUS, ibv_sge, ibv_wc_head};
use rdmaverbs_abi::verbs::{ibv_cq_ex, ibv_qp_ex};

use crate::trace::line::Line;

/// A poll's or a notification request's ` cq=0x... ret=N`.
pub(crate) fn show_cq<T>(line: &mut Line, cq: *const T, ret: c_int) {
    line.hex(b" cq=", cq as usize as u64);
    line.dec(b" ret=", ret.into());
}

/// A work completion: ` wr_id=... status=SUCCESS opcode=... byte_len=...`;
/// for a completion in error, ` wr_id=... status=... vendor_err=...`: verbs.h
/// says only `wr_id`, `status`, `qp_num` and `vendor_err` are valid then, so
/// no opcode or length is shown.
pub(crate) fn show_wc(line: &mut Line, wc: &ibv_wc_head) {
    line.hex(b" wr_id=", wc.wr_id);
    match WC_STATUS.get(wc.status as usize) {
        Some(name) => {
            line.word(b" status=", name.as_bytes());
        }
        None => line.dec(b" status=", wc.status.into()),
    }
    if wc.status != rdmaverbs_abi::verbs::ibv_wc_status::IBV_WC_SUCCESS {
        line.hex(b" vendor_err=", wc.vendor_err.into());
        return;
    }
    line.word(b" opcode=", wc_opcode_name(wc.opcode).as_bytes());
    line.dec(b" byte_len=", wc.byte_len.into());
}

/// `enum ibv_wc_opcode` without its prefix (`OTHER` for one not named).
fn wc_opcode_name(opcode: u32) -> &'static str {
    use rdmaverbs_abi::verbs::ibv_wc_opcode as o;
    match opcode {
        o::IBV_WC_SEND => "SEND",
        o::IBV_WC_RDMA_WRITE => "RDMA_WRITE",
        o::IBV_WC_RDMA_READ => "RDMA_READ",
        o::IBV_WC_COMP_SWAP => "COMP_SWAP",
        o::IBV_WC_FETCH_ADD => "FETCH_ADD",
        o::IBV_WC_BIND_MW => "BIND_MW",
        o::IBV_WC_LOCAL_INV => "LOCAL_INV",
        o::IBV_WC_RECV => "RECV",
        o::IBV_WC_RECV_RDMA_WITH_IMM => "RECV_RDMA_WITH_IMM",
        _ => "OTHER",
    }
}

/// `enum ibv_wr_opcode` without its prefix (`OTHER` for one not named):
/// the one table of send opcodes' names (an export's `SendOp` maps into it).
pub(crate) fn wr_opcode_name(opcode: u32) -> &'static str {
    use rdmaverbs_abi::verbs::ibv_wr_opcode as o;
    match opcode {
        o::IBV_WR_RDMA_WRITE => "RDMA_WRITE",
        o::IBV_WR_RDMA_WRITE_WITH_IMM => "RDMA_WRITE_WITH_IMM",
        o::IBV_WR_SEND => "SEND",
        o::IBV_WR_SEND_WITH_IMM => "SEND_WITH_IMM",
        o::IBV_WR_RDMA_READ => "RDMA_READ",
        o::IBV_WR_ATOMIC_CMP_AND_SWP => "ATOMIC_CMP_AND_SWP",
        o::IBV_WR_ATOMIC_FETCH_AND_ADD => "ATOMIC_FETCH_AND_ADD",
        o::IBV_WR_LOCAL_INV => "LOCAL_INV",
        o::IBV_WR_BIND_MW => "BIND_MW",
        o::IBV_WR_SEND_WITH_INV => "SEND_WITH_INV",
        #[cfg(ibv_wr_flush)]
        o::IBV_WR_FLUSH => "FLUSH",
        _ => "OTHER",
    }
}

/// A completion's `wr_id`, `status`, opcode and `byte_len` as probe
/// arguments; the opcode and length are -1 and 0 for a completion in error,
/// where verbs.h leaves them undefined.
pub(crate) fn wc_args(w: &ibv_wc_head) -> [isize; 4] {
    let ok = w.status == rdmaverbs_abi::verbs::ibv_wc_status::IBV_WC_SUCCESS;
    [
        w.wr_id as isize,
        w.status as isize,
        if ok { w.opcode as isize } else { -1 },
        if ok { w.byte_len as isize } else { 0 },
    ]
}

/// The bytes of an SGE list.
///
/// # Safety
/// `sgl` holds `n` readable SGEs (or `n <= 0`).
pub(crate) unsafe fn sge_bytes(sgl: *const ibv_sge, n: c_int) -> u64 {
    // One SGE is the common case: no loop set-up for it.
    if n == 1 {
        // SAFETY: as the caller says.
        return u64::from(unsafe { (*sgl).length });
    }
    (0..n.max(0) as usize)
        // SAFETY: as the caller says.
        .map(|i| u64::from(unsafe { (*sgl.add(i)).length }))
        .fold(0, u64::wrapping_add)
}

/// The bytes a completion received: its length if it is a successful
/// receive, else 0.
pub(crate) fn recv_bytes(wc: &ibv_wc_head) -> u64 {
    let recv = wc.opcode & rdmaverbs_abi::verbs::ibv_wc_opcode::IBV_WC_RECV != 0;
    if recv && wc.status == rdmaverbs_abi::verbs::ibv_wc_status::IBV_WC_SUCCESS {
        u64::from(wc.byte_len)
    } else {
        0
    }
}

/// ` qp=0x... qpn=N`.
pub(crate) fn show_qp(line: &mut Line, qp: *mut ibv_qp_ex) {
    line.hex(b" qp=", qp as usize as u64);
    // SAFETY: a live QP.
    line.dec(b" qpn=", unsafe { (*qp).qp_base.qp_num }.into());
}

/// The CQ's current completion, as a work completion's leading fields: its
/// `wr_id` and `status`, and, for a successful one, the opcode and length
/// from the provider's readers (when it has them).
///
/// # Safety
/// A poll of `cq` just returned 0 (`ibv_start_poll`, `ibv_next_poll`).
pub(crate) unsafe fn current(cq: *mut ibv_cq_ex) -> ibv_wc_head {
    // SAFETY: as the caller says.
    unsafe {
        let c = &*cq;
        let mut w = ibv_wc_head {
            wr_id: c.wr_id,
            status: c.status,
            opcode: 0,
            vendor_err: 0,
            byte_len: 0,
            imm_data: 0,
            qp_num: 0,
        };
        if w.status == rdmaverbs_abi::verbs::ibv_wc_status::IBV_WC_SUCCESS {
            if let Some(read) = c.read_opcode {
                w.opcode = read(cq);
            }
            if let Some(read) = c.read_byte_len {
                w.byte_len = read(cq);
            }
        } else if let Some(read) = c.read_vendor_err {
            w.vendor_err = read(cq);
        }
        w
    }
}

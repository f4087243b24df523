//! `RDMAVERBS_TRACE`: the trace lines, as `key=value` words.
//!
//! One line per call of an export, and, for the wrapped provider ops, one per
//! work request posted and per completion polled.

use core::ffi::{c_int, c_void};

use super::call::{Call, Returned, Sges};
use super::line::Line;
use super::writer;
use crate::functions::Func;
use crate::verbs::{SendOp, ibv_qp, ibv_recv_wr, ibv_send_wr, ibv_wc_head, rdma_cm_id};

/// Writes the trace line of one call of an export.
///
/// # Safety
/// The pointers in `call` are NULL or valid, as the export's contract says.
pub(super) unsafe fn call_line<R: Returned>(f: Func, call: Call, ret: R, err: c_int) {
    emit(f, |line| {
        // SAFETY: forwarded.
        unsafe { describe(line, call, ret) };
        if ret.failed() {
            line.dec(b" errno=", err.into());
        }
    });
}

/// The arguments and the result, as ` key=value` fields.
///
/// # Safety
/// As [`call_line`].
unsafe fn describe<R: Returned>(line: &mut Line, call: Call, ret: R) {
    match call {
        Call::SetErrno(arg) => line.dec(b" arg=", arg.into()),
        Call::Reg { id, addr, length } => {
            // SAFETY: forwarded.
            unsafe { show_id(line, id) };
            line.hex(b" addr=", addr as usize as u64);
            line.dec(b" length=", length as i64);
        }
        Call::Dereg(mr) => line.hex(b" mr=", mr as usize as u64),
        // SAFETY: forwarded.
        Call::Addr(id) => unsafe { show_id(line, id) },
        Call::Post {
            id,
            context,
            sges,
            flags,
            op,
        } => {
            // SAFETY: forwarded.
            unsafe { show_id(line, id) };
            line.hex(b" wr_id=", context as usize as u64);
            let opcode = match op {
                None => "RECV",
                Some(SendOp::Send | SendOp::UdSend { .. }) => "SEND",
                Some(SendOp::Read { .. }) => "RDMA_READ",
                Some(SendOp::Write { .. }) => "RDMA_WRITE",
            };
            line.word(b" opcode=", opcode.as_bytes());
            match sges {
                Sges::One(_) => line.push(b" nsge=1"),
                Sges::List(_, n) => line.dec(b" nsge=", n.into()),
            }
            if !ret.failed() {
                // SAFETY: the post succeeded, so its SGEs were read.
                line.dec(b" bytes=", unsafe { call.bytes() } as i64);
            }
            if op.is_some() {
                line.hex(b" flags=", flags as u32 as u64);
            }
            match op {
                Some(SendOp::Read { remote_addr, rkey } | SendOp::Write { remote_addr, rkey }) => {
                    line.hex(b" remote_addr=", remote_addr);
                    line.hex(b" rkey=", rkey.into());
                }
                Some(SendOp::UdSend { ah, remote_qpn }) => {
                    line.hex(b" ah=", ah as usize as u64);
                    line.dec(b" remote_qpn=", remote_qpn.into());
                }
                _ => {}
            }
        }
        Call::Comp { id, wc, timeout_ms } => {
            // SAFETY: forwarded.
            unsafe { show_id(line, id) };
            if let Some(t) = timeout_ms {
                line.dec(b" timeout_ms=", t.into());
            }
            ret.show(line);
            if !ret.failed() && !wc.is_null() {
                // SAFETY: a successful call wrote `*wc`.
                show_wc(line, unsafe { &*wc.cast::<ibv_wc_head>() });
            }
            return;
        }
    }
    ret.show(line);
}

/// ` id=0x... qpn=N` (and ` srq=0x...` when the id has an SRQ).
///
/// # Safety
/// `id` is NULL or valid; so are its QP and SRQ.
unsafe fn show_id(line: &mut Line, id: *mut rdma_cm_id) {
    line.hex(b" id=", id as usize as u64);
    if id.is_null() {
        return;
    }
    // SAFETY: a non-NULL id is valid, and so are its non-NULL QP and SRQ.
    unsafe {
        let (qp, srq) = ((*id).qp, (*id).srq);
        if !qp.is_null() {
            line.dec(b" qpn=", (*qp).qp_num.into());
        }
        if !srq.is_null() {
            line.hex(b" srq=", srq as usize as u64);
        }
    }
}

/// `enum ibv_wc_status` without the `IBV_WC_` prefix, by value: a trace
/// field is one word.
pub(crate) const STATUS: [&str; 24] = [
    "SUCCESS",
    "LOC_LEN_ERR",
    "LOC_QP_OP_ERR",
    "LOC_EEC_OP_ERR",
    "LOC_PROT_ERR",
    "WR_FLUSH_ERR",
    "MW_BIND_ERR",
    "BAD_RESP_ERR",
    "LOC_ACCESS_ERR",
    "REM_INV_REQ_ERR",
    "REM_ACCESS_ERR",
    "REM_OP_ERR",
    "RETRY_EXC_ERR",
    "RNR_RETRY_EXC_ERR",
    "LOC_RDD_VIOL_ERR",
    "REM_INV_RD_REQ_ERR",
    "REM_ABORT_ERR",
    "INV_EECN_ERR",
    "INV_EEC_STATE_ERR",
    "FATAL_ERR",
    "RESP_TIMEOUT_ERR",
    "GENERAL_ERR",
    "TM_ERR",
    "TM_RNDV_INCOMPLETE",
];

/// A poll's or a notification request's ` cq=0x... ret=N`.
pub(super) fn show_cq<T>(line: &mut Line, cq: *const T, ret: c_int) {
    line.hex(b" cq=", cq as usize as u64);
    line.dec(b" ret=", ret.into());
}

/// A work completion: ` wr_id=... status=SUCCESS opcode=... byte_len=...`;
/// for a completion in error, ` wr_id=... status=... vendor_err=...`: verbs.h
/// says only `wr_id`, `status`, `qp_num` and `vendor_err` are valid then, so
/// no opcode or length is shown.
pub(super) fn show_wc(line: &mut Line, wc: &ibv_wc_head) {
    line.hex(b" wr_id=", wc.wr_id);
    match STATUS.get(wc.status as usize) {
        Some(name) => {
            line.word(b" status=", name.as_bytes());
        }
        None => line.dec(b" status=", wc.status.into()),
    }
    if wc.status != ibverbs_sys::ibv_wc_status::IBV_WC_SUCCESS {
        line.hex(b" vendor_err=", wc.vendor_err.into());
        return;
    }
    use ibverbs_sys::ibv_wc_opcode as o;
    let opcode = match wc.opcode {
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
    };
    line.word(b" opcode=", opcode.as_bytes());
    line.dec(b" byte_len=", wc.byte_len.into());
}

/// The trace line of one send work request posted through the op.
///
/// # Safety
/// `qp` is live; `w` is the caller's work request.
pub(super) unsafe fn send_line(qp: *mut ibv_qp, w: &ibv_send_wr, ret: c_int, bytes: u64) {
    use ibverbs_sys::ibv_wr_opcode as o;
    emit(Func::OpPostSend, |line| {
        line.hex(b" qp=", qp as usize as u64);
        // SAFETY: a live QP.
        let (qpn, ud) = unsafe {
            (
                (*qp).qp_num,
                (*qp).qp_type == ibverbs_sys::ibv_qp_type::IBV_QPT_UD,
            )
        };
        line.dec(b" qpn=", qpn.into());
        line.hex(b" wr_id=", w.wr_id);
        let opcode = match w.opcode {
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
            _ => "OTHER",
        };
        line.word(b" opcode=", opcode.as_bytes());
        line.dec(b" nsge=", w.num_sge.into());
        if ret == 0 {
            line.dec(b" bytes=", bytes as i64);
        }
        line.hex(b" flags=", w.send_flags.into());
        let rdma = matches!(
            w.opcode,
            o::IBV_WR_RDMA_WRITE | o::IBV_WR_RDMA_WRITE_WITH_IMM | o::IBV_WR_RDMA_READ
        );
        // SAFETY: the union member that the opcode and QP type select.
        unsafe {
            if rdma {
                line.hex(b" remote_addr=", w.wr.rdma.remote_addr);
                line.hex(b" rkey=", w.wr.rdma.rkey.into());
            } else if ud {
                line.hex(b" ah=", w.wr.ud.ah as usize as u64);
                line.dec(b" remote_qpn=", w.wr.ud.remote_qpn.into());
            }
        }
        line.dec(b" ret=", ret.into());
    });
}

/// The trace line of one receive work request, to a QP
/// (`Func::OpPostRecv`) or an SRQ.
///
/// # Safety
/// `obj` is the live QP or SRQ.
pub(super) unsafe fn recv_line(f: Func, obj: *mut c_void, w: &ibv_recv_wr, ret: c_int, bytes: u64) {
    emit(f, |line| {
        if f == Func::OpPostRecv {
            line.hex(b" qp=", obj as usize as u64);
            // SAFETY: a live QP.
            line.dec(b" qpn=", unsafe { (*obj.cast::<ibv_qp>()).qp_num }.into());
        } else {
            line.hex(b" srq=", obj as usize as u64);
        }
        line.hex(b" wr_id=", w.wr_id);
        line.dec(b" nsge=", w.num_sge.into());
        if ret == 0 {
            line.dec(b" bytes=", bytes as i64);
        }
        line.dec(b" ret=", ret.into());
    });
}

/// Adds a trace line of `f` (its start, `rdmaverbs[TID]: NAME`, and what
/// `fill` writes) to the trace.
#[inline]
pub(super) fn emit(f: Func, fill: impl FnOnce(&mut Line)) {
    writer::line(f, fill);
}

//! Records of the extended verbs API, as the preload library wraps it: the
//! post calls of an `ibv_qp_ex` (`ibv_wr_start`, the opcode calls, the SGE
//! and inline-data setters, `ibv_wr_complete`, `ibv_wr_abort`) and the
//! polling calls of an `ibv_cq_ex` (`ibv_start_poll`, `ibv_next_poll`,
//! `ibv_end_poll`). A trace line and a probe per call (none for a poll that
//! found nothing, which is counted), and the counters: the bytes of the
//! SGEs and inline data set, and of successful receive completions.

use core::ffi::{c_int, c_void};

use ibverbs_sys::{ibv_cq_ex, ibv_qp_ex, ibv_sge};

use super::call::{sge_bytes, wc_args};
use super::line::Line;
use super::probes::{self, Args};
use super::trace::{emit, show_cq, show_wc};
use super::{config, counters, writer};
use crate::functions::Func;
use crate::verbs::ibv_wc_head;

/// A call of a wrapped extended-API op (after the provider's own).
#[derive(Clone, Copy)]
pub(crate) enum ExOp {
    /// `ibv_wr_start` or `ibv_wr_abort`.
    Mark { f: Func, qp: *mut ibv_qp_ex },
    /// An opcode call (`ibv_wr_send`, `ibv_wr_rdma_write`, ...): the
    /// `ibv_wr_opcode`, and the remote address and key of an RDMA one.
    Opcode {
        f: Func,
        qp: *mut ibv_qp_ex,
        opcode: u32,
        remote: Option<(u64, u32)>,
    },
    /// `ibv_wr_set_sge`.
    Sge {
        qp: *mut ibv_qp_ex,
        lkey: u32,
        addr: u64,
        length: u32,
    },
    /// `ibv_wr_set_sge_list`.
    SgeList {
        qp: *mut ibv_qp_ex,
        n: usize,
        list: *const ibv_sge,
    },
    /// `ibv_wr_set_inline_data`.
    Inline {
        qp: *mut ibv_qp_ex,
        addr: *mut c_void,
        length: usize,
    },
    /// `ibv_wr_complete`, which returned `ret`.
    Complete { qp: *mut ibv_qp_ex, ret: c_int },
    /// `ibv_start_poll` or `ibv_next_poll`, which returned `ret`.
    Poll {
        f: Func,
        cq: *mut ibv_cq_ex,
        ret: c_int,
    },
    /// `ibv_end_poll`.
    EndPoll { cq: *mut ibv_cq_ex },
}

/// Records a call of a wrapped extended-API op.
///
/// # Safety
/// The QP or CQ is live; a list holds `n` readable SGEs; after a poll that
/// returned 0 the CQ's current completion can be read.
pub(crate) unsafe fn record_ex(op: ExOp) {
    // SAFETY: forwarded.
    let (f, failed, bytes, args) = unsafe { describe(op) };
    if config::stats() {
        counters::tally(f, failed, bytes);
    }
    probes::fire(f, || args);
}

/// `(function, failed, bytes, probe arguments)` of a call, and its trace
/// line when tracing.
///
/// # Safety
/// As [`record_ex`].
unsafe fn describe(op: ExOp) -> (Func, bool, u64, Args) {
    let tracing = writer::tracing();
    match op {
        ExOp::Mark { f, qp } => {
            if tracing {
                emit(f, |line| show_qp(line, qp));
            }
            (f, false, 0, [qp as isize, 0, 0, 0, 0, 0])
        }
        ExOp::Opcode {
            f,
            qp,
            opcode,
            remote,
        } => {
            // SAFETY: a live QP.
            let (wr_id, flags) = unsafe { ((*qp).wr_id, (*qp).wr_flags) };
            let (raddr, rkey) = remote.unwrap_or((0, 0));
            if tracing {
                emit(f, |line| {
                    show_qp(line, qp);
                    line.hex(b" wr_id=", wr_id);
                    line.hex(b" flags=", flags.into());
                    if remote.is_some() {
                        line.hex(b" remote_addr=", raddr);
                        line.hex(b" rkey=", rkey.into());
                    }
                });
            }
            let args = [
                qp as isize,
                wr_id as isize,
                opcode as isize,
                flags as isize,
                raddr as isize,
                rkey as isize,
            ];
            (f, false, 0, args)
        }
        ExOp::Sge {
            qp,
            lkey,
            addr,
            length,
        } => {
            if tracing {
                emit(Func::OpWrSetSge, |line| {
                    show_qp(line, qp);
                    line.hex(b" lkey=", lkey.into());
                    line.hex(b" addr=", addr);
                    line.dec(b" length=", length.into());
                });
            }
            let args = [
                qp as isize,
                lkey as isize,
                addr as isize,
                length as isize,
                0,
                0,
            ];
            (Func::OpWrSetSge, false, length.into(), args)
        }
        ExOp::SgeList { qp, n, list } => {
            let n = c_int::try_from(n).unwrap_or(c_int::MAX);
            // SAFETY: the caller's list of `n` SGEs.
            let bytes = unsafe { sge_bytes(list, n) };
            if tracing {
                emit(Func::OpWrSetSgeList, |line| {
                    show_qp(line, qp);
                    line.dec(b" nsge=", n.into());
                    line.dec(b" bytes=", bytes as i64);
                });
            }
            let args = [qp as isize, n as isize, bytes as isize, 0, 0, 0];
            (Func::OpWrSetSgeList, false, bytes, args)
        }
        ExOp::Inline { qp, addr, length } => {
            if tracing {
                emit(Func::OpWrSetInlineData, |line| {
                    show_qp(line, qp);
                    line.hex(b" addr=", addr as usize as u64);
                    line.dec(b" length=", length as i64);
                });
            }
            let args = [qp as isize, addr as isize, length as isize, 0, 0, 0];
            (Func::OpWrSetInlineData, false, length as u64, args)
        }
        ExOp::Complete { qp, ret } => {
            if tracing {
                emit(Func::OpWrComplete, |line| {
                    show_qp(line, qp);
                    line.dec(b" ret=", ret.into());
                });
            }
            (
                Func::OpWrComplete,
                ret != 0,
                0,
                [qp as isize, 0, 0, 0, 0, ret as isize],
            )
        }
        // SAFETY: forwarded.
        ExOp::Poll { f, cq, ret } => unsafe { poll(f, cq, ret, tracing) },
        ExOp::EndPoll { cq } => {
            if tracing {
                emit(Func::OpEndPoll, |line| {
                    line.hex(b" cq=", cq as usize as u64);
                });
            }
            (Func::OpEndPoll, false, 0, [cq as isize, 0, 0, 0, 0, 0])
        }
    }
}

/// ` qp=0x... qpn=N`.
fn show_qp(line: &mut Line, qp: *mut ibv_qp_ex) {
    line.hex(b" qp=", qp as usize as u64);
    // SAFETY: a live QP.
    line.dec(b" qpn=", unsafe { (*qp).qp_base.qp_num }.into());
}

/// A start or next poll: the current completion when it returned 0;
/// nothing traced when it found none (`ENOENT`).
///
/// # Safety
/// As [`record_ex`].
unsafe fn poll(f: Func, cq: *mut ibv_cq_ex, ret: c_int, tracing: bool) -> (Func, bool, u64, Args) {
    if ret != 0 {
        if tracing && ret != libc::ENOENT {
            emit(f, |line| show_cq(line, cq, ret));
        }
        return (
            f,
            ret != libc::ENOENT,
            0,
            [cq as isize, 0, 0, 0, 0, ret as isize],
        );
    }
    // SAFETY: the current completion of a successful poll can be read.
    let w = unsafe { current(cq) };
    if tracing {
        emit(f, |line| {
            show_cq(line, cq, ret);
            show_wc(line, &w);
        });
    }
    let recv = w.opcode & ibverbs_sys::ibv_wc_opcode::IBV_WC_RECV != 0;
    let ok = w.status == ibverbs_sys::ibv_wc_status::IBV_WC_SUCCESS;
    let bytes = if recv && ok { u64::from(w.byte_len) } else { 0 };
    let [wr_id, status, opcode, byte_len] = wc_args(&w);
    (
        f,
        false,
        bytes,
        [cq as isize, wr_id, status, opcode, byte_len, ret as isize],
    )
}

/// The CQ's current completion, as a work completion's leading fields: its
/// `wr_id` and `status`, and, for a successful one, the opcode and length
/// from the provider's readers (when it has them).
///
/// # Safety
/// A poll of `cq` just returned 0.
unsafe fn current(cq: *mut ibv_cq_ex) -> ibv_wc_head {
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
        if w.status == ibverbs_sys::ibv_wc_status::IBV_WC_SUCCESS {
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

//! Records of the extended verbs API, as the preload library wraps it: the
//! post calls of an `ibv_qp_ex` (`ibv_wr_start`, the opcode calls, the SGE
//! and inline-data setters, `ibv_wr_complete`, `ibv_wr_abort`) and the
//! polling calls of an `ibv_cq_ex` (`ibv_start_poll`, `ibv_next_poll`,
//! `ibv_end_poll`). An event per call, with a trace line (none for a poll
//! that found nothing: its probe fires, and it is counted) and a probe; the
//! bytes of the SGEs and inline data set, and of successful receive
//! completions.

use core::ffi::{c_int, c_void};

use ibverbs_sys::{ibv_cq_ex, ibv_qp_ex, ibv_sge};
use rdmaverbs_abi::functions::Func;
use rdmaverbs_abi::verbs::ibv_wc_head;

use super::show::{recv_bytes, sge_bytes, show_cq, show_wc, wc_args};
use super::{Events, Out, emit};
use crate::trace::line::Line;

/// A call of a wrapped extended-API op (after the provider's own).
#[derive(Clone, Copy)]
pub enum ExOp {
    /// `ibv_wr_start` or `ibv_wr_abort`.
    Mark {
        /// Which.
        f: Func,
        /// The QP.
        qp: *mut ibv_qp_ex,
    },
    /// An opcode call (`ibv_wr_send`, `ibv_wr_rdma_write`, ...): the
    /// `ibv_wr_opcode`, and the remote address and key of an RDMA one.
    Opcode {
        /// Which.
        f: Func,
        /// The QP.
        qp: *mut ibv_qp_ex,
        /// Its `enum ibv_wr_opcode`.
        opcode: u32,
        /// The remote address and key of an RDMA operation.
        remote: Option<(u64, u32)>,
    },
    /// `ibv_wr_set_sge`.
    Sge {
        /// The QP.
        qp: *mut ibv_qp_ex,
        /// The SGE's key, address and length.
        lkey: u32,
        /// Its address.
        addr: u64,
        /// Its length.
        length: u32,
    },
    /// `ibv_wr_set_sge_list`.
    SgeList {
        /// The QP.
        qp: *mut ibv_qp_ex,
        /// How many SGEs.
        n: usize,
        /// The list.
        list: *const ibv_sge,
    },
    /// `ibv_wr_set_inline_data`.
    Inline {
        /// The QP.
        qp: *mut ibv_qp_ex,
        /// The data.
        addr: *mut c_void,
        /// Its length.
        length: usize,
    },
    /// `ibv_wr_complete`, which returned `ret`.
    Complete {
        /// The QP.
        qp: *mut ibv_qp_ex,
        /// Its result.
        ret: c_int,
    },
    /// `ibv_start_poll` or `ibv_next_poll`, which returned `ret`.
    Poll {
        /// Which.
        f: Func,
        /// The CQ.
        cq: *mut ibv_cq_ex,
        /// Its result.
        ret: c_int,
    },
    /// `ibv_end_poll`.
    EndPoll {
        /// The CQ.
        cq: *mut ibv_cq_ex,
    },
}

/// Records a call of a wrapped extended-API op.
///
/// # Safety
/// The QP or CQ is live; a list holds `n` readable SGEs; after a poll that
/// returned 0 the CQ's current completion can be read.
pub unsafe fn record_ex(op: ExOp) {
    // SAFETY: forwarded.
    unsafe { emit(op) };
}

impl ExOp {
    /// The function of the table.
    #[inline(always)]
    fn function(self) -> Func {
        match self {
            ExOp::Mark { f, .. } | ExOp::Opcode { f, .. } | ExOp::Poll { f, .. } => f,
            ExOp::Sge { .. } => Func::OpWrSetSge,
            ExOp::SgeList { .. } => Func::OpWrSetSgeList,
            ExOp::Inline { .. } => Func::OpWrSetInlineData,
            ExOp::Complete { .. } => Func::OpWrComplete,
            ExOp::EndPoll { .. } => Func::OpEndPoll,
        }
    }
}

/// No line for `ExOp`'s events that have none (a poll that found nothing).
const NO_LINE: Option<fn(&mut Line)> = None;

impl Events for ExOp {
    #[inline(always)]
    fn failed(self) -> bool {
        match self {
            ExOp::Complete { ret, .. } => ret != 0,
            ExOp::Poll { ret, .. } => ret != 0 && ret != libc::ENOENT,
            _ => false,
        }
    }

    #[inline(always)]
    fn func(self) -> Func {
        self.function()
    }

    #[inline(always)]
    unsafe fn each(self, out: &mut impl Out) {
        let f = self.function();
        match self {
            ExOp::Mark { qp, .. } => {
                out.event(f, 0, Some(|line: &mut Line| show_qp(line, qp)), || {
                    [qp as isize, 0, 0, 0, 0, 0]
                });
            }
            ExOp::Opcode {
                qp, opcode, remote, ..
            } => {
                // SAFETY: a live QP.
                let (wr_id, flags) = unsafe { ((*qp).wr_id, (*qp).wr_flags) };
                let (raddr, rkey) = remote.unwrap_or((0, 0));
                let line = |line: &mut Line| {
                    show_qp(line, qp);
                    line.hex(b" wr_id=", wr_id);
                    line.hex(b" flags=", flags.into());
                    if remote.is_some() {
                        line.hex(b" remote_addr=", raddr);
                        line.hex(b" rkey=", rkey.into());
                    }
                };
                out.event(f, 0, Some(line), || {
                    [
                        qp as isize,
                        wr_id as isize,
                        opcode as isize,
                        flags as isize,
                        raddr as isize,
                        rkey as isize,
                    ]
                });
            }
            ExOp::Sge {
                qp,
                lkey,
                addr,
                length,
            } => {
                let line = |line: &mut Line| {
                    show_qp(line, qp);
                    line.hex(b" lkey=", lkey.into());
                    line.hex(b" addr=", addr);
                    line.dec(b" length=", length.into());
                };
                out.event(f, length.into(), Some(line), || {
                    [
                        qp as isize,
                        lkey as isize,
                        addr as isize,
                        length as isize,
                        0,
                        0,
                    ]
                });
            }
            ExOp::SgeList { qp, n, list } => {
                let n = c_int::try_from(n).unwrap_or(c_int::MAX);
                // SAFETY: the caller's list of `n` SGEs.
                let bytes = unsafe { sge_bytes(list, n) };
                let line = |line: &mut Line| {
                    show_qp(line, qp);
                    line.dec(b" nsge=", n.into());
                    line.dec(b" bytes=", bytes as i64);
                };
                out.event(f, bytes, Some(line), || {
                    [qp as isize, n as isize, bytes as isize, 0, 0, 0]
                });
            }
            ExOp::Inline { qp, addr, length } => {
                let line = |line: &mut Line| {
                    show_qp(line, qp);
                    line.hex(b" addr=", addr as usize as u64);
                    line.dec(b" length=", length as i64);
                };
                out.event(f, length as u64, Some(line), || {
                    [qp as isize, addr as isize, length as isize, 0, 0, 0]
                });
            }
            ExOp::Complete { qp, ret } => {
                let line = |line: &mut Line| {
                    show_qp(line, qp);
                    line.dec(b" ret=", ret.into());
                };
                out.event(f, 0, Some(line), || [qp as isize, 0, 0, 0, 0, ret as isize]);
            }
            // SAFETY: forwarded.
            ExOp::Poll { cq, ret, .. } => unsafe { poll(out, f, cq, ret) },
            ExOp::EndPoll { cq } => {
                let line = |line: &mut Line| line.hex(b" cq=", cq as usize as u64);
                out.event(f, 0, Some(line), || [cq as isize, 0, 0, 0, 0, 0]);
            }
        }
    }
}

/// ` qp=0x... qpn=N`.
fn show_qp(line: &mut Line, qp: *mut ibv_qp_ex) {
    line.hex(b" qp=", qp as usize as u64);
    // SAFETY: a live QP.
    line.dec(b" qpn=", unsafe { (*qp).qp_base.qp_num }.into());
}

/// A start or next poll: the current completion when it returned 0; no
/// line when it found none (`ENOENT`), but its probe.
///
/// # Safety
/// As [`record_ex`].
unsafe fn poll(out: &mut impl Out, f: Func, cq: *mut ibv_cq_ex, ret: c_int) {
    if ret != 0 {
        let args = || [cq as isize, 0, 0, 0, 0, ret as isize];
        if ret == libc::ENOENT {
            out.event(f, 0, NO_LINE, args);
        } else {
            out.event(f, 0, Some(|line: &mut Line| show_cq(line, cq, ret)), args);
        }
        return;
    }
    // SAFETY: the current completion of a successful poll can be read.
    let w = unsafe { current(cq) };
    let line = |line: &mut Line| {
        show_cq(line, cq, ret);
        show_wc(line, &w);
    };
    out.event(f, recv_bytes(&w), Some(line), || {
        let [wr_id, status, opcode, byte_len] = wc_args(&w);
        [cq as isize, wr_id, status, opcode, byte_len, ret as isize]
    });
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

//! Records of the extended verbs API, as the preload library wraps it: the
//! post calls of an `ibv_qp_ex` (`ibv_wr_start`, the opcode calls, the SGE
//! and inline-data setters, `ibv_wr_complete`, `ibv_wr_abort`) and the
//! polling calls of an `ibv_cq_ex` (`ibv_start_poll`, `ibv_next_poll`,
//! `ibv_end_poll`). An event per call, with a trace line (none for a poll
//! that found nothing: its probe fires, and it is counted) and a probe; the
//! bytes of the SGEs and inline data set, and of successful receive
//! completions.

use core::ffi::{c_int, c_void};

use rdmaverbs_abi::functions::Func;
use rdmaverbs_abi::verbs::{ibv_cq_ex, ibv_data_buf, ibv_qp_ex, ibv_sge};

use super::show::{current, recv_bytes, sge_bytes, show_cq, show_qp, show_wc, wc_args};
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
    /// `ibv_wr_set_ud_addr`.
    UdAddr {
        /// The QP.
        qp: *mut ibv_qp_ex,
        /// The address handle.
        ah: *mut c_void,
        /// The remote QP number and Q_Key.
        remote_qpn: u32,
        /// The remote Q_Key.
        remote_qkey: u32,
    },
    /// `ibv_wr_set_xrc_srqn`.
    XrcSrqn {
        /// The QP.
        qp: *mut ibv_qp_ex,
        /// The remote SRQ number.
        srqn: u32,
    },
    /// `ibv_wr_set_inline_data_list`.
    InlineList {
        /// The QP.
        qp: *mut ibv_qp_ex,
        /// How many buffers.
        n: usize,
        /// The list.
        list: *const ibv_data_buf,
    },
    /// An `ibv_wc_read_*` of the CQ's current completion, and what it read
    /// (0 for `ibv_wc_read_tm_info`, which writes a struct): no trace line
    /// (the poll's line shows the completion), a count and a probe.
    Read {
        /// Which.
        f: Func,
        /// The CQ.
        cq: *mut ibv_cq_ex,
        /// The value read.
        value: u64,
    },
}

/// Records a call of a wrapped extended-API op.
///
/// # Safety
/// The QP or CQ is live; a list holds `n` readable SGEs; after a poll that
/// returned 0 the CQ's current completion can be read.
pub unsafe fn record_ex(op: ExOp) {
    // An export's call is the export's to record (as `record_op`).
    if crate::thread::inside_export() {
        return;
    }
    // SAFETY: forwarded.
    unsafe { emit(op) };
}

impl ExOp {
    /// `(key, object)` of a call refused for a NULL QP or CQ.
    pub(super) fn refused_as(self) -> Option<(&'static [u8], *const c_void)> {
        let (key, obj): (&'static [u8], *const c_void) = match self {
            ExOp::Mark { qp, .. }
            | ExOp::Opcode { qp, .. }
            | ExOp::Sge { qp, .. }
            | ExOp::SgeList { qp, .. }
            | ExOp::Inline { qp, .. }
            | ExOp::Complete { qp, .. }
            | ExOp::UdAddr { qp, .. }
            | ExOp::XrcSrqn { qp, .. }
            | ExOp::InlineList { qp, .. } => (b" qp=", qp.cast()),
            ExOp::Poll { cq, .. } | ExOp::EndPoll { cq } | ExOp::Read { cq, .. } => {
                (b" cq=", cq.cast())
            }
        };
        obj.is_null().then_some((key, obj))
    }

    /// The call with the result it returned (an export's, known only after
    /// its description was made): `ibv_wr_complete`'s and a poll's status,
    /// a read's value.
    pub(super) fn with_ret(self, ret: isize) -> ExOp {
        match self {
            ExOp::Complete { qp, .. } => ExOp::Complete {
                qp,
                ret: ret as c_int,
            },
            ExOp::Poll { f, cq, .. } => ExOp::Poll {
                f,
                cq,
                ret: ret as c_int,
            },
            ExOp::Read { f, cq, .. } => ExOp::Read {
                f,
                cq,
                value: ret as u64,
            },
            other => other,
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

    /// The function of the table.
    #[inline(always)]
    fn func(self) -> Func {
        match self {
            ExOp::Mark { f, .. }
            | ExOp::Opcode { f, .. }
            | ExOp::Poll { f, .. }
            | ExOp::Read { f, .. } => f,
            ExOp::UdAddr { .. } => Func::IbvWrSetUdAddr,
            ExOp::XrcSrqn { .. } => Func::IbvWrSetXrcSrqn,
            ExOp::InlineList { .. } => Func::IbvWrSetInlineDataList,
            ExOp::Sge { .. } => Func::IbvWrSetSge,
            ExOp::SgeList { .. } => Func::IbvWrSetSgeList,
            ExOp::Inline { .. } => Func::IbvWrSetInlineData,
            ExOp::Complete { .. } => Func::IbvWrComplete,
            ExOp::EndPoll { .. } => Func::IbvEndPoll,
        }
    }

    #[inline(always)]
    unsafe fn each(self, out: &mut impl Out) {
        let f = self.func();
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
            ExOp::UdAddr {
                qp,
                ah,
                remote_qpn,
                remote_qkey,
            } => {
                let line = |line: &mut Line| {
                    show_qp(line, qp);
                    line.hex(b" ah=", ah as usize as u64);
                    line.dec(b" remote_qpn=", remote_qpn.into());
                    line.hex(b" remote_qkey=", remote_qkey.into());
                };
                out.event(f, 0, Some(line), || {
                    [
                        qp as isize,
                        ah as isize,
                        remote_qpn as isize,
                        remote_qkey as isize,
                        0,
                        0,
                    ]
                });
            }
            ExOp::XrcSrqn { qp, srqn } => {
                let line = |line: &mut Line| {
                    show_qp(line, qp);
                    line.dec(b" srqn=", srqn.into());
                };
                out.event(f, 0, Some(line), || {
                    [qp as isize, srqn as isize, 0, 0, 0, 0]
                });
            }
            ExOp::InlineList { qp, n, list } => {
                // SAFETY: the caller's list of `n` buffers.
                let bytes = (0..n)
                    .map(|i| unsafe { (*list.add(i)).length } as u64)
                    .fold(0, u64::wrapping_add);
                let line = |line: &mut Line| {
                    show_qp(line, qp);
                    line.dec(b" nbuf=", n as i64);
                    line.dec(b" bytes=", bytes as i64);
                };
                out.event(f, bytes, Some(line), || {
                    [qp as isize, n as isize, bytes as isize, 0, 0, 0]
                });
            }
            ExOp::Read { cq, value, .. } => {
                out.event(f, 0, NO_LINE, || [cq as isize, value as isize, 0, 0, 0, 0]);
            }
            ExOp::EndPoll { cq } => {
                let line = |line: &mut Line| line.hex(b" cq=", cq as usize as u64);
                out.event(f, 0, Some(line), || [cq as isize, 0, 0, 0, 0, 0]);
            }
        }
    }
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

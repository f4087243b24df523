//! A call of a provider op that the preload library wraps ([`Op`]): an
//! event per work request posted and per completion polled (none for an
//! empty poll, which is only counted), each with its trace line and probe.

use core::ffi::{c_int, c_void};

use rdmaverbs_abi::functions::Func;
use rdmaverbs_abi::verbs::{
    ibv_cq, ibv_qp, ibv_recv_wr, ibv_send_wr, ibv_sge, ibv_srq, ibv_wc, ibv_wc_head, ibv_wq,
};

use super::show::{recv_bytes, sge_bytes, show_cq, show_wc, wc_args, wr_opcode_name};
use super::{Events, Out, emit, emit_watched};
use crate::probes::Args;
use crate::thread::inside_export;
use crate::trace::line::Line;

/// A call of a wrapped provider op.
#[derive(Clone, Copy)]
pub enum Op {
    /// `ibv_post_send`.
    PostSend {
        /// The QP.
        qp: *mut ibv_qp,
        /// The chain of work requests.
        wr: *mut ibv_send_wr,
    },
    /// `ibv_post_recv`.
    PostRecv {
        /// The QP.
        qp: *mut ibv_qp,
        /// The chain of work requests.
        wr: *mut ibv_recv_wr,
    },
    /// `ibv_post_srq_recv`.
    PostSrqRecv {
        /// The SRQ.
        srq: *mut ibv_srq,
        /// The chain of work requests.
        wr: *mut ibv_recv_wr,
    },
    /// `ibv_post_wq_recv` (an export only: no context op to wrap).
    PostWqRecv {
        /// The work queue.
        wq: *mut ibv_wq,
        /// The chain of work requests.
        wr: *mut ibv_recv_wr,
    },
    /// `ibv_poll_cq`.
    PollCq {
        /// The CQ.
        cq: *mut ibv_cq,
        /// The completions written.
        wc: *mut ibv_wc,
        /// The room at `wc`, in completions: no more are read, whatever the
        /// provider answered (libibverbs' stub answers `EOPNOTSUPP`, 95).
        n: c_int,
    },
    /// `ibv_req_notify_cq`.
    ReqNotifyCq {
        /// The CQ.
        cq: *mut ibv_cq,
    },
}

/// The longest chain of work requests shown (and counted) per post.
const MAX_CHAIN: usize = 4096;

/// Records a call of a wrapped op that returned `ret`. Calls made by the
/// exports are theirs to record.
///
/// # Safety
/// The work request chain is the caller's, valid; `wc` holds `ret`
/// completions when `ret > 0`.
#[inline(always)]
pub unsafe fn record_op(op: Op, ret: c_int) {
    if inside_export() {
        return;
    }
    // SAFETY: forwarded.
    unsafe { emit(OpCall { op, ret }) };
}

impl Op {
    /// `(key, object)` of a call refused for a NULL object or list.
    pub(super) fn refused_as(self) -> Option<(&'static [u8], *const c_void)> {
        let (key, obj, list): (&'static [u8], *const c_void, *const c_void) = match self {
            Op::PostSend { qp, wr } => (b" qp=", qp.cast(), wr.cast()),
            Op::PostRecv { qp, wr } => (b" qp=", qp.cast(), wr.cast()),
            Op::PostSrqRecv { srq, wr } => (b" srq=", srq.cast(), wr.cast()),
            Op::PostWqRecv { wq, wr } => (b" wq=", wq.cast(), wr.cast()),
            // A NULL array with no room asked for goes to the provider.
            Op::PollCq { cq, wc, n } => (
                b" cq=",
                cq.cast(),
                if n > 0 { wc.cast() } else { cq.cast() },
            ),
            Op::ReqNotifyCq { cq } => (b" cq=", cq.cast(), cq.cast()),
        };
        (obj.is_null() || list.is_null()).then_some((key, obj))
    }

    /// The function of the table.
    #[inline(always)]
    fn func(self) -> Func {
        match self {
            Op::PostSend { .. } => Func::IbvPostSend,
            Op::PostRecv { .. } => Func::IbvPostRecv,
            Op::PostSrqRecv { .. } => Func::IbvPostSrqRecv,
            Op::PostWqRecv { .. } => Func::IbvPostWqRecv,
            Op::PollCq { .. } => Func::IbvPollCq,
            Op::ReqNotifyCq { .. } => Func::IbvReqNotifyCq,
        }
    }
}

/// An op's call with its result.
#[derive(Clone, Copy)]
pub(super) struct OpCall {
    pub(super) op: Op,
    pub(super) ret: c_int,
}

impl Events for OpCall {
    #[inline(always)]
    fn quiet(self) -> bool {
        matches!(self.op, Op::PollCq { .. }) && self.ret == 0
    }

    #[inline(always)]
    fn failed(self) -> bool {
        match self.op {
            Op::PollCq { .. } => self.ret < 0,
            _ => self.ret != 0,
        }
    }

    #[inline(always)]
    fn func(self) -> Func {
        self.op.func()
    }

    #[inline(always)]
    unsafe fn watched(self) {
        let ret = self.ret;
        // SAFETY: forwarded.
        unsafe {
            match self.op {
                Op::PostSend { qp, wr } => post_send_watched(qp, wr, ret),
                Op::PostRecv { qp, wr } => post_recv_watched(qp, wr, ret),
                Op::PostSrqRecv { srq, wr } => post_srq_recv_watched(srq, wr, ret),
                Op::PostWqRecv { wq, wr } => post_wq_recv_watched(wq, wr, ret),
                Op::PollCq { cq, wc, n } => poll_cq_watched(cq, wc, n, ret),
                Op::ReqNotifyCq { cq } => req_notify_cq_watched(cq, ret),
            }
        }
    }

    #[inline(always)]
    unsafe fn each(self, out: &mut impl Out) {
        let ret = self.ret;
        match self.op {
            // SAFETY: the caller's QP and chain.
            Op::PostSend { qp, wr } => unsafe {
                chain(wr, ret, |w, bytes| {
                    out.event(
                        Func::IbvPostSend,
                        bytes,
                        Some(|line: &mut Line| send_line(line, qp, w, ret, bytes)),
                        || post_args(qp.cast(), w.wr_id, w.opcode as isize, w, bytes, ret),
                    )
                })
            },
            // SAFETY: the caller's QP and chain.
            Op::PostRecv { qp, wr } => unsafe {
                chain(wr, ret, |w, bytes| {
                    let line = |line: &mut Line| {
                        line.hex(b" qp=", qp as usize as u64);
                        // SAFETY: a live QP.
                        line.dec(b" qpn=", (*qp).qp_num.into());
                        recv_line(line, w, ret, bytes);
                    };
                    out.event(Func::IbvPostRecv, bytes, Some(line), || {
                        post_args(qp.cast(), w.wr_id, -1, w, bytes, ret)
                    })
                })
            },
            // SAFETY: the caller's SRQ and chain.
            Op::PostSrqRecv { srq, wr } => unsafe {
                chain(wr, ret, |w, bytes| {
                    let line = |line: &mut Line| {
                        line.hex(b" srq=", srq as usize as u64);
                        recv_line(line, w, ret, bytes);
                    };
                    out.event(Func::IbvPostSrqRecv, bytes, Some(line), || {
                        post_args(srq.cast(), w.wr_id, -1, w, bytes, ret)
                    })
                })
            },
            Op::PostWqRecv { wq, wr } => unsafe {
                chain(wr, ret, |w, bytes| {
                    let line = |line: &mut Line| {
                        line.hex(b" wq=", wq as usize as u64);
                        recv_line(line, w, ret, bytes);
                    };
                    out.event(Func::IbvPostWqRecv, bytes, Some(line), || {
                        post_args(wq.cast(), w.wr_id, -1, w, bytes, ret)
                    })
                })
            },
            Op::PollCq { cq, wc, n } => {
                let stride = core::mem::size_of::<ibv_wc>();
                // Only the room asked for is read, whatever the provider
                // says it wrote.
                for i in 0..ret.min(n) {
                    let i = i as usize;
                    // SAFETY: the provider wrote `ret` completions, within
                    // the caller's room for `n`.
                    let w = unsafe { &*wc.cast::<u8>().add(i * stride).cast::<ibv_wc_head>() };
                    let line = |line: &mut Line| {
                        show_cq(line, cq, ret);
                        line.dec(b" qpn=", w.qp_num.into());
                        show_wc(line, w);
                    };
                    out.event(Func::IbvPollCq, recv_bytes(w), Some(line), || {
                        let [wr_id, status, opcode, byte_len] = wc_args(w);
                        [cq as isize, wr_id, status, opcode, byte_len, ret as isize]
                    });
                }
                if ret < 0 {
                    let line = |line: &mut Line| show_cq(line, cq, ret);
                    let args = || [cq as isize, 0, 0, 0, 0, ret as isize];
                    out.event(Func::IbvPollCq, 0, Some(line), args);
                }
            }
            Op::ReqNotifyCq { cq } => {
                let line = |line: &mut Line| show_cq(line, cq, ret);
                let args = || [cq as isize, 0, 0, 0, 0, ret as isize];
                out.event(Func::IbvReqNotifyCq, 0, Some(line), args);
            }
        }
    }
}

/// The watched path of each op, its arguments in registers (see
/// [`Events::watched`]).
macro_rules! watched {
    ($( $name:ident($($arg:ident: $t:ty),*) => $op:ident; )*) => {
        $(
            #[inline(never)]
            unsafe fn $name($($arg: $t,)* ret: c_int) {
                // SAFETY: as `record_op`.
                unsafe { emit_watched(OpCall { op: Op::$op { $($arg),* }, ret }) };
            }
        )*
    };
}
watched! {
    post_send_watched(qp: *mut ibv_qp, wr: *mut ibv_send_wr) => PostSend;
    post_recv_watched(qp: *mut ibv_qp, wr: *mut ibv_recv_wr) => PostRecv;
    post_srq_recv_watched(srq: *mut ibv_srq, wr: *mut ibv_recv_wr) => PostSrqRecv;
    post_wq_recv_watched(wq: *mut ibv_wq, wr: *mut ibv_recv_wr) => PostWqRecv;
    poll_cq_watched(cq: *mut ibv_cq, wc: *mut ibv_wc, n: c_int) => PollCq;
    req_notify_cq_watched(cq: *mut ibv_cq) => ReqNotifyCq;
}

/// The trace line of one send work request posted through the op.
///
/// # Safety
/// `qp` is live; `w` is the caller's work request.
unsafe fn send_line(line: &mut Line, qp: *mut ibv_qp, w: &ibv_send_wr, ret: c_int, bytes: u64) {
    use rdmaverbs_abi::verbs::ibv_wr_opcode as o;
    line.hex(b" qp=", qp as usize as u64);
    // SAFETY: a live QP.
    let (qpn, ud) = unsafe {
        (
            (*qp).qp_num,
            (*qp).qp_type == rdmaverbs_abi::verbs::ibv_qp_type::IBV_QPT_UD,
        )
    };
    line.dec(b" qpn=", qpn.into());
    line.hex(b" wr_id=", w.wr_id);
    line.word(b" opcode=", wr_opcode_name(w.opcode).as_bytes());
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
}

/// The rest of a receive work request's line, after its QP or SRQ.
fn recv_line(line: &mut Line, w: &ibv_recv_wr, ret: c_int, bytes: u64) {
    line.hex(b" wr_id=", w.wr_id);
    line.dec(b" nsge=", w.num_sge.into());
    if ret == 0 {
        line.dec(b" bytes=", bytes as i64);
    }
    line.dec(b" ret=", ret.into());
}

/// A posted work request's probe arguments: the QP (or SRQ), `wr_id`, the
/// opcode (-1 for a receive), the SGEs, the bytes, the post's result.
fn post_args<W: WorkRequest>(
    obj: *mut c_void,
    wr_id: u64,
    opcode: isize,
    w: &W,
    bytes: u64,
    ret: c_int,
) -> Args {
    let (_, nsge) = w.sges();
    [
        obj as isize,
        wr_id as isize,
        opcode,
        nsge as isize,
        bytes as isize,
        ret as isize,
    ]
}

/// A work request of a chain, as [`chain`] walks it.
trait WorkRequest {
    fn sges(&self) -> (*mut ibv_sge, c_int);
    fn next(&self) -> *mut Self;
}

impl WorkRequest for ibv_send_wr {
    fn sges(&self) -> (*mut ibv_sge, c_int) {
        (self.sg_list, self.num_sge)
    }
    fn next(&self) -> *mut Self {
        self.next
    }
}

impl WorkRequest for ibv_recv_wr {
    fn sges(&self) -> (*mut ibv_sge, c_int) {
        (self.sg_list, self.num_sge)
    }
    fn next(&self) -> *mut Self {
        self.next
    }
}

/// Walks a chain of work requests (at most [`MAX_CHAIN`]), calling `each`
/// with each one and its bytes (0 unless the post succeeded).
///
/// # Safety
/// `wr` is the caller's chain.
#[inline(always)]
unsafe fn chain<W: WorkRequest>(mut wr: *mut W, ret: c_int, mut each: impl FnMut(&W, u64)) {
    for _ in 0..MAX_CHAIN {
        if wr.is_null() {
            break;
        }
        // SAFETY: the caller's chain.
        let w = unsafe { &*wr };
        let (sgl, n) = w.sges();
        // SAFETY: accepted by the provider, so readable.
        let bytes = if ret == 0 {
            unsafe { sge_bytes(sgl, n) }
        } else {
            0
        };
        each(w, bytes);
        wr = w.next();
    }
}

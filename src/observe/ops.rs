//! Records of the provider ops that the preload library wraps: a trace line
//! per work request posted and per completion polled (none for an empty
//! poll), and the counters.

use core::ffi::c_int;

use super::call::{recv_bytes, sge_bytes, wc_args};
use super::probes::{self, Args};
use super::scope::inside_export;
use super::trace::{emit, recv_line, send_line, show_cq, show_wc};
use super::{config, counters, writer};
use crate::functions::Func;
use crate::verbs::{
    ibv_cq, ibv_qp, ibv_recv_wr, ibv_send_wr, ibv_sge, ibv_srq, ibv_wc, ibv_wc_head,
};

/// A call of a wrapped provider op.
#[derive(Clone, Copy)]
pub(crate) enum Op {
    PostSend {
        qp: *mut ibv_qp,
        wr: *mut ibv_send_wr,
    },
    PostRecv {
        qp: *mut ibv_qp,
        wr: *mut ibv_recv_wr,
    },
    PostSrqRecv {
        srq: *mut ibv_srq,
        wr: *mut ibv_recv_wr,
    },
    PollCq {
        cq: *mut ibv_cq,
        wc: *mut ibv_wc,
    },
    ReqNotifyCq {
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
pub(crate) unsafe fn record_op(op: Op, ret: c_int) {
    if inside_export() {
        return;
    }
    // An empty poll has no line and no probe: it is only counted.
    let empty = matches!(op, Op::PollCq { .. }) && ret == 0;
    if !empty && (writer::tracing() || probes::attached()) {
        // SAFETY: forwarded.
        unsafe { record_watched(op, ret) };
    } else if config::stats() {
        // SAFETY: forwarded.
        unsafe { record::<false>(op, ret) };
    }
}

/// A call recorded with its trace lines and probes, out of the counting
/// path.
///
/// # Safety
/// As [`record_op`].
#[inline(never)]
unsafe fn record_watched(op: Op, ret: c_int) {
    // SAFETY: forwarded.
    unsafe { record::<true>(op, ret) };
}

/// Records a call: counted (without `LINES`, the caller has seen that
/// counting is on); with its trace lines and probes when `LINES`.
///
/// # Safety
/// As [`record_op`].
#[inline(always)]
unsafe fn record<const LINES: bool>(op: Op, ret: c_int) {
    let tracing = LINES && writer::tracing();
    let (f, failed, bytes) = match op {
        Op::PostSend { qp, wr } => {
            // SAFETY: the caller's QP and chain.
            let bytes = unsafe {
                chain(wr, ret, |w, b| {
                    if tracing {
                        send_line(qp, w, ret, b);
                    }
                    let op = w.opcode as isize;
                    fire::<LINES>(Func::OpPostSend, || {
                        post_args(qp.cast(), w.wr_id, op, w, b, ret)
                    });
                })
            };
            (Func::OpPostSend, ret != 0, bytes)
        }
        Op::PostRecv { qp, wr } => {
            // SAFETY: the caller's QP and chain.
            let bytes = unsafe {
                chain(wr, ret, |w, b| {
                    if tracing {
                        recv_line(Func::OpPostRecv, qp.cast(), w, ret, b);
                    }
                    fire::<LINES>(Func::OpPostRecv, || {
                        post_args(qp.cast(), w.wr_id, -1, w, b, ret)
                    });
                })
            };
            (Func::OpPostRecv, ret != 0, bytes)
        }
        Op::PostSrqRecv { srq, wr } => {
            // SAFETY: the caller's SRQ and chain.
            let bytes = unsafe {
                chain(wr, ret, |w, b| {
                    if tracing {
                        recv_line(Func::OpPostSrqRecv, srq.cast(), w, ret, b);
                    }
                    let srq = srq.cast();
                    fire::<LINES>(Func::OpPostSrqRecv, || {
                        post_args(srq, w.wr_id, -1, w, b, ret)
                    });
                })
            };
            (Func::OpPostSrqRecv, ret != 0, bytes)
        }
        Op::PollCq { cq, wc } => {
            let mut bytes = 0;
            let stride = core::mem::size_of::<ibv_wc>();
            for i in 0..ret.max(0) as usize {
                // SAFETY: the provider wrote `ret` completions.
                let w = unsafe { &*wc.cast::<u8>().add(i * stride).cast::<ibv_wc_head>() };
                bytes += recv_bytes(w);
                if tracing {
                    emit(Func::OpPollCq, |line| {
                        show_cq(line, cq, ret);
                        line.dec(b" qpn=", w.qp_num.into());
                        show_wc(line, w);
                    });
                }
                fire::<LINES>(Func::OpPollCq, || {
                    let [wr_id, status, opcode, byte_len] = wc_args(w);
                    [cq as isize, wr_id, status, opcode, byte_len, ret as isize]
                });
            }
            if ret < 0 {
                fire::<LINES>(Func::OpPollCq, || [cq as isize, 0, 0, 0, 0, ret as isize]);
                if tracing {
                    emit(Func::OpPollCq, |line| show_cq(line, cq, ret));
                }
            }
            (Func::OpPollCq, ret < 0, bytes)
        }
        Op::ReqNotifyCq { cq } => {
            fire::<LINES>(Func::OpReqNotifyCq, || {
                [cq as isize, 0, 0, 0, 0, ret as isize]
            });
            if tracing {
                emit(Func::OpReqNotifyCq, |line| show_cq(line, cq, ret));
            }
            (Func::OpReqNotifyCq, ret != 0, 0)
        }
    };
    if !LINES || config::stats() {
        counters::tally(f, failed, bytes);
    }
}

/// Fires the probe of `f` when `LINES` (the probes are on the watched path
/// only).
#[inline(always)]
fn fire<const LINES: bool>(f: Func, args: impl FnOnce() -> Args) {
    if LINES {
        probes::fire(f, args);
    }
}

/// A posted work request's probe arguments: the QP (or SRQ), `wr_id`, the
/// opcode (-1 for a receive), the SGEs, the bytes, the post's result.
fn post_args<W: WorkRequest>(
    obj: *mut core::ffi::c_void,
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
/// with each one and its bytes (0 unless the post succeeded); returns the
/// bytes of them all.
///
/// # Safety
/// `wr` is the caller's chain.
#[inline(always)]
unsafe fn chain<W: WorkRequest>(mut wr: *mut W, ret: c_int, mut each: impl FnMut(&W, u64)) -> u64 {
    let mut total = 0;
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
        total += bytes;
        each(w, bytes);
        wr = w.next();
    }
    total
}

//! Posting work requests: `ibv_post_send`, `ibv_post_recv`,
//! `ibv_post_srq_recv` (through the device context's ops, as verbs.h does),
//! `ibv_post_wq_recv` (through the work queue's), `ibv_post_srq_ops`
//! (through `verbs_context`).
//!
//! A NULL queue or a NULL list of work requests returns `EINVAL` with no
//! provider call; `*bad_wr`, when it is given, is then the list (none of it
//! was posted). Under the preload library the first three are recorded once,
//! as its wrapped ops record a program's inline calls.

use core::ffi::c_int;

use rdmaverbs_abi::verbs::{
    dispatch, ibv_ops_wr, ibv_qp, ibv_recv_wr, ibv_send_wr, ibv_srq, ibv_wq,
};
use rdmaverbs_abi::{ctx_op, object_op};
use rdmaverbs_observe::{Call, Op};

use crate::api::export::observed;

/// `EINVAL` for a NULL queue or list of work requests: `*bad` (when
/// given) is then the list, none of which was posted.
#[cold]
#[inline(never)]
fn not_posted<W>(bad: *mut *mut W, list: *mut W) -> c_int {
    if !bad.is_null() {
        // SAFETY: the caller's pointer for the first work request not posted.
        unsafe { *bad = list };
    }
    // Opaque, so that the caller jumps here rather than call and then
    // return a constant (which would give its fast path a stack frame).
    core::hint::black_box(libc::EINVAL)
}

/// `ibv_post_send()`: posts a list of send work requests on `qp`; 0, or an
/// errno value with `*bad_wr` the first not posted.
///
/// # Safety
/// As the inline original: `qp` is NULL (`EINVAL`) or a live QP, `wr` NULL
/// (`EINVAL`) or a valid list, `bad_wr` as the provider requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_post_send(
    qp: *mut ibv_qp,
    wr: *mut ibv_send_wr,
    bad_wr: *mut *mut ibv_send_wr,
) -> c_int {
    // SAFETY: the caller's QP and list, for the provider's own op.
    observed!(status IbvPostSend(qp, wr, bad_wr), qp, Call::op(Op::PostSend { qp, wr }), {
        if wr.is_null() { not_posted(bad_wr, wr) } else { unsafe { dispatch::ibv_post_send(qp, wr, bad_wr) } }
    }, null => not_posted(bad_wr, wr))
}

/// `ibv_post_recv()`: posts a list of receive work requests on `qp`.
///
/// # Safety
/// As [`ibv_post_send`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_post_recv(
    qp: *mut ibv_qp,
    wr: *mut ibv_recv_wr,
    bad_wr: *mut *mut ibv_recv_wr,
) -> c_int {
    // SAFETY: as in `ibv_post_send`.
    observed!(status IbvPostRecv(qp, wr, bad_wr), qp, Call::op(Op::PostRecv { qp, wr }), {
        if wr.is_null() { not_posted(bad_wr, wr) } else { unsafe { dispatch::ibv_post_recv(qp, wr, bad_wr) } }
    }, null => not_posted(bad_wr, wr))
}

/// `ibv_post_srq_recv()`: posts a list of receive work requests on `srq`.
///
/// # Safety
/// As [`ibv_post_send`], with a live SRQ.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_post_srq_recv(
    srq: *mut ibv_srq,
    recv_wr: *mut ibv_recv_wr,
    bad_recv_wr: *mut *mut ibv_recv_wr,
) -> c_int {
    // SAFETY: as in `ibv_post_send`.
    observed!(status IbvPostSrqRecv(srq, recv_wr, bad_recv_wr), srq, Call::op(Op::PostSrqRecv { srq, wr: recv_wr }), {
        if recv_wr.is_null() {
            not_posted(bad_recv_wr, recv_wr)
        } else {
            unsafe { dispatch::ibv_post_srq_recv(srq, recv_wr, bad_recv_wr) }
        }
    }, null => not_posted(bad_recv_wr, recv_wr))
}

/// `ibv_post_wq_recv()`: posts a list of receive work requests on a work
/// queue, through its own `post_recv`.
///
/// # Safety
/// As [`ibv_post_send`], with a live work queue.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_post_wq_recv(
    wq: *mut ibv_wq,
    recv_wr: *mut ibv_recv_wr,
    bad_recv_wr: *mut *mut ibv_recv_wr,
) -> c_int {
    // SAFETY: the caller's work queue and list, for the provider's own call.
    observed!(status IbvPostWqRecv(wq, recv_wr, bad_recv_wr), wq, Call::op(Op::PostWqRecv { wq, wr: recv_wr }), {
        if recv_wr.is_null() {
            not_posted(bad_recv_wr, recv_wr)
        } else {
            unsafe { object_op!(wq, post_recv)(wq, recv_wr, bad_recv_wr) }
        }
    }, null => not_posted(bad_recv_wr, recv_wr))
}

/// `ibv_post_srq_ops()`: posts tag matching operations on `srq`; without
/// the op, `EOPNOTSUPP` with `*bad_op` the first operation, as the
/// original.
///
/// # Safety
/// As [`ibv_post_send`]: `srq` NULL (`EINVAL`) or live; `op` NULL (`EINVAL`)
/// or a valid list; `bad_op` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_post_srq_ops(
    srq: *mut ibv_srq,
    op: *mut ibv_ops_wr,
    bad_op: *mut *mut ibv_ops_wr,
) -> c_int {
    // SAFETY: the caller's SRQ, its context and list.
    observed!(
        status IbvPostSrqOps(srq, op, bad_op),
        srq,
        Call::Object { key: b" srq=", obj: srq.cast() },
        unsafe { post_srq_ops(srq, op, bad_op) },
        null => not_posted(bad_op, op)
    )
}

/// The body of [`ibv_post_srq_ops`].
///
/// # Safety
/// As its caller, with `srq` not NULL.
#[inline(always)]
unsafe fn post_srq_ops(
    srq: *mut ibv_srq,
    op: *mut ibv_ops_wr,
    bad_op: *mut *mut ibv_ops_wr,
) -> c_int {
    if op.is_null() {
        return not_posted(bad_op, op);
    }
    // SAFETY: a live SRQ and its context.
    match unsafe { ctx_op!((*srq).context, post_srq_ops) } {
        // SAFETY: the provider's op, as verbs.h calls it.
        Some(post) => unsafe { post(srq, op, bad_op) },
        None => {
            // SAFETY: the caller's pointer, as the original writes it.
            unsafe { *bad_op = op };
            libc::EOPNOTSUPP
        }
    }
}

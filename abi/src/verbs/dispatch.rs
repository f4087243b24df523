//! The provider dispatch that `verbs.h` inlines: each data-path verb is a
//! call through a function pointer of the object's device context
//! (`struct ibv_context_ops`), of an extended QP or CQ (`struct ibv_qp_ex`,
//! `struct ibv_cq_ex`) or of a work queue; the same calls here.
//!
//! libibverbs never leaves a context's op NULL (it installs stubs that
//! return `EOPNOTSUPP`), and a provider sets every call of an extended QP
//! or CQ that its creator asked for, so, like verbs.h, these do not test for
//! one: a test would cost two instructions on every call (BENCHMARKS.md).

use core::ffi::c_int;

use super::{ibv_cq, ibv_qp, ibv_recv_wr, ibv_send_wr, ibv_srq, ibv_wc};

/// The op `$op` of the device context of `$obj` (a QP, SRQ, CQ or MW):
/// `$obj->context->ops.$op`. Used in an `unsafe` block whose caller
/// guarantees that `$obj` and its context are live; libibverbs sets every op.
#[macro_export]
macro_rules! context_op {
    ($obj:expr, $op:ident) => {
        $crate::verbs::dispatch::read_set_op(&raw const (*(*$obj).context).ops.$op)
    };
}

/// The call `$f` of `$obj`, an extended QP or CQ, a work queue or device
/// memory: `$obj->$f`, which verbs.h calls without a test. Used in an
/// `unsafe` block whose caller guarantees that `$obj` is live and has the
/// call (an extended QP or CQ created with it).
#[macro_export]
macro_rules! object_op {
    ($obj:expr, $f:ident) => {
        $crate::verbs::dispatch::read_set_op(&raw const (*$obj).$f)
    };
}

/// The function `*op` holds, read as the function pointer it is (the
/// `Option`'s niche is NULL, so the two have one layout). Not
/// `unwrap_unchecked`, whose assumption that it is not NULL is a second use
/// of the loaded pointer, which keeps the compiler from jumping through
/// memory: one more instruction on every call.
///
/// # Safety
/// `op` points to a set function pointer.
#[doc(hidden)]
#[inline(always)]
pub unsafe fn read_set_op<F: Copy>(op: *const Option<F>) -> F {
    // SAFETY: the caller's set pointer; Option<fn> is laid out as fn.
    unsafe { op.cast::<F>().read() }
}

use crate::context_op as op;

/// `ibv_post_send()` of verbs.h.
///
/// # Safety
/// `qp` points to a live QP whose `context` is a live device context (made by
/// libibverbs, so that every op is set); `wr` and `bad` are valid for the
/// provider's op.
#[inline(always)]
pub unsafe fn ibv_post_send(
    qp: *mut ibv_qp,
    wr: *mut ibv_send_wr,
    bad: *mut *mut ibv_send_wr,
) -> c_int {
    // SAFETY: the provider's own op, called as verbs.h calls it.
    unsafe { op!(qp, post_send)(qp, wr, bad) }
}

/// `ibv_post_recv()` of verbs.h.
///
/// # Safety
/// As [`ibv_post_send`].
#[inline(always)]
pub unsafe fn ibv_post_recv(
    qp: *mut ibv_qp,
    wr: *mut ibv_recv_wr,
    bad: *mut *mut ibv_recv_wr,
) -> c_int {
    // SAFETY: the provider's own op, called as verbs.h calls it.
    unsafe { op!(qp, post_recv)(qp, wr, bad) }
}

/// `ibv_post_srq_recv()` of verbs.h.
///
/// # Safety
/// `srq` points to a live SRQ whose `context` is live; `wr` and `bad` are
/// valid for the provider's op.
#[inline(always)]
pub unsafe fn ibv_post_srq_recv(
    srq: *mut ibv_srq,
    wr: *mut ibv_recv_wr,
    bad: *mut *mut ibv_recv_wr,
) -> c_int {
    // SAFETY: the provider's own op, called as verbs.h calls it.
    unsafe { op!(srq, post_srq_recv)(srq, wr, bad) }
}

/// `ibv_poll_cq()` of verbs.h.
///
/// # Safety
/// `cq` points to a live CQ whose `context` is live; `wc` has room for
/// `num_entries` completions.
#[inline(always)]
pub unsafe fn ibv_poll_cq(cq: *mut ibv_cq, num_entries: c_int, wc: *mut ibv_wc) -> c_int {
    // SAFETY: the provider's own op, called as verbs.h calls it.
    unsafe { op!(cq, poll_cq)(cq, num_entries, wc) }
}

/// `ibv_req_notify_cq()` of verbs.h.
///
/// # Safety
/// `cq` points to a live CQ whose `context` is live.
#[inline(always)]
pub unsafe fn ibv_req_notify_cq(cq: *mut ibv_cq, solicited_only: c_int) -> c_int {
    // SAFETY: the provider's own op, called as verbs.h calls it.
    unsafe { op!(cq, req_notify_cq)(cq, solicited_only) }
}

//! Waiting for completions: `rdma_get_send_comp` and `rdma_get_recv_comp`,
//! and their bounded forms `rdma_get_send_comp_timeout` and
//! `rdma_get_recv_comp_timeout` (`<rdmaverbs.h>`, version `RDMAVERBS_1.1`).
//!
//! All four are the original's loop ([`get_comp`], then [`super::wait`]):
//! the bounded ones differ only in how long the loop may wait for a
//! completion event.

use core::ffi::c_int;

use super::errno::invalid;
use super::export::observed;
use super::wait::{Queue, Wait, polled, timed_out, wait_for_comp};
use rdmaverbs_abi::functions::Func;
use rdmaverbs_abi::verbs::{ibv_poll_cq, ibv_wc, rdma_cm_id};
use rdmaverbs_observe::Call;

/// The original's loop, step for step: poll; arm the CQ; poll again (a
/// completion may have arrived before the arming); block for the event;
/// acknowledge it; repeat. `timeout_ms` bounds the wait for the event: less
/// than 0 waits as long as it takes (the original), 0 only polls.
///
/// Returns what the last poll returned (1) on success. A NULL `id`, `wc`,
/// CQ, or (when it must wait) completion channel gives -1 with
/// `errno = EINVAL`; an event of another CQ or context gives -1 with
/// `errno = EIO`, where the original asserts. A failed arming returns -1 with
/// `errno` set to its result; a failed event wait returns its -1 with the
/// `errno` it set; a negative poll result goes into `errno` as it is
/// (negative), with -1 returned; no completion in time, -1 with
/// `errno = ETIMEDOUT`.
///
/// Only the first poll is inlined here: when a completion is ready, that is
/// all the call does. The rest is [`wait_for_comp`], out of line.
///
/// # Safety
/// `id` points to a valid `rdma_cm_id` (tested for NULL by the export's
/// [`observed!`]); its non-NULL CQs and channels are live; a non-NULL `wc` has
/// room for one completion.
#[inline(always)]
unsafe fn get_comp(
    id: *mut rdma_cm_id,
    wc: *mut ibv_wc,
    q: Queue,
    f: Func,
    timeout_ms: c_int,
) -> c_int {
    // SAFETY: `id` is valid by the caller's guarantee.
    if wc.is_null() || unsafe { q.cq(id) }.is_null() {
        return invalid();
    }
    // SAFETY: the id's CQ is live (caller's guarantee).
    let ret = unsafe { ibv_poll_cq(q.cq(id), 1, wc) };
    if ret != 0 {
        return polled(ret);
    }
    if timeout_ms == 0 {
        return timed_out();
    }
    // SAFETY: forwarded.
    unsafe { wait_for_comp(id, wc, q, f, Wait::within(timeout_ms)) }
}

/// Waits for the next completion of the id's send CQ; returns 1, or -1 with errno.
///
/// `rdma_get_send_comp()` writes the completion to `*wc`, blocking on the
/// id's send completion channel until there is one.
///
/// # Safety
/// Each pointer is NULL (-1, `EINVAL`) or valid: `id` an `rdma_cm_id` whose
/// send CQ and completion channel, if set, are live; `wc` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_get_send_comp(id: *mut rdma_cm_id, wc: *mut ibv_wc) -> c_int {
    // SAFETY: forwarded from the caller.
    observed!(GetSendComp, id, Call::comp(id, wc, None), unsafe {
        get_comp(id, wc, Queue::Send, Func::GetSendComp, -1)
    })
}

/// Waits for the next completion of the id's receive CQ; returns 1, or -1 with errno.
///
/// `rdma_get_recv_comp()` is [`rdma_get_send_comp`] on the receive CQ.
///
/// # Safety
/// As [`rdma_get_send_comp`], with the receive CQ and channel.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_get_recv_comp(id: *mut rdma_cm_id, wc: *mut ibv_wc) -> c_int {
    // SAFETY: forwarded from the caller.
    observed!(GetRecvComp, id, Call::comp(id, wc, None), unsafe {
        get_comp(id, wc, Queue::Recv, Func::GetRecvComp, -1)
    })
}

/// Waits up to timeout_ms for the next completion of the send CQ; returns 1, or -1 with errno.
///
/// `rdma_get_send_comp_timeout()` is [`rdma_get_send_comp`], except that when
/// no completion arrives within `timeout_ms` milliseconds it returns -1 with
/// `errno = ETIMEDOUT`. `timeout_ms == 0` only polls; `timeout_ms < 0` waits
/// as long as it takes, as the original. A signal neither shortens nor
/// extends the wait. A completion that arrives after a time-out is returned
/// by the next call.
///
/// # Safety
/// As [`rdma_get_send_comp`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_get_send_comp_timeout(
    id: *mut rdma_cm_id,
    wc: *mut ibv_wc,
    timeout_ms: c_int,
) -> c_int {
    // SAFETY: forwarded from the caller.
    observed!(
        GetSendCompTimeout,
        id,
        Call::comp(id, wc, Some(timeout_ms)),
        unsafe { get_comp(id, wc, Queue::Send, Func::GetSendCompTimeout, timeout_ms) }
    )
}

/// Waits up to timeout_ms for the next completion of the receive CQ; returns 1, or -1 with errno.
///
/// `rdma_get_recv_comp_timeout()` is [`rdma_get_send_comp_timeout`] on the
/// receive CQ.
///
/// # Safety
/// As [`rdma_get_recv_comp`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_get_recv_comp_timeout(
    id: *mut rdma_cm_id,
    wc: *mut ibv_wc,
    timeout_ms: c_int,
) -> c_int {
    // SAFETY: forwarded from the caller.
    observed!(
        GetRecvCompTimeout,
        id,
        Call::comp(id, wc, Some(timeout_ms)),
        unsafe { get_comp(id, wc, Queue::Recv, Func::GetRecvCompTimeout, timeout_ms) }
    )
}

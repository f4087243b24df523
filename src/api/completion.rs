//! Waiting for completions: `rdma_get_send_comp` and `rdma_get_recv_comp`.

use core::ffi::{c_int, c_void};
use core::ptr;

use super::errno::{invalid, seterrno};
use super::export::observed;
use crate::functions::Func;
use crate::observe::{self, Call};
use crate::verbs::{ibv_comp_channel, ibv_cq, ibv_poll_cq, ibv_req_notify_cq, ibv_wc, rdma_cm_id};

/// Which of the id's two completion queues to wait on.
#[derive(Clone, Copy)]
enum Queue {
    Send,
    Recv,
}

impl Queue {
    fn func(self) -> Func {
        match self {
            Queue::Send => Func::GetSendComp,
            Queue::Recv => Func::GetRecvComp,
        }
    }

    /// The CQ and its completion channel. Read from the id at each use, as
    /// the original does.
    ///
    /// # Safety
    /// `id` points to a valid `rdma_cm_id`.
    #[inline(always)]
    unsafe fn cq(self, id: *mut rdma_cm_id) -> *mut ibv_cq {
        // SAFETY: `id` is valid by the caller's guarantee.
        unsafe {
            match self {
                Queue::Send => (*id).send_cq,
                Queue::Recv => (*id).recv_cq,
            }
        }
    }

    /// # Safety
    /// `id` points to a valid `rdma_cm_id`.
    #[inline(always)]
    unsafe fn channel(self, id: *mut rdma_cm_id) -> *mut ibv_comp_channel {
        // SAFETY: `id` is valid by the caller's guarantee.
        unsafe {
            match self {
                Queue::Send => (*id).send_cq_channel,
                Queue::Recv => (*id).recv_cq_channel,
            }
        }
    }
}

/// -1 with `errno = EIO`: the completion channel delivered an event that is
/// not for this id's CQ.
#[cold]
#[inline(never)]
fn foreign_event() -> c_int {
    seterrno(libc::EIO)
}

/// The loop's result: a completion count, or -1 with a negative poll result
/// in `errno` (the original's quirk).
#[inline(always)]
fn polled(ret: c_int) -> c_int {
    if ret < 0 { seterrno(ret) } else { ret }
}

/// The original's loop, step for step: poll; arm the CQ; poll again (a
/// completion may have arrived before the arming); block for the event;
/// acknowledge it; repeat.
///
/// Returns what the last poll returned (1) on success. A NULL `id`, `wc`,
/// CQ, or (when it must wait) completion channel gives -1 with
/// `errno = EINVAL`; an event of another CQ or context gives -1 with
/// `errno = EIO`, where the original asserts. A failed arming returns -1 with
/// `errno` set to its result; a failed event wait returns its -1 with the
/// `errno` it set; a negative poll result goes into `errno` as it is
/// (negative), with -1 returned.
///
/// Only the first poll is inlined here: when a completion is ready, that is
/// all the call does. The rest is [`wait_for_comp`], out of line.
///
/// # Safety
/// `id` points to a valid `rdma_cm_id` (tested for NULL by the export's
/// [`observed!`]); its non-NULL CQs and channels are live; a non-NULL `wc` has
/// room for one completion.
#[inline(always)]
unsafe fn get_comp(id: *mut rdma_cm_id, wc: *mut ibv_wc, q: Queue) -> c_int {
    // SAFETY: `id` is valid by the caller's guarantee.
    if wc.is_null() || unsafe { q.cq(id) }.is_null() {
        return invalid();
    }
    // SAFETY: the id's CQ is live (caller's guarantee).
    let ret = unsafe { ibv_poll_cq(q.cq(id), 1, wc) };
    if ret != 0 {
        return polled(ret);
    }
    // SAFETY: forwarded.
    unsafe { wait_for_comp(id, wc, q) }
}

/// The loop after a first poll found nothing: arm, poll, wait, acknowledge,
/// poll, and so on (see [`get_comp`]). With `RDMAVERBS_POLL_SPIN=N`, up to N
/// more polls before each arming: a completion that arrives meanwhile is
/// returned without the arming and the sleep in the kernel. The result is one
/// the original could have returned, had the completion come a moment sooner.
///
/// # Safety
/// As [`get_comp`], with `id`, `wc` and the id's CQ non-NULL.
#[cold]
#[inline(never)]
unsafe fn wait_for_comp(id: *mut rdma_cm_id, wc: *mut ibv_wc, q: Queue) -> c_int {
    // SAFETY: every pointer comes from the valid `id` (caller's guarantee).
    unsafe {
        let mut waited = false;
        loop {
            for _ in 0..observe::poll_spin() {
                let ret = ibv_poll_cq(q.cq(id), 1, wc);
                if ret != 0 {
                    return polled(ret);
                }
            }
            let ret = ibv_req_notify_cq(q.cq(id), 0);
            if ret != 0 {
                return seterrno(ret);
            }
            let ret = ibv_poll_cq(q.cq(id), 1, wc);
            if ret != 0 {
                return polled(ret);
            }
            let channel = q.channel(id);
            if channel.is_null() {
                return invalid();
            }
            if !waited {
                observe::blocked(q.func());
                waited = true;
            }
            let mut ev_cq: *mut ibv_cq = ptr::null_mut();
            let mut ev_ctx: *mut c_void = ptr::null_mut();
            let ret = ibverbs_sys::ibv_get_cq_event(channel, &mut ev_cq, &mut ev_ctx);
            if ret != 0 {
                return ret;
            }
            // The original asserts that the event is this CQ's, with the id
            // as context (librdmacm's CQs have it). An event of another CQ is
            // acknowledged where it belongs, so that destroying that CQ does
            // not wait for it forever.
            if ev_cq != q.cq(id) || ev_ctx != id.cast() {
                ibverbs_sys::ibv_ack_cq_events(ev_cq, 1);
                return foreign_event();
            }
            ibverbs_sys::ibv_ack_cq_events(ev_cq, 1);
            let ret = ibv_poll_cq(q.cq(id), 1, wc);
            if ret != 0 {
                return polled(ret);
            }
        }
    }
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
    observed!(GetSendComp, id, Call::Comp { id, wc }, unsafe {
        get_comp(id, wc, Queue::Send)
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
    observed!(GetRecvComp, id, Call::Comp { id, wc }, unsafe {
        get_comp(id, wc, Queue::Recv)
    })
}

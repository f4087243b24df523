//! Waiting for completions: `rdma_get_send_comp` and `rdma_get_recv_comp`.

use core::ffi::{c_int, c_void};
use core::ptr;

use crate::errno::seterrno;
use crate::ffi::{ibv_comp_channel, ibv_cq, ibv_poll_cq, ibv_req_notify_cq, ibv_wc, rdma_cm_id};

/// Which of the id's two completion queues to wait on.
#[derive(Clone, Copy)]
enum Queue {
    Send,
    Recv,
}

impl Queue {
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

/// The original's loop, step for step: poll; arm the CQ; poll again (a
/// completion may have arrived before the arming); block for the event;
/// acknowledge it; repeat.
///
/// Returns what the last poll returned (1) on success. A failed arming
/// returns -1 with `errno` set to its result; a failed event wait returns its
/// -1 with the `errno` it set; a negative poll result goes into `errno` as it
/// is (negative), with -1 returned.
///
/// # Safety
/// `id` points to a valid `rdma_cm_id` whose CQs and channels were made by
/// librdmacm; `wc` has room for one completion.
#[inline(always)]
unsafe fn get_comp(id: *mut rdma_cm_id, wc: *mut ibv_wc, q: Queue) -> c_int {
    // SAFETY: every pointer comes from the valid `id` (caller's guarantee).
    unsafe {
        let ret = loop {
            let ret = ibv_poll_cq(q.cq(id), 1, wc);
            if ret != 0 {
                break ret;
            }
            let ret = ibv_req_notify_cq(q.cq(id), 0);
            if ret != 0 {
                return seterrno(ret);
            }
            let ret = ibv_poll_cq(q.cq(id), 1, wc);
            if ret != 0 {
                break ret;
            }
            let mut ev_cq: *mut ibv_cq = ptr::null_mut();
            let mut ev_ctx: *mut c_void = ptr::null_mut();
            let ret = ibverbs_sys::ibv_get_cq_event(q.channel(id), &mut ev_cq, &mut ev_ctx);
            if ret != 0 {
                return ret;
            }
            // The original asserts here that the event is for this CQ and id;
            // Debian builds it with NDEBUG, so it checks nothing.
            ibverbs_sys::ibv_ack_cq_events(q.cq(id), 1);
        };
        if ret < 0 { seterrno(ret) } else { ret }
    }
}

/// Waits for the next completion of the id's send CQ; returns 1, or -1 with errno.
///
/// `rdma_get_send_comp()` writes the completion to `*wc`, blocking on the
/// id's send completion channel until there is one.
///
/// # Safety
/// `id` points to a valid `rdma_cm_id` with a send CQ and completion channel
/// made by librdmacm; `wc` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_get_send_comp(id: *mut rdma_cm_id, wc: *mut ibv_wc) -> c_int {
    // SAFETY: forwarded from the caller.
    unsafe { get_comp(id, wc, Queue::Send) }
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
    unsafe { get_comp(id, wc, Queue::Recv) }
}

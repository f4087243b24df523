//! The blocking part of the completion loop, and the bounds on it.

use core::ffi::{c_int, c_void};
use core::ptr;

use super::errno::{invalid, seterrno};
use rdmaverbs_abi::functions::Func;
use rdmaverbs_abi::sys::{errno, monotonic, ns};
use rdmaverbs_abi::verbs::{
    ibv_comp_channel, ibv_cq, ibv_poll_cq, ibv_req_notify_cq, ibv_wc, rdma_cm_id,
};
use rdmaverbs_observe as observe;

/// Which of the id's two completion queues to wait on.
#[derive(Clone, Copy)]
pub(super) enum Queue {
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
    pub(super) unsafe fn cq(self, id: *mut rdma_cm_id) -> *mut ibv_cq {
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
    pub(super) unsafe fn channel(self, id: *mut rdma_cm_id) -> *mut ibv_comp_channel {
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
pub(super) fn foreign_event() -> c_int {
    seterrno(libc::EIO)
}

/// The loop's result: a completion count, or -1 with a negative poll result
/// in `errno` (the original's quirk).
#[inline(always)]
pub(super) fn polled(ret: c_int) -> c_int {
    if ret >= 0 { ret } else { seterrno(ret) }
}

/// -1 with `errno = ETIMEDOUT`: no completion within the time-out.
#[cold]
#[inline(never)]
pub(super) fn timed_out() -> c_int {
    seterrno(libc::ETIMEDOUT)
}

/// How long the loop may wait for completion events.
#[derive(Clone, Copy)]
pub(super) enum Wait {
    /// As long as it takes (the original).
    Forever,
    /// Until this `CLOCK_MONOTONIC` time, in nanoseconds.
    Until(u64),
}

impl Wait {
    /// `timeout_ms` from now (forever when negative).
    pub(super) fn within(timeout_ms: c_int) -> Wait {
        if timeout_ms >= 0 {
            Wait::Until(now_ns() + timeout_ms as u64 * 1_000_000)
        } else {
            Wait::Forever
        }
    }

    /// Waits until the channel has an event to read (at once for
    /// `Forever`, whose read blocks instead). `Err` is what the export
    /// returns: -1 with `ETIMEDOUT` at the deadline, or with `poll(2)`'s
    /// errno. An interrupted wait goes on to the same deadline.
    ///
    /// # Safety
    /// `channel` is a live completion channel.
    unsafe fn for_event(self, channel: *mut ibv_comp_channel) -> Result<(), c_int> {
        let Wait::Until(deadline) = self else {
            return Ok(());
        };
        // SAFETY: the caller's live channel.
        let fd = unsafe { (*channel).fd };
        loop {
            let ms = remaining_ms(deadline);
            let mut p = libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one pollfd.
            match unsafe { libc::poll(&mut p, 1, ms) } {
                n if n > 0 => return Ok(()),
                0 if ms == 0 => return Err(timed_out()),
                0 => {}
                _ => match errno() {
                    libc::EINTR => {}
                    err => return Err(seterrno(err)),
                },
            }
        }
    }
}

/// Whole milliseconds from now to `deadline`, rounded up; 0 once passed.
fn remaining_ms(deadline: u64) -> c_int {
    let ns = deadline.saturating_sub(now_ns());
    c_int::try_from(ns.div_ceil(1_000_000)).unwrap_or(c_int::MAX)
}

/// `CLOCK_MONOTONIC` now, in nanoseconds.
fn now_ns() -> u64 {
    ns(&monotonic())
}

/// The loop after a first poll found nothing: arm, poll, wait, acknowledge,
/// poll, and so on (see `get_comp`). With `RDMAVERBS_POLL_SPIN=N`, up to N
/// more polls before each arming: a completion that arrives meanwhile is
/// returned without the arming and the sleep in the kernel. The result is one
/// the original could have returned, had the completion come a moment sooner.
/// `wait` bounds the time spent waiting for events; `f` is the export, whose
/// blocked calls are counted.
///
/// # Safety
/// As `get_comp`, with `id`, `wc` and the id's CQ non-NULL.
#[cold]
#[inline(never)]
pub(super) unsafe fn wait_for_comp(
    id: *mut rdma_cm_id,
    wc: *mut ibv_wc,
    q: Queue,
    f: Func,
    wait: Wait,
) -> c_int {
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
                observe::blocked(f);
                waited = true;
            }
            if let Err(ret) = wait.for_event(channel) {
                return ret;
            }
            let mut ev_cq: *mut ibv_cq = ptr::null_mut();
            let mut ev_ctx: *mut c_void = ptr::null_mut();
            let ret = rdmaverbs_abi::verbs::ibv_get_cq_event(channel, &mut ev_cq, &mut ev_ctx);
            if ret != 0 {
                return ret;
            }
            // The original asserts that the event is this CQ's, with the id
            // as context (librdmacm's CQs have it). An event of another CQ is
            // acknowledged where it belongs, so that destroying that CQ does
            // not wait for it forever.
            if ev_cq != q.cq(id) || ev_ctx != id.cast() {
                rdmaverbs_abi::verbs::ibv_ack_cq_events(ev_cq, 1);
                return foreign_event();
            }
            rdmaverbs_abi::verbs::ibv_ack_cq_events(ev_cq, 1);
            let ret = ibv_poll_cq(q.cq(id), 1, wc);
            if ret != 0 {
                return polled(ret);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The deadline `ms` from now, and what is left of it at once.
    fn left(ms: c_int) -> c_int {
        match Wait::within(ms) {
            Wait::Until(deadline) => remaining_ms(deadline),
            Wait::Forever => -1,
        }
    }

    #[test]
    fn time_left_in_whole_milliseconds_rounded_up() {
        assert_eq!(left(-1), -1);
        for ms in [1, 250, 999, 1000, 1001, 1500, 61_000] {
            let got = left(ms);
            assert!((ms - 5..=ms).contains(&got), "{ms} ms: {got} left");
        }
        // Passed: 0. 100 s ahead: about 100,000 ms; a nanosecond ahead: 1.
        let now = now_ns();
        assert_eq!(remaining_ms(now - 1_000_000_000), 0);
        assert!((99_990..=100_000).contains(&remaining_ms(now + 100_000_000_000)));
        assert_eq!(remaining_ms(now_ns() + 1_500_000), 2);
    }
}

//! The peer's data path, sideway's normal (extended verbs) way, and `ok`,
//! which every sideway call's result goes through:
//! - every send signaled, from a registered 64-byte buffer, as the ways of
//!   c-tests/bench/bindings/rust send (the safe crate has no inline send):
//!   ibv_wr_start, ibv_wr_send, ibv_wr_set_sge, ibv_wr_complete;
//! - receives: ibv_post_recv (sideway's PostRecvGuard) into one registered
//!   buffer of 16 slots of 64 bytes (all 16 posted before connecting, by
//!   connect.rs);
//! - waiting: busy polling, one completion at a time (ibv_start_poll, read
//!   the one completion, ibv_end_poll; never ibv_next_poll, see poll_one).
use sideway::ibverbs::completion::{
    ExtendedCompletionQueue, PollCompletionQueueError, WorkCompletionStatus,
};
use sideway::ibverbs::memory_region::MemoryRegion;
use sideway::ibverbs::queue_pair::{
    ExtendedQueuePair, PostSendGuard, QueuePair, SetScatterGatherEntry, WorkRequestFlags,
};

use crate::exchange::{fail, SIZE};

const SEND_WR_ID: u64 = u64::MAX;

/// Unwraps `r`, or fails with `what` and the error (with its sources).
pub fn ok<T, E: std::error::Error>(what: &str, r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| {
        let mut msg = format!("{what}: {e}");
        let mut src = e.source();
        while let Some(s) = src {
            msg.push_str(&format!(": {s}"));
            src = s.source();
        }
        fail(msg)
    })
}

/// Posts a receive of SIZE bytes into slot `slot` of the buffer at `base`
/// (wr_id: the slot).
pub fn post_recv(qp: &mut ExtendedQueuePair, mr: &MemoryRegion, base: *mut u8, slot: usize) {
    let mut guard = qp.start_post_recv();
    let wr = guard.construct_wr(slot as u64);
    // SAFETY: the slot is inside the registered buffer, which outlives the QP.
    unsafe { wr.setup_sge(mr.lkey(), base.add(slot * SIZE) as u64, SIZE as u32) };
    ok("ibv_post_recv", guard.post());
}

/// Posts the SIZE-byte message at `addr` (registered as `mr`), signaled.
#[inline]
pub fn post_send(qp: &mut ExtendedQueuePair, mr: &MemoryRegion, addr: *const u8) {
    let mut guard = qp.start_post_send();
    let wr = guard
        .construct_wr(SEND_WR_ID, WorkRequestFlags::Signaled)
        .setup_send();
    // SAFETY: the message's buffer is registered as mr and outlives the QP.
    unsafe { wr.setup_sge(mr.lkey(), addr as u64, SIZE as u32) };
    ok("ibv_wr_complete", guard.post());
}

/// Busy-polls `cq` for one completion; returns its wr_id, failing on an
/// unsuccessful status.
///
/// One completion per ibv_start_poll/ibv_end_poll pair: the poller's first
/// item is the completion ibv_start_poll returned, and the poller is dropped
/// (ibv_end_poll) before ibv_next_poll is ever called. (rdma-core 44's rxe
/// also advances the consumer index twice when ibv_next_poll returns ENOENT
/// and ibv_end_poll follows; fixed only in rdma-core 55/61.)
#[inline]
pub fn poll_one(cq: &ExtendedCompletionQueue, what: &str) -> u64 {
    loop {
        match cq.start_poll() {
            Ok(mut poller) => {
                let (wr_id, status) = match poller.next() {
                    Some(wc) => (wc.wr_id(), wc.status()),
                    None => fail("ibv_start_poll: no completion after success"),
                };
                drop(poller);
                if status != WorkCompletionStatus::Success as u32 {
                    fail(format!(
                        "{what} completion status {status} ({:?}), wr_id {wr_id}",
                        WorkCompletionStatus::from(status)
                    ));
                }
                return wr_id;
            }
            Err(PollCompletionQueueError::CompletionQueueEmpty) => continue,
            Err(e) => ok("ibv_start_poll", Err::<(), _>(e)),
        }
    }
}

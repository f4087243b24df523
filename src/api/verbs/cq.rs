//! Completion queues: `ibv_poll_cq` and `ibv_req_notify_cq` (through the
//! device context's ops, as verbs.h does), the extended CQ's
//! `ibv_start_poll`, `ibv_next_poll` and `ibv_end_poll`, `ibv_cq_ex_to_cq`,
//! and `ibv_create_cq_ex` and `ibv_modify_cq` (through `verbs_context`).
//!
//! The header's `ibv_create_cq_ex` passes any `comp_mask` to the provider,
//! and answers a missing op with `EOPNOTSUPP`; so does this one (headers
//! older than any this builds against refused unknown bits).

use core::ffi::c_int;

use rdmaverbs_abi::functions::Func;
use rdmaverbs_abi::verbs::{
    dispatch, ibv_context, ibv_cq, ibv_cq_ex, ibv_cq_init_attr_ex, ibv_modify_cq_attr,
    ibv_poll_cq_attr, ibv_wc,
};
use rdmaverbs_abi::{ctx_op, object_op};
use rdmaverbs_observe::{Call, ExOp, Op};

use super::unsupported;
use crate::api::errno::invalid;
use crate::api::export::observed;

/// `ibv_poll_cq()`: up to `num_entries` completions of `cq` into `wc`; how
/// many, or a negative value on failure (-1 with `errno = EINVAL` for a
/// NULL `cq`, or a NULL `wc` with room asked for, with no provider call).
/// A NULL `wc` with `num_entries` 0 or less goes to the provider, as the
/// original's does: a provider writes no completion there.
///
/// # Safety
/// As the inline original: `cq` is NULL or live, `wc` NULL or room for
/// `num_entries` completions.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_poll_cq(
    cq: *mut ibv_cq,
    num_entries: c_int,
    wc: *mut ibv_wc,
) -> c_int {
    // SAFETY: the caller's CQ and array, for the provider's own op.
    observed!(
        IbvPollCq(cq, num_entries, wc),
        cq,
        Call::op(Op::PollCq {
            cq,
            wc,
            n: num_entries
        }),
        {
            if wc.is_null() {
                unsafe { no_array(cq, num_entries) }
            } else {
                unsafe { dispatch::ibv_poll_cq(cq, num_entries, wc) }
            }
        }
    )
}

/// `ibv_poll_cq` with a NULL `wc`: refused when room is asked for, else
/// the provider's (as the original's). Out of line, so that the fast path
/// pays one test of `wc` and jumps here with the arguments in place.
///
/// # Safety
/// `cq` is a live CQ.
#[cold]
#[inline(never)]
unsafe fn no_array(cq: *mut ibv_cq, num_entries: c_int) -> c_int {
    if num_entries > 0 {
        invalid()
    } else {
        // SAFETY: the caller's CQ; no completion is written with no room.
        unsafe { dispatch::ibv_poll_cq(cq, num_entries, core::ptr::null_mut()) }
    }
}

/// `ibv_req_notify_cq()`: arms `cq` for its next completion event; 0 or an
/// errno value.
///
/// # Safety
/// `cq` is NULL (`EINVAL`) or a live CQ.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_req_notify_cq(cq: *mut ibv_cq, solicited_only: c_int) -> c_int {
    // SAFETY: the caller's CQ, for the provider's own op.
    observed!(status IbvReqNotifyCq(cq, solicited_only), cq, Call::op(Op::ReqNotifyCq { cq }), unsafe {
        dispatch::ibv_req_notify_cq(cq, solicited_only)
    })
}

/// `ibv_create_cq_ex()`: an extended CQ of the context; NULL with `errno`
/// (`EOPNOTSUPP` when the context has no `create_cq_ex`).
///
/// # Safety
/// `context` is NULL (NULL, `EINVAL`) or a live context; `cq_attr` as the
/// provider requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_create_cq_ex(
    context: *mut ibv_context,
    cq_attr: *mut ibv_cq_init_attr_ex,
) -> *mut ibv_cq_ex {
    let call = Call::Object {
        key: b" ctx=",
        obj: context.cast(),
    };
    // SAFETY: the caller's context, its op and attributes.
    observed!(IbvCreateCqEx, context, call, unsafe {
        match ctx_op!(context, create_cq_ex) {
            Some(create) => create(context, cq_attr),
            None => unsupported(),
        }
    })
}

/// `ibv_modify_cq()`: changes a CQ's moderation; 0 or an errno value.
///
/// # Safety
/// `cq` is NULL (`EINVAL`) or live; `attr` as the provider requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_modify_cq(cq: *mut ibv_cq, attr: *mut ibv_modify_cq_attr) -> c_int {
    let call = Call::Object {
        key: b" cq=",
        obj: cq.cast(),
    };
    // SAFETY: the caller's CQ, its context's op.
    observed!(status IbvModifyCq, cq, call, unsafe {
        match ctx_op!((*cq).context, modify_cq) {
            Some(modify) => modify(cq, attr),
            None => libc::EOPNOTSUPP,
        }
    })
}

/// `ibv_cq_ex_to_cq()`: the extended CQ as a `struct ibv_cq` (the same
/// address: a cast).
///
/// # Safety
/// None needed: the pointer is only converted.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cq_ex_to_cq(cq: *mut ibv_cq_ex) -> *mut ibv_cq {
    observed!(IbvCqExToCq, -, Call::Value(cq as usize as u64), cq.cast())
}

/// `ibv_start_poll()`: starts polling an extended CQ, its first completion
/// made current; 0, `ENOENT` (none), or an errno value.
///
/// # Safety
/// `cq` is NULL (`EINVAL`) or a live extended CQ; `attr` as the provider
/// requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_start_poll(cq: *mut ibv_cq_ex, attr: *mut ibv_poll_cq_attr) -> c_int {
    // SAFETY: the caller's CQ, for the provider's own call.
    observed!(status IbvStartPoll(cq, attr), cq, Call::ex(ExOp::Poll { f: Func::IbvStartPoll, cq, ret: 0 }), unsafe {
        object_op!(cq, start_poll)(cq, attr)
    })
}

/// `ibv_next_poll()`: the next completion made current; 0, `ENOENT`, or an
/// errno value.
///
/// # Safety
/// `cq` is NULL (`EINVAL`) or a live extended CQ being polled.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_next_poll(cq: *mut ibv_cq_ex) -> c_int {
    // SAFETY: as in `ibv_start_poll`.
    observed!(status IbvNextPoll(cq), cq, Call::ex(ExOp::Poll { f: Func::IbvNextPoll, cq, ret: 0 }), unsafe { object_op!(cq, next_poll)(cq) })
}

/// `ibv_end_poll()`: ends polling an extended CQ.
///
/// # Safety
/// `cq` is NULL (nothing done) or a live extended CQ being polled.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_end_poll(cq: *mut ibv_cq_ex) {
    // SAFETY: as in `ibv_start_poll`.
    observed!(IbvEndPoll(cq), cq, Call::ex(ExOp::EndPoll { cq }), unsafe {
        object_op!(cq, end_poll)(cq)
    })
}

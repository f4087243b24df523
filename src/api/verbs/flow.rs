//! Flow steering, flow actions and flow counters (each through the
//! context's `verbs_context` op; `EOPNOTSUPP` without it), and
//! `ibv_flow_label_to_udp_sport`.

use core::ffi::c_int;

use rdmaverbs_abi::ctx_op;
use rdmaverbs_abi::verbs::{
    IB_ROCE_UDP_ENCAP_VALID_PORT_MIN, ibv_context, ibv_counter_attach_attr, ibv_counters,
    ibv_counters_init_attr, ibv_flow, ibv_flow_action, ibv_flow_action_esp_attr, ibv_flow_attr,
    ibv_qp,
};
use rdmaverbs_observe::Call;

use super::{ctx, unsupported};
use crate::api::export::observed;

/// `ibv_create_flow()`: a steering rule on `qp`; NULL with `errno`.
///
/// # Safety
/// `qp` NULL (NULL, `EINVAL`) or live; `flow` as the provider requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_create_flow(
    qp: *mut ibv_qp,
    flow: *mut ibv_flow_attr,
) -> *mut ibv_flow {
    let call = Call::Object {
        key: b" qp=",
        obj: qp.cast(),
    };
    // SAFETY: the caller's QP and its context's op.
    observed!(IbvCreateFlow, qp, call, unsafe {
        match ctx_op!((*qp).context, ibv_create_flow) {
            Some(create) => create(qp, flow),
            None => unsupported(),
        }
    })
}

/// `ibv_destroy_flow()`: removes a steering rule; 0 or an errno value.
///
/// # Safety
/// `flow_id` NULL (`EINVAL`) or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_destroy_flow(flow_id: *mut ibv_flow) -> c_int {
    let call = Call::Object {
        key: b" flow=",
        obj: flow_id.cast(),
    };
    // SAFETY: the caller's rule and its context's op.
    observed!(status IbvDestroyFlow, flow_id, call, unsafe {
        match ctx_op!((*flow_id).context, ibv_destroy_flow) {
            Some(destroy) => destroy(flow_id),
            None => libc::EOPNOTSUPP,
        }
    })
}

/// `ibv_create_flow_action_esp()`: an IPsec flow action; NULL with `errno`.
///
/// # Safety
/// `ctx` NULL (NULL, `EINVAL`) or live; `esp` as the provider requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_create_flow_action_esp(
    ctx: *mut ibv_context,
    esp: *mut ibv_flow_action_esp_attr,
) -> *mut ibv_flow_action {
    let context = ctx;
    // SAFETY: the caller's context and its op.
    observed!(
        IbvCreateFlowActionEsp,
        context,
        self::ctx(context),
        unsafe {
            match ctx_op!(context, create_flow_action_esp) {
                Some(create) => create(context, esp),
                None => unsupported(),
            }
        }
    )
}

/// The object `action` as the observer shows it.
fn action_call(action: *mut ibv_flow_action) -> Call {
    Call::Object {
        key: b" action=",
        obj: action.cast(),
    }
}

/// `ibv_modify_flow_action_esp()`: changes one; 0 or an errno value.
///
/// # Safety
/// `action` NULL (`EINVAL`) or live; `esp` as the provider requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_modify_flow_action_esp(
    action: *mut ibv_flow_action,
    esp: *mut ibv_flow_action_esp_attr,
) -> c_int {
    // SAFETY: the caller's action and its context's op.
    observed!(status IbvModifyFlowActionEsp, action, action_call(action), unsafe {
        match ctx_op!((*action).context, modify_flow_action_esp) {
            Some(modify) => modify(action, esp),
            None => libc::EOPNOTSUPP,
        }
    })
}

/// `ibv_destroy_flow_action()`: destroys one; 0 or an errno value.
///
/// # Safety
/// `action` NULL (`EINVAL`) or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_destroy_flow_action(action: *mut ibv_flow_action) -> c_int {
    // SAFETY: as in `ibv_modify_flow_action_esp`.
    observed!(status IbvDestroyFlowAction, action, action_call(action), unsafe {
        match ctx_op!((*action).context, destroy_flow_action) {
            Some(destroy) => destroy(action),
            None => libc::EOPNOTSUPP,
        }
    })
}

/// `ibv_create_counters()`: a counters object; NULL with `errno`.
///
/// # Safety
/// `context` NULL (NULL, `EINVAL`) or live; `init_attr` as the provider
/// requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_create_counters(
    context: *mut ibv_context,
    init_attr: *mut ibv_counters_init_attr,
) -> *mut ibv_counters {
    // SAFETY: the caller's context and its op.
    observed!(IbvCreateCounters, context, ctx(context), unsafe {
        match ctx_op!(context, create_counters) {
            Some(create) => create(context, init_attr),
            None => unsupported(),
        }
    })
}

/// The object `counters` as the observer shows it.
fn counters_call(counters: *mut ibv_counters) -> Call {
    Call::Object {
        key: b" counters=",
        obj: counters.cast(),
    }
}

/// `ibv_destroy_counters()`: destroys one; 0 or an errno value.
///
/// # Safety
/// `counters` NULL (`EINVAL`) or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_destroy_counters(counters: *mut ibv_counters) -> c_int {
    // SAFETY: the caller's counters and their context's op.
    observed!(status IbvDestroyCounters, counters, counters_call(counters), unsafe {
        match ctx_op!((*counters).context, destroy_counters) {
            Some(destroy) => destroy(counters),
            None => libc::EOPNOTSUPP,
        }
    })
}

/// `ibv_attach_counters_point_flow()`: attaches counters to a flow; 0 or an
/// errno value.
///
/// # Safety
/// `counters` NULL (`EINVAL`) or live; the rest as the provider requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_attach_counters_point_flow(
    counters: *mut ibv_counters,
    attr: *mut ibv_counter_attach_attr,
    flow: *mut ibv_flow,
) -> c_int {
    // SAFETY: as in `ibv_destroy_counters`.
    observed!(status IbvAttachCountersPointFlow, counters, counters_call(counters), unsafe {
        match ctx_op!((*counters).context, attach_counters_point_flow) {
            Some(attach) => attach(counters, attr, flow),
            None => libc::EOPNOTSUPP,
        }
    })
}

/// `ibv_read_counters()`: `ncounters` values into `counters_value`; 0 or an
/// errno value.
///
/// # Safety
/// `counters` NULL (`EINVAL`) or live; `counters_value` NULL (`EINVAL`) or
/// room for `ncounters`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_read_counters(
    counters: *mut ibv_counters,
    counters_value: *mut u64,
    ncounters: u32,
    flags: u32,
) -> c_int {
    // SAFETY: as in `ibv_destroy_counters`.
    observed!(status IbvReadCounters, counters, counters_call(counters), unsafe {
        if counters_value.is_null() {
            libc::EINVAL
        } else {
            match ctx_op!((*counters).context, read_counters) {
                Some(read) => read(counters, counters_value, ncounters, flags),
                None => libc::EOPNOTSUPP,
            }
        }
    })
}

/// `ibv_flow_label_to_udp_sport()`: the RoCE v2 UDP source port for an
/// IPv6 flow label.
///
/// # Safety
/// None needed: it takes no pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_flow_label_to_udp_sport(fl: u32) -> u16 {
    observed!(IbvFlowLabelToUdpSport, -, Call::Value(fl.into()), {
        let low = (fl & 0x03fff) ^ ((fl & 0xfc000) >> 14);
        (low | IB_ROCE_UDP_ENCAP_VALID_PORT_MIN) as u16
    })
}

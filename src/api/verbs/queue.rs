//! Queues: `ibv_create_srq_ex` and `ibv_create_qp_ex` (each the plain
//! libibverbs call for the attributes it takes, else the context's extended
//! op), `ibv_get_srq_num`, `ibv_open_qp`, `ibv_modify_qp_rate_limit`, work
//! queues and their indirection tables, and `ibv_is_qpt_supported`.

use core::ffi::{c_int, c_uint};
use core::ptr::null;

use rdmaverbs_abi::ctx_op;
use rdmaverbs_abi::verbs::{
    IBV_QP_INIT_ATTR_PD, IBV_SRQ_INIT_ATTR_PD, IBV_SRQ_INIT_ATTR_TYPE, IBV_SRQT_BASIC,
    ibv_create_qp, ibv_create_srq,
};
use rdmaverbs_abi::verbs::{
    ibv_context, ibv_qp, ibv_qp_init_attr, ibv_qp_init_attr_ex, ibv_qp_open_attr,
    ibv_qp_rate_limit_attr, ibv_rwq_ind_table, ibv_rwq_ind_table_init_attr, ibv_srq,
    ibv_srq_init_attr, ibv_srq_init_attr_ex, ibv_wq, ibv_wq_attr, ibv_wq_init_attr,
};
use rdmaverbs_observe::Call;

use super::{ctx, unsupported};
use crate::api::errno::invalid_ptr;
use crate::api::export::observed;

/// `ibv_create_srq_ex()`: an SRQ; with only a PD (and a basic type) in the
/// attributes, libibverbs' `ibv_create_srq` on that PD (the context is not
/// used), else the context's `create_srq_ex`; NULL with `errno`.
///
/// # Safety
/// `srq_init_attr_ex` NULL (NULL, `EINVAL`) or valid; `context` NULL (NULL,
/// `EINVAL`, where it is needed) or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_create_srq_ex(
    context: *mut ibv_context,
    srq_init_attr_ex: *mut ibv_srq_init_attr_ex,
) -> *mut ibv_srq {
    let attr = srq_init_attr_ex;
    // SAFETY: the caller's attributes and context.
    observed!(IbvCreateSrqEx, attr, ctx(context), unsafe {
        let mask = (*attr).comp_mask;
        let known = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE;
        if mask & !known == 0
            && mask & IBV_SRQ_INIT_ATTR_PD != 0
            && (mask & IBV_SRQ_INIT_ATTR_TYPE == 0 || (*attr).srq_type == IBV_SRQT_BASIC)
        {
            ibv_create_srq((*attr).pd, attr.cast::<ibv_srq_init_attr>())
        } else if context.is_null() {
            invalid_ptr()
        } else {
            match ctx_op!(context, create_srq_ex) {
                Some(create) => create(context, attr),
                None => unsupported(),
            }
        }
    })
}

/// `ibv_get_srq_num()`: an XRC SRQ's number into `*srq_num`; 0 or an errno
/// value.
///
/// # Safety
/// `srq` NULL (`EINVAL`) or live; `srq_num` NULL (`EINVAL`) or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_get_srq_num(srq: *mut ibv_srq, srq_num: *mut u32) -> c_int {
    let call = Call::Object {
        key: b" srq=",
        obj: srq.cast(),
    };
    // SAFETY: the caller's SRQ and its context's op.
    observed!(status IbvGetSrqNum, srq, call, unsafe {
        if srq_num.is_null() {
            libc::EINVAL
        } else {
            match ctx_op!((*srq).context, get_srq_num) {
                Some(get) => get(srq, srq_num),
                None => libc::EOPNOTSUPP,
            }
        }
    })
}

/// `ibv_create_qp_ex()`: a QP; with only a PD in the attributes'
/// `comp_mask`, libibverbs' `ibv_create_qp` on that PD (the context is not
/// used), else the context's `create_qp_ex`; NULL with `errno`.
///
/// # Safety
/// As [`ibv_create_srq_ex`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_create_qp_ex(
    context: *mut ibv_context,
    qp_init_attr_ex: *mut ibv_qp_init_attr_ex,
) -> *mut ibv_qp {
    let attr = qp_init_attr_ex;
    // SAFETY: as in `ibv_create_srq_ex`.
    observed!(IbvCreateQpEx, attr, ctx(context), unsafe {
        if (*attr).comp_mask == IBV_QP_INIT_ATTR_PD {
            ibv_create_qp((*attr).pd, attr.cast::<ibv_qp_init_attr>())
        } else if context.is_null() {
            invalid_ptr()
        } else {
            match ctx_op!(context, create_qp_ex) {
                Some(create) => create(context, attr),
                None => unsupported(),
            }
        }
    })
}

/// `ibv_open_qp()`: opens a shareable XRC target QP; NULL with `errno`.
///
/// # Safety
/// `context` NULL (NULL, `EINVAL`) or live; `qp_open_attr` as the provider
/// requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_open_qp(
    context: *mut ibv_context,
    qp_open_attr: *mut ibv_qp_open_attr,
) -> *mut ibv_qp {
    // SAFETY: the caller's context and its op.
    observed!(IbvOpenQp, context, ctx(context), unsafe {
        match ctx_op!(context, open_qp) {
            Some(open) => open(context, qp_open_attr),
            None => unsupported(),
        }
    })
}

/// `ibv_modify_qp_rate_limit()`: a QP's packet pacing; 0 or an errno value.
///
/// # Safety
/// `qp` NULL (`EINVAL`) or live; `attr` as the provider requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_modify_qp_rate_limit(
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_rate_limit_attr,
) -> c_int {
    let call = Call::Object {
        key: b" qp=",
        obj: qp.cast(),
    };
    // SAFETY: the caller's QP and its context's op.
    observed!(status IbvModifyQpRateLimit, qp, call, unsafe {
        match ctx_op!((*qp).context, modify_qp_rate_limit) {
            Some(modify) => modify(qp, attr),
            None => libc::EOPNOTSUPP,
        }
    })
}

/// `ibv_create_wq()`: a work queue, its `wq_context` set from the
/// attributes, its event count 0, its mutex and condition initialised, as
/// the original does; NULL with `errno`.
///
/// # Safety
/// `context` NULL (NULL, `EINVAL`) or live; `wq_init_attr` NULL (NULL,
/// `EINVAL`) or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_create_wq(
    context: *mut ibv_context,
    wq_init_attr: *mut ibv_wq_init_attr,
) -> *mut ibv_wq {
    // SAFETY: the caller's context and attributes; the provider's new WQ.
    observed!(IbvCreateWq, context, ctx(context), unsafe {
        match ctx_op!(context, create_wq) {
            _ if wq_init_attr.is_null() => invalid_ptr(),
            Some(create) => {
                let wq = create(context, wq_init_attr);
                if !wq.is_null() {
                    (*wq).wq_context = (*wq_init_attr).wq_context;
                    (*wq).events_completed = 0;
                    libc::pthread_mutex_init((&raw mut (*wq).mutex).cast(), null());
                    libc::pthread_cond_init((&raw mut (*wq).cond).cast(), null());
                }
                wq
            }
            None => unsupported(),
        }
    })
}

/// The object `wq` as the observer shows it.
fn wq_call(wq: *mut ibv_wq) -> Call {
    Call::Object {
        key: b" wq=",
        obj: wq.cast(),
    }
}

/// `ibv_modify_wq()`: changes a work queue; 0 or an errno value.
///
/// # Safety
/// `wq` NULL (`EINVAL`) or live; `wq_attr` as the provider requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_modify_wq(wq: *mut ibv_wq, wq_attr: *mut ibv_wq_attr) -> c_int {
    // SAFETY: the caller's WQ and its context's op.
    observed!(status IbvModifyWq, wq, wq_call(wq), unsafe {
        match ctx_op!((*wq).context, modify_wq) {
            Some(modify) => modify(wq, wq_attr),
            None => libc::EOPNOTSUPP,
        }
    })
}

/// `ibv_destroy_wq()`: destroys a work queue; 0 or an errno value.
///
/// # Safety
/// `wq` NULL (`EINVAL`) or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_destroy_wq(wq: *mut ibv_wq) -> c_int {
    // SAFETY: as in `ibv_modify_wq`.
    observed!(status IbvDestroyWq, wq, wq_call(wq), unsafe {
        match ctx_op!((*wq).context, destroy_wq) {
            Some(destroy) => destroy(wq),
            None => libc::EOPNOTSUPP,
        }
    })
}

/// `ibv_create_rwq_ind_table()`: a receive work queue indirection table;
/// NULL with `errno`.
///
/// # Safety
/// `context` NULL (NULL, `EINVAL`) or live; `init_attr` as the provider
/// requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_create_rwq_ind_table(
    context: *mut ibv_context,
    init_attr: *mut ibv_rwq_ind_table_init_attr,
) -> *mut ibv_rwq_ind_table {
    // SAFETY: the caller's context and its op.
    observed!(IbvCreateRwqIndTable, context, ctx(context), unsafe {
        match ctx_op!(context, create_rwq_ind_table) {
            Some(create) => create(context, init_attr),
            None => unsupported(),
        }
    })
}

/// `ibv_destroy_rwq_ind_table()`: destroys one; 0 or an errno value.
///
/// # Safety
/// `rwq_ind_table` NULL (`EINVAL`) or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_destroy_rwq_ind_table(rwq_ind_table: *mut ibv_rwq_ind_table) -> c_int {
    let table = rwq_ind_table;
    let call = Call::Object {
        key: b" table=",
        obj: table.cast(),
    };
    // SAFETY: the caller's table and its context's op.
    observed!(status IbvDestroyRwqIndTable, table, call, unsafe {
        match ctx_op!((*table).context, destroy_rwq_ind_table) {
            Some(destroy) => destroy(table),
            None => libc::EOPNOTSUPP,
        }
    })
}

/// `ibv_is_qpt_supported()`: whether `caps` has the bit of QP type `qpt`
/// (`enum ibv_qp_type`); 0 for a type beyond the mask's 32 bits, where the
/// original's shift is undefined.
///
/// # Safety
/// None needed: it takes no pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_is_qpt_supported(caps: u32, qpt: c_uint) -> c_int {
    observed!(IbvIsQptSupported, -, Call::Value(caps.into()), {
        c_int::from(caps & 1u32.checked_shl(qpt).unwrap_or(0) != 0)
    })
}

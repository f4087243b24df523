//! `struct verbs_context`, libibverbs' extended device context, as the
//! system's `<infiniband/verbs.h>` lays it out (rdma-core 44: every member's
//! distance to the end is checked against the header by the unit tests),
//! and `verbs_get_ctx_op`, the header's way of finding one of its ops.
//!
//! libibverbs allocates it around the `ibv_context` it hands out; the struct
//! grows at the front, so `sz`, the size the provider allocated, tells which
//! ops a context has: an op is there when `sz` covers it from its place to
//! the end. A later header's struct is longer at the front; one built
//! against an earlier header is shorter, and its newer ops count as absent.

use core::ffi::{c_int, c_uint, c_void};
use core::mem::{offset_of, size_of};

use super::{
    ibv_alloc_dm_attr, ibv_context, ibv_counter_attach_attr, ibv_counters, ibv_counters_init_attr,
    ibv_cq, ibv_cq_ex, ibv_cq_init_attr_ex, ibv_device_attr_ex, ibv_dm, ibv_flow, ibv_flow_action,
    ibv_flow_action_esp_attr, ibv_flow_attr, ibv_modify_cq_attr, ibv_mr, ibv_ops_wr,
    ibv_parent_domain_init_attr, ibv_pd, ibv_port_attr, ibv_qp, ibv_qp_init_attr_ex,
    ibv_qp_open_attr, ibv_qp_rate_limit_attr, ibv_query_device_ex_input, ibv_rwq_ind_table,
    ibv_rwq_ind_table_init_attr, ibv_sge, ibv_srq, ibv_srq_init_attr_ex, ibv_td, ibv_td_init_attr,
    ibv_values_ex, ibv_wq, ibv_wq_attr, ibv_wq_init_attr, ibv_xrcd, ibv_xrcd_init_attr,
};

/// An op of the struct: an optional C function.
type Op<F> = Option<F>;

/// `struct verbs_context` of rdma-core 44's `<infiniband/verbs.h>`.
#[repr(C)]
#[allow(missing_docs)]
pub struct verbs_context {
    pub query_port:
        Op<unsafe extern "C" fn(*mut ibv_context, u8, *mut ibv_port_attr, usize) -> c_int>,
    pub advise_mr: Op<unsafe extern "C" fn(*mut ibv_pd, c_uint, u32, *mut ibv_sge, u32) -> c_int>,
    pub alloc_null_mr: Op<unsafe extern "C" fn(*mut ibv_pd) -> *mut ibv_mr>,
    pub read_counters: Op<unsafe extern "C" fn(*mut ibv_counters, *mut u64, u32, u32) -> c_int>,
    pub attach_counters_point_flow: Op<
        unsafe extern "C" fn(
            *mut ibv_counters,
            *mut ibv_counter_attach_attr,
            *mut ibv_flow,
        ) -> c_int,
    >,
    pub create_counters: Op<
        unsafe extern "C" fn(*mut ibv_context, *mut ibv_counters_init_attr) -> *mut ibv_counters,
    >,
    pub destroy_counters: Op<unsafe extern "C" fn(*mut ibv_counters) -> c_int>,
    pub reg_dm_mr:
        Op<unsafe extern "C" fn(*mut ibv_pd, *mut ibv_dm, u64, usize, c_uint) -> *mut ibv_mr>,
    pub alloc_dm: Op<unsafe extern "C" fn(*mut ibv_context, *mut ibv_alloc_dm_attr) -> *mut ibv_dm>,
    pub free_dm: Op<unsafe extern "C" fn(*mut ibv_dm) -> c_int>,
    pub modify_flow_action_esp:
        Op<unsafe extern "C" fn(*mut ibv_flow_action, *mut ibv_flow_action_esp_attr) -> c_int>,
    pub destroy_flow_action: Op<unsafe extern "C" fn(*mut ibv_flow_action) -> c_int>,
    pub create_flow_action_esp: Op<
        unsafe extern "C" fn(
            *mut ibv_context,
            *mut ibv_flow_action_esp_attr,
        ) -> *mut ibv_flow_action,
    >,
    pub modify_qp_rate_limit:
        Op<unsafe extern "C" fn(*mut ibv_qp, *mut ibv_qp_rate_limit_attr) -> c_int>,
    pub alloc_parent_domain:
        Op<unsafe extern "C" fn(*mut ibv_context, *mut ibv_parent_domain_init_attr) -> *mut ibv_pd>,
    pub dealloc_td: Op<unsafe extern "C" fn(*mut ibv_td) -> c_int>,
    pub alloc_td: Op<unsafe extern "C" fn(*mut ibv_context, *mut ibv_td_init_attr) -> *mut ibv_td>,
    pub modify_cq: Op<unsafe extern "C" fn(*mut ibv_cq, *mut ibv_modify_cq_attr) -> c_int>,
    pub post_srq_ops:
        Op<unsafe extern "C" fn(*mut ibv_srq, *mut ibv_ops_wr, *mut *mut ibv_ops_wr) -> c_int>,
    pub destroy_rwq_ind_table: Op<unsafe extern "C" fn(*mut ibv_rwq_ind_table) -> c_int>,
    pub create_rwq_ind_table: Op<
        unsafe extern "C" fn(
            *mut ibv_context,
            *mut ibv_rwq_ind_table_init_attr,
        ) -> *mut ibv_rwq_ind_table,
    >,
    pub destroy_wq: Op<unsafe extern "C" fn(*mut ibv_wq) -> c_int>,
    pub modify_wq: Op<unsafe extern "C" fn(*mut ibv_wq, *mut ibv_wq_attr) -> c_int>,
    pub create_wq: Op<unsafe extern "C" fn(*mut ibv_context, *mut ibv_wq_init_attr) -> *mut ibv_wq>,
    pub query_rt_values: Op<unsafe extern "C" fn(*mut ibv_context, *mut ibv_values_ex) -> c_int>,
    pub create_cq_ex: Op<CreateCqEx>,
    pub priv_: *mut c_void,
    pub query_device_ex: Op<
        unsafe extern "C" fn(
            *mut ibv_context,
            *const ibv_query_device_ex_input,
            *mut ibv_device_attr_ex,
            usize,
        ) -> c_int,
    >,
    pub ibv_destroy_flow: Op<unsafe extern "C" fn(*mut ibv_flow) -> c_int>,
    pub abi_placeholder2: Op<unsafe extern "C" fn()>,
    pub ibv_create_flow: Op<unsafe extern "C" fn(*mut ibv_qp, *mut ibv_flow_attr) -> *mut ibv_flow>,
    pub abi_placeholder1: Op<unsafe extern "C" fn()>,
    pub open_qp: Op<unsafe extern "C" fn(*mut ibv_context, *mut ibv_qp_open_attr) -> *mut ibv_qp>,
    pub create_qp_ex: Op<CreateQpEx>,
    pub get_srq_num: Op<unsafe extern "C" fn(*mut ibv_srq, *mut u32) -> c_int>,
    pub create_srq_ex:
        Op<unsafe extern "C" fn(*mut ibv_context, *mut ibv_srq_init_attr_ex) -> *mut ibv_srq>,
    pub open_xrcd:
        Op<unsafe extern "C" fn(*mut ibv_context, *mut ibv_xrcd_init_attr) -> *mut ibv_xrcd>,
    pub close_xrcd: Op<unsafe extern "C" fn(*mut ibv_xrcd) -> c_int>,
    pub abi_placeholder3: u64,
    /// The size of the whole struct the provider allocated.
    pub sz: usize,
    /// The `ibv_context` handed out.
    pub context: ibv_context,
}

/// `verbs_context.create_qp_ex`.
pub type CreateQpEx =
    unsafe extern "C" fn(*mut ibv_context, *mut ibv_qp_init_attr_ex) -> *mut ibv_qp;
/// `verbs_context.create_cq_ex`.
pub type CreateCqEx =
    unsafe extern "C" fn(*mut ibv_context, *mut ibv_cq_init_attr_ex) -> *mut ibv_cq_ex;

/// `__VERBS_ABI_IS_EXTENDED`: `abi_compat` of an extended context.
pub const VERBS_ABI_IS_EXTENDED: usize = usize::MAX;

/// `verbs_get_ctx()` of verbs.h: the `struct verbs_context` around `ctx`,
/// for an extended context (`abi_compat` is `__VERBS_ABI_IS_EXTENDED`).
///
/// # Safety
/// `ctx` is a live device context.
#[inline(always)]
pub unsafe fn verbs_get_ctx(ctx: *mut ibv_context) -> Option<*mut verbs_context> {
    // SAFETY: a live context (caller's guarantee).
    if unsafe { (*ctx).abi_compat } as usize != VERBS_ABI_IS_EXTENDED {
        return None;
    }
    // SAFETY: an extended context lies at the end of a verbs_context.
    Some(unsafe { ctx.byte_sub(offset_of!(verbs_context, context)) }.cast())
}

/// Whether the struct a provider allocated (`sz` bytes, ending with the
/// context) reaches back to the member at `offset`: `verbs_get_ctx_op`'s
/// `vctx->sz >= sizeof(*vctx) - offsetof(struct verbs_context, op)`.
#[inline(always)]
pub const fn covers(sz: usize, offset: usize) -> bool {
    sz >= size_of::<verbs_context>() - offset
}

/// `verbs_get_ctx_op(ctx, op)` of verbs.h, as the op itself: `None` when the
/// context is not extended, its struct is too small to have the op, or the
/// op is NULL. Used in an `unsafe` block whose caller guarantees that `ctx`
/// is a live device context.
#[macro_export]
macro_rules! ctx_op {
    ($ctx:expr, $op:ident) => {
        match $crate::verbs::verbs_get_ctx($ctx) {
            Some(v)
                if $crate::verbs::covers(
                    (*v).sz,
                    ::core::mem::offset_of!($crate::verbs::verbs_context, $op),
                ) =>
            {
                (*v).$op
            }
            _ => None,
        }
    };
}

/// The `struct verbs_context` around `ctx` when it has the extended API's
/// creation ops (`create_cq_ex` and, nearer the end, `create_qp_ex`): what
/// the preload library wraps.
///
/// # Safety
/// `ctx` is a live device context.
pub unsafe fn verbs_context(ctx: *mut ibv_context) -> Option<*mut verbs_context> {
    // SAFETY: forwarded; an extended context's struct has its `sz`.
    let v = unsafe { verbs_get_ctx(ctx) }?;
    // SAFETY: as above.
    covers(unsafe { (*v).sz }, offset_of!(verbs_context, create_cq_ex)).then_some(v)
}

//! `struct verbs_context`, libibverbs' extended device context (the build's
//! header's, `header.rs`), and `verbs_get_ctx_op`, the header's way of
//! finding one of its ops.
//!
//! libibverbs allocates it around the `ibv_context` it hands out; the struct
//! grows at the front, so `sz`, the size the provider allocated, tells which
//! ops a context has: an op is there when `sz` covers it from its place to
//! the end. A later header's struct is longer at the front; one built
//! against an earlier header is shorter, and its newer ops count as absent.

use core::mem::{offset_of, size_of};

use super::header::verbs_context;
use super::{ibv_context, ibv_cq_ex, ibv_cq_init_attr_ex, ibv_qp, ibv_qp_init_attr_ex};

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

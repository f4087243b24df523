//! Memory: `__ibv_reg_mr` and `__ibv_reg_mr_iova` (what the macros
//! `ibv_reg_mr` and `ibv_reg_mr_iova` expand to), memory windows
//! (`ibv_alloc_mw`, `ibv_dealloc_mw`, `ibv_bind_mw`, `ibv_inc_rkey`),
//! `ibv_advise_mr`, device memory (`ibv_alloc_dm`, `ibv_free_dm`,
//! `ibv_memcpy_to_dm`, `ibv_memcpy_from_dm`, `ibv_reg_dm_mr`) and
//! `ibv_alloc_null_mr`.

use core::ffi::{c_int, c_uint, c_void};

use rdmaverbs_abi::verbs::{
    IBV_ACCESS_OPTIONAL_RANGE, ibv_alloc_dm_attr, ibv_context, ibv_dm, ibv_mr, ibv_mw, ibv_mw_bind,
    ibv_pd, ibv_qp, ibv_sge,
};
use rdmaverbs_abi::verbs::{ibv_reg_mr, ibv_reg_mr_iova, ibv_reg_mr_iova2};
use rdmaverbs_abi::{context_op, ctx_op, object_op};
use rdmaverbs_observe::Call;

use super::{ctx, unsupported};
use crate::api::export::observed;

/// The object `pd` as the observer shows it.
fn pd_call(pd: *mut ibv_pd) -> Call {
    Call::Object {
        key: b" pd=",
        obj: pd.cast(),
    }
}

/// `__ibv_reg_mr()`, the inline function behind the macro `ibv_reg_mr`:
/// libibverbs' `ibv_reg_mr` when the access flags are a constant of the
/// caller's (`is_access_const`) with no optional flag, else
/// `ibv_reg_mr_iova2` with the address as the IOVA; NULL with `errno`.
///
/// # Safety
/// `pd` NULL (NULL, `EINVAL`) or live; the buffer as `ibv_reg_mr` requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __ibv_reg_mr(
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    access: c_uint,
    is_access_const: c_int,
) -> *mut ibv_mr {
    // SAFETY: libibverbs' functions, with the caller's arguments.
    let call = Call::Mr {
        pd: pd.cast(),
        addr,
        length,
    };
    observed!(IbvRegMr, pd, call, unsafe {
        if is_access_const != 0 && access & IBV_ACCESS_OPTIONAL_RANGE == 0 {
            ibv_reg_mr(pd, addr, length, access as c_int)
        } else {
            ibv_reg_mr_iova2(pd, addr, length, addr as usize as u64, access)
        }
    })
}

/// `__ibv_reg_mr_iova()`, behind the macro `ibv_reg_mr_iova`: as
/// [`__ibv_reg_mr`], with an IOVA of the caller's.
///
/// # Safety
/// As [`__ibv_reg_mr`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __ibv_reg_mr_iova(
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    iova: u64,
    access: c_uint,
    is_access_const: c_int,
) -> *mut ibv_mr {
    // SAFETY: as in `__ibv_reg_mr`.
    let call = Call::Mr {
        pd: pd.cast(),
        addr,
        length,
    };
    observed!(IbvRegMrIova, pd, call, unsafe {
        if is_access_const != 0 && access & IBV_ACCESS_OPTIONAL_RANGE == 0 {
            ibv_reg_mr_iova(pd, addr, length, iova, access as c_int)
        } else {
            ibv_reg_mr_iova2(pd, addr, length, iova, access)
        }
    })
}

/// `ibv_alloc_mw()`: a memory window of `type_` (`enum ibv_mw_type`); NULL
/// with `errno` (`EOPNOTSUPP` when the context has no `alloc_mw`).
///
/// # Safety
/// `pd` NULL (NULL, `EINVAL`) or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_alloc_mw(pd: *mut ibv_pd, type_: c_uint) -> *mut ibv_mw {
    // SAFETY: the caller's PD and its context's op.
    observed!(IbvAllocMw, pd, pd_call(pd), unsafe {
        match (*(*pd).context).ops.alloc_mw {
            Some(alloc) => alloc(pd, type_),
            None => unsupported(),
        }
    })
}

/// `ibv_dealloc_mw()`: frees a memory window; 0 or an errno value.
///
/// # Safety
/// `mw` NULL (`EINVAL`) or a live memory window.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_dealloc_mw(mw: *mut ibv_mw) -> c_int {
    let call = Call::Object {
        key: b" mw=",
        obj: mw.cast(),
    };
    // SAFETY: the caller's window and its context's op.
    observed!(status IbvDeallocMw, mw, call, unsafe { context_op!(mw, dealloc_mw)(mw) })
}

/// `ibv_inc_rkey()`: the key with its low byte (the tag) incremented.
///
/// # Safety
/// None needed: it takes no pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_inc_rkey(rkey: u32) -> u32 {
    const MASK: u32 = 0xff;
    observed!(IbvIncRkey, -, Call::Value(rkey.into()), {
        (rkey & !MASK) | (rkey.wrapping_add(1) & MASK)
    })
}

/// `ibv_bind_mw()`: binds a type 1 memory window through `qp`; 0 or an
/// errno value: `EINVAL` for another type; from rdma-core 39's header on,
/// as its original, also `EINVAL` for a length or address without an MR
/// and `EPERM` for an MR of another PD (before, the provider's checks).
///
/// # Safety
/// `qp`, `mw` and `mw_bind` NULL (`EINVAL`) or live and valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_bind_mw(
    qp: *mut ibv_qp,
    mw: *mut ibv_mw,
    mw_bind: *mut ibv_mw_bind,
) -> c_int {
    let call = Call::Object {
        key: b" qp=",
        obj: qp.cast(),
    };
    // SAFETY: the caller's objects.
    observed!(status IbvBindMw, qp, call, unsafe { bind_mw(qp, mw, mw_bind) })
}

/// The body of [`ibv_bind_mw`], the original's tests in its order.
///
/// # Safety
/// As its caller, `qp` not NULL.
#[inline(always)]
unsafe fn bind_mw(qp: *mut ibv_qp, mw: *mut ibv_mw, mw_bind: *mut ibv_mw_bind) -> c_int {
    if mw.is_null() || mw_bind.is_null() {
        return libc::EINVAL;
    }
    // SAFETY: the caller's live window and bind.
    unsafe {
        let info = &(*mw_bind).bind_info;
        if (*mw).type_ != rdmaverbs_abi::verbs::IBV_MW_TYPE_1 {
            return libc::EINVAL;
        }
        #[cfg(rdma_core_39)]
        {
            if info.mr.is_null() && (info.addr != 0 || info.length != 0) {
                return libc::EINVAL;
            }
            if !info.mr.is_null() && (*mw).pd != (*info.mr).pd {
                return libc::EPERM;
            }
        }
        #[cfg(not(rdma_core_39))]
        let _ = info;
        context_op!(mw, bind_mw)(qp, mw, mw_bind)
    }
}

/// `ibv_advise_mr()`: prefetch or page-fault advice on MRs; 0 or an errno
/// value (`EOPNOTSUPP` without the op).
///
/// # Safety
/// `pd` NULL (`EINVAL`) or live; `sg_list` as the provider requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_advise_mr(
    pd: *mut ibv_pd,
    advice: c_uint,
    flags: u32,
    sg_list: *mut ibv_sge,
    num_sge: u32,
) -> c_int {
    // SAFETY: the caller's PD and its context's op.
    observed!(status IbvAdviseMr, pd, pd_call(pd), unsafe {
        match ctx_op!((*pd).context, advise_mr) {
            Some(advise) => advise(pd, advice, flags, sg_list, num_sge),
            None => libc::EOPNOTSUPP,
        }
    })
}

/// `ibv_alloc_dm()`: device memory; NULL with `errno`.
///
/// # Safety
/// `context` NULL (NULL, `EINVAL`) or live; `attr` as the provider requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_alloc_dm(
    context: *mut ibv_context,
    attr: *mut ibv_alloc_dm_attr,
) -> *mut ibv_dm {
    // SAFETY: the caller's context and its op.
    observed!(IbvAllocDm, context, ctx(context), unsafe {
        match ctx_op!(context, alloc_dm) {
            Some(alloc) => alloc(context, attr),
            None => unsupported(),
        }
    })
}

/// The object `dm` as the observer shows it.
fn dm_call(dm: *mut ibv_dm) -> Call {
    Call::Object {
        key: b" dm=",
        obj: dm.cast(),
    }
}

/// `ibv_free_dm()`: frees device memory; 0 or an errno value.
///
/// # Safety
/// `dm` NULL (`EINVAL`) or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_free_dm(dm: *mut ibv_dm) -> c_int {
    // SAFETY: the caller's device memory and its context's op.
    observed!(status IbvFreeDm, dm, dm_call(dm), unsafe {
        match ctx_op!((*dm).context, free_dm) {
            Some(free) => free(dm),
            None => libc::EOPNOTSUPP,
        }
    })
}

/// `ibv_memcpy_to_dm()`: copies `length` bytes from the host into device
/// memory; 0 or an errno value.
///
/// # Safety
/// `dm` NULL (`EINVAL`) or live; the host buffer readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_memcpy_to_dm(
    dm: *mut ibv_dm,
    dm_offset: u64,
    host_addr: *const c_void,
    length: usize,
) -> c_int {
    // SAFETY: the caller's device memory and buffer, for its own call.
    observed!(status IbvMemcpyToDm, dm, dm_call(dm), unsafe {
        object_op!(dm, memcpy_to_dm)(dm, dm_offset, host_addr, length)
    })
}

/// `ibv_memcpy_from_dm()`: copies `length` bytes of device memory to the
/// host; 0 or an errno value.
///
/// # Safety
/// `dm` NULL (`EINVAL`) or live; the host buffer writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_memcpy_from_dm(
    host_addr: *mut c_void,
    dm: *mut ibv_dm,
    dm_offset: u64,
    length: usize,
) -> c_int {
    // SAFETY: as in `ibv_memcpy_to_dm`.
    observed!(status IbvMemcpyFromDm, dm, dm_call(dm), unsafe {
        object_op!(dm, memcpy_from_dm)(host_addr, dm, dm_offset, length)
    })
}

/// `ibv_alloc_null_mr()`: an MR that drops writes and reads zeros; NULL
/// with `errno`.
///
/// # Safety
/// `pd` NULL (NULL, `EINVAL`) or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_alloc_null_mr(pd: *mut ibv_pd) -> *mut ibv_mr {
    // SAFETY: the caller's PD and its context's op.
    observed!(IbvAllocNullMr, pd, pd_call(pd), unsafe {
        match ctx_op!((*pd).context, alloc_null_mr) {
            Some(alloc) => alloc(pd),
            None => unsupported(),
        }
    })
}

/// `ibv_reg_dm_mr()`: an MR over device memory; NULL with `errno`.
///
/// # Safety
/// `pd` NULL (NULL, `EINVAL`) or live; `dm` as the provider requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_reg_dm_mr(
    pd: *mut ibv_pd,
    dm: *mut ibv_dm,
    dm_offset: u64,
    length: usize,
    access: c_uint,
) -> *mut ibv_mr {
    // SAFETY: the caller's PD and its context's op.
    observed!(IbvRegDmMr, pd, pd_call(pd), unsafe {
        match ctx_op!((*pd).context, reg_dm_mr) {
            Some(reg) => reg(pd, dm, dm_offset, length, access),
            None => unsupported(),
        }
    })
}

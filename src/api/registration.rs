//! Memory registration helpers: `rdma_reg_msgs`, `rdma_reg_read`,
//! `rdma_reg_write` and `rdma_dereg_mr`.

use core::ffi::{c_int, c_void};

use rdmaverbs_abi::verbs::ibv_access_flags as access;

use super::errno::{invalid_ptr, seterrno};
use super::export::observed;
use rdmaverbs_abi::verbs::{ibv_mr, rdma_cm_id};
use rdmaverbs_observe::Call;

/// Registers `addr..addr+length` on the id's protection domain; NULL with
/// `errno = EINVAL` when it has none (a NULL id is the export's
/// [`observed!`]'s to refuse).
///
/// verbs.h makes `ibv_reg_mr` a macro; with access flags that are constants
/// without `IBV_ACCESS_OPTIONAL_RANGE`, as here, it calls the exported
/// `ibv_reg_mr`, and so does this.
///
/// # Safety
/// `id` points to a valid `rdma_cm_id`; the rest as for `ibv_reg_mr`.
#[inline(always)]
unsafe fn reg(id: *mut rdma_cm_id, addr: *mut c_void, length: usize, flags: access) -> *mut ibv_mr {
    // SAFETY: `id` is valid by the caller's guarantee.
    let pd = unsafe { (*id).pd };
    if pd.is_null() {
        return invalid_ptr();
    }
    // SAFETY: `pd` is the id's live protection domain.
    unsafe { rdmaverbs_abi::verbs::ibv_reg_mr(pd, addr, length, flags.0 as c_int) }
}

/// Registers a buffer for sends and receives; returns the MR, or NULL with errno.
///
/// `rdma_reg_msgs()` registers with `IBV_ACCESS_LOCAL_WRITE`.
///
/// # Safety
/// `id` is NULL or points to a valid `rdma_cm_id` (NULL, or no protection
/// domain: NULL with `errno = EINVAL`); `addr` and `length` describe memory
/// the caller owns.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_reg_msgs(
    id: *mut rdma_cm_id,
    addr: *mut c_void,
    length: usize,
) -> *mut ibv_mr {
    let flags = access::IBV_ACCESS_LOCAL_WRITE;
    // SAFETY: forwarded from the caller.
    observed!(RegMsgs, id, Call::Reg { id, addr, length }, unsafe {
        reg(id, addr, length, flags)
    })
}

/// Registers a buffer the peer may RDMA-read; returns the MR, or NULL with errno.
///
/// `rdma_reg_read()` registers with
/// `IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ`.
///
/// # Safety
/// As [`rdma_reg_msgs`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_reg_read(
    id: *mut rdma_cm_id,
    addr: *mut c_void,
    length: usize,
) -> *mut ibv_mr {
    let flags = access::IBV_ACCESS_LOCAL_WRITE | access::IBV_ACCESS_REMOTE_READ;
    // SAFETY: forwarded from the caller.
    observed!(RegRead, id, Call::Reg { id, addr, length }, unsafe {
        reg(id, addr, length, flags)
    })
}

/// Registers a buffer the peer may RDMA-write; returns the MR, or NULL with errno.
///
/// `rdma_reg_write()` registers with
/// `IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE`.
///
/// # Safety
/// As [`rdma_reg_msgs`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_reg_write(
    id: *mut rdma_cm_id,
    addr: *mut c_void,
    length: usize,
) -> *mut ibv_mr {
    let flags = access::IBV_ACCESS_LOCAL_WRITE | access::IBV_ACCESS_REMOTE_WRITE;
    // SAFETY: forwarded from the caller.
    observed!(RegWrite, id, Call::Reg { id, addr, length }, unsafe {
        reg(id, addr, length, flags)
    })
}

/// Deregisters a memory region; returns 0, or -1 with errno.
///
/// # Safety
/// `mr` is NULL (-1, `EINVAL`) or was returned by a registration and not yet
/// deregistered.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_dereg_mr(mr: *mut ibv_mr) -> c_int {
    // SAFETY: forwarded from the caller (`observed!` refuses a NULL `mr`).
    observed!(
        DeregMr,
        mr,
        Call::Dereg(mr),
        seterrno(unsafe { rdmaverbs_abi::verbs::ibv_dereg_mr(mr) })
    )
}

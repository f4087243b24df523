//! The extended QP's work requests, `ibv_wr_*` of `<infiniband/verbs.h>`
//! but its batch and settings (`wr_set.rs`):
//! each calls the function of the same name that the provider set in the
//! `struct ibv_qp_ex` (`qp->wr_send(qp)`, ...), as the inline original does.
//!
//! A NULL `qp` does nothing (the `void` ones) or returns `EINVAL`
//! (`ibv_wr_complete`), with no provider call. A call the QP was not
//! created with (its bit absent from `send_ops_flags`) is the caller's error,
//! as with the original: the provider left that function NULL. Under the
//! preload library, a QP's calls are wrapped, and each call is recorded
//! once, as its wrapper records a program's inline call.

use core::ffi::c_void;

use rdmaverbs_abi::functions::Func;
use rdmaverbs_abi::object_op;
use rdmaverbs_abi::verbs::ibv_wr_opcode as wr;
use rdmaverbs_abi::verbs::{ibv_mw, ibv_mw_bind_info, ibv_qp_ex};
use rdmaverbs_observe::{Call, ExOp};

use crate::api::export::observed;

/// `ibv_wr_atomic_cmp_swp()`: an atomic compare-and-swap of the 8 bytes at `remote_addr`.
///
/// # Safety
/// `qp` is NULL or a live extended QP created with this call; the rest as
/// the provider's call requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wr_atomic_cmp_swp(
    qp: *mut ibv_qp_ex,
    rkey: u32,
    remote_addr: u64,
    compare: u64,
    swap: u64,
) {
    // SAFETY: the caller's QP and arguments, for the provider's own call.
    observed!(
        IbvWrAtomicCmpSwp(qp, rkey, remote_addr, compare, swap),
        qp,
        Call::ex(ExOp::Opcode {
            f: Func::IbvWrAtomicCmpSwp,
            qp,
            opcode: wr::IBV_WR_ATOMIC_CMP_AND_SWP,
            remote: Some((remote_addr, rkey))
        }),
        unsafe { object_op!(qp, wr_atomic_cmp_swp)(qp, rkey, remote_addr, compare, swap) }
    )
}

/// `ibv_wr_atomic_fetch_add()`: an atomic fetch-and-add on the 8 bytes at `remote_addr`.
///
/// # Safety
/// `qp` is NULL or a live extended QP created with this call; the rest as
/// the provider's call requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wr_atomic_fetch_add(
    qp: *mut ibv_qp_ex,
    rkey: u32,
    remote_addr: u64,
    add: u64,
) {
    // SAFETY: the caller's QP and arguments, for the provider's own call.
    observed!(
        IbvWrAtomicFetchAdd(qp, rkey, remote_addr, add),
        qp,
        Call::ex(ExOp::Opcode {
            f: Func::IbvWrAtomicFetchAdd,
            qp,
            opcode: wr::IBV_WR_ATOMIC_FETCH_AND_ADD,
            remote: Some((remote_addr, rkey))
        }),
        unsafe { object_op!(qp, wr_atomic_fetch_add)(qp, rkey, remote_addr, add) }
    )
}

/// `ibv_wr_bind_mw()`: a bind of a type 2 memory window.
///
/// # Safety
/// `qp` is NULL or a live extended QP created with this call; the rest as
/// the provider's call requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wr_bind_mw(
    qp: *mut ibv_qp_ex,
    mw: *mut ibv_mw,
    rkey: u32,
    bind_info: *const ibv_mw_bind_info,
) {
    // SAFETY: the caller's QP and arguments, for the provider's own call.
    observed!(
        IbvWrBindMw(qp, mw, rkey, bind_info),
        qp,
        Call::ex(ExOp::Opcode {
            f: Func::IbvWrBindMw,
            qp,
            opcode: wr::IBV_WR_BIND_MW,
            remote: None
        }),
        unsafe { object_op!(qp, wr_bind_mw)(qp, mw, rkey, bind_info) }
    )
}

/// `ibv_wr_local_inv()`: a local invalidate of `invalidate_rkey`.
///
/// # Safety
/// `qp` is NULL or a live extended QP created with this call; the rest as
/// the provider's call requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wr_local_inv(qp: *mut ibv_qp_ex, invalidate_rkey: u32) {
    // SAFETY: the caller's QP and arguments, for the provider's own call.
    observed!(
        IbvWrLocalInv(qp, invalidate_rkey),
        qp,
        Call::ex(ExOp::Opcode {
            f: Func::IbvWrLocalInv,
            qp,
            opcode: wr::IBV_WR_LOCAL_INV,
            remote: None
        }),
        unsafe { object_op!(qp, wr_local_inv)(qp, invalidate_rkey) }
    )
}

/// `ibv_wr_rdma_read()`: an RDMA read from `remote_addr`.
///
/// # Safety
/// `qp` is NULL or a live extended QP created with this call; the rest as
/// the provider's call requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wr_rdma_read(qp: *mut ibv_qp_ex, rkey: u32, remote_addr: u64) {
    // SAFETY: the caller's QP and arguments, for the provider's own call.
    observed!(
        IbvWrRdmaRead(qp, rkey, remote_addr),
        qp,
        Call::ex(ExOp::Opcode {
            f: Func::IbvWrRdmaRead,
            qp,
            opcode: wr::IBV_WR_RDMA_READ,
            remote: Some((remote_addr, rkey))
        }),
        unsafe { object_op!(qp, wr_rdma_read)(qp, rkey, remote_addr) }
    )
}

/// `ibv_wr_rdma_write()`: an RDMA write to `remote_addr`.
///
/// # Safety
/// `qp` is NULL or a live extended QP created with this call; the rest as
/// the provider's call requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wr_rdma_write(qp: *mut ibv_qp_ex, rkey: u32, remote_addr: u64) {
    // SAFETY: the caller's QP and arguments, for the provider's own call.
    observed!(
        IbvWrRdmaWrite(qp, rkey, remote_addr),
        qp,
        Call::ex(ExOp::Opcode {
            f: Func::IbvWrRdmaWrite,
            qp,
            opcode: wr::IBV_WR_RDMA_WRITE,
            remote: Some((remote_addr, rkey))
        }),
        unsafe { object_op!(qp, wr_rdma_write)(qp, rkey, remote_addr) }
    )
}

/// `ibv_wr_rdma_write_imm()`: an RDMA write with immediate data (`__be32`).
///
/// # Safety
/// `qp` is NULL or a live extended QP created with this call; the rest as
/// the provider's call requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wr_rdma_write_imm(
    qp: *mut ibv_qp_ex,
    rkey: u32,
    remote_addr: u64,
    imm_data: u32,
) {
    // SAFETY: the caller's QP and arguments, for the provider's own call.
    observed!(
        IbvWrRdmaWriteImm(qp, rkey, remote_addr, imm_data),
        qp,
        Call::ex(ExOp::Opcode {
            f: Func::IbvWrRdmaWriteImm,
            qp,
            opcode: wr::IBV_WR_RDMA_WRITE_WITH_IMM,
            remote: Some((remote_addr, rkey))
        }),
        unsafe { object_op!(qp, wr_rdma_write_imm)(qp, rkey, remote_addr, imm_data) }
    )
}

/// `ibv_wr_send()`: a send.
///
/// # Safety
/// `qp` is NULL or a live extended QP created with this call; the rest as
/// the provider's call requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wr_send(qp: *mut ibv_qp_ex) {
    // SAFETY: the caller's QP and arguments, for the provider's own call.
    observed!(
        IbvWrSend(qp),
        qp,
        Call::ex(ExOp::Opcode {
            f: Func::IbvWrSend,
            qp,
            opcode: wr::IBV_WR_SEND,
            remote: None
        }),
        unsafe { object_op!(qp, wr_send)(qp) }
    )
}

/// `ibv_wr_send_imm()`: a send with immediate data (`__be32`).
///
/// # Safety
/// `qp` is NULL or a live extended QP created with this call; the rest as
/// the provider's call requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wr_send_imm(qp: *mut ibv_qp_ex, imm_data: u32) {
    // SAFETY: the caller's QP and arguments, for the provider's own call.
    observed!(
        IbvWrSendImm(qp, imm_data),
        qp,
        Call::ex(ExOp::Opcode {
            f: Func::IbvWrSendImm,
            qp,
            opcode: wr::IBV_WR_SEND_WITH_IMM,
            remote: None
        }),
        unsafe { object_op!(qp, wr_send_imm)(qp, imm_data) }
    )
}

/// `ibv_wr_send_inv()`: a send that invalidates `invalidate_rkey` at the peer.
///
/// # Safety
/// `qp` is NULL or a live extended QP created with this call; the rest as
/// the provider's call requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wr_send_inv(qp: *mut ibv_qp_ex, invalidate_rkey: u32) {
    // SAFETY: the caller's QP and arguments, for the provider's own call.
    observed!(
        IbvWrSendInv(qp, invalidate_rkey),
        qp,
        Call::ex(ExOp::Opcode {
            f: Func::IbvWrSendInv,
            qp,
            opcode: wr::IBV_WR_SEND_WITH_INV,
            remote: None
        }),
        unsafe { object_op!(qp, wr_send_inv)(qp, invalidate_rkey) }
    )
}

/// `ibv_wr_send_tso()`: a TCP segmentation offload send.
///
/// # Safety
/// `qp` is NULL or a live extended QP created with this call; the rest as
/// the provider's call requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wr_send_tso(
    qp: *mut ibv_qp_ex,
    hdr: *mut c_void,
    hdr_sz: u16,
    mss: u16,
) {
    // SAFETY: the caller's QP and arguments, for the provider's own call.
    observed!(
        IbvWrSendTso(qp, hdr, hdr_sz, mss),
        qp,
        Call::ex(ExOp::Opcode {
            f: Func::IbvWrSendTso,
            qp,
            opcode: wr::IBV_WR_TSO,
            remote: None
        }),
        unsafe { object_op!(qp, wr_send_tso)(qp, hdr, hdr_sz, mss) }
    )
}

/// `ibv_wr_atomic_write()`: an atomic write of 8 bytes to `remote_addr`.
///
/// # Safety
/// `qp` is NULL or a live extended QP created with this call; the rest as
/// the provider's call requires.
#[cfg(ibv_wr_atomic_write)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wr_atomic_write(
    qp: *mut ibv_qp_ex,
    rkey: u32,
    remote_addr: u64,
    atomic_wr: *const c_void,
) {
    // SAFETY: the caller's QP and arguments, for the provider's own call.
    observed!(
        IbvWrAtomicWrite(qp, rkey, remote_addr, atomic_wr),
        qp,
        Call::ex(ExOp::Opcode {
            f: Func::IbvWrAtomicWrite,
            qp,
            opcode: wr::IBV_WR_ATOMIC_WRITE,
            remote: Some((remote_addr, rkey))
        }),
        unsafe { object_op!(qp, wr_atomic_write)(qp, rkey, remote_addr, atomic_wr) }
    )
}

/// `ibv_wr_flush()`: a flush of `len` bytes at `remote_addr` to the given
/// placement `type` and persistence `level` (rdma-core 45).
///
/// # Safety
/// `qp` is NULL or a live extended QP created with this call; the rest as
/// the provider's call requires.
#[cfg(ibv_wr_flush)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wr_flush(
    qp: *mut ibv_qp_ex,
    rkey: u32,
    remote_addr: u64,
    len: usize,
    r#type: u8,
    level: u8,
) {
    // SAFETY: the caller's QP and arguments, for the provider's own call.
    observed!(
        IbvWrFlush(qp, rkey, remote_addr, len, r#type, level),
        qp,
        Call::ex(ExOp::Opcode {
            f: Func::IbvWrFlush,
            qp,
            opcode: wr::IBV_WR_FLUSH,
            remote: Some((remote_addr, rkey))
        }),
        unsafe { object_op!(qp, wr_flush)(qp, rkey, remote_addr, len, r#type, level) }
    )
}

//! The extended QP's post calls, `ibv_wr_*` of `<infiniband/verbs.h>`:
//! each calls the function of the same name that the provider set in the
//! `struct ibv_qp_ex` (`qp->wr_send(qp)`, ...), as the inline original does.
//!
//! A NULL `qp` does nothing (the `void` ones) or returns `EINVAL`
//! (`ibv_wr_complete`), with no provider call. A call the QP was not
//! created with (its bit absent from `send_ops_flags`) is the caller's error,
//! as with the original: the provider left that function NULL. Under the
//! preload library, a QP's calls are wrapped, and each call is recorded
//! once, as its wrapper records a program's inline call.

use core::ffi::{c_int, c_void};

use ibverbs_sys::ibv_wr_opcode as wr;
use rdmaverbs_abi::functions::Func;
use rdmaverbs_abi::object_op;
use rdmaverbs_abi::verbs::{ibv_ah, ibv_data_buf, ibv_mw, ibv_mw_bind_info, ibv_qp_ex, ibv_sge};
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
        IbvWrAtomicCmpSwp,
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
        IbvWrAtomicFetchAdd,
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
        IbvWrBindMw,
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
        IbvWrLocalInv,
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
        IbvWrRdmaRead,
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
        IbvWrRdmaWrite,
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
        IbvWrRdmaWriteImm,
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
        IbvWrSend,
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
        IbvWrSendImm,
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
        IbvWrSendInv,
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
        IbvWrSendTso,
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

/// `ibv_wr_set_ud_addr()`: the UD destination of the work request being built.
///
/// # Safety
/// `qp` is NULL or a live extended QP created with this call; the rest as
/// the provider's call requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wr_set_ud_addr(
    qp: *mut ibv_qp_ex,
    ah: *mut ibv_ah,
    remote_qpn: u32,
    remote_qkey: u32,
) {
    // SAFETY: the caller's QP and arguments, for the provider's own call.
    observed!(
        IbvWrSetUdAddr,
        qp,
        Call::ex(ExOp::UdAddr {
            qp,
            ah: ah.cast(),
            remote_qpn,
            remote_qkey
        }),
        unsafe { object_op!(qp, wr_set_ud_addr)(qp, ah, remote_qpn, remote_qkey) }
    )
}

/// `ibv_wr_set_xrc_srqn()`: the XRC SRQ number of the work request being built.
///
/// # Safety
/// `qp` is NULL or a live extended QP created with this call; the rest as
/// the provider's call requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wr_set_xrc_srqn(qp: *mut ibv_qp_ex, remote_srqn: u32) {
    // SAFETY: the caller's QP and arguments, for the provider's own call.
    observed!(
        IbvWrSetXrcSrqn,
        qp,
        Call::ex(ExOp::XrcSrqn {
            qp,
            srqn: remote_srqn
        }),
        unsafe { object_op!(qp, wr_set_xrc_srqn)(qp, remote_srqn) }
    )
}

/// `ibv_wr_set_inline_data()`: inline data of the work request being built.
///
/// # Safety
/// `qp` is NULL or a live extended QP created with this call; the rest as
/// the provider's call requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wr_set_inline_data(
    qp: *mut ibv_qp_ex,
    addr: *mut c_void,
    length: usize,
) {
    // SAFETY: the caller's QP and arguments, for the provider's own call.
    observed!(
        IbvWrSetInlineData,
        qp,
        Call::ex(ExOp::Inline { qp, addr, length }),
        unsafe { object_op!(qp, wr_set_inline_data)(qp, addr, length) }
    )
}

/// `ibv_wr_set_inline_data_list()`: a list of inline data buffers of the work request being built.
///
/// # Safety
/// `qp` is NULL or a live extended QP created with this call; the rest as
/// the provider's call requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wr_set_inline_data_list(
    qp: *mut ibv_qp_ex,
    num_buf: usize,
    buf_list: *const ibv_data_buf,
) {
    // SAFETY: the caller's QP and arguments, for the provider's own call.
    observed!(
        IbvWrSetInlineDataList,
        qp,
        Call::ex(ExOp::InlineList {
            qp,
            n: num_buf,
            list: buf_list
        }),
        unsafe { object_op!(qp, wr_set_inline_data_list)(qp, num_buf, buf_list) }
    )
}

/// `ibv_wr_set_sge()`: the one SGE of the work request being built.
///
/// # Safety
/// `qp` is NULL or a live extended QP created with this call; the rest as
/// the provider's call requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wr_set_sge(qp: *mut ibv_qp_ex, lkey: u32, addr: u64, length: u32) {
    // SAFETY: the caller's QP and arguments, for the provider's own call.
    observed!(
        IbvWrSetSge,
        qp,
        Call::ex(ExOp::Sge {
            qp,
            lkey,
            addr,
            length
        }),
        unsafe { object_op!(qp, wr_set_sge)(qp, lkey, addr, length) }
    )
}

/// `ibv_wr_set_sge_list()`: the SGE list of the work request being built.
///
/// # Safety
/// `qp` is NULL or a live extended QP created with this call; the rest as
/// the provider's call requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wr_set_sge_list(
    qp: *mut ibv_qp_ex,
    num_sge: usize,
    sg_list: *const ibv_sge,
) {
    // SAFETY: the caller's QP and arguments, for the provider's own call.
    observed!(
        IbvWrSetSgeList,
        qp,
        Call::ex(ExOp::SgeList {
            qp,
            n: num_sge,
            list: sg_list
        }),
        unsafe { object_op!(qp, wr_set_sge_list)(qp, num_sge, sg_list) }
    )
}

/// `ibv_wr_start()`: the start of a batch of work requests.
///
/// # Safety
/// `qp` is NULL or a live extended QP created with this call; the rest as
/// the provider's call requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wr_start(qp: *mut ibv_qp_ex) {
    // SAFETY: the caller's QP and arguments, for the provider's own call.
    observed!(
        IbvWrStart,
        qp,
        Call::ex(ExOp::Mark {
            f: Func::IbvWrStart,
            qp
        }),
        unsafe { object_op!(qp, wr_start)(qp) }
    )
}

/// `ibv_wr_complete()`: the end of a batch: its work requests posted.
///
/// # Safety
/// `qp` is NULL or a live extended QP created with this call; the rest as
/// the provider's call requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wr_complete(qp: *mut ibv_qp_ex) -> c_int {
    // SAFETY: the caller's QP and arguments, for the provider's own call.
    observed!(status IbvWrComplete, qp, Call::ex(ExOp::Complete { qp, ret: 0 }), unsafe {
        object_op!(qp, wr_complete)(qp)
    })
}

/// `ibv_wr_abort()`: the batch dropped.
///
/// # Safety
/// `qp` is NULL or a live extended QP created with this call; the rest as
/// the provider's call requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wr_abort(qp: *mut ibv_qp_ex) {
    // SAFETY: the caller's QP and arguments, for the provider's own call.
    observed!(
        IbvWrAbort,
        qp,
        Call::ex(ExOp::Mark {
            f: Func::IbvWrAbort,
            qp
        }),
        unsafe { object_op!(qp, wr_abort)(qp) }
    )
}

/// `ibv_wr_atomic_write()`: an atomic write of 8 bytes to `remote_addr`.
///
/// # Safety
/// `qp` is NULL or a live extended QP created with this call; the rest as
/// the provider's call requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wr_atomic_write(
    qp: *mut ibv_qp_ex,
    rkey: u32,
    remote_addr: u64,
    atomic_wr: *const c_void,
) {
    // SAFETY: the caller's QP and arguments, for the provider's own call.
    observed!(
        IbvWrAtomicWrite,
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

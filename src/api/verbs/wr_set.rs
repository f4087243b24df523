//! The extended QP's batch, `ibv_wr_start`, `ibv_wr_complete` and
//! `ibv_wr_abort`, and the calls that complete the work request being built
//! (`ibv_wr_set_*`: its destination, its data): each calls the function of
//! the same name that the provider set in the `struct ibv_qp_ex`, as the
//! inline original does. A NULL `qp` does nothing (`ibv_wr_complete`:
//! `EINVAL`), with no provider call; see `qp_ex.rs` for the rest.

use core::ffi::{c_int, c_void};

use rdmaverbs_abi::functions::Func;
use rdmaverbs_abi::object_op;
use rdmaverbs_abi::verbs::{ibv_ah, ibv_data_buf, ibv_qp_ex, ibv_sge};
use rdmaverbs_observe::{Call, ExOp};

use crate::api::export::observed;

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
        IbvWrSetUdAddr(qp, ah, remote_qpn, remote_qkey),
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
        IbvWrSetXrcSrqn(qp, remote_srqn),
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
        IbvWrSetInlineData(qp, addr, length),
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
        IbvWrSetInlineDataList(qp, num_buf, buf_list),
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
        IbvWrSetSge(qp, lkey, addr, length),
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
        IbvWrSetSgeList(qp, num_sge, sg_list),
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
        IbvWrStart(qp),
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
    observed!(status IbvWrComplete(qp), qp, Call::ex(ExOp::Complete { qp, ret: 0 }), unsafe {
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
        IbvWrAbort(qp),
        qp,
        Call::ex(ExOp::Mark {
            f: Func::IbvWrAbort,
            qp
        }),
        unsafe { object_op!(qp, wr_abort)(qp) }
    )
}

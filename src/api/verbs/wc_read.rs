//! The extended CQ's readers, `ibv_wc_read_*` of `<infiniband/verbs.h>`:
//! each calls the reader of the same name that the provider set in the
//! `struct ibv_cq_ex` for the completion that `ibv_start_poll` or
//! `ibv_next_poll` made current, as the inline original does
//! (`ibv_wc_read_invalidated_rkey` calls `read_imm_data`).
//!
//! A NULL `cq` returns 0 with `errno = EINVAL` (`ibv_wc_read_tm_info` does
//! nothing), with no provider call. A reader the CQ was not created with
//! (its bit absent from `wc_flags`) is the caller's error, as with the
//! original. Watched, each read is counted and has a probe, but no trace
//! line: the poll's line shows the completion.

use core::ffi::c_uint;

use rdmaverbs_abi::functions::Func;
use rdmaverbs_abi::object_op;
use rdmaverbs_abi::verbs::{ibv_cq_ex, ibv_wc_tm_info};
use rdmaverbs_observe::{Call, ExOp};

use crate::api::export::observed;

/// `ibv_wc_read_opcode()`: the current completion's opcode (`enum ibv_wc_opcode`).
///
/// # Safety
/// `cq` is NULL or a live extended CQ with a current completion, created
/// with this reader.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wc_read_opcode(cq: *mut ibv_cq_ex) -> c_uint {
    // SAFETY: the caller's CQ, for the provider's own reader.
    observed!(
        IbvWcReadOpcode(cq),
        cq,
        Call::ex(ExOp::Read {
            f: Func::IbvWcReadOpcode,
            cq,
            value: 0
        }),
        unsafe { object_op!(cq, read_opcode)(cq) }
    )
}

/// `ibv_wc_read_vendor_err()`: its vendor error.
///
/// # Safety
/// `cq` is NULL or a live extended CQ with a current completion, created
/// with this reader.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wc_read_vendor_err(cq: *mut ibv_cq_ex) -> u32 {
    // SAFETY: the caller's CQ, for the provider's own reader.
    observed!(
        IbvWcReadVendorErr(cq),
        cq,
        Call::ex(ExOp::Read {
            f: Func::IbvWcReadVendorErr,
            cq,
            value: 0
        }),
        unsafe { object_op!(cq, read_vendor_err)(cq) }
    )
}

/// `ibv_wc_read_byte_len()`: its length in bytes.
///
/// # Safety
/// `cq` is NULL or a live extended CQ with a current completion, created
/// with this reader.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wc_read_byte_len(cq: *mut ibv_cq_ex) -> u32 {
    // SAFETY: the caller's CQ, for the provider's own reader.
    observed!(
        IbvWcReadByteLen(cq),
        cq,
        Call::ex(ExOp::Read {
            f: Func::IbvWcReadByteLen,
            cq,
            value: 0
        }),
        unsafe { object_op!(cq, read_byte_len)(cq) }
    )
}

/// `ibv_wc_read_imm_data()`: its immediate data (`__be32`).
///
/// # Safety
/// `cq` is NULL or a live extended CQ with a current completion, created
/// with this reader.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wc_read_imm_data(cq: *mut ibv_cq_ex) -> u32 {
    // SAFETY: the caller's CQ, for the provider's own reader.
    observed!(
        IbvWcReadImmData(cq),
        cq,
        Call::ex(ExOp::Read {
            f: Func::IbvWcReadImmData,
            cq,
            value: 0
        }),
        unsafe { object_op!(cq, read_imm_data)(cq) }
    )
}

/// `ibv_wc_read_invalidated_rkey()`: the key it invalidated (from `read_imm_data`, as the original).
///
/// # Safety
/// `cq` is NULL or a live extended CQ with a current completion, created
/// with this reader.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wc_read_invalidated_rkey(cq: *mut ibv_cq_ex) -> u32 {
    // SAFETY: the caller's CQ, for the provider's own reader.
    observed!(
        IbvWcReadInvalidatedRkey(cq),
        cq,
        Call::ex(ExOp::Read {
            f: Func::IbvWcReadInvalidatedRkey,
            cq,
            value: 0
        }),
        unsafe { object_op!(cq, read_imm_data)(cq) }
    )
}

/// `ibv_wc_read_qp_num()`: its QP number.
///
/// # Safety
/// `cq` is NULL or a live extended CQ with a current completion, created
/// with this reader.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wc_read_qp_num(cq: *mut ibv_cq_ex) -> u32 {
    // SAFETY: the caller's CQ, for the provider's own reader.
    observed!(
        IbvWcReadQpNum(cq),
        cq,
        Call::ex(ExOp::Read {
            f: Func::IbvWcReadQpNum,
            cq,
            value: 0
        }),
        unsafe { object_op!(cq, read_qp_num)(cq) }
    )
}

/// `ibv_wc_read_src_qp()`: its source QP number.
///
/// # Safety
/// `cq` is NULL or a live extended CQ with a current completion, created
/// with this reader.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wc_read_src_qp(cq: *mut ibv_cq_ex) -> u32 {
    // SAFETY: the caller's CQ, for the provider's own reader.
    observed!(
        IbvWcReadSrcQp(cq),
        cq,
        Call::ex(ExOp::Read {
            f: Func::IbvWcReadSrcQp,
            cq,
            value: 0
        }),
        unsafe { object_op!(cq, read_src_qp)(cq) }
    )
}

/// `ibv_wc_read_wc_flags()`: its flags.
///
/// # Safety
/// `cq` is NULL or a live extended CQ with a current completion, created
/// with this reader.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wc_read_wc_flags(cq: *mut ibv_cq_ex) -> c_uint {
    // SAFETY: the caller's CQ, for the provider's own reader.
    observed!(
        IbvWcReadWcFlags(cq),
        cq,
        Call::ex(ExOp::Read {
            f: Func::IbvWcReadWcFlags,
            cq,
            value: 0
        }),
        unsafe { object_op!(cq, read_wc_flags)(cq) }
    )
}

/// `ibv_wc_read_slid()`: its source LID.
///
/// # Safety
/// `cq` is NULL or a live extended CQ with a current completion, created
/// with this reader.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wc_read_slid(cq: *mut ibv_cq_ex) -> u32 {
    // SAFETY: the caller's CQ, for the provider's own reader.
    observed!(
        IbvWcReadSlid(cq),
        cq,
        Call::ex(ExOp::Read {
            f: Func::IbvWcReadSlid,
            cq,
            value: 0
        }),
        unsafe { object_op!(cq, read_slid)(cq) }
    )
}

/// `ibv_wc_read_sl()`: its service level.
///
/// # Safety
/// `cq` is NULL or a live extended CQ with a current completion, created
/// with this reader.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wc_read_sl(cq: *mut ibv_cq_ex) -> u8 {
    // SAFETY: the caller's CQ, for the provider's own reader.
    observed!(
        IbvWcReadSl(cq),
        cq,
        Call::ex(ExOp::Read {
            f: Func::IbvWcReadSl,
            cq,
            value: 0
        }),
        unsafe { object_op!(cq, read_sl)(cq) }
    )
}

/// `ibv_wc_read_dlid_path_bits()`: its destination LID path bits.
///
/// # Safety
/// `cq` is NULL or a live extended CQ with a current completion, created
/// with this reader.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wc_read_dlid_path_bits(cq: *mut ibv_cq_ex) -> u8 {
    // SAFETY: the caller's CQ, for the provider's own reader.
    observed!(
        IbvWcReadDlidPathBits(cq),
        cq,
        Call::ex(ExOp::Read {
            f: Func::IbvWcReadDlidPathBits,
            cq,
            value: 0
        }),
        unsafe { object_op!(cq, read_dlid_path_bits)(cq) }
    )
}

/// `ibv_wc_read_completion_ts()`: its completion time stamp (device clock).
///
/// # Safety
/// `cq` is NULL or a live extended CQ with a current completion, created
/// with this reader.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wc_read_completion_ts(cq: *mut ibv_cq_ex) -> u64 {
    // SAFETY: the caller's CQ, for the provider's own reader.
    observed!(
        IbvWcReadCompletionTs(cq),
        cq,
        Call::ex(ExOp::Read {
            f: Func::IbvWcReadCompletionTs,
            cq,
            value: 0
        }),
        unsafe { object_op!(cq, read_completion_ts)(cq) }
    )
}

/// `ibv_wc_read_completion_wallclock_ns()`: its completion time stamp (nanoseconds, wall clock).
///
/// # Safety
/// `cq` is NULL or a live extended CQ with a current completion, created
/// with this reader.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wc_read_completion_wallclock_ns(cq: *mut ibv_cq_ex) -> u64 {
    // SAFETY: the caller's CQ, for the provider's own reader.
    observed!(
        IbvWcReadCompletionWallclockNs(cq),
        cq,
        Call::ex(ExOp::Read {
            f: Func::IbvWcReadCompletionWallclockNs,
            cq,
            value: 0
        }),
        unsafe { object_op!(cq, read_completion_wallclock_ns)(cq) }
    )
}

/// `ibv_wc_read_cvlan()`: its customer VLAN.
///
/// # Safety
/// `cq` is NULL or a live extended CQ with a current completion, created
/// with this reader.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wc_read_cvlan(cq: *mut ibv_cq_ex) -> u16 {
    // SAFETY: the caller's CQ, for the provider's own reader.
    observed!(
        IbvWcReadCvlan(cq),
        cq,
        Call::ex(ExOp::Read {
            f: Func::IbvWcReadCvlan,
            cq,
            value: 0
        }),
        unsafe { object_op!(cq, read_cvlan)(cq) }
    )
}

/// `ibv_wc_read_flow_tag()`: its flow tag.
///
/// # Safety
/// `cq` is NULL or a live extended CQ with a current completion, created
/// with this reader.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wc_read_flow_tag(cq: *mut ibv_cq_ex) -> u32 {
    // SAFETY: the caller's CQ, for the provider's own reader.
    observed!(
        IbvWcReadFlowTag(cq),
        cq,
        Call::ex(ExOp::Read {
            f: Func::IbvWcReadFlowTag,
            cq,
            value: 0
        }),
        unsafe { object_op!(cq, read_flow_tag)(cq) }
    )
}

/// `ibv_wc_read_tm_info()`: the tag matching information of the current
/// completion, into `*tm_info`.
///
/// # Safety
/// As the other readers; `tm_info` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_wc_read_tm_info(cq: *mut ibv_cq_ex, tm_info: *mut ibv_wc_tm_info) {
    // SAFETY: the caller's CQ and struct, for the provider's own reader.
    observed!(
        IbvWcReadTmInfo(cq, tm_info),
        cq,
        Call::ex(ExOp::Read {
            f: Func::IbvWcReadTmInfo,
            cq,
            value: 0
        }),
        unsafe { object_op!(cq, read_tm_info)(cq, tm_info) }
    )
}

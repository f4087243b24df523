//! Posting work requests: the vectored functions (`rdma_post_recvv`,
//! `rdma_post_sendv`, `rdma_post_readv`, `rdma_post_writev`), the one-buffer
//! functions built on them, and `rdma_post_ud_send`.
//!
//! Each builds one work request ([`super::request`]) and hands it to the
//! provider's op. Input the original would crash on or silently truncate (a NULL id, QP,
//! `sgl`, `mr` or `ah`, a negative `nsge`, a length above `UINT32_MAX`, a
//! receive buffer outside its MR) returns -1 with `errno = EINVAL` before
//! anything is posted.

use core::ffi::{c_int, c_void};

use super::export::observed;
use super::request::{lkey_or_zero, post_one, post_recv, post_send, read_one, recv_one};
use rdmaverbs_abi::verbs::{SendOp, ibv_ah, ibv_mr, ibv_sge, rdma_cm_id};
use rdmaverbs_observe::{Call, Sges};

/// Posts a receive of nsge buffers (to the SRQ if any); returns 0, or -1 with errno.
///
/// `rdma_post_recvv()` posts to the id's SRQ if it has one, else to its QP.
///
/// # Safety
/// Each pointer is NULL or valid: `id` an `rdma_cm_id` whose SRQ or QP is
/// live, `sgl` an array of `nsge` SGEs. The NULL cases the original crashes
/// on return -1 with `errno = EINVAL`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_post_recvv(
    id: *mut rdma_cm_id,
    context: *mut c_void,
    sgl: *mut ibv_sge,
    nsge: c_int,
) -> c_int {
    // SAFETY: forwarded from the caller.
    observed!(
        PostRecvv,
        id,
        Call::post(id, context, Sges::List(sgl, nsge), 0, None),
        unsafe { post_recv(id, context, sgl, nsge) }
    )
}

/// Posts a send of nsge buffers; returns 0, or -1 with errno.
///
/// # Safety
/// Each pointer is NULL or valid: `id` an `rdma_cm_id` whose QP is live,
/// `sgl` an array of `nsge` SGEs. The NULL cases the original crashes on
/// return -1 with `errno = EINVAL`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_post_sendv(
    id: *mut rdma_cm_id,
    context: *mut c_void,
    sgl: *mut ibv_sge,
    nsge: c_int,
    flags: c_int,
) -> c_int {
    let op = SendOp::Send;
    // SAFETY: forwarded from the caller.
    observed!(
        PostSendv,
        id,
        Call::post(id, context, Sges::List(sgl, nsge), flags, Some(op)),
        unsafe { post_send(id, context, sgl, nsge, flags, op) }
    )
}

/// Posts an RDMA read into nsge buffers; returns 0, or -1 with errno.
///
/// # Safety
/// As [`rdma_post_sendv`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_post_readv(
    id: *mut rdma_cm_id,
    context: *mut c_void,
    sgl: *mut ibv_sge,
    nsge: c_int,
    flags: c_int,
    remote_addr: u64,
    rkey: u32,
) -> c_int {
    let op = SendOp::Read { remote_addr, rkey };
    // SAFETY: forwarded from the caller.
    observed!(
        PostReadv,
        id,
        Call::post(id, context, Sges::List(sgl, nsge), flags, Some(op)),
        unsafe { post_send(id, context, sgl, nsge, flags, op) }
    )
}

/// Posts an RDMA write of nsge buffers; returns 0, or -1 with errno.
///
/// # Safety
/// As [`rdma_post_sendv`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_post_writev(
    id: *mut rdma_cm_id,
    context: *mut c_void,
    sgl: *mut ibv_sge,
    nsge: c_int,
    flags: c_int,
    remote_addr: u64,
    rkey: u32,
) -> c_int {
    let op = SendOp::Write { remote_addr, rkey };
    // SAFETY: forwarded from the caller.
    observed!(
        PostWritev,
        id,
        Call::post(id, context, Sges::List(sgl, nsge), flags, Some(op)),
        unsafe { post_send(id, context, sgl, nsge, flags, op) }
    )
}

/// Posts a receive of one buffer inside mr; returns 0, or -1 with errno.
///
/// # Safety
/// As [`rdma_post_recvv`]; `mr` is NULL (-1, `EINVAL`) or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_post_recv(
    id: *mut rdma_cm_id,
    context: *mut c_void,
    addr: *mut c_void,
    length: usize,
    mr: *mut ibv_mr,
) -> c_int {
    // SAFETY: forwarded from the caller.
    observed!(
        PostRecv,
        id,
        Call::post(id, context, Sges::One(length), 0, None),
        unsafe { recv_one(id, context, addr, length, mr) }
    )
}

/// Posts a send of one buffer; returns 0, or -1 with errno.
///
/// `mr` may be NULL with `IBV_SEND_INLINE`: the SGE's lkey is then 0.
///
/// # Safety
/// As [`rdma_post_sendv`]; `mr` is NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_post_send(
    id: *mut rdma_cm_id,
    context: *mut c_void,
    addr: *mut c_void,
    length: usize,
    mr: *mut ibv_mr,
    flags: c_int,
) -> c_int {
    let op = SendOp::Send;
    // SAFETY: forwarded from the caller.
    observed!(
        PostSend,
        id,
        Call::post(id, context, Sges::One(length), flags, Some(op)),
        unsafe { post_one(id, context, addr, length, lkey_or_zero(mr), flags, op) }
    )
}

/// Posts an RDMA read into one buffer of mr; returns 0, or -1 with errno.
///
/// # Safety
/// As [`rdma_post_sendv`]; `mr` is NULL (-1, `EINVAL`) or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_post_read(
    id: *mut rdma_cm_id,
    context: *mut c_void,
    addr: *mut c_void,
    length: usize,
    mr: *mut ibv_mr,
    flags: c_int,
    remote_addr: u64,
    rkey: u32,
) -> c_int {
    let op = SendOp::Read { remote_addr, rkey };
    // SAFETY: forwarded from the caller.
    observed!(
        PostRead,
        id,
        Call::post(id, context, Sges::One(length), flags, Some(op)),
        unsafe { read_one(id, context, addr, length, mr, flags, op) }
    )
}

/// Posts an RDMA write of one buffer; returns 0, or -1 with errno.
///
/// `mr` may be NULL with `IBV_SEND_INLINE`: the SGE's lkey is then 0.
///
/// # Safety
/// As [`rdma_post_sendv`]; `mr` is NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_post_write(
    id: *mut rdma_cm_id,
    context: *mut c_void,
    addr: *mut c_void,
    length: usize,
    mr: *mut ibv_mr,
    flags: c_int,
    remote_addr: u64,
    rkey: u32,
) -> c_int {
    let op = SendOp::Write { remote_addr, rkey };
    // SAFETY: forwarded from the caller.
    observed!(
        PostWrite,
        id,
        Call::post(id, context, Sges::One(length), flags, Some(op)),
        unsafe { post_one(id, context, addr, length, lkey_or_zero(mr), flags, op) }
    )
}

/// Posts a UD send of one buffer to remote_qpn; returns 0, or -1 with errno.
///
/// The work request carries `ah`, `remote_qpn` and librdmacm's
/// `RDMA_UDP_QKEY`; `mr` may be NULL with `IBV_SEND_INLINE`.
///
/// # Safety
/// As [`rdma_post_sendv`] on a UD QP; `mr` is NULL or valid; `ah` is NULL
/// (-1, `EINVAL`) or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_post_ud_send(
    id: *mut rdma_cm_id,
    context: *mut c_void,
    addr: *mut c_void,
    length: usize,
    mr: *mut ibv_mr,
    flags: c_int,
    ah: *mut ibv_ah,
    remote_qpn: u32,
) -> c_int {
    let op = SendOp::UdSend { ah, remote_qpn };
    // SAFETY: forwarded from the caller.
    observed!(
        PostUdSend,
        id,
        Call::post(id, context, Sges::One(length), flags, Some(op)),
        unsafe { post_one(id, context, addr, length, lkey_or_zero(mr), flags, op) }
    )
}

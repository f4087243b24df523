//! Building work requests: one on the stack with exactly the fields the
//! original sets (the others stay uninitialised, as in the original; the
//! provider does not read them for these opcodes), handed to the provider's
//! op; and the input checks that stand where the original would crash,
//! assert or truncate.

use core::ffi::{c_int, c_void};
use core::mem::MaybeUninit;

use rdmaverbs_abi::verbs::ibv_wr_opcode;

use super::errno::{invalid, seterrno};
use rdmaverbs_abi::verbs::{
    RDMA_UDP_QKEY, SendOp, ibv_mr, ibv_post_recv, ibv_post_send, ibv_post_srq_recv, ibv_recv_wr,
    ibv_send_wr, ibv_sge, rdma_cm_id,
};

/// Posts one send-queue work request on `id->qp`.
///
/// Always inlined with a constant `op`, so each export compiles to exactly the
/// stores of its original.
///
/// # Safety
/// `id` points to a valid `rdma_cm_id` (the export's [`observed!`] has
/// tested it for NULL); a non-NULL `sgl` holds
/// `nsge` entries; for `UdSend`, a non-NULL `ah` is valid.
#[inline(always)]
pub(super) unsafe fn post_send(
    id: *mut rdma_cm_id,
    context: *mut c_void,
    sgl: *mut ibv_sge,
    nsge: c_int,
    flags: c_int,
    op: SendOp,
) -> c_int {
    if bad_sgl(sgl, nsge) {
        return invalid();
    }
    // SAFETY: `id` is valid by the caller's guarantee.
    let qp = unsafe { (*id).qp };
    if qp.is_null() || matches!(op, SendOp::UdSend { ah, .. } if ah.is_null()) {
        return invalid();
    }
    let mut wr = MaybeUninit::<ibv_send_wr>::uninit();
    let mut bad = MaybeUninit::<*mut ibv_send_wr>::uninit();
    let w = wr.as_mut_ptr();
    // SAFETY: `w` points to our own stack slot; only plain fields are written.
    // `id` is valid by the caller's guarantee.
    unsafe {
        (*w).wr_id = context as usize as u64;
        (*w).next = core::ptr::null_mut();
        (*w).sg_list = sgl;
        (*w).num_sge = nsge;
        (*w).send_flags = flags as u32;
        match op {
            SendOp::Send => (*w).opcode = ibv_wr_opcode::IBV_WR_SEND,
            SendOp::Read { remote_addr, rkey } => {
                (*w).opcode = ibv_wr_opcode::IBV_WR_RDMA_READ;
                (*w).wr.rdma.remote_addr = remote_addr;
                (*w).wr.rdma.rkey = rkey;
            }
            SendOp::Write { remote_addr, rkey } => {
                (*w).opcode = ibv_wr_opcode::IBV_WR_RDMA_WRITE;
                (*w).wr.rdma.remote_addr = remote_addr;
                (*w).wr.rdma.rkey = rkey;
            }
            SendOp::UdSend { ah, remote_qpn } => {
                (*w).opcode = ibv_wr_opcode::IBV_WR_SEND;
                (*w).wr.ud.ah = ah;
                (*w).wr.ud.remote_qpn = remote_qpn;
                (*w).wr.ud.remote_qkey = RDMA_UDP_QKEY;
            }
        }
        seterrno(ibv_post_send(qp, w, bad.as_mut_ptr()))
    }
}

/// An SGE list the provider could not read: a negative count, or entries
/// with no array. (One unsigned compare against a limit that is 0 without an
/// array: cheaper than the two tests it stands for.)
#[inline(always)]
pub(super) fn bad_sgl(sgl: *mut ibv_sge, nsge: c_int) -> bool {
    let limit = if sgl.is_null() { 0 } else { c_int::MAX as u32 };
    nsge as u32 > limit
}

/// The single SGE of the one-buffer functions; `None` for a length that
/// does not fit the SGE's 32 bits (the original truncates it).
#[inline(always)]
pub(super) fn one_sge(addr: *mut c_void, length: usize, lkey: u32) -> Option<ibv_sge> {
    let length = u32::try_from(length).ok()?;
    Some(ibv_sge {
        addr: addr as usize as u64,
        length,
        lkey,
    })
}

/// Posts the one-SGE send-queue work request of the one-buffer functions.
///
/// # Safety
/// As [`post_send`]; `addr..addr+length` is the buffer, `lkey` its MR's key.
#[inline(always)]
pub(super) unsafe fn post_one(
    id: *mut rdma_cm_id,
    context: *mut c_void,
    addr: *mut c_void,
    length: usize,
    lkey: u32,
    flags: c_int,
    op: SendOp,
) -> c_int {
    let Some(mut sge) = one_sge(addr, length, lkey) else {
        return invalid();
    };
    // SAFETY: forwarded from the caller; `sge` is one entry.
    unsafe { post_send(id, context, &mut sge, 1, flags, op) }
}

/// `mr ? mr->lkey : 0`: the original's rule where inline data needs no MR.
///
/// Written as a choice of address, then one load, so that it compiles to a
/// conditional move rather than a branch that splits the hot path.
///
/// # Safety
/// `mr` is NULL or points to a valid `ibv_mr`.
#[inline(always)]
pub(super) unsafe fn lkey_or_zero(mr: *mut ibv_mr) -> u32 {
    static NO_KEY: u32 = 0;
    let key: *const u32 = if mr.is_null() {
        &NO_KEY
    } else {
        // SAFETY: a non-NULL `mr` is valid by the caller's guarantee.
        unsafe { &raw const (*mr).lkey }
    };
    // SAFETY: `key` points to `NO_KEY` or into the valid `mr`.
    unsafe { *key }
}

/// Posts one receive work request: to `id->srq` if the id has one, else to
/// `id->qp` (the original's SRQ branch).
///
/// # Safety
/// `id` points to a valid `rdma_cm_id` (the export's [`observed!`] has
/// tested it for NULL); a non-NULL `sgl` holds
/// `nsge` entries.
#[inline(always)]
pub(super) unsafe fn post_recv(
    id: *mut rdma_cm_id,
    context: *mut c_void,
    sgl: *mut ibv_sge,
    nsge: c_int,
) -> c_int {
    if bad_sgl(sgl, nsge) {
        return invalid();
    }
    // SAFETY: `id` is valid by the caller's guarantee.
    let (srq, qp) = unsafe { ((*id).srq, (*id).qp) };
    if srq.is_null() && qp.is_null() {
        return invalid();
    }
    let mut wr = MaybeUninit::<ibv_recv_wr>::uninit();
    let mut bad = MaybeUninit::<*mut ibv_recv_wr>::uninit();
    let w = wr.as_mut_ptr();
    // SAFETY: `w` points to our own stack slot; `srq` or `qp` is the id's.
    unsafe {
        (*w).wr_id = context as usize as u64;
        (*w).next = core::ptr::null_mut();
        (*w).sg_list = sgl;
        (*w).num_sge = nsge;
        if !srq.is_null() {
            let ret = ibv_post_srq_recv(srq, w, bad.as_mut_ptr());
            // An empty barrier (no instruction): without it LLVM merges the
            // two calls into one through a register holding the op's offset,
            // which costs the QP path two instructions (BENCHMARKS.md).
            core::arch::asm!("", options(nomem, nostack, preserves_flags));
            return seterrno(ret);
        }
        seterrno(ibv_post_recv(qp, w, bad.as_mut_ptr()))
    }
}

/// `rdma_post_recv`'s receive of one buffer, which must lie inside `mr`.
///
/// # Safety
/// As [`post_recv`]; `mr` is NULL or valid.
#[inline(always)]
pub(super) unsafe fn recv_one(
    id: *mut rdma_cm_id,
    context: *mut c_void,
    addr: *mut c_void,
    length: usize,
    mr: *mut ibv_mr,
) -> c_int {
    // SAFETY: a non-NULL `mr` is valid by the caller's guarantee.
    if mr.is_null() || !unsafe { inside(addr, length, &*mr) } {
        return invalid();
    }
    // SAFETY: as above.
    let Some(mut sge) = one_sge(addr, length, unsafe { (*mr).lkey }) else {
        return invalid();
    };
    // SAFETY: forwarded from the caller; `sge` is one entry.
    unsafe { post_recv(id, context, &mut sge, 1) }
}

/// The original's assert: `addr..addr+length` lies inside the MR.
///
/// As offsets into the MR: the buffer's end, `addr - mr.addr + length`,
/// must not carry past 2^64 and must not pass the MR's length. A buffer that
/// starts before the MR has a start offset of at least 2^64 - 2^47 (user
/// addresses are below 2^47): its end either carries or is larger than any
/// registered MR. One subtraction, one addition, two branches.
#[inline(always)]
pub(super) fn inside(addr: *mut c_void, length: usize, mr: &ibv_mr) -> bool {
    let start = (addr as usize).wrapping_sub(mr.addr as usize);
    matches!(start.checked_add(length), Some(end) if end <= mr.length)
}

/// `rdma_post_read`'s read into one buffer, which needs an MR.
///
/// # Safety
/// As [`post_send`]; `mr` is NULL or valid.
#[inline(always)]
pub(super) unsafe fn read_one(
    id: *mut rdma_cm_id,
    context: *mut c_void,
    addr: *mut c_void,
    length: usize,
    mr: *mut ibv_mr,
    flags: c_int,
    op: SendOp,
) -> c_int {
    if mr.is_null() {
        return invalid();
    }
    // SAFETY: forwarded from the caller; `mr` is non-NULL, so valid.
    unsafe { post_one(id, context, addr, length, (*mr).lkey, flags, op) }
}

//! The extended verbs API under the preload library: the post calls of each
//! `ibv_qp_ex` and the polling calls of each `ibv_cq_ex` created through a
//! wrapped context (`ops.rs` wraps its `create_qp_ex` and `create_cq_ex`).
//!
//! The provider fills those function pointers in when it creates the QP or
//! CQ; the ones listed here ([`SavedQp`], [`SavedCq`]) are saved per object
//! ([`QPS`], [`CQS`]) and, where the provider set them, replaced with
//! wrappers that call the provider's own, then
//! hand the observer what happened. The originals are put back before the
//! object is destroyed (`ibv_destroy_qp`, `ibv_destroy_cq`, interposed in
//! `mod.rs`).

use core::ffi::{c_int, c_void};

use rdmaverbs_abi::verbs::{ibv_cq_ex, ibv_poll_cq_attr, ibv_qp_ex, ibv_sge};

use super::registry::Registry;
use super::saved::saved;
use rdmaverbs_abi::functions::Func;
use rdmaverbs_observe::{ExOp, record_ex};

type QpFn = Option<unsafe extern "C" fn(*mut ibv_qp_ex)>;

saved! {
    /// The provider's own post calls of a wrapped QP.
    struct SavedQp of ibv_qp_ex, where_set {
        wr_start: QpFn => wr_start,
        wr_send: QpFn => wr_send,
        wr_send_imm: Option<unsafe extern "C" fn(*mut ibv_qp_ex, u32)> => wr_send_imm,
        wr_rdma_write: Option<unsafe extern "C" fn(*mut ibv_qp_ex, u32, u64)> => wr_rdma_write,
        wr_rdma_write_imm: Option<unsafe extern "C" fn(*mut ibv_qp_ex, u32, u64, u32)> =>
            wr_rdma_write_imm,
        wr_rdma_read: Option<unsafe extern "C" fn(*mut ibv_qp_ex, u32, u64)> => wr_rdma_read,
        wr_set_sge: Option<unsafe extern "C" fn(*mut ibv_qp_ex, u32, u64, u32)> => wr_set_sge,
        wr_set_sge_list: Option<unsafe extern "C" fn(*mut ibv_qp_ex, usize, *const ibv_sge)> =>
            wr_set_sge_list,
        wr_set_inline_data: Option<unsafe extern "C" fn(*mut ibv_qp_ex, *mut c_void, usize)> =>
            wr_set_inline_data,
        wr_complete: Option<unsafe extern "C" fn(*mut ibv_qp_ex) -> c_int> => wr_complete,
        wr_abort: QpFn => wr_abort,
    }
}

saved! {
    /// The provider's own polling calls of a wrapped CQ.
    struct SavedCq of ibv_cq_ex, where_set {
        start_poll: Option<unsafe extern "C" fn(*mut ibv_cq_ex, *mut ibv_poll_cq_attr) -> c_int> =>
            start_poll,
        next_poll: Option<unsafe extern "C" fn(*mut ibv_cq_ex) -> c_int> => next_poll,
        end_poll: Option<unsafe extern "C" fn(*mut ibv_cq_ex)> => end_poll,
    }
}

/// Every wrapped QP and CQ.
static QPS: Registry<SavedQp> = Registry::new();
static CQS: Registry<SavedCq> = Registry::new();

/// Wraps a QP just created with the extended API.
///
/// # Safety
/// `qp` is a new `ibv_qp_ex` that no other thread uses yet.
pub(super) unsafe fn wrap_qp(qp: *mut ibv_qp_ex) {
    // SAFETY: the caller's new QP.
    let q = unsafe { &mut *qp };
    if QPS.insert(qp.cast(), SavedQp::save(q)) {
        SavedQp::install(q);
    }
}

/// Wraps a CQ just created with the extended API.
///
/// # Safety
/// `cq` is a new `ibv_cq_ex` that no other thread uses yet.
pub(super) unsafe fn wrap_cq(cq: *mut ibv_cq_ex) {
    // SAFETY: the caller's new CQ.
    let c = unsafe { &mut *cq };
    if CQS.insert(cq.cast(), SavedCq::save(c)) {
        SavedCq::install(c);
    }
}

/// Puts a wrapped QP's own calls back (before it is destroyed); a QP that is
/// not wrapped costs a lock-free look-up.
///
/// # Safety
/// `qp` is a live QP (an `ibv_qp_ex` if it was wrapped).
pub(super) unsafe fn unwrap_qp(qp: *mut c_void) {
    if QPS.get(qp.cast()).is_none() {
        return;
    }
    if let Some(saved) = QPS.remove(qp.cast()) {
        // SAFETY: a wrapped QP is an ibv_qp_ex.
        saved.restore(unsafe { &mut *qp.cast::<ibv_qp_ex>() });
    }
}

/// As [`unwrap_qp`], for a CQ.
///
/// # Safety
/// `cq` is a live CQ (an `ibv_cq_ex` if it was wrapped).
pub(super) unsafe fn unwrap_cq(cq: *mut c_void) {
    if CQS.get(cq.cast()).is_none() {
        return;
    }
    if let Some(saved) = CQS.remove(cq.cast()) {
        // SAFETY: a wrapped CQ is an ibv_cq_ex.
        saved.restore(unsafe { &mut *cq.cast::<ibv_cq_ex>() });
    }
}

/// The registries' locks around a fork (see `ops::fork_handlers`).
pub(super) fn before_fork() {
    QPS.before_fork();
    CQS.before_fork();
}

pub(super) fn after_fork(child: bool) {
    if child {
        QPS.after_fork_in_child();
        CQS.after_fork_in_child();
    } else {
        QPS.after_fork_in_parent();
        CQS.after_fork_in_parent();
    }
}

/// A wrapper: the saved call `$f` of the object's entry (or `$gone` when it
/// is not wrapped any more: a call racing the destroy), called with the
/// arguments, then the record `$op` built from them and the result `ret`.
macro_rules! wrapper {
    ($(#[$doc:meta])* fn $name:ident($obj:ident: $t:ty $(, $a:ident: $at:ty)*) $(-> $r:ty)?,
     $reg:ident, $f:ident, $gone:expr, |$ret:ident| $op:expr) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// As the provider's call: a live object of a wrapped context.
        unsafe extern "C" fn $name($obj: $t $(, $a: $at)*) $(-> $r)? {
            let Some(call) = $reg.get($obj.cast()).and_then(|s| s.$f) else {
                return $gone;
            };
            // SAFETY: the provider's own call, with the caller's arguments.
            let $ret = unsafe { call($obj $(, $a)*) };
            // SAFETY: the object is live; the arguments are the caller's.
            unsafe { record_ex($op) };
            $ret
        }
    };
}

wrapper!(/// `ibv_wr_start`.
    fn wr_start(qp: *mut ibv_qp_ex), QPS, wr_start, (), |r| ExOp::Mark { f: Func::IbvWrStart, qp });
wrapper!(/// `ibv_wr_send`.
    fn wr_send(qp: *mut ibv_qp_ex), QPS, wr_send, (), |r| ExOp::Opcode {
        f: Func::IbvWrSend, qp, opcode: rdmaverbs_abi::verbs::ibv_wr_opcode::IBV_WR_SEND, remote: None });
wrapper!(/// `ibv_wr_send_imm`.
    fn wr_send_imm(qp: *mut ibv_qp_ex, imm: u32), QPS, wr_send_imm, (), |r| ExOp::Opcode {
        f: Func::IbvWrSendImm, qp, opcode: rdmaverbs_abi::verbs::ibv_wr_opcode::IBV_WR_SEND_WITH_IMM,
        remote: None });
wrapper!(/// `ibv_wr_rdma_write`.
    fn wr_rdma_write(qp: *mut ibv_qp_ex, rkey: u32, raddr: u64), QPS, wr_rdma_write, (),
    |r| ExOp::Opcode { f: Func::IbvWrRdmaWrite, qp,
        opcode: rdmaverbs_abi::verbs::ibv_wr_opcode::IBV_WR_RDMA_WRITE, remote: Some((raddr, rkey)) });
wrapper!(/// `ibv_wr_rdma_write_imm`.
    fn wr_rdma_write_imm(qp: *mut ibv_qp_ex, rkey: u32, raddr: u64, imm: u32), QPS,
    wr_rdma_write_imm, (), |r| ExOp::Opcode { f: Func::IbvWrRdmaWriteImm, qp,
        opcode: rdmaverbs_abi::verbs::ibv_wr_opcode::IBV_WR_RDMA_WRITE_WITH_IMM,
        remote: Some((raddr, rkey)) });
wrapper!(/// `ibv_wr_rdma_read`.
    fn wr_rdma_read(qp: *mut ibv_qp_ex, rkey: u32, raddr: u64), QPS, wr_rdma_read, (),
    |r| ExOp::Opcode { f: Func::IbvWrRdmaRead, qp,
        opcode: rdmaverbs_abi::verbs::ibv_wr_opcode::IBV_WR_RDMA_READ, remote: Some((raddr, rkey)) });
wrapper!(/// `ibv_wr_set_sge`.
    fn wr_set_sge(qp: *mut ibv_qp_ex, lkey: u32, addr: u64, length: u32), QPS, wr_set_sge, (),
    |r| ExOp::Sge { qp, lkey, addr, length });
wrapper!(/// `ibv_wr_set_sge_list`.
    fn wr_set_sge_list(qp: *mut ibv_qp_ex, n: usize, list: *const ibv_sge), QPS,
    wr_set_sge_list, (), |r| ExOp::SgeList { qp, n, list });
wrapper!(/// `ibv_wr_set_inline_data`.
    fn wr_set_inline_data(qp: *mut ibv_qp_ex, addr: *mut c_void, length: usize), QPS,
    wr_set_inline_data, (), |r| ExOp::Inline { qp, addr, length });
wrapper!(/// `ibv_wr_complete`.
    fn wr_complete(qp: *mut ibv_qp_ex) -> c_int, QPS, wr_complete, libc::ENODEV,
    |ret| ExOp::Complete { qp, ret });
wrapper!(/// `ibv_wr_abort`.
    fn wr_abort(qp: *mut ibv_qp_ex), QPS, wr_abort, (), |r| ExOp::Mark { f: Func::IbvWrAbort, qp });
wrapper!(/// `ibv_start_poll`.
    fn start_poll(cq: *mut ibv_cq_ex, attr: *mut ibv_poll_cq_attr) -> c_int, CQS, start_poll,
    libc::ENODEV, |ret| ExOp::Poll { f: Func::IbvStartPoll, cq, ret });
wrapper!(/// `ibv_next_poll`.
    fn next_poll(cq: *mut ibv_cq_ex) -> c_int, CQS, next_poll, libc::ENODEV,
    |ret| ExOp::Poll { f: Func::IbvNextPoll, cq, ret });
wrapper!(/// `ibv_end_poll`.
    fn end_poll(cq: *mut ibv_cq_ex), CQS, end_poll, (), |r| ExOp::EndPoll { cq });

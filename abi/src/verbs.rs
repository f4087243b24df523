//! The verbs layer: the C types the API takes, the provider dispatch that
//! `verbs.h` inlines, and the kinds of work request the exports build.
//!
//! The verbs types come from `ibverbs-sys`. `struct rdma_cm_id` belongs to
//! librdmacm, which `ibverbs-sys` does not cover, so it is declared here; the
//! layout tests (`abi/src/tests.rs`) check every field the library touches
//! against the system headers.
//!
//! Under the preload library, a context's ops are the preload library's
//! wrappers (`src/preload/`): the dispatch here then reaches the provider
//! through them, and the observer drops their record of a call that an
//! export records itself (`rdmaverbs_observe::Scope`).

use core::ffi::{c_int, c_uint, c_void};

pub use ibverbs_sys::{
    ibv_ah, ibv_comp_channel, ibv_context, ibv_cq, ibv_mr, ibv_pd, ibv_qp, ibv_recv_wr,
    ibv_send_wr, ibv_sge, ibv_srq, ibv_wc,
};

/// What kind of send-queue work request to build (the posting exports), or
/// was built (the trace of one).
#[derive(Clone, Copy)]
pub enum SendOp {
    /// `IBV_WR_SEND`.
    Send,
    /// `IBV_WR_RDMA_READ` from `remote_addr`, `rkey`.
    Read {
        /// The remote address.
        remote_addr: u64,
        /// The remote key.
        rkey: u32,
    },
    /// `IBV_WR_RDMA_WRITE` to `remote_addr`, `rkey`.
    Write {
        /// The remote address.
        remote_addr: u64,
        /// The remote key.
        rkey: u32,
    },
    /// `IBV_WR_SEND` on a UD QP, to `ah`, `remote_qpn`.
    UdSend {
        /// The address handle.
        ah: *mut ibv_ah,
        /// The remote QP number.
        remote_qpn: u32,
    },
}

impl SendOp {
    /// Its `enum ibv_wr_opcode`.
    pub const fn opcode(self) -> u32 {
        use ibverbs_sys::ibv_wr_opcode as o;
        match self {
            SendOp::Send | SendOp::UdSend { .. } => o::IBV_WR_SEND,
            SendOp::Read { .. } => o::IBV_WR_RDMA_READ,
            SendOp::Write { .. } => o::IBV_WR_RDMA_WRITE,
        }
    }
}

/// `RDMA_UDP_QKEY` from `<rdma/rdma_cma.h>`: the Q_Key of every UD QP that
/// librdmacm creates, which `rdma_post_ud_send` puts in each work request.
pub const RDMA_UDP_QKEY: u32 = 0x0123_4567;

/// `struct rdma_cm_id` from `<rdma/rdma_cma.h>`.
///
/// Only the fields this library reads are named; the rest keep their size.
#[repr(C)]
pub struct rdma_cm_id {
    /// `struct ibv_context *verbs`.
    pub verbs: *mut ibv_context,
    /// `struct rdma_event_channel *channel`.
    pub channel: *mut c_void,
    /// `void *context`.
    pub context: *mut c_void,
    /// `struct ibv_qp *qp`.
    pub qp: *mut ibv_qp,
    /// `struct rdma_route route`.
    pub route: rdma_route,
    /// `enum rdma_port_space ps`.
    pub ps: c_int,
    /// `uint8_t port_num`.
    pub port_num: u8,
    /// `struct rdma_cm_event *event`.
    pub event: *mut c_void,
    /// `struct ibv_comp_channel *send_cq_channel`.
    pub send_cq_channel: *mut ibv_comp_channel,
    /// `struct ibv_cq *send_cq`.
    pub send_cq: *mut ibv_cq,
    /// `struct ibv_comp_channel *recv_cq_channel`.
    pub recv_cq_channel: *mut ibv_comp_channel,
    /// `struct ibv_cq *recv_cq`.
    pub recv_cq: *mut ibv_cq,
    /// `struct ibv_srq *srq`.
    pub srq: *mut ibv_srq,
    /// `struct ibv_pd *pd`.
    pub pd: *mut ibv_pd,
    /// `enum ibv_qp_type qp_type`.
    pub qp_type: c_uint,
}

/// `struct rdma_route` from `<rdma/rdma_cma.h>`: its `struct rdma_addr`
/// (the source and destination addresses, each in a `sockaddr_storage`, and
/// an `rdma_ib_addr`), a path record pointer and a count, 312 bytes on LP64
/// targets. Only the two addresses are named.
#[repr(C)]
pub struct rdma_route {
    /// `addr.src_addr` (a `struct sockaddr_storage`).
    pub src_addr: [u64; 16],
    /// `addr.dst_addr`.
    pub dst_addr: [u64; 16],
    _rest: [u64; 7],
}

// The five data-path verbs are `static inline` in verbs.h: each one is a call
// through `struct ibv_context_ops`, never through `verbs_context`. These are
// the same calls. libibverbs never leaves an op NULL (it installs stubs that
// return EOPNOTSUPP), so, like verbs.h, these do not test for one: a test
// costs two instructions on every call (BENCHMARKS.md).

/// The op `$op` of the device context of `$obj` (a QP, SRQ or CQ). Used in
/// an `unsafe` block whose caller guarantees that `$obj` and its context are
/// live; libibverbs sets every op.
macro_rules! op {
    ($obj:expr, $op:ident) => {
        (*(*$obj).context).ops.$op.unwrap_unchecked()
    };
}

/// `ibv_post_send()` of verbs.h.
///
/// # Safety
/// `qp` points to a live QP whose `context` is a live device context (made by
/// libibverbs, so that every op is set); `wr` and `bad` are valid for the
/// provider's op.
#[inline(always)]
pub unsafe fn ibv_post_send(
    qp: *mut ibv_qp,
    wr: *mut ibv_send_wr,
    bad: *mut *mut ibv_send_wr,
) -> c_int {
    // SAFETY: the provider's own op, called as verbs.h calls it.
    unsafe { op!(qp, post_send)(qp, wr, bad) }
}

/// `ibv_post_recv()` of verbs.h.
///
/// # Safety
/// As [`ibv_post_send`].
#[inline(always)]
pub unsafe fn ibv_post_recv(
    qp: *mut ibv_qp,
    wr: *mut ibv_recv_wr,
    bad: *mut *mut ibv_recv_wr,
) -> c_int {
    // SAFETY: the provider's own op, called as verbs.h calls it.
    unsafe { op!(qp, post_recv)(qp, wr, bad) }
}

/// `ibv_post_srq_recv()` of verbs.h.
///
/// # Safety
/// `srq` points to a live SRQ whose `context` is live; `wr` and `bad` are
/// valid for the provider's op.
#[inline(always)]
pub unsafe fn ibv_post_srq_recv(
    srq: *mut ibv_srq,
    wr: *mut ibv_recv_wr,
    bad: *mut *mut ibv_recv_wr,
) -> c_int {
    // SAFETY: the provider's own op, called as verbs.h calls it.
    unsafe { op!(srq, post_srq_recv)(srq, wr, bad) }
}

/// `ibv_poll_cq()` of verbs.h.
///
/// # Safety
/// `cq` points to a live CQ whose `context` is live; `wc` has room for
/// `num_entries` completions.
#[inline(always)]
pub unsafe fn ibv_poll_cq(cq: *mut ibv_cq, num_entries: c_int, wc: *mut ibv_wc) -> c_int {
    // SAFETY: the provider's own op, called as verbs.h calls it.
    unsafe { op!(cq, poll_cq)(cq, num_entries, wc) }
}

/// `ibv_req_notify_cq()` of verbs.h.
///
/// # Safety
/// `cq` points to a live CQ whose `context` is live.
#[inline(always)]
pub unsafe fn ibv_req_notify_cq(cq: *mut ibv_cq, solicited_only: c_int) -> c_int {
    // SAFETY: the provider's own op, called as verbs.h calls it.
    unsafe { op!(cq, req_notify_cq)(cq, solicited_only) }
}

/// The end of `struct verbs_context` (`verbs.h`), from `create_cq_ex` to its
/// last member, `context`: libibverbs allocates it around the `ibv_context`
/// it hands out (`verbs_get_ctx` is `context` minus its offset), and the
/// struct grows at the front, so these members keep their distance to
/// `context` across versions. The layout test checks every distance against
/// the system header; only the two creation ops are read or written.
#[repr(C)]
pub struct verbs_context_tail {
    /// `create_cq_ex`.
    pub create_cq_ex: Option<CreateCqEx>,
    _middle: [*mut c_void; 7],
    /// `create_qp_ex`.
    pub create_qp_ex: Option<CreateQpEx>,
    _after: [*mut c_void; 5],
    /// The size of the whole `struct verbs_context` the provider allocated.
    pub sz: usize,
    /// The `ibv_context` handed out.
    pub context: ibv_context,
}

/// `verbs_context.create_qp_ex`.
pub type CreateQpEx =
    unsafe extern "C" fn(*mut ibv_context, *mut ibverbs_sys::ibv_qp_init_attr_ex) -> *mut ibv_qp;
/// `verbs_context.create_cq_ex`.
pub type CreateCqEx = unsafe extern "C" fn(
    *mut ibv_context,
    *mut ibverbs_sys::ibv_cq_init_attr_ex,
) -> *mut ibverbs_sys::ibv_cq_ex;

/// The `struct verbs_context` around `ctx`, as `verbs_get_ctx_op` finds it:
/// only for an extended context (`abi_compat` is `__VERBS_ABI_IS_EXTENDED`)
/// whose size covers `create_cq_ex`.
///
/// # Safety
/// `ctx` is a live device context.
pub unsafe fn verbs_context(ctx: *mut ibv_context) -> Option<*mut verbs_context_tail> {
    // SAFETY: a live context (caller's guarantee).
    if unsafe { (*ctx).abi_compat } as usize != usize::MAX {
        return None;
    }
    let at = core::mem::offset_of!(verbs_context_tail, context);
    // SAFETY: an extended context lies at the end of a verbs_context, whose
    // `sz` precedes it.
    let v = unsafe { ctx.byte_sub(at) }.cast::<verbs_context_tail>();
    // SAFETY: as above.
    (unsafe { (*v).sz } >= core::mem::size_of::<verbs_context_tail>()).then_some(v)
}

/// The leading fields of `struct ibv_wc`, which ibverbs-sys keeps private;
/// the tracing reads a completion through it (the layout test checks it).
#[repr(C)]
pub struct ibv_wc_head {
    /// `uint64_t wr_id`.
    pub wr_id: u64,
    /// `enum ibv_wc_status status`.
    pub status: c_uint,
    /// `enum ibv_wc_opcode opcode`.
    pub opcode: c_uint,
    /// `uint32_t vendor_err`.
    pub vendor_err: u32,
    /// `uint32_t byte_len`.
    pub byte_len: u32,
    /// `__be32 imm_data` (or `invalidated_rkey`).
    pub imm_data: u32,
    /// `uint32_t qp_num`.
    pub qp_num: u32,
}

/// `enum ibv_wc_status` without the `IBV_WC_` prefix, by value (a trace
/// field is one word; checked against the system header).
pub const WC_STATUS: [&str; 24] = [
    "SUCCESS",
    "LOC_LEN_ERR",
    "LOC_QP_OP_ERR",
    "LOC_EEC_OP_ERR",
    "LOC_PROT_ERR",
    "WR_FLUSH_ERR",
    "MW_BIND_ERR",
    "BAD_RESP_ERR",
    "LOC_ACCESS_ERR",
    "REM_INV_REQ_ERR",
    "REM_ACCESS_ERR",
    "REM_OP_ERR",
    "RETRY_EXC_ERR",
    "RNR_RETRY_EXC_ERR",
    "LOC_RDD_VIOL_ERR",
    "REM_INV_RD_REQ_ERR",
    "REM_ABORT_ERR",
    "INV_EECN_ERR",
    "INV_EEC_STATE_ERR",
    "FATAL_ERR",
    "RESP_TIMEOUT_ERR",
    "GENERAL_ERR",
    "TM_ERR",
    "TM_RNDV_INCOMPLETE",
];

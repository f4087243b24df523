//! The verbs layer: the C types the API takes (here), libibverbs' private
//! `struct verbs_context` (`context.rs`), the provider dispatch that
//! `verbs.h` inlines (`dispatch.rs`), and the kinds of work request the
//! exports build.
//!
//! The verbs types are the system header's (`header.rs`: bindgen's, made
//! by the build script from the `<infiniband/verbs.h>` the build compiles
//! against). `struct rdma_cm_id` belongs to librdmacm and is declared here,
//! with only the fields the library reads; the layout tests
//! (`abi/src/tests/`) check every field the library touches against the
//! system headers.
//!
//! Under the preload library, a context's ops are the preload library's
//! wrappers (`src/preload/`): the dispatch here then reaches the provider
//! through them, and the observer drops their record of a call that an
//! export records itself (`rdmaverbs_observe::Scope`).

mod context;
pub mod dispatch;
mod header;

pub use context::*;
pub use dispatch::*;

use core::ffi::{c_int, c_uint, c_void};

pub use header::*;

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
        use ibv_wr_opcode as o;
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

/// Calls `$m!` with the pointer types that the exports return for an
/// object they create, allocate or open (NULL, with `errno`, on failure):
/// the observer's list of how such a result is shown (a refusal returns
/// NULL for every pointer: `src/api/errno.rs`). `*mut ibv_mr` and `*mut
/// sockaddr` are not in it: each is shown its own way.
#[macro_export]
macro_rules! object_results {
    ($m:ident) => {
        $m!(
            ibv_cq,
            ibv_cq_ex,
            ibv_qp,
            ibv_srq,
            ibv_pd,
            ibv_td,
            ibv_xrcd,
            ibv_flow,
            ibv_flow_action,
            ibv_mw,
            ibv_dm,
            ibv_wq,
            ibv_rwq_ind_table,
            ibv_counters
        );
    };
}

/// `IBV_ACCESS_OPTIONAL_RANGE` (`<infiniband/verbs_api.h>`): the access
/// flags a kernel may ignore; `ibv_reg_mr` with any of them goes to
/// `ibv_reg_mr_iova2`.
pub const IBV_ACCESS_OPTIONAL_RANGE: u32 = 0x3ff0_0000;

/// `IB_ROCE_UDP_ENCAP_VALID_PORT_MIN`: the lowest UDP source port of RoCE v2.
pub const IB_ROCE_UDP_ENCAP_VALID_PORT_MIN: u32 = 0xc000;

/// `sizeof(struct ibv_port_attr)`, which `___ibv_query_port` passes and
/// clears: the build's header's (it grew when rdma-core 49 appended
/// `active_speed_ex`). Passing another size would let the
/// provider write past the caller's struct, or leave its end unwritten (the
/// trap of torchcomms#697).
pub const PORT_ATTR_SIZE: usize = core::mem::size_of::<ibv_port_attr>();
/// `sizeof(struct ibv_gid_entry)`, which `ibv_query_gid_ex` and
/// `ibv_query_gid_table` pass.
pub const GID_ENTRY_SIZE: usize = core::mem::size_of::<ibv_gid_entry>();
/// `sizeof(struct ibv_device_attr_ex)`, which `ibv_query_device_ex` passes
/// and clears.
pub const DEVICE_ATTR_EX_SIZE: usize = core::mem::size_of::<ibv_device_attr_ex>();

// The one list of every function the library knows by name, as a macro
// (`function_table!`) that every layer calls with a macro of its own, and
// that the ground floor's build script reads too (`abi/build.rs`, which
// `include!`s this file, so nothing but the table is here, and no inner
// attribute or `//!` comment).

/// Calls the macro `$m` with the table (exported at the crate's root, so
/// that each layer derives its own uses of it: the exports' existence
/// check, the probe sites, the interposed functions). Rows are
/// `Variant name "NODE" kind since;` for the exports, in the order of their
/// headers (`<rdma/rdma_verbs.h>`'s, rdmaverbs' own API, `<rdma/rdma_cma.h>`'s
/// address accessors, then the `static inline` functions of
/// `<infiniband/verbs.h>` in its order, at the node of the first rdmaverbs
/// release that exported them), where
/// - `kind` is `call`, `blocks` (a call may wait for a completion event:
///   the counters' "blocked" column) or `wrapped` (the preload library also
///   wraps the provider's op that the function calls, and records a
///   program's inline calls of it under this row);
/// - `since` is the rdma-core release whose header first defines the
///   function `static inline` (13: rdma-core 13 or earlier, the oldest
///   release looked at), or `own` for rdmaverbs' own API.
///
/// A row is in a build when its function is: the build script finds the
/// `static inline` functions of the headers the build compiles against and
/// sets the cfg named after each row the build has (`#[cfg(ibv_wr_flush)]`;
/// `own` rows always), so that everything derived from the table, and the
/// export itself, exists only where the system header has the original.
///
/// Then `name "NODE";` for the libibverbs functions that the preload library
/// interposes, at libibverbs' own version.
///
/// Left out (rdmaverbs(7) says why): the functions of [`NOT_EXPORTED`]; and
/// the four names that are macros over real libibverbs symbols
/// (`ibv_query_port`, `ibv_reg_mr`, `ibv_reg_mr_iova`,
/// `ibv_get_device_list`), whose inline targets are exported instead.
#[macro_export]
macro_rules! function_table {
    ($m:ident) => {
        $m! {
            exports {
                SetErrno                        rdma_seterrno                        "RDMAVERBS_1.0" call    13;
                RegMsgs                         rdma_reg_msgs                        "RDMAVERBS_1.0" call    13;
                RegRead                         rdma_reg_read                        "RDMAVERBS_1.0" call    13;
                RegWrite                        rdma_reg_write                       "RDMAVERBS_1.0" call    13;
                DeregMr                         rdma_dereg_mr                        "RDMAVERBS_1.0" call    13;
                PostRecvv                       rdma_post_recvv                      "RDMAVERBS_1.0" call    13;
                PostSendv                       rdma_post_sendv                      "RDMAVERBS_1.0" call    13;
                PostReadv                       rdma_post_readv                      "RDMAVERBS_1.0" call    13;
                PostWritev                      rdma_post_writev                     "RDMAVERBS_1.0" call    13;
                PostRecv                        rdma_post_recv                       "RDMAVERBS_1.0" call    13;
                PostSend                        rdma_post_send                       "RDMAVERBS_1.0" call    13;
                PostRead                        rdma_post_read                       "RDMAVERBS_1.0" call    13;
                PostWrite                       rdma_post_write                      "RDMAVERBS_1.0" call    13;
                PostUdSend                      rdma_post_ud_send                    "RDMAVERBS_1.0" call    13;
                GetSendComp                     rdma_get_send_comp                   "RDMAVERBS_1.0" blocks  13;
                GetRecvComp                     rdma_get_recv_comp                   "RDMAVERBS_1.0" blocks  13;
                GetSendCompTimeout              rdma_get_send_comp_timeout           "RDMAVERBS_1.1" blocks  own;
                GetRecvCompTimeout              rdma_get_recv_comp_timeout           "RDMAVERBS_1.1" blocks  own;
                GetLocalAddr                    rdma_get_local_addr                  "RDMAVERBS_1.2" call    13;
                GetPeerAddr                     rdma_get_peer_addr                   "RDMAVERBS_1.2" call    13;
                IbvWrAtomicCmpSwp               ibv_wr_atomic_cmp_swp                "RDMAVERBS_1.3" call    24;
                IbvWrAtomicFetchAdd             ibv_wr_atomic_fetch_add              "RDMAVERBS_1.3" call    24;
                IbvWrBindMw                     ibv_wr_bind_mw                       "RDMAVERBS_1.3" call    24;
                IbvWrLocalInv                   ibv_wr_local_inv                     "RDMAVERBS_1.3" call    24;
                IbvWrRdmaRead                   ibv_wr_rdma_read                     "RDMAVERBS_1.3" wrapped 24;
                IbvWrRdmaWrite                  ibv_wr_rdma_write                    "RDMAVERBS_1.3" wrapped 24;
                IbvWrRdmaWriteImm               ibv_wr_rdma_write_imm                "RDMAVERBS_1.3" wrapped 24;
                IbvWrSend                       ibv_wr_send                          "RDMAVERBS_1.3" wrapped 24;
                IbvWrSendImm                    ibv_wr_send_imm                      "RDMAVERBS_1.3" wrapped 24;
                IbvWrSendInv                    ibv_wr_send_inv                      "RDMAVERBS_1.3" call    24;
                IbvWrSendTso                    ibv_wr_send_tso                      "RDMAVERBS_1.3" call    24;
                IbvWrSetUdAddr                  ibv_wr_set_ud_addr                   "RDMAVERBS_1.3" call    24;
                IbvWrSetXrcSrqn                 ibv_wr_set_xrc_srqn                  "RDMAVERBS_1.3" call    24;
                IbvWrSetInlineData              ibv_wr_set_inline_data               "RDMAVERBS_1.3" wrapped 24;
                IbvWrSetInlineDataList          ibv_wr_set_inline_data_list          "RDMAVERBS_1.3" call    24;
                IbvWrSetSge                     ibv_wr_set_sge                       "RDMAVERBS_1.3" wrapped 24;
                IbvWrSetSgeList                 ibv_wr_set_sge_list                  "RDMAVERBS_1.3" wrapped 24;
                IbvWrStart                      ibv_wr_start                         "RDMAVERBS_1.3" wrapped 24;
                IbvWrComplete                   ibv_wr_complete                      "RDMAVERBS_1.3" wrapped 24;
                IbvWrAbort                      ibv_wr_abort                         "RDMAVERBS_1.3" wrapped 24;
                IbvWrAtomicWrite                ibv_wr_atomic_write                  "RDMAVERBS_1.3" call    44;
                IbvCqExToCq                     ibv_cq_ex_to_cq                      "RDMAVERBS_1.3" call    13;
                IbvStartPoll                    ibv_start_poll                       "RDMAVERBS_1.3" wrapped 13;
                IbvNextPoll                     ibv_next_poll                        "RDMAVERBS_1.3" wrapped 13;
                IbvEndPoll                      ibv_end_poll                         "RDMAVERBS_1.3" wrapped 13;
                IbvWcReadOpcode                 ibv_wc_read_opcode                   "RDMAVERBS_1.3" call    13;
                IbvWcReadVendorErr              ibv_wc_read_vendor_err               "RDMAVERBS_1.3" call    13;
                IbvWcReadByteLen                ibv_wc_read_byte_len                 "RDMAVERBS_1.3" call    13;
                IbvWcReadImmData                ibv_wc_read_imm_data                 "RDMAVERBS_1.3" call    13;
                IbvWcReadInvalidatedRkey        ibv_wc_read_invalidated_rkey         "RDMAVERBS_1.3" call    15;
                IbvWcReadQpNum                  ibv_wc_read_qp_num                   "RDMAVERBS_1.3" call    13;
                IbvWcReadSrcQp                  ibv_wc_read_src_qp                   "RDMAVERBS_1.3" call    13;
                IbvWcReadWcFlags                ibv_wc_read_wc_flags                 "RDMAVERBS_1.3" call    13;
                IbvWcReadSlid                   ibv_wc_read_slid                     "RDMAVERBS_1.3" call    13;
                IbvWcReadSl                     ibv_wc_read_sl                       "RDMAVERBS_1.3" call    13;
                IbvWcReadDlidPathBits           ibv_wc_read_dlid_path_bits           "RDMAVERBS_1.3" call    13;
                IbvWcReadCompletionTs           ibv_wc_read_completion_ts            "RDMAVERBS_1.3" call    13;
                IbvWcReadCompletionWallclockNs  ibv_wc_read_completion_wallclock_ns  "RDMAVERBS_1.3" call    17;
                IbvWcReadCvlan                  ibv_wc_read_cvlan                    "RDMAVERBS_1.3" call    14;
                IbvWcReadFlowTag                ibv_wc_read_flow_tag                 "RDMAVERBS_1.3" call    14;
                IbvWcReadTmInfo                 ibv_wc_read_tm_info                  "RDMAVERBS_1.3" call    16;
                IbvPostWqRecv                   ibv_post_wq_recv                     "RDMAVERBS_1.3" call    13;
                IbvQueryPort                    ___ibv_query_port                    "RDMAVERBS_1.3" call    13;
                IbvQueryGidEx                   ibv_query_gid_ex                     "RDMAVERBS_1.3" call    32;
                IbvQueryGidTable                ibv_query_gid_table                  "RDMAVERBS_1.3" call    32;
                IbvCreateFlow                   ibv_create_flow                      "RDMAVERBS_1.3" call    13;
                IbvDestroyFlow                  ibv_destroy_flow                     "RDMAVERBS_1.3" call    13;
                IbvCreateFlowActionEsp          ibv_create_flow_action_esp           "RDMAVERBS_1.3" call    18;
                IbvModifyFlowActionEsp          ibv_modify_flow_action_esp           "RDMAVERBS_1.3" call    18;
                IbvDestroyFlowAction            ibv_destroy_flow_action              "RDMAVERBS_1.3" call    18;
                IbvOpenXrcd                     ibv_open_xrcd                        "RDMAVERBS_1.3" call    13;
                IbvCloseXrcd                    ibv_close_xrcd                       "RDMAVERBS_1.3" call    13;
                IbvRegMr                        __ibv_reg_mr                         "RDMAVERBS_1.3" call    28;
                IbvRegMrIova                    __ibv_reg_mr_iova                    "RDMAVERBS_1.3" call    28;
                IbvAllocMw                      ibv_alloc_mw                         "RDMAVERBS_1.3" call    13;
                IbvDeallocMw                    ibv_dealloc_mw                       "RDMAVERBS_1.3" call    13;
                IbvIncRkey                      ibv_inc_rkey                         "RDMAVERBS_1.3" call    13;
                IbvBindMw                       ibv_bind_mw                          "RDMAVERBS_1.3" call    13;
                IbvAdviseMr                     ibv_advise_mr                        "RDMAVERBS_1.3" call    22;
                IbvAllocDm                      ibv_alloc_dm                         "RDMAVERBS_1.3" call    18;
                IbvFreeDm                       ibv_free_dm                          "RDMAVERBS_1.3" call    18;
                IbvMemcpyToDm                   ibv_memcpy_to_dm                     "RDMAVERBS_1.3" call    18;
                IbvMemcpyFromDm                 ibv_memcpy_from_dm                   "RDMAVERBS_1.3" call    18;
                IbvAllocNullMr                  ibv_alloc_null_mr                    "RDMAVERBS_1.3" call    20;
                IbvRegDmMr                      ibv_reg_dm_mr                        "RDMAVERBS_1.3" call    18;
                IbvCreateCqEx                   ibv_create_cq_ex                     "RDMAVERBS_1.3" call    13;
                IbvPollCq                       ibv_poll_cq                          "RDMAVERBS_1.3" wrapped 13;
                IbvReqNotifyCq                  ibv_req_notify_cq                    "RDMAVERBS_1.3" wrapped 13;
                IbvModifyCq                     ibv_modify_cq                        "RDMAVERBS_1.3" call    16;
                IbvCreateSrqEx                  ibv_create_srq_ex                    "RDMAVERBS_1.3" call    13;
                IbvGetSrqNum                    ibv_get_srq_num                      "RDMAVERBS_1.3" call    13;
                IbvPostSrqRecv                  ibv_post_srq_recv                    "RDMAVERBS_1.3" wrapped 13;
                IbvPostSrqOps                   ibv_post_srq_ops                     "RDMAVERBS_1.3" call    16;
                IbvCreateQpEx                   ibv_create_qp_ex                     "RDMAVERBS_1.3" call    13;
                IbvAllocTd                      ibv_alloc_td                         "RDMAVERBS_1.3" call    17;
                IbvDeallocTd                    ibv_dealloc_td                       "RDMAVERBS_1.3" call    17;
                IbvAllocParentDomain            ibv_alloc_parent_domain              "RDMAVERBS_1.3" call    17;
                IbvQueryRtValuesEx              ibv_query_rt_values_ex               "RDMAVERBS_1.3" call    13;
                IbvQueryDeviceEx                ibv_query_device_ex                  "RDMAVERBS_1.3" call    13;
                IbvOpenQp                       ibv_open_qp                          "RDMAVERBS_1.3" call    13;
                IbvModifyQpRateLimit            ibv_modify_qp_rate_limit             "RDMAVERBS_1.3" call    18;
                IbvCreateWq                     ibv_create_wq                        "RDMAVERBS_1.3" call    13;
                IbvModifyWq                     ibv_modify_wq                        "RDMAVERBS_1.3" call    13;
                IbvDestroyWq                    ibv_destroy_wq                       "RDMAVERBS_1.3" call    13;
                IbvCreateRwqIndTable            ibv_create_rwq_ind_table             "RDMAVERBS_1.3" call    13;
                IbvDestroyRwqIndTable           ibv_destroy_rwq_ind_table            "RDMAVERBS_1.3" call    13;
                IbvPostSend                     ibv_post_send                        "RDMAVERBS_1.3" wrapped 13;
                IbvPostRecv                     ibv_post_recv                        "RDMAVERBS_1.3" wrapped 13;
                IbvIsQptSupported               ibv_is_qpt_supported                 "RDMAVERBS_1.3" call    13;
                IbvCreateCounters               ibv_create_counters                  "RDMAVERBS_1.3" call    19;
                IbvDestroyCounters              ibv_destroy_counters                 "RDMAVERBS_1.3" call    19;
                IbvAttachCountersPointFlow      ibv_attach_counters_point_flow       "RDMAVERBS_1.3" call    19;
                IbvReadCounters                 ibv_read_counters                    "RDMAVERBS_1.3" call    19;
                IbvFlowLabelToUdpSport          ibv_flow_label_to_udp_sport          "RDMAVERBS_1.3" call    29;
                IbvWrFlush                      ibv_wr_flush                         "RDMAVERBS_1.4" call    45;
                IbvQueryCompCntrCaps            ibv_query_comp_cntr_caps             "RDMAVERBS_1.4" call    65;
            }
            interposed {
                ibv_open_device     "IBVERBS_1.1";
                ibv_close_device    "IBVERBS_1.1";
                ibv_destroy_qp      "IBVERBS_1.1";
                ibv_destroy_cq      "IBVERBS_1.1";
            }
        }
    };
}

/// Each node of the table with the system header whose `static inline`
/// functions its rows are (`-`: rdmaverbs' own API) and the header of this
/// library that declares them (`-`: none, since the system header defines
/// them under the same names: they are reached by their version). The build
/// script checks each row the build has against where it found its
/// original.
pub const NODES: &[(&str, &str, &str)] = &[
    ("RDMAVERBS_1.0", "rdma/rdma_verbs.h", "rdma/rdma_verbs.h"),
    ("RDMAVERBS_1.1", "-", "rdmaverbs.h"),
    ("RDMAVERBS_1.2", "rdma/rdma_cma.h", "-"),
    ("RDMAVERBS_1.3", "infiniband/verbs.h", "-"),
    ("RDMAVERBS_1.4", "infiniband/verbs.h", "-"),
];

/// The changes of an original's behaviour, each with the rdma-core release
/// that made it: a build against an older header keeps the older
/// behaviour, as the inline original compiled from that header does. The
/// build script sets the cfg `rdma_core_N` for each release N of the list
/// that the headers' release reaches (pkg-config's libibverbs version).
pub const CHANGES: &[(&str, u32, &str)] = &[(
    "ibv_bind_mw",
    39,
    "checks the bind itself: EINVAL for an address or a length without an MR, \
     EPERM for an MR of another PD (before: the provider's checks only)",
)];

/// The `static inline` functions of `<infiniband/verbs.h>` that are not
/// exported: `verbs_get_ctx`, the container-of helper that hands out
/// libibverbs' private `struct verbs_context`, and `__ibv_get_device_list`,
/// which exists only for static links. Every other `static inline` function
/// of the headers a build compiles against is a row of the table (the build
/// script lists those that are not, and a unit test fails on them).
pub const NOT_EXPORTED: &[&str] = &["verbs_get_ctx", "__ibv_get_device_list"];

//! The one list of every function the library knows by name: the exports,
//! each with its symbol version node, whether it may block, and whether the
//! preload library also wraps the provider op it calls.
//!
//! Everything else that lists them is derived from [`function_table!`]: the
//! [`Func`] enum, the names, the counters and "may block" flags here; the
//! version scripts, the C tests' X-macro list (`c-tests/functions.h`) and the
//! Debian symbols file, which `make header` generates and the unit tests
//! (the top crate's `src/tests/generated.rs`) check. A count is `Func::COUNT`, never a literal.

/// Calls the macro `$m` with the table (exported at the crate's root, so
/// that each layer derives its own uses of it: the exports' existence
/// check, the probe sites, the interposed functions). Rows are
/// `Variant name "NODE" kind;` for the exports, in the order of their
/// headers (`<rdma/rdma_verbs.h>`'s 16, then the later nodes; the
/// `static inline` functions of `<infiniband/verbs.h>` at `RDMAVERBS_1.3`, in
/// its order), where `kind` is `call`, `blocks` (a call may wait for a
/// completion event: the counters' "blocked" column) or `wrapped` (the
/// preload library also wraps the provider's op that the function calls, and
/// records a program's inline calls of it under this row); and
/// `name "NODE";` for the libibverbs functions that the preload library
/// interposes, at libibverbs' own version.
///
/// Left out of `RDMAVERBS_1.3` (rdmaverbs(7) says why): `verbs_get_ctx`, the
/// container-of helper that hands out libibverbs' private `struct
/// verbs_context`, and `__ibv_get_device_list`, which exists only for
/// static links; and the four names that are macros over real libibverbs
/// symbols (`ibv_query_port`, `ibv_reg_mr`, `ibv_reg_mr_iova`,
/// `ibv_get_device_list`), whose inline targets are exported instead.
#[macro_export]
macro_rules! function_table {
    ($m:ident) => {
        $m! {
            exports {
                SetErrno                        rdma_seterrno                        "RDMAVERBS_1.0" call;
                RegMsgs                         rdma_reg_msgs                        "RDMAVERBS_1.0" call;
                RegRead                         rdma_reg_read                        "RDMAVERBS_1.0" call;
                RegWrite                        rdma_reg_write                       "RDMAVERBS_1.0" call;
                DeregMr                         rdma_dereg_mr                        "RDMAVERBS_1.0" call;
                PostRecvv                       rdma_post_recvv                      "RDMAVERBS_1.0" call;
                PostSendv                       rdma_post_sendv                      "RDMAVERBS_1.0" call;
                PostReadv                       rdma_post_readv                      "RDMAVERBS_1.0" call;
                PostWritev                      rdma_post_writev                     "RDMAVERBS_1.0" call;
                PostRecv                        rdma_post_recv                       "RDMAVERBS_1.0" call;
                PostSend                        rdma_post_send                       "RDMAVERBS_1.0" call;
                PostRead                        rdma_post_read                       "RDMAVERBS_1.0" call;
                PostWrite                       rdma_post_write                      "RDMAVERBS_1.0" call;
                PostUdSend                      rdma_post_ud_send                    "RDMAVERBS_1.0" call;
                GetSendComp                     rdma_get_send_comp                   "RDMAVERBS_1.0" blocks;
                GetRecvComp                     rdma_get_recv_comp                   "RDMAVERBS_1.0" blocks;
                GetSendCompTimeout              rdma_get_send_comp_timeout           "RDMAVERBS_1.1" blocks;
                GetRecvCompTimeout              rdma_get_recv_comp_timeout           "RDMAVERBS_1.1" blocks;
                GetLocalAddr                    rdma_get_local_addr                  "RDMAVERBS_1.2" call;
                GetPeerAddr                     rdma_get_peer_addr                   "RDMAVERBS_1.2" call;
                IbvWrAtomicCmpSwp               ibv_wr_atomic_cmp_swp                "RDMAVERBS_1.3" call;
                IbvWrAtomicFetchAdd             ibv_wr_atomic_fetch_add              "RDMAVERBS_1.3" call;
                IbvWrBindMw                     ibv_wr_bind_mw                       "RDMAVERBS_1.3" call;
                IbvWrLocalInv                   ibv_wr_local_inv                     "RDMAVERBS_1.3" call;
                IbvWrRdmaRead                   ibv_wr_rdma_read                     "RDMAVERBS_1.3" wrapped;
                IbvWrRdmaWrite                  ibv_wr_rdma_write                    "RDMAVERBS_1.3" wrapped;
                IbvWrRdmaWriteImm               ibv_wr_rdma_write_imm                "RDMAVERBS_1.3" wrapped;
                IbvWrSend                       ibv_wr_send                          "RDMAVERBS_1.3" wrapped;
                IbvWrSendImm                    ibv_wr_send_imm                      "RDMAVERBS_1.3" wrapped;
                IbvWrSendInv                    ibv_wr_send_inv                      "RDMAVERBS_1.3" call;
                IbvWrSendTso                    ibv_wr_send_tso                      "RDMAVERBS_1.3" call;
                IbvWrSetUdAddr                  ibv_wr_set_ud_addr                   "RDMAVERBS_1.3" call;
                IbvWrSetXrcSrqn                 ibv_wr_set_xrc_srqn                  "RDMAVERBS_1.3" call;
                IbvWrSetInlineData              ibv_wr_set_inline_data               "RDMAVERBS_1.3" wrapped;
                IbvWrSetInlineDataList          ibv_wr_set_inline_data_list          "RDMAVERBS_1.3" call;
                IbvWrSetSge                     ibv_wr_set_sge                       "RDMAVERBS_1.3" wrapped;
                IbvWrSetSgeList                 ibv_wr_set_sge_list                  "RDMAVERBS_1.3" wrapped;
                IbvWrStart                      ibv_wr_start                         "RDMAVERBS_1.3" wrapped;
                IbvWrComplete                   ibv_wr_complete                      "RDMAVERBS_1.3" wrapped;
                IbvWrAbort                      ibv_wr_abort                         "RDMAVERBS_1.3" wrapped;
                IbvWrAtomicWrite                ibv_wr_atomic_write                  "RDMAVERBS_1.3" call;
                IbvCqExToCq                     ibv_cq_ex_to_cq                      "RDMAVERBS_1.3" call;
                IbvStartPoll                    ibv_start_poll                       "RDMAVERBS_1.3" wrapped;
                IbvNextPoll                     ibv_next_poll                        "RDMAVERBS_1.3" wrapped;
                IbvEndPoll                      ibv_end_poll                         "RDMAVERBS_1.3" wrapped;
                IbvWcReadOpcode                 ibv_wc_read_opcode                   "RDMAVERBS_1.3" call;
                IbvWcReadVendorErr              ibv_wc_read_vendor_err               "RDMAVERBS_1.3" call;
                IbvWcReadByteLen                ibv_wc_read_byte_len                 "RDMAVERBS_1.3" call;
                IbvWcReadImmData                ibv_wc_read_imm_data                 "RDMAVERBS_1.3" call;
                IbvWcReadInvalidatedRkey        ibv_wc_read_invalidated_rkey         "RDMAVERBS_1.3" call;
                IbvWcReadQpNum                  ibv_wc_read_qp_num                   "RDMAVERBS_1.3" call;
                IbvWcReadSrcQp                  ibv_wc_read_src_qp                   "RDMAVERBS_1.3" call;
                IbvWcReadWcFlags                ibv_wc_read_wc_flags                 "RDMAVERBS_1.3" call;
                IbvWcReadSlid                   ibv_wc_read_slid                     "RDMAVERBS_1.3" call;
                IbvWcReadSl                     ibv_wc_read_sl                       "RDMAVERBS_1.3" call;
                IbvWcReadDlidPathBits           ibv_wc_read_dlid_path_bits           "RDMAVERBS_1.3" call;
                IbvWcReadCompletionTs           ibv_wc_read_completion_ts            "RDMAVERBS_1.3" call;
                IbvWcReadCompletionWallclockNs  ibv_wc_read_completion_wallclock_ns  "RDMAVERBS_1.3" call;
                IbvWcReadCvlan                  ibv_wc_read_cvlan                    "RDMAVERBS_1.3" call;
                IbvWcReadFlowTag                ibv_wc_read_flow_tag                 "RDMAVERBS_1.3" call;
                IbvWcReadTmInfo                 ibv_wc_read_tm_info                  "RDMAVERBS_1.3" call;
                IbvPostWqRecv                   ibv_post_wq_recv                     "RDMAVERBS_1.3" call;
                IbvQueryPort                    ___ibv_query_port                    "RDMAVERBS_1.3" call;
                IbvQueryGidEx                   ibv_query_gid_ex                     "RDMAVERBS_1.3" call;
                IbvQueryGidTable                ibv_query_gid_table                  "RDMAVERBS_1.3" call;
                IbvCreateFlow                   ibv_create_flow                      "RDMAVERBS_1.3" call;
                IbvDestroyFlow                  ibv_destroy_flow                     "RDMAVERBS_1.3" call;
                IbvCreateFlowActionEsp          ibv_create_flow_action_esp           "RDMAVERBS_1.3" call;
                IbvModifyFlowActionEsp          ibv_modify_flow_action_esp           "RDMAVERBS_1.3" call;
                IbvDestroyFlowAction            ibv_destroy_flow_action              "RDMAVERBS_1.3" call;
                IbvOpenXrcd                     ibv_open_xrcd                        "RDMAVERBS_1.3" call;
                IbvCloseXrcd                    ibv_close_xrcd                       "RDMAVERBS_1.3" call;
                IbvRegMr                        __ibv_reg_mr                         "RDMAVERBS_1.3" call;
                IbvRegMrIova                    __ibv_reg_mr_iova                    "RDMAVERBS_1.3" call;
                IbvAllocMw                      ibv_alloc_mw                         "RDMAVERBS_1.3" call;
                IbvDeallocMw                    ibv_dealloc_mw                       "RDMAVERBS_1.3" call;
                IbvIncRkey                      ibv_inc_rkey                         "RDMAVERBS_1.3" call;
                IbvBindMw                       ibv_bind_mw                          "RDMAVERBS_1.3" call;
                IbvAdviseMr                     ibv_advise_mr                        "RDMAVERBS_1.3" call;
                IbvAllocDm                      ibv_alloc_dm                         "RDMAVERBS_1.3" call;
                IbvFreeDm                       ibv_free_dm                          "RDMAVERBS_1.3" call;
                IbvMemcpyToDm                   ibv_memcpy_to_dm                     "RDMAVERBS_1.3" call;
                IbvMemcpyFromDm                 ibv_memcpy_from_dm                   "RDMAVERBS_1.3" call;
                IbvAllocNullMr                  ibv_alloc_null_mr                    "RDMAVERBS_1.3" call;
                IbvRegDmMr                      ibv_reg_dm_mr                        "RDMAVERBS_1.3" call;
                IbvCreateCqEx                   ibv_create_cq_ex                     "RDMAVERBS_1.3" call;
                IbvPollCq                       ibv_poll_cq                          "RDMAVERBS_1.3" wrapped;
                IbvReqNotifyCq                  ibv_req_notify_cq                    "RDMAVERBS_1.3" wrapped;
                IbvModifyCq                     ibv_modify_cq                        "RDMAVERBS_1.3" call;
                IbvCreateSrqEx                  ibv_create_srq_ex                    "RDMAVERBS_1.3" call;
                IbvGetSrqNum                    ibv_get_srq_num                      "RDMAVERBS_1.3" call;
                IbvPostSrqRecv                  ibv_post_srq_recv                    "RDMAVERBS_1.3" wrapped;
                IbvPostSrqOps                   ibv_post_srq_ops                     "RDMAVERBS_1.3" call;
                IbvCreateQpEx                   ibv_create_qp_ex                     "RDMAVERBS_1.3" call;
                IbvAllocTd                      ibv_alloc_td                         "RDMAVERBS_1.3" call;
                IbvDeallocTd                    ibv_dealloc_td                       "RDMAVERBS_1.3" call;
                IbvAllocParentDomain            ibv_alloc_parent_domain              "RDMAVERBS_1.3" call;
                IbvQueryRtValuesEx              ibv_query_rt_values_ex               "RDMAVERBS_1.3" call;
                IbvQueryDeviceEx                ibv_query_device_ex                  "RDMAVERBS_1.3" call;
                IbvOpenQp                       ibv_open_qp                          "RDMAVERBS_1.3" call;
                IbvModifyQpRateLimit            ibv_modify_qp_rate_limit             "RDMAVERBS_1.3" call;
                IbvCreateWq                     ibv_create_wq                        "RDMAVERBS_1.3" call;
                IbvModifyWq                     ibv_modify_wq                        "RDMAVERBS_1.3" call;
                IbvDestroyWq                    ibv_destroy_wq                       "RDMAVERBS_1.3" call;
                IbvCreateRwqIndTable            ibv_create_rwq_ind_table             "RDMAVERBS_1.3" call;
                IbvDestroyRwqIndTable           ibv_destroy_rwq_ind_table            "RDMAVERBS_1.3" call;
                IbvPostSend                     ibv_post_send                        "RDMAVERBS_1.3" wrapped;
                IbvPostRecv                     ibv_post_recv                        "RDMAVERBS_1.3" wrapped;
                IbvIsQptSupported               ibv_is_qpt_supported                 "RDMAVERBS_1.3" call;
                IbvCreateCounters               ibv_create_counters                  "RDMAVERBS_1.3" call;
                IbvDestroyCounters              ibv_destroy_counters                 "RDMAVERBS_1.3" call;
                IbvAttachCountersPointFlow      ibv_attach_counters_point_flow       "RDMAVERBS_1.3" call;
                IbvReadCounters                 ibv_read_counters                    "RDMAVERBS_1.3" call;
                IbvFlowLabelToUdpSport          ibv_flow_label_to_udp_sport          "RDMAVERBS_1.3" call;
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

/// Version nodes that librdmaverbs.so.1 still defines, with no symbol in
/// them. 1.0.0 defined `ibv_open_device` and `ibv_close_device` at
/// `IBVERBS_1.1` (now in the preload library), so a program linked with it
/// and libibverbs may require that node of librdmaverbs.so.1; the node keeps
/// such programs loading, and their calls now resolve in libibverbs.
pub const RETIRED_NODES: &[&str] = &["IBVERBS_1.1"];

/// Version nodes whose functions no header of this library declares:
/// `<rdma/rdma_cma.h>` (1.2) and `<infiniband/verbs.h>` (1.3) define them
/// `static inline` under the same names, and every program that could call
/// them includes those headers, so a declaration would collide with the
/// definition. Programs reach them by their version (`dlvsym`, an FFI's
/// versioned look-up): each is defined at its node as a non-default
/// version (`ibv_post_send@RDMAVERBS_1.3`, one `@`), which no unversioned
/// reference or `dlsym` binds, so that the linked library interposes none
/// of these names on another object of the process that defines or calls
/// its own (the exports' `.symver` lines, `src/api/symver.rs`). The same
/// list as [`by_version_only!`](crate::by_version_only)'s, which a test
/// compares.
pub const UNDECLARED_NODES: &[&str] = &["RDMAVERBS_1.2", "RDMAVERBS_1.3"];

/// The tokens of `{ yes }` for a node of [`UNDECLARED_NODES`], those of
/// `{ no }` for any other: the same answer where a macro needs it while it
/// expands (a `.symver` line), from a node given as a token tree.
#[macro_export]
macro_rules! by_version_only {
    ("RDMAVERBS_1.2", { $($yes:tt)* }, { $($no:tt)* }) => {
        $($yes)*
    };
    ("RDMAVERBS_1.3", { $($yes:tt)* }, { $($no:tt)* }) => {
        $($yes)*
    };
    ($node:tt, { $($yes:tt)* }, { $($no:tt)* }) => {
        $($no)*
    };
}

/// Defines [`Func`] and its tables from [`function_table!`](crate::function_table).
macro_rules! define_func {
    (
        exports { $( $ev:ident $en:ident $node:literal $kind:ident; )* }
        interposed { $( $iname:ident $inode:literal; )* }
    ) => {
        /// One function of the table: an export (some of which the preload
        /// library also records as the provider ops a program calls inline).
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        #[repr(u8)]
        pub enum Func {
            $( #[doc = concat!("`", stringify!($en), "`")] $ev, )*
        }

        impl Func {
            /// Every function, in the table's order.
            pub const ALL: &'static [Func] = &[ $( Func::$ev, )* ];
            /// How many there are.
            pub const COUNT: usize = Self::ALL.len();
            /// The exports: every function of the table is one.
            pub const EXPORTS: &'static [Func] = Self::ALL;
            const NAMES: &'static [&'static str] = &[ $( stringify!($en), )* ];
            const NODES: &'static [&'static str] = &[ $( $node, )* ];
            const BLOCKS: &'static [bool] = &[ $( kind!(blocks $kind), )* ];
            const WRAPPED: &'static [bool] = &[ $( kind!(wrapped $kind), )* ];

            /// The C name.
            pub const fn name(self) -> &'static str {
                Self::NAMES[self as usize]
            }

            /// The symbol version node.
            pub const fn node(self) -> &'static str {
                Self::NODES[self as usize]
            }

            /// The libibverbs functions the preload library interposes, with
            /// their version nodes.
            pub const INTERPOSED: &'static [(&'static str, &'static str)] =
                &[ $( (stringify!($iname), $inode), )* ];

            /// Whether a call may wait for a completion event (the counters'
            /// "blocked" column).
            pub const fn may_block(self) -> bool {
                Self::BLOCKS[self as usize]
            }

            /// Whether the preload library wraps the provider's op of this
            /// name, and records a program's inline calls of it as calls of
            /// this function.
            pub const fn wrapped(self) -> bool {
                Self::WRAPPED[self as usize]
            }
        }
    };
}

/// Whether a row's kind is the one named first.
macro_rules! kind {
    (blocks blocks) => {
        true
    };
    (wrapped wrapped) => {
        true
    };
    ($want:ident $kind:ident) => {
        false
    };
}
crate::function_table!(define_func);

#[cfg(test)]
mod tests {
    use super::Func;

    /// [`by_version_only!`](crate::by_version_only) and
    /// [`UNDECLARED_NODES`](super::UNDECLARED_NODES) name the same nodes.
    #[test]
    fn by_version_only_is_undeclared_nodes() {
        macro_rules! check {
            (exports { $( $ev:ident $en:ident $node:tt $kind:ident; )* } $($rest:tt)*) => {
                $(
                    assert_eq!(
                        crate::by_version_only!($node, { true }, { false }),
                        super::UNDECLARED_NODES.contains(&$node),
                        "{}",
                        stringify!($en)
                    );
                )*
            };
        }
        crate::function_table!(check);
        assert!(
            super::UNDECLARED_NODES
                .iter()
                .all(|n| Func::ALL.iter().any(|f| f.node() == *n))
        );
    }

    #[test]
    fn names_and_flags() {
        assert_eq!(Func::SetErrno.name(), "rdma_seterrno");
        assert_eq!(Func::GetRecvComp.name(), "rdma_get_recv_comp");
        assert_eq!(Func::IbvPollCq.name(), "ibv_poll_cq");
        assert_eq!(Func::IbvQueryPort.name(), "___ibv_query_port");
        assert_eq!(Func::PostSend.node(), "RDMAVERBS_1.0");
        assert_eq!(Func::IbvPostSend.node(), "RDMAVERBS_1.3");
        assert!(Func::GetSendComp.may_block() && !Func::PostSend.may_block());
        assert!(!Func::IbvPollCq.may_block());
        assert!(Func::IbvPollCq.wrapped() && Func::IbvWrStart.wrapped());
        assert!(!Func::PostSend.wrapped() && !Func::IbvWrAtomicCmpSwp.wrapped());
        assert_eq!(Func::ALL.iter().filter(|f| f.wrapped()).count(), 19);
        assert_eq!(Func::COUNT, 20 + 94);
        for (i, f) in Func::ALL.iter().enumerate() {
            assert_eq!(*f as usize, i);
        }
    }
}

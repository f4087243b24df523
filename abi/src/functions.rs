//! The one list of every function the library knows by name: the exports
//! (each with its symbol version node, and whether it may block) and the
//! provider ops that the preload library wraps.
//!
//! Everything else that lists them is derived from [`function_table!`]: the
//! [`Func`] enum, the names, the counters and "may block" flags here; the
//! version scripts, the C tests' X-macro list (`c-tests/functions.h`) and the
//! Debian symbols file, which `make header` generates and the unit tests
//! (the top crate's `src/tests/generated.rs`) check. A count is `Func::COUNT`, never a literal.

/// Calls the macro `$m` with the table (exported at the crate's root, so
/// that each layer derives its own uses of it: the exports' existence
/// check, the probe sites, the interposed functions). Rows are
/// `Variant name "NODE" may_block;` for the exports, in the order of the
/// header (`<rdma/rdma_verbs.h>`'s 16, then the later nodes);
/// `Variant name;` for the wrapped provider ops (named as the call the
/// program makes); and `name "NODE";` for the libibverbs functions that the
/// preload library interposes, at libibverbs' own version.
#[macro_export]
macro_rules! function_table {
    ($m:ident) => {
        $m! {
            exports {
                SetErrno            rdma_seterrno               "RDMAVERBS_1.0" false;
                RegMsgs             rdma_reg_msgs               "RDMAVERBS_1.0" false;
                RegRead             rdma_reg_read               "RDMAVERBS_1.0" false;
                RegWrite            rdma_reg_write              "RDMAVERBS_1.0" false;
                DeregMr             rdma_dereg_mr               "RDMAVERBS_1.0" false;
                PostRecvv           rdma_post_recvv             "RDMAVERBS_1.0" false;
                PostSendv           rdma_post_sendv             "RDMAVERBS_1.0" false;
                PostReadv           rdma_post_readv             "RDMAVERBS_1.0" false;
                PostWritev          rdma_post_writev            "RDMAVERBS_1.0" false;
                PostRecv            rdma_post_recv              "RDMAVERBS_1.0" false;
                PostSend            rdma_post_send              "RDMAVERBS_1.0" false;
                PostRead            rdma_post_read              "RDMAVERBS_1.0" false;
                PostWrite           rdma_post_write             "RDMAVERBS_1.0" false;
                PostUdSend          rdma_post_ud_send           "RDMAVERBS_1.0" false;
                GetSendComp         rdma_get_send_comp          "RDMAVERBS_1.0" true;
                GetRecvComp         rdma_get_recv_comp          "RDMAVERBS_1.0" true;
                GetSendCompTimeout  rdma_get_send_comp_timeout  "RDMAVERBS_1.1" true;
                GetRecvCompTimeout  rdma_get_recv_comp_timeout  "RDMAVERBS_1.1" true;
                GetLocalAddr        rdma_get_local_addr         "RDMAVERBS_1.2" false;
                GetPeerAddr         rdma_get_peer_addr          "RDMAVERBS_1.2" false;
            }
            ops {
                OpPostSend          ibv_post_send;
                OpPostRecv          ibv_post_recv;
                OpPostSrqRecv       ibv_post_srq_recv;
                OpPollCq            ibv_poll_cq;
                OpReqNotifyCq       ibv_req_notify_cq;
                OpWrStart           ibv_wr_start;
                OpWrSend            ibv_wr_send;
                OpWrSendImm         ibv_wr_send_imm;
                OpWrRdmaWrite       ibv_wr_rdma_write;
                OpWrRdmaWriteImm    ibv_wr_rdma_write_imm;
                OpWrRdmaRead        ibv_wr_rdma_read;
                OpWrSetSge          ibv_wr_set_sge;
                OpWrSetSgeList      ibv_wr_set_sge_list;
                OpWrSetInlineData   ibv_wr_set_inline_data;
                OpWrComplete        ibv_wr_complete;
                OpWrAbort           ibv_wr_abort;
                OpStartPoll         ibv_start_poll;
                OpNextPoll          ibv_next_poll;
                OpEndPoll           ibv_end_poll;
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
/// `<rdma/rdma_cma.h>` defines them `static inline` under the same names, so
/// a declaration would collide with it. Programs reach them by name (an
/// FFI, `dlsym`).
pub const UNDECLARED_NODES: &[&str] = &["RDMAVERBS_1.2"];

/// Defines [`Func`] and its tables from [`function_table!`](crate::function_table).
macro_rules! define_func {
    (
        exports { $( $ev:ident $en:ident $node:literal $blocks:literal; )* }
        ops { $( $ov:ident $on:ident; )* }
        interposed { $( $iname:ident $inode:literal; )* }
    ) => {
        /// One function of the table: an export, or a wrapped provider op.
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        #[repr(u8)]
        pub enum Func {
            $( #[doc = concat!("`", stringify!($en), "`")] $ev, )*
            $( #[doc = concat!("`", stringify!($on), "` (a wrapped provider op)")] $ov, )*
        }

        impl Func {
            /// Every function, in the table's order.
            pub const ALL: &'static [Func] = &[ $( Func::$ev, )* $( Func::$ov, )* ];
            /// How many there are.
            pub const COUNT: usize = Self::ALL.len();
            /// The exports alone.
            pub const EXPORTS: &'static [Func] = &[ $( Func::$ev, )* ];
            const NAMES: &'static [&'static str] =
                &[ $( stringify!($en), )* $( stringify!($on), )* ];
            const NODES: &'static [&'static str] = &[ $( $node, )* ];
            const BLOCKS: &'static [bool] = &[ $( $blocks, )* ];

            /// The C name.
            pub const fn name(self) -> &'static str {
                Self::NAMES[self as usize]
            }

            /// The symbol version node of an export; `None` for a provider op.
            pub const fn node(self) -> Option<&'static str> {
                let i = self as usize;
                if i < Self::NODES.len() { Some(Self::NODES[i]) } else { None }
            }

            /// The libibverbs functions the preload library interposes, with
            /// their version nodes.
            pub const INTERPOSED: &'static [(&'static str, &'static str)] =
                &[ $( (stringify!($iname), $inode), )* ];

            /// Whether a call may wait for a completion event (the counters'
            /// "blocked" column).
            pub const fn may_block(self) -> bool {
                let i = self as usize;
                i < Self::BLOCKS.len() && Self::BLOCKS[i]
            }
        }

    };
}
crate::function_table!(define_func);

#[cfg(test)]
mod tests {
    use super::Func;

    #[test]
    fn names_and_flags() {
        assert_eq!(Func::SetErrno.name(), "rdma_seterrno");
        assert_eq!(Func::GetRecvComp.name(), "rdma_get_recv_comp");
        assert_eq!(Func::OpPollCq.name(), "ibv_poll_cq");
        assert_eq!(Func::PostSend.node(), Some("RDMAVERBS_1.0"));
        assert_eq!(Func::OpPostSend.node(), None);
        assert!(Func::GetSendComp.may_block() && !Func::PostSend.may_block());
        assert!(!Func::OpPollCq.may_block());
        for (i, f) in Func::ALL.iter().enumerate() {
            assert_eq!(*f as usize, i);
        }
    }
}

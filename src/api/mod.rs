//! The exports: the functions of `<rdma/rdma_verbs.h>`, one module per area
//! ([`errno`], [`registration`], [`post`], [`completion`]), the address
//! accessors of `<rdma/rdma_cma.h>` ([`address`]), and the static inline
//! functions of `<infiniband/verbs.h>` (`RDMAVERBS_1.3`, [`verbs`], one
//! module per object).
//!
//! Every export has the same shape, given by [`export`]: its fast path is
//! its body, behind one compare of a pointer argument with the observer's
//! gate; when the pointer is NULL or calls are watched, the export goes to
//! its cold path, which runs the same body (or refuses the NULL) and then
//! hands the observer what happened. The observer is consulted, never calls
//! back.

// In the order of the original header (and so of the generated one).
mod export;
pub mod errno;
pub mod registration;
pub mod post;
mod request;
pub mod completion;
mod wait;
pub mod address;
pub mod verbs;
mod symver;

pub use address::{rdma_get_local_addr, rdma_get_peer_addr};
pub use completion::{
    rdma_get_recv_comp, rdma_get_recv_comp_timeout, rdma_get_send_comp, rdma_get_send_comp_timeout,
};
pub use errno::rdma_seterrno;
pub use post::{
    rdma_post_read, rdma_post_readv, rdma_post_recv, rdma_post_recvv, rdma_post_send,
    rdma_post_sendv, rdma_post_ud_send, rdma_post_write, rdma_post_writev,
};
pub use registration::{rdma_dereg_mr, rdma_reg_msgs, rdma_reg_read, rdma_reg_write};
pub use verbs::*;

use rdmaverbs_abi::{function_table, functions::Func};

/// Every export of the table is a function defined here (a compile error
/// otherwise); `make test-symbols` checks the converse on the library.
macro_rules! check_exports {
    (exports { $( $v:ident $name:ident $node:literal $kind:ident $since:tt; )* } $($rest:tt)*) => {
        #[allow(dead_code)]
        fn exports_exist() -> [*const (); Func::EXPORTS.len()] {
            [ $( #[cfg($name)] { $name as *const () }, )* ]
        }
    };
}
function_table!(check_exports);

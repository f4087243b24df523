//! The `static inline` functions of the `<infiniband/verbs.h>` the build
//! compiles against, exported under their own names at the node that
//! `abi/src/table.rs` gives each (`RDMAVERBS_1.3` or `RDMAVERBS_1.4`, by
//! the release that brought it): each does
//! what the inline original compiled from the system header does (the same
//! provider op or libibverbs call with the same arguments, the same result,
//! `errno` and bytes written; `c-tests/verbs/verbs.c` compares them), and
//! refuses a NULL object, list or output the original would crash on with
//! its own error convention and no provider call (rdmaverbs(7), "The
//! functions of verbs.h").
//!
//! No header of this library declares them: `<infiniband/verbs.h>`, which
//! every program that could call them includes, defines them inline under
//! the same names. Programs that cannot inline (an FFI) and C programs that
//! want ours take them by name, with `dlvsym(..., "RDMAVERBS_1.3")`.
//!
//! By area, in the header's words: [`post`] the work requests of the
//! classic API; [`cq`] completion queues and the extended CQ's polling;
//! [`wc_read`] the extended CQ's readers; [`qp_ex`] the extended QP's work
//! requests, [`wr_set`] its batch and a work request's settings; [`device`] queries and domains; [`memory`] registrations, memory
//! windows and device memory; [`queue`] SRQs, QPs and work queues;
//! [`flow`] flow steering and counters.

pub mod cq;
pub mod device;
pub mod flow;
pub mod memory;
pub mod post;
pub mod qp_ex;
pub mod queue;
pub mod wc_read;
pub mod wr_set;

pub use cq::*;
pub use device::*;
pub use flow::*;
pub use memory::*;
pub use post::*;
pub use qp_ex::*;
pub use queue::*;
pub use wc_read::*;
pub use wr_set::*;

use rdmaverbs_abi::sys::set_errno;
use rdmaverbs_abi::verbs::ibv_context;
use rdmaverbs_observe::Call;

/// NULL with `errno = EOPNOTSUPP`: the context has no such op (what the
/// originals answer).
#[cold]
#[inline(never)]
fn unsupported<T>() -> *mut T {
    set_errno(libc::EOPNOTSUPP);
    core::ptr::null_mut()
}

/// A device context as the observer shows it.
fn ctx(context: *mut ibv_context) -> Call {
    Call::Object {
        key: b" ctx=",
        obj: context.cast(),
    }
}

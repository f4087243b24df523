//! The address accessors of `<rdma/rdma_cma.h>`: `rdma_get_local_addr`
//! and `rdma_get_peer_addr` (version `RDMAVERBS_1.2`), `static inline`
//! there, like the functions of `<rdma/rdma_verbs.h>`.
//!
//! No header of this library declares them: `<rdma/rdma_cma.h>`, which every
//! program that has an id includes, defines them inline under these names,
//! and a declaration of ours would collide with its definition. They are
//! for programs that cannot inline (an FFI, `dlsym`), and for tracing.

use super::export::observed;
use rdmaverbs_abi::verbs::rdma_cm_id;
use rdmaverbs_observe::Call;

/// `libc::sockaddr`, as the original returns it.
pub use libc::sockaddr;

/// The id's local address; NULL with errno for a NULL id.
///
/// `rdma_get_local_addr()` returns `&id->route.addr.src_addr`, as the
/// original does: a pointer into the id, valid as long as the id.
///
/// # Safety
/// `id` is NULL (NULL, `EINVAL`) or points to a valid `rdma_cm_id`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_get_local_addr(id: *mut rdma_cm_id) -> *mut sockaddr {
    // SAFETY: `observed!` refuses a NULL `id`; a valid one has a route.
    observed!(GetLocalAddr, id, Call::Addr(id), unsafe {
        (&raw mut (*id).route.src_addr).cast()
    })
}

/// The id's peer address; NULL with errno for a NULL id.
///
/// `rdma_get_peer_addr()` returns `&id->route.addr.dst_addr`.
///
/// # Safety
/// As [`rdma_get_local_addr`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_get_peer_addr(id: *mut rdma_cm_id) -> *mut sockaddr {
    // SAFETY: as in `rdma_get_local_addr`.
    observed!(GetPeerAddr, id, Call::Addr(id), unsafe {
        (&raw mut (*id).route.dst_addr).cast()
    })
}

//! rdmaverbs-sys: the raw layer of the rdmaverbs crate. librdmacm's inline
//! `<rdma/rdma_verbs.h>` functions (and `rdma_get_local_addr`,
//! `rdma_get_peer_addr`, the bounded waits), the `static inline`
//! functions of `<infiniband/verbs.h>` (`RDMAVERBS_1.3`) and the librdmacm
//! and libibverbs calls that go with them, from Rust, linked with
//! `librdmaverbs.so.1` (found by pkg-config at build time, by the dynamic
//! loader at run time; `links = "rdmaverbs"`).
//!
//! Every function has its C name and C types, as an `unsafe fn` whose
//! failure (-1, or NULL) is an `Err(std::io::Error)` of the errno the call
//! left, read right after it; [`sys`] has the C functions themselves. The
//! structs (`ibv_sge`, `ibv_wc`, `rdma_addrinfo`, ...) and constants are in
//! `api.rs`, generated from the library's table of functions and checked
//! against the system headers (`cargo run --example layout`).
//!
//! No rdma-core build: the crate declares what it calls, as the C header
//! does, and links the installed libraries. The safe crate over it,
//! `rdmaverbs` (objects that close themselves, posted buffers held until
//! their completion), re-exports it as `rdmaverbs::raw`.

#![allow(clippy::missing_safety_doc, clippy::too_many_arguments)]

#[rustfmt::skip]
mod api;
pub use api::*;

use core::ffi::{c_char, c_void, CStr};
use std::io;
use std::sync::OnceLock;

extern "C" {
    fn dlvsym(handle: *mut c_void, name: *const c_char, version: *const c_char) -> *mut c_void;
}
// glibc before 2.34 (Debian 11) keeps dlvsym in libdl.
#[link(name = "dl")]
extern "C" {}

/// The address of `name@version`, a function of librdmaverbs that rdma-core
/// release `since` brought, in the process (the library is linked), looked
/// up once (`cache`); an `Err` (`ErrorKind::Unsupported`) saying so where
/// the library's build lacks it (its headers were older).
pub(crate) fn optional(
    cache: &OnceLock<usize>,
    name: &CStr,
    version: &CStr,
    since: u32,
) -> io::Result<*mut c_void> {
    const RTLD_DEFAULT: *mut c_void = core::ptr::null_mut();
    // SAFETY: NUL-terminated strings; RTLD_DEFAULT searches the process.
    let p = *cache.get_or_init(|| unsafe { dlvsym(RTLD_DEFAULT, name.as_ptr(), version.as_ptr()) } as usize);
    if p != 0 {
        return Ok(p as *mut c_void);
    }
    let name = name.to_string_lossy();
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        format!(
            "{name} is not in librdmaverbs.so.1: it came with rdma-core {since}, and this build of \
             rdmaverbs was made against an older rdma-core's headers (rebuild it against rdma-core \
             {since} or later)"
        ),
    ))
}

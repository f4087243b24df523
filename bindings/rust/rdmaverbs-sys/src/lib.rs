//! rdmaverbs-sys: the raw layer of the rdmaverbs crate. librdmacm's inline
//! `<rdma/rdma_verbs.h>` functions (and `rdma_get_local_addr`,
//! `rdma_get_peer_addr`, the bounded waits), the 94 `static inline`
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

//! rdmaverbs: the sixteen `static inline` functions of librdmacm's
//! `<rdma/rdma_verbs.h>` (and the address functions of `<rdma/rdma_cma.h>`,
//! and those of libibverbs' `<infiniband/verbs.h>`) as real, exported C
//! symbols, and the preload library that watches programs that were never
//! rebuilt.
//!
//! Every function here does what the inline original does, in the same order,
//! with the same work request, return value and `errno` (the differential
//! tests, `c-tests/rdma/differential/differential.c` and
//! `c-tests/verbs/verbs.c`, compare each with the original compiled from the
//! system header;
//! `docs/deviations.md` lists where bad input gets an error instead of the
//! original's crash). The posting and polling paths allocate nothing, take
//! no lock and keep no global state.
//!
//! # Safety
//!
//! Every exported function is `unsafe extern "C"`: it is called from C with
//! raw pointers. The contract is the original's: every pointer argument is
//! valid for what the original does with it (an `rdma_cm_id` made by
//! librdmacm, an `sgl` of `nsge` entries, a `wc` to write one completion to),
//! and `mr` may be NULL exactly where the original allows it.
//!
//! # Layout
//!
//! This crate is the top of three (docs/design.md, "The house"):
//!
//! - [`api`]: the exports, one module per area of `<rdma/rdma_verbs.h>`
//!   (errno, registration, posting, completions, addresses), `verbs` the
//!   functions of `<infiniband/verbs.h>` (`RDMAVERBS_1.3`), one module per
//!   object, and `export`, the shape every export has. Built into both
//!   libraries.
//! - [`preload`]: the interposition and the wrapped provider ops, exported
//!   only by the preload library (`librdmaverbs-preload.so`); the linked
//!   library's link drops it.
//! - beneath them, `rdmaverbs-observe` (trace, counters, probes, the process
//!   events), consulted with what a call did and never calling back, and
//!   `rdmaverbs-abi` (the function table, the C types and dispatch, the
//!   system calls).
//!
//! The two libraries are the same static archive linked twice, with two
//! version scripts (`src/librdmaverbs.map`, `src/preload.map`).

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

// Nothing may unwind into C: the library is only ever built with
// `panic = "abort"` (tests excepted, which cargo always builds unwinding:
// the unit tests, and the build for the C tests of make mutants, feature
// "c-tests"; a panic there still cannot cross an `extern "C"` function,
// which aborts instead). The guard covers every crate of the archive: the
// profile is the workspace's.
#[cfg(all(panic = "unwind", not(test), not(feature = "c-tests")))]
compile_error!("rdmaverbs must be built with panic = \"abort\" (see Cargo.toml profiles)");

pub mod api;
pub mod preload;

#[cfg(test)]
mod tests;

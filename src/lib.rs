//! rdmaverbs: the sixteen `static inline` functions of librdmacm's
//! `<rdma/rdma_verbs.h>` as real, exported C symbols.
//!
//! Every function here does what the inline original does, in the same order,
//! with the same work request, return value and `errno`
//! (see `upstream-semantics.md` and the differential test in `c-tests/`).
//! The posting and polling paths allocate nothing, take no lock and keep no
//! global state.
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
//! Imports flow one way, top to bottom:
//!
//! - [`api`]: the exports, one module per area (errno, registration,
//!   posting, completions). Built into both libraries.
//! - [`preload`]: the interposition and the wrapped provider ops, exported
//!   only by the preload library (`librdmaverbs-preload.so`); the linked
//!   library's link drops it.
//! - [`observe`]: beside the data path, consulted by both of the above with
//!   what a call did: configuration, trace lines, counters.
//! - [`verbs`]: the C types and the provider dispatch that `verbs.h` inlines.
//! - [`functions`]: the one table of every function by name; `sys`: what
//!   glibc has that the `libc` crate does not declare.
//!
//! The two libraries are the same static archive linked twice, with two
//! version scripts (`src/librdmaverbs.map`, `src/preload.map`).

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

// Nothing may unwind into C: the library is only ever built with
// `panic = "abort"` (tests excepted, which cargo always builds unwinding:
// the unit tests, and the build for the C tests of make mutants, feature
// "c-tests"; a panic there still cannot cross an `extern "C"` function,
// which aborts instead).
#[cfg(all(panic = "unwind", not(test), not(feature = "c-tests")))]
compile_error!("rdmaverbs must be built with panic = \"abort\" (see Cargo.toml profiles)");

pub mod api;
pub mod functions;
mod observe;
pub mod preload;
mod sys;
pub mod verbs;

#[cfg(test)]
mod tests;

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
//! Module map: [`ffi`] (the C types and the provider dispatch that verbs.h
//! inlines), [`errno`], [`mr`] (memory registration), [`post`] (posting work
//! requests), [`comp`] (waiting for completions).

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

// Nothing may unwind into C: the library is only ever built with
// `panic = "abort"` (unit tests excepted, which cargo always builds unwinding).
#[cfg(all(panic = "unwind", not(test)))]
compile_error!("rdmaverbs must be built with panic = \"abort\" (see Cargo.toml profiles)");

pub mod comp;
mod config;
pub mod errno;
pub mod ffi;
pub mod interpose;
pub mod mr;
pub mod post;
mod watch;

#[cfg(test)]
mod tests;

//! The ground floor of rdmaverbs: what every layer above stands on, and
//! nothing that watches or exports.
//!
//! - [`functions`]: the one table of every function the library knows by
//!   name ([`function_table!`]), from which the `Func` enum, the version
//!   scripts, the headers' split, the C tests' list, the counters' rows,
//!   the probes and the bindings' declarations are all derived.
//! - [`verbs`]: the C types of `<infiniband/verbs.h>` and
//!   `<rdma/rdma_cma.h>` that the library reads or writes, and the provider
//!   dispatch that `verbs.h` inlines; every field is checked against the
//!   system headers by the unit tests.
//! - [`sys`]: the system calls and glibc functions the library makes, in
//!   the forms it uses them (`errno` kept and set, `fstat`, a thread's
//!   liveness, a clock).
//!
//! The crates above it: `rdmaverbs-observe` (trace, counters, probes), then
//! `rdmaverbs` (the exports and the preload library).

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

pub mod functions;
mod table;
pub mod sys;
pub mod verbs;

#[cfg(test)]
mod tests;

//! The observer of rdmaverbs: what the environment asks for, and every call
//! it is told of turned into counters, trace lines and probe firings.
//!
//! It sits beside the data path and below it: the exports and the preload
//! library (the crate `rdmaverbs`) consult it; it never calls them (a
//! dependency the other way is a compile error). An export's fast path only
//! compares one of its pointer arguments with the [`gate`]; when the gate
//! sends it to its cold path, the export runs its own body inside a
//! [`Scope`], then hands the observer what the call was ([`Call`]) and what
//! it returned ([`Returned`]). The preload library's wrapped ops do the same
//! with [`record_op`] and [`record_ex`]. Nothing here allocates or takes a
//! lock on the path of a call.
//!
//! To find a thing, read:
//!
//! | what | where |
//! |---|---|
//! | the gate word, its three views | `gate.rs` |
//! | `RDMAVERBS_*`, read once at load; `poll_spin` for the waits | `settings.rs` |
//! | load, unload, a fatal signal, a fork, and their order | `process.rs` |
//! | what the observer keeps per thread | `thread.rs` |
//! | a call becoming counts, lines and probes | `record/mod.rs` |
//! | an export's line and probe | `record/export.rs` |
//! | how an export's result shows (`ret=`) | `record/returned.rs` |
//! | a wrapped op's; the extended API's | `record/op.rs`, `record/extended.rs` |
//! | what several lines show (an id, a CQ, a completion, the opcodes' names) | `record/show.rs` |
//! | a line, its numbers | `trace/line.rs`, `trace/digits.rs` |
//! | a thread's buffer; the writer thread | `trace/buffers.rs`, `trace/writer_thread.rs` |
//! | the trace file's rules; no line across a page | `trace/file.rs`, `trace/append.rs` |
//! | the counters; their mapped file | `count/mod.rs`, `count/file.rs` |
//! | the USDT probes; the C tests' recorder of their firings | `probes/mod.rs`, `probes/recorder.rs` |

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

// Nothing may unwind into C (see the top crate's guard, which covers the
// whole archive).

mod count;
mod gate;
mod probes;
mod process;
mod record;
mod settings;
mod thread;
mod trace;

pub use gate::{gate, watching};
pub use process::PRELOAD_MARKER;
pub use record::export::{Call, Sges};
pub use record::extended::{ExOp, record_ex};
pub use record::op::{Op, record_op};
pub use record::returned::Status;
pub use record::{Returned, Scope, blocked};
pub use settings::poll_spin;
pub use trace::line::warn_line;

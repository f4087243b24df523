//! The observer: what the environment asks for ([`config`]), trace lines
//! ([`trace`]), counters ([`counters`]) and the provider ops' records
//! ([`ops`]).
//!
//! It sits beside the data path. An export's fast path only compares one of
//! its pointer arguments with the [`gate`]; when the gate sends it to its cold
//! path, the export runs its own body, then hands the observer what the call
//! was ([`Call`]) and what it returned ([`Scope::record`]). The preload
//! library's wrapped ops do the same with [`record_op`]. Nothing here calls
//! back into the exports or the ops, allocates, or takes a lock.

mod append;
mod buffer;
mod call;
mod config;
mod counters;
mod digits;
mod extended;
mod flusher;
mod fork;
mod line;
mod mine;
mod ops;
mod probes;
mod published;
mod say;
mod scope;
mod signals;
mod trace;
mod writer;

pub(crate) use call::{Call, Returned, Sges};
#[cfg(test)]
pub(crate) use config::PRELOAD_MARKER;
pub(crate) use config::{gate, poll_spin, watching};
pub(crate) use extended::{ExOp, record_ex};
pub(crate) use ops::{Op, record_op};
pub(crate) use say::warn_line;
pub(crate) use scope::{Scope, blocked};

#[cfg(test)]
pub(crate) use trace::STATUS;

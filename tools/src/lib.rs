//! What `rdmaverbs-trace` and `rdmaverbs-stat` share: reading the
//! counters files the library publishes ([`counts`]), and reading trace
//! lines ([`lines`], [`latency`], [`svg`]).

pub mod counts;
pub mod latency;
pub mod lines;
pub mod svg;

/// The version of the commands, as the library's.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

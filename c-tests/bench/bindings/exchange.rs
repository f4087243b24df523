//! What both bench programs' ping-pongs share (rust/ and peer/ include it
//! as `mod exchange`): c-tests/bench/pingpong.py's sizes, and how a program
//! fails.

/// A message's bytes (and a receive slot's).
pub const SIZE: usize = 64;
/// The queues' depth and the receive slots.
pub const DEPTH: usize = 16;
/// Round trips before the timed ones.
pub const WARMUP: usize = 100;

/// Prints `pingpong: WHAT` on stderr and exits 1.
pub fn fail(what: impl std::fmt::Display) -> ! {
    eprintln!("pingpong: {what}");
    std::process::exit(1)
}

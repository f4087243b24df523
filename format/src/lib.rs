//! What librdmaverbs and its commands (`rdmaverbs-stat`, `rdmaverbs-trace
//! -c`) must agree on: the layout of a process's counters file, and where
//! those files are. Nothing else is shared: the library writes, the
//! commands read, each with its own code.
//!
//! With `RDMAVERBS_STATS=1` a process keeps its counters in a file of its
//! own, mapped into it, named by its process id, in a directory of its user
//! ([`DIR_IN_RUNTIME`] under `$XDG_RUNTIME_DIR`, else
//! [`SHM_DIR_PREFIX`]`UID`): the directory `0700`, the file `0600`, both
//! owned by the user. The file is:
//!
//! - a header of [`HEADER_SIZE`] bytes: [`Header`] (256 bytes), then at
//!   [`NAMES_OFFSET`] one [`NAME_SIZE`]-byte entry per function: its name,
//!   NUL-padded, whose last byte is [`MAY_BLOCK`] for a function whose calls
//!   may wait for a completion event;
//! - [`BLOCKS`] blocks of [`block_size`] bytes, each a [`BLOCK_HEAD`] of
//!   which the first 8 bytes name its owner (0: free), then, per function,
//!   [`COLUMNS`] little-endian `u64` counters ([`CALLS`], [`BYTES`],
//!   [`ERRORS`], [`BLOCKED`]).
//!
//! Each of the first [`THREAD_BLOCKS`] blocks is written by one thread at a
//! time (no cache line written by two threads); the last is shared by the
//! threads that found none free (atomic adds). A process's counts are the
//! sums over all blocks. A reader may see a block change while it reads it:
//! each counter is one aligned 8-byte word, so it is never torn.
#![no_std]

/// The first 8 bytes of a counters file.
pub const MAGIC: [u8; 8] = *b"RDMAVSTA";
/// The layout's version; a reader refuses another. (2: names of 48 bytes,
/// a header of two pages, for the exports of `<infiniband/verbs.h>`, whose
/// longest name has 35 bytes.)
pub const VERSION: u32 = 2;
/// The header's size: two pages.
pub const HEADER_SIZE: usize = 8192;
/// Where the function names start in the header.
pub const NAMES_OFFSET: usize = 256;
/// Bytes per function name (NUL-padded; the last byte is its flags).
pub const NAME_SIZE: usize = 48;
/// The longest name an entry holds: all of it but its flags byte.
pub const NAME_LEN: usize = 47;
/// A function name's flag: its calls may wait for a completion event.
pub const MAY_BLOCK: u8 = 1;
/// Blocks a thread may have to itself.
pub const THREAD_BLOCKS: usize = 64;
/// All blocks: the threads' and the shared one (the last).
pub const BLOCKS: usize = THREAD_BLOCKS + 1;
/// Bytes before a block's counters: its owner (`u64`), its thread id
/// (`u32`), then nothing, to the end of a cache line.
pub const BLOCK_HEAD: usize = 64;
/// Counters per function.
pub const COLUMNS: usize = 4;
/// The columns: calls, bytes, errors, calls that waited for an event.
pub const CALLS: usize = 0;
pub const BYTES: usize = 1;
pub const ERRORS: usize = 2;
pub const BLOCKED: usize = 3;
/// The columns' names, as the tables print them.
pub const COLUMN_NAMES: [&str; COLUMNS] = ["calls", "bytes", "errors", "blocked"];

/// The directory of a user's counters files under `$XDG_RUNTIME_DIR`.
pub const DIR_IN_RUNTIME: &str = "rdmaverbs";
/// Without `$XDG_RUNTIME_DIR`: this, then the user's id.
pub const SHM_DIR_PREFIX: &str = "/dev/shm/rdmaverbs-";

/// The header's fixed part, at offset 0 (256 bytes, native byte order).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Header {
    /// [`MAGIC`].
    pub magic: [u8; 8],
    /// [`VERSION`].
    pub version: u32,
    /// [`HEADER_SIZE`].
    pub header_size: u32,
    /// The process's id.
    pub pid: u32,
    /// How many functions (rows) each block has.
    pub nfuncs: u32,
    /// How many blocks follow the header ([`BLOCKS`]).
    pub nblocks: u32,
    /// Bytes per block ([`block_size`]).
    pub block_size: u32,
    /// When the process started: field 22 of `/proc/PID/stat` (clock ticks
    /// since boot), so that a reader tells it from a later process that got
    /// the same id.
    pub start_ticks: u64,
    /// `CLOCK_MONOTONIC` (nanoseconds) when counting began.
    pub start_ns: u64,
    /// `RDMAVERBS_STATS_SESSION`, set by `rdmaverbs-trace -c` (0: none).
    pub session: u64,
    /// The process's name (`PR_GET_NAME`), NUL-padded.
    pub comm: [u8; 16],
    /// Zero.
    pub reserved: [u8; 184],
}

const _: () = assert!(core::mem::size_of::<Header>() == NAMES_OFFSET);

/// Bytes per block for `nfuncs` functions: whole cache lines.
pub const fn block_size(nfuncs: usize) -> usize {
    (BLOCK_HEAD + nfuncs * COLUMNS * 8).div_ceil(64) * 64
}

/// The size of a counters file for `nfuncs` functions.
pub const fn file_size(nfuncs: usize) -> usize {
    HEADER_SIZE + BLOCKS * block_size(nfuncs)
}

/// Where block `block` starts.
pub const fn block_offset(nfuncs: usize, block: usize) -> usize {
    HEADER_SIZE + block * block_size(nfuncs)
}

/// Where the counter `column` of function `func` of block `block` is.
pub const fn counter_offset(nfuncs: usize, block: usize, func: usize, column: usize) -> usize {
    block_offset(nfuncs, block) + BLOCK_HEAD + (func * COLUMNS + column) * 8
}

/// The most functions a header has room to name.
pub const MAX_FUNCS: usize = (HEADER_SIZE - NAMES_OFFSET) / NAME_SIZE;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout() {
        assert_eq!(block_size(39), 1344);
        assert_eq!(file_size(39), 8192 + 65 * 1344);
        assert_eq!(counter_offset(39, 0, 0, CALLS), 8192 + 64);
        assert_eq!(
            counter_offset(39, 1, 2, BLOCKED),
            8192 + 1344 + 64 + (2 * 4 + 3) * 8
        );
        assert_eq!(MAX_FUNCS, 165);
        assert_eq!(NAME_LEN, NAME_SIZE - 1);
        assert_eq!(block_size(39) % 64, 0);
    }
}

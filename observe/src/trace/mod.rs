//! `RDMAVERBS_TRACE`: trace lines, and getting them where they go.
//!
//! A line is built where it will be written from ([`line`]): in place at the
//! end of its thread's buffer when tracing to a file ([`buffers`]), else on
//! the stack and written at once to standard error. Buffers are written out
//! ([`write_out`]) by their own thread when full or old, by the writer
//! thread ([`writer_thread`]) once their oldest line has waited, and at
//! exit, fork and a fatal signal (`process.rs`); to the file by its rules
//! ([`file`]), laid out so that no line straddles a page of it
//! ([`append`]). Numbers are formatted by hand ([`digits`]).

pub(crate) mod append;
pub(crate) mod buffers;
pub(crate) mod digits;
pub(crate) mod file;
pub(crate) mod line;
pub(crate) mod writer_thread;

use core::ffi::CStr;

use rdmaverbs_abi::functions::Func;
use rdmaverbs_abi::sys::monotonic;

use line::{Line, write_all};

/// True when trace lines are written.
#[inline]
pub(crate) fn tracing() -> bool {
    file::current().is_some()
}

/// True when trace lines are written to a file (not to stderr).
pub(crate) fn to_a_file() -> bool {
    file::opened() && tracing()
}

/// Traces to standard error (at load).
pub(crate) fn to_stderr() {
    file::set_stderr();
}

/// Traces to the file `template` names (at load), opened by [`file`]'s
/// rules, its lines buffered; the reason when it cannot.
pub(crate) fn to_file(template: &CStr) -> Result<(), &'static str> {
    file::open(template)?;
    buffers::start();
    Ok(())
}

/// Adds one trace line of `f`, which `fill` completes: built in this
/// thread's buffer for a file, else on the stack and written at once.
#[inline]
pub(crate) fn line(f: Func, fill: impl FnOnce(&mut Line)) {
    if !tracing() {
        return;
    }
    if file::opened() {
        buffers::line(f, fill);
    } else {
        buffers::on_stack(f, &monotonic(), fill);
    }
}

/// Writes `bytes` (whole lines) to the trace: to standard error as they
/// are; to the file, appended by its rules.
pub(crate) fn write_out(bytes: &[u8]) {
    if file::opened() {
        file::append(bytes);
    } else if let Some(fd) = file::current() {
        write_all(fd, bytes);
    }
}

//! Lines written at once, each with one `write(2)`: warnings, the rows of
//! the exit table, trace lines on standard error. Built on the stack
//! (`line.rs`), so async-signal-safe.

use core::ffi::{CStr, c_int};

use super::digits::HEX;
use super::line::{Line, room};

/// Builds a line on the stack with `build` and writes it and a newline with
/// one `write(2)`.
pub(crate) fn write_line(fd: c_int, build: impl FnOnce(&mut Line)) {
    let mut room = room();
    let mut line = Line::on(&mut room);
    build(&mut line);
    write_all(fd, line.finish());
}

/// One `write(2)` of `bytes` (again after `EINTR`); errors are ignored
/// (observing never changes what the program sees).
pub(crate) fn write_all(fd: c_int, bytes: &[u8]) {
    loop {
        // SAFETY: `bytes` is initialised memory of that length.
        let w = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        // SAFETY: __errno_location() returns this thread's errno.
        if w >= 0 || unsafe { *libc::__errno_location() } != libc::EINTR {
            break;
        }
    }
}

/// One line on stderr, as is.
pub(crate) fn warn_line(text: &[u8]) {
    write_line(libc::STDERR_FILENO, |line| line.push(text));
}

/// One warning line on stderr: `rdmaverbs: warning: VAR=value: what`, the
/// value cut at 200 bytes and its control characters, backslashes and
/// non-ASCII bytes escaped as `\xHH`, so that no value can forge a line.
pub(super) fn warn(var: &CStr, value: &CStr, what: &str) {
    write_line(libc::STDERR_FILENO, |line| {
        line.push(b"rdmaverbs: warning: ");
        line.push(var.to_bytes());
        line.push(b"=");
        let value = value.to_bytes();
        for &c in value.get(..200).unwrap_or(value) {
            if c.is_ascii_graphic() && c != b'\\' || c == b' ' {
                line.push(&[c]);
            } else {
                let hex = |d: u8| HEX.get(usize::from(d)).copied().unwrap_or(b'?');
                line.push(&[b'\\', b'x', hex(c >> 4), hex(c & 15)]);
            }
        }
        line.push(b": ");
        line.push(what.as_bytes());
    });
}

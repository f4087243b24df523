//! One line of output (a trace line, a row of the exit table, a warning),
//! built on the stack and written with one `write(2)`.
//!
//! Formatting is by hand, not `core::fmt`: nothing here has a panic path,
//! so observing can never abort the host program (and the library carries
//! no panic machinery; `make test-symbols` checks that).

use core::cell::Cell;
use core::ffi::{CStr, c_int};

use crate::functions::Func;

/// One line of output; too long a line is cut.
pub(crate) struct Line {
    buf: [u8; 512],
    len: usize,
}

impl Line {
    pub(crate) fn new() -> Self {
        Line {
            buf: [0; 512],
            len: 0,
        }
    }

    /// A trace line's start: `rdmaverbs[TID]: NAME`.
    pub(crate) fn start(f: Func) -> Self {
        let mut line = Line::new();
        line.dec(b"rdmaverbs[", tid().into());
        line.push(b"]: ");
        line.push(f.name().as_bytes());
        line
    }

    /// Appends `bytes`, as much as fits (one byte stays free for the newline).
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        let room = self.buf.len().saturating_sub(self.len + 1);
        let n = bytes.len().min(room);
        if let (Some(d), Some(s)) = (self.buf.get_mut(self.len..self.len + n), bytes.get(..n)) {
            d.copy_from_slice(s);
            self.len += n;
        }
    }

    /// `key` and `n` in decimal.
    pub(crate) fn dec(&mut self, key: &[u8], n: i64) {
        self.push(key);
        if n < 0 {
            self.push(b"-");
        }
        let mut d = [0; 20];
        self.push(digits::<10>(n.unsigned_abs(), &mut d));
    }

    /// `key` and `n` in hexadecimal, with `0x`.
    pub(crate) fn hex(&mut self, key: &[u8], n: u64) {
        self.push(key);
        self.push(b"0x");
        let mut d = [0; 20];
        self.push(digits::<16>(n, &mut d));
    }

    /// `text`, then spaces up to `width`.
    pub(crate) fn left(&mut self, text: &[u8], width: usize) {
        self.push(text);
        self.spaces(width.saturating_sub(text.len()));
    }

    /// Spaces, then `n` in decimal, `width` wide.
    pub(crate) fn right(&mut self, n: u64, width: usize) {
        let mut d = [0; 20];
        let text = digits::<10>(n, &mut d);
        self.spaces(width.saturating_sub(text.len()));
        self.push(text);
    }

    fn spaces(&mut self, n: usize) {
        for _ in 0..n {
            self.push(b" ");
        }
    }

    /// What the line holds so far.
    pub(crate) fn text(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or_default()
    }

    /// The line with its newline, ready to write.
    pub(crate) fn finish(&mut self) -> &[u8] {
        if let Some(end) = self.buf.get_mut(self.len) {
            *end = b'\n';
            self.len += 1;
        }
        self.buf.get(..self.len).unwrap_or_default()
    }

    /// Writes the line and a newline with one `write(2)`; errors are ignored
    /// (observing never changes what the program sees).
    pub(crate) fn write_to(mut self, fd: c_int) {
        write_all(fd, self.finish());
    }
}

/// One `write(2)` of `bytes` (again after `EINTR`); errors are ignored.
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
    let mut line = Line::new();
    line.push(text);
    line.write_to(libc::STDERR_FILENO);
}

/// One warning line on stderr: `rdmaverbs: warning: VAR=value: what`, the
/// value cut at 200 bytes and its control characters, backslashes and
/// non-ASCII bytes escaped as `\xHH`, so that no value can forge a line.
pub(super) fn warn(var: &CStr, value: &CStr, what: &str) {
    let mut line = Line::new();
    line.push(b"rdmaverbs: warning: ");
    line.push(var.to_bytes());
    line.push(b"=");
    let value = value.to_bytes();
    for &c in value.get(..200).unwrap_or(value) {
        if c.is_ascii_graphic() && c != b'\\' || c == b' ' {
            line.push(&[c]);
        } else {
            let hex = |d: u8| {
                b"0123456789abcdef"
                    .get(usize::from(d))
                    .copied()
                    .unwrap_or(b'?')
            };
            line.push(&[b'\\', b'x', hex(c >> 4), hex(c & 15)]);
        }
    }
    line.push(b": ");
    line.push(what.as_bytes());
    line.write_to(libc::STDERR_FILENO);
}

/// The digits of `n` in `BASE` (10 or 16), in the tail of `d`. The base is
/// a constant, so that the division is a multiplication or a shift: a
/// trace line has a dozen numbers, and a `div` each would be most of its
/// cost.
fn digits<const BASE: u64>(mut n: u64, d: &mut [u8; 20]) -> &[u8] {
    let mut start = d.len();
    for slot in d.iter_mut().rev() {
        let digit = (n % BASE) as u8;
        *slot = if digit < 10 {
            b'0' + digit
        } else {
            b'a' + digit - 10
        };
        start -= 1;
        n /= BASE;
        if n == 0 {
            break;
        }
    }
    d.get(start..).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_is_cut_not_overrun() {
        let mut l = Line::new();
        for _ in 0..100 {
            l.push(b"0123456789");
        }
        assert_eq!(l.len, 511);
        assert_eq!(l.finish().len(), 512);
    }

    #[test]
    fn numbers() {
        let mut l = Line::new();
        l.dec(b"a=", -42);
        l.hex(b" b=", 0xbeef);
        l.dec(b" c=", i64::MIN);
        l.right(7, 3);
        assert_eq!(l.finish(), b"a=-42 b=0xbeef c=-9223372036854775808  7\n");
    }
}

thread_local! {
    /// This thread's id, once asked (0: not yet): glibc's `gettid` is a
    /// system call each time, and a trace line must cost none.
    static TID: Cell<i32> = const { Cell::new(0) };
}

/// This thread's id, from the kernel at its first line only.
fn tid() -> i32 {
    let t = TID.get();
    if t != 0 {
        return t;
    }
    // SAFETY: gettid cannot fail.
    let t = unsafe { libc::gettid() };
    TID.set(t);
    t
}

/// In a forked child (its one thread has a new id): asks the kernel again.
pub(super) fn forget_tid() {
    TID.set(0);
}

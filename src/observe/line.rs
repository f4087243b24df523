//! One line of output (a trace line, a row of the exit table, a warning),
//! built where it will be written from: a trace line in place at the end of
//! its thread's buffer (`buffer.rs`), any other line on the stack, written
//! with one `write(2)`.
//!
//! Formatting is by hand, not `core::fmt`: nothing here has a panic path,
//! so observing can never abort the host program (and the library carries
//! no panic machinery; `make test-symbols` checks that). It is also cheap,
//! since a trace line is written for every work request: constant keys are
//! copied as constants, numbers two digits at a time from a table, and a
//! trace line's start (`rdmaverbs[TID]: NAME`) as two fixed 32-byte copies.

use core::cell::Cell;
use core::ffi::{CStr, c_int};
use core::marker::PhantomData;
use core::mem::MaybeUninit;

use super::digits::{HEX, dec_len, hex_len, put_dec, put_hex};
use crate::functions::Func;

/// The longest line, with its newline; a longer one is cut.
pub(crate) const MAX: usize = 512;

/// Room for one line on the stack (not initialised: only what a line
/// writes is read back).
pub(crate) type Room = [MaybeUninit<u8>; MAX];

/// Empty room for a line.
pub(crate) const fn room() -> Room {
    [MaybeUninit::uninit(); MAX]
}

/// One line being written into [`MAX`] bytes of room (borrowed for `'a`).
/// Its length never exceeds `MAX - 1`, so that the newline always fits.
pub(crate) struct Line<'a> {
    at: *mut u8,
    len: usize,
    _room: PhantomData<&'a mut Room>,
}

impl<'a> Line<'a> {
    /// A line on `room`.
    pub(crate) fn on(room: &'a mut Room) -> Self {
        Line {
            at: room.as_mut_ptr().cast(),
            len: 0,
            _room: PhantomData,
        }
    }

    /// A line on the `MAX` bytes at `at`.
    ///
    /// # Safety
    /// `at` points to `MAX` bytes that nothing else reads or writes for `'a`.
    pub(crate) unsafe fn at(at: *mut u8) -> Self {
        Line {
            at,
            len: 0,
            _room: PhantomData,
        }
    }

    /// A trace line's start: `rdmaverbs[TID]: NAME`.
    pub(crate) fn begin(&mut self, f: Func) {
        let head = head();
        self.fixed(&head.bytes, usize::from(head.len));
        let (name, n) = &NAMES[f as usize];
        self.fixed(name, *n);
    }

    /// Appends the first `n` bytes of `chunk`, copying all 32 when there is
    /// room for them (a constant-size copy is a few moves, not a call).
    fn fixed(&mut self, chunk: &[u8; 32], n: usize) {
        if self.len + chunk.len() < MAX {
            // SAFETY: 32 bytes of room at `len` (checked above).
            unsafe { core::ptr::copy_nonoverlapping(chunk.as_ptr(), self.at.add(self.len), 32) };
            self.len += n.min(32);
        } else {
            self.push(chunk.get(..n).unwrap_or(chunk));
        }
    }

    /// Appends `bytes`, as much as fits (one byte stays free for the newline).
    #[inline(always)]
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        let n = bytes.len();
        if n < MAX - self.len {
            // SAFETY: `len + n < MAX`: inside the room.
            unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), self.at.add(self.len), n) };
            self.len += n;
        } else {
            self.cut(bytes);
        }
    }

    /// What of `bytes` still fits, and the line is full.
    #[cold]
    fn cut(&mut self, bytes: &[u8]) {
        let n = (MAX - 1 - self.len).min(bytes.len());
        // SAFETY: `len + n <= MAX - 1`.
        unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), self.at.add(self.len), n) };
        self.len += n;
    }

    /// `key` and `n` in decimal.
    #[inline]
    pub(crate) fn dec(&mut self, key: &[u8], n: i64) {
        self.push(key);
        if n < 0 {
            self.push(b"-");
        }
        self.decimal(n.unsigned_abs());
    }

    /// `key` and `n` in hexadecimal, with `0x`.
    #[inline]
    pub(crate) fn hex(&mut self, key: &[u8], n: u64) {
        self.push(key);
        self.hexadecimal(n);
    }

    /// `n` in decimal.
    fn decimal(&mut self, n: u64) {
        let nd = dec_len(n);
        if nd < MAX - self.len {
            // SAFETY: `nd` bytes of room at `len`.
            unsafe { put_dec(self.at.add(self.len + nd), n) };
            self.len += nd;
        } else {
            let mut d = [0; 20];
            // SAFETY: `d` has room for any u64's digits, which end at its end.
            unsafe { put_dec(d.as_mut_ptr().add(20), n) };
            self.cut(d.get(20 - nd..).unwrap_or_default());
        }
    }

    /// `n` in hexadecimal, with `0x`.
    fn hexadecimal(&mut self, n: u64) {
        let nd = hex_len(n);
        if nd + 2 < MAX - self.len {
            // SAFETY: `nd + 2` bytes of room at `len`.
            unsafe {
                let p = self.at.add(self.len);
                core::ptr::copy_nonoverlapping(b"0x".as_ptr(), p, 2);
                put_hex(p.add(2 + nd), n);
            }
            self.len += nd + 2;
        } else {
            let mut d = [0; 18];
            d[0] = b'0';
            d[1] = b'x';
            // SAFETY: `d` has room for "0x" and any u64's digits.
            unsafe { put_hex(d.as_mut_ptr().add(2 + nd), n) };
            self.cut(d.get(..2 + nd).unwrap_or_default());
        }
    }

    /// `text`, then spaces up to `width`.
    pub(crate) fn left(&mut self, text: &[u8], width: usize) {
        self.push(text);
        self.spaces(width.saturating_sub(text.len()));
    }

    /// Spaces, then `n` in decimal, `width` wide.
    pub(crate) fn right(&mut self, n: u64, width: usize) {
        self.spaces(width.saturating_sub(dec_len(n)));
        self.decimal(n);
    }

    fn spaces(&mut self, n: usize) {
        for _ in 0..n {
            self.push(b" ");
        }
    }

    /// What the line holds so far.
    pub(crate) fn text(&self) -> &[u8] {
        // SAFETY: the first `len` bytes of the room were written.
        unsafe { core::slice::from_raw_parts(self.at, self.len) }
    }

    /// The line with its newline, ready to write. (The newline is not part
    /// of the line's length: whatever is pushed after it overwrites it, and
    /// `len <= MAX - 1` always holds.)
    pub(crate) fn finish(&mut self) -> &[u8] {
        // SAFETY: `len <= MAX - 1`: the newline fits, and the first
        // `len + 1 <= MAX` bytes of the room are then written.
        unsafe {
            *self.at.add(self.len) = b'\n';
            core::slice::from_raw_parts(self.at, self.len + 1)
        }
    }
}

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

/// Each function's name, padded to 32 bytes, and its length.
static NAMES: [([u8; 32], usize); Func::COUNT] = {
    let mut t = [([0; 32], 0); Func::COUNT];
    let mut i = 0;
    while i < Func::COUNT {
        let name = Func::ALL[i].name().as_bytes();
        assert!(name.len() <= 32);
        let mut j = 0;
        while j < name.len() {
            t[i].0[j] = name[j];
            j += 1;
        }
        t[i].1 = name.len();
        i += 1;
    }
    t
};

/// A thread's `rdmaverbs[TID]: `, padded to 32 bytes; length 0 until the
/// thread's first line.
#[derive(Clone, Copy)]
struct Head {
    bytes: [u8; 32],
    len: u8,
}

/// No line start yet.
const NO_HEAD: Head = Head {
    bytes: [0; 32],
    len: 0,
};

thread_local! {
    /// This thread's line start: glibc's `gettid` is a system call each
    /// time, and a trace line must cost none.
    static HEAD: Cell<Head> = const { Cell::new(NO_HEAD) };
}

/// This thread's line start, made at its first line.
fn head() -> Head {
    let h = HEAD.get();
    if h.len != 0 {
        return h;
    }
    let mut room = room();
    let mut line = Line::on(&mut room);
    // SAFETY: gettid cannot fail.
    line.dec(b"rdmaverbs[", unsafe { libc::gettid() }.into());
    line.push(b"]: ");
    let mut h = NO_HEAD;
    let text = line.text();
    if let Some(d) = h.bytes.get_mut(..text.len()) {
        d.copy_from_slice(text);
        h.len = text.len() as u8;
    }
    HEAD.set(h);
    h
}

/// In a forked child (its one thread has a new id): asks the kernel again.
pub(super) fn forget_tid() {
    HEAD.set(NO_HEAD);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_is_cut_not_overrun() {
        let mut r = room();
        let mut l = Line::on(&mut r);
        for _ in 0..100 {
            l.push(b"0123456789");
        }
        assert_eq!(l.len, MAX - 1);
        l.hex(b"", u64::MAX);
        l.dec(b"", 12345);
        assert_eq!(l.finish().len(), MAX);
        // Finished twice, or pushed to after finishing: still inside.
        assert_eq!(l.finish().len(), MAX);
        l.push(b"more");
        assert_eq!(l.len, MAX - 1);
        assert_eq!(l.finish().len(), MAX);
        let mut r = room();
        let mut l = Line::on(&mut r);
        l.push(&[b'a'; MAX - 4]);
        l.dec(b"", 123456);
        l.hex(b"", 0xabc);
        assert_eq!(l.finish(), [&[b'a'; MAX - 4][..], b"123\n"].concat());
    }

    #[test]
    fn numbers() {
        let mut r = room();
        let mut l = Line::on(&mut r);
        l.dec(b"a=", -42);
        l.hex(b" b=", 0xbeef);
        l.dec(b" c=", i64::MIN);
        l.right(7, 3);
        l.hex(b" d=", 0);
        l.hex(b" e=", 0xf);
        l.hex(b" f=", u64::MAX);
        l.hex(b" g=", 0x1fff000530);
        l.dec(b" h=", 0);
        l.dec(b" i=", 9);
        l.dec(b" j=", 10);
        l.dec(b" k=", 100);
        l.right(u64::MAX, 3);
        assert_eq!(
            l.finish(),
            &b"a=-42 b=0xbeef c=-9223372036854775808  7 d=0x0 e=0xf f=0xffffffffffffffff \
               g=0x1fff000530 h=0 i=9 j=10 k=10018446744073709551615\n"[..]
        );
    }

    #[test]
    fn every_number_as_core_fmt_writes_it() {
        let mut n: u64 = 1;
        for _ in 0..200 {
            for v in [n.wrapping_sub(1), n, n.wrapping_add(1), n.wrapping_mul(7)] {
                let mut r = room();
                let mut l = Line::on(&mut r);
                l.dec(b"", v as i64);
                l.hex(b" ", v);
                let want = format!("{} {:#x}", v as i64, v);
                assert_eq!(l.text(), want.as_bytes());
            }
            n = n.wrapping_mul(3).wrapping_add(1);
        }
    }

    #[test]
    fn trace_line_start() {
        let mut r = room();
        let mut l = Line::on(&mut r);
        l.begin(Func::GetRecvCompTimeout);
        l.push(b" x");
        let want = format!("rdmaverbs[{}]: rdma_get_recv_comp_timeout x", unsafe {
            libc::gettid()
        });
        assert_eq!(l.text(), want.as_bytes());
    }
}

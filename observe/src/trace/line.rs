//! One line of output (a trace line, a row of the exit table, a warning),
//! built where it will be written from: a trace line in place at the end of
//! its thread's buffer (`buffers.rs`), any other line on the stack, written
//! with one `write(2)` ([`write_line`]: async-signal-safe).
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

use rdmaverbs_abi::functions::Func;
use rdmaverbs_abi::sys::{self, errno};

use super::digits::{HEX, dec_len, hex_len, put_9, put_dec, put_hex};
use crate::thread::{Text, Thread};

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
pub struct Line<'a> {
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

    /// A trace line's start: `rdmaverbs[TID]: NAME t=SECONDS.NANOSECONDS`,
    /// `t` the time of `CLOCK_MONOTONIC`, for the thread whose state is
    /// `me`. Its line start and the text of its last second are kept
    /// there: made once, then copied.
    #[inline(always)]
    pub(crate) fn begin(&mut self, me: &Thread, f: Func, t: &libc::timespec) {
        if me.head_len.get() == 0 {
            make_head(me);
        }
        self.fixed(text_of(&me.head), usize::from(me.head_len.get()));
        let (name, n) = &NAMES[f as usize];
        self.fixed(name, *n);
        if me.sec.get() != t.tv_sec {
            make_seconds(me, t.tv_sec);
        }
        self.fixed(text_of(&me.sec_text), usize::from(me.sec_len.get()));
        self.nanoseconds(t.tv_nsec as u64);
    }

    /// `n` (below 10^9, a `tv_nsec`) as nine digits, with leading zeros.
    fn nanoseconds(&mut self, n: u64) {
        if 9 < MAX - self.len {
            // SAFETY: 9 bytes of room at `len`.
            unsafe { put_9(self.at.add(self.len), n) };
            self.len += 9;
        }
    }

    /// Appends the first `n` bytes of `chunk`, copying all 32 when there is
    /// room for them (a constant-size copy is a few moves, not a call).
    fn fixed(&mut self, chunk: &[u8; 32], n: usize) {
        if chunk.len() < MAX - self.len {
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

    /// `key` and `text` (a word: a field's value), with one check of the
    /// room for both.
    #[inline(always)]
    pub(crate) fn word(&mut self, key: &[u8], text: &[u8]) {
        let (k, n) = (key.len(), text.len());
        if k + n < MAX - self.len {
            // SAFETY: `k + n` bytes of room at `len`.
            unsafe {
                let p = self.at.add(self.len);
                core::ptr::copy_nonoverlapping(key.as_ptr(), p, k);
                core::ptr::copy_nonoverlapping(text.as_ptr(), p.add(k), n);
            }
            self.len += k + n;
        } else {
            self.word_cut(key, text);
        }
    }

    /// [`word`](Self::word) at the end of the room: what fits of it.
    #[cold]
    #[inline(never)]
    fn word_cut(&mut self, key: &[u8], text: &[u8]) {
        self.push(key);
        self.push(text);
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
    #[inline(always)]
    pub(crate) fn dec(&mut self, key: &[u8], n: i64) {
        self.number(key, n < 0, n.unsigned_abs());
    }

    /// `key`, a `-` when `neg`, and `n` in decimal: one check of the room
    /// for all of it (a trace line's fields are far from its end).
    #[inline(always)]
    fn number(&mut self, key: &[u8], neg: bool, n: u64) {
        let k = key.len();
        let total = k + usize::from(neg) + dec_len(n);
        if total < MAX - self.len {
            // SAFETY: `total` bytes of room at `len`. The `-` goes just after
            // the key; without a sign the digits, which then fill
            // [k, total) (at least one), overwrite it.
            unsafe {
                let p = self.at.add(self.len);
                core::ptr::copy_nonoverlapping(key.as_ptr(), p, k);
                *p.add(k) = b'-';
                put_dec(p.add(total), n);
            }
            self.len += total;
        } else {
            self.number_cut(key, neg, n);
        }
    }

    /// [`number`](Self::number) at the end of the room: what fits of it.
    #[cold]
    #[inline(never)]
    fn number_cut(&mut self, key: &[u8], neg: bool, n: u64) {
        self.push(key);
        if neg {
            self.push(b"-");
        }
        let nd = dec_len(n);
        let mut d = [0; 20];
        // SAFETY: `d` has room for any u64's digits, which end at its end.
        unsafe { put_dec(d.as_mut_ptr().add(20), n) };
        self.cut(d.get(20 - nd..).unwrap_or_default());
    }

    /// `key` and `n` in hexadecimal, with `0x`: one check of the room.
    #[inline(always)]
    pub(crate) fn hex(&mut self, key: &[u8], n: u64) {
        let k = key.len();
        let total = k + 2 + hex_len(n);
        if total < MAX - self.len {
            // SAFETY: `total` bytes of room at `len`: the key, `0x`, and
            // the digits, which end at `total`.
            unsafe {
                let p = self.at.add(self.len);
                core::ptr::copy_nonoverlapping(key.as_ptr(), p, k);
                core::ptr::copy_nonoverlapping(b"0x".as_ptr(), p.add(k), 2);
                put_hex(p.add(total), n);
            }
            self.len += total;
        } else {
            self.hex_cut(key, n);
        }
    }

    /// [`hex`](Self::hex) at the end of the room: what fits of it.
    #[cold]
    #[inline(never)]
    fn hex_cut(&mut self, key: &[u8], n: u64) {
        self.push(key);
        let nd = hex_len(n);
        let mut d = [0; 18];
        d[0] = b'0';
        d[1] = b'x';
        // SAFETY: `d` has room for "0x" and any u64's digits.
        unsafe { put_hex(d.as_mut_ptr().add(2 + nd), n) };
        self.cut(d.get(..2 + nd).unwrap_or_default());
    }

    /// `text`, then spaces up to `width`.
    pub(crate) fn left(&mut self, text: &[u8], width: usize) {
        self.push(text);
        self.spaces(width.saturating_sub(text.len()));
    }

    /// Spaces, then `n` in decimal, `width` wide.
    pub(crate) fn right(&mut self, n: u64, width: usize) {
        self.spaces(width.saturating_sub(dec_len(n)));
        self.number(b"", false, n);
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

/// Each function's name, padded to 32 bytes, and its length (at most 32:
/// the one longer name, `ibv_wc_read_completion_wallclock_ns`, is of a
/// function that has no trace line; a unit test holds that).
static NAMES: [([u8; 32], usize); Func::COUNT] = {
    let mut t = [([0; 32], 0); Func::COUNT];
    let mut i = 0;
    while i < Func::COUNT {
        let name = Func::ALL[i].name().as_bytes();
        let n = if name.len() < 32 { name.len() } else { 32 };
        let mut j = 0;
        while j < n {
            t[i].0[j] = name[j];
            j += 1;
        }
        t[i].1 = n;
        i += 1;
    }
    t
};

/// `text` into `cache` (32 bytes) and its length into `len`; nothing if it
/// does not fit (it is then made again next time).
fn keep(cache: &Cell<Text>, len: &Cell<u8>, text: &[u8]) {
    let mut t = [0; 32];
    if let Some(d) = t.get_mut(..text.len()) {
        d.copy_from_slice(text);
        cache.set(t);
        len.set(text.len() as u8);
    }
}

/// A thread's line start, `rdmaverbs[TID]: `, made at its first line.
#[cold]
#[inline(never)]
fn make_head(me: &Thread) {
    let mut room = room();
    let mut line = Line::on(&mut room);
    line.dec(b"rdmaverbs[", sys::gettid().into());
    line.push(b"]: ");
    keep(&me.head, &me.head_len, line.text());
}

/// ` t=SECONDS.` for a thread's lines in second `sec` (once a second).
#[cold]
#[inline(never)]
fn make_seconds(me: &Thread, sec: i64) {
    let mut room = room();
    let mut line = Line::on(&mut room);
    line.dec(b" t=", sec);
    line.push(b".");
    keep(&me.sec_text, &me.sec_len, line.text());
    me.sec.set(sec);
}

/// A text of `me` (32 bytes of it, with its length), without copying it out
/// of the thread-local.
fn text_of(cache: &Cell<Text>) -> &Text {
    // SAFETY: this thread's own cell, which nothing writes while the
    // reference lives (a line is made by one call, with no reentry).
    unsafe { &*cache.as_ptr() }
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
        if w >= 0 || errno() != libc::EINTR {
            break;
        }
    }
}

/// One line on stderr, as is.
pub fn warn_line(text: &[u8]) {
    write_line(libc::STDERR_FILENO, |line| line.push(text));
}

/// One warning line on stderr: `rdmaverbs: warning: VAR=value: what`, the
/// value cut at 200 bytes and its control characters, backslashes and
/// non-ASCII bytes escaped as `\xHH`, so that no value can forge a line.
pub(crate) fn warn_setting(var: &CStr, value: &CStr, what: &str) {
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

#[cfg(test)]
mod tests;

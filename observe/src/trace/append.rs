//! How whole lines are laid out when appended to the trace file: so that no
//! line straddles a [`PAGE`] boundary of the file.
//!
//! A `write(2)` to a regular file can be cut short, and Linux cuts it only
//! at such a boundary: a `SIGKILL` that arrives during the write, or a disk
//! that fills, stops the copy between two pages of the file (the page cache
//! works a page, or a folio of pages, at a time). If no line crosses a
//! boundary, a write cut short still ends at the end of a line, and a trace
//! file left by a killed program never ends in half a line.
//!
//! A line that would cross a boundary starts at it instead: the line before
//! it takes the gap as spaces after its time stamp (`t=... ` becomes
//! `t=...      `), where a tool that splits a line into `key=value` words on
//! spaces (`awk`, Python's `split()`) sees nothing, and `^` and `$` in a
//! pattern still match. When that line was written before (the first line
//! of a write crosses), a line of spaces fills the gap instead (an empty
//! line when the gap is one byte), which a tool skips, as it skips every
//! line that does not start with `rdmaverbs[`. `rdmaverbs(7)` documents it.
//!
//! [`write_pieces`] writes a plan out.

use core::ffi::c_int;

use rdmaverbs_abi::sys::errno;

/// The boundary that no line straddles.
pub(crate) const PAGE: u64 = 4096;

/// Spaces, and a newline at the end: padding inside a line is its head, a
/// line of padding its tail.
static PAD: [u8; PAGE as usize] = {
    let mut p = [b' '; PAGE as usize];
    p[PAGE as usize - 1] = b'\n';
    p
};

/// The most pieces one plan has (each padding adds two; a `writev(2)` takes
/// up to 1024).
pub(crate) const PIECES: usize = 32;

/// What to write for some whole lines appended at a file offset: `pieces`
/// (lines, padding) in order, `len` bytes in all; `used` bytes of the lines
/// are in it (the rest is for another plan, at `len` further on).
pub(crate) struct Plan<'a> {
    pub(crate) pieces: [&'a [u8]; PIECES],
    pub(crate) n: usize,
    pub(crate) len: u64,
    pub(crate) used: usize,
}

impl<'a> Plan<'a> {
    fn push(&mut self, piece: &'a [u8]) {
        if !piece.is_empty() {
            if let Some(p) = self.pieces.get_mut(self.n) {
                *p = piece;
                self.n += 1;
            }
        }
    }
}

/// The plan for `lines` (whole lines, each shorter than a page) appended
/// at file offset `at`. Only the bytes near each page boundary are looked
/// at (back to the start of the line that holds it): the cost is a line or
/// two per page, not a scan of every byte.
pub(crate) fn plan(at: u64, lines: &[u8]) -> Plan<'_> {
    let mut p = Plan {
        pieces: [&[]; PIECES],
        n: 0,
        len: 0,
        used: lines.len(),
    };
    let mut shift = 0u64; // padding so far: lines[k] lands at at + shift + k
    let mut from = 0; // the start of the bytes not yet in the plan
    let mut boundary = (at / PAGE + 1) * PAGE;
    loop {
        // The byte of `lines` that would land at the boundary.
        let Some(k) = usize::try_from(boundary - at - shift)
            .ok()
            .filter(|&k| k < lines.len())
        else {
            break;
        };
        // Where the line that holds it starts; nothing to do if it starts
        // there.
        let start = line_start(lines, k);
        if start != k {
            // Room for the bytes before, the padding, and the last piece.
            if p.n + 3 > PIECES {
                p.used = start;
                break;
            }
            let gap = (k - start) as usize;
            if start > from {
                // The line before, in this plan: spaces after its time.
                let before = line_start(lines, start - 1);
                let cut = before + after_time(lines.get(before..start).unwrap_or_default());
                p.push(lines.get(from..cut).unwrap_or_default());
                p.push(PAD.get(..gap).unwrap_or_default());
                from = cut;
            } else {
                // Written before: a line of spaces.
                p.push(lines.get(from..start).unwrap_or_default());
                p.push(PAD.get(PAD.len() - gap..).unwrap_or_default());
                from = start;
            }
            shift += gap as u64;
        }
        boundary += PAGE;
    }
    p.push(lines.get(from..p.used).unwrap_or_default());
    p.len = p.used as u64 + shift;
    p
}

/// The start of the line that holds `lines[k]`: just after the newline
/// before it (0 if there is none).
fn line_start(lines: &[u8], k: usize) -> usize {
    let Some(before) = lines.get(..k) else {
        return 0;
    };
    // SAFETY: memrchr reads the `before.len()` bytes of `before`.
    let nl = unsafe { libc::memrchr(before.as_ptr().cast(), b'\n'.into(), before.len()) };
    if nl.is_null() {
        0
    } else {
        nl as usize - before.as_ptr() as usize + 1
    }
}

/// Where a line takes padding: just after its time stamp (` t=...`, whose
/// `=` is the line's first), at the space that follows it; before its
/// newline if it has none.
fn after_time(line: &[u8]) -> usize {
    let before_newline = line.len().saturating_sub(1);
    let found = |from: usize, c: u8| -> Option<usize> {
        let rest = line.get(from..)?;
        // SAFETY: memchr reads the `rest.len()` bytes of `rest`.
        let p = unsafe { libc::memchr(rest.as_ptr().cast(), c.into(), rest.len()) };
        (!p.is_null()).then(|| from + (p as usize - rest.as_ptr() as usize))
    };
    let Some(eq) = found(0, b'=').filter(|&e| e >= 2 && line.get(e - 2..e) == Some(b" t")) else {
        return before_newline;
    };
    found(eq, b' ').map_or(before_newline, |k| k.min(before_newline))
}

/// All of `pieces` written with `writev(2)`, again after a short write or
/// `EINTR`; the errno of a write that fails (`ENOSPC` for one that writes
/// nothing more).
pub(crate) fn write_pieces(fd: c_int, pieces: &[&[u8]]) -> Result<(), c_int> {
    let mut iov = [libc::iovec {
        iov_base: core::ptr::null_mut(),
        iov_len: 0,
    }; PIECES];
    for (v, p) in iov.iter_mut().zip(pieces) {
        v.iov_base = p.as_ptr().cast_mut().cast();
        v.iov_len = p.len();
    }
    let iov = iov.get_mut(..pieces.len().min(PIECES)).unwrap_or_default();
    let mut first = 0;
    while let Some(rest) = iov.get(first..).filter(|r| !r.is_empty()) {
        // SAFETY: each iovec covers initialised bytes of a piece.
        let w = unsafe { libc::writev(fd, rest.as_ptr(), rest.len() as c_int) };
        if w < 0 {
            match errno() {
                libc::EINTR => continue,
                err => return Err(err),
            }
        }
        if w == 0 {
            return Err(libc::ENOSPC);
        }
        // Past what was written: whole pieces, then part of one.
        let mut w = w as usize;
        while let Some(v) = iov.get_mut(first) {
            if w < v.iov_len {
                // SAFETY: inside the piece.
                v.iov_base = unsafe { v.iov_base.cast::<u8>().add(w) }.cast();
                v.iov_len -= w;
                break;
            }
            w -= v.iov_len;
            first += 1;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text a plan writes.
    fn text(p: &Plan) -> Vec<u8> {
        p.pieces[..p.n].concat()
    }

    /// Every line of `file` (from offset 0) inside a page; the lines that
    /// are not padding (spaces only, or empty), their runs of spaces made
    /// one, are `want`.
    fn check(file: &[u8], want: &[Vec<u8>]) {
        let mut at = 0;
        let mut got = Vec::new();
        for line in file.split_inclusive(|&b| b == b'\n') {
            assert_eq!(
                at / PAGE,
                (at + line.len() as u64 - 1) / PAGE,
                "a line crosses a page boundary at {at}"
            );
            at += line.len() as u64;
            if line.iter().any(|&b| b != b' ' && b != b'\n') {
                let mut one = line.to_vec();
                one.dedup_by(|a, b| *a == b' ' && *b == b' ');
                got.push(one);
            }
        }
        assert_eq!(got, want);
        assert_eq!(file.last(), Some(&b'\n'));
    }

    /// A trace-like line of `len` bytes: `n: f t=1.000000002 x=aaa...\n`.
    fn line(k: usize, len: usize) -> Vec<u8> {
        let mut l = format!("{k}: f t=1.000000002 x=").into_bytes();
        l.resize(len.max(l.len() + 1) - 1, b'a' + (k % 26) as u8);
        l.push(b'\n');
        l
    }

    #[test]
    fn no_line_crosses_a_page() {
        for start in [0usize, 1, 100, 4000, 4095, 4096, 8191] {
            for len in [2usize, 37, 200, 512] {
                let lines: Vec<Vec<u8>> = (0..300).map(|k| line(k, len)).collect();
                let all = lines.concat();
                // What is in the file already: whole lines.
                let mut file = vec![b'\n'; start];
                let mut rest = &all[..];
                while !rest.is_empty() {
                    let p = plan(file.len() as u64, rest);
                    let t = text(&p);
                    assert_eq!(t.len() as u64, p.len);
                    assert!(p.used > 0 && p.n <= PIECES);
                    file.extend_from_slice(&t);
                    rest = &rest[p.used..];
                }
                check(&file, &lines);
            }
        }
    }

    #[test]
    fn padding_is_where_it_must_be() {
        // Two lines of 3000 bytes from 0: the first takes 1096 spaces after
        // its time stamp, the second starts at the page.
        let two = [line(1, 3000), line(2, 3000)].concat();
        let p = plan(0, &two);
        let t = text(&p);
        assert_eq!(t.len(), 4096 + 3000);
        let at = b"1: f t=1.000000002".len();
        assert_eq!(&t[..at], &two[..at]);
        assert_eq!(&t[at..at + 1097], &[b' '; 1097][..]);
        assert_eq!(&t[at + 1097..4096], &two[at + 1..3000]);
        assert_eq!(&t[4096..], &two[3000..]);
        // The first line of a plan crossing: a line of spaces before it.
        let p = plan(4000, &two[..3000]);
        let t = text(&p);
        assert_eq!(t.len(), 96 + 3000);
        assert_eq!(&t[..95], &[b' '; 95][..]);
        assert_eq!(t[95], b'\n');
        // A gap of one byte: an empty line.
        let p = plan(4095, &two[..3000]);
        assert_eq!(text(&p)[0], b'\n');
        // Nothing to pad: one piece, the bytes as they are.
        let p = plan(100, &two[..3000]);
        assert_eq!((p.n, p.len, p.used), (1, 3000, 3000));
        // A line without a time stamp takes it before its newline.
        assert_eq!(after_time(b"abc def\n"), 7);
        assert_eq!(after_time(b"x t=5.1 y\n"), 7);
        assert_eq!(after_time(b"x t=5.1\n"), 7);
        // Only `t=` is the time stamp: another first `=` is not.
        assert_eq!(after_time(b"ab x=1 y\n"), 8);
    }

    #[test]
    fn a_long_run_takes_several_plans() {
        let mut line = vec![b'b'; 299];
        line.push(b'\n');
        let lines = line.repeat(1000);
        let p = plan(1, &lines);
        assert!(p.n <= PIECES && p.used < lines.len() && p.used % 300 == 0);
        // As many pieces as fit: a line of spaces first (its first line
        // crosses), then two per page (the bytes before, the padding), and
        // the rest.
        let p = plan(4000, &lines);
        assert_eq!(p.n, PIECES);
        assert!(p.used < lines.len());
    }

    /// A signal handler that does nothing (so that a blocked write returns
    /// early, cut short or with EINTR).
    extern "C" fn nothing(_: c_int) {}

    #[test]
    fn write_pieces_goes_on_after_short_writes_and_eintr() {
        // 32 pieces of 1 to 40000 bytes, each of its own byte, through a
        // pipe of one page read slowly, the writer interrupted by a signal
        // every 200 us: every byte arrives, in order.
        let data: Vec<Vec<u8>> = (0..PIECES)
            .map(|k| vec![b'A' + k as u8; 1 + k * k * 39])
            .collect();
        let pieces: Vec<&[u8]> = data.iter().map(|d| &d[..]).collect();
        let want = data.concat();
        let mut fds = [0; 2];
        // SAFETY: plain calls on our own descriptors and handler.
        unsafe {
            assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
            libc::fcntl(fds[1], libc::F_SETPIPE_SZ, 4096);
            let mut sa: libc::sigaction = core::mem::zeroed();
            sa.sa_sigaction = nothing as extern "C" fn(c_int) as usize;
            libc::sigaction(libc::SIGURG, &sa, core::ptr::null_mut());
        }
        let reader = std::thread::spawn(move || {
            let mut got = Vec::new();
            let mut buf = [0u8; 1000];
            loop {
                // SAFETY: into our buffer.
                let n = unsafe { libc::read(fds[0], buf.as_mut_ptr().cast(), buf.len()) };
                if n <= 0 {
                    return got;
                }
                got.extend_from_slice(&buf[..n as usize]);
                std::thread::sleep(std::time::Duration::from_micros(50));
            }
        });
        // SAFETY: this thread's id, signalled while it writes.
        let me = unsafe { libc::pthread_self() } as usize;
        let done = std::sync::Arc::new(core::sync::atomic::AtomicBool::new(false));
        let kicks = {
            let done = done.clone();
            std::thread::spawn(move || {
                let mut n = 0;
                while !done.load(core::sync::atomic::Ordering::Relaxed) {
                    // SAFETY: the writing thread exists until `done`.
                    unsafe { libc::pthread_kill(me as libc::pthread_t, libc::SIGURG) };
                    n += 1;
                    std::thread::sleep(std::time::Duration::from_micros(200));
                }
                n
            })
        };
        let ret = write_pieces(fds[1], &pieces);
        done.store(true, core::sync::atomic::Ordering::Relaxed);
        let kicks = kicks.join().unwrap();
        // SAFETY: our descriptor.
        unsafe { libc::close(fds[1]) };
        let got = reader.join().unwrap();
        // SAFETY: our descriptor.
        unsafe { libc::close(fds[0]) };
        assert_eq!(ret, Ok(()));
        assert!(kicks > 10, "{kicks} signals");
        assert_eq!(got.len(), want.len());
        assert!(got == want, "the bytes differ");
    }

    #[test]
    fn write_pieces_reports_a_write_of_nothing_as_enospc() {
        // A write that writes nothing more (pieces of nothing here): ENOSPC,
        // whatever errno was before.
        let null = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/null")
            .unwrap();
        rdmaverbs_abi::sys::set_errno(libc::EBADF);
        let fd = std::os::fd::AsRawFd::as_raw_fd(&null);
        assert_eq!(write_pieces(fd, &[b""]), Err(libc::ENOSPC));
    }
}

//! The counters' file: with `RDMAVERBS_STATS` set, a process counts in a
//! file of its own, mapped, that `rdmaverbs-stat` reads while it runs and
//! `rdmaverbs-trace -c` after it ends (the layout: `rdmaverbs-format`).
//! Counting in it is what counting in the library's memory is: no system
//! call.
//!
//! The rules (the file holds what a program does, so another user must
//! never read it; and a path in a shared directory is an attacker's way in,
//! as with the JVM's `hsperfdata`):
//!
//! - The directory is `$XDG_RUNTIME_DIR/rdmaverbs` (the variable read with
//!   `secure_getenv`, and only an absolute path), else
//!   `/dev/shm/rdmaverbs-UID`; made `0700` if missing, then opened without
//!   following a symbolic link and checked: a directory, owned by the
//!   process's effective user, with no permission for group or others.
//! - The file, named by the process id, is created in it (`openat`, no
//!   symbolic link followed, `O_EXCL`: an old file of that name, from an
//!   exited process or this one before an `exec`, is removed first),
//!   `0600`, its space reserved (`fallocate`: a full `/dev/shm` is found
//!   now, not later as a `SIGBUS` in the program).
//! - A set-user-ID process publishes nothing: it reads no `RDMAVERBS_*`.
//! - A forked child gets a file of its own, starting at zero, made at its
//!   first count (a child that only execs or exits leaves none).
//! - At exit the file is removed, unless `rdmaverbs-trace -c` asked for it
//!   (`RDMAVERBS_STATS_SESSION`); the file of a process that was killed is
//!   removed by the commands, which tell it by its start time.
//! - The mapping is never unmapped under the process's threads (one may
//!   still count while the program exits); a library unloaded with
//!   `dlclose` leaves it, some 90 KiB, until the process exits.
//!
//! When the file cannot be made, one warning, and the counts stay in the
//! library's memory (the exit table is printed as ever).

use core::ffi::{CStr, c_int};
use core::ptr;
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use rdmaverbs_abi::functions::Func;
use rdmaverbs_abi::sys::{PATH_MAX, StaticCell, descriptor, fstat, monotonic, secure_getenv};
use rdmaverbs_format as layout;

use crate::trace::line::{self, Line, room};

/// The file's path (NUL-terminated), for its removal; empty when none:
/// written when the file is made (at load, or in a forked child, one
/// thread), read when it is removed.
static PATH: StaticCell<[u8; PATH_MAX]> = StaticCell::new([0; PATH_MAX]);

/// The file is kept at exit (`rdmaverbs-trace -c` reads it).
static KEEP: AtomicBool = AtomicBool::new(false);
/// The session it is kept for.
static SESSION: AtomicU64 = AtomicU64::new(0);

/// The bytes of a counters file.
pub(crate) const FILE_BYTES: usize = layout::file_size(Func::COUNT);

/// Makes, maps and fills in this process's file (at load, and in a forked
/// child at its first count); `session` is `RDMAVERBS_STATS_SESSION`'s
/// value, 0 for none. The mapping, or the reason when it cannot.
pub(crate) fn make(session: u64) -> Result<*mut u8, &'static str> {
    SESSION.store(session, Relaxed);
    KEEP.store(session != 0, Relaxed);
    make_file()
}

/// The session of the file made last.
pub(crate) fn session() -> u64 {
    SESSION.load(Relaxed)
}

/// Whether this process has a file (its path is set).
pub(crate) fn made() -> bool {
    path_bytes().first().is_some_and(|&c| c != 0)
}

/// In a forked child: the parent's file is not its own (not to be removed
/// by it). Only memory.
pub(crate) fn forget() {
    // SAFETY: the child has one thread; the path is cleared.
    unsafe { *PATH.get().cast::<u8>() = 0 };
}

/// Removes the file (at exit, and on a fatal signal), unless it is kept.
/// Async-signal-safe.
pub(crate) fn remove() {
    if KEEP.load(Relaxed) || path_bytes().first().is_none_or(|&c| c == 0) {
        return;
    }
    // SAFETY: a NUL-terminated path.
    unsafe { libc::unlink(PATH.get().cast()) };
}

/// The path's bytes.
fn path_bytes() -> &'static [u8; PATH_MAX] {
    // SAFETY: see `PATH`.
    unsafe { &*PATH.get() }
}

/// How the directory, the file and `/proc/self/stat` are opened (never
/// through a final symbolic link, the directory a directory, the file new),
/// and the file mapped.
const DIR_FLAGS: c_int = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
const FILE_FLAGS: c_int =
    libc::O_RDWR | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC;
const STAT_FLAGS: c_int = libc::O_RDONLY | libc::O_CLOEXEC;
const PROT: c_int = libc::PROT_READ | libc::PROT_WRITE;

/// Makes, maps and fills in this process's file; its mapping.
fn make_file() -> Result<*mut u8, &'static str> {
    let mut dir = [0u8; PATH_MAX];
    let dlen = directory(&mut dir).ok_or("no directory for it (the path is too long)")?;
    // SAFETY: `dir` is NUL-terminated at `dlen`; mkdir fails harmlessly
    // when it exists.
    unsafe { libc::mkdir(dir.as_ptr().cast(), 0o700) };
    // SAFETY: as above.
    let dfd = descriptor(unsafe { libc::open(dir.as_ptr().cast(), DIR_FLAGS) })
        .ok_or("cannot open its directory")?;
    let made = in_dir(dfd, dir.get(..dlen).unwrap_or_default());
    // SAFETY: our own descriptor.
    unsafe { libc::close(dfd) };
    made
}

/// With the directory open: checked, then the file made in it.
fn in_dir(dfd: c_int, dir: &[u8]) -> Result<*mut u8, &'static str> {
    // SAFETY: geteuid cannot fail.
    let euid = unsafe { libc::geteuid() };
    let st = fstat(dfd).ok_or("cannot stat its directory")?;
    // (A directory: it was opened with O_DIRECTORY.)
    if st.st_uid != euid || st.st_mode & 0o077 != 0 {
        return Err("its directory is not this user's own, or others may enter it");
    }
    let mut name = room();
    let mut n = Line::on(&mut name);
    // SAFETY: getpid cannot fail.
    n.dec(b"", unsafe { libc::getpid() }.into());
    n.push(b"\0");
    let name = n.text();
    // An old file of this id (an exited process's, or ours before exec)
    // removed first, then the file made anew.
    // SAFETY: `name` is NUL-terminated; `dfd` is open.
    let fd = descriptor(unsafe {
        libc::unlinkat(dfd, name.as_ptr().cast(), 0);
        libc::openat(dfd, name.as_ptr().cast(), FILE_FLAGS, 0o600)
    })
    .ok_or("cannot create its file")?;
    // SAFETY: our new file, its space reserved before it is mapped.
    let base = unsafe {
        if libc::fallocate(fd, 0, 0, FILE_BYTES as libc::off_t) != 0 {
            libc::unlinkat(dfd, name.as_ptr().cast(), 0);
            libc::close(fd);
            return Err("no room for its file (a full /dev/shm?)");
        }
        let p = libc::mmap(ptr::null_mut(), FILE_BYTES, PROT, libc::MAP_SHARED, fd, 0);
        libc::close(fd);
        p
    };
    if base == libc::MAP_FAILED {
        return Err("cannot map its file");
    }
    let base = base.cast::<u8>();
    fill_header(base);
    // The path, for the removal at exit.
    let path = PATH.get().cast::<u8>();
    // SAFETY: the directory (under a line's MAX bytes), '/' and the name
    // with its NUL fit in PATH_MAX (see the assertion below).
    unsafe {
        ptr::copy_nonoverlapping(dir.as_ptr(), path, dir.len());
        *path.add(dir.len()) = b'/';
        ptr::copy_nonoverlapping(name.as_ptr(), path.add(dir.len() + 1), name.len());
    }
    Ok(base)
}

/// The directory's path into `out`, NUL-terminated; its length.
fn directory(out: &mut [u8; PATH_MAX]) -> Option<usize> {
    let mut room = room();
    let mut p = Line::on(&mut room);
    // SAFETY: a C string; the value is used at once.
    let xdg = unsafe { secure_getenv(c"XDG_RUNTIME_DIR".as_ptr()) };
    // SAFETY: non-NULL, so a C string.
    let xdg = (!xdg.is_null()).then(|| unsafe { CStr::from_ptr(xdg) }.to_bytes());
    match xdg.filter(|x| x.first() == Some(&b'/')) {
        Some(x) => {
            p.push(x);
            p.push(b"/");
            p.push(layout::DIR_IN_RUNTIME.as_bytes());
        }
        None => {
            p.push(layout::SHM_DIR_PREFIX.as_bytes());
            // SAFETY: geteuid cannot fail.
            p.dec(b"", unsafe { libc::geteuid() }.into());
        }
    }
    let text = p.text();
    // A line may have been cut at its room: then the path is not whole.
    if text.len() + 1 >= line::MAX {
        return None;
    }
    // SAFETY: `text.len() + 1` bytes, under MAX, fit in `out` (PATH_MAX).
    unsafe {
        ptr::copy_nonoverlapping(text.as_ptr(), out.as_mut_ptr(), text.len());
        *out.as_mut_ptr().add(text.len()) = 0;
    }
    Some(text.len())
}

/// The header and the names, in a new (zeroed) file at `base`.
fn fill_header(base: *mut u8) {
    let mut comm = [0u8; 16];
    // SAFETY: PR_GET_NAME writes at most 16 bytes.
    unsafe { libc::prctl(libc::PR_GET_NAME, comm.as_mut_ptr()) };
    let now = monotonic();
    let h = layout::Header {
        magic: layout::MAGIC,
        version: layout::VERSION,
        header_size: layout::HEADER_SIZE as u32,
        // SAFETY: getpid cannot fail.
        pid: unsafe { libc::getpid() } as u32,
        nfuncs: Func::COUNT as u32,
        nblocks: layout::BLOCKS as u32,
        block_size: layout::block_size(Func::COUNT) as u32,
        start_ticks: start_ticks(),
        start_ns: (now.tv_sec as u64) * 1_000_000_000 + now.tv_nsec as u64,
        session: SESSION.load(Relaxed),
        comm,
        reserved: [0; 184],
    };
    // SAFETY: the header's 256 bytes at the start of the mapping.
    unsafe { ptr::write(base.cast::<layout::Header>(), h) };
    for (i, &f) in Func::ALL.iter().enumerate().take(layout::MAX_FUNCS) {
        let name = f.name().as_bytes();
        let at = layout::NAMES_OFFSET + i * layout::NAME_SIZE;
        // SAFETY: inside the header page (a name is cut to its slot, the
        // slot's last byte to spare; the unit tests check none is).
        unsafe {
            ptr::copy_nonoverlapping(
                name.as_ptr(),
                base.add(at),
                name.len().min(layout::NAME_LEN),
            );
            if f.may_block() {
                *base.add(at + layout::NAME_SIZE - 1) = layout::MAY_BLOCK;
            }
        }
    }
}

/// Field 22 of `/proc/self/stat`: when the process started (0 if unknown).
fn start_ticks() -> u64 {
    let mut buf = [0u8; 1024];
    // SAFETY: a C string; our own descriptor, read into `buf`.
    let n = unsafe {
        let Some(fd) = descriptor(libc::open(c"/proc/self/stat".as_ptr(), STAT_FLAGS)) else {
            return 0;
        };
        let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
        libc::close(fd);
        n
    };
    let text = buf.get(..n.max(0) as usize).unwrap_or_default();
    // The name, in parentheses, may hold spaces: count from the last ')'.
    let Some(close) = text.iter().rposition(|&c| c == b')') else {
        return 0;
    };
    let fields = text.get(close + 1..).unwrap_or_default();
    fields
        .split(|&c| c == b' ')
        .filter(|f| !f.is_empty())
        .nth(19)
        .map_or(0, |f| {
            f.iter()
                .take_while(|c| c.is_ascii_digit())
                .fold(0u64, |n, &c| {
                    n.wrapping_mul(10)
                        .wrapping_add(u64::from(c.wrapping_sub(b'0')))
                })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The header as a reader finds it: its fields, each function's name
    /// in its slot with the "may block" mark on exactly the ones that wait,
    /// and the time counting began (now, to the millisecond).
    #[test]
    fn header_and_names() {
        let mut page = vec![0u64; layout::HEADER_SIZE / 8];
        let base = page.as_mut_ptr().cast::<u8>();
        let t = monotonic();
        fill_header(base);
        // SAFETY: the header was written at the start of the page.
        let h = unsafe { ptr::read(base.cast::<layout::Header>()) };
        let now = (t.tv_sec as u64) * 1_000_000_000 + t.tv_nsec as u64;
        assert_eq!(h.magic, layout::MAGIC);
        assert_eq!(h.pid, std::process::id());
        assert_eq!(h.nfuncs as usize, Func::COUNT);
        assert!(
            h.start_ns >= now && h.start_ns - now < 1_000_000,
            "{} vs {now}",
            h.start_ns
        );
        // SAFETY: the page's bytes.
        let bytes = unsafe { core::slice::from_raw_parts(base, layout::HEADER_SIZE) };
        for (i, f) in Func::ALL.iter().enumerate() {
            let at = layout::NAMES_OFFSET + i * layout::NAME_SIZE;
            let slot = &bytes[at..at + layout::NAME_SIZE];
            let name = f.name().as_bytes();
            assert_eq!(&slot[..name.len()], name);
            assert!(
                slot[name.len()..layout::NAME_SIZE - 1]
                    .iter()
                    .all(|&b| b == 0)
            );
            let mark = if f.may_block() { layout::MAY_BLOCK } else { 0 };
            assert_eq!(slot[layout::NAME_SIZE - 1], mark, "{}", f.name());
        }
        let end = layout::NAMES_OFFSET + Func::COUNT * layout::NAME_SIZE;
        assert!(bytes[end..].iter().all(|&b| b == 0), "past the names");
    }

    /// What the file's making takes for granted: every function has a slot
    /// and every name fits its slot whole; the path (a directory shorter
    /// than a line, '/', a process id and its NUL) fits PATH_MAX.
    #[test]
    fn names_and_path_fit() {
        assert!(Func::COUNT <= layout::MAX_FUNCS);
        assert!(Func::ALL.iter().all(|f| f.name().len() <= layout::NAME_LEN));
        assert!(line::MAX + 1 + 21 <= PATH_MAX);
    }
}

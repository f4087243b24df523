//! The counters files that the library publishes with `RDMAVERBS_STATS=1`
//! (layout: `rdmaverbs-format`): where they are, reading one, which belong
//! to live processes, and the table.
//!
//! Only the user's own are read: the directory must be a directory (not a
//! symbolic link), owned by the user, with no permission for group or
//! others, and each file a regular file owned by the user, opened without
//! following a link. A file whose process has exited (no process with its
//! id and start time) is removed, unless `rdmaverbs-trace -c` (its session,
//! still running) is about to read it.

use std::ffi::OsString;
use std::fs;
use std::io::{self, Read};
use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use rdmaverbs_format as layout;

/// One process's counts, as read from its file.
#[derive(Clone, Debug)]
pub struct Counts {
    pub pid: u32,
    /// Its name (`PR_GET_NAME`).
    pub comm: String,
    /// When it started (field 22 of `/proc/PID/stat`).
    pub start_ticks: u64,
    /// `CLOCK_MONOTONIC` (ns) when it began counting.
    pub start_ns: u64,
    /// The `rdmaverbs-trace -c` session it counts for (0: none).
    pub session: u64,
    /// Per function: its name, whether it may block, and its totals
    /// (calls, bytes, errors, blocked) over all blocks.
    pub rows: Vec<Row>,
}

/// One function's totals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub name: String,
    pub may_block: bool,
    pub totals: [u64; layout::COLUMNS],
}

/// The directory of this user's counters files, as the library picks it:
/// `$XDG_RUNTIME_DIR/rdmaverbs`, else `/dev/shm/rdmaverbs-UID`.
pub fn dir() -> PathBuf {
    match std::env::var_os("XDG_RUNTIME_DIR")
        .filter(|x| x.as_encoded_bytes().first() == Some(&b'/'))
    {
        Some(x) => Path::new(&x).join(layout::DIR_IN_RUNTIME),
        // SAFETY: geteuid cannot fail.
        None => PathBuf::from(format!("{}{}", layout::SHM_DIR_PREFIX, unsafe {
            libc::geteuid()
        })),
    }
}

/// `dir`, checked to be this user's own: `Ok(false)` when it does not exist.
pub fn check_dir(dir: &Path) -> Result<bool, String> {
    let m = match fs::symlink_metadata(dir) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(format!("{}: {e}", dir.display())),
    };
    // SAFETY: geteuid cannot fail.
    let me = unsafe { libc::geteuid() };
    if !m.is_dir() || m.uid() != me || m.mode() & 0o077 != 0 {
        return Err(format!(
            "{}: not a directory of yours closed to others (owner {}, mode {:o}); not reading it",
            dir.display(),
            m.uid(),
            m.mode() & 0o7777
        ));
    }
    Ok(true)
}

/// Reads the counters file at `path` (checked: a regular file of the user,
/// no link followed).
pub fn read(path: &Path) -> Result<Counts, String> {
    let what = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let mut f = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| what(&e))?;
    let m = f.metadata().map_err(|e| what(&e))?;
    // SAFETY: geteuid cannot fail.
    if !m.is_file() || m.uid() != unsafe { libc::geteuid() } {
        return Err(what(&"not a regular file of yours"));
    }
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes).map_err(|e| what(&e))?;
    parse(&bytes).map_err(|e| what(&e))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_ne_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_ne_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// A C string in `b` (up to its first NUL).
fn c_str(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

/// The counts in a counters file's bytes.
pub fn parse(b: &[u8]) -> Result<Counts, String> {
    use core::mem::offset_of;
    use layout::Header as H;
    let bad = |what: &str| format!("not a counters file of this version ({what})");
    if b.get(..8) != Some(&layout::MAGIC[..]) {
        return Err(bad("magic"));
    }
    let field32 = |at| u32_at(b, at).ok_or_else(|| bad("short"));
    let field64 = |at| u64_at(b, at).ok_or_else(|| bad("short"));
    if field32(offset_of!(H, version))? != layout::VERSION
        || field32(offset_of!(H, header_size))? as usize != layout::HEADER_SIZE
    {
        return Err(bad("version"));
    }
    let nfuncs = field32(offset_of!(H, nfuncs))? as usize;
    let nblocks = field32(offset_of!(H, nblocks))? as usize;
    let block_size = field32(offset_of!(H, block_size))? as usize;
    if nfuncs > layout::MAX_FUNCS
        || block_size != layout::block_size(nfuncs)
        || nblocks != layout::BLOCKS
        || b.len() < layout::file_size(nfuncs)
    {
        return Err(bad("sizes"));
    }
    let comm_at = offset_of!(H, comm);
    let mut rows = Vec::with_capacity(nfuncs);
    for f in 0..nfuncs {
        let at = layout::NAMES_OFFSET + f * layout::NAME_SIZE;
        let entry = &b[at..at + layout::NAME_SIZE];
        let mut totals = [0u64; layout::COLUMNS];
        for (column, t) in totals.iter_mut().enumerate() {
            for block in 0..nblocks {
                let v = u64_at(b, layout::counter_offset(nfuncs, block, f, column)).unwrap_or(0);
                *t = t.wrapping_add(v);
            }
        }
        rows.push(Row {
            name: c_str(&entry[..layout::NAME_SIZE - 1]),
            may_block: entry[layout::NAME_SIZE - 1] & layout::MAY_BLOCK != 0,
            totals,
        });
    }
    Ok(Counts {
        pid: field32(offset_of!(H, pid))?,
        comm: c_str(&b[comm_at..comm_at + 16]),
        start_ticks: field64(offset_of!(H, start_ticks))?,
        start_ns: field64(offset_of!(H, start_ns))?,
        session: field64(offset_of!(H, session))?,
        rows,
    })
}

/// Field 22 of `/proc/PID/stat` (the process's start), if it is running.
pub fn start_ticks(pid: u32) -> Option<u64> {
    let s = fs::read(format!("/proc/{pid}/stat")).ok()?;
    let close = s.iter().rposition(|&c| c == b')')?;
    let rest = String::from_utf8_lossy(&s[close + 1..]).into_owned();
    rest.split_whitespace().nth(19)?.parse().ok()
}

impl Counts {
    /// Whether the process that wrote it still runs (the same id and start).
    pub fn alive(&self) -> bool {
        start_ticks(self.pid) == Some(self.start_ticks)
    }

    /// Whether its `rdmaverbs-trace -c` still runs (and will read it).
    pub fn session_alive(&self) -> bool {
        // SAFETY: signal 0 only asks whether the process exists.
        self.session != 0 && unsafe { libc::kill(self.session as libc::pid_t, 0) } == 0
    }

    /// A row's totals by name.
    pub fn of(&self, name: &str) -> Option<&Row> {
        self.rows.iter().find(|r| r.name == name)
    }
}

/// Every counters file in `dir` with the counts in it; the files of
/// processes that have exited are removed (and left out), unless their
/// session still runs (then they are listed). Files that cannot be read are
/// skipped.
pub fn scan(dir: &Path) -> Result<Vec<(PathBuf, Counts)>, String> {
    if !check_dir(dir)? {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    let entries = fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for e in entries.flatten() {
        let name: OsString = e.file_name();
        let name = name.into_vec();
        if name.is_empty() || !name.iter().all(u8::is_ascii_digit) {
            continue;
        }
        let path = e.path();
        let Ok(c) = read(&path) else { continue };
        if !c.alive() && !c.session_alive() {
            let _ = fs::remove_file(&path);
            continue;
        }
        out.push((path, c));
    }
    out.sort_by_key(|(_, c)| c.pid);
    Ok(out)
}

/// The table of `rows` with calls (as the library's exit table: function,
/// calls, bytes, errors, blocked), each line prefixed by `prefix`.
pub fn table(rows: &[Row], prefix: &str) -> String {
    let shown = || rows.iter().filter(|r| r.totals[layout::CALLS] != 0);
    // 20 wide, or as wide as the longest name shown (as the exit table).
    let w = shown().map(|r| r.name.len() + 1).fold(20, usize::max);
    let mut s = format!(
        "{prefix}{:<w$}{:>13}{:>15}{:>11}{:>11}\n",
        "function", "calls", "bytes", "errors", "blocked"
    );
    for r in shown() {
        let blocked = if r.may_block {
            r.totals[layout::BLOCKED].to_string()
        } else {
            "-".into()
        };
        s += &format!(
            "{prefix}{:<w$}{:>13}{:>15}{:>11}{:>11}\n",
            r.name,
            r.totals[layout::CALLS],
            r.totals[layout::BYTES],
            r.totals[layout::ERRORS],
            blocked
        );
    }
    s
}

/// The rows of several processes added up by function name (in the order
/// in which they first appear).
pub fn sum<'a>(all: impl IntoIterator<Item = &'a Counts>) -> Vec<Row> {
    let mut out: Vec<Row> = Vec::new();
    for c in all {
        for r in &c.rows {
            match out.iter_mut().find(|o| o.name == r.name) {
                Some(o) => {
                    for (a, b) in o.totals.iter_mut().zip(r.totals) {
                        *a = a.wrapping_add(b);
                    }
                }
                None => out.push(r.clone()),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A counters file for two functions, with counts in two blocks.
    fn file() -> Vec<u8> {
        let n = 2;
        let mut b = vec![0u8; layout::file_size(n)];
        b[..8].copy_from_slice(&layout::MAGIC);
        let put32 =
            |b: &mut Vec<u8>, at: usize, v: u32| b[at..at + 4].copy_from_slice(&v.to_ne_bytes());
        let put64 =
            |b: &mut Vec<u8>, at: usize, v: u64| b[at..at + 8].copy_from_slice(&v.to_ne_bytes());
        use core::mem::offset_of;
        use layout::Header as H;
        put32(&mut b, offset_of!(H, version), layout::VERSION);
        put32(
            &mut b,
            offset_of!(H, header_size),
            layout::HEADER_SIZE as u32,
        );
        put32(&mut b, offset_of!(H, pid), 4242);
        put32(&mut b, offset_of!(H, nfuncs), n as u32);
        put32(&mut b, offset_of!(H, nblocks), layout::BLOCKS as u32);
        put32(
            &mut b,
            offset_of!(H, block_size),
            layout::block_size(n) as u32,
        );
        put64(&mut b, offset_of!(H, session), 7);
        b[offset_of!(H, comm)..offset_of!(H, comm) + 4].copy_from_slice(b"ping");
        b[layout::NAMES_OFFSET..layout::NAMES_OFFSET + 4].copy_from_slice(b"post");
        let second = layout::NAMES_OFFSET + layout::NAME_SIZE;
        b[second..second + 4].copy_from_slice(b"comp");
        b[second + layout::NAME_SIZE - 1] = layout::MAY_BLOCK;
        put64(&mut b, layout::counter_offset(n, 0, 0, layout::CALLS), 3);
        put64(&mut b, layout::counter_offset(n, 5, 0, layout::CALLS), 4);
        put64(
            &mut b,
            layout::counter_offset(n, layout::BLOCKS - 1, 0, layout::BYTES),
            100,
        );
        put64(&mut b, layout::counter_offset(n, 2, 1, layout::BLOCKED), 9);
        b
    }

    #[test]
    fn parses_and_sums_the_blocks() {
        let c = parse(&file()).unwrap();
        assert_eq!((c.pid, c.comm.as_str(), c.session), (4242, "ping", 7));
        assert_eq!(
            c.rows[0],
            Row {
                name: "post".into(),
                may_block: false,
                totals: [7, 100, 0, 0]
            }
        );
        assert_eq!(
            c.rows[1],
            Row {
                name: "comp".into(),
                may_block: true,
                totals: [0, 0, 0, 9]
            }
        );
        let both = sum([&c, &c]);
        assert_eq!(both[0].totals, [14, 200, 0, 0]);
        let t = table(&both, "x: ");
        assert_eq!(t.lines().count(), 2, "{t}");
        assert!(t.lines().nth(1).unwrap().starts_with("x: post"));
    }

    #[test]
    fn refuses_what_is_not_one() {
        let mut b = file();
        b[0] = b'X';
        assert!(parse(&b).is_err());
        let b = file();
        assert!(parse(&b[..layout::HEADER_SIZE]).is_err());
        let mut b = file();
        b[offset_of_version()] = 9;
        assert!(parse(&b).is_err());
    }

    fn offset_of_version() -> usize {
        core::mem::offset_of!(layout::Header, version)
    }
}

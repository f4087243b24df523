//! rdmaverbs-stat: the counters of a running process, as `jstat` reads a
//! JVM's: the processes of the user that publish them
//! (`RDMAVERBS_STATS=1`), or one of them, sampled every few seconds.
//!
//!   rdmaverbs-stat [-i SECONDS] [-n COUNT] [PID]
//!
//! See rdmaverbs-stat(1).

use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use rdmaverbs_format as layout;
use rdmaverbs_tools::counts::{self, Counts};

const USAGE: &str = "\
usage: rdmaverbs-stat [-i SECONDS] [-n COUNT] [PID]

  (no PID)     the processes of yours that publish their counters
               (run with RDMAVERBS_STATS=1): pid and command
  PID          that process's calls, bytes, errors and blocked waits per
               function, totals and rates, every -i seconds
  -i SECONDS   the interval (default 1; fractions allowed)
  -n COUNT     stop after COUNT samples (default: until the process ends)
  -h, --help   this text;  -V, --version  the version";

struct Opts {
    interval: f64,
    count: Option<u64>,
    pid: Option<u32>,
}

fn parse() -> Result<Opts, lexopt::Error> {
    use lexopt::prelude::*;
    let mut p = lexopt::Parser::from_env();
    let mut o = Opts {
        interval: 1.0,
        count: None,
        pid: None,
    };
    while let Some(arg) = p.next()? {
        match arg {
            Short('i') => {
                o.interval = p.value()?.parse()?;
                if !(o.interval > 0.0 && o.interval.is_finite()) {
                    return Err("-i takes a number of seconds above 0".into());
                }
            }
            Short('n') => o.count = Some(p.value()?.parse()?),
            Short('h') | Long("help") => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            Short('V') | Long("version") => {
                println!("rdmaverbs-stat {}", rdmaverbs_tools::VERSION);
                std::process::exit(0);
            }
            Value(v) if o.pid.is_none() => o.pid = Some(v.parse()?),
            _ => return Err(arg.unexpected()),
        }
    }
    Ok(o)
}

/// The processes of the user that publish their counters.
fn list() -> Result<(), String> {
    let dir = counts::dir();
    let all = counts::scan(&dir)?;
    println!("{:>8}  COMMAND", "PID");
    for (_, c) in all.iter().filter(|(_, c)| c.alive()) {
        println!("{:>8}  {}", c.pid, c.comm);
    }
    Ok(())
}

/// The counts of `pid`, if it is a live process of the user's that
/// publishes them.
fn sample(dir: &Path, pid: u32) -> Result<Option<Counts>, String> {
    if !counts::check_dir(dir)? {
        return Ok(None);
    }
    match counts::read(&dir.join(pid.to_string())) {
        Ok(c) if c.pid == pid && c.alive() => Ok(Some(c)),
        Ok(_) => Ok(None),
        Err(_) if !dir.join(pid.to_string()).exists() => Ok(None),
        Err(e) => Err(e),
    }
}

/// `CLOCK_MONOTONIC` in nanoseconds (the clock of the file's start).
fn now_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: writes `t`.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// One sample: totals, and rates since `prev` (or since the process began
/// counting).
fn print(c: &Counts, prev: Option<(&Counts, u64)>, at: u64) {
    let since = prev.map_or(c.start_ns, |(_, t)| t);
    let dt = (at.saturating_sub(since)) as f64 / 1e9;
    println!(
        "rdmaverbs-stat: pid {} ({}), counting for {:.3} s; rates over the last {:.3} s",
        c.pid,
        c.comm,
        at.saturating_sub(c.start_ns) as f64 / 1e9,
        dt
    );
    println!(
        "{:<26}{:>12}{:>12}{:>15}{:>14}{:>9}{:>9}",
        "function", "calls", "calls/s", "bytes", "bytes/s", "errors", "blocked"
    );
    for r in c.rows.iter().filter(|r| r.totals[layout::CALLS] != 0) {
        let before = prev
            .and_then(|(p, _)| p.of(&r.name))
            .map_or([0; 4], |p| p.totals);
        let rate = |col: usize| {
            if dt > 0.0 {
                r.totals[col].saturating_sub(before[col]) as f64 / dt
            } else {
                0.0
            }
        };
        let blocked = if r.may_block {
            r.totals[layout::BLOCKED].to_string()
        } else {
            "-".into()
        };
        println!(
            "{:<26}{:>12}{:>12.1}{:>15}{:>14.1}{:>9}{:>9}",
            r.name,
            r.totals[layout::CALLS],
            rate(layout::CALLS),
            r.totals[layout::BYTES],
            rate(layout::BYTES),
            r.totals[layout::ERRORS],
            blocked
        );
    }
}

/// Samples `pid` every `interval` seconds, `count` times or until it ends.
fn watch(pid: u32, interval: f64, count: Option<u64>) -> Result<u8, String> {
    let dir = counts::dir();
    let mut prev: Option<(Counts, u64)> = None;
    let mut n = 0u64;
    let start = Instant::now();
    loop {
        let at = now_ns();
        let Some(c) = sample(&dir, pid)? else {
            if prev.is_none() {
                eprintln!(
                    "rdmaverbs-stat: no process {pid} of yours publishes its counters \
                     (it runs with RDMAVERBS_STATS=1; see {})",
                    dir.display()
                );
                return Ok(1);
            }
            eprintln!("rdmaverbs-stat: process {pid} has ended");
            return Ok(0);
        };
        if n > 0 {
            println!();
        }
        print(&c, prev.as_ref().map(|(p, t)| (p, *t)), at);
        n += 1;
        if count.is_some_and(|k| n >= k) {
            return Ok(0);
        }
        prev = Some((c, at));
        // The next sample at start + n intervals (no drift).
        let next = start + Duration::from_secs_f64(interval * n as f64);
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    }
}

fn main() -> ExitCode {
    let o = match parse() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("rdmaverbs-stat: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let r = match o.pid {
        None => list().map(|()| 0),
        Some(pid) => watch(pid, o.interval, o.count),
    };
    match r {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("rdmaverbs-stat: {e}");
            ExitCode::from(1)
        }
    }
}

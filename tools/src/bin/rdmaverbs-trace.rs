//! rdmaverbs-trace: runs a program watched by the preload library, as
//! `strace` and `ltrace` do, or reads a trace's latencies.
//!
//!   rdmaverbs-trace [-c] [-o FILE] [--] PROGRAM [ARGS...]
//!   rdmaverbs-trace --latency FILE [--svg OUT]
//!
//! See rdmaverbs-trace(1).

use std::ffi::OsString;
use std::fs;
use std::io::{self, BufReader, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use rdmaverbs_tools::{counts, latency, svg};

const USAGE: &str = "\
usage: rdmaverbs-trace [-c] [-o FILE] [--] PROGRAM [ARGS...]
       rdmaverbs-trace --latency FILE [--svg OUT]

  -c              count instead of tracing: the table of calls, bytes,
                  errors and blocked waits when PROGRAM ends
  -o FILE         the trace (or, with -c, the table) to FILE, not stderr
  --latency FILE  per opcode, post-to-completion latency of a trace
  --svg OUT       with --latency: a histogram in OUT
  -h, --help      this text;  -V, --version  the version

PROGRAM runs with librdmaverbs-preload.so preloaded (RDMAVERBS_PRELOAD to use
another copy); its exit status is the command's (a signal N as 128+N).";

/// What to do.
enum Job {
    Run {
        count: bool,
        out: Option<PathBuf>,
        program: OsString,
        args: Vec<OsString>,
    },
    Latency {
        trace: PathBuf,
        svg: Option<PathBuf>,
    },
}

fn parse() -> Result<Job, lexopt::Error> {
    use lexopt::prelude::*;
    let mut p = lexopt::Parser::from_env();
    let (mut count, mut out, mut lat, mut svg) = (false, None, None, None);
    while let Some(arg) = p.next()? {
        match arg {
            Short('c') => count = true,
            Short('o') => out = Some(PathBuf::from(p.value()?)),
            Long("latency") => lat = Some(PathBuf::from(p.value()?)),
            Long("svg") => svg = Some(PathBuf::from(p.value()?)),
            Short('h') | Long("help") => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            Short('V') | Long("version") => {
                println!("rdmaverbs-trace {}", rdmaverbs_tools::VERSION);
                std::process::exit(0);
            }
            Value(program) => {
                if lat.is_some() {
                    return Err("--latency takes no PROGRAM".into());
                }
                let args = p.raw_args()?.collect();
                return Ok(Job::Run {
                    count,
                    out,
                    program,
                    args,
                });
            }
            _ => return Err(arg.unexpected()),
        }
    }
    match lat {
        Some(trace) if !count && out.is_none() => Ok(Job::Latency { trace, svg }),
        Some(_) => Err("--latency takes neither -c nor -o".into()),
        None => Err("no PROGRAM to run".into()),
    }
}

/// The preload library: `RDMAVERBS_PRELOAD`, else where this installation
/// put it (the Makefile builds the command with that path).
fn preload() -> Result<PathBuf, String> {
    let p = match std::env::var_os("RDMAVERBS_PRELOAD") {
        Some(p) => PathBuf::from(p),
        None => match option_env!("RDMAVERBS_PRELOAD_PATH") {
            Some(p) => PathBuf::from(p),
            None => {
                return Err(
                    "this build does not know where librdmaverbs-preload.so is; \
                            set RDMAVERBS_PRELOAD to its path"
                        .into(),
                );
            }
        },
    };
    if !p.is_file() {
        return Err(format!(
            "{}: no preload library there (RDMAVERBS_PRELOAD names another)",
            p.display()
        ));
    }
    Ok(p)
}

/// A path with a `/`, as `RDMAVERBS_TRACE` wants one: made absolute.
fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().map_or_else(|_| Path::new(".").join(p), |d| d.join(p))
    }
}

/// Runs PROGRAM; its exit status as the command's.
fn run(count: bool, out: Option<PathBuf>, program: OsString, args: Vec<OsString>) -> u8 {
    let lib = match preload() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("rdmaverbs-trace: {e}");
            return 1;
        }
    };
    let mut ld = lib.into_os_string();
    if let Some(old) = std::env::var_os("LD_PRELOAD").filter(|o| !o.is_empty()) {
        ld.push(" ");
        ld.push(old);
    }
    let session = std::process::id().to_string();
    let mut cmd = Command::new(&program);
    cmd.args(&args).env("LD_PRELOAD", ld);
    if count {
        // No trace: the counts, kept in files for this session.
        cmd.env_remove("RDMAVERBS_TRACE")
            .env("RDMAVERBS_STATS", "1")
            .env("RDMAVERBS_STATS_SESSION", &session);
    } else {
        let to = out
            .as_deref()
            .map_or_else(|| "1".into(), |o| absolute(o).into_os_string());
        cmd.env("RDMAVERBS_TRACE", to);
    }
    let what = Path::new(&program).display().to_string();
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            let (code, why) = match e.kind() {
                io::ErrorKind::NotFound => (127, "command not found".to_string()),
                io::ErrorKind::PermissionDenied => (126, "permission denied".into()),
                _ => (126, e.to_string()),
            };
            eprintln!("rdmaverbs-trace: {what}: {why}");
            return code;
        }
    };
    // Ctrl-C and Ctrl-\ are the program's: it gets them from the terminal,
    // and this command waits to report how it ended.
    // SAFETY: ignoring two signals in this process only.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_IGN);
        libc::signal(libc::SIGQUIT, libc::SIG_IGN);
    }
    let status = match child.wait() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("rdmaverbs-trace: waiting for {what}: {e}");
            return 1;
        }
    };
    if count {
        if let Err(e) = report(&session, out.as_deref(), &what) {
            eprintln!("rdmaverbs-trace: {e}");
        }
    }
    match (status.code(), status.signal()) {
        (Some(c), _) => c as u8,
        (None, Some(sig)) => (128 + sig) as u8,
        (None, None) => 1,
    }
}

/// With -c, after PROGRAM ends: the counts of its processes (those of this
/// session), added up, as a table; their files removed.
fn report(session: &str, out: Option<&Path>, what: &str) -> Result<(), String> {
    let session: u64 = session.parse().unwrap_or(0);
    let dir = counts::dir();
    let mine: Vec<_> = counts::scan(&dir)?
        .into_iter()
        .filter(|(_, c)| c.session == session)
        .collect();
    let rows = counts::sum(mine.iter().map(|(_, c)| c));
    let mut text = format!(
        "rdmaverbs-trace: counted in {} process{} of {what}\n",
        mine.len(),
        if mine.len() == 1 { "" } else { "es" }
    );
    text += &counts::table(&rows, "");
    for (path, c) in &mine {
        if !c.alive() {
            let _ = fs::remove_file(path);
        }
    }
    match out {
        Some(o) => fs::write(o, text).map_err(|e| format!("{}: {e}", o.display())),
        None => io::stderr()
            .write_all(text.as_bytes())
            .map_err(|e| e.to_string()),
    }
}

/// --latency: the table on stdout, and the histogram to OUT.
fn latency(trace: &Path, svg_out: Option<&Path>) -> u8 {
    let r = match fs::File::open(trace).and_then(|f| latency::analyze(BufReader::new(f))) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("rdmaverbs-trace: {}: {e}", trace.display());
            return 1;
        }
    };
    print!("{}", latency::table(&r));
    if let Some(o) = svg_out {
        let title = format!("{}: post to completion, per opcode", trace.display());
        if let Err(e) = fs::write(o, svg::histogram(&r, &title)) {
            eprintln!("rdmaverbs-trace: {}: {e}", o.display());
            return 1;
        }
    }
    0
}

fn main() -> ExitCode {
    let job = match parse() {
        Ok(j) => j,
        Err(e) => {
            eprintln!("rdmaverbs-trace: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    ExitCode::from(match job {
        Job::Run {
            count,
            out,
            program,
            args,
        } => run(count, out, program, args),
        Job::Latency { trace, svg } => latency(&trace, svg.as_deref()),
    })
}

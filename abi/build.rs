//! What the library takes from rdma-core's headers, read from the headers
//! this build compiles against (never written down for one release):
//!
//! 1. The C types, constants and libibverbs' declarations of
//!    `<infiniband/verbs.h>`, by bindgen: `OUT_DIR/verbs.rs`
//!    (`src/verbs/header.rs` includes it). A struct's size, an op's place in
//!    `struct verbs_context`, a field an older header lacks: all the
//!    header's own.
//! 2. Which rows of the function table (`src/table.rs`, included below) the
//!    build has: a row mirroring a `static inline` function is in the build
//!    when the preprocessed headers (`<infiniband/verbs.h>`,
//!    `<rdma/rdma_cma.h>`, `<rdma/rdma_verbs.h>`) define it; rdmaverbs' own
//!    rows always. Each row the build has sets the cfg named after it (`cfg
//!    (ibv_wr_flush)`), here and, through the `links` metadata, in the crates
//!    above (`build/cfgs.rs`). The `static inline` functions that no row
//!    names (but `NOT_EXPORTED`) go to `OUT_DIR/unknown.txt`, which a unit
//!    test requires to be empty.
//!
//! 3. The headers' rdma-core release, as pkg-config has libibverbs: the
//!    cfg `rdma_core_N` for each behaviour change of `CHANGES` it reaches,
//!    and `RDMAVERBS_RDMA_CORE` for the tests that hold the table's `since`
//!    to it.
//!
//! The compiler is `CC` (else `cc`), with `CPPFLAGS` and `pkg-config
//! --cflags libibverbs librdmacm`, the flags a program built here gets.

use std::collections::{BTreeMap, BTreeSet};
use std::env;
use std::path::PathBuf;
use std::process::Command;

include!("src/table.rs");

/// A row of the table: its C name, node, and whether it is rdmaverbs' own.
struct Row {
    name: &'static str,
    node: &'static str,
    own: bool,
}

macro_rules! rows {
    (
        exports { $( $ev:ident $en:ident $node:literal $kind:ident $since:tt; )* }
        interposed { $( $iname:ident $inode:literal; )* }
    ) => {
        &[ $( Row { name: stringify!($en), node: $node, own: own!($since) }, )* ]
    };
}

macro_rules! own {
    (own) => {
        true
    };
    ($release:literal) => {
        false
    };
}

const ROWS: &[Row] = function_table!(rows);

/// The headers whose `static inline` functions the table mirrors.
const HEADERS: &[&str] = &["infiniband/verbs.h", "rdma/rdma_cma.h", "rdma/rdma_verbs.h"];

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").unwrap());
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=build/cfgs.rs");
    println!("cargo::rerun-if-changed=src/table.rs");
    for var in ["CC", "CPPFLAGS", "PKG_CONFIG_PATH"] {
        println!("cargo::rerun-if-env-changed={var}");
    }
    let flags = cflags();

    let (inline, files) = inline_functions(&flags);
    for f in &files {
        println!("cargo::rerun-if-changed={f}");
    }
    let present: Vec<&str> = ROWS
        .iter()
        .filter(|r| r.own || inline.contains_key(r.name))
        .map(|r| r.name)
        .collect();
    let mut unknown: Vec<String> = inline
        .keys()
        .filter(|n| !NOT_EXPORTED.contains(&n.as_str()) && !ROWS.iter().any(|r| r.name == *n))
        .map(|n| {
            format!(
                "{n}: static inline in <{}>, in no row of abi/src/table.rs",
                inline[n]
            )
        })
        .collect();
    for r in ROWS.iter().filter(|r| inline.contains_key(r.name)) {
        let origin = NODES.iter().find(|n| n.0 == r.node).map(|n| n.1);
        if origin != Some(inline[r.name].as_str()) {
            unknown.push(format!(
                "{}: static inline in <{}>, where the table's {} has {origin:?}",
                r.name, inline[r.name], r.node
            ));
        }
    }
    for u in &unknown {
        println!("cargo::warning={u}");
    }
    std::fs::write(out.join("unknown.txt"), unknown.join("\n")).unwrap();

    // The rows' cfgs, and those of the behaviour changes the headers'
    // release reaches (rdma_core_39).
    let release = release().expect(
        "pkg-config --modversion libibverbs: the build needs rdma-core's release, for the \
         behaviour of the originals that changed (abi/src/table.rs, CHANGES)",
    );
    let changes: Vec<String> = CHANGES
        .iter()
        .map(|c| format!("rdma_core_{}", c.1))
        .collect();
    let mut names: Vec<&str> = ROWS.iter().map(|r| r.name).collect();
    names.extend(changes.iter().map(String::as_str));
    let mut set = present;
    set.extend(
        CHANGES
            .iter()
            .zip(&changes)
            .filter(|(c, _)| release >= c.1)
            .map(|(_, n)| n.as_str()),
    );
    println!("cargo::metadata=rows={}", names.join(","));
    println!("cargo::metadata=present={}", set.join(","));
    cfgs::emit(&names, &set);

    println!("cargo::rustc-env=RDMAVERBS_RDMA_CORE={release}");
    bindings(&flags, &out);
    println!("cargo::rustc-link-lib=ibverbs");
}

mod cfgs {
    include!("build/cfgs.rs");
}

/// `CPPFLAGS` and pkg-config's flags for libibverbs and librdmacm (none
/// when pkg-config is missing: the system's include path).
fn cflags() -> Vec<String> {
    let mut flags: Vec<String> = env::var("CPPFLAGS")
        .unwrap_or_default()
        .split_whitespace()
        .map(String::from)
        .collect();
    let pc = env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".into());
    if let Ok(o) = Command::new(pc)
        .args(["--cflags", "libibverbs", "librdmacm"])
        .output()
    {
        if o.status.success() {
            flags.extend(
                String::from_utf8_lossy(&o.stdout)
                    .split_whitespace()
                    .map(String::from),
            );
        }
    }
    flags
}

/// The rdma-core release of the headers, as pkg-config knows libibverbs
/// (`1.14.44.0`: rdma-core 44), if it does.
fn release() -> Option<u32> {
    let pc = env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".into());
    let o = Command::new(pc)
        .args(["--modversion", "libibverbs"])
        .output()
        .ok()?;
    String::from_utf8_lossy(&o.stdout)
        .trim()
        .split('.')
        .nth(2)?
        .parse()
        .ok()
}

/// The functions that [`HEADERS`] define `static inline`, each with the
/// header it is in, and every file the preprocessed headers came from.
fn inline_functions(flags: &[String]) -> (BTreeMap<String, String>, BTreeSet<String>) {
    let cc = env::var("CC").unwrap_or_else(|_| "cc".into());
    let src: String = HEADERS
        .iter()
        .map(|h| format!("#include <{h}>\n"))
        .collect();
    let mut child = Command::new(&cc)
        .args(flags)
        .args(["-E", "-x", "c", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{cc}: {e}: the C compiler preprocesses rdma-core's headers"));
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(src.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(
        o.status.success(),
        "{cc} -E of {HEADERS:?} failed: install rdma-core's headers (libibverbs-dev, librdmacm-dev)"
    );
    let text = String::from_utf8_lossy(&o.stdout);

    // The text of each of HEADERS, by the preprocessor's line markers
    // (`# 12 "/usr/include/infiniband/verbs.h" 1`).
    let mut text_of: BTreeMap<&str, String> = BTreeMap::new();
    let mut files = BTreeSet::new();
    let mut ours: Option<&str> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# ") {
            if let Some(file) = rest.split('"').nth(1) {
                if file.starts_with('/') {
                    files.insert(file.to_string());
                }
                ours = HEADERS
                    .iter()
                    .copied()
                    .find(|h| file.ends_with(&format!("/{h}")));
            }
            continue;
        }
        if let Some(h) = ours {
            let t = text_of.entry(h).or_default();
            *t += line;
            t.push('\n');
        }
    }
    let mut found = BTreeMap::new();
    for (h, t) in &text_of {
        for name in definitions(t) {
            found.insert(name, h.to_string());
        }
    }
    assert!(
        found.contains_key("ibv_post_send") && found.contains_key("rdma_post_send"),
        "no static inline ibv_post_send or rdma_post_send found in {HEADERS:?}"
    );
    (found, files)
}

/// The names of the `static inline` function definitions in C text: the
/// identifier before the first `(` after `static inline` (or `__inline`,
/// `__inline__`), whose closing `)` is followed, past any
/// `__attribute__((..))`, by `{`.
fn definitions(c: &str) -> BTreeSet<String> {
    let b = c.as_bytes();
    let mut names = BTreeSet::new();
    let mut at = 0;
    while let Some(i) = c[at..].find("static") {
        let start = at + i;
        at = start + "static".len();
        let word_before = start > 0 && is_ident(b[start - 1]);
        let rest = c[at..].trim_start();
        let inline = ["inline", "__inline__", "__inline"].iter().any(|w| {
            rest.starts_with(w) && !rest[w.len()..].starts_with(|c: char| is_ident(c as u8))
        });
        if word_before || !inline {
            continue;
        }
        let Some(open) = c[at..].find(['(', ';', '{']).map(|p| at + p) else {
            break;
        };
        if b[open] != b'(' {
            continue;
        }
        let head = c[at..open].trim_end();
        let name: String = head
            .chars()
            .rev()
            .take_while(|&ch| is_ident(ch as u8))
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let Some(close) = matching(b, open) else {
            break;
        };
        let mut tail = c[close + 1..].trim_start();
        while let Some(attr) = tail.strip_prefix("__attribute__") {
            let a = attr.trim_start();
            let from = c.len() - a.len();
            let Some(end) = (a.starts_with('(')).then(|| matching(b, from)).flatten() else {
                break;
            };
            tail = c[end + 1..].trim_start();
        }
        if tail.starts_with('{') && !name.is_empty() {
            names.insert(name);
        }
        at = close;
    }
    names
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The `)` that closes the `(` at `open`.
fn matching(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The bindings of `<infiniband/verbs.h>` (`OUT_DIR/verbs.rs`), with the
/// options ibverbs-sys 0.3 gave the same header (its names and shapes:
/// `ibv_wr_opcode::IBV_WR_SEND`, bit-flag structs for the flag enums), and
/// `struct verbs_context` and `struct ibv_wc` too.
fn bindings(flags: &[String], out: &std::path::Path) {
    bindgen::Builder::default()
        .header_contents("rdmaverbs-verbs.h", "#include <infiniband/verbs.h>\n")
        .clang_args(flags)
        .rust_target(
            bindgen::RustTarget::stable(85, 0)
                .unwrap_or_else(|_| panic!("bindgen knows Rust 1.85")),
        )
        .rust_edition(bindgen::RustEdition::Edition2024)
        .allowlist_function("ibv_.*")
        .allowlist_function("_ibv_.*")
        .allowlist_type("ibv_.*")
        .allowlist_type("verbs_context")
        .allowlist_var("IBV_LINK_LAYER_.*")
        .bitfield_enum("ibv_access_flags")
        .bitfield_enum("ibv_qp_attr_mask")
        .bitfield_enum("ibv_wc_flags")
        .bitfield_enum("ibv_send_flags")
        .bitfield_enum("ibv_port_cap_flags")
        .constified_enum_module("ibv_qp_type")
        .constified_enum_module("ibv_qp_state")
        .constified_enum_module("ibv_port_state")
        .constified_enum_module("ibv_wc_opcode")
        .constified_enum_module("ibv_wr_opcode")
        .constified_enum_module("ibv_wc_status")
        .derive_default(true)
        .derive_debug(true)
        .prepend_enum_name(false)
        .size_t_is_usize(true)
        .layout_tests(false)
        .generate()
        .expect("bindgen of <infiniband/verbs.h> failed")
        .write_to_file(out.join("verbs.rs"))
        .expect("write OUT_DIR/verbs.rs");
}

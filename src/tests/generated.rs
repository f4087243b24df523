//! The files derived from the Rust sources, committed so that a build needs
//! no generator and a packager can read them: each must equal what is
//! generated now. `RDMAVERBS_BLESS=1` rewrites them instead (`make header`).
//!
//! - `include/rdma/rdma_verbs.h`: cbindgen, from the exports' definitions.
//! - `src/librdmaverbs.map`, `src/preload.map`: the version scripts of the
//!   two libraries, from the table (`src/functions.rs`).
//! - `c-tests/functions.h`: the X-macro list of the exports with their C
//!   signatures (from the header), for the C tests.
//! - `debian/librdmaverbs1.symbols`: every exported symbol at its version.

use std::path::Path;

use crate::functions::{Func, RETIRED_NODES};

const NOTE: &str = "Generated from src/functions.rs by `make header`; do not edit.";

/// The header, as cbindgen generates it from `src/`.
fn header() -> String {
    let dir = env!("CARGO_MANIFEST_DIR");
    let config = cbindgen::Config::from_file(Path::new(dir).join("cbindgen.toml")).unwrap();
    let mut out = Vec::new();
    cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .expect("cbindgen failed")
        .write(&mut out);
    String::from_utf8(out).unwrap()
}

/// The version nodes of the exports, in order, each with its functions.
fn nodes() -> Vec<(&'static str, Vec<&'static str>)> {
    let mut nodes: Vec<(&str, Vec<&str>)> = Vec::new();
    for f in Func::EXPORTS {
        let node = f.node().unwrap();
        match nodes.last_mut() {
            Some((n, fs)) if *n == node => fs.push(f.name()),
            _ => nodes.push((node, vec![f.name()])),
        }
    }
    nodes
}

/// A version script: the exports' nodes (each inheriting the one before),
/// then `extra` nodes of other symbols.
fn map(what: &str, extra: &[(&str, Vec<&str>)]) -> String {
    let mut s = format!("/* {NOTE}\n   {what} */\n");
    let mut prev: Option<&str> = None;
    for (i, (node, names)) in nodes().iter().enumerate() {
        s += &format!("{node} {{\n  global:\n");
        for n in names {
            s += &format!("    {n};\n");
        }
        if i == 0 {
            s += "  local:\n    *;\n";
        }
        match prev {
            None => s += "};\n",
            Some(p) => s += &format!("}} {p};\n"),
        }
        prev = Some(node);
    }
    for (node, names) in extra {
        if names.is_empty() {
            s += &format!("{node} {{\n}};\n");
            continue;
        }
        s += &format!("{node} {{\n  global:\n");
        for n in names {
            s += &format!("    {n};\n");
        }
        s += "};\n";
    }
    s
}

fn linked_map() -> String {
    let retired: Vec<(&str, Vec<&str>)> = RETIRED_NODES.iter().map(|n| (*n, vec![])).collect();
    map(
        "librdmaverbs.so.1 exports the functions of <rdma/rdma_verbs.h> and\n   <rdmaverbs.h>, each at its node, and nothing else; the empty nodes\n   are those of RETIRED_NODES (see there).",
        &retired,
    )
}

fn preload_map() -> String {
    let mut extra: Vec<(&str, Vec<&str>)> = Vec::new();
    for (name, node) in Func::INTERPOSED {
        match extra.iter_mut().find(|(n, _)| n == node) {
            Some((_, names)) => names.push(name),
            None => extra.push((node, vec![name])),
        }
    }
    extra.push((
        "RDMAVERBS_PRELOAD_PRIVATE",
        vec![crate::observe::PRELOAD_MARKER.to_str().unwrap()],
    ));
    map(
        "librdmaverbs-preload.so exports what librdmaverbs.so.1 does (so that a\n   program linked with it is observed once, by this library), the\n   libibverbs functions it interposes at libibverbs' versions, and its\n   marker, which tells librdmaverbs.so.1 that it is there.",
        &extra,
    )
}

/// `(return type, parameters, argument names)` of `name` in the header.
fn signature(header: &str, name: &str) -> (String, String, String) {
    let at = header
        .match_indices(&format!("{name}("))
        .map(|(i, _)| i)
        .find(|&i| matches!(header.as_bytes()[i - 1], b' ' | b'*'))
        .unwrap_or_else(|| panic!("{name} is not declared in the header"));
    let line_start = header[..at].rfind('\n').map_or(0, |i| i + 1);
    let ret = header[line_start..at].trim().to_string();
    let rest = &header[at + name.len() + 1..];
    let params = &rest[..rest.find(')').unwrap()];
    let params: Vec<String> = params
        .split(',')
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    let args: Vec<String> = params
        .iter()
        .map(|p| {
            p.rsplit(|c: char| c == ' ' || c == '*')
                .next()
                .unwrap()
                .to_string()
        })
        .collect();
    (
        ret,
        format!("({})", params.join(", ")),
        format!("({})", args.join(", ")),
    )
}

/// The C tests' X-macro lists.
fn c_list(header: &str) -> String {
    let mut s = format!(
        "/*\n * {NOTE}\n *\n * The exports as X-macro lists: X(return type, name, (parameters),\n * (arguments)), one list per symbol version node, then all of them; the\n * exports that may block, X(name); and the provider ops that the preload\n * library wraps, X(name).\n */\n#ifndef RDMAVERBS_FUNCTIONS_H\n#define RDMAVERBS_FUNCTIONS_H\n"
    );
    let mut all = Vec::new();
    for (node, names) in nodes() {
        let list = format!("{node}_FUNCTIONS").replace('.', "_");
        s += &format!("\n/* {node} */\n#define {list}(X)");
        for n in names {
            let (ret, params, args) = signature(header, n);
            s += &format!(" \\\n\tX({ret}, {n}, {params}, {args})");
        }
        s += "\n";
        all.push(list);
    }
    s += "\n/* Every export. */\n#define RDMAVERBS_FUNCTIONS(X)";
    for l in &all {
        s += &format!(" \\\n\t{l}(X)");
    }
    s += "\n\n/* The exports that may wait for a completion event. */\n#define RDMAVERBS_MAY_BLOCK(X)";
    for f in Func::EXPORTS.iter().filter(|f| f.may_block()) {
        s += &format!(" \\\n\tX({})", f.name());
    }
    s += "\n\n/* The wrapped provider ops. */\n#define RDMAVERBS_OPS(X)";
    for f in Func::ALL.iter().filter(|f| f.node().is_none()) {
        s += &format!(" \\\n\tX({})", f.name());
    }
    s += "\n\n#endif\n";
    s
}

/// The Debian symbols file: every symbol of librdmaverbs.so.1 at the
/// version that brought it (node `RDMAVERBS_X.Y`: upstream version X.Y.0).
fn debian_symbols() -> String {
    let mut rows = Vec::new();
    for (node, names) in nodes() {
        let since = format!("{}.0", node.trim_start_matches("RDMAVERBS_"));
        rows.push(format!(" {node}@{node} {since}"));
        for n in names {
            rows.push(format!(" {n}@{node} {since}"));
        }
    }
    for node in RETIRED_NODES {
        rows.push(format!(" {node}@{node} 1.0.0"));
    }
    rows.sort();
    format!(
        "librdmaverbs.so.1 librdmaverbs1 #MINVER#\n* Build-Depends-Package: librdmaverbs-dev\n{}\n",
        rows.join("\n")
    )
}

#[test]
fn generated_files_are_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let header = header();
    let files = [
        ("include/rdma/rdma_verbs.h", header.clone()),
        ("src/librdmaverbs.map", linked_map()),
        ("src/preload.map", preload_map()),
        ("c-tests/functions.h", c_list(&header)),
        ("debian/librdmaverbs1.symbols", debian_symbols()),
    ];
    let bless = std::env::var_os("RDMAVERBS_BLESS").is_some();
    let mut stale = Vec::new();
    for (path, text) in &files {
        let path = dir.join(path);
        if bless {
            std::fs::write(&path, text).unwrap();
        }
        if std::fs::read_to_string(&path).unwrap_or_default() != *text {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "differ from what is generated (run `make header` and commit): {stale:?}"
    );
}

#[test]
fn signatures_are_read_whole() {
    let h = "int f(int a,\n      struct x *b);\nstruct ibv_mr *g(void *p);\n";
    assert_eq!(
        signature(h, "f"),
        ("int".into(), "(int a, struct x *b)".into(), "(a, b)".into())
    );
    assert_eq!(signature(h, "g").0, "struct ibv_mr *");
}

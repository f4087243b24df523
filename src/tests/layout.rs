//! The shape of `src/`: no source file over 400 lines, and imports that flow
//! one way. Each file is a module; a module depends on what its `use`,
//! `crate::`/`$crate::` paths and `super::` paths name, and a `mod.rs` on the
//! modules it declares. No module may depend on itself through others, and
//! the rooms keep their order: `api` and `preload` above `observe`, above
//! `verbs`, above `functions`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MAX_LINES: usize = 400;

/// `(module path, code, lines)` of every file under `src/`: the code is the
/// text without comment lines; the lines count them all.
fn modules() -> Vec<(String, String, usize)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(&src).unwrap().with_extension("");
            let mut parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if parts.last().is_some_and(|l| l == "mod" || l == "lib") {
                parts.pop();
            }
            // Code only: comments may name any module.
            let raw = std::fs::read_to_string(&p).unwrap();
            let text: String = raw
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .map(|l| format!("{l}\n"))
                .collect();
            (parts.join("::"), text, raw.lines().count())
        })
        .collect()
}

/// The paths after `prefix` in `text`: `a::b` for `prefix a::b::c`-like
/// text (as many `::`-joined identifiers as follow), and each of `x, y` for
/// `prefix {x, y}`.
fn named_after(text: &str, prefix: &str) -> Vec<String> {
    fn path(s: &str) -> String {
        let mut out = String::new();
        let mut rest = s.trim_start();
        loop {
            let id: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if id.is_empty() {
                break;
            }
            if !out.is_empty() {
                out.push_str("::");
            }
            out.push_str(&id);
            rest = &rest[id.len()..];
            match rest.strip_prefix("::") {
                Some(r) => rest = r,
                None => break,
            }
        }
        out
    }
    let mut out = Vec::new();
    for (i, _) in text.match_indices(prefix) {
        // Only at the start of a path.
        let before = text[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &text[i + prefix.len()..];
        let parts: Vec<&str> = match rest.strip_prefix('{') {
            Some(inner) => inner.split('}').next().unwrap_or("").split(',').collect(),
            None => vec![rest],
        };
        for part in parts {
            let p = path(part);
            if !p.is_empty() && p != "self" {
                out.push(p);
            }
        }
    }
    out
}

/// The longest prefix of `path` (or of `base::path`, not above `base`) that
/// is a module other than `base`.
fn resolve(names: &BTreeSet<String>, base: &str, path: &str) -> Option<String> {
    let full = if base.is_empty() {
        path.to_string()
    } else {
        format!("{base}::{path}")
    };
    let mut cut = full.as_str();
    loop {
        if cut.len() <= base.len() {
            return None;
        }
        if names.contains(cut) {
            return Some(cut.to_string());
        }
        cut = &cut[..cut.rfind("::")?];
    }
}

/// Each module's dependencies on other modules of the crate.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mods = modules();
    let names: BTreeSet<String> = mods.iter().map(|(m, _, _)| m.clone()).collect();
    let mut g = BTreeMap::new();
    for (m, text, _) in &mods {
        // Unit tests may look anywhere.
        let text = text.split("#[cfg(test)]").next().unwrap_or("");
        let mut deps = BTreeSet::new();
        for prefix in ["crate::", "$crate::"] {
            for p in named_after(text, prefix) {
                deps.extend(resolve(&names, "", &p));
            }
        }
        // `super::` from a file names its siblings, or items of its
        // directory's mod.rs.
        let parent = m.rsplit_once("::").map_or("", |(p, _)| p);
        if !m.is_empty() {
            for p in named_after(text, "super::") {
                deps.insert(resolve(&names, parent, &p).unwrap_or_else(|| parent.to_string()));
            }
        }
        // A directory's mod.rs (or lib.rs) depends on the modules it declares.
        for p in named_after(text, "mod ") {
            deps.extend(resolve(&names, m, &p));
        }
        deps.retain(|d| names.contains(d) && d != m);
        g.insert(m.clone(), deps);
    }
    g
}

#[test]
fn no_file_over_the_limit() {
    let big: Vec<String> = modules()
        .iter()
        .filter(|(_, _, n)| *n > MAX_LINES)
        .map(|(m, _, n)| format!("{m}: {n} lines"))
        .collect();
    assert!(big.is_empty(), "over {MAX_LINES} lines: {big:?}");
}

#[test]
fn imports_flow_one_way() {
    let g = graph();
    // Depth-first search for a cycle.
    fn visit<'a>(
        g: &'a BTreeMap<String, BTreeSet<String>>,
        m: &'a str,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<String> {
        if let Some(i) = path.iter().position(|p| *p == m) {
            return Some(format!("{} -> {m}", path[i..].join(" -> ")));
        }
        if done.contains(m) {
            return None;
        }
        path.push(m);
        for d in &g[m] {
            if let Some(c) = visit(g, d, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(m);
        None
    }
    let mut done = BTreeSet::new();
    for m in g.keys() {
        if let Some(cycle) = visit(&g, m, &mut Vec::new(), &mut done) {
            panic!("import circle: {cycle}");
        }
    }
    // The rooms, top to bottom: a room may use only rooms below it.
    let rank = |m: &str| match m.split("::").next().unwrap() {
        "" | "tests" => 0,
        "api" | "preload" => 1,
        "observe" => 2,
        "verbs" => 3,
        "functions" | "sys" => 4,
        other => panic!("module {other} is in no room: add it to the layout test"),
    };
    for (m, deps) in &g {
        for d in deps {
            let (rm, rd) = (rank(m), rank(d));
            assert!(
                rm == 0 || rd > rm || m.split("::").next() == d.split("::").next(),
                "{m} (room {rm}) uses {d} (room {rd}): imports must flow down"
            );
        }
    }
    eprintln!(
        "layout: {} modules, {} dependencies, no circle",
        g.len(),
        g.values().map(BTreeSet::len).sum::<usize>()
    );
}

//! The shape of the workspace's Rust sources (the library's three crates,
//! the counters file's layout and the commands): no file over 400 lines,
//! and no folder with more than 12 files directly in it, so that a
//! newcomer sees a folder's job from its list. (That imports flow one way,
//! from the exports down to the observer and the ground floor, is the
//! crates' dependency graph: Cargo refuses a cycle.)

use std::path::{Path, PathBuf};

const MAX_LINES: usize = 400;
const MAX_FILES: usize = 12;

/// The crates' source folders, from the workspace's root.
const ROOTS: [&str; 5] = ["src", "abi/src", "observe/src", "format/src", "tools/src"];

/// Every folder under the roots, with the source files directly in it.
fn folders() -> Vec<(PathBuf, Vec<PathBuf>)> {
    fn walk(dir: &Path, out: &mut Vec<(PathBuf, Vec<PathBuf>)>) {
        let mut files = Vec::new();
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
        out.push((dir.to_path_buf(), files));
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for r in ROOTS {
        walk(&root.join(r), &mut out);
    }
    out
}

#[test]
fn no_file_over_the_limit() {
    let long: Vec<String> = folders()
        .into_iter()
        .flat_map(|(_, files)| files)
        .filter_map(|p| {
            let n = std::fs::read_to_string(&p).unwrap().lines().count();
            (n > MAX_LINES).then(|| format!("{}: {n} lines", p.display()))
        })
        .collect();
    assert!(long.is_empty(), "over {MAX_LINES} lines: {long:?}");
}

#[test]
fn no_folder_over_the_limit() {
    let crowded: Vec<String> = folders()
        .into_iter()
        .filter(|(_, files)| files.len() > MAX_FILES)
        .map(|(dir, files)| format!("{}: {} files", dir.display(), files.len()))
        .collect();
    assert!(crowded.is_empty(), "over {MAX_FILES} files: {crowded:?}");
}

//! librdmaverbs is linked by rdmaverbs-sys (pkg-config); the run path its
//! .pc file gives (an uninstalled tree's `-Wl,-rpath,DIR`), which cargo
//! passes to that package's own programs only, is passed here to this
//! package's examples and tests too (`DEP_RDMAVERBS_RPATH`, from
//! `links = "rdmaverbs"`). A program of yours finds the library as the
//! dynamic loader does (installed, or `LD_LIBRARY_PATH`).

fn main() {
    if let Ok(dirs) = std::env::var("DEP_RDMAVERBS_RPATH") {
        for dir in dirs.split(':').filter(|d| !d.is_empty()) {
            // this package's examples and tests (never the library itself)
            println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
        }
    }
}

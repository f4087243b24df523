//! Links librdmaverbs, librdmacm and libibverbs as the pkg-config command
//! finds them (the installation's rdmaverbs.pc, or another through
//! PKG_CONFIG_PATH; `PKG_CONFIG` names another pkg-config, a cross one).
//!
//! The link lines reach every program that uses the crate; a run path the
//! .pc file gives (`-Wl,-rpath,DIR`: an uninstalled tree's) reaches this
//! package's own examples and tests only (cargo passes a build script's
//! link arguments to its own package's programs), so it is also handed on
//! as `DEP_RDMAVERBS_RPATH` (`links = "rdmaverbs"`) to the build script of a
//! crate that depends on this one, for its own examples and tests (the safe
//! crate, `rdmaverbs`, does).
//!
//! The command, not the `pkg-config` crate: one `--libs` line to split is
//! all this needs, and the crate then has no build dependency, so a
//! project builds it offline with `libc` alone from crates.io.

use std::process::{exit, Command};

/// What the library needs: rdmaverbs.pc names librdmacm and libibverbs as
/// `Requires`, named here too for a .pc that would not.
const MODULES: [&str; 3] = ["rdmaverbs >= 1.2", "librdmacm", "libibverbs"];

fn main() {
    for var in [
        "PKG_CONFIG",
        "PKG_CONFIG_PATH",
        "PKG_CONFIG_LIBDIR",
        "PKG_CONFIG_SYSROOT_DIR",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let pkg_config = std::env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".into());
    let libs = match Command::new(&pkg_config)
        .arg("--libs")
        .args(MODULES)
        .output()
    {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).into_owned(),
        Ok(out) => fail(&String::from_utf8_lossy(&out.stderr)),
        Err(e) => fail(&format!(
            "cannot run {pkg_config}: {e} (install pkg-config: apt install pkgconf)"
        )),
    };
    let mut rpath = Vec::new();
    for arg in libs.split_whitespace() {
        if let Some(dir) = arg.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={dir}");
        } else if let Some(lib) = arg.strip_prefix("-l") {
            println!("cargo:rustc-link-lib={lib}");
        } else if let Some(dirs) = arg.strip_prefix("-Wl,-rpath,") {
            for dir in dirs.split(',').filter(|d| !d.is_empty()) {
                println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
                if !rpath.iter().any(|d| d == dir) {
                    rpath.push(dir.to_string());
                }
            }
        } else {
            println!("cargo:rustc-link-arg={arg}");
        }
    }
    println!("cargo:rpath={}", rpath.join(":"));
}

fn fail(why: &str) -> ! {
    eprintln!(
        "rdmaverbs-sys: pkg-config did not find {}:\n{}\n\
         Install librdmaverbs-dev (with librdmacm-dev and libibverbs-dev), or `make install` \
         in a clone of rdmaverbs; for a tree built and not installed, \
         PKG_CONFIG_PATH=CLONE/build/pkgconfig.",
        MODULES.join(", "),
        why.trim_end()
    );
    exit(1)
}

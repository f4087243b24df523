//! Links librdmaverbs, librdmacm and libibverbs as pkg-config finds them
//! (the installation's rdmaverbs.pc, or another through PKG_CONFIG_PATH).
//!
//! The link lines reach every program that uses the crate; a run path the
//! .pc file gives (`-Wl,-rpath,DIR`: an uninstalled tree's) reaches this
//! package's own examples and tests only (cargo passes a build script's
//! link arguments to its own package's programs), so it is also handed on
//! as `DEP_RDMAVERBS_RPATH` (`links = "rdmaverbs"`) to the build script of a
//! crate that depends on this one, for its own examples and tests (the safe
//! crate, `rdmaverbs`, does).

fn main() {
    let mut rpath = Vec::new();
    for (name, version) in [
        ("rdmaverbs", "1.2"),
        ("librdmacm", "1"),
        ("libibverbs", "1"),
    ] {
        match pkg_config::Config::new()
            .atleast_version(version)
            .probe(name)
        {
            Ok(lib) => {
                for arg in &lib.ld_args {
                    if let [flag, dir] = &arg[..] {
                        if flag == "-rpath" && !rpath.contains(dir) {
                            rpath.push(dir.clone());
                        }
                    }
                }
            }
            Err(e) => panic!(
                "{name} not found by pkg-config (install its -dev package, or set PKG_CONFIG_PATH): {e}"
            ),
        }
    }
    println!("cargo:rpath={}", rpath.join(":"));
}

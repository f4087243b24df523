//! Links librdmaverbs, librdmacm and libibverbs as pkg-config finds them
//! (the installation's rdmaverbs.pc, or another through PKG_CONFIG_PATH).

fn main() {
    for (name, version) in [
        ("rdmaverbs", "1.2"),
        ("librdmacm", "1"),
        ("libibverbs", "1"),
    ] {
        if let Err(e) = pkg_config::Config::new()
            .atleast_version(version)
            .probe(name)
        {
            panic!("{name} not found by pkg-config (install its -dev package, or set PKG_CONFIG_PATH): {e}");
        }
    }
}

//! The C tests on the fake provider, against this very build of the
//! library: how `make mutants` tests each mutant (cargo-mutants runs `cargo
//! test --features c-tests`; without the feature this test is not built,
//! and `make test-lib` runs the C tests against the release build).

use std::os::unix::process::CommandExt;

#[test]
fn c_tests_on_the_fake_provider() {
    // target/<profile>/deps/fake_provider-HASH: beside it, the static
    // archive cargo built of the library for this test (the newest, if
    // other builds left theirs).
    let exe = std::env::current_exe().expect("current_exe");
    let deps = exe.parent().expect("deps");
    let archive = std::fs::read_dir(deps)
        .expect("deps")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with("librdmaverbs_lib-") && name.ends_with(".a")
        })
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
        .expect("no librdmaverbs_lib-*.a beside the test");
    let mut make = std::process::Command::new("make");
    make.current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("-s")
        .arg("test-mutant")
        .arg(format!("ARCHIVE={}", archive.display()));
    // Each process of the tests gets 60 s of CPU time at most, then SIGKILL
    // (each uses a few seconds): a mutant can make a test's child spin in
    // a handler of the SIGTERM that cargo-mutants sends at its time-out,
    // and such a child was left spinning for good, a core taken from every
    // later mutant (and from whatever ran after make mutants).
    // And no file over 1 GiB (SIGXFSZ): a mutant of the trace's line
    // arithmetic wrote one trace file until the disk was full, which ended
    // make mutants itself (the tests' files are a few MB).
    // SAFETY: setrlimit() is async-signal-safe; nothing else runs here.
    unsafe {
        make.pre_exec(|| {
            let limit = |resource, max| {
                let r = libc::rlimit {
                    rlim_cur: max,
                    rlim_max: max,
                };
                match libc::setrlimit(resource, &r) {
                    0 => Ok(()),
                    _ => Err(std::io::Error::last_os_error()),
                }
            };
            limit(libc::RLIMIT_CPU, 60)?;
            limit(libc::RLIMIT_FSIZE, 1 << 30)
        })
    };
    let status = make.status().expect("make");
    assert!(status.success(), "make test-mutant failed: {status}");
}

//! The C tests on the fake provider, against this very build of the
//! library: how `make mutants` tests each mutant (cargo-mutants runs `cargo
//! test --features c-tests`; without the feature this test is not built,
//! and `make test-lib` runs the C tests against the release build).

use std::os::unix::process::CommandExt;

#[test]
fn c_tests_on_the_fake_provider() {
    // target/<profile>/deps/fake_provider-HASH: the static archive of this
    // very source (the mutant's) is built beside, in target/mutant (the
    // library is a staticlib only, which cargo test does not build for an
    // integration test).
    let exe = std::env::current_exe().expect("current_exe");
    let target = exe.ancestors().nth(3).expect("target directory");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let built = std::process::Command::new(cargo)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "build",
            "--quiet",
            "--locked",
            "--lib",
            "--profile",
            "mutant",
        ])
        .args(["--features", "c-tests", "--target-dir"])
        .arg(target)
        .status()
        .expect("cargo");
    assert!(
        built.success(),
        "cargo build --profile mutant failed: {built}"
    );
    let archive = target.join("mutant").join("librdmaverbs.a");
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
    // SAFETY: setrlimit() is async-signal-safe; nothing else runs here.
    unsafe {
        make.pre_exec(|| {
            let cpu = libc::rlimit {
                rlim_cur: 60,
                rlim_max: 60,
            };
            match libc::setrlimit(libc::RLIMIT_CPU, &cpu) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        })
    };
    let status = make.status().expect("make");
    assert!(status.success(), "make test-mutant failed: {status}");
}

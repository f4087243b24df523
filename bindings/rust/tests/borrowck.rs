//! The borrow checker holds a posted buffer: a program that uses a buffer
//! after posting it (drops, reads, writes or posts it again before its
//! completion hands it back) does not compile, with error E0382 (the use,
//! or borrow, of a moved value) on that line, and no other error; the same
//! program without that line does.
//! (A `compile_fail` doctest, as in `Buf`'s documentation, cannot say
//! which error it wants on stable Rust: this compiles each program with
//! rustc against the crate this test was built with, and reads the error.)

use std::path::{Path, PathBuf};
use std::process::Command;

/// The folder of this test's own dependencies (target/debug/deps).
fn deps() -> PathBuf {
    std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The rdmaverbs library this test was built against: the newest there.
fn rlib(deps: &Path) -> PathBuf {
    std::fs::read_dir(deps)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("librdmaverbs-") && name.ends_with(".rlib")
        })
        .max_by_key(|p| p.metadata().unwrap().modified().unwrap())
        .expect("librdmaverbs-*.rlib beside the test")
}

/// Type-checks (rustc --emit metadata: borrow checking included) a function
/// of an endpoint with `body`: whether it compiled, and rustc's errors.
fn compile(name: &str, body: &str) -> (bool, String) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("borrowck");
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join(format!("{name}.rs"));
    std::fs::write(
        &src,
        format!(
            "pub fn f(ep: &rdmaverbs::Endpoint) -> std::io::Result<()> {{\n    \
             use rdmaverbs::{{RecvWr, SendWr}};\n{body}\n    Ok(())\n}}\n"
        ),
    )
    .unwrap();
    let deps = deps();
    let out = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .args([
            "--edition",
            "2021",
            "--crate-type",
            "lib",
            "--emit",
            "metadata",
            "--error-format",
            "short",
        ])
        .args(["--crate-name", name, "--out-dir"])
        .arg(&dir)
        .arg("-L")
        .arg(format!("dependency={}", deps.display()))
        .arg("--extern")
        .arg(format!("rdmaverbs={}", rlib(&deps).display()))
        .arg(&src)
        .output()
        .expect("rustc runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `body` compiles; `body` and then `use_` does not, for E0382 on `var`.
fn refused(name: &str, body: &str, use_: &str, var: &str) {
    let (ok, errors) = compile(&format!("{name}_without"), body);
    assert!(ok, "{name}: without the use, it should compile:\n{errors}");
    let (ok, errors) = compile(name, &format!("{body}\n{use_}"));
    assert!(!ok, "{name}: `{use_}` after the post compiled");
    // "use of moved value" (a move, a drop), "borrow of moved value" (a read)
    let want = format!("moved value: `{var}`");
    assert!(
        errors.contains("error[E0382]: ") && errors.contains(&want),
        "{name}: want E0382, {want}; got:\n{errors}"
    );
    // the only error, on the line of the use
    assert_eq!(errors.matches("error[").count(), 1, "{name}:\n{errors}");
    let line = body.lines().count() + 3;
    assert!(
        errors.contains(&format!("{name}.rs:{line}:")),
        "{name}: not on line {line}:\n{errors}"
    );
}

const SEND: &str =
    "    let msg = ep.pd().alloc_from(b\"hello\")?;\n    ep.post_send([SendWr::send(1, msg)])?;";
const RECV: &str = "    let mut slot = ep.pd().alloc(64)?;\n    slot[0] = 1;\n    ep.post_recv([RecvWr::new(1, slot)])?;";

#[test]
fn a_posted_send_buffer_cannot_be_dropped() {
    refused("send_drop", SEND, "    drop(msg);", "msg");
}

#[test]
fn a_posted_send_buffer_cannot_be_written() {
    refused(
        "send_write",
        SEND,
        "    let mut msg = msg;\n    msg[0] = b'j';",
        "msg",
    );
}

#[test]
fn a_posted_send_buffer_cannot_be_posted_again() {
    refused(
        "send_twice",
        SEND,
        "    ep.post_send([SendWr::send(2, msg)])?;",
        "msg",
    );
}

#[test]
fn a_posted_receive_buffer_cannot_be_read() {
    refused("recv_read", RECV, "    println!(\"{}\", slot[0]);", "slot");
}

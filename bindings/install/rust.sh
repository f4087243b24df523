# bindings/install/install.sh's steps for Rust, sourced by it in the install's
# folder ($DIR): what it writes before the README's block runs, and $check,
# the commands run after the block in the same shell.
	# Offline, with a cargo home of its own (no registry cache): the crates are
	# the packaged ones, unpacked in the project, and libc is vendor/'s.
	export CARGO_HOME=$DIR/cargo-home
	check='tree=$(cargo tree -e normal --prefix none)
printf "%s\n" "$tree"
for c in rdmaverbs rdmaverbs-sys; do
	grep -qx "$c v[0-9.]* ($PWD/crates/$c-[0-9.]*)" <<< "$tree"
done
echo "rust: rdmaverbs and rdmaverbs-sys from the .crate files, unpacked in crates/"
if PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR=/nonexistent CARGO_TARGET_DIR=target/no-pc cargo build -q > no-pc.log 2>&1; then
	echo "rust: built with no rdmaverbs.pc to be found"; exit 1
fi
grep -F "Install librdmaverbs-dev" no-pc.log
echo "rust: with no rdmaverbs.pc, the build stops and says what to install"
cat > src/main.rs <<EOF
use rdmaverbs as rv;
fn main() {
    assert_eq!(unsafe { rv::raw::rdma_seterrno(0) }.unwrap(), 0);
    assert_eq!(rv::WcStatus(rv::raw::IBV_WC_LOC_PROT_ERR as u32).to_string(), "local protection error");
    println!("rust: installed: ok");
}
EOF
cargo run -q'

#!/usr/bin/env bash
# make test-bindings: the six bindings against this tree's library, on a
# machine without RDMA (the RC exchange runs in make e2e-host). Checks:
#  - the generated files are what generate.py writes, and each binding's
#    layout lines equal the system headers' (bindings/layout.sh);
#  - every function a binding declares is a dynamic symbol of its library
#    (librdmaverbs.so.1 at its own RDMAVERBS_ node, which the Rust
#    binding's example imports it at; librdmacm.so.1 or libibverbs.so.1);
#  - each binding's own test passes (its vectored posts checked SGE by SGE
#    on the recording provider, bindings/recorder/);
#  - each package was installed as its README says, from a fresh folder
#    (make bindings did it: bindings/install/install.sh), and a program used it.
# Usage: bindings/test.sh BUILD_DIR
set -u
cd "$(dirname "$0")/.."
B=$1 BIND=$1/bindings
fail=0
ok() { echo "bindings: ok: $*"; }
bad() { echo "bindings: FAIL: $*"; fail=1; }

# The system's library of a soname, as the dynamic loader finds it.
system_lib() {
	local path
	path=$(ldconfig -p | sed -n "s/^\t${1//./\\.} (libc6,x86-64) => //p" | head -n 1)
	[ -n "$path" ] || path=$(ldconfig -p | sed -n "s/^\t${1//./\\.} (.*) => //p" | head -n 1)
	echo "$path"
}
rdmacm=$(system_lib librdmacm.so.1) ibverbs=$(system_lib libibverbs.so.1)
n=0 ours=0
rust_refs=$(nm -D --undefined-only "$BIND/rust/debug/examples/versions" 2> /dev/null)
built=$(awk -F '\t' '!/^#/ { print $1 }' "$B/exports.tsv")
while read -r lib fn at_version since; do
	n=$((n + 1))
	version=${at_version##*@}
	case $lib in
	rdmaverbs)
		ours=$((ours + 1))
		# ours at its own node (@@, or @ for a non-default version: those
		# found by their version only); the Rust binding imports it there
		# (its example versions takes the address of every one), but one
		# that a build may lack (SINCE: the release that brought it), which
		# it looks up at its call; that one is in the library if and only if
		# the build's exports list has it
		defined=no
		nm -D --defined-only "$B/lib/librdmaverbs.so.1" | grep -q " T $fn${at_version//./\\.}\$" && defined=yes
		if [ -n "$since" ]; then
			listed=no; grep -qx "$fn" <<< "$built" && listed=yes
			[ $defined = $listed ] && ! grep -q " U $fn@" <<< "$rust_refs"
		else
			[ $defined = yes ] && grep -q " U $fn@${version//./\\.}\$" <<< "$rust_refs"
		fi ;;
	rdmacm) nm -D --defined-only "$rdmacm" | grep -Eq " T $fn(@@.*)?\$" ;;
	ibverbs) nm -D --defined-only "$ibverbs" | grep -Eq " T $fn(@@.*)?\$" ;;
	*) false ;;
	esac || bad "$fn is not a dynamic symbol of lib$lib${version:+ at $version (or the Rust example versions does not import it there)}"
done < <(python3 bindings/generate.py --symbols)
[ $fail -eq 0 ] && ok "all $n functions are dynamic symbols of librdmaverbs.so.1 (its $ours each at its node, imported there by the Rust example versions, but those a build may lack, defined as its exports list says), $rdmacm and $ibverbs"

bindings/layout.sh "$B" $(bindings/run.sh --list) || fail=1
for lang in $(bindings/run.sh --list); do
	if bindings/run.sh "$B" "$lang" test > "$BIND/test-$lang.log" 2>&1; then
		ok "$lang: its test passed"
	else
		bad "$lang: its test failed"
		sed 's/^/    /' "$BIND/test-$lang.log"
	fi
done

# Each package, installed as its README says and used by a program there;
# the top-level README shows the same install block, line for line.
readme=$(cat README.md)
for lang in $(bindings/run.sh --list); do
	if tail -n 1 "$BIND/install/$lang.log" 2> /dev/null | grep -qx "$lang: installed: ok"; then
		ok "$lang: installed as bindings/$lang/README.md says, from a fresh folder: a program used it"
	else
		bad "$lang: no install as its README says ($BIND/install/$lang.log; make bindings makes it)"
	fi
	block=$(bindings/install/install.sh --block "$lang")
	[[ $readme == *"$block"* ]] || bad "$lang: README.md does not show bindings/$lang/README.md's install block"
done

[ $fail -eq 0 ] && echo "make test-bindings: all passed"
exit $fail

#!/usr/bin/env bash
# make test-bindings: the six bindings against this tree's library, on a
# machine without RDMA (the RC exchange runs in make e2e-host). Checks:
#  - the generated files are what generate.py writes;
#  - every function a binding declares is a dynamic symbol of its library
#    (librdmaverbs.so.1 at a RDMAVERBS_ node, librdmacm.so.1 or
#    libibverbs.so.1);
#  - each binding's layout lines (sizeof, offsetof, constants) equal the
#    system headers', as BUILD_DIR/bindings/layout prints them (a C program
#    generate.py writes), and a changed line would be caught;
#  - each binding's own test passes (its vectored posts checked SGE by SGE
#    on the recording provider, bindings/recorder.c);
#  - the packages were installed the way their users install them (make
#    bindings did: pip into a fresh venv, npm into a fresh folder).
# Usage: bindings/test.sh BUILD_DIR
set -u
cd "$(dirname "$0")/.."
B=$1 BIND=$1/bindings
fail=0
ok() { echo "bindings: ok: $*"; }
bad() { echo "bindings: FAIL: $*"; fail=1; }

if python3 bindings/generate.py --check; then
	ok "the generated files are current"
else
	bad "the generated files differ from what generate.py writes"
fi

# The system's library of a soname, as the dynamic loader finds it.
system_lib() {
	local path
	path=$(ldconfig -p | sed -n "s/^\t${1//./\\.} (libc6,x86-64) => //p" | head -n 1)
	[ -n "$path" ] || path=$(ldconfig -p | sed -n "s/^\t${1//./\\.} (.*) => //p" | head -n 1)
	echo "$path"
}
rdmacm=$(system_lib librdmacm.so.1) ibverbs=$(system_lib libibverbs.so.1)
n=0
while read -r lib fn; do
	n=$((n + 1))
	case $lib in
	rdmaverbs) nm -D --defined-only "$B/lib/librdmaverbs.so.1" | grep -Eq " T $fn@@RDMAVERBS_1\.[0-9]+\$" ;;
	rdmacm) nm -D --defined-only "$rdmacm" | grep -Eq " T $fn(@@.*)?\$" ;;
	ibverbs) nm -D --defined-only "$ibverbs" | grep -Eq " T $fn(@@.*)?\$" ;;
	*) false ;;
	esac || bad "$fn is not a dynamic symbol of lib$lib"
done < <(python3 bindings/generate.py --symbols)
[ $fail -eq 0 ] && ok "all $n functions are dynamic symbols of librdmaverbs.so.1, $rdmacm and $ibverbs"

"$BIND/layout" > "$BIND/layout.txt"
lines=$(wc -l < "$BIND/layout.txt")
# The comparison catches a changed line: one offset off by one.
if sed '5s/ \([0-9]*\)$/ 1\1/' "$BIND/layout.txt" | diff -q - "$BIND/layout.txt" > /dev/null; then
	bad "the layout comparison does not tell a changed line"
fi
for lang in $(bindings/run.sh --list); do
	if ! bindings/run.sh "$B" "$lang" layout > "$BIND/layout-$lang.txt" 2> "$BIND/layout-$lang.err"; then
		bad "$lang: its layout program failed"
		sed 's/^/    /' "$BIND/layout-$lang.err"
	elif ! diff -u "$BIND/layout.txt" "$BIND/layout-$lang.txt" > "$BIND/layout-$lang.diff"; then
		bad "$lang: its structs or constants differ from the system headers'"
		sed 's/^/    /' "$BIND/layout-$lang.diff"
	else
		ok "$lang: its $lines layout lines (structs, fields, constants) are the system headers'"
	fi
	if bindings/run.sh "$B" "$lang" test > "$BIND/test-$lang.log" 2>&1; then
		ok "$lang: its test passed"
	else
		bad "$lang: its test failed"
		sed 's/^/    /' "$BIND/test-$lang.log"
	fi
done

# The installed packages import, from their install folders.
if RDMAVERBS_LIBRARY=$PWD/$B/lib/librdmaverbs.so.1 "$BIND/venv/bin/python3" -c \
	'import rdmaverbs, sys; sys.exit(rdmaverbs.rdma_seterrno(0) != 0 or "/venv/" not in rdmaverbs.__file__)'; then
	ok "python: pip install bindings/python into a fresh venv, and its wheel: it imports"
else
	bad "python: the package installed in $BIND/venv does not import"
fi
if (cd "$BIND/node" && RDMAVERBS_LIBRARY=$PWD/../../lib/librdmaverbs.so.1 node -e \
	'process.exit(require("rdmaverbs").rdma_seterrno(0) === 0 && require.resolve("rdmaverbs").includes("/node_modules/") ? 0 : 1)'); then
	ok "node: npm install of bindings/node into a fresh folder: it imports"
else
	bad "node: the package installed in $BIND/node does not import"
fi

[ $fail -eq 0 ] && echo "make test-bindings: all passed"
exit $fail

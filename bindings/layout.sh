#!/usr/bin/env bash
# The bindings against the system headers they are built on: the generated
# files are what generate.py writes from these headers (which also checks
# each enum whole against them), and each language's layout lines (struct
# sizes, field offsets, constants: bindings/run.sh LANG layout) equal what
# BUILD_DIR/bindings/layout, a C program generate.py writes, prints from
# these headers; a changed line would be caught. make test-bindings runs it
# for the six, make test-bindings-layout (in the roots of other Debian
# releases) for those whose runtime needs nothing but Debian's packages.
# Usage: bindings/layout.sh BUILD_DIR LANGUAGE...
set -u
cd "$(dirname "$0")/.."
B=$1 BIND=$1/bindings
shift
fail=0
ok() { echo "bindings-layout: ok: $*"; }
bad() { echo "bindings-layout: FAIL: $*"; fail=1; }

if python3 bindings/generate.py --check; then
	ok "the generated files are current (every enum as these headers have it)"
else
	bad "the generated files differ from what generate.py writes"
fi
"$BIND/layout" > "$BIND/layout.txt"
lines=$(wc -l < "$BIND/layout.txt")
# The comparison catches a changed line: one offset off by one.
if sed '5s/ \([0-9]*\)$/ 1\1/' "$BIND/layout.txt" | diff -q - "$BIND/layout.txt" > /dev/null; then
	bad "the layout comparison does not tell a changed line"
fi
# The constants a later rdma-core release brought, which these headers lack
# (bindings/api.py's LATER): each binding declares them with that table's
# value, which only a root with a later release can check.
absent=$(python3 bindings/generate.py --absent | grep . | sed 's/$/ value /')
for lang in "$@"; do
	if ! bindings/run.sh "$B" "$lang" layout > "$BIND/layout-$lang.all" 2> "$BIND/layout-$lang.err"; then
		bad "$lang: its layout program failed"
		sed 's/^/    /' "$BIND/layout-$lang.err"
	elif ! { if [ -n "$absent" ]; then grep -vF "$absent"; else cat; fi; } < "$BIND/layout-$lang.all" > "$BIND/layout-$lang.txt" ||
	     ! diff -u "$BIND/layout.txt" "$BIND/layout-$lang.txt" > "$BIND/layout-$lang.diff"; then
		bad "$lang: its structs or constants differ from the system headers'"
		sed 's/^/    /' "$BIND/layout-$lang.diff"
	else
		ok "$lang: its $lines layout lines (structs, fields, constants) are the system headers'" \
			"($(printf '%s\n' "$absent" | grep -c .) constants of later releases left out)"
	fi
done
exit $fail

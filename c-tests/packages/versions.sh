#!/usr/bin/env bash
# One version everywhere: Cargo.toml's (which the Makefile, the soname's
# real name and the .pc take) is the one debian/changelog, rpm/rdmaverbs.spec
# (Version and its %changelog), the man pages' headers and the bindings'
# packages give; the crates
# the spec declares bundled are those Cargo.lock pins.
set -u
cd "$(dirname "$0")/../.."
pass=0 fail=0
ok() { echo "ok: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
v=$(sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -n 1)
check() {	# WHERE GOT
	[ "$2" = "$v" ] && ok "$1: $v" || bad "$1 says '$2', Cargo.toml $v"
}
check "debian/changelog" "$(sed -n '1s/^rdmaverbs (\([^-)]*\).*/\1/p' debian/changelog)"
spec=rpm/rdmaverbs.spec
check "$spec Version" "$(sed -n 's/^Version: *//p' $spec)"
release=$(sed -n 's/^Release: *\([0-9]*\).*/\1/p' $spec)
check "$spec %changelog's first entry" "$(sed -n '/^%changelog/,$ s/^\* .* - \(.*\)-'"$release"'$/\1/p' $spec | head -n 1)"
for m in man/*.[0-9]; do
	grep -q '^\.so ' "$m" && continue
	check "$m" "$(sed -n 's/^\.TH .*"rdmaverbs \([^"]*\)".*/\1/p' "$m")"
done
# The bindings' packages.
check "bindings/python/pyproject.toml" "$(sed -n 's/^version *= *"\(.*\)"/\1/p' bindings/python/pyproject.toml)"
check "bindings/node/package.json" "$(sed -n 's/^  "version": "\(.*\)",/\1/p' bindings/node/package.json)"
check "bindings/java/pom.xml" "$(sed -n '0,/^  <version>/s|^  <version>\(.*\)</version>|\1|p' bindings/java/pom.xml)"
check "bindings/csharp/RdmaVerbs.nuspec" "$(sed -n 's|^    <version>\(.*\)</version>|\1|p' bindings/csharp/RdmaVerbs.nuspec)"
check "bindings/rust/Cargo.toml" "$(sed -n 's/^version *= *"\(.*\)"/\1/p' bindings/rust/Cargo.toml | head -n 1)"
check "bindings/rust/rdmaverbs-sys/Cargo.toml" \
	"$(sed -n 's/^version *= *"\(.*\)"/\1/p' bindings/rust/rdmaverbs-sys/Cargo.toml | head -n 1)"
# The bundled crates: each Provides: bundled(crate(NAME)) = VERSION as Cargo.lock.
lock() { awk -v n="$1" '$0 == "name = \"" n "\"" { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock; }
while read -r name ver; do
	[ "$(lock "$name")" = "$ver" ] && ok "$spec bundles $name $ver, as Cargo.lock" ||
		bad "$spec bundles $name $ver, Cargo.lock has '$(lock "$name")'"
done < <(sed -n 's/^Provides: *bundled(crate(\([^)]*\))) = \(.*\)/\1 \2/p' $spec)
# ... and every crate linked into the library or the commands is declared
# (but those of this source tree, such as format/, which cargo tree shows
# with their path).
linked=$(cargo tree --locked -p rdmaverbs-lib -p rdmaverbs-tools -e normal --prefix none --format '{p}' 2>/dev/null |
	awk 'NF && $NF != "(proc-macro)" && $0 !~ / \(\// { print $1 }' | sort -u)
declared=$(sed -n 's/^Provides: *bundled(crate(\([^)]*\))).*/\1/p' $spec | sort -u)
[ -n "$linked" ] && [ "$linked" = "$declared" ] && ok "$spec declares every crate linked in: $(echo $linked)" ||
	bad "crates linked in: $(echo $linked); declared bundled: $(echo $declared)"
echo "versions: $pass passed, $fail failed"
[ $fail -eq 0 ]

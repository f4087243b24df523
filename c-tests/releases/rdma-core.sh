#!/usr/bin/env bash
# make test-rdma-core: rdmaverbs built, and proven identical, against every
# rdma-core its users have that Debian's archive holds: Debian 11 (rdma-core
# 33), 13 (56.1) and unstable (65), each in a root made from the archive
# (roots.sh), beside the host's Debian 12 (44). In each root:
#  - the library is built from a copy of the tracked files with the crates
#    of vendor/ (nothing fetched but the root's packages), with the root's
#    own rustc where it is recent enough (Cargo.toml's rust-version), else
#    the machine's rustup toolchain, read-only;
#  - make test-lib, the quick tier's library part, against that root's
#    headers: the differential tests, refusals, layouts, symbols (every
#    static inline function of its verbs.h exported, none it lacks), ...;
#  - the bindings' generated files, enums and layout checked against those
#    headers (make test-bindings-layout), for each language the root has;
# then a build against an older release runs its fake-provider suites
# against each newer libibverbs (Debian 11's in 12, 13 and unstable; 12's,
# the host's build, in 13 and unstable) without anything rebuilt; and the
# Debian 13 build is packaged (dpkg-buildpackage) and lintian-checked, and
# booted: a Soft-RoCE guest whose root is Debian 13's (its kernel, 6.12, its
# libibverbs and librxe) runs the RC and verbs-exports rows of that build,
# ours and stock (c-tests/e2e/guest/release-guest.sh; the flush of rdma-core 45
# among them).
# A root that cannot be made today is reported and skipped; one that was
# made and fails, fails. Needs root.
# Usage: rdma-core.sh BUILD_DIR
set -uo pipefail
cd "$(dirname "$0")/../.."
. c-tests/releases/roots.sh
B=$(realpath "$1")
OUT=$B/rdma-core
TOP=$PWD
fail=0 skipped= failed=
ok() { echo "rdma-core: ok: $*"; }
bad() { echo "rdma-core: FAIL: $*"; fail=1; failed="$failed
    $*"; }
[ "$(id -u)" = 0 ] || { echo "rdma-core.sh: needs root (chroot)" >&2; exit 2; }
[ -d vendor ] || { echo "rdma-core.sh: vendor/ is missing: make vendor" >&2; exit 2; }
mkdir -p "$OUT"

# What the quick tier's library part needs (debian/control's Build-Depends,
# python3, gdb for the hardening test, man), the bindings' runtimes that need
# no network, and in Debian 13 the package tools.
BASE="build-essential pkg-config clang libclang-dev libibverbs-dev librdmacm-dev ibverbs-providers
	python3 gdb man-db groff-base binutils luajit"
declare -A EXTRA=(
	[bullseye]=""
	[trixie]="cargo rustc debhelper dpkg-dev fakeroot lintian
		linux-image-amd64 kmod iproute2 rdma-core rdmacm-utils busybox-static"
	[sid]="cargo rustc"
)
SUITES=${RDMA_CORE_SUITES:-bullseye trixie sid}	# (one or two of them while working on them)
# (test-concurrency's ThreadSanitizer build needs the libtsan of the release
# that built it: the concurrency test runs without it, as build/fake/concurrency.)
FAKE_SUITES="test-differential test-verbs test-robustness test-trace test-live test-commands \
	test-probes test-noalloc test-timeout test-hardening test-preload"
want_rust=$(sed -n 's/^rust-version *= *"\(.*\)"/\1/p' Cargo.toml | head -n 1)
rustup_home=$(rustup show home 2>/dev/null) cargo_bin=$(dirname "$(command -v cargo)")
toolchain=$(rustup show active-toolchain 2>/dev/null | cut -d' ' -f1)

# The roots, made at once (the archive's downloads beside one another).
declare -A ROOT
for s in $SUITES; do
	( t0=$SECONDS
	  if r=$(make_root "$s" "$(echo $BASE ${EXTRA[$s]})" "$OUT/$s-root.log"); then
		echo "$r" > "$OUT/$s-root"; echo "rdma-core: $s: root $r ($((SECONDS - t0)) s)"
	  else
		rm -f "$OUT/$s-root"; echo "rdma-core: SKIP: $s: the root could not be made today:"
		tail -n 5 "$OUT/$s-root.log" | sed 's/^/    /'
	  fi ) &
done
wait
for s in $SUITES; do
	if [ -s "$OUT/$s-root" ]; then ROOT[$s]=$(cat "$OUT/$s-root"); else skipped="$skipped $s"; fi
done

# A library built against an older rdma-core under a later libibverbs
# (rdma-core's own rule): the older build's fake-provider suites, as they
# were built (make with CARGO=true: nothing of cargo's runs; anything make
# would build again fails the row), in each newer root.
# rebuilt TREE STAMP: what of TREE's build of the fake suites (the library,
# the commands, the suites' programs and objects, cargo's output) is newer
# than STAMP. Only those folders: the host's tree is shared with make e2e,
# the packages and the bindings, which write their own (build/e2e-out,
# build/bindings, build/rpm, ...) while a cross runs.
rebuilt() {
	local d dirs=
	for d in lib bin fake gen include; do [ -d "$1/build/$d" ] && dirs="$dirs $1/build/$d"; done
	[ -d "$1/target" ] && dirs="$dirs $1/target"
	{ find "$1/build" -maxdepth 1 -newer "$2" -type f \( -name '*.o' -o -name '*.a' -o -name '*.so*' \) -print
	  [ -z "$dirs" ] || find $dirs -newer "$2" -type f \( -name '*.o' -o -name '*.a' -o -name '*.so*' \
		-o -path '*/build/fake/*' -o -path '*/build/bin/*' \) -perm -u+r \
		! -name '*.log' ! -path '*.d/*' ! -name '*.err' ! -name '*.trace' ! -name '*.records' -print; }
}
cross() {	# NAME TREE ROOT WHERE
	local name=$1 tree=$2 root=$3 where=$4 t0=$SECONDS stamp=$OUT/$1-in-$4.stamp
	touch "$stamp"
	if in_root "$root" "$TOP" "cd '$tree' && make CARGO=true CARGO_FORCE= $FAKE_SUITES && build/fake/concurrency" > "$OUT/$name-in-$where.log" 2>&1 &&
	   [ -z "$(rebuilt "$tree" "$stamp" | head -n 1)" ]; then
		ok "the $name build's fake-provider suites against $where's libibverbs" \
			"$(chroot "$root" pkg-config --modversion libibverbs) ($((SECONDS - t0)) s)"
	else
		bad "the $name build's fake-provider suites against $where's libibverbs ($OUT/$name-in-$where.log):"
		grep -E 'FAIL|rror' "$OUT/$name-in-$where.log" | head -n 15 | sed 's/^/    /'
		rebuilt "$tree" "$stamp" | head -n 5 | sed 's/^/    rebuilt: /'
	fi
}
# The host's build (Debian 12's, which make test-quick has just made) first,
# before anything else runs long, in Debian 13's and unstable's roots.
for new in trixie sid; do
	[ -n "${ROOT[$new]:-}" ] && cross bookworm "$TOP" "${ROOT[$new]}" "$new"
done

# newer A B: whether version A is at least B.
newer() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" = "$2" ]; }

for s in $SUITES; do
	root=${ROOT[$s]:-}
	[ -n "$root" ] || continue
	t0=$SECONDS
	tree=$OUT/$s/rdmaverbs
	rm -rf "$OUT/$s" && mkdir -p "$tree"
	git ls-files -z | xargs -0 cp -a --parents -t "$tree"
	ln -s "$TOP/vendor" "$tree/vendor"
	mkdir -p "$tree/debian/cargo-home" && cp debian/cargo-config.toml "$tree/debian/cargo-home/config.toml"
	# The root's rustc where it is recent enough, else the machine's rustup.
	have=$(chroot "$root" rustc --version 2>/dev/null | awk '{ print $2 }')
	RUN_ENV="CARGO_HOME=$tree/debian/cargo-home" RUN_BINDS=
	if [ -n "$have" ] && newer "$have" "$want_rust"; then
		rust="Debian's rustc $have"
	else
		rust="the rustup toolchain $toolchain (Debian's rustc ${have:-none} is older than $want_rust)"
		RUN_ENV="$RUN_ENV PATH=$cargo_bin:/usr/sbin:/usr/bin:/sbin:/bin RUSTUP_HOME=$rustup_home RUSTUP_TOOLCHAIN=$toolchain"
		RUN_BINDS="$rustup_home $cargo_bin"
	fi
	release=$(chroot "$root" pkg-config --modversion libibverbs)
	echo "rdma-core: $s: Debian $(cat "$root/etc/debian_version"), libibverbs $release, $rust," \
		"$(chroot "$root" gcc --version | head -n 1)"
	export RUN_ENV RUN_BINDS
	if in_root "$root" "$TOP" "cd '$tree' && make test-lib test-bindings-layout RUST_CRATES=rdmaverbs-abi" > "$OUT/$s.log" 2>&1; then
		exports=$(awk -F '\t' '!/^#/ && $1 != "name" { n[$2]++ } END { for (k in n) printf "%s %d, ", k, n[k] }' \
			"$tree/build/exports.tsv")
		ok "$s (libibverbs $release): make test-lib and the bindings' layouts passed ($((SECONDS - t0)) s); exports: ${exports%, }"
		for t in differential verbs; do grep -m 1 "^$t: [0-9]* cases" "$OUT/$s.log"; done | sed "s/^/    $s: /"
		grep -h '^bindings-layout: ' "$OUT/$s.log" | sed "s/^/    $s: /"
	else
		bad "$s (libibverbs $release): make test-lib or the bindings' layouts failed ($((SECONDS - t0)) s; $OUT/$s.log):"
		grep -E 'FAIL|rror|differ' "$OUT/$s.log" | head -n 25 | sed 's/^/    /'
		tail -n 5 "$OUT/$s.log" | sed 's/^/    /'
	fi
	unset RUN_ENV RUN_BINDS
done

# ... and Debian 11's build's, in Debian 13's and unstable's roots.
for new in trixie sid; do
	[ -n "${ROOT[$new]:-}" ] && [ -e "$OUT/bullseye/rdmaverbs/build/fake/verbs" ] &&
		cross bullseye "$OUT/bullseye/rdmaverbs" "${ROOT[$new]}" "$new"
done
# ... and Debian 11's in Debian 12, the host itself.
if [ -e "$OUT/bullseye/rdmaverbs/build/fake/verbs" ]; then
	t0=$SECONDS stamp=$OUT/bullseye-in-bookworm.stamp
	touch "$stamp"
	if (cd "$OUT/bullseye/rdmaverbs" && make CARGO=true CARGO_FORCE= $FAKE_SUITES && build/fake/concurrency) > "$OUT/bullseye-in-bookworm.log" 2>&1 &&
	   [ -z "$(rebuilt "$OUT/bullseye/rdmaverbs" "$stamp" | head -n 1)" ]; then
		ok "the bullseye build's fake-provider suites against bookworm's libibverbs $(pkg-config --modversion libibverbs) ($((SECONDS - t0)) s)"
	else
		bad "the bullseye build's fake-provider suites against bookworm's libibverbs ($OUT/bullseye-in-bookworm.log)"
		grep -E 'FAIL|rror' "$OUT/bullseye-in-bookworm.log" | head -n 15 | sed 's/^/    /'
	fi
fi

# A Soft-RoCE guest booted from the Debian 13 root (its kernel, libibverbs,
# librxe): the RC and verbs-exports rows of its build, ours and stock.
if [ -n "${ROOT[trixie]:-}" ] && [ -e "$OUT/trixie/rdmaverbs/build/exports.tsv" ]; then
	t0=$SECONDS tree=$OUT/trixie/rdmaverbs
	mkdir -p "$OUT/trixie-guest"
	if RUN_ENV="CARGO_HOME=$tree/debian/cargo-home" in_root "${ROOT[trixie]}" "$TOP" \
		"cd '$tree' && make build/ours/e2e build/stock/e2e build/ours/verbs build/stock/verbs" \
		> "$OUT/trixie-guest.log" 2>&1 &&
	   (cd "$tree" && "$TOP/c-tests/tools/run-guest.sh" -r "${ROOT[trixie]}" -t 600 -w "$OUT/trixie-guest" \
		c-tests/e2e/guest/release-guest.sh "$tree/build" "$OUT/trixie-guest") >> "$OUT/trixie-guest.log" 2>&1; then
		ok "Debian 13's Soft-RoCE guest: its build's rows, ours and stock the same ($((SECONDS - t0)) s)"
		grep '^release-e2e: ' "$OUT/trixie-guest.log" | sed 's/^/    /'
	else
		bad "Debian 13's Soft-RoCE guest ($OUT/trixie-guest.log):"
		grep -E '^release-e2e: |error|FAIL' "$OUT/trixie-guest.log" | head -n 30 | sed 's/^/    /'
	fi
fi

# The Debian 13 packages, built where the tier has just built and tested
# (-nc: no clean, so nothing is compiled again but what the install paths
# change; nocheck: make test-lib has just run), then lintian of Debian 13.
if [ -n "${ROOT[trixie]:-}" ]; then
	t0=$SECONDS tree=$OUT/trixie/rdmaverbs
	if RUN_ENV="CARGO_HOME=$tree/debian/cargo-home DEB_BUILD_OPTIONS=nocheck" in_root "${ROOT[trixie]}" "$TOP" \
		"cd '$tree' && dpkg-buildpackage -us -uc -b -nc && lintian --allow-root --fail-on error --info --pedantic ../*.changes" \
		> "$OUT/trixie-deb.log" 2>&1; then
		ok "Debian 13's .deb packages built and lintian-clean ($((SECONDS - t0)) s): $(cd "$OUT/trixie" && ls *.deb | tr '\n' ' ')"
	else
		bad "Debian 13's .deb packages ($OUT/trixie-deb.log):"
		tail -n 20 "$OUT/trixie-deb.log" | sed 's/^/    /'
	fi
fi

[ -z "$skipped" ] || echo "rdma-core: skipped (no root today):$skipped"
[ $fail -eq 0 ] && echo "make test-rdma-core: all passed"
[ $fail -eq 0 ] || echo "make test-rdma-core: failed:$failed"
exit $fail

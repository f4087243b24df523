#!/usr/bin/env bash
# The package test: install librdmaverbs1 and librdmaverbs-dev with dpkg, build
# and run c-tests/examples/example.c against the system-installed library with nothing
# but `pkg-config --cflags --libs rdmaverbs`, then purge both and check that
# nothing they installed is left behind. Needs root.
# Usage: deb-test.sh DEB_DIR
set -u
cd "$(dirname "$0")/../.."
dir=$1
pass=0 fail=0
ok() { echo "ok: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pkgs="rdmaverbs-tools librdmaverbs-dev librdmaverbs1"
[ "$(id -u)" = 0 ] || { echo "deb-test.sh: installing packages needs root" >&2; exit 2; }

dpkg --purge $pkgs >/dev/null 2>&1	# a previous run's, if any
if dpkg -i "$dir"/librdmaverbs1_*.deb "$dir"/librdmaverbs-dev_*.deb "$dir"/rdmaverbs-tools_*.deb \
	> "$tmp/dpkg.log" 2>&1; then
	ok "dpkg -i: $(cd "$dir" && ls librdmaverbs1_*.deb librdmaverbs-dev_*.deb rdmaverbs-tools_*.deb | tr '\n' ' ')"
else
	bad "dpkg -i failed"; cat "$tmp/dpkg.log"
fi
dpkg-query -L $pkgs 2>/dev/null | sort -u > "$tmp/files"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
for f in /usr/lib/$multiarch/librdmaverbs.so.1 /usr/lib/$multiarch/librdmaverbs.so \
	 /usr/lib/$multiarch/librdmaverbs.a /usr/lib/$multiarch/pkgconfig/rdmaverbs.pc \
	 /usr/lib/$multiarch/rdmaverbs/librdmaverbs-preload.so \
	 /usr/include/rdmaverbs/rdma/rdma_verbs.h /usr/include/rdmaverbs/rdmaverbs.h \
	 /usr/share/man/man7/rdmaverbs.7.gz /usr/share/man/man3/rdma_get_recv_comp_timeout.3.gz \
	 /usr/bin/rdmaverbs-trace /usr/bin/rdmaverbs-stat /usr/share/man/man1/rdmaverbs-trace.1.gz; do
	[ -e "$f" ] || bad "not installed: $f"
done

# A user's build, flags from pkg-config only (no PKG_CONFIG_PATH: the system's).
flags=$(env -u PKG_CONFIG_PATH pkg-config --cflags --libs rdmaverbs) || bad "pkg-config rdmaverbs"
echo "pkg-config --cflags --libs rdmaverbs: $flags"
if cc -Wall -Wextra -Wpedantic -Werror -o "$tmp/example" c-tests/examples/example.c $flags &&
   env -u LD_LIBRARY_PATH "$tmp/example"; then
	ok "example built and run against the installed packages"
else
	bad "example failed"
fi
env -u LD_LIBRARY_PATH ldd "$tmp/example" | grep -Eq "librdmaverbs.so.1 => (/usr)?/lib/$multiarch/librdmaverbs.so.1 " &&
	ok "it loads /usr/lib/$multiarch/librdmaverbs.so.1" || bad "ldd: not the installed library"
nm -D "$tmp/example" | grep -q ' U rdma_post_send@RDMAVERBS_1.0$' &&
	ok "it imports rdma_post_send@RDMAVERBS_1.0" || bad "rdma_post_send not imported"
man -w rdmaverbs >/dev/null 2>&1 && ok "man -w rdmaverbs finds the page" || bad "man rdmaverbs"
pre=$(env -u PKG_CONFIG_PATH pkg-config --variable=preload rdmaverbs)
[ "$pre" = /usr/lib/$multiarch/rdmaverbs/librdmaverbs-preload.so ] && dpkg -S "$pre" | grep -q '^librdmaverbs1:' &&
	ok "the preload library is $pre, in librdmaverbs1" || bad "preload library: '$pre'"
# Preloaded into a program that never heard of it, with counting on: its
# exit table is there, and the program's own output is unchanged.
if out=$(LD_PRELOAD=$pre RDMAVERBS_STATS=1 env -u LD_LIBRARY_PATH "$tmp/example" 2>"$tmp/pre.err") &&
   [ "$out" = "$(env -u LD_LIBRARY_PATH "$tmp/example")" ] && grep -q '^rdmaverbs: rdma_post_send ' "$tmp/pre.err"; then
	ok "the example runs preloaded, counted by the preload library"
else
	bad "the example preloaded: $(cat "$tmp/pre.err")"
fi

# The installed commands find the installed preload library by themselves.
mkdir -m 700 "$tmp/run"
if XDG_RUNTIME_DIR=$tmp/run env -u RDMAVERBS_PRELOAD -u LD_LIBRARY_PATH rdmaverbs-trace -c "$tmp/example" \
	> /dev/null 2> "$tmp/count" && grep -Eq '^rdma_post_send +[1-9]' "$tmp/count" &&
   XDG_RUNTIME_DIR=$tmp/run rdmaverbs-stat > "$tmp/stat" && grep -q '^ *PID  COMMAND' "$tmp/stat"; then
	ok "rdmaverbs-trace -c counts the example with the installed preload library; rdmaverbs-stat runs"
else
	bad "the commands: $(cat "$tmp/count" "$tmp/stat" 2>/dev/null)"
fi
dpkg-query -W -f='${Depends}' rdmaverbs-tools | grep -q "librdmaverbs1 (= " &&
	ok "rdmaverbs-tools depends on librdmaverbs1 of its own version" || bad "rdmaverbs-tools's Depends"

dpkg --purge $pkgs > "$tmp/purge.log" 2>&1 || { bad "dpkg --purge failed"; cat "$tmp/purge.log"; }
left=
while read -r f; do
	[ -d "$f" ] && continue	# directories shared with other packages
	[ -e "$f" ] || [ -L "$f" ] && left="$left $f"
done < "$tmp/files"
[ -z "$left" ] && ok "purge removed all $(grep -c . "$tmp/files") paths the packages installed" ||
	bad "left after purge:$left"
[ -d /usr/include/rdmaverbs ] && bad "left after purge: /usr/include/rdmaverbs/"
echo "deb: $pass passed, $fail failed"
[ $fail -eq 0 ]

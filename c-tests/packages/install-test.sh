#!/bin/sh
# The install test: `make install` into a temporary DESTDIR (with a multiarch
# LIBDIR), build c-tests/examples/example.c with nothing but
# `pkg-config --cflags --libs rdmaverbs` against that tree, run it, show that
# it calls librdmaverbs' symbols, then `make uninstall` and check that
# nothing is left.
set -eu
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=/usr/local
libdir=$prefix/lib/x86_64-linux-gnu
root=$tmp/root
pass=0 fail=0
ok() { echo "ok: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

make -s install DESTDIR="$root" PREFIX=$prefix LIBDIR=$libdir >/dev/null
version=$(sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -n 1)
for f in $libdir/librdmaverbs.so.$version $libdir/librdmaverbs.so.1 $libdir/librdmaverbs.so \
	 $libdir/librdmaverbs.a $libdir/pkgconfig/rdmaverbs.pc $libdir/rdmaverbs/librdmaverbs-preload.so \
	 $prefix/include/rdmaverbs/rdma/rdma_verbs.h $prefix/include/rdmaverbs/rdmaverbs.h \
	 $prefix/share/man/man3/rdma_get_send_comp_timeout.3 \
	 $prefix/share/man/man3/rdma_get_recv_comp_timeout.3 \
	 $prefix/bin/rdmaverbs-trace $prefix/bin/rdmaverbs-stat \
	 $prefix/share/man/man1/rdmaverbs-trace.1 $prefix/share/man/man1/rdmaverbs-stat.1; do
	[ -e "$root$f" ] || bad "not installed: $f"
done
# The man pages are installed and render without a warning (the .so link of
# rdma_get_recv_comp_timeout(3) through MANPATH, as man finds it).
man7=$root$prefix/share/man/man7/rdmaverbs.7
man3=$root$prefix/share/man/man3/rdma_get_send_comp_timeout.3
if [ -e "$man7" ] && warn=$(MANWIDTH=80 man --warnings -l "$man7" "$man3" 2>&1 >/dev/null) &&
   [ -z "$warn" ] && MANWIDTH=80 man -l "$man7" 2>/dev/null | grep -q RDMAVERBS_POLL_SPIN &&
   MANPATH=$root$prefix/share/man MANWIDTH=80 man 3 rdma_get_recv_comp_timeout 2>/dev/null | grep -q ETIMEDOUT; then
	ok "rdmaverbs(7) and the bounded waits' man pages installed under MANDIR, render without warnings"
else
	bad "man pages missing or render with warnings: ${warn:-}"
fi
[ ! -e "$root$prefix/include/rdma/rdma_verbs.h" ] || bad "installed at librdmacm's own header path"
[ $fail -eq 0 ] && ok "installed files present under DESTDIR, header under include/rdmaverbs/, the preload library under LIBDIR/rdmaverbs/"

# A user's build: flags from pkg-config only (the sysroot maps the .pc's
# paths into DESTDIR).
export PKG_CONFIG_PATH="$root$libdir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$root"
flags=$(pkg-config --cflags --libs rdmaverbs)
echo "pkg-config --cflags --libs rdmaverbs: $flags"
# The preload library's path, and what a static link needs.
[ "$(pkg-config --variable=preload rdmaverbs)" = "$root$libdir/rdmaverbs/librdmaverbs-preload.so" ] &&
	ok "pkg-config --variable=preload rdmaverbs: the installed preload library" ||
	bad "pkg-config --variable=preload rdmaverbs: '$(pkg-config --variable=preload rdmaverbs)'"
static=$(pkg-config --static --libs rdmaverbs)
case " $static " in
*" -lrdmaverbs "*"-lgcc_s "*" -libverbs "*) ok "pkg-config --static --libs rdmaverbs: -lrdmaverbs, then Libs.private (-lgcc_s ...) and libibverbs" ;;
*) bad "pkg-config --static --libs rdmaverbs lacks the native libraries: $static" ;;
esac
${CC:-cc} -Wall -Wextra -Wpedantic -Werror -o "$tmp/example" c-tests/examples/example.c $flags
LD_LIBRARY_PATH="$root$libdir" "$tmp/example" && ok "example runs" || bad "example failed"

# It calls our exports, not inlined copies.
nm -D "$tmp/example" | grep -E ' U rdma_' > "$tmp/imports" || true
for f in rdma_post_send rdma_get_send_comp rdma_seterrno; do
	grep -q " U $f@RDMAVERBS_1.0\$" "$tmp/imports" && ok "example imports $f@RDMAVERBS_1.0" ||
		bad "example does not import $f@RDMAVERBS_1.0"
done
LD_LIBRARY_PATH="$root$libdir" ldd "$tmp/example" | grep -q "librdmaverbs.so.1 => $root$libdir/" &&
	ok "ldd resolves librdmaverbs.so.1 in the installed tree" || bad "ldd: librdmaverbs.so.1 not from DESTDIR"

# The commands know the installation's preload library (LIBDIR's, not a
# hard-coded /usr): without DESTDIR in the way they would find it; here they
# name it, and run with RDMAVERBS_PRELOAD pointing into DESTDIR.
trace=$root$prefix/bin/rdmaverbs-trace
env -u RDMAVERBS_PRELOAD "$trace" -c true 2> "$tmp/where" && bad "rdmaverbs-trace ran without its preload library"
grep -qF "$libdir/rdmaverbs/librdmaverbs-preload.so: no preload library there" "$tmp/where" &&
	ok "rdmaverbs-trace looks for $libdir/rdmaverbs/librdmaverbs-preload.so" ||
	bad "rdmaverbs-trace looks elsewhere: $(cat "$tmp/where")"
mkdir -m 700 "$tmp/run"
if RDMAVERBS_PRELOAD=$root$libdir/rdmaverbs/librdmaverbs-preload.so XDG_RUNTIME_DIR=$tmp/run \
	LD_LIBRARY_PATH="$root$libdir" "$trace" -c "$tmp/example" > /dev/null 2> "$tmp/count" &&
   grep -Eq '^rdma_post_send +[1-9]' "$tmp/count"; then
	ok "the installed rdmaverbs-trace -c counts the example's calls"
else
	bad "rdmaverbs-trace -c: $(cat "$tmp/count")"
fi

make -s uninstall DESTDIR="$root" PREFIX=$prefix LIBDIR=$libdir >/dev/null
left=$(find "$root" -type f -o -type l)
[ -z "$left" ] && ok "uninstall removed every installed file" || bad "left after uninstall: $left"

echo "install: $pass passed, $fail failed"
[ $fail -eq 0 ]

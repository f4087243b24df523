#!/usr/bin/env bash
# The RPM test: what the binary RPMs of `make rpm` hold, provide and require,
# then, as a user of rdmaverbs-devel would, build and run
# c-tests/examples/example.c against the tree the RPMs unpack to (rpm2cpio),
# with nothing but `pkg-config --cflags --libs rdmaverbs`. Needs no root:
# nothing is installed on this (Debian) system.
# Usage: rpm-test.sh RPM_DIR   (rpmbuild's _topdir)
set -u
cd "$(dirname "$0")/../.."
dir=$(realpath "$1")
pass=0 fail=0
ok() { echo "ok: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
version=$(sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -n 1)
arch=$(rpm --eval '%{_arch}')
libdir=$(rpm --eval '%{_libdir}')
rpmof() { ls "$dir"/RPMS/"$arch"/"$1"-"$version"-*."$arch".rpm 2>/dev/null | head -n 1; }
lib=$(rpmof rdmaverbs) devel=$(rpmof rdmaverbs-devel) dbg=$(rpmof rdmaverbs-debuginfo)
tools=$(rpmof rdmaverbs-tools)
for p in "$lib" "$devel" "$dbg" "$tools"; do [ -n "$p" ] || bad "a binary RPM is missing in $dir/RPMS/$arch"; done
[ -n "$lib" ] && [ -n "$devel" ] || { echo "rpm: $pass passed, $fail failed"; exit 1; }
ls "$dir"/SRPMS/rdmaverbs-"$version"-*.src.rpm >/dev/null 2>&1 && ok "the source RPM is there" || bad "no source RPM"

# Which files went where (the .a is not shipped: Fedora wants a -static
# package for that, and nobody has asked for one).
# (The build-id links, /usr/lib/.build-id/NN/..., one per library, vary
# with each build: counted, not named.)
files() { rpm -qpl "$1" | grep -v '^/usr/lib/\.build-id' | sort; }
want_lib="/usr/share/doc/rdmaverbs
/usr/share/doc/rdmaverbs/README.md
/usr/share/licenses/rdmaverbs
/usr/share/licenses/rdmaverbs/LICENSE-APACHE
/usr/share/licenses/rdmaverbs/LICENSE-MIT
/usr/share/man/man7/rdmaverbs.7.gz
$libdir/librdmaverbs.so.1
$libdir/librdmaverbs.so.$version
$libdir/rdmaverbs
$libdir/rdmaverbs/librdmaverbs-preload.so"
want_devel="/usr/include/rdmaverbs
/usr/include/rdmaverbs/rdma
/usr/include/rdmaverbs/rdma/rdma_verbs.h
/usr/include/rdmaverbs/rdmaverbs.h
/usr/share/man/man3/rdma_get_recv_comp_timeout.3.gz
/usr/share/man/man3/rdma_get_send_comp_timeout.3.gz
$libdir/librdmaverbs.so
$libdir/pkgconfig/rdmaverbs.pc"
want_tools="/usr/bin/rdmaverbs-stat
/usr/bin/rdmaverbs-trace
/usr/share/licenses/rdmaverbs-tools
/usr/share/licenses/rdmaverbs-tools/LICENSE-APACHE
/usr/share/licenses/rdmaverbs-tools/LICENSE-MIT
/usr/share/man/man1/rdmaverbs-stat.1.gz
/usr/share/man/man1/rdmaverbs-trace.1.gz"
same() {	# WHAT WANT GOT
	if [ "$2" = "$3" ]; then ok "$1"; else bad "$1"; diff <(echo "$2") <(echo "$3"); fi
}
same "rdmaverbs holds the library, the preload library, rdmaverbs(7), the licenses" \
	"$(sort <<< "$want_lib")" "$(files "$lib")"
same "rdmaverbs-devel holds the headers, the .so link, the .pc, the man3 pages" \
	"$(sort <<< "$want_devel")" "$(files "$devel")"
same "rdmaverbs-tools holds the two commands and their man pages" \
	"$(sort <<< "$want_tools")" "$(files "$tools")"
rpm -qp --requires "$tools" | grep -qxF "rdmaverbs(x86-64) = $version-1" &&
	ok "rdmaverbs-tools requires rdmaverbs(x86-64) = $version-1 (its preload library)" ||
	bad "rdmaverbs-tools's requires: $(rpm -qp --requires "$tools" | tr '\n' ' ')"
[ "$(rpm -qpl "$lib" | grep -c '^/usr/lib/\.build-id/../.')" = 2 ] &&
	ok "rdmaverbs has a build-id link for each of its 2 libraries" || bad "build-id links: $(rpm -qpl "$lib" | grep -c build-id)"
[ -n "$dbg" ] && rpm -qpl "$dbg" | grep -q "/usr/lib/debug$libdir/librdmaverbs.so.$version-.*\.debug$" &&
	ok "rdmaverbs-debuginfo has the library's debug file" || bad "no debug file for the library"

# What rpm's generators made of the ELF files and the .pc.
prov=$(rpm -qp --provides "$lib")
for p in "librdmaverbs.so.1()(64bit)" "librdmaverbs.so.1(RDMAVERBS_1.0)(64bit)" \
	 "librdmaverbs.so.1(RDMAVERBS_1.1)(64bit)" "librdmaverbs.so.1(RDMAVERBS_1.2)(64bit)" \
	 "rdmaverbs(x86-64) = $version-1"; do
	grep -qxF "$p" <<< "$prov" && ok "rdmaverbs provides $p" || bad "rdmaverbs does not provide $p"
done
grep -q 'preload' <<< "$prov" && bad "the preload library is provided: $(grep preload <<< "$prov")" ||
	ok "the preload library provides nothing (private, never linked)"
req=$(rpm -qp --requires "$lib")
grep -qxF "libibverbs.so.1()(64bit)" <<< "$req" && grep -qxF "libibverbs.so.1(IBVERBS_1.1)(64bit)" <<< "$req" &&
	ok "rdmaverbs requires libibverbs.so.1()(64bit), libibverbs.so.1(IBVERBS_1.1)(64bit)" ||
	bad "rdmaverbs's requires: $(tr '\n' ' ' <<< "$req")"
rpm -qp --scripts "$lib" | grep -q ldconfig && ok "rdmaverbs runs ldconfig after install and removal" ||
	bad "no ldconfig scriptlets"
dprov=$(rpm -qp --provides "$devel") dreq=$(rpm -qp --requires "$devel")
grep -qxF "pkgconfig(rdmaverbs) = $version" <<< "$dprov" && ok "rdmaverbs-devel provides pkgconfig(rdmaverbs) = $version" ||
	bad "rdmaverbs-devel's provides: $(tr '\n' ' ' <<< "$dprov")"
grep -qxF "rdmaverbs(x86-64) = $version-1" <<< "$dreq" && ok "rdmaverbs-devel requires rdmaverbs(x86-64) = $version-1" ||
	bad "rdmaverbs-devel's requires: $(tr '\n' ' ' <<< "$dreq")"

# Unpacked as an installation would put it, under $tmp/root.
mkdir -p "$tmp/root"
for p in "$lib" "$devel" "$tools"; do (cd "$tmp/root" && rpm2cpio "$p" | cpio -idm --quiet) || bad "rpm2cpio $p"; done
root=$tmp/root
export PKG_CONFIG_PATH=$root$libdir/pkgconfig PKG_CONFIG_SYSROOT_DIR=$root
flags=$(pkg-config --cflags --libs rdmaverbs) || bad "pkg-config rdmaverbs"
echo "pkg-config --cflags --libs rdmaverbs: $flags"
if cc -Wall -Wextra -Wpedantic -Werror -o "$tmp/example" c-tests/examples/example.c $flags &&
   LD_LIBRARY_PATH=$root$libdir "$tmp/example" > "$tmp/out"; then
	ok "example built with the unpacked rdmaverbs-devel, run with the unpacked rdmaverbs"
else
	bad "example failed"
fi
LD_LIBRARY_PATH=$root$libdir ldd "$tmp/example" | grep -qF "librdmaverbs.so.1 => $root$libdir/librdmaverbs.so.1 " &&
	ok "it loads the unpacked librdmaverbs.so.1" || bad "ldd: not the unpacked library"
nm -D "$tmp/example" | grep -q ' U rdma_post_send@RDMAVERBS_1.0$' &&
	ok "it imports rdma_post_send@RDMAVERBS_1.0" || bad "rdma_post_send not imported"
pre=$(PKG_CONFIG_SYSROOT_DIR= pkg-config --variable=preload rdmaverbs)	# as installed
[ "$pre" = "$libdir/rdmaverbs/librdmaverbs-preload.so" ] && [ -f "$root$pre" ] &&
	ok "pkg-config's preload variable names $pre, in rdmaverbs" || bad "preload library: '$pre'"
if out=$(LD_PRELOAD=$root$pre RDMAVERBS_STATS=1 LD_LIBRARY_PATH=$root$libdir "$tmp/example" 2>"$tmp/pre.err") &&
   [ "$out" = "$(cat "$tmp/out")" ] && grep -q '^rdmaverbs: rdma_post_send ' "$tmp/pre.err"; then
	ok "the example runs preloaded, counted by the preload library"
else
	bad "the example preloaded: $(cat "$tmp/pre.err")"
fi
# The unpacked rdmaverbs-trace names the preload library where rdmaverbs
# puts it, and counts with it (pointed into the unpacked tree).
"$root/usr/bin/rdmaverbs-trace" -c true 2> "$tmp/where"
grep -qF "$libdir/rdmaverbs/librdmaverbs-preload.so: no preload library there" "$tmp/where" &&
	ok "rdmaverbs-trace looks for $libdir/rdmaverbs/librdmaverbs-preload.so" ||
	bad "rdmaverbs-trace looks elsewhere: $(cat "$tmp/where")"
mkdir -m 700 "$tmp/run"
if RDMAVERBS_PRELOAD=$root$pre XDG_RUNTIME_DIR=$tmp/run LD_LIBRARY_PATH=$root$libdir \
	"$root/usr/bin/rdmaverbs-trace" -c "$tmp/example" > /dev/null 2> "$tmp/count" &&
   grep -Eq '^rdma_post_send +[1-9]' "$tmp/count"; then
	ok "the unpacked rdmaverbs-trace -c counts the example's calls"
else
	bad "rdmaverbs-trace -c: $(cat "$tmp/count")"
fi
echo "rpm: $pass passed, $fail failed"
[ $fail -eq 0 ]

#!/usr/bin/env bash
# The next Debian: builds the .deb packages, with the quick test tier as the
# build's own test (debian/rules runs make test-lib), inside a Debian 13
# (trixie) root made by mmdebstrap from Debian's archive, with trixie's own
# toolchain (rustc and cargo 1.85, gcc 14, rdma-core 56), then lintian of
# trixie. Not part of make check: the root alone is some 1.5 GB of packages.
# The root is kept in BUILD/trixie/root and reused; delete it to start over.
# Needs root (chroot, mount namespaces). Network: Debian's archive only,
# while the root is made; the build itself runs with none when unshare -n
# can take it away.
# Usage: trixie.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$1/trixie
root=$out/root
version=$(sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -n 1)
mirror=${MIRROR:-http://deb.debian.org/debian}
[ "$(id -u)" = 0 ] || { echo "trixie.sh: needs root (chroot)" >&2; exit 2; }
[ -d vendor ] || { echo "trixie.sh: vendor/ is missing: make vendor" >&2; exit 2; }

# What debian/control's Build-Depends name, trixie's Rust toolchain (on
# Debian 12 the build uses the machine's rustup toolchain instead), and what
# the quick tier runs (python3, gdb for the hardening tests, man).
packages=build-essential,debhelper,dpkg-dev,fakeroot,lintian,cargo,rustc,pkg-config,cmake,clang,libclang-dev,libnl-3-dev,libnl-route-3-dev,libibverbs-dev,librdmacm-dev,ibverbs-providers,python3,gdb,man-db,groff-base,binutils,git
if [ ! -e "$root/etc/debian_version" ]; then
	rm -rf "$root"; mkdir -p "$out"
	t0=$SECONDS
	mmdebstrap --variant=apt --include="$packages" trixie "$root" "$mirror"
	echo "trixie.sh: root made in $((SECONDS - t0)) s"
fi
echo "trixie.sh: Debian $(cat "$root/etc/debian_version"), $(chroot "$root" rustc --version)," \
	"$(chroot "$root" gcc --version | head -n 1), rdma-core $(chroot "$root" dpkg-query -W -f='${Version}' libibverbs-dev)"

# The tracked files and vendor/, as make deb copies them.
src=$root/src/rdmaverbs-$version
rm -rf "$root/src" && mkdir -p "$src"
git ls-files -z | xargs -0 cp -a --parents -t "$src"
cp -a vendor "$src/"

# In a mount namespace of its own: /proc, /dev and /sys for the build, gone
# with it; no network when unshare -n works.
nonet=; unshare -n true 2>/dev/null && nonet=-n
t0=$SECONDS
unshare --mount $nonet --fork sh -euc '
	mount --make-rprivate /
	mount -t proc proc "$1/proc"
	mount --rbind /dev "$1/dev"
	mount --rbind /sys "$1/sys"
	mount -t tmpfs tmpfs "$1/tmp"
	chroot "$1" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 sh -euc "
		cd /src/rdmaverbs-$2
		dpkg-buildpackage -us -uc -b
		lintian --allow-root --fail-on error --info --pedantic ../*.changes
		ls ../*.deb"
' sh "$root" "$version"
echo "trixie.sh: built, tested (make test-lib) and lintian-checked in $((SECONDS - t0)) s"
mkdir -p "$out/deb" && cp "$root"/src/*.deb "$out/deb/"
ls "$out/deb"

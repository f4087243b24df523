#!/usr/bin/env bash
# build-siw.sh — soft-iWARP (siw.ko) for the kernel the Soft-RoCE guests
# boot. Debian's kernels are built without it (# CONFIG_RDMA_SIW is not set),
# so it is built out of tree from Debian's own source of that kernel
# (linux-source-X.Y) against its headers (linux-headers-KVER), both of the
# very version of the kernel's image package; anything else is refused, with
# the reason and the command that puts it right. A kernel that ships siw.ko
# itself needs no build: its module is used.
#
# The module is cached outside the tree, keyed by the kernel's release and
# its package's version (KVER/VERSION/siw.ko), so a fresh clone builds it
# once per machine (about 25 s on 2 cores) and finds it after:
#   $RDMAVERBS_CACHE if set, else /var/cache/rdmaverbs for root, else
#   ${XDG_CACHE_HOME:-$HOME/.cache}/rdmaverbs.
#
# usage: build-siw.sh [-k KERNEL] [-f]
#   -k KERNEL  the vmlinuz the guests boot (default: as run-guest.sh picks it,
#              or $KERNEL)
#   -f         build again even if the cache has it
# Prints the module's path on stdout (messages on stderr); exits 2, saying
# why, when it cannot.
set -euo pipefail

die() { echo "build-siw.sh: cannot build siw.ko: $*" >&2; exit 2; }
say() { echo "build-siw.sh: $*" >&2; }

force=
while getopts "k:fh" opt; do
	case $opt in
	k) KERNEL=$OPTARG ;;
	f) force=1 ;;
	*) sed -n '2,22p' "$0" >&2; exit 2 ;;
	esac
done
if [ -z "${KERNEL:-}" ]; then
	KERNEL=$(ls /boot/vmlinuz-*-amd64 2>/dev/null | sort -V | tail -n1)
fi
[ -n "$KERNEL" ] && [ -r "$KERNEL" ] ||
	die "no /boot/vmlinuz-*-amd64 kernel: apt-get install -y linux-image-amd64"
kver=${KERNEL##*/vmlinuz-}
mods=/lib/modules/$kver

# The kernel's own module, if it has one.
own=$(ls "$mods"/kernel/drivers/infiniband/sw/siw/siw.ko* 2>/dev/null | head -n1 || true)
if [ -n "$own" ]; then
	say "kernel $kver ships $own: no build"
	echo "$own"
	exit 0
fi

# The three packages, one version: the image's.
pkgver() {	# PACKAGE: its version if installed, else nothing
	dpkg-query -W -f='${db:Status-Abbrev} ${Version}\n' "$1" 2>/dev/null |
		awk '$1 == "ii" { print $2 }'
}
image=$(dpkg-query -S "$KERNEL" 2>/dev/null | head -n1 | cut -d: -f1) ||
	die "no installed package holds $KERNEL (dpkg -S): a kernel not from Debian's archive"
[ -n "$image" ] || die "no installed package holds $KERNEL (dpkg -S)"
ver=$(pkgver "$image")
[ -n "$ver" ] || die "$image, which holds $KERNEL, is not installed"
series=$(echo "$kver" | sed -n 's/^\([0-9]*\.[0-9]*\)\..*/\1/p')
[ -n "$series" ] || die "cannot read the series (X.Y) from the kernel release $kver"
for p in "linux-headers-$kver" "linux-source-$series"; do
	pv=$(pkgver "$p")
	[ -n "$pv" ] || die "$p is not installed: apt-get install -y $p=$ver" \
		"(linux-headers-amd64 and linux-source-$series, in .ci/deps, are the packages of" \
		"the archive's current kernel; the guests boot $image $ver)"
	[ "$pv" = "$ver" ] || die "$p is $pv, the kernel the guests boot ($image) is $ver:" \
		"a module must be built from the source and headers of its own kernel" \
		"(apt-get install -y $p=$ver, or upgrade $image to $pv)"
done
tarball=/usr/src/linux-source-$series.tar.xz
[ -r "$tarball" ] || die "$tarball missing (linux-source-$series $ver is installed: reinstall it)"
[ -d "$mods/build" ] || die "$mods/build missing (linux-headers-$kver $ver is installed: reinstall it)"
release=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$mods/build/include/generated/utsrelease.h" \
	2>/dev/null || true)
[ "$release" = "$kver" ] || die "the headers in $mods/build are for '$release', not $kver"
config=/boot/config-$kver
[ -r "$config" ] || die "$config missing"
for c in CONFIG_INET=y CONFIG_INFINIBAND=m CONFIG_INFINIBAND_VIRT_DMA=y CONFIG_LIBCRC32C=m \
	CONFIG_CRYPTO_CRC32C=m; do
	grep -qx -e "$c" -e "${c%=m}=y" "$config" ||
		die "kernel $kver lacks ${c%=*}, which siw needs (Kconfig: RDMA_SIW)"
done
for t in make gcc xz; do
	command -v $t > /dev/null || die "'$t' not found: apt-get install -y build-essential xz-utils"
done

# The cache.
if [ -n "${RDMAVERBS_CACHE:-}" ]; then
	cache=$RDMAVERBS_CACHE
elif [ "$(id -u)" = 0 ]; then
	cache=/var/cache/rdmaverbs
else
	cache=${XDG_CACHE_HOME:-${HOME:?}/.cache}/rdmaverbs
fi
dir=$cache/siw/$kver/$ver
ko=$dir/siw.ko
mkdir -p "$dir" || die "cannot make the cache folder $dir"
# One build at a time (two worktrees, or make -j).
exec 9> "$dir/.lock"
flock 9

# A cached module is used only if it is the one this script would build:
# the same versions, the kernel's vermagic.
vermagic() { modinfo -F vermagic "$1" 2>/dev/null | awk '{ print $1 }'; }
stamp="kernel=$kver image=$image version=$ver source=linux-source-$series headers=linux-headers-$kver"
if [ -z "$force" ] && [ -s "$ko" ] && [ "$(cat "$dir/stamp" 2>/dev/null)" = "$stamp" ] &&
   [ "$(vermagic "$ko")" = "$kver" ]; then
	say "cached: $ko ($stamp)"
	echo "$ko"
	exit 0
fi

say "building siw.ko for $kver ($image $ver) from $tarball (about 25 s)"
t0=$(date +%s)
work=$(mktemp -d "${TMPDIR:-/tmp}/build-siw.XXXXXX")
trap 'rm -rf "$work"' EXIT
src=linux-source-$series/drivers/infiniband/sw/siw
tar -xJf "$tarball" -C "$work" "$src" || die "$tarball has no $src"
# Kbuild reads obj-$(CONFIG_RDMA_SIW): the kernel's config leaves it unset.
make -s -C "$mods/build" M="$work/$src" CONFIG_RDMA_SIW=m modules >&2 ||
	die "the build failed (above)"
built=$work/$src/siw.ko
[ "$(vermagic "$built")" = "$kver" ] ||
	die "the module built has vermagic '$(modinfo -F vermagic "$built")', not $kver"
# (without its debugging information: 5 MB less for the guest to read)
strip --strip-debug -o "$dir/siw.ko.new" "$built"
mv "$dir/siw.ko.new" "$ko"
echo "$stamp" > "$dir/stamp"
say "built $ko in $(($(date +%s) - t0)) s ($(modinfo -F depends "$ko" | sed 's/^/depends: /'))"
echo "$ko"

# Roots of other Debian releases, for the tests that build and run rdmaverbs
# against another rdma-core (c-tests/releases/rdma-core.sh). Sourced.
#
# A root is made by mmdebstrap from Debian's archive (the only thing fetched)
# and kept in ROOTS (outside the tree; /var/cache/rdmaverbs/roots unless
# RDMAVERBS_ROOTS says otherwise) for later runs on the same machine, until
# it is a week old or its list of packages changes. Needs root (chroot).

ROOTS=${RDMAVERBS_ROOTS:-/var/cache/rdmaverbs/roots}
MIRROR=${MIRROR:-http://deb.debian.org/debian}

# make_root SUITE PACKAGES LOG: the root's path on stdout; non-zero (the
# reason in LOG) when it cannot be made today.
make_root() {
	local suite=$1 packages=$2 log=$3 root=$ROOTS/$1 stamp
	stamp="packages: $packages"
	if [ -e "$root/.rdmaverbs-root" ] && [ "$(cat "$root/.rdmaverbs-root")" = "$stamp" ] &&
	   [ -n "$(find "$root/.rdmaverbs-root" -mtime -7)" ]; then
		echo "$root"
		return 0
	fi
	remove_root "$root" && mkdir -p "$ROOTS"
	# Valid-Until not checked: unstable's Release file expires within days,
	# and a mirror a little behind (this machine's has been seen three weeks
	# behind) would make no root at all; its signature is still checked.
	if ! timeout 900 mmdebstrap --variant=apt --aptopt='Acquire::Check-Valid-Until "false"' \
		--include="${packages// /,}" "$suite" "$root" "$MIRROR" \
		> "$log" 2>&1; then
		remove_root "$root"
		return 1
	fi
	echo "$stamp" > "$root/.rdmaverbs-root"
	echo "$root"
}

# remove_root ROOT: deletes it, first unmounting what an interrupted
# mmdebstrap left mounted there (its /proc, /sys, /dev), and never crossing
# into another file system.
remove_root() {
	findmnt -rn -o TARGET | grep "^$1/" | sort -r | xargs -r umount -l
	rm -rf --one-file-system "$1"
}

# in_root ROOT DIR COMMAND...: COMMAND (a shell command) in ROOT, in a mount
# namespace of its own with /proc, /dev, a /tmp of its own and the checkout
# (DIR, at the same path, so that a tree built in one root runs in another)
# mounted; without network when unshare -n can take it away. RUN_ENV adds
# variables (NAME=VALUE ...), RUN_BINDS more read-only directories.
in_root() {
	local root=$1 dir=$2
	shift 2
	local nonet=
	unshare -n true 2>/dev/null && nonet=-n
	unshare --mount $nonet --fork sh -euc '
		root=$1 dir=$2 binds=$3 cmd=$4; shift 4
		mount --make-rprivate /
		mount -t proc proc "$root/proc"
		mount --rbind /dev "$root/dev"
		mount -t tmpfs tmpfs "$root/tmp"
		mkdir -p "$root$dir"
		mount --bind "$dir" "$root$dir"
		for b in $binds; do
			mkdir -p "$root$b"
			mount --bind "$b" "$root$b"
			mount -o remount,bind,ro "$root$b"
		done
		exec chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
			"$@" bash -c "$cmd"
	' sh "$root" "$dir" "${RUN_BINDS:-}" "$*" ${RUN_ENV:-}
}

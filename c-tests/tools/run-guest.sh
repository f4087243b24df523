#!/usr/bin/env bash
# run-guest.sh — boot the Debian kernel under QEMU (TCG) with virtme-ng, set up
# Soft-RoCE (rdma_rxe) on dummy0 at 192.0.2.1/24 inside the guest, run a script
# there, and exit with that script's exit code.
#
# With -l, the guest has a network card instead, joined to another guest's by
# a QEMU socket link on 127.0.0.1 (see ../shared/reference/two-hosts.md and
# run-pair.sh), and rxe0 on it at the address of -a.
#
# usage: run-guest.sh [-m MEM] [-t SECS] [-w DIR]... [-e VAR]... [-v] [-r ROOT]
#                     [-l listen=127.0.0.1:PORT|connect=127.0.0.1:PORT -a ADDR -M N] SCRIPT [ARGS...]
#   -m MEM   guest memory (default 1G; 256M was enough for rdma_server/client)
#   -t SECS  hard timeout for the whole VM run (default 600); exit 124 when hit
#   -w DIR   make host DIR writable from the guest (vng --rwdir); repeatable.
#            Without it the guest sees the whole host fs READ-ONLY, except /tmp,
#            /etc, /var, ... which are throw-away overlays (writes are lost).
#   -e VAR   pass host environment variable VAR into the guest; repeatable.
#            (vng passes NO environment: LD_LIBRARY_PATH, CI, PATH are all reset)
#   -v       show the guest kernel boot log (vng --verbose) as progress
#   -l SPEC  a virtio network card on a QEMU socket link (SPEC as -netdev socket
#            takes it: listen=127.0.0.1:PORT or connect=127.0.0.1:PORT)
#   -a ADDR  the card's address (192.0.2.0/24 only); -M N its MAC's last digit
#   -r ROOT  the guest's root is ROOT, a root of another Debian release
#            (c-tests/releases/roots.sh), booted with its own newest kernel and
#            modules; the current folder and each -w DIR are the host's
# Inside the guest: cwd = the host cwd, user root, device rxe0 on dummy0,
# address 192.0.2.1 (guest-only; the guest has no NIC, nothing leaves it);
# with -l, rxe0 on the card at ADDR, the card's name in $RDMAVERBS_NETDEV.
# Env: VNG (path to vng), KERNEL (path to vmlinuz) override auto-detection.
set -u -o pipefail
# vng and QEMU keep their own files in /tmp, the one host folder the guest
# can write to, whatever TMPDIR the tests run with (the Makefile points it
# into the build tree).
export TMPDIR=/tmp
PATH=${PATH:-}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

die() { echo "run-guest.sh: error: $*" >&2; exit 2; }

mem=1G; tmo=600; verbose=; rwdirs=(); passvars=(); link=; addr=192.0.2.1; mac=1; root=
while getopts "m:t:w:e:vl:a:M:r:h" opt; do
  case $opt in
    m) mem=$OPTARG ;;
    t) tmo=$OPTARG ;;
    w) [ -d "$OPTARG" ] || die "-w $OPTARG: not a directory"; rwdirs+=("$(realpath "$OPTARG")") ;;
    e) passvars+=("$OPTARG") ;;
    v) verbose=--verbose ;;
    l) link=$OPTARG ;;
    a) addr=$OPTARG ;;
    M) mac=$OPTARG ;;
    r) root=$(realpath "$OPTARG") && [ -d "$root/boot" ] || die "-r $OPTARG: no root with a /boot" ;;
    h) sed -n '2,28p' "$0"; exit 0 ;;
    *) die "bad option (see -h)" ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || die "usage: $0 [options] SCRIPT [ARGS...] (see -h)"
case $addr in 192.0.2.*) ;; *) die "-a $addr: only 192.0.2.0/24 is used in the guests" ;; esac
case $link in ""|listen=127.0.0.1:*|connect=127.0.0.1:*) ;; *) die "-l $link: only a socket on 127.0.0.1" ;; esac
script=$(realpath -e "$1" 2>/dev/null) || die "guest script '$1' not found"
shift

# RDMAVERBS_GUEST_LOCK=FILE: the boot waits while another run holds FILE
# (flock), so that the guests of runs sharing a machine never overlap;
# run-pair.sh takes it once for its two guests (RDMAVERBS_GUEST_LOCKED).
if [ -n "${RDMAVERBS_GUEST_LOCK:-}" ] && [ -z "${RDMAVERBS_GUEST_LOCKED:-}" ]; then
  exec 9>> "$RDMAVERBS_GUEST_LOCK" && flock 9 || die "cannot lock $RDMAVERBS_GUEST_LOCK"
fi

# --- preflight ------------------------------------------------------------
if [ -z "${VNG:-}" ]; then
  VNG=$(command -v vng 2>/dev/null) || true
  pyscripts=$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))' 2>/dev/null)
  for c in "$pyscripts/vng" /root/.pyenv/shims/vng "${HOME:-/root}/.local/bin/vng" /usr/local/bin/vng; do
    [ -n "$VNG" ] && break; [ -x "$c" ] && VNG=$c
  done
fi
[ -n "$VNG" ] && [ -x "$VNG" ] || die "vng not found: install it with 'python3 -m pip install virtme-ng' (PyPI)"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found: apt-get install -y qemu-system-x86"
if [ -z "${KERNEL:-}" ]; then
  KERNEL=$(ls "$root"/boot/vmlinuz-*-amd64 2>/dev/null | sort -V | tail -n1)
fi
[ -n "$KERNEL" ] && [ -r "$KERNEL" ] || die "no $root/boot/vmlinuz-*-amd64 kernel: apt-get install -y linux-image-amd64"
kver=${KERNEL#*/vmlinuz-}
ls "$root"/lib/modules/"$kver"/kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko* >/dev/null 2>&1 \
  || die "kernel $kver has no rdma_rxe module under $root/lib/modules/$kver"
for t in rdma ip modprobe; do
  [ -n "$root" ] || command -v $t >/dev/null || die "'$t' not found: apt-get install -y iproute2 kmod rdma-core"
  [ -z "$root" ] || [ -x "$root/usr/bin/$t" ] || [ -x "$root/usr/sbin/$t" ] || [ -x "$root/sbin/$t" ] ||
    die "'$t' not in $root: its packages iproute2 kmod rdma-core"
done
ls "$root"/usr/lib/*/libibverbs/librxe-rdmav*.so >/dev/null 2>&1 \
  || die "rxe userspace provider missing: apt-get install -y ibverbs-providers rdma-core"

# --- guest wrapper (under /tmp, of ROOT with -r: visible in the guest, created before boot) ---
work=$(mktemp -d "$root/tmp/run-guest.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$work"' EXIT
# The host's folders the guest writes to, at the same paths (with -r, the
# current folder too, the tree the script runs in).
[ -z "$root" ] || rwdirs+=("$PWD")
vngdirs=()
for d in "${rwdirs[@]}"; do
  [ -z "$root" ] || mkdir -p "$root$d"
  vngdirs+=("--rwdir=$d=$d")
done
vngroot=()
[ -z "$root" ] || vngroot=(--root "$root")
{
  echo 'set -e'
  for v in "${passvars[@]}"; do
    if [ -n "${!v+x}" ]; then printf 'export %s=%q\n' "$v" "${!v}"; fi
  done
  printf 'addr=%q\n' "$addr"
  if [ -z "$link" ]; then
    cat <<'GUEST'
modprobe rdma_rxe
ip link add dummy0 type dummy
ip addr add "$addr"/24 dev dummy0
ip link set dummy0 up
rdma link add rxe0 type rxe netdev dummy0
GUEST
  else
    # The card appears a moment after the module is loaded, named by udev.
    cat <<'GUEST'
modprobe virtio_net; modprobe rdma_rxe
dev=
for i in $(seq 50); do dev=$(ls /sys/class/net | grep -vx lo | head -1); [ -n "$dev" ] && break; sleep 0.2; done
[ -n "$dev" ] || { echo "guest: no network card" >&2; exit 97; }
sleep 1
ip link set "$dev" up
ip addr add "$addr"/24 dev "$dev"
rdma link add rxe0 type rxe netdev "$dev"
export RDMAVERBS_NETDEV=$dev
GUEST
  fi
  cat <<'GUEST'
for i in $(seq 50); do rdma link show rxe0/1 2>/dev/null | grep -q 'state ACTIVE' && break; sleep 0.2; done
rdma link show rxe0/1 | grep -q 'state ACTIVE' || { echo "guest: rxe0 not ACTIVE" >&2; rdma link show >&2; exit 97; }
set +e
GUEST
  printf 'cd %q\n' "$PWD"
  printf 'bash %q' "$script"; for a in "$@"; do printf ' %q' "$a"; done; echo
} > "$work/guest.sh"

# --- boot -----------------------------------------------------------------
# </dev/null: vng crashes if stdin is closed. "| cat": QEMU reopens
# /proc/self/fd/1 and /proc/self/fd/2 with O_TRUNC, so redirecting vng straight
# into a regular file clobbers output; a pipe is safe. --disable-kvm: KVM hangs
# on this machine kind. --force-9p: skips ~3 s of failed virtiofsd attempts.
# tsc=reliable: under TCG the kernel's TSC synchronisation check fails
# ("Marking TSC unstable due to TSCs unsynchronized") and the clock falls
# back to the emulated HPET, which has no vDSO read: every
# clock_gettime(CLOCK_MONOTONIC) is then a system call and an emulated
# device read (950 ns a call in this guest, against 104 ns on the TSC's
# vDSO read; 22 ns on the host). A real machine reads the TSC; so does the
# guest with tsc=reliable (QEMU's TSC is one clock for every vCPU).
nic=()
[ -n "$link" ] && nic=("--qemu-opts=-netdev socket,id=w0,$link -device virtio-net-pci,netdev=w0,mac=52:54:00:00:00:0$mac")
echo "run-guest.sh: booting $KERNEL under QEMU (TCG, $mem; about 20 s) to run $script" >&2
timeout -k 10 "$tmo" "$VNG" --run "$KERNEL" "${vngroot[@]}" --user root --disable-kvm --force-9p \
  --memory "$mem" --append tsc=reliable $verbose "${vngdirs[@]}" "${nic[@]}" \
  --exec "bash ${work#"$root"}/guest.sh" </dev/null 2>&1 | cat
rc=${PIPESTATUS[0]}
[ "$rc" = 124 ] && echo "run-guest.sh: VM timed out after ${tmo}s" >&2
exit "$rc"

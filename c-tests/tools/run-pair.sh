#!/usr/bin/env bash
# run-pair.sh — two Soft-RoCE guests joined by a link (../shared/reference/
# two-hosts.md): host A (192.0.2.1) listens on a QEMU socket on 127.0.0.1,
# host B (192.0.2.2) connects to it; each runs its script (with
# run-guest.sh), and both see OUT, writable, to leave their logs and to meet
# in (a file one writes, the other waits for). Exits non-zero if either
# script failed or either guest timed out.
#
# usage: run-pair.sh [-t SECS] [-p PORT] OUT SCRIPT_A SCRIPT_B [ARGS...]
#   both scripts get: THEIR_ROLE (a or b) OUT ARGS...
#   -t SECS  time limit of each guest (default 900); -p the link's port (17471)
set -u -o pipefail
here=$(dirname "$0")
tmo=900 port=17471
while getopts "t:p:h" opt; do
  case $opt in
    t) tmo=$OPTARG ;;
    p) port=$OPTARG ;;
    *) sed -n '2,14p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 3 ] || { sed -n '2,14p' "$0"; exit 2; }
out=$(realpath "$1") a=$2 b=$3
shift 3
mkdir -p "$out"
# RDMAVERBS_GUEST_LOCK (run-guest.sh): one lock for both guests.
if [ -n "${RDMAVERBS_GUEST_LOCK:-}" ] && [ -z "${RDMAVERBS_GUEST_LOCKED:-}" ]; then
  exec 9>> "$RDMAVERBS_GUEST_LOCK" && flock 9 || { echo "run-pair.sh: cannot lock $RDMAVERBS_GUEST_LOCK" >&2; exit 2; }
  export RDMAVERBS_GUEST_LOCKED=1
fi
# Host A first: its QEMU listens; B's connects to it.
"$here/run-guest.sh" -t "$tmo" -w "$out" -l "listen=127.0.0.1:$port" -a 192.0.2.1 -M 1 \
  "$a" a "$out" "$@" > "$out/host-a.log" 2>&1 &
pid_a=$!
sleep 3
"$here/run-guest.sh" -t "$tmo" -w "$out" -l "connect=127.0.0.1:$port" -a 192.0.2.2 -M 2 \
  "$b" b "$out" "$@" > "$out/host-b.log" 2>&1
rc_b=$?
wait $pid_a
rc_a=$?
# A guest that powered itself off on purpose leaves OUT/a-powered-off.
[ -e "$out/a-powered-off" ] && [ "$rc_a" != 124 ] && rc_a=0
echo "run-pair.sh: host A exited $rc_a, host B exited $rc_b" >&2
[ "$rc_a" = 0 ] && [ "$rc_b" = 0 ]

#!/usr/bin/env bash
# make e2e-pair: boot two Soft-RoCE guests joined by a link (run-pair.sh),
# walk pair-guest.sh's steps in both, then check their logs (pair.py), which
# also writes the fault table, BUILD_DIR/pair-out/faults.md.
# Usage: pair.sh BUILD_DIR
set -u
cd "$(dirname "$0")/../.."
B=$(realpath "$1")
OUT=$B/pair-out
rm -rf "$OUT" && mkdir -p "$OUT"
fail=0
c-tests/tools/run-pair.sh -t 600 "$OUT" c-tests/e2e/pair-guest.sh c-tests/e2e/pair-guest.sh "$B" ||
	fail=1
python3 c-tests/e2e/pair.py "$OUT" || fail=1
exit $fail

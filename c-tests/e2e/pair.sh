#!/usr/bin/env bash
# make e2e-pair: boot two Soft-RoCE guests joined by a link (run-pair.sh),
# walk pair-guest.sh's steps in both (the soft-iWARP ones with siw.ko from
# build-siw.sh), then check their logs (pair.py), which also writes the
# fault table, BUILD_DIR/pair-out/faults.md.
# Usage: pair.sh BUILD_DIR
set -u
cd "$(dirname "$0")/../.."
B=$(realpath "$1")
OUT=$B/pair-out
rm -rf "$OUT" && mkdir -p "$OUT"
fail=0
# soft-iWARP for siw-pair.sh's steps, where both guests see it (a guest
# sees the host's /var as an empty overlay, not its cache).
if ko=$(c-tests/tools/build-siw.sh); then
	cp "$ko" "$OUT/siw.ko"
else
	echo "pair: no siw.ko (above): the siw steps fail"
	fail=1
fi
c-tests/tools/run-pair.sh -t 900 "$OUT" c-tests/e2e/guest/pair-guest.sh c-tests/e2e/guest/pair-guest.sh "$B" ||
	fail=1
python3 c-tests/e2e/pair.py "$OUT" || fail=1
exit $fail

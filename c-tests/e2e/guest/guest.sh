#!/usr/bin/env bash
# Runs inside the Soft-RoCE guest (rxe0 on dummy0, 192.0.2.1; see
# run-guest.sh): the stock rdma_server/rdma_client baseline first, then every
# scenario of e2e (scenarios/) built against our header ("ours") and the stock
# one ("stock"), and verbs's exchange through RDMAVERBS_1.3 (ours) and
# through verbs.h's inline originals (stock). Both builds must pass and
# report the same "obs:" lines. Last, the same programs on soft-iWARP
# (siw.sh): the rxe devices go, siw0 comes on dummy0.
# Prints a summary table; exits non-zero if anything failed.
# Usage: guest.sh BUILD_DIR OUT_DIR
set -u
B=$1 OUT=$2
SCENARIOS="rc vector onesided srq ud errors"
port=7470
fail=0 rows=()
. c-tests/e2e/guest/listen.sh
mkdir -p "$OUT"
# Every JVM here runs on one vCPU. HotSpot patches its compiled code while
# other threads run it, safe on an x86 CPU; QEMU's multi-threaded TCG may
# translate an instruction half patched by another vCPU: a JVM died of
# SIGILL in compiled code (java.lang.String.coder) in 1 of 12 runs of Java's
# objects client in one boot (a CI run lost that row, most likely so), in
# none of 25 pinned to one vCPU, which costs about 3 s a JVM
# (bindings/run.sh reads JAVA).
export JAVA="taskset -c 0 java"

row() { rows+=("$(printf '%-22s %-12s %-5s %6s %9s' "$@")"); echo "e2e: $*"; }

# The rows, in this order (each file says what it runs).
. c-tests/e2e/guest/rows-programs.sh

. c-tests/e2e/guest/rows-observer.sh

. c-tests/e2e/guest/rows-bindings.sh

# Soft-iWARP: the same programs on siw, in this boot (siw.sh says which).
. c-tests/e2e/guest/siw.sh

echo
echo "Soft-RoCE and soft-iWARP end-to-end summary (ours = built against librdmaverbs, stock = inline original)"
printf '%-22s %-12s %-5s %6s %9s\n' scenario build result msgs bytes
printf '%s\n' "${rows[@]}"
n=$(printf '%s\n' "${rows[@]}" | grep -c ' PASS ')
f=$(printf '%s\n' "${rows[@]}" | grep -c ' FAIL ')
echo "e2e: $n passed, $f failed"
exit $fail

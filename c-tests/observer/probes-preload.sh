#!/bin/sh
# The preload library's probes (its wrapped ops), recorded as probes.c
# records the library's: with the cargo feature c-tests, each firing is a
# line "NAME a0 a1 a2 a3 a4 a5" on the descriptor RDMAVERBS_TEST_PROBES
# names. A stock program (c-tests/bench/ops on the fake libibverbs) posts
# and polls, watched (RDMAVERBS_STATS=1: the probes fire on the watched path).
#
# Usage: probes-preload.sh BUILD [--must]   (skipped without the feature,
# unless --must)
B=$1
must=$2
out=$B/probes-preload.records
fail=0

run() {	# KIND N
	RDMAVERBS_TEST_PROBES=9 RDMAVERBS_STATS=1 LD_PRELOAD=$B/lib/librdmaverbs-preload.so \
		"$B/bench/ops" "$1" "$2" 9> "$out" 2> /dev/null || { echo "probes-preload: FAIL: ops $1"; fail=1; }
}
# check WHAT NAME N "a1 a2 a3 a4 a5": N records of NAME, arg0 (the QP or CQ)
# not 0, the other five as given
check() {
	got=$(awk -v f="$2" -v a="$4" '$1 == f && $2 != 0 { n += ($3 " " $4 " " $5 " " $6 " " $7) == a }
		END { print n + 0, NR }' "$out")
	if [ "$got" = "$3 $3" ]; then
		echo "probes-preload: ok: $1: $3 firings of $2, arguments $4"
	else
		echo "probes-preload: FAIL: $1: want $3 of '$2 QP $4', got (matching, all) $got:"
		head -5 "$out"
		fail=1
	fi
}

run send 3
if [ ! -s "$out" ]; then
	if [ "$must" = --must ]; then
		echo "probes-preload: FAIL: nothing recorded (a library built without the feature c-tests?)"
		exit 1
	fi
	echo "probes-preload: skipped: the preload library was built without the cargo feature c-tests"
	exit 0
fi
# wr_id 1, IBV_WR_SEND (2), one SGE, 2 bytes, returned 0
check "ibv_post_send" ibv_post_send 3 "1 2 1 2 0"
run recv 2
# wr_id 2, a receive (-1), one SGE, 2 bytes, 0
check "ibv_post_recv" ibv_post_recv 2 "2 -1 1 2 0"
run poll 2
# wr_id 7, IBV_WC_SUCCESS (0), IBV_WC_RECV (128), 64 bytes, the poll's 1
check "ibv_poll_cq" ibv_poll_cq 2 "7 0 128 64 1"
run empty 2
# an empty poll fires nothing
[ ! -s "$out" ] && echo "probes-preload: ok: an empty poll fires nothing" ||
	{ echo "probes-preload: FAIL: an empty poll fired: $(head -2 "$out")"; fail=1; }
exit $fail

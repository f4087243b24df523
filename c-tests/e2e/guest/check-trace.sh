#!/usr/bin/env bash
# Checks a traced run of pingpong (RDMAVERBS_TRACE=TRACE, RDMAVERBS_STATS=1,
# stderr in STDERR) against the calls pingpong.c makes for ROUNDTRIPS and
# MESSAGES: the number of trace lines per function, every line's result, and
# the exit table's rows. Prints "MSGS BYTES" on success.
# Without --ops: pingpong-ours, whose rdma_* calls are traced. With --ops:
# pingpong-stock under LD_PRELOAD, whose inlined calls reach the provider's
# wrapped ops: the same posts and completions, traced as ibv_* lines.
# Usage: check-trace.sh [--ops] TRACE STDERR ROUNDTRIPS MESSAGES
set -u
ops=; [ "$1" = --ops ] && { ops=1; shift; }
trace=$1 err=$2 R=$3 M=$4
DEPTH=128 SIZE=64	# as in pingpong.c
fail=0
bad() { echo "check-trace: FAIL: $*" >&2; fail=1; }
count() { grep -c -- "$1" "$trace"; }

# Both sides' calls: the client and the server thread each register once,
# keep DEPTH receives posted and re-post one per message received (except
# after the last, the server's "done"); every message is one send and one
# completion on each side.
msgs=$((2 * R + M + 1))
recvs=$((2 * DEPTH + msgs - 1))
if [ -n "$ops" ]; then
	send=ibv_post_send recv=ibv_post_recv
	n=$(count ": ibv_post_send .* opcode=SEND nsge=1 bytes=$SIZE .*ret=0$")
	[ "$n" = $msgs ] || bad "$n sends traced, want $msgs"
	n=$(count ": ibv_post_recv .* nsge=1 bytes=$SIZE ret=0$")
	[ "$n" = $recvs ] || bad "$n receives traced, want $recvs"
	n=$(count ": ibv_poll_cq .* status=SUCCESS opcode=RECV byte_len=$SIZE$")
	[ "$n" = $msgs ] || bad "$n receive completions traced, want $msgs"
	n=$(count ": rdma_")
	[ "$n" = 0 ] || bad "$n rdma_* lines from a stock build"
else
	send=rdma_post_send recv=rdma_post_recv
	declare -A want=(
		[rdma_reg_msgs]=2 [rdma_dereg_mr]=2 [rdma_post_recv]=$recvs
		[rdma_post_send]=$msgs [rdma_get_send_comp]=$msgs [rdma_get_recv_comp]=$msgs
	)
	for f in "${!want[@]}"; do
		n=$(count "^rdmaverbs\[[0-9]*\]: $f ")
		[ "$n" = "${want[$f]}" ] || bad "$n trace lines of $f, want ${want[$f]}"
	done
	# The provider's ops are wrapped too (the run is preloaded), but the
	# calls the 16 functions make through them are not recorded twice.
	n=$(count ': ibv_')
	[ "$n" = 0 ] || bad "$n lines of provider ops: counted twice"
	total=$(grep -c '^rdmaverbs\[' "$trace")
	[ "$total" = $((2 * DEPTH + 4 * msgs + 3)) ] || bad "$total trace lines in all"
	# Every post succeeded with 64 bytes; every completion is a success.
	n=$(grep -E ': rdma_post_(send|recv) ' "$trace" | grep -cv " nsge=1 bytes=$SIZE .*ret=0$")
	[ "$n" = 0 ] || bad "$n posts without bytes=$SIZE and ret=0"
	n=$(grep ': rdma_get_' "$trace" | grep -cv ' ret=1 wr_id=0x[0-9a-f]* status=SUCCESS ')
	[ "$n" = 0 ] || bad "$n completions that are not ret=1 status=SUCCESS"
	n=$(count ": rdma_get_recv_comp .* opcode=RECV byte_len=$SIZE$")
	[ "$n" = "$msgs" ] || bad "$n receive completions of $SIZE bytes, want $msgs"
fi

# The exit table (printed once, by the one process).
row() { awk -v f="$1" '$1 == "rdmaverbs:" && $2 == f { print $3, $4, $5, $6 }' "$err"; }
[ "$(row $send)" = "$msgs $((msgs * SIZE)) 0 -" ] ||
	bad "stats row of $send: '$(row $send)'"
[ "$(row $recv)" = "$recvs $((recvs * SIZE)) 0 -" ] ||
	bad "stats row of $recv: '$(row $recv)'"
if [ -n "$ops" ]; then
	[ $fail = 0 ] && echo "$msgs $((msgs * SIZE))"
	exit $fail
fi
read -r c b e blk <<< "$(row rdma_get_recv_comp)"
[ "$c $b $e" = "$msgs $((msgs * SIZE)) 0" ] && [ "${blk:-0}" -gt 0 ] ||
	bad "stats row of rdma_get_recv_comp: '$c $b $e $blk' (want some blocked)"
[ $fail = 0 ] && echo "$msgs $((msgs * SIZE))"
exit $fail

#!/usr/bin/env bash
# Runs in both Soft-RoCE guests of run-pair.sh: host A (192.0.2.1) serves,
# host B (192.0.2.2) connects; both walk the same list of steps, meeting in
# files of OUT/sync (a guest marks, the other awaits). Each step's logs are
# OUT/STEP.a.log and OUT/STEP.b.log; pair.sh reads them afterwards.
#
# The steps: the stock rdma_server/rdma_client baseline; e2e.c's rc, vector,
# onesided, srq and ud scenarios across the link, built against our header
# and the stock one; wire.c's stream of 1,000 requests under each fault
# (none, 1 % and 5 % loss each way, the link cut, the server process
# killed, receiver not ready), both builds; the hunt for the stock client
# stuck under loss; the link cut and the server killed again on soft-iWARP
# (siw-pair.sh); last, both builds at once while host A powers off.
#
# Usage: pair-guest.sh ROLE(a|b) OUT BUILD_DIR
set -u
role=$1 out=$2 B=$3
A=192.0.2.1
sync=$out/sync
mkdir -p "$sync"
dev=${RDMAVERBS_NETDEV:?no network card}
N=1000 K=500	# requests per stream, and the fault point
port=7600

mark() { touch "$sync/$1"; }
await() {	# NAME [SECONDS]: 0 once the other guest has marked NAME
	local i
	for i in $(seq $((${2:-120} * 10))); do [ -e "$sync/$1" ] && return 0; sleep 0.1; done
	echo "pair: $role: gave up waiting for $1" >&2
	return 1
}
# both NAME: each guest marks NAME.ROLE and waits for the other's.
both() { mark "$1.$role"; await "$1.$([ "$role" = a ] && echo b || echo a)" "${2:-120}"; }

# pair NAME SECONDS SERVER_CMD... -- CLIENT_CMD...: host A runs the server,
# host B the client once the server has printed "listening" (or, for a
# program that does not say, 3 s after it started).
pair() {
	local name=$1 limit=$2; shift 2
	local server=() client=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do server+=("$1"); shift; done
	shift
	client=("$@")
	port=$((port + 1))
	if [ "$role" = a ]; then
		timeout -k 5 "$limit" "${server[@]//PORT/$port}" > "$out/$name.a.log" 2>&1 &
		local pid=$!
		for i in $(seq 30); do grep -q listening "$out/$name.a.log" 2>/dev/null && break; sleep 0.1; done
		mark "$name.started"
		wait $pid
		echo "exit $?" >> "$out/$name.a.log"
	else
		await "$name.started" 60 && sleep 1
		timeout -k 5 "$limit" "${client[@]//PORT/$port}" > "$out/$name.b.log" 2>&1
		echo "exit $?" >> "$out/$name.b.log"
	fi
	both "$name.end" $((limit + 60))
}

netem() {	# LOSS%, or "off": this guest's side of the link
	tc qdisc del dev "$dev" root 2>/dev/null
	[ "$1" = off ] || tc qdisc add dev "$dev" root netem loss "$1"
}

modprobe sch_netem 2>/dev/null
both ready 180

# 1. The stock programs across the link.
pair baseline 60 rdma_server -s $A -p PORT -- rdma_client -s $A -p PORT

# 2. e2e.c across the link, both builds.
for s in rc vector onesided srq ud; do
	for v in ours stock; do
		pair "e2e-$s-$v" 120 "$B/$v/e2e" "$s" PORT server -- "$B/$v/e2e" "$s" PORT client
	done
done

# 3. wire.c under each fault, both builds.
for f in none loss1 loss5 cut kill rnr; do
	for v in ours stock; do
		case $f in loss1) netem 1% ;; loss5) netem 5% ;; esac
		both "wire-$f-$v.set"
		case $f in
		none|loss1|loss5)
			pair "wire-$f-$v" 180 "$B/$v/wire" server PORT -- \
				"$B/$v/wire" client $A PORT $N $K none ;;
		cut)	# the client's guest cuts its own card at the fault point
			pair "wire-$f-$v" 120 "$B/$v/wire" server PORT --time-limit 15 -- \
				"$B/$v/wire" client $A PORT $N $K cut --time-limit 30
			# The card back up. Seen with kernel 6.1: after the cut, no new
			# connection between the hosts is made (the server's accept is
			# refused) until rxe0 is made again on both, host A's included,
			# whose card never went down.
			[ "$role" = b ] && ip link set "$dev" up
			both "wire-$f-$v.up"
			rdma link delete rxe0
			rdma link add rxe0 type rxe netdev "$dev"
			for i in $(seq 100); do rdma link show rxe0/1 | grep -q 'state ACTIVE' && break; sleep 0.1; done ;;
		kill)
			pair "wire-$f-$v" 120 "$B/$v/wire" server PORT -- \
				"$B/$v/wire" client $A PORT $N $K kill --time-limit 30 ;;
		rnr)	# the server posts K receives in all and accepts with
			# rnr_retry 2 (the client's QP gets it), not 7 (for ever)
			pair "wire-$f-$v" 120 "$B/$v/wire" server PORT --recv-limit $K --rnr-retry 2 \
				--time-limit 15 -- \
				"$B/$v/wire" client $A PORT $N $K none --sends-only --rnr-retry 2 --time-limit 30 ;;
		esac
		case $f in loss1|loss5) netem off ;; esac
		both "wire-$f-$v.done"
	done
done

# 4. The hunt: the stock rdma_client/rdma_server, 5 % loss each way, 3 runs
# (one client was once seen stuck so, in rdma_connect, before the steps
# above re-made rxe0 after the cut); a stuck client's stack is taken with
# gdb before it is killed.
netem 5%
both hunt.set
for t in $(seq 3); do
	if [ "$role" = a ]; then
		port=$((port + 1))
		timeout 20 rdma_server -s $A -p $port > "$out/hunt-$t.a.log" 2>&1 &
		mark "hunt-$t.started"
		wait $!
		echo "exit $?" >> "$out/hunt-$t.a.log"
	else
		port=$((port + 1))
		await "hunt-$t.started" && sleep 1
		rdma_client -s $A -p $port > "$out/hunt-$t.b.log" 2>&1 &
		pid=$!
		for i in $(seq 150); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
		if kill -0 $pid 2>/dev/null; then
			echo "STUCK after 15 s" >> "$out/hunt-$t.b.log"
			gdb -batch -p $pid -ex 'thread apply all bt' >> "$out/hunt-$t.b.log" 2>&1
			kill -9 $pid
		fi
		wait $pid
		echo "exit $?" >> "$out/hunt-$t.b.log"
	fi
	both "hunt-$t.end" 60
	if grep -q STUCK "$out/hunt-$t.b.log" 2>/dev/null; then break; fi
done
netem off

# 4b. Soft-iWARP (siw) on both hosts: the link cut and the server killed,
# both builds (siw-pair.sh); rxe0 back after.
. c-tests/e2e/guest/siw-pair.sh

# 5. Host A powers off with both builds mid-stream: both clients reach the
# fault point, host A goes, the clients post the rest.
declare -A pport=([ours]=7990 [stock]=7991)
if [ "$role" = a ]; then
	for v in ours stock; do
		timeout 120 "$B/$v/wire" server ${pport[$v]} > "$out/wire-poweroff-$v.a.log" 2>&1 &
	done
	mark poweroff.started
	await poweroff.at-fault-point 120
	echo "pair: host A powers off" >&2
	touch "$out/a-powered-off"
	sync
	echo o > /proc/sysrq-trigger
	sleep 60
else
	await poweroff.started 60 && sleep 2
	declare -A pid
	for v in ours stock; do
		WIRE_GO=$sync/poweroff.go timeout 180 "$B/$v/wire" client $A ${pport[$v]} \
			$N $K wait --time-limit 30 > "$out/wire-poweroff-$v.b.log" 2>&1 &
		pid[$v]=$!
	done
	for i in $(seq 600); do
		[ "$(grep -l 'at the fault point' "$out"/wire-poweroff-*.b.log 2>/dev/null | wc -l)" = 2 ] && break
		sleep 0.1
	done
	mark poweroff.at-fault-point
	sleep 8	# host A is gone by now
	mark poweroff.go
	for v in ours stock; do
		wait "${pid[$v]}"
		echo "exit $?" >> "$out/wire-poweroff-$v.b.log"
	done
fi
echo "pair: host $role: all steps done"

#!/usr/bin/env bash
# Runs inside the Soft-RoCE guest (rxe0 on dummy0, 192.0.2.1; see
# run-guest.sh): the stock rdma_server/rdma_client baseline first, then every
# scenario of e2e.c built against our header ("ours") and against the stock
# header ("stock"), and verbs.c's exchange through RDMAVERBS_1.3 (ours) and
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

# Baseline: a broken guest is told apart from a broken library. Tried twice
# (once, in a CI run, both sides of the very first connection of a boot hung
# to their timeouts); line-buffered, so that a hung run's log says how far
# it got.
baseline() {	# TRY: logs in $OUT/baseline-{server,client}.TRY.log
	local srv=$OUT/baseline-server.$1.log cli=$OUT/baseline-client.$1.log spid
	port=$((port + 1))
	timeout 60 stdbuf -oL rdma_server -s 192.0.2.1 -p $port > "$srv" 2>&1 &
	spid=$!
	listening_on $port 60
	# A client that gave up leaves nothing for the server to wait for.
	timeout 60 stdbuf -oL rdma_client -s 192.0.2.1 -p $port > "$cli" 2>&1 || kill $spid 2> /dev/null
	wait
	grep -q 'end 0' "$srv" && grep -q 'end 0' "$cli"
}
if baseline 1; then
	row baseline stock PASS - -
else
	echo "e2e: baseline, first try failed:" >&2
	cat "$OUT"/baseline-*.1.log >&2
	if ! baseline 2; then
		row baseline stock FAIL - -
		echo "e2e: the guest's RDMA stack itself does not work (rdma_server/rdma_client):" >&2
		cat "$OUT"/baseline-*.2.log >&2
		exit 1
	fi
	row baseline stock "PASS (2nd try)" - -
fi

for s in $SCENARIOS; do
	for v in ours stock; do
		port=$((port + 1))
		log=$OUT/$s-$v.log
		timeout 120 "$B/$v/e2e" "$s" $port > "$log" 2>&1
		rc=$?
		res=$(grep '^RESULT ' "$log" | tail -n 1)
		msgs=$(sed -n 's/.*msgs=\([0-9]*\).*/\1/p' <<< "$res")
		bytes=$(sed -n 's/.*bytes=\([0-9]*\).*/\1/p' <<< "$res")
		if [ $rc -eq 0 ] && [[ $res == "RESULT $s PASS"* ]]; then
			row "$s" "$v" PASS "$msgs" "$bytes"
		else
			[ $rc -eq 124 ] && echo "RESULT $s TIMEOUT" >> "$log"
			row "$s" "$v" FAIL "${msgs:--}" "${bytes:--}"
			sed 's/^/    /' "$log"
			fail=1
		fi
		# what the two builds must agree on (thread order aside)
		{ grep '^obs:' "$log"; grep '^RESULT' "$log"; } | sort > "$OUT/$s-$v.obs"
	done
	if ! diff -u "$OUT/$s-stock.obs" "$OUT/$s-ours.obs" > "$OUT/$s.diff"; then
		echo "e2e: $s: ours and stock report different results:"
		sed 's/^/    /' "$OUT/$s.diff"
		row "$s" same FAIL - -
		fail=1
	fi
done

# verbs.c: an RC exchange whose every data-path call (posts, polls, the
# extended QP's ibv_wr_* and CQ's ibv_start_poll/ibv_wc_read_*, ...) goes
# through a table: ours holds librdmaverbs.so.1's exports, found with
# dlvsym(..., "RDMAVERBS_1.3"); stock verbs.h's inline originals. A server
# and a client process per build; the row counts what both verified. Both
# builds must pass and print the same "obs:" lines, in the same order.
verbs_pair() {	# BUILD: logs $OUT/verbs-BUILD-{server,client}.log
	local b=$1 spid rc=0 s
	port=$((port + 1))
	timeout 120 "$B/$b/verbs" server 192.0.2.1 $port > "$OUT/verbs-$b-server.log" 2>&1 &
	spid=$!
	if listening_on $port 60; then
		# A client that gave up leaves nothing for the server to wait for.
		timeout 120 "$B/$b/verbs" client 192.0.2.1 $port > "$OUT/verbs-$b-client.log" 2>&1 ||
			{ rc=$?; kill $spid 2> /dev/null; }
	else
		echo "verbs: the server never listened" > "$OUT/verbs-$b-client.log"
		rc=1
		kill $spid 2> /dev/null
	fi
	wait $spid
	s=$?
	[ $rc -ne 0 ] || rc=$s
	return $rc
}
for v in ours stock; do
	verbs_pair $v
	rc=$?
	logs=("$OUT/verbs-$v-server.log" "$OUT/verbs-$v-client.log")
	[ $rc -eq 124 ] && echo "RESULT verbs TIMEOUT" >> "$OUT/verbs-$v-client.log"
	read -r n msgs bytes < <(sed -n 's/^RESULT verbs PASS msgs=\([0-9]*\) bytes=\([0-9]*\)$/\1 \2/p' \
		"${logs[@]}" | awk '{ n++; m += $1; b += $2 } END { print n + 0, m + 0, b + 0 }')
	if [ $rc -eq 0 ] && [ "$n" = 2 ]; then
		row "verbs exports" "$v" PASS "$msgs" "$bytes"
	else
		row "verbs exports" "$v" FAIL - -
		for log in "${logs[@]}"; do
			echo "    $log:"
			sed 's/^/    /' "$log"
		done
		fail=1
	fi
	{ grep -h '^obs:' "${logs[@]}"; grep -h '^RESULT' "${logs[@]}"; } > "$OUT/verbs-$v.obs"
done
if diff -u "$OUT/verbs-stock.obs" "$OUT/verbs-ours.obs" > "$OUT/verbs.diff"; then
	row "verbs exports" same PASS - -
	echo "e2e: verbs exports: ours and stock printed the same $(grep -c '^obs:' "$OUT/verbs-ours.obs") obs: lines"
else
	echo "e2e: verbs exports: ours and stock report different results:"
	sed 's/^/    /' "$OUT/verbs.diff"
	row "verbs exports" same FAIL - -
	fail=1
fi

# Tracing and counting on a real stack: pingpong-ours traced, every line and
# the exit table checked against the calls it makes (check-trace.sh).
R=40 M=200
port=$((port + 1))
LD_PRELOAD=$B/lib/librdmaverbs-preload.so RDMAVERBS_TRACE=$OUT/pingpong.trace RDMAVERBS_STATS=1 timeout 120 \
	"$B/ours/pingpong" $port $R $M > "$OUT/pingpong-trace.log" 2> "$OUT/pingpong-trace.err"
if [ $? -eq 0 ] && res=$(c-tests/e2e/guest/check-trace.sh "$OUT/pingpong.trace" \
		"$OUT/pingpong-trace.err" $R $M 2>> "$OUT/pingpong-trace.log"); then
	row trace ours PASS $res
else
	row trace ours FAIL - -
	sed 's/^/    /' "$OUT/pingpong-trace.log" "$OUT/pingpong-trace.err" | tail -20
	fail=1
fi
# rdmaverbs-trace --latency on that trace: a send and a receive latency
# per message, every completion matched with its post; and the histogram.
msgs=$((2 * R + M + 1))
if "$B/bin/rdmaverbs-trace" --latency "$OUT/pingpong.trace" --svg "$OUT/latency.svg" \
		> "$OUT/latency.txt" 2>&1 &&
   awk -v m=$msgs '$1 == "SEND" && $2 == m && $3 > 0 { s = 1 } $1 == "RECV" && $2 == m && $3 > 0 { r = 1 }
	END { exit !(s && r) }' "$OUT/latency.txt" &&
   grep -q '; 0 completions without a post$' "$OUT/latency.txt" && grep -q '^<svg' "$OUT/latency.svg"; then
	row latency ours PASS $((2 * msgs)) -
	sed 's/^/    /' "$OUT/latency.txt"
else
	row latency ours FAIL - -
	sed 's/^/    /' "$OUT/latency.txt"
	fail=1
fi
# LD_PRELOAD on programs never built against librdmaverbs: their inlined
# verbs calls go through the provider's ops, which the preloaded library
# wraps when tracing (c-tests/e2e/guest/preload.sh checks the counts).
port=$((port + 10))
LIB=$B/lib/librdmaverbs-preload.so OUT=$OUT PORT=$port bash c-tests/e2e/guest/preload.sh "$B" > "$OUT/preload.log" 2>&1
while read -r tag name build result msgs bytes; do
	[ "$tag" = ROW ] || continue
	row "$name" "$build" "$result" "$msgs" "$bytes"
	[ "$result" = PASS ] || fail=1
done < "$OUT/preload.log"
grep -q '^ROW .* FAIL' "$OUT/preload.log" && grep -v '^ROW ' "$OUT/preload.log" | sed 's/^/    /' | tail -40
port=$((port + 20))

# The extended verbs API (ibv_wr_*, ibv_cq_ex), a stock build run unmodified
# under the preload library with counting on: each call it makes, as it
# counts them itself, is a row of the exit table (calls and bytes, no error).
PRE=$B/lib/librdmaverbs-preload.so
port=$((port + 1))
if LD_PRELOAD=$PRE RDMAVERBS_STATS=1 timeout 120 "$B/stock/exapi" $port 1201 \
		> "$OUT/exapi.log" 2> "$OUT/exapi.err" && grep -q '^exapi: PASS' "$OUT/exapi.log"; then
	ok=1 n=0
	while read -r _ name calls bytes; do
		n=$((n + 1))
		grep -Eq "^rdmaverbs: $name +$calls +$bytes +0 " "$OUT/exapi.err" ||
			{ echo "exapi: $name: the program counts $calls calls, $bytes bytes; the table:"; ok=0; }
	done < <(grep '^calls: ' "$OUT/exapi.log")
	if [ $ok = 1 ] && [ $n = 7 ]; then
		row exapi preloaded PASS $(awk '$2 == "ibv_wr_set_sge" { print $3, $4 }' "$OUT/exapi.log")
	else
		row exapi preloaded FAIL - -
		sed 's/^/    /' "$OUT/exapi.log" "$OUT/exapi.err"
		fail=1
	fi
else
	row exapi preloaded FAIL - -
	sed 's/^/    /' "$OUT/exapi.log" "$OUT/exapi.err"
	fail=1
fi

# A context opened with ibv_open_device@IBVERBS_1.0 (open10.c) is wrapped
# too: the exit table counts exactly the polls made on it.
if LD_PRELOAD=$PRE RDMAVERBS_STATS=1 timeout 60 "$B/stock/open10" 500 \
		> "$OUT/open10.log" 2> "$OUT/open10.err" && grep -q '^open10: PASS' "$OUT/open10.log" &&
   grep -Eq '^rdmaverbs: ibv_poll_cq +500 ' "$OUT/open10.err" &&
   grep -Eq '^rdmaverbs: ibv_req_notify_cq +1 ' "$OUT/open10.err"; then
	row open10 preloaded PASS 500 -
else
	row open10 preloaded FAIL - -
	sed 's/^/    /' "$OUT/open10.log" "$OUT/open10.err"
	fail=1
fi

# USDT probes with bpftrace (Debian's): the probes of librdmaverbs.so.1 count
# exactly what pingpong built against our header called; those of the
# preload library exactly what pingpong built against the stock header
# posted and polled through the provider's ops. Nothing else is set: the
# attached tracer opens the gate by itself (the probes' semaphore, which the
# kernel raises in every process that maps the library). bpftrace traces the
# library system-wide, started before the program: its -c cannot attach to a
# shared library's probes (bpftrace 0.17 looks them up in the child before
# the child has loaded the library: "Error finding location for probe").
mount -t debugfs none /sys/kernel/debug 2>/dev/null
mount -t tracefs none /sys/kernel/tracing 2>/dev/null
LIBSO=$(realpath "$B/lib/librdmaverbs.so.1")
# traced LOG SCRIPT PROGRAM...: bpftrace running SCRIPT around PROGRAM.
traced() {
	local log=$1 script=$2 bp i; shift 2
	timeout 240 bpftrace -e "$script" > "$log" 2>&1 &
	bp=$!
	for i in $(seq 600); do grep -q '^Attaching' "$log" && break; sleep 0.1; done
	sleep 1
	timeout 120 "$@" > "$log.program" 2>&1 || echo "program failed: $*" >> "$log"
	kill -INT $bp
	wait $bp
}
bpf_row() {	# BUILD LOG: the counts of sends and receives against msgs
	local sends recvs
	sends=$(sed -n 's/^@sends: \([0-9]*\)$/\1/p' "$2")
	recvs=$(sed -n 's/^@recvs: \([0-9]*\)$/\1/p' "$2")
	if [ "$sends" = $msgs ] && [ "$recvs" = $msgs ]; then
		row bpftrace "$1" PASS $msgs -
	else
		row bpftrace "$1" FAIL "${sends:--}" "${recvs:--}"
		sed 's/^/    /' "$2" "$2.program" | tail -20
		fail=1
	fi
}
msgs=$((2 * R + M + 1))
port=$((port + 1))
# The probes' arguments too: a send's post has opcode IBV_WR_SEND (2); a
# receive's completion status 0 and opcode IBV_WC_RECV (128).
traced "$OUT/bpftrace-ours.log" "usdt:$LIBSO:rdmaverbs:rdma_post_send /arg2 == 2/ { @sends = count(); }
	usdt:$LIBSO:rdmaverbs:rdma_get_recv_comp /arg5 == 1 && arg2 == 0 && arg3 == 128/ { @recvs = count(); }" \
	"$B/ours/pingpong" $port $R $M
bpf_row ours "$OUT/bpftrace-ours.log"
port=$((port + 1))
traced "$OUT/bpftrace-stock.log" "usdt:$PRE:rdmaverbs:ibv_post_send /arg2 == 2/ { @sends = count(); }
	usdt:$PRE:rdmaverbs:ibv_poll_cq /arg2 == 0 && arg3 == 128/ { @recvs = count(); }" \
	env LD_PRELOAD="$PRE" "$B/stock/pingpong" $port $R $M
bpf_row stock-preload "$OUT/bpftrace-stock.log"

# The trace's t= and bpftrace's nsecs are one clock (CLOCK_MONOTONIC): the
# first rdma_post_send of a traced run, as its line says (the earliest t=:
# each thread's lines are written out apart) and as its probe fired (after
# the line is made; the first line also starts the writer thread, some
# 0.5 ms under TCG), within 10 ms. (CLOCK_REALTIME would be decades off.)
port=$((port + 1))
traced "$OUT/bpftrace-clock.log" "usdt:$LIBSO:rdmaverbs:rdma_post_send /@first == 0/ { @first = nsecs; }" \
	env RDMAVERBS_TRACE="$OUT/clock.trace" "$B/ours/pingpong" $port $R $M
probe=$(sed -n 's/^@first: \([0-9]*\)$/\1/p' "$OUT/bpftrace-clock.log")
line=$(grep ': rdma_post_send t=' "$OUT/clock.trace" | sed 's/.* t=\([0-9]*\)\.\([0-9]*\) .*/\1\2/' | sort -n | head -n 1)
if [ -n "$probe" ] && [ -n "$line" ] && [ $((probe - line)) -ge 0 ] && [ $((probe - line)) -lt 10000000 ]; then
	row clock ours PASS 1 -
	echo "e2e: the first rdma_post_send: t=$line ns in the trace, nsecs=$probe at its probe"
else
	row clock ours FAIL - -
	echo "e2e: clock: probe '$probe', trace line '$line'"; sed 's/^/    /' "$OUT/bpftrace-clock.log" | tail -5
	fail=1
fi

# Spin polling: the same exchange, with RDMAVERBS_POLL_SPIN.
port=$((port + 1))
if RDMAVERBS_POLL_SPIN=2000 timeout 120 "$B/ours/pingpong" $port $R $M > "$OUT/spin.log" 2>&1; then
	row spin ours PASS $((2 * R + M + 1)) -
else
	row spin ours FAIL - -
	sed 's/^/    /' "$OUT/spin.log"
	fail=1
fi
# The bindings (bindings/): each language's example of
# bindings/rc-protocol.md as the client against the C peer's server, then as
# the server against the C peer's client; both sides check every
# completion and byte, and print the same PASS line.
listening() {	# LOG: waits until it says "rc: listening", "verbs: listening" or "echo: listening" (a JVM starts slowly)
	local i
	for i in $(seq 1 600); do
		grep -Eq '^(rc|verbs|echo): listening' "$1" && return 0
		sleep 0.1
	done
	return 1
}
# The lines both sides print when all passed (verbs_pair sets its own).
want_server="rc: PASS role=server sends=4 bytes=384"
want_client="rc: PASS role=client sends=4 bytes=384"
rc_pair() {	# NAME SERVER_CMD... -- CLIENT_CMD...: logs $OUT/NAME-{server,client}.log
	local name=$1 srv=() cli=() spid
	shift
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	port=$((port + 1))
	timeout 120 "${srv[@]}" 192.0.2.1 $port > "$OUT/$name-server.log" 2>&1 &
	spid=$!
	if listening "$OUT/$name-server.log"; then
		timeout 120 "${cli[@]}" 192.0.2.1 $port > "$OUT/$name-client.log" 2>&1 || kill $spid 2> /dev/null
	else
		echo "rc: the server never listened" > "$OUT/$name-client.log"
		kill $spid 2> /dev/null
	fi
	wait $spid
	local s=$?
	grep -qx "$want_server" "$OUT/$name-server.log" && grep -qx "$want_client" "$OUT/$name-client.log" &&
		[ $s -eq 0 ]
}
for lang in $(bindings/run.sh --list); do
	for role in client server; do
		if [ $role = client ]; then
			rc_pair "$lang-$role" "$B/ours/peer" server -- bindings/run.sh "$B" "$lang" rc client
		else
			rc_pair "$lang-$role" bindings/run.sh "$B" "$lang" rc server -- "$B/ours/peer" client
		fi
		if [ $? -eq 0 ]; then
			row "$lang" "$role" PASS 4 384
		else
			row "$lang" "$role" FAIL - -
			sed 's/^/    /' "$OUT/$lang-$role"-*.log
			fail=1
		fi
	done
done
# Each language's minimal RC echo server (run.sh --echo; as short as its
# README's client) against rdma-core's rdma_client (rdmacm-utils), which
# sends 16 bytes and takes them back; the server says how many it echoed.
for lang in $(bindings/run.sh --echo); do
	want_server="echo: PASS bytes=16"
	want_client="rdma_client: end 0"
	if rc_pair "$lang-echo" bindings/run.sh "$B" "$lang" echo -- sh -c 'exec rdma_client -s "$0" -p "$1"'; then
		row "$lang" echo PASS 1 16
	else
		row "$lang" echo FAIL - -
		sed 's/^/    /' "$OUT/$lang-echo"-*.log
		fail=1
	fi
	want_server="rc: PASS role=server sends=4 bytes=384"
	want_client="rc: PASS role=client sends=4 bytes=384"
done
# The verbs exchange (bindings/verbs-protocol.md): the C peer's server
# against its own client first (row c verbs: a failing language row is then
# the binding's), then each language's client that is written (run.sh
# --verbs): atomics, sends into an SRQ, a poll of five, a wait on a
# completion channel; both sides check every completion and byte.
verbs_row() {	# ROW NAME CLIENT_CMD...
	local row=$1 name=$2
	shift 2
	want_server="verbs: PASS role=server completions=12 word=0xfedcba987654321"
	want_client="verbs: PASS role=client completions=15 bytes=248"
	if rc_pair "$name" "$B/ours/peer" verbs server -- "$@"; then
		row "$row" verbs PASS 15 248
	else
		row "$row" verbs FAIL - -
		sed 's/^/    /' "$OUT/$name"-*.log
		fail=1
	fi
	want_server="rc: PASS role=server sends=4 bytes=384"
	want_client="rc: PASS role=client sends=4 bytes=384"
}
verbs_row c c-verbs "$B/ours/peer" verbs client
for lang in $(bindings/run.sh --verbs); do
	verbs_row "$lang" "$lang-verbs" bindings/run.sh "$B" "$lang" verbs client
done
# The same exchange through each binding's object API (objects ROLE), as
# the client against the C server and as the server against the C client;
# and through its async API (async ROLE), which prints, when it passed,
# "async: other task ran N times while waiting" (N > 0: the event loop ran
# something else while a wait was pending).
objects_row() {	# LANGUAGE API ROLE
	local lang=$1 api=$2 role=$3 name=$1-$2-$3
	want_server="verbs: PASS role=server completions=12 word=0xfedcba987654321"
	want_client="verbs: PASS role=client completions=15 bytes=248"
	if [ $role = client ]; then
		rc_pair "$name" "$B/ours/peer" verbs server -- bindings/run.sh "$B" "$lang" "$api" client
	else
		rc_pair "$name" bindings/run.sh "$B" "$lang" "$api" server -- "$B/ours/peer" verbs client
	fi
	if [ $? -eq 0 ] && { [ $api = objects ] ||
	   grep -Eq '^async: other task ran [1-9][0-9]* times while waiting$' "$OUT/$name-$role.log"; }; then
		row "$lang $api" "$role" PASS 15 248
	else
		row "$lang $api" "$role" FAIL - -
		sed 's/^/    /' "$OUT/$name"-*.log
		fail=1
	fi
	want_server="rc: PASS role=server sends=4 bytes=384"
	want_client="rc: PASS role=client sends=4 bytes=384"
}
for lang in $(bindings/run.sh --objects); do
	objects_row "$lang" objects client
	objects_row "$lang" objects server
done
for lang in $(bindings/run.sh --async); do
	objects_row "$lang" async client
	objects_row "$lang" async server
done
# The minimal programs (run.sh --hello): each README's first example, the
# client, against the C echo server ("peer echo server", one connection),
# which it sends "hello, server!" and prints what came back; and each
# language's minimal echo server against the C echo client, which sends
# 1 B, 4 KiB and 64 KiB, a connection each, and checks every byte of each
# answer (bindings/rc-protocol.md, "The echo"); the server must still be
# serving after them.
hello_row() {	# LANGUAGE
	local lang=$1 log=$OUT/$1-hello spid s
	port=$((port + 1))
	timeout 60 "$B/ours/peer" echo server 192.0.2.1 $port > "$log-server.log" 2>&1 &
	spid=$!
	if listening "$log-server.log"; then
		timeout 60 bindings/run.sh "$B" "$lang" hello 192.0.2.1 $port > "$log-client.log" 2>&1 || kill $spid 2> /dev/null
	else
		echo "echo: the C server never listened" > "$log-client.log"
		kill $spid 2> /dev/null
	fi
	wait $spid
	s=$?
	if [ $s -eq 0 ] && grep -qx "14 hello, server!" "$log-client.log" &&
	   grep -qx "echo: PASS role=server messages=1 bytes=14" "$log-server.log"; then
		row "$lang hello" client PASS 1 14
	else
		row "$lang hello" client FAIL - -
		sed 's/^/    /' "$log"-*.log
		fail=1
	fi
}
echo_row() {	# LANGUAGE
	local lang=$1 log=$OUT/$1-echo spid c=1 alive=no
	port=$((port + 1))
	timeout 120 bindings/run.sh "$B" "$lang" echo 192.0.2.1 $port > "$log-server.log" 2>&1 &
	spid=$!
	if listening "$log-server.log"; then
		timeout 60 "$B/ours/peer" echo client 192.0.2.1 $port > "$log-client.log" 2>&1
		c=$?
		kill -0 $spid 2> /dev/null && alive=yes
	else
		echo "echo: the server never listened" > "$log-client.log"
	fi
	kill $spid 2> /dev/null
	wait $spid
	if [ $c -eq 0 ] && [ $alive = yes ] && grep -qx "echo: PASS role=client messages=3 bytes=69633" "$log-client.log"; then
		row "$lang echo" server PASS 3 69633
	else
		row "$lang echo" server FAIL - -
		echo "    (the server still serving after the client: $alive)"
		sed 's/^/    /' "$log"-*.log
		fail=1
	fi
}
for lang in $(bindings/run.sh --hello); do
	hello_row "$lang"
	echo_row "$lang"
done
# ... and one preloaded, with counting on: Python's client. The binding's
# librdmaverbs.so.1 sees the preload library's marker and leaves the
# watching to it, which sees the calls through the wrapped ops: each counted
# once, by one table (6 sends of 64 bytes: the keys, 2 messages, the write,
# the read, DONE; 4 receives).
rc_pair python-preloaded "$B/ours/peer" server -- env LD_PRELOAD="$B/lib/librdmaverbs-preload.so" \
	RDMAVERBS_STATS=1 bindings/run.sh "$B" python rc client
if [ $? -eq 0 ] && [ "$(grep -c '^rdmaverbs: calls of process' "$OUT/python-preloaded-client.log")" = 1 ] &&
   ! grep -q '^rdmaverbs: rdma_' "$OUT/python-preloaded-client.log" &&
   grep -Eq '^rdmaverbs: ibv_post_send +6 +384 +0 ' "$OUT/python-preloaded-client.log" &&
   grep -Eq '^rdmaverbs: ibv_post_recv +4 +256 +0 ' "$OUT/python-preloaded-client.log"; then
	row python preloaded PASS 6 384
else
	row python preloaded FAIL - -
	sed 's/^/    /' "$OUT"/python-preloaded-*.log
	fail=1
fi

# make bench's bindings programs (c-tests/bench/bindings/guest.sh: Rust's
# and Node.js's ping-pong, the message rate in C, Python, Node.js and Rust;
# the peer crate's where make bench has built it), one short round: each
# way must still run and give its figure (the figures are make bench's).
BENCH_PORT=$port timeout 300 bash c-tests/bench/bindings/guest.sh "$B" "$OUT/bench-bindings.txt" 1 20 200 \
	> "$OUT/bench-bindings.log" 2>&1
bench_ok=$?
port=$((port + 20))
for w in rs-raw rs-safe js-raw js-promises rate-c rate-python rate-node rate-rust; do
	grep -q "^$w 1 " "$OUT/bench-bindings.txt" 2> /dev/null || bench_ok=1
done
if [ $bench_ok -eq 0 ]; then
	row "bench bindings" ours PASS "$(grep -c ' 1 ' "$OUT/bench-bindings.txt")" -
else
	row "bench bindings" ours FAIL - -
	sed 's/^/    /' "$OUT/bench-bindings.log"
	fail=1
fi

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

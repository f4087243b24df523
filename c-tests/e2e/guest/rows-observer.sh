# The Soft-RoCE guest's rows of the observer, sourced by guest.sh after
# rows-programs.sh: tracing and counting on a real stack (pingpong traced,
# rdmaverbs-trace --latency), the preload library (preload.sh, exapi,
# open10), the USDT probes with bpftrace, spin polling.
# Uses guest.sh's row, port, fail, B and OUT.

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

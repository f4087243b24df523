#!/usr/bin/env bash
# make bench, guest side: ping-pong latency and small-message throughput over
# Soft-RoCE, alternating the builds in one guest boot so that drift in the
# emulated machine hits all of them alike. Appends one line per run to OUT:
#   VARIANT ROUND latency_us throughput_msgs_s
# Variants: stock (inline original), ours (librdmaverbs), spin (librdmaverbs
# with RDMAVERBS_POLL_SPIN), and perftest's ib_send_lat not preloaded and
# preloaded with nothing set, counting and tracing (throughput 0: not measured).
# Then, with PY_ROUNDTRIPS, the Python ping-pong (python-guest.sh: py-WAY
# lines); with BIND_ROUNDTRIPS, the bindings beside their peers
# (bindings/guest.sh: rs-, js- and rate- lines).
# Usage: softroce-guest.sh BUILD_DIR OUT ROUNDS ROUNDTRIPS MESSAGES [PY_ROUNDTRIPS [BIND_ROUNDTRIPS BIND_MESSAGES]]
set -u
B=$1 OUT=$2 ROUNDS=$3 RT=$4 MSGS=$5 PY_RT=${6:-0} BIND_RT=${7:-0} BIND_MSGS=${8:-0}
SPIN=100000	# polls before sleeping: longer than a round trip here
PT_N=5000	# ib_send_lat's iterations per run
echo "softroce: $(nproc) guest CPUs" >&2
: > "$OUT"
port=7600
. c-tests/e2e/guest/listen.sh
run() {	# VARIANT ROUND BINARY [ENV...]
	local v=$1 r=$2 bin=$3 line; shift 3
	port=$((port + 1))
	local t0=$SECONDS
	line=$(env "$@" timeout 300 "$bin" $port "$RT" "$MSGS") ||
		{ echo "softroce: $v round $r failed" >&2; return 1; }
	echo "softroce: $v round $r ($((SECONDS - t0)) s): $line" >&2
	line=${line#pingpong: latency_us=}
	echo "$v $r ${line%% *} ${line##*=}" >> "$OUT"
}
# perftest's ib_send_lat (rdma_cm, old post-send path) under LD_PRELOAD of
# librdmaverbs: nothing set (nothing wrapped), counting (ops wrapped), and
# tracing to a file; its typical latency goes in the latency column.
LIB=$B/lib/librdmaverbs-preload.so
# A whole run is in one of two modes, about 20 us or 30 to 60 us, whatever
# is preloaded (both sides busy-poll the guest's two emulated CPUs, which
# share the host's two cores with QEMU's own threads and Soft-RoCE's
# deferred work). Pinning the two to a CPU each, or nice 19, made the slow
# mode more frequent, not rarer. So each round runs every variant RUNS
# times, interleaved (stock, preload, stats, trace, stock, ...), so that the
# modes fall on all of them alike; every run is kept, and report.py compares
# the variants in the fast mode, where the library's cost shows.
RUNS=8
perftest1() {	# VARIANT ROUND [ENV...]: one run's t_typical, appended to OUT
	local v=$1 r=$2 try out lat; shift 2
	# Tried up to three times: perftest's client may connect before its
	# server listens for the data connection (linux-rdma/perftest#93:
	# REJECTED, then a crash); a failed client takes its server down.
	for try in 1 2 3; do
		port=$((port + 1))
		env "$@" timeout 120 ib_send_lat -R --use_old_post_send -n $PT_N -p $port > /dev/null 2>&1 &
		listening_on $port
		out=$(env "$@" timeout 120 ib_send_lat -R --use_old_post_send -n $PT_N -p $port 192.0.2.1 2>&1) ||
			kill $! 2> /dev/null
		wait
		lat=$(awk -v n=$PT_N '$2 == n && $5 ~ /^[0-9.]+$/ { print $5 }' <<< "$out")
		if [ -n "$lat" ]; then	# (perftest prints "inf" when a run goes wrong)
			echo "softroce: $v round $r: t_typical=$lat us" >&2
			echo "$v $r $lat 0" >> "$OUT"
			return 0
		fi
		echo "softroce: $v round $r, try $try failed:" >&2
		tail -n 3 <<< "$out" >&2
	done
	return 1
}

for r in $(seq "$ROUNDS"); do
	run stock "$r" "$B/stock/pingpong" || exit 1
	run ours "$r" "$B/ours/pingpong" || exit 1
	run spin "$r" "$B/ours/pingpong" RDMAVERBS_POLL_SPIN=$SPIN || exit 1
	for k in $(seq $RUNS); do
		perftest1 perftest "$r" || exit 1
		perftest1 perftest-preload "$r" LD_PRELOAD=$LIB || exit 1
		perftest1 perftest-stats "$r" LD_PRELOAD=$LIB RDMAVERBS_STATS=1 || exit 1
		perftest1 perftest-trace "$r" LD_PRELOAD=$LIB RDMAVERBS_TRACE=/tmp/perftest.trace || exit 1
	done
done
if [ "$PY_RT" -gt 0 ]; then
	bash c-tests/bench/python-guest.sh "$B" "$OUT" "$ROUNDS" "$PY_RT" || exit 1
fi
if [ "$BIND_RT" -gt 0 ]; then
	bash c-tests/bench/bindings/guest.sh "$B" "$OUT" "$ROUNDS" "$BIND_RT" "$BIND_MSGS" || exit 1
fi

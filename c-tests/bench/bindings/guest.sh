#!/usr/bin/env bash
# make bench (and make bench-bindings), guest side: the bindings beside
# what a user would pick instead, in one guest boot, the ways alternated in
# each round, both sides of each run the same way:
#   - Rust's ping-pong (rust/: the raw layer, the safe crate) and a peer
#     crate's (peer/, when it was built: a crate of crates.io);
#   - Node.js's ping-pong (pingpong.js: the raw functions, the Promises);
#   - the message rate (c-tests/bench/msgrate.c's exchange) in C through
#     librdmaverbs, and in Python, Node.js and Rust through their raw layers.
# Appends one line per run to OUT:
#   rs-WAY|js-WAY ROUND latency_us 0      rate-LANG ROUND 0 msgs_s
# and, for Rust's ways, what a round trip allocates, and what a turn of
# Node.js's and Python's event loops costs:
#   alloc-rs-WAY ROUND allocations 0      turn-node|turn-python ROUND us 0
# make e2e-host runs one short round of it (c-tests/e2e/guest/rows-bindings.sh: row
# "bench bindings"), so that the programs keep running between benches.
# Usage: guest.sh BUILD_DIR OUT ROUNDS ROUNDTRIPS MESSAGES
set -u
B=$1 OUT=$2 ROUNDS=$3 RT=$4 MSGS=$5
. c-tests/e2e/guest/listen.sh
export RDMAVERBS_LIBRARY=$B/lib/librdmaverbs.so.1 LD_LIBRARY_PATH=$B/lib
export PYTHONPATH=$PWD/bindings/python NODE_PATH=$B/bindings/install/node/node_modules
ADDR=192.0.2.1
port=${BENCH_PORT:-7800}	# the first port less one (the e2e guest's row gives its own)
# The command of each way (its server's and client's arguments follow).
declare -A CMD=(
	[rs-raw]="$B/bench/rust/release/pingpong raw"
	[rs-safe]="$B/bench/rust/release/pingpong safe"
	[rs-peer]="$B/bench/peer/release/peer-pingpong"
	[js-raw]="node c-tests/bench/bindings/pingpong.js raw"
	[js-promises]="node c-tests/bench/bindings/pingpong.js promises"
	[rate-c]="$B/bench/msgrate"
	[rate-python]="/usr/bin/python3 c-tests/bench/pingpong.py rate"
	[rate-node]="node c-tests/bench/bindings/pingpong.js rate"
	[rate-rust]="$B/bench/rust/release/pingpong rate"
)
ways="rs-raw rs-safe rs-peer js-raw js-promises rate-c rate-python rate-node rate-rust"
if [ ! -x "$B/bench/peer/release/peer-pingpong" ]; then
	echo "softroce: bindings: no peer crate's program (make bench builds it with crates.io reachable): rs-peer skipped" >&2
	ways=${ways/rs-peer /}
fi

one() {	# WAY ROUND: a server and a client of the way; their line appended to OUT
	local w=$1 r=$2 n=$RT line spid a
	case $w in rate-*) n=$MSGS ;; esac
	port=$((port + 1))
	timeout 300 ${CMD[$w]} server $ADDR $port "$n" > /tmp/bind-server.log 2>&1 &
	spid=$!
	listening_on $port 60 || { echo "softroce: $w round $r: the server never listened" >&2; cat /tmp/bind-server.log >&2; kill $spid; return 1; }
	line=$(timeout 300 ${CMD[$w]} client $ADDR $port "$n" 2>&1) ||
		{ echo "softroce: $w round $r failed: $line" >&2; cat /tmp/bind-server.log >&2; kill $spid; return 1; }
	wait $spid || { echo "softroce: $w round $r: the server failed" >&2; cat /tmp/bind-server.log >&2; return 1; }
	echo "softroce: $w round $r: $line" >&2
	case $line in
	*allocs=*latency_us=*)	# and the heap allocations of a round trip
		a=${line##*allocs=}
		echo "alloc-$w $r ${a%% *} 0" >> "$OUT"
		echo "$w $r ${line##*latency_us=} 0" >> "$OUT" ;;
	*latency_us=*) echo "$w $r ${line##*latency_us=} 0" >> "$OUT" ;;
	*msgs_s=*) echo "$w $r 0 ${line##*msgs_s=}" >> "$OUT" ;;
	*) echo "softroce: $w round $r: no figure in: $line" >&2; return 1 ;;
	esac
}
# What one turn of each event loop costs here (2000 turns, nothing else to
# do): the least an awaited completion adds to a wait.
turns() {	# ROUND
	local us
	us=$(node -e 'let n = 0; const t = process.hrtime.bigint();
		const f = () => (++n < 2000 ? setImmediate(f) : console.log((Number(process.hrtime.bigint() - t) / 2e6).toFixed(2)));
		f();') && echo "turn-node $1 $us 0" >> "$OUT"
	us=$(/usr/bin/python3 -c 'import asyncio, time
async def turns():
    t = time.perf_counter()
    for _ in range(2000):
        await asyncio.sleep(0)
    print(f"{(time.perf_counter() - t) / 2000 * 1e6:.2f}")
asyncio.run(turns())') && echo "turn-python $1 $us 0" >> "$OUT"
}
for r in $(seq "$ROUNDS"); do
	turns "$r"
	for w in $ways; do
		one "$w" "$r" || exit 1
	done
done

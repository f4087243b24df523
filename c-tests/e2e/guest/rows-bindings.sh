# The Soft-RoCE guest's rows of the bindings, sourced by guest.sh after
# rows-observer.sh: each language against the C peer (rc, echo, verbs,
# objects, async, hello), Python's client preloaded, and one short round of
# make bench's bindings programs. Defines listening and rc_pair (siw.sh
# uses them too). Uses guest.sh's row, port, fail, B and OUT.

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

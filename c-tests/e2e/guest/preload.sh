#!/usr/bin/env bash
# Inside the Soft-RoCE guest: librdmaverbs preloaded into programs that were
# never built against it. With RDMAVERBS_TRACE/STATS set it wraps the
# provider's ops of every device they open, so their posts and completions
# are traced and counted; with nothing set they behave as without it.
# Prints the details, and one "ROW name build result msgs bytes" per check.
# Env: LIB (librdmaverbs.so.1), OUT (a writable directory), PORT (a base).
# Usage: preload.sh BUILD_DIR
set -u
B=$1
ADDR=192.0.2.1
N=200			# perftest iterations
port=$PORT
row() { echo "ROW $*"; }
count() { grep -c -- "$2" "$1"; }	# FILE REGEX
next_port() { port=$((port + 1)); }
. c-tests/e2e/guest/listen.sh

# Runs a server and a client command line (the client gets the address);
# env assignments before them apply to both. Sets $rc_s and $rc_c. A client
# that fails takes its server down with it (not left to its time-out). A
# client rejected by rdma_cm is run again, with a new server, up to twice:
# perftest's server listens a second time for its data connection, and its
# client connects without waiting for that (linux-rdma/perftest#93), so
# under a loaded TCG guest it is now and then rejected (REJECTED, reason 8:
# no listener) and then crashes. The traces of a rejected try
# (OUT/NAME.*.trace) are removed.
pair() {	# NAME SERVER_CMD CLIENT_CMD (strings; word-split), env in PRE
	local name=$1 try pid
	for try in 1 2 3; do
		env $PRE timeout 120 $2 > "$OUT/$name-s.out" 2> "$OUT/$name-s.err" &
		pid=$!
		listening_on $port
		env $PRE timeout 120 $3 > "$OUT/$name-c.out" 2> "$OUT/$name-c.err"
		rc_c=$?
		[ $rc_c = 0 ] || kill $pid 2> /dev/null
		wait $pid
		rc_s=$?
		[ $rc_c != 0 ] && [ $try -lt 3 ] && grep -q 'RDMA_CM_EVENT_REJECTED' "$OUT/$name-c.err" || return 0
		echo "pair $name: the client was rejected (try $try; linux-rdma/perftest#93); again"
		rm -f "$OUT/$name".*.trace
	done
}

# 1. rdma_server / rdma_client (rdmacm-utils): one receive and one send on
#    each side, two completions each.
next_port
PRE="LD_PRELOAD=$LIB" ; pair plain "rdma_server -s $ADDR -p $port" "rdma_client -s $ADDR -p $port"
# Two processes trace: a file each (%p), put together for the counts. (On
# the guest's 9p mount of the host's directory, as on NFS, appends of two
# processes to one file are not atomic: rdmaverbs(7).)
next_port
PRE="LD_PRELOAD=$LIB RDMAVERBS_STATS=1 RDMAVERBS_TRACE=$OUT/cm.%p.trace"
rm -f "$OUT"/cm.*trace
pair cm "rdma_server -s $ADDR -p $port" "rdma_client -s $ADDR -p $port"
cat "$OUT"/cm.*.trace > "$OUT/cm.trace"
ok=1
for side in s c; do
	grep -q 'end 0' "$OUT/cm-$side.out" || { echo "rdma_$side: did not end 0"; ok=0; }
done
t=$OUT/cm.trace	# both processes append to it
[ "$(count "$t" ': ibv_post_recv .* nsge=1 bytes=16 ret=0$')" = 2 ] || { echo "want 2 receives posted"; ok=0; }
[ "$(count "$t" ': ibv_post_send .* opcode=SEND nsge=1 bytes=16 .*ret=0$')" = 2 ] || { echo "want 2 sends posted"; ok=0; }
[ "$(count "$t" ': ibv_poll_cq .* status=SUCCESS opcode=RECV byte_len=16$')" = 2 ] || { echo "want 2 receive completions"; ok=0; }
[ "$(count "$t" ': ibv_poll_cq .* status=SUCCESS opcode=SEND ')" = 2 ] || { echo "want 2 send completions"; ok=0; }
for side in s c; do	# each process's exit table
	grep -Eq '^rdmaverbs: ibv_post_send +1 +16 +0 ' "$OUT/cm-$side.err" &&
	grep -Eq '^rdmaverbs: ibv_post_recv +1 +16 +0 ' "$OUT/cm-$side.err" ||
		{ echo "exit table of rdma_$side:"; cat "$OUT/cm-$side.err"; ok=0; }
done
cat "$t"
[ $ok = 1 ] && row rdma_cm traced PASS 2 32 || row rdma_cm traced FAIL - -
# ... and preloaded with nothing set: the same output, nothing on stderr.
if [ $rc_s = 0 ] && diff -q "$OUT/plain-s.out" "$OUT/cm-s.out" >/dev/null &&
   diff -q "$OUT/plain-c.out" "$OUT/cm-c.out" >/dev/null &&
   [ ! -s "$OUT/plain-s.err" ] && [ ! -s "$OUT/plain-c.err" ]; then
	row rdma_cm quiet PASS 2 32
else
	echo "preloaded, nothing set: outputs differ or stderr not empty"
	cat "$OUT"/plain-*.out "$OUT"/plain-*.err
	row rdma_cm quiet FAIL - -
fi

# 2. pingpong built against the stock header: its inlined rdma_post_send
#    etc. become provider op calls, every one traced and counted
#    (check-trace.sh --ops).
next_port
R=40 M=200
LD_PRELOAD=$LIB RDMAVERBS_STATS=1 RDMAVERBS_TRACE=$OUT/stock.trace timeout 120 \
	"$B/stock/pingpong" $port $R $M > "$OUT/stock.out" 2> "$OUT/stock.err"
if [ $? = 0 ] && res=$(c-tests/e2e/guest/check-trace.sh --ops "$OUT/stock.trace" "$OUT/stock.err" $R $M); then
	row pingpong stock-traced PASS $res
else
	cat "$OUT/stock.out"
	row pingpong stock-traced FAIL - -
fi

# 3. perftest over rdma_cm (-R), the old post-send path (ibv_post_send; the
#    extended ibv_wr_* API does not go through the ops and is not seen).
for t in ib_send_lat ib_write_bw; do
	next_port
	PRE="LD_PRELOAD=$LIB"
	pair "$t-plain" "$t -R --use_old_post_send -n $N -p $port" "$t -R --use_old_post_send -n $N -p $port $ADDR"
	plain="$rc_s $rc_c"
	next_port
	rm -f "$OUT/$t".*trace
	PRE="LD_PRELOAD=$LIB RDMAVERBS_STATS=1 RDMAVERBS_TRACE=$OUT/$t.%p.trace"
	pair "$t" "$t -R --use_old_post_send -n $N -p $port" "$t -R --use_old_post_send -n $N -p $port $ADDR"
	cat "$OUT/$t".*.trace > "$OUT/$t.trace"
	ok=1
	# (perftest writes its own warnings to stderr under emulation, such as
	# "Correlation coefficient r^2 < 0.9"; none may come from the library.)
	[ "$plain" = "0 0" ] && grep -q "^ *[0-9]* *$N " "$OUT/$t-plain-c.out" &&
		! grep -qs '^rdmaverbs' "$OUT/$t-plain-s.err" "$OUT/$t-plain-c.err" ||
		{ echo "$t preloaded, nothing set: failed ($plain)"; ok=0; }
	[ "$rc_s $rc_c" = "0 0" ] || { echo "$t traced: failed ($rc_s $rc_c)"; ok=0; }
	tr=$OUT/$t.trace
	if [ $t = ib_send_lat ]; then
		# N ping-pong messages of 2 bytes each way (perftest adds one of
		# its own at the end), each posted and received.
		sent=$(count "$tr" ': ibv_post_send .* opcode=SEND nsge=1 bytes=2 .*ret=0$')
		recvd=$(count "$tr" ': ibv_poll_cq .* status=SUCCESS opcode=RECV byte_len=2$')
		[ "$sent" -ge $((2 * N)) ] && [ "$sent" -le $((2 * N + 4)) ] && [ "$recvd" = "$sent" ] ||
			{ echo "$t: $sent 2-byte sends and $recvd receives traced, want $((2 * N))+"; ok=0; }
		bytes=$((sent * 2))
	else
		# N RDMA writes of 65536 bytes by the client.
		sent=$(count "$tr" ': ibv_post_send .* opcode=RDMA_WRITE nsge=1 bytes=65536 .*ret=0$')
		done_=$(count "$tr" ': ibv_poll_cq .* status=SUCCESS opcode=RDMA_WRITE ')
		[ "$sent" = $N ] && [ "$done_" -ge 1 ] ||
			{ echo "$t: $sent writes posted, $done_ completions traced, want $N"; ok=0; }
		bytes=$((sent * 65536))
	fi
	grep -Eq '^rdmaverbs: ibv_post_send +[0-9]+ ' "$OUT/$t-c.err" ||
		{ echo "$t: no exit table"; cat "$OUT/$t-c.err"; ok=0; }
	[ $ok = 1 ] && row "$t" traced PASS "$sent" "$bytes" || row "$t" traced FAIL - -
	[ $ok = 1 ] || tail -n 5 "$OUT/$t-c.out" "$OUT/$t-plain-c.out"
done

# 3b. rdmaverbs-trace -c on the stock perftest, server and client each
#     under it: each side's table, from the counters of the command's
#     session, has its N ping-pong sends of 2 bytes and perftest's own few
#     (its handshake: some 10 more, 400 bytes), no error; the two sides
#     alike.
TRACE=$B/bin/rdmaverbs-trace
mkdir -p -m 700 "$OUT/run"
next_port
PRE="RDMAVERBS_PRELOAD=$LIB XDG_RUNTIME_DIR=$OUT/run"
pair count "$TRACE -c ib_send_lat -R --use_old_post_send -n $N -p $port" \
	"$TRACE -c ib_send_lat -R --use_old_post_send -n $N -p $port $ADDR"
ok=1 total=0
[ "$rc_s $rc_c" = "0 0" ] || { echo "rdmaverbs-trace -c ib_send_lat: exit $rc_s $rc_c"; ok=0; }
for side in s c; do
	read -r calls bytes errors <<< "$(awk '$1 == "ibv_post_send" { print $2, $3, $4 }' "$OUT/count-$side.err")"
	if ! { [ "${calls:-0}" -ge $N ] && [ "$calls" -le $((N + 20)) ] && [ "$bytes" -ge $((2 * N)) ] &&
	       [ "$bytes" -le $((2 * N + 1000)) ] && [ "$errors" = 0 ] &&
	       grep -q '^rdmaverbs-trace: counted in 1 process of ib_send_lat' "$OUT/count-$side.err"; }; then
		echo "rdmaverbs-trace -c, $side:"; cat "$OUT/count-$side.err"; ok=0
	fi
	total=$((total + ${calls:-0}))
done
[ "$(awk '$1 == "ibv_post_send"' "$OUT/count-s.err")" = "$(awk '$1 == "ibv_post_send"' "$OUT/count-c.err")" ] ||
	{ echo "rdmaverbs-trace -c: the two sides differ"; ok=0; }
[ $ok = 1 ] && row trace-c stock PASS $total $((total * 2)) || row trace-c stock FAIL - -

# 4. Two devices: rxe1 on dummy1 at 192.0.2.2 (guest-only, like rxe0).
#    Every process now opens and wraps two contexts; the connection to
#    192.0.2.2 runs on the second one.
ip link add dummy1 type dummy && ip addr add 192.0.2.2/32 dev dummy1 &&
	ip link set dummy1 up && rdma link add rxe1 type rxe netdev dummy1
for i in $(seq 50); do rdma link show rxe1/1 2>/dev/null | grep -q 'state ACTIVE' && break; sleep 0.2; done
next_port
rm -f "$OUT"/two.*trace
PRE="LD_PRELOAD=$LIB RDMAVERBS_STATS=1 RDMAVERBS_TRACE=$OUT/two.%p.trace"
pair two "rdma_server -s 192.0.2.2 -p $port" "rdma_client -s 192.0.2.2 -p $port"
cat "$OUT"/two.*.trace > "$OUT/two.trace"
t=$OUT/two.trace
ndev=$(ibv_devices | grep -c rxe)
if [ "$ndev" = 2 ] && grep -q 'end 0' "$OUT/two-s.out" && grep -q 'end 0' "$OUT/two-c.out" &&
   [ "$(count "$t" ': ibv_post_send .* bytes=16 .*ret=0$')" = 2 ] &&
   [ "$(count "$t" ': ibv_poll_cq .* status=SUCCESS opcode=RECV byte_len=16$')" = 2 ]; then
	row two-devices traced PASS 2 32
else
	echo "two devices ($ndev):"; cat "$OUT"/two-*.out "$t"
	row two-devices traced FAIL - -
fi

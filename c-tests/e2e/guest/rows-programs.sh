# The Soft-RoCE guest's first rows, sourced by guest.sh: rdma-core's own
# rdma_server/rdma_client (the baseline), every scenario of e2e (scenarios/)
# in both builds, and verbs' exchange (verbs/) in both builds.
# Uses guest.sh's row, port, fail, B, OUT and SCENARIOS.

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

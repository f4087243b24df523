#!/usr/bin/env bash
# Runs inside a Soft-RoCE guest whose root is another Debian release's
# (run-guest.sh -r: its kernel, its libibverbs and librxe), on the programs
# built there (make test-rdma-core): the rdma_verbs.h RC scenario of e2e.c
# and verbs.c's exchange through the exports of verbs.h, each built against
# our header or library (ours) and as the inline original (stock); both must
# pass and print the same "obs:" lines. With that release's header the
# exchange has what it adds (rdma-core 45: a flush of the window written,
# ibv_wr_flush, on a kernel whose rxe does flushes).
# Usage: release-guest.sh BUILD_DIR OUT_DIR
set -u
B=$1 OUT=$2
port=7600 fail=0
. c-tests/e2e/guest/listen.sh
mkdir -p "$OUT"
row() { echo "release-e2e: $*"; }
row "the guest: Debian $(cat /etc/debian_version), kernel $(uname -r), $(ls /usr/lib/*/libibverbs.so.1.* | head -n 1)"

# e2e.c's RC scenario, each build alone (client and server threads).
for v in ours stock; do
	port=$((port + 1))
	timeout 120 "$B/$v/e2e" rc $port > "$OUT/rc-$v.log" 2>&1
	if [ $? -eq 0 ] && grep -q '^RESULT rc PASS' "$OUT/rc-$v.log"; then
		row "rc $v PASS $(sed -n 's/^RESULT rc PASS //p' "$OUT/rc-$v.log")"
	else
		row "rc $v FAIL"; sed 's/^/    /' "$OUT/rc-$v.log"; fail=1
	fi
	{ grep '^obs:' "$OUT/rc-$v.log"; grep '^RESULT' "$OUT/rc-$v.log"; } | sort > "$OUT/rc-$v.obs"
done
diff -u "$OUT/rc-stock.obs" "$OUT/rc-ours.obs" > "$OUT/rc.diff" && row "rc same PASS" ||
	{ row "rc same FAIL"; sed 's/^/    /' "$OUT/rc.diff"; fail=1; }

# verbs.c: a server and a client process of each build.
for v in ours stock; do
	port=$((port + 1))
	timeout 120 "$B/$v/verbs" server 192.0.2.1 $port > "$OUT/verbs-$v-server.log" 2>&1 &
	spid=$! rc=1
	if listening_on $port 60; then
		timeout 120 "$B/$v/verbs" client 192.0.2.1 $port > "$OUT/verbs-$v-client.log" 2>&1
		rc=$?
	fi
	[ $rc -eq 0 ] || kill $spid 2> /dev/null
	wait $spid || rc=1
	if [ $rc -eq 0 ] && [ "$(cat "$OUT"/verbs-$v-*.log | grep -c '^RESULT verbs PASS')" = 2 ]; then
		row "verbs exports $v PASS$(grep -q 'flush of the window' "$OUT/verbs-$v-client.log" && echo ', the window flushed')"
	else
		row "verbs exports $v FAIL"; sed 's/^/    /' "$OUT"/verbs-$v-*.log; fail=1
	fi
	{ grep -h '^obs:' "$OUT"/verbs-$v-server.log "$OUT"/verbs-$v-client.log
	  grep -h '^RESULT' "$OUT"/verbs-$v-server.log "$OUT"/verbs-$v-client.log; } > "$OUT/verbs-$v.obs"
done
diff -u "$OUT/verbs-stock.obs" "$OUT/verbs-ours.obs" > "$OUT/verbs.diff" &&
	row "verbs exports same PASS ($(grep -c '^obs:' "$OUT/verbs-ours.obs") obs: lines)" ||
	{ row "verbs exports same FAIL"; sed 's/^/    /' "$OUT/verbs.diff"; fail=1; }
exit $fail

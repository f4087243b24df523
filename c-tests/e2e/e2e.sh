#!/usr/bin/env bash
# make e2e: check how the two builds of e2e.c and of verbs.c link, build
# siw.ko for the guest (build-siw.sh), then boot the Soft-RoCE guest and run
# every scenario in it (guest.sh; its last rows on soft-iWARP, siw.sh).
# Exits non-zero on any failure, including a missing kernel, QEMU, vng
# (run-guest.sh says which) or what siw.ko is built from.
# Usage: e2e.sh BUILD_DIR
set -u
cd "$(dirname "$0")/../.."
B=$1
OUT=$B/e2e-out
fail=0
rm -rf "$OUT" && mkdir -p "$OUT"
# Everything printed is kept in BUILD_DIR/e2e.log too: make e2e repeats its
# failures after the pair's output, where a CI log's tail shows them.
exec > >(tee "$B/e2e.log") 2>&1

# The build against our header imports each function of the build's
# exports list (BUILD_DIR/exports.tsv) that e2e's sources (scenarios/) call from
# librdmaverbs.so.1, at its node; the stock build has them inlined and
# imports none.
used=$(awk -F '\t' '$1 ~ /^rdma_/ { print $1 }' "$B/exports.tsv" |
	while read -r f; do grep -q "\b$f(" c-tests/e2e/scenarios/*.c && echo "$f"; done)
n=0
for f in $used; do
	n=$((n + 1))
	nm -D "$B/ours/e2e" | grep -q " U $f@RDMAVERBS_1\.[0-9]*\$" ||
		{ echo "e2e: FAIL: ours/e2e does not import $f from librdmaverbs"; fail=1; }
done
ldd "$B/ours/e2e" | grep -q "librdmaverbs.so.1 => $PWD/$B/lib/" ||
	{ echo "e2e: FAIL: ours/e2e does not load $B/lib/librdmaverbs.so.1"; fail=1; }
if nm -D "$B/stock/e2e" | grep -E ' U rdma_(post_|get_send_comp|get_recv_comp|reg_|dereg_mr|seterrno)' ||
   objdump -p "$B/stock/e2e" | grep -q 'NEEDED.*librdmaverbs'; then
	echo "e2e: FAIL: stock/e2e imports inline functions or needs librdmaverbs"; fail=1
fi
[ $fail -eq 0 ] && echo "e2e: ok: ours/e2e imports all $n functions it calls from librdmaverbs.so.1; stock/e2e imports none"

# verbs.c (and siw-verbs.c, its table on soft-iWARP) reach verbs.h's inline
# functions (RDMAVERBS_1.3 and later) by dlvsym, by design: neither build
# links librdmaverbs or imports any of them; the stock build holds a copy of
# each inline original the build has (a local symbol of that name), ours
# none (it takes each from the library at run time).
v13=$(awk -F '\t' '$5 == "infiniband/verbs.h" { print $1 }' "$B/exports.tsv" | sort -u)
copies() { nm "$1" | awk '$2 == "t" { print $3 }' | sort -u | comm -12 - <(echo "$v13") | wc -l; }
n13=$(echo "$v13" | wc -l)
for p in verbs siw-verbs; do
	vfail=0
	for b in ours stock; do
		if objdump -p "$B/$b/$p" | grep -q 'NEEDED.*librdmaverbs' ||
		   nm -D "$B/$b/$p" | grep -E " U ($(echo $v13 | tr ' ' '|'))(@|\$)"; then
			echo "e2e: FAIL: $b/$p links librdmaverbs or imports an inline function of verbs.h"; vfail=1
		fi
	done
	nm -D "$B/ours/$p" | grep -q ' U dlvsym@' || { echo "e2e: FAIL: ours/$p does not import dlvsym"; vfail=1; }
	[ "$(copies "$B/stock/$p")" = "$n13" ] ||
		{ echo "e2e: FAIL: stock/$p holds $(copies "$B/stock/$p") of the $n13 inline functions"; vfail=1; }
	[ "$(copies "$B/ours/$p")" = 0 ] ||
		{ echo "e2e: FAIL: ours/$p holds $(copies "$B/ours/$p") inline functions of verbs.h"; vfail=1; }
	[ $vfail -eq 0 ] && echo "e2e: ok: ours/$p takes the $n13 functions of verbs.h by dlvsym," \
		"stock/$p holds the $n13 inline originals; neither links librdmaverbs"
	[ $vfail -eq 0 ] || fail=1
done

# Soft-iWARP (guest.sh's last rows, siw.sh): siw.ko for the guest's kernel,
# built from Debian's source (build-siw.sh, cached outside the tree), put
# where the guest sees it (it sees the host's /var as an empty overlay).
if ko=$(c-tests/tools/build-siw.sh); then
	cp "$ko" "$OUT/siw.ko"
else
	echo "e2e: FAIL: no siw.ko (build-siw.sh says why above): the siw rows fail"
	fail=1
fi

c-tests/tools/run-guest.sh -t 1500 -w "$OUT" c-tests/e2e/guest/guest.sh "$B" "$OUT" || fail=1
exit $fail

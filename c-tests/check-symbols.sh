#!/bin/sh
# The symbol test: the soname, and the exact set of exported names with their
# version. The expected names come from the system header itself: every
# `static inline` function of <rdma/rdma_verbs.h>.
# Usage: check-symbols.sh path/to/librdmaverbs.so.1.0.0
set -eu
lib=$1
hdr=$(pkg-config --variable=includedir librdmacm)/rdma/rdma_verbs.h
fail=0

soname=$(objdump -p "$lib" | awk '$1 == "SONAME" { print $2 }')
if [ "$soname" = librdmaverbs.so.1 ]; then
	echo "ok: soname $soname"
else
	echo "FAIL: soname is '$soname', want librdmaverbs.so.1"; fail=1
fi

# The name of each inline function: the first rdma_* identifier followed by
# "(" on the "static inline" line or the line after it.
want=$(awk '/static inline/ { n = 2 } n > 0 { n--; if (match($0, /rdma_[a-z_]+[ \t]*\(/)) {
		s = substr($0, RSTART, RLENGTH); sub(/[ \t]*\(/, "", s); print s " RDMAVERBS_1.0"; n = 0 } }' \
	"$hdr" | sort)
# ... and the two libibverbs functions it interposes, at libibverbs' version.
want=$(printf '%s\nibv_close_device IBVERBS_1.1\nibv_open_device IBVERBS_1.1\n' "$want" | sort)
# Every defined dynamic symbol with its version (the version's own ABS
# symbol is not a function and is left out).
got=$(objdump -T "$lib" | awk '$0 ~ /^[0-9a-f]+ / && $0 !~ /\*UND\*/ && $0 !~ /\*ABS\*/ {
		print $NF " " $(NF-1) }' | sort)

nwant=$(printf '%s\n' "$want" | grep -c RDMAVERBS_1.0)
if [ "$nwant" -ne 16 ]; then
	echo "FAIL: found $nwant inline functions in $hdr, expected 16"; fail=1
fi
if [ "$got" = "$want" ]; then
	echo "ok: exports exactly the $nwant inline functions of $hdr, each at RDMAVERBS_1.0,"
	echo "    and ibv_open_device, ibv_close_device at IBVERBS_1.1"
else
	echo "FAIL: exported symbols differ (< wanted, > exported):"
	printf '%s\n' "$want" > /tmp/rdmaverbs-want.$$
	printf '%s\n' "$got" | diff /tmp/rdmaverbs-want.$$ - || true
	rm -f /tmp/rdmaverbs-want.$$
	fail=1
fi
# No panic path: nothing in the library can abort the host program with a
# Rust panic (the tracing formats by hand for this reason), so the panic
# handler and its formatting machinery are not linked in at all.
if nm "$lib" | grep -E 'rust_begin_unwind|panic_fmt|panicking' >/dev/null; then
	echo "FAIL: the library contains a panic path:"
	nm "$lib" | grep -E 'rust_begin_unwind|panic_fmt|panicking' | head -5
	fail=1
else
	echo "ok: no panic path linked in (no rust_begin_unwind, panic_fmt or panicking)"
fi
[ $fail -eq 0 ] && echo "symbols: 3 passed, 0 failed" || echo "symbols: FAILED"
exit $fail

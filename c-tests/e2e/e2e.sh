#!/usr/bin/env bash
# make e2e: check how the two builds of e2e.c link, then boot the Soft-RoCE
# guest and run every scenario in it (guest.sh). Exits non-zero on any
# failure, including a missing kernel, QEMU or vng (run-guest.sh says which).
# Usage: e2e.sh BUILD_DIR
set -u
cd "$(dirname "$0")/../.."
B=$1
OUT=$B/e2e-out
fail=0
rm -rf "$OUT" && mkdir -p "$OUT"

# The build against our header imports each function of the table
# (c-tests/functions.h) that e2e.c calls from librdmaverbs.so.1, at its node;
# the stock build has them inlined and imports none.
used=$(sed -n 's/^\tX(.*, \(rdma_[a-z_]*\), (.*/\1/p' c-tests/functions.h |
	while read -r f; do grep -q "\b$f(" c-tests/e2e/e2e.c && echo "$f"; done)
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

# The ctypes program's struct layouts and constants are the system headers'.
python3 c-tests/examples/ctypes_rc.py --layout > "$OUT/ctypes-layout.py.txt"
{
	echo '#include <stdio.h>'
	echo '#include <stddef.h>'
	echo '#include <rdma/rdma_cma.h>'
	echo 'int main(void) {'
	while read -r a b c d; do
		case $c in
		sizeof) printf 'printf("%%s sizeof %%zu\\n", "%s %s", sizeof(%s %s));\n' "$a" "$b" "$a" "$b" ;;
		offset) printf 'printf("%%s offset %%zu\\n", "%s %s", offsetof(%s %s, %s));\n' \
				"$a" "$b" "$a" "${b%%.*}" "${b#*.}" ;;
		esac
		[ "$b" = value ] && printf 'printf("%s value %%d\\n", (int)%s);\n' "$a" "$a"
	done < "$OUT/ctypes-layout.py.txt"
	echo 'return 0; }'
} > "$OUT/ctypes-layout.c"
if cc -o "$OUT/ctypes-layout" "$OUT/ctypes-layout.c" $(pkg-config --cflags librdmacm) &&
   "$OUT/ctypes-layout" | diff -u - "$OUT/ctypes-layout.py.txt"; then
	echo "e2e: ok: ctypes_rc.py's structs and constants match the system headers"
else
	echo "e2e: FAIL: ctypes_rc.py's structs or constants differ from the system headers"; fail=1
fi

c-tests/tools/run-guest.sh -t 900 -w "$OUT" c-tests/e2e/guest.sh "$B" "$OUT" || fail=1
exit $fail

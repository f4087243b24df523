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

# The build against our header imports the rdma_* functions from
# librdmaverbs.so.1; the stock build has them inlined and imports none.
used="rdma_reg_msgs rdma_reg_read rdma_reg_write rdma_dereg_mr rdma_post_recvv
rdma_post_sendv rdma_post_readv rdma_post_writev rdma_post_recv rdma_post_send
rdma_post_read rdma_post_write rdma_post_ud_send rdma_get_send_comp rdma_get_recv_comp"
for f in $used; do
	nm -D "$B/e2e-ours" | grep -q " U $f@RDMAVERBS_1.0\$" ||
		{ echo "e2e: FAIL: e2e-ours does not import $f@RDMAVERBS_1.0"; fail=1; }
done
ldd "$B/e2e-ours" | grep -q "librdmaverbs.so.1 => $PWD/$B/lib/" ||
	{ echo "e2e: FAIL: e2e-ours does not load $B/lib/librdmaverbs.so.1"; fail=1; }
if nm -D "$B/e2e-stock" | grep -E ' U rdma_(post_|get_send_comp|get_recv_comp|reg_|dereg_mr|seterrno)' ||
   objdump -p "$B/e2e-stock" | grep -q 'NEEDED.*librdmaverbs'; then
	echo "e2e: FAIL: e2e-stock imports inline functions or needs librdmaverbs"; fail=1
fi
[ $fail -eq 0 ] && echo "e2e: ok: e2e-ours imports all 15 functions it calls from librdmaverbs.so.1 at RDMAVERBS_1.0; e2e-stock imports none"

# The ctypes program's struct layouts and constants are the system headers'.
python3 c-tests/e2e/ctypes_rc.py --layout > "$OUT/ctypes-layout.py.txt"
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

c-tests/e2e/run-guest.sh -t 900 -w "$OUT" c-tests/e2e/guest.sh "$B" "$OUT" || fail=1
exit $fail

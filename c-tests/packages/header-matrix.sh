#!/usr/bin/env bash
# The drop-in header is as portable as the stock one: header-use.c (every
# function of <rdma/rdma_verbs.h>) is compiled against the stock header and
# against ours, under every C standard from C90 (gnu89) to C23 and every C++
# standard from C++98 to C++23, with gcc/g++ and clang/clang++, with
# -pedantic-errors -Wall -Wextra. For each: where the stock header compiles,
# ours must too, and so must our <rdmaverbs.h> (the bounded waits) on top of
# it; ours may give no diagnostic the stock one does not give; and none may
# point into our headers.
# Usage: header-matrix.sh OUR_INCLUDE_DIR   (the directory holding rdma/rdma_verbs.h)
set -u
ours=$(realpath "$1")
src=$(dirname "$0")/header-use.c
stock_flags=$(pkg-config --cflags librdmacm libibverbs)
stock=$(pkg-config --variable=includedir librdmacm)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 rows=()

C_STDS="gnu89 c89 c99 gnu99 c11 gnu11 c17 gnu17 c2x gnu2x"
CXX_STDS="c++98 c++03 c++11 c++14 c++17 c++20 c++2b"

# The diagnostics of one compilation, one per line, as "file: kind: message"
# (no line numbers, no include chains), sorted; and its status in $tmp/rc.
diags() {	# OUT COMPILER ARGS...
	local out=$1; shift
	"$@" > "$tmp/raw" 2>&1
	echo $? > "$out.rc"
	sed -n -E 's#^([^:]*):[0-9]+:[0-9]+: (warning|error): (.*)$#\1: \2: \3#p' "$tmp/raw" |
		sed "s|^$ours/|OURS/|; s|^$stock/|STOCK/|" | sort -u > "$out"
	sort -u -o "$out" "$out"
}

run() {	# COMPILER LANG STD
	local cc=$1 lang=$2 std=$3 flags="-std=$3 -pedantic-errors -Wall -Wextra -fsyntax-only -x $2"
	diags "$tmp/stock" "$cc" $flags $stock_flags "$src"
	diags "$tmp/ours" "$cc" $flags -I"$ours" $stock_flags "$src"
	diags "$tmp/api" "$cc" $flags -DRDMAVERBS_API -I"$ours" $stock_flags "$src"
	local s=$(cat "$tmp/stock.rc") o=$(cat "$tmp/ours.rc") a=$(cat "$tmp/api.rc") why=
	# Our header's own diagnostics, and any the stock build does not have.
	grep -h '^OURS/' "$tmp/ours" "$tmp/api" > "$tmp/own"
	comm -23 <(grep -v '^OURS/' "$tmp/ours") "$tmp/stock" > "$tmp/extra"
	[ "$s" = 0 ] && [ "$o" != 0 ] && why="fails where the stock header compiles"
	[ "$s" = 0 ] && [ "$a" != 0 ] && why="${why:+$why; }<rdmaverbs.h> fails where the stock header compiles"
	[ -s "$tmp/own" ] && why="${why:+$why; }diagnostics in our header"
	[ -s "$tmp/extra" ] && why="${why:+$why; }diagnostics the stock build does not give"
	local st=ok ou=ok
	[ "$s" = 0 ] || st="fails ($(grep -c . "$tmp/stock") diagnostics)"
	[ "$o" = 0 ] || ou="fails ($(grep -c . "$tmp/ours") diagnostics)"
	if [ -z "$why" ]; then
		pass=$((pass + 1)); rows+=("$(printf '%-8s %-7s %-28s %-28s same' "$cc" "$std" "$st" "$ou")")
	else
		fail=$((fail + 1)); rows+=("$(printf '%-8s %-7s %-28s %-28s FAIL: %s' "$cc" "$std" "$st" "$ou" "$why")")
		sed 's/^/    ours: /' "$tmp/own" "$tmp/extra"
	fi
}

for cc in gcc clang; do
	command -v $cc >/dev/null || { echo "header-matrix: $cc not found"; exit 2; }
	for std in $C_STDS; do run $cc c $std; done
done
for cc in g++ clang++; do
	command -v $cc >/dev/null || { echo "header-matrix: $cc not found"; exit 2; }
	for std in $CXX_STDS; do run $cc c++ $std; done
done
printf '%-8s %-7s %-28s %-28s\n' compiler std "stock header" "our header"
printf '%s\n' "${rows[@]}"
echo "headers: $pass passed, $fail failed"
[ $fail -eq 0 ]

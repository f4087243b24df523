#!/usr/bin/env bash
# The symbol test of both libraries.
#
# librdmaverbs.so.1: its soname; it exports exactly the `static inline`
# functions of the system's <rdma/rdma_verbs.h> at RDMAVERBS_1.0 (the names
# come from that header itself), the inline address functions of
# <rdma/rdma_cma.h> at RDMAVERBS_1.2, those of <infiniband/verbs.h> at
# RDMAVERBS_1.3 (but the two left out), and the later nodes' functions of
# its version script, and nothing else; those of 1.2 and 1.3, which no
# header declares, at non-default versions only (name@NODE), so that it
# interposes none of them: another object's own ibv_post_send stays its
# own, dlsym finds none of ours, dlvsym does; no name libibverbs or
# librdmacm export, none of verbs.h's macros, nothing at IBVERBS_*; it
# still defines the retired empty node IBVERBS_1.1.
# librdmaverbs-preload.so: no soname, not unloadable (NODELETE); it exports
# what librdmaverbs.so.1 does, the libibverbs functions it interposes and its
# marker, as src/preload.map says.
# Neither has a Rust panic path linked in.
# Usage: check-symbols.sh path/to/librdmaverbs.so.1.X.Y path/to/librdmaverbs-preload.so
set -eu
lib=$1 pre=$2
dir=$(dirname "$0")/../..
hdr=$(pkg-config --variable=includedir librdmacm)/rdma/rdma_verbs.h
pass=0 fail=0
ok() { echo "ok: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "name node" for every symbol a version script names.
map_symbols() {
	awk '/^[A-Za-z_0-9.]+ \{/ { node = $1 } /^ +[a-z_]+;$/ { s = $1; sub(/;/, "", s); print s " " node }' "$1" | sort
}
# "name version" for every defined dynamic symbol, "name (version)" for a
# non-default one, as objdump -T shows them (the versions' own ABS symbols
# are not functions and are left out).
exported() {
	objdump -T "$1" | awk '$0 ~ /^[0-9a-f]+ / && $0 !~ /\*UND\*/ && $0 !~ /\*ABS\*/ {
		print $NF " " $(NF-1) }' | sort
}
same() {	# WHAT WANT GOT
	if [ "$2" = "$3" ]; then return 0; fi
	printf '%s\n' "$2" > "$tmp/want"; printf '%s\n' "$3" > "$tmp/got"
	echo "FAIL: $1 differ (< wanted, > found):"; diff "$tmp/want" "$tmp/got" || true
	return 1
}

soname=$(objdump -p "$lib" | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = librdmaverbs.so.1 ] && ok "soname $soname" || bad "soname is '$soname', want librdmaverbs.so.1"

# The name of each inline function: the first rdma_* identifier followed by
# "(" on the "static inline" line or the line after it.
inline=$(awk '/static inline/ { n = 2 } n > 0 { n--; if (match($0, /rdma_[a-z_]+[ \t]*\(/)) {
		s = substr($0, RSTART, RLENGTH); sub(/[ \t]*\(/, "", s); print s " RDMAVERBS_1.0"; n = 0 } }' \
	"$hdr" | sort)
ninline=$(printf '%s\n' "$inline" | grep -c RDMAVERBS_1.0)
[ "$ninline" -eq 16 ] || bad "found $ninline inline functions in $hdr, expected 16"
# The inline functions of the system's <infiniband/verbs.h> (each name
# taken from the header, as the identifier before the first "(" after
# "static inline"), but the two left out with why (rdmaverbs(7)):
# verbs_get_ctx, a container-of helper, and __ibv_get_device_list, for
# static links only.
verbs=$(pkg-config --variable=includedir libibverbs)/infiniband/verbs.h
inlinev=$(awk '/static inline/ { t = $0; sub(/.*static inline/, "", t); n = 3 } n > 0 {
		if (!/static inline/) t = t " " $0; n--
		if (match(t, /[A-Za-z_0-9]+[ \t]*\(/)) { s = substr(t, RSTART, RLENGTH); sub(/[ \t]*\(/, "", s); print s; n = 0 } }' \
	"$verbs" | grep -vx 'verbs_get_ctx\|__ibv_get_device_list' | sort)
# The static inline address functions of <rdma/rdma_cma.h>.
cma=$(pkg-config --variable=includedir librdmacm)/rdma/rdma_cma.h
inlinec=$(awk '/^static inline struct sockaddr \*rdma_get_[a-z_]*_addr\(/ {
		s = $0; sub(/\(.*/, "", s); sub(/.*\*/, "", s); print s }' "$cma" | sort)
# The functions of the nodes that no header declares (abi/exports.tsv's
# rows whose header is "-"), each "name (NODE)", of those whose original
# the system headers have: in both libraries at a non-default version
# (src/api/symver.rs), which no version script names. Every inline
# function of those headers is a row (but the two left out).
full="$(cd "$dir" && pwd)/abi/exports.tsv"
rows=$(awk -F '\t' '!/^#/ && $1 != "name" && $6 == "-" { print $1 " " $2 }' "$full" | sort)
versioned=$(printf '%s\n' "$inlinev" "$inlinec" | sort | join - <(printf '%s\n' "$rows") |
	awk '{ print $1 " (" $2 ")" }' | sort)
norow=$(printf '%s\n' "$inlinev" "$inlinec" | sort | join -v 1 - <(printf '%s\n' "$rows"))
[ -z "$norow" ] && ok "every inline function of $verbs (but the two left out) and of $cma is a row of abi/exports.tsv" ||
	bad "inline in the system headers and in no row of abi/exports.tsv: $(echo $norow)"
linked=$( { map_symbols "$dir/src/librdmaverbs.map"; printf '%s\n' "$versioned"; } | sort)
same "the version script's RDMAVERBS_1.0 and the header's inline functions" \
	"$inline" "$(printf '%s\n' "$linked" | grep ' RDMAVERBS_1.0$')" &&
	ok "src/librdmaverbs.map has RDMAVERBS_1.0 = the $ninline inline functions of $hdr" || fail=$((fail + 1))
# RDMAVERBS_1.2: the static inline address functions of <rdma/rdma_cma.h>.
same "the table's RDMAVERBS_1.2 and the inline address functions of rdma_cma.h" \
	"$(printf '%s\n' "$inlinec" | sed 's/$/ (RDMAVERBS_1.2)/')" "$(printf '%s\n' "$linked" | grep ' (RDMAVERBS_1.2)$')" &&
	ok "RDMAVERBS_1.2 = $(echo $inlinec), inline in $cma" ||
	fail=$((fail + 1))
same "librdmaverbs.so.1's exports" "$linked" "$(exported "$lib")" &&
	ok "librdmaverbs.so.1 exports exactly the $(printf '%s\n' "$linked" | grep -c .) functions of its version script and table, each at its node, those that no header declares as non-default versions" ||
	fail=$((fail + 1))
# RDMAVERBS_1.3 and the later nodes of verbs.h: every static inline
# function of the system's <infiniband/verbs.h> (but the two left out), and
# none it lacks.
nv=$(printf '%s\n' "$inlinev" | grep -c .)
same "the table's rows of verbs.h in this build and the inline functions of verbs.h" \
	"$inlinev" "$(printf '%s\n' "$linked" | grep -v ' RDMAVERBS_1\.[01]$\| (RDMAVERBS_1.2)$' | awk '{ print $1 }' | sort)" &&
	ok "RDMAVERBS_1.3 and later = the $nv inline functions of $verbs (but verbs_get_ctx, __ibv_get_device_list), each at its node: $(printf '%s\n' "$linked" | awk '$2 ~ /RDMAVERBS_1\.[3-9]/ { n[$2]++ } END { for (k in n) printf "%s %d ", k, n[k] }')" ||
	fail=$((fail + 1))
# None of the macros' names, nothing at an IBVERBS_* node, no name that
# libibverbs or librdmacm exports; every ibv_* it defines is one of those.
ibverbs=$(ldconfig -p | sed -n 's/^\tlibibverbs\.so\.1 (libc6,x86-64) => //p' | head -n 1)
rdmacm=$(ldconfig -p | sed -n 's/^\tlibrdmacm\.so\.1 (libc6,x86-64) => //p' | head -n 1)
theirs=$(nm -D --defined-only "$ibverbs" "$rdmacm" | awk 'NF == 3 { sub(/@.*/, "", $3); print $3 }' | sort -u)
ours=$(exported "$lib" | awk '{ print $1 }')
clash=$(comm -12 <(printf '%s\n' "$theirs") <(printf '%s\n' "$ours" | sort -u))
macros=$(printf '%s\n' "$ours" | grep -x 'ibv_query_port\|ibv_reg_mr\|ibv_reg_mr_iova\|ibv_get_device_list' || true)
atibverbs=$(exported "$lib" | awk '$2 ~ /^IBVERBS_/')
localibv=$(nm --defined-only "$lib" | awk '$2 ~ /^[a-z]$/ && $3 ~ /^_*ibv_/ { print $3 }')
if [ -z "$clash" ] && [ -z "$macros" ] && [ -z "$atibverbs" ] && [ -z "$localibv" ] && [ -n "$theirs" ]; then
	ok "librdmaverbs.so.1 exports no name of $(basename "$ibverbs") or $(basename "$rdmacm"), none of the macros ibv_query_port, ibv_reg_mr, ibv_reg_mr_iova, ibv_get_device_list, nothing at IBVERBS_*; defines no local ibv_*"
else
	bad "librdmaverbs.so.1 clashes: theirs [$(echo $clash)], macros [$(echo $macros)], at IBVERBS_* [$(echo $atibverbs)], local [$(echo $localibv)]"
fi
objdump -p "$lib" | awk '/Version definitions/ { d = 1 } /Version References/ { d = 0 } d' > "$tmp/defs"
grep -q ' IBVERBS_1.1$' "$tmp/defs" &&
	ok "librdmaverbs.so.1 still defines the retired node IBVERBS_1.1 (programs linked with 1.0.0 load)" ||
	bad "the retired node IBVERBS_1.1 is not defined"

# A program linked against 1.0.0, which defined ibv_open_device@IBVERBS_1.1,
# requires that node of librdmaverbs.so.1: it must still load (a stand-in for
# 1.0.0 is built here to link it against).
printf 'void *ibv_open_device(void *d) { return d; }\nint rdma_seterrno(int r) { return r; }\n' > "$tmp/old.c"
printf 'IBVERBS_1.1 { global: ibv_open_device; };\nRDMAVERBS_1.0 { global: rdma_seterrno; local: *; };\n' > "$tmp/old.map"
printf 'void *ibv_open_device(void *);\nint rdma_seterrno(int);\nint main(int c, char **v) { if (c > 9) ibv_open_device(v); return rdma_seterrno(0); }\n' > "$tmp/prog.c"
mkdir -p "$tmp/old" "$tmp/new"
cc -shared -fPIC -o "$tmp/old/librdmaverbs.so.1" -Wl,-soname,librdmaverbs.so.1 \
	-Wl,--version-script="$tmp/old.map" "$tmp/old.c"
ln -s librdmaverbs.so.1 "$tmp/old/librdmaverbs.so"
cc -o "$tmp/prog" "$tmp/prog.c" -L"$tmp/old" -lrdmaverbs
cp "$lib" "$tmp/new/librdmaverbs.so.1"
if objdump -p "$tmp/prog" | grep -A2 'required from librdmaverbs.so.1' | grep -q IBVERBS_1.1 &&
   LD_LIBRARY_PATH="$tmp/new" "$tmp/prog"; then
	ok "a program that requires IBVERBS_1.1 of librdmaverbs.so.1 (linked against 1.0.0) runs"
else
	bad "a program linked against 1.0.0 does not run with this librdmaverbs.so.1"
fi

# The linked library interposes nothing: a library of the program's that
# defines an ibv_post_send and rdma_get_local_addr of its own and calls them
# (through its PLT, as any function of default visibility is called) gets
# its own, though librdmaverbs.so.1 comes first in the program's link; the
# program's dlsym finds that library's, its dlvsym at RDMAVERBS_1.3 ours.
cat > "$tmp/own.c" <<'EOC'
int ibv_post_send(void *qp, void *wr, void **bad) { (void)qp; (void)wr; (void)bad; return 4242; }
void *rdma_get_local_addr(void *id) { (void)id; return (void *)4243; }
int own_send(void) { return ibv_post_send(0, 0, 0); }
void *own_addr(void) { return rdma_get_local_addr(0); }
EOC
cat > "$tmp/interposed.c" <<'EOC'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
int own_send(void);
void *own_addr(void);
int rdma_seterrno(int);
int main(void)
{
	void *ours = dlvsym(RTLD_DEFAULT, "ibv_post_send", "RDMAVERBS_1.3");
	void *named = dlsym(RTLD_DEFAULT, "ibv_post_send");
	Dl_info in_ours = { 0 }, in_named = { 0 };

	dladdr(ours, &in_ours);
	dladdr(named, &in_named);
	printf("%d %ld %s %s\n", own_send(), (long)own_addr(), in_ours.dli_fname ? in_ours.dli_fname : "-",
	       in_named.dli_fname ? in_named.dli_fname : "-");
	return rdma_seterrno(0);
}
EOC
cc -shared -fPIC -o "$tmp/new/libown.so" "$tmp/own.c"
ln -s librdmaverbs.so.1 "$tmp/new/librdmaverbs.so"
cc -o "$tmp/interposed" "$tmp/interposed.c" -L"$tmp/new" -Wl,--no-as-needed -lrdmaverbs -lown -ldl
got=$(LD_LIBRARY_PATH="$tmp/new" "$tmp/interposed" 2>&1 | sed "s|$tmp/new/||g") || true
if [ "$got" = "4242 4243 librdmaverbs.so.1 libown.so" ]; then
	ok "librdmaverbs.so.1 linked first interposes none of its 1.2 and 1.3 names: a library's own ibv_post_send and rdma_get_local_addr stay its own, dlsym finds that library's, dlvsym ours"
else
	bad "librdmaverbs.so.1 interposes: a program with its own ibv_post_send got '$got', want '4242 4243 librdmaverbs.so.1 libown.so'"
fi
# ... nor preloaded: the names of 1.2 and 1.3 it defines (ibv_post_send,
# ...) are hidden versions, which glibc binds for no reference without one.
got=$(LD_PRELOAD="$tmp/new/librdmaverbs.so.1" LD_LIBRARY_PATH="$tmp/new" "$tmp/interposed" 2>&1 |
	sed "s|$tmp/new/||g") || true
if [ "$got" = "4242 4243 librdmaverbs.so.1 libown.so" ]; then
	ok "librdmaverbs.so.1 preloaded (LD_PRELOAD) interposes none of them either"
else
	bad "librdmaverbs.so.1 preloaded interposes: got '$got', want '4242 4243 librdmaverbs.so.1 libown.so'"
fi
# ... and a call by name links to none of them: with only -lrdmaverbs, a
# reference to ibv_post_send without a version stays undefined.
printf 'int ibv_post_send(void *, void *, void **);\nint main(void) { return ibv_post_send(0, 0, 0); }\n' > "$tmp/byname.c"
if ! cc -o "$tmp/byname" "$tmp/byname.c" -L"$tmp/new" -lrdmaverbs 2> "$tmp/byname.err" &&
   grep -q "undefined reference to .ibv_post_send'" "$tmp/byname.err"; then
	ok "a program that calls ibv_post_send by name does not link against librdmaverbs.so.1 (undefined reference)"
else
	bad "a call of ibv_post_send by name linked against librdmaverbs.so.1: $(head -n 3 "$tmp/byname.err")"
fi

if objdump -p "$pre" | grep -q SONAME; then bad "the preload library has a soname"; else ok "the preload library has no soname"; fi
readelf -d "$pre" | grep -q 'FLAGS_1.*NODELETE' && ok "the preload library is NODELETE (never unloaded)" ||
	bad "the preload library is not NODELETE"
preloaded=$( { map_symbols "$dir/src/preload.map"; printf '%s\n' "$versioned"; } | sort)
same "the preload library's exports" "$preloaded" "$(exported "$pre")" &&
	ok "the preload library exports exactly the $(printf '%s\n' "$preloaded" | grep -c .) symbols of src/preload.map and the table's rows by version" ||
	fail=$((fail + 1))

# rdmaverbs(7) lists each function of verbs.h that the table has (in any
# build) once by group, and its refusal table has a row for each (by name,
# or the ibv_wr_* and ibv_wc_read_* rows for those the table does not name).
man7="$dir/man/rdmaverbs.7"
names13=$(awk -F '\t' '$5 == "infiniband/verbs.h" { print $1 }' "$full" | sort)
grouped=$(sed -n '/^\.SS The functions, by group/,/^Left out/p' "$man7" |
	sed -n 's/^\.BR\{0,1\} \([a-z_]*\).*/\1/p' | sort)
same "rdmaverbs(7)'s functions by group and the table's of verbs.h" "$names13" "$grouped" &&
	ok "rdmaverbs(7) lists the $(printf '%s\n' "$grouped" | wc -l) functions of verbs.h in the table by group, each once" ||
	fail=$((fail + 1))
table=$(sed -n '/^\.SS Refusals/,/^\.TE/p' "$man7" | awk -F '\t' 'NF == 3 { print $1 }')
missing=$(printf '%s\n' "$names13" | while read -r n; do
	printf '%s\n' "$table" | grep -qx "$n" && continue
	case $n in ibv_wc_read_*|ibv_wr_*) printf '%s\n' "$table" | grep -q "^${n%"${n#ibv_w?_}"}" && continue ;; esac
	echo "$n"; done)
[ -z "$missing" ] && ok "rdmaverbs(7)'s refusal table covers every function of verbs.h in the table" ||
	bad "rdmaverbs(7)'s refusal table lacks: $(echo $missing)"

# The USDT probes: one SDT note (provider rdmaverbs) per export, named as
# the function (a wrapped op's calls fire their function's); all with one
# semaphore, in the section .probes.
probes() {	# LIB: "name semaphore" per note
	readelf -n "$1" | awk '/Provider: rdmaverbs/ { p = 1 } p && /Name:/ { n = $2 }
		p && /Semaphore:/ { print n, $NF; p = 0 }' | sort
}
for l in "$lib" "$pre"; do
	want=$(printf '%s\n' "$linked" | awk '{ print $1 }' | sort)
	got=$(probes "$l")
	probes_at=$(readelf -SW "$l" | awk '$2 == ".probes" { print $4 }')
	sems=$(printf '%s\n' "$got" | awk '{ print $2 }' | sort -u)
	if [ "$(printf '%s\n' "$got" | awk '{ print $1 }')" = "$want" ] && [ "$(printf '%s\n' "$sems" | wc -l)" = 1 ] &&
	   [ -n "$probes_at" ] && [ $((sems - 0x$probes_at)) = 6 ]; then
		ok "$(basename "$l") has a USDT probe for each of its $(printf '%s\n' "$want" | wc -l) functions, one semaphore, at .probes + 6"
	else
		bad "$(basename "$l")'s USDT probes: $(printf '%s\n' "$got" | wc -l) notes, semaphores $sems, .probes at 0x$probes_at"
		printf '%s\n' "$want" > "$tmp/want"; printf '%s\n' "$got" | awk '{ print $1 }' | diff "$tmp/want" - || true
	fi
done

# No panic path: nothing in either library can abort its host with a Rust
# panic (observing formats by hand for this reason), so the panic handler
# and its formatting machinery are not linked in at all.
for l in "$lib" "$pre"; do
	if nm "$l" | grep -E 'rust_begin_unwind|panic_fmt|panicking' > "$tmp/panic"; then
		bad "$(basename "$l") contains a panic path:"; head -5 "$tmp/panic"
	else
		ok "no panic path linked into $(basename "$l")"
	fi
done
echo "symbols: $pass passed, $fail failed"
[ $fail -eq 0 ]

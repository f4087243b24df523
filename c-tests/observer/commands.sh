#!/usr/bin/env bash
# The commands on the fake provider: rdmaverbs-trace (-c, -o, stderr, exit
# statuses, a stock program through the fake libibverbs) and rdmaverbs-stat
# (the list, samples of a running program, the counts' files' rules, another
# user refused, a killed process's file removed).
# Usage: commands.sh BUILD_DIR SCRATCH_DIR
set -u
B=$(realpath "$1") S=$(realpath "$2")
TRACE=$B/bin/rdmaverbs-trace STAT=$B/bin/rdmaverbs-stat POSTER=$B/fake/poster
export RDMAVERBS_PRELOAD=$B/lib/librdmaverbs-preload.so
unset RDMAVERBS_TRACE RDMAVERBS_STATS RDMAVERBS_POLL_SPIN RDMAVERBS_STATS_SESSION LD_PRELOAD
# The counts' files of this test, away from the user's own.
export XDG_RUNTIME_DIR=$S/run
mkdir -p -m 700 "$XDG_RUNTIME_DIR"
DIR=$XDG_RUNTIME_DIR/rdmaverbs
pass=0 fail=0
ok() { echo "commands: ok: $*"; pass=$((pass + 1)); }
bad() { echo "commands: FAIL: $*"; fail=$((fail + 1)); }
files() { ls "$DIR" 2>/dev/null | grep -c '^[0-9]*$'; }

# -c: the table of a program making 37 rdma_post_send calls (8 bytes each).
"$TRACE" -c "$POSTER" 37 > "$S/c.out" 2> "$S/c.err"; rc=$?
row=$(awk '$1 == "rdma_post_send" { print $2, $3, $4, $5 }' "$S/c.err")
if [ $rc = 3 ] && [ "$row" = "37 296 0 -" ] && grep -q '^rdmaverbs-trace: counted in 1 process of' "$S/c.err" &&
   [ "$(files)" = 0 ] && ! grep -q '^rdmaverbs:' "$S/c.err"; then
	ok "-c: 37 rdma_post_send calls, 296 bytes, 0 errors; exit status 3, the program's; no file left"
else
	bad "-c: exit $rc, row '$row', $(files) files left:"; cat "$S/c.err"
fi
# -c over a fork: both processes counted, added up.
"$TRACE" -c "$POSTER" fork 5 2> "$S/cf.err"; rc=$?
row=$(awk '$1 == "rdma_post_send" { print $2 }' "$S/cf.err")
[ $rc = 3 ] && [ "$row" = 10 ] && grep -q 'counted in 2 processes' "$S/cf.err" && [ "$(files)" = 0 ] &&
	ok "-c: a program and its forked child counted, added up (5 + 5)" ||
	{ bad "-c fork: exit $rc, row '$row'"; cat "$S/cf.err"; }
# -c -o FILE: the table in FILE; a stock program (the ops of the fake
# libibverbs, wrapped by the preload library).
"$TRACE" -c -o "$S/c.table" "$B/bench/ops" send 100 2> "$S/co.err"; rc=$?
row=$(awk '$1 == "ibv_post_send" { print $2, $3, $4 }' "$S/c.table" 2>/dev/null)
[ $rc = 0 ] && [ "$row" = "100 200 0" ] && [ ! -s "$S/co.err" ] &&
	ok "-c -o FILE: a program never built against us: 100 ibv_post_send, 200 bytes, in FILE" ||
	{ bad "-c -o: exit $rc, row '$row'"; cat "$S/c.table" "$S/co.err"; }

# -o FILE: a line per call, with t=; nothing on stderr.
rm -f "$S/t.log"
"$TRACE" -o "$S/t.log" "$POSTER" 37 2> "$S/o.err"; rc=$?
# (one or more spaces after t=: padding, rdmaverbs(7))
n=$(grep -c '^rdmaverbs\[[0-9]*\]: rdma_post_send t=[0-9]*\.[0-9]\{9\} \+id=0x[0-9a-f]* .* ret=0$' "$S/t.log")
[ $rc = 3 ] && [ "$n" = 37 ] && [ ! -s "$S/o.err" ] &&
	ok "-o FILE: 37 trace lines with t= in FILE, stderr empty" ||
	{ bad "-o: exit $rc, $n lines"; cat "$S/o.err"; }
# ... and to stderr by default, relative to the current directory for -o.
(cd "$S" && "$TRACE" "$POSTER" 4 2> "$S/e.err"); rc=$?
n=$(grep -c ': rdma_post_send t=' "$S/e.err")
[ $rc = 3 ] && [ "$n" = 4 ] && ok "no -o: the 4 lines on stderr" || bad "stderr: exit $rc, $n lines"

# Exit statuses: a signal as 128+N; not found 127; not executable 126.
"$TRACE" "$POSTER" 1 0 15 2> /dev/null; rc=$?
[ $rc = 143 ] && ok "a program killed by SIGTERM: 143" || bad "SIGTERM: exit $rc, want 143"
"$TRACE" /nonexistent/program 2> "$S/nf.err"; rc=$?
[ $rc = 127 ] && grep -q 'rdmaverbs-trace: /nonexistent/program: command not found' "$S/nf.err" &&
	ok "a program that is not there: 127, '$(cat "$S/nf.err")'" || bad "not found: exit $rc, $(cat "$S/nf.err")"
printf '#!/bin/sh\n' > "$S/noexec"; chmod 644 "$S/noexec"
"$TRACE" "$S/noexec" 2> "$S/ne.err"; rc=$?
[ $rc = 126 ] && grep -q 'permission denied' "$S/ne.err" &&
	ok "a program that cannot be run: 126, permission denied" || bad "not executable: exit $rc"
"$TRACE" 2> /dev/null; rc=$?
[ $rc = 2 ] && ok "no PROGRAM: usage, 2" || bad "no PROGRAM: exit $rc"

# rdmaverbs-stat on a running program: a completion, then 200 posts, 10 ms
# apart.
RDMAVERBS_STATS=1 LD_PRELOAD=$RDMAVERBS_PRELOAD "$POSTER" comp 200 10 2> "$S/run.err" &
pid=$!
sleep 0.5
"$STAT" > "$S/list.out"; rc=$?
awk -v p=$pid '$1 == p && $2 == "poster"' "$S/list.out" | grep -q . && [ $rc = 0 ] &&
	ok "rdmaverbs-stat: lists $pid poster" || { bad "list: exit $rc"; cat "$S/list.out"; }
"$STAT" -n 1 $pid > "$S/one.out"; rc=$?
c1=$(awk '$1 == "rdma_post_send" { print $2 }' "$S/one.out")
# (the completion: a call that may block, none blocked; the time counted
# since the program started, about 0.5 s)
comp=$(awk '$1 == "rdma_get_send_comp" { print $2, $7 }' "$S/one.out")
since=$(sed -n 's/.*counting for \([0-9.]*\) s;.*/\1/p' "$S/one.out")
"$STAT" -i 0.2 -n 3 $pid > "$S/three.out"; rc3=$?
samples=$(grep -c '^rdmaverbs-stat: pid' "$S/three.out")
c3=$(awk '$1 == "rdma_post_send" { print $2 }' "$S/three.out" | tr '\n' ' ')
wait $pid
[ -e "$DIR/$pid" ] && kept=yes || kept=no
final=$(awk '$1 == "rdmaverbs:" && $2 == "rdma_post_send" { print $3 }' "$S/run.err")
read -r a b c <<< "$c3"
if [ $rc = 0 ] && [ $rc3 = 0 ] && [ "${c1:-0}" -gt 0 ] && [ "$c1" -lt 200 ] && [ "$final" = 200 ] &&
   [ "$samples" = 3 ] && [ "$a" -ge "$c1" ] && [ "$b" -gt "$a" ] && [ "$c" -gt "$b" ] &&
   [ "$comp" = "1 0" ] && awk -v t="${since:-0}" 'BEGIN { exit !(t >= 0.3 && t <= 5) }'; then
	ok "rdmaverbs-stat -n 1: $c1 calls, between 0 and the final $final; -i 0.2 -n 3: $c3; rdma_get_send_comp '$comp' (calls, blocked); counting for $since s"
else
	bad "samples: -n 1 exit $rc '$c1', -n 3 exit $rc3 '$c3' ($samples), final '$final', comp '$comp', since '$since'"
	cat "$S/one.out" "$S/three.out"
fi
"$STAT" -n 1 $pid > /dev/null 2> "$S/gone.err"; rc=$?
[ $rc = 1 ] && grep -q "no process $pid of yours" "$S/gone.err" && [ $kept = no ] && [ "$(files)" = 0 ] &&
	ok "after it exited: 'no process $pid of yours' (1); its file removed at exit" ||
	{ bad "after exit: exit $rc, its file left at exit: $kept, $(files) files"; cat "$S/gone.err"; }

# A killed program's file stays, until a command sees it is dead.
RDMAVERBS_STATS=1 LD_PRELOAD=$RDMAVERBS_PRELOAD "$POSTER" 1000 10 2> /dev/null &
pid=$!
sleep 0.3
kill -9 $pid; wait $pid 2> /dev/null
[ -f "$DIR/$pid" ] && left=yes || left=no
"$STAT" > "$S/list2.out"
[ $left = yes ] && [ ! -e "$DIR/$pid" ] && ! grep -q "^ *$pid " "$S/list2.out" &&
	ok "a SIGKILLed program's file: not listed, removed by rdmaverbs-stat" ||
	bad "killed: file left $left, now $(ls "$DIR")"

# A forked child that counts nothing leaves its parent's file alone; with
# no file (its directory refused), a child counts in memory, as its parent.
RDMAVERBS_STATS=1 LD_PRELOAD=$RDMAVERBS_PRELOAD "$POSTER" idlefork 6 600 2> /dev/null &
pid=$!
sleep 0.3
row=$(awk '$1 == "rdma_post_send" { print $2 }' <("$STAT" -n 1 $pid 2>&1))
wait $pid; rc=$?
[ $rc = 3 ] && [ "$row" = 6 ] && [ "$(files)" = 0 ] &&
	ok "a child that counts nothing: its parent's file kept (6 calls read after the child's exit)" ||
	bad "idle child: exit $rc, parent's row '$row', $(files) files"
mkdir -p -m 755 "$S/refused/rdmaverbs"; chmod 755 "$S/refused/rdmaverbs"
XDG_RUNTIME_DIR=$S/refused RDMAVERBS_STATS=1 LD_PRELOAD=$RDMAVERBS_PRELOAD "$POSTER" fork 4 2> "$S/nofile.err"; rc=$?
n=$(awk '$1 == "rdmaverbs:" && $2 == "rdma_post_send" && $3 == 4' "$S/nofile.err" | wc -l)
[ $rc = 3 ] && [ "$n" = 2 ] && [ -z "$(ls "$S/refused/rdmaverbs")" ] &&
	ok "no file (a refused directory): parent and child count in memory, a table each (4, 4)" ||
	{ bad "no file: exit $rc, $n tables of 4"; cat "$S/nofile.err"; }

# The rules of the files: the directory 0700, the file 0600, both the
# user's; another user reads nothing (root only: setpriv to nobody).
RDMAVERBS_STATS=1 LD_PRELOAD=$RDMAVERBS_PRELOAD "$POSTER" 200 10 2> /dev/null &
pid=$!
sleep 0.3
modes=$(stat -c '%a %U' "$DIR" "$DIR/$pid" | tr '\n' ' ')
[ "$modes" = "700 $(id -un) 600 $(id -un) " ] && ok "modes: $DIR 0700, $pid 0600, $(id -un)'s" ||
	bad "modes: $modes"
# Nobody runs a copy of rdmaverbs-stat from a directory of its own under
# /tmp (not $TMPDIR, nor the build tree: either may be under a home closed
# to others, as /root is); no folder of the user's changes its permissions.
other=
if [ "$(id -u)" != 0 ] || ! command -v setpriv > /dev/null; then
	other="needs root and setpriv"
else
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	T=$(mktemp -d /tmp/rdmaverbs-nobody.XXXXXX) && chmod 755 "$T" && cp "$STAT" "$T/" &&
		chmod 755 "$T/rdmaverbs-stat" || other="cannot make a directory under /tmp"
	[ -z "$other" ] && ! as_nobody "$T/rdmaverbs-stat" --help > /dev/null 2>&1 &&
		other="nobody cannot run a program from /tmp (mounted noexec?)"
fi
if [ -z "$other" ]; then
	as_nobody env -u XDG_RUNTIME_DIR "$T/rdmaverbs-stat" -n 1 $pid > /dev/null 2> "$S/other1.err"; r1=$?
	as_nobody env XDG_RUNTIME_DIR="$XDG_RUNTIME_DIR" "$T/rdmaverbs-stat" -n 1 $pid > /dev/null 2> "$S/other2.err"; r2=$?
	if [ $r1 = 1 ] && grep -q "no process $pid of yours" "$S/other1.err" && [ $r2 = 1 ] &&
	   grep -Eq 'not a directory of yours closed to others|Permission denied' "$S/other2.err" &&
	   ! grep -q rdma_post_send "$S/other2.err"; then
		ok "another user: 'no process $pid of yours' in its own directory; the owner's refused: $(cat "$S/other2.err")"
	else
		bad "another user: $r1 $(cat "$S/other1.err"); $r2 $(cat "$S/other2.err")"
	fi
	# A directory nobody may enter, but not nobody's: refused by its owner.
	mkdir -m 755 "$T/open" "$T/open/rdmaverbs"
	as_nobody env XDG_RUNTIME_DIR="$T/open" "$T/rdmaverbs-stat" > /dev/null 2> "$S/other3.err"; r3=$?
	[ $r3 = 1 ] && grep -q 'not a directory of yours closed to others' "$S/other3.err" &&
		ok "a directory open to others, or not the user's: refused ($(cat "$S/other3.err"))" ||
		bad "open directory: $r3 $(cat "$S/other3.err")"
else
	echo "commands: skipped: another user ($other)"
fi
[ -n "${T:-}" ] && rm -rf "$T"
wait $pid

echo "commands: $pass passed, $fail failed"
[ $fail = 0 ]

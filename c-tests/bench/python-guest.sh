#!/usr/bin/env bash
# make bench (and make bench-python), guest side: the Python RC ping-pong
# of c-tests/bench/pingpong.py, its four ways (rdmaverbs' raw functions,
# its objects, its async API, and pyverbs) alternated in each round of one
# guest boot, both sides the same way. Appends one line per run to OUT:
#   py-WAY ROUND latency_us 0
# (WAY raw, objects, async or pyverbs). Then runs the minimal RC client that
# bindings/python/README.md opens with, and its pyverbs equivalent
# (python-pyverbs-client.py), each once against pingpong.py's echo server,
# and appends "readme WHICH PASS|FAIL LINES" for each.
# Every way runs on /usr/bin/python3 (Debian's, where python3-pyverbs is),
# rdmaverbs from this tree's bindings/python.
# Usage: python-guest.sh BUILD_DIR OUT ROUNDS ROUNDTRIPS
set -u
B=$1 OUT=$2 ROUNDS=$3 RT=$4
. c-tests/e2e/guest/listen.sh
export PYTHONPATH=$PWD/bindings/python RDMAVERBS_LIBRARY=$B/lib/librdmaverbs.so.1
PY=/usr/bin/python3
port=7700
ways="raw objects async pyverbs"
if ! $PY -c 'import pyverbs.cmid' 2> /dev/null; then
	echo "softroce: python: no pyverbs (apt-get install python3-pyverbs): its runs skipped" >&2
	ways="raw objects async"
fi
# serve WAY PORT N: pingpong.py's server in the background, listening ($spid)
serve() {
	timeout 300 $PY c-tests/bench/pingpong.py "$1" server 192.0.2.1 "$2" "$3" > /tmp/py-server.log 2>&1 &
	spid=$!
	listening_on "$2" 60
}
py1() {	# WAY ROUND
	local line
	port=$((port + 1))
	serve "$1" $port "$RT" || { kill $spid; return 1; }
	line=$(timeout 300 $PY c-tests/bench/pingpong.py "$1" client 192.0.2.1 $port "$RT") ||
		{ echo "softroce: python $1 round $2 failed: $line" >&2; cat /tmp/py-server.log >&2; kill $spid; return 1; }
	wait $spid || { echo "softroce: python $1 round $2: the server failed" >&2; cat /tmp/py-server.log >&2; return 1; }
	echo "softroce: python $1 round $2: $line" >&2
	echo "py-$1 $2 ${line##*latency_us=} 0" >> "$OUT"
}
for r in $(seq "$ROUNDS"); do
	for w in $ways; do
		py1 "$w" "$r" || exit 1
	done
done
# The README's client (its first python block: ADDR PORT its arguments) and
# pyverbs' equivalent, against pingpong.py's server on port 7471: each must
# print its answer, "64 pong" (the README's: its length, then the bytes,
# NULs dropped here) or b'pong' (pyverbs'). Lines counted: those not blank.
awk '/^```python$/ { on = 1; next } on && /^```$/ { exit } on' bindings/python/README.md > /tmp/readme-client.py
for which in readme pyverbs; do
	file=/tmp/readme-client.py
	if [ $which = pyverbs ]; then
		file=c-tests/bench/python-pyverbs-client.py
		case $ways in *pyverbs*) ;; *) continue ;; esac
	fi
	port=7471
	serve objects $port 0 || { kill $spid; exit 1; }
	got=$(timeout 60 $PY "$file" 192.0.2.1 $port 2>&1 | tr -d '\0')
	wait $spid
	lines=$(grep -c . "$file")
	if [ "$got" = "b'pong'" ] || [ "$got" = "64 pong" ]; then
		echo "readme $which PASS $lines" >> "$OUT"
	else
		echo "softroce: python: the $which client printed: $got" >&2
		echo "readme $which FAIL $lines" >> "$OUT"
	fi
done

#!/usr/bin/env bash
# How each binding's programs run from this tree, once `make bindings` has
# built them into BUILD_DIR/bindings (the Python package, Node.js's koffi
# and the LuaJIT modules as their READMEs install them, in
# BUILD_DIR/bindings/install; the jar, the .dll, the Rust examples):
#
#   run.sh BUILD_DIR LANGUAGE layout|test|rc|verbs|objects|async|hello|echo [ARGS...]
#   run.sh --list                   the languages
#   run.sh --verbs                  the languages with a verbs client
#   run.sh --objects                those with the verbs exchange in their
#                                   object API, both roles
#   run.sh --async                  those with it in their async API too
#   run.sh --hello                  those with a minimal client (hello ADDR
#                                   PORT: its README's first example) and a
#                                   minimal echo server (echo ADDR PORT) of
#                                   rc-protocol.md's echo, against the C peer
#   run.sh --echo                   those whose minimal echo server (echo
#                                   ADDR PORT) serves one rdma_client
#
# layout prints the binding's layout lines (compared with the system
# headers' by test.sh), test runs its test, rc its example of
# rc-protocol.md, verbs its client of verbs-protocol.md. The one list of the languages and their commands:
# test.sh and the Soft-RoCE guest (c-tests/e2e/guest/guest.sh) run them through
# it. RDMAVERBS_LIBRARY points every binding but Rust's (linked, with
# build/'s rpath) at the tree's librdmaverbs.so.1; RDMAVERBS_RECORDER names
# the recording provider the tests post to (bindings/recorder/);
# RDMAVERBS_EXPORTS the exports list of that library's build
# (build/exports.tsv), which the tests hold the bindings to;
# RDMAVERBS_ALL_EXPORTS every row of the table (abi/exports.tsv), those the
# build lacks among them.
set -u
LANGUAGES="python java node rust csharp lua"
# Those whose verbs client is written (bindings/verbs-protocol.md says how);
# those that run the verbs exchange through their object API, as client and
# as server ("objects ROLE ADDR PORT"); and through their async API
# ("async ROLE ADDR PORT", which also shows another task running while it
# waits).
VERBS="python java node rust csharp lua"
OBJECTS="python java node rust csharp lua"
ASYNC="python node rust java csharp"
HELLO="python node lua"
ECHO="rust java csharp"
case ${1:-} in
--list) echo $LANGUAGES; exit 0 ;;
--verbs) echo $VERBS; exit 0 ;;
--objects) echo $OBJECTS; exit 0 ;;
--async) echo $ASYNC; exit 0 ;;
--hello) echo $HELLO; exit 0 ;;
--echo) echo $ECHO; exit 0 ;;
esac
[ $# -ge 3 ] || { echo "usage: run.sh BUILD_DIR LANGUAGE layout|test|rc|verbs|objects|async|hello|echo [ARGS...]" >&2; exit 2; }
cd "$(dirname "$0")/.."
B=$(realpath "$1") lang=$2 what=$3
shift 3
BIND=$B/bindings
export RDMAVERBS_LIBRARY=$B/lib/librdmaverbs.so.1
export RDMAVERBS_RECORDER=$BIND/librecorder.so
export RDMAVERBS_EXPORTS=$B/exports.tsv
export RDMAVERBS_ALL_EXPORTS=$PWD/abi/exports.tsv
JNA=${JNA_JAR:-/usr/share/java/jna.jar}
# The command that starts a JVM: the Soft-RoCE guest pins it to one CPU
# (c-tests/e2e/guest/guest.sh says why).
JAVA=${JAVA:-java}
PY=$BIND/install/python/venv/bin/python3
# Where the package is not installed (a root of another release: make
# test-bindings-layout), the checkout's, on the system's python3.
[ -x "$PY" ] || { PY=python3; export PYTHONPATH=$PWD/bindings/python; }
export NODE_PATH=$BIND/install/node/node_modules
RUST=$BIND/rust/debug/examples
# LuaJIT's modules from the rocks tree the README's luarocks make installed
# them into; where there is none (a root of another release), the checkout's.
ROCKS=$BIND/install/lua/lua_modules/share/lua/5.1
[ -d "$ROCKS" ] || ROCKS=$PWD/bindings/lua
export LUA_PATH="$ROCKS/?.lua;;"

case $lang:$what in
python:layout) exec "$PY" -m rdmaverbs --layout ;;
python:test) exec "$PY" -m unittest discover -s bindings/python/tests ;;
python:rc) exec "$PY" bindings/python/examples/rc.py "$@" ;;
python:verbs) exec "$PY" bindings/python/examples/verbs.py "$@" ;;
python:objects) exec "$PY" bindings/python/examples/verbs_objects.py "$@" ;;
python:async) exec "$PY" bindings/python/examples/verbs_async.py "$@" ;;
python:hello) exec "$PY" bindings/python/examples/hello.py "$@" ;;
python:echo) exec "$PY" bindings/python/examples/echo_server.py "$@" ;;
java:layout) exec $JAVA -cp "$BIND/rdmaverbs.jar:$JNA" org.rdmaverbs.Layout ;;
java:test) exec $JAVA -cp "$BIND/rdmaverbs.jar:$BIND/java/test:$JNA" org.rdmaverbs.BindingTest ;;
java:rc) exec $JAVA -cp "$BIND/rdmaverbs.jar:$BIND/java/examples:$JNA" Rc "$@" ;;
java:verbs) exec $JAVA -cp "$BIND/rdmaverbs.jar:$BIND/java/examples:$JNA" Verbs "$@" ;;
java:objects) exec $JAVA -cp "$BIND/rdmaverbs.jar:$BIND/java/examples:$JNA" VerbsObjects "$@" ;;
java:async) exec $JAVA -cp "$BIND/rdmaverbs.jar:$BIND/java/examples:$JNA" VerbsAsync "$@" ;;
java:echo) exec $JAVA -cp "$BIND/rdmaverbs.jar:$BIND/java/examples:$JNA" Echo "$@" ;;
node:layout) exec node -e 'console.log(require("rdmaverbs").layout().join("\n"))' ;;
node:test) node bindings/node/test/test.js && node --expose-gc bindings/node/test/objects.js &&
	node --expose-gc bindings/node/test/closing.js &&
	node bindings/node/test/simple.js && node bindings/node/test/close-waits.js &&
	exec node bindings/node/test/esm.mjs ;;
node:rc) exec node bindings/node/examples/rc.js "$@" ;;
node:verbs) exec node bindings/node/examples/verbs.js "$@" ;;
node:objects) exec node bindings/node/examples/objects.js "$@" ;;
node:async) exec node bindings/node/examples/async.js "$@" ;;
node:hello) exec node bindings/node/examples/hello.js "$@" ;;
node:echo) exec node bindings/node/examples/echo-server.js "$@" ;;
rust:layout) exec "$RUST/layout" ;;
rust:test)
	cd bindings/rust &&
		exec env PKG_CONFIG_PATH="$B/pkgconfig" CARGO_TARGET_DIR="$BIND/rust" \
			cargo test -q --locked --workspace --all-features ;;
rust:rc) exec "$RUST/rc" "$@" ;;
rust:verbs) exec "$RUST/verbs" "$@" ;;
rust:objects) exec "$RUST/objects" "$@" ;;
rust:async) exec "$RUST/verbs_async" "$@" ;;
rust:echo) exec "$RUST/echo" "$@" ;;
csharp:layout) exec mono "$BIND/RdmaVerbsTest.exe" --layout ;;
csharp:test) exec mono "$BIND/RdmaVerbsTest.exe" ;;
csharp:rc) exec mono "$BIND/Rc.exe" "$@" ;;
csharp:verbs) exec mono "$BIND/Verbs.exe" "$@" ;;
csharp:objects) exec mono "$BIND/VerbsObjects.exe" "$@" ;;
csharp:async) exec mono "$BIND/VerbsAsync.exe" "$@" ;;
csharp:echo) exec mono "$BIND/Echo.exe" "$@" ;;
lua:layout) exec luajit -e 'for _, l in ipairs(require("rdmaverbs").layout()) do print(l) end' ;;
lua:test) luajit bindings/lua/test/test.lua && luajit bindings/lua/test/objects.lua &&
	luajit bindings/lua/test/closing.lua &&
	luajit bindings/lua/test/simple.lua && exec luajit bindings/lua/test/coroutines.lua ;;
lua:rc) exec luajit bindings/lua/examples/rc.lua "$@" ;;
lua:verbs) exec luajit bindings/lua/examples/verbs.lua "$@" ;;
lua:objects) exec luajit bindings/lua/examples/objects.lua "$@" ;;
lua:hello) exec luajit bindings/lua/examples/hello.lua "$@" ;;
lua:echo) exec luajit bindings/lua/examples/echo-server.lua "$@" ;;
*) echo "run.sh: no '$what' for '$lang' (languages: $LANGUAGES)" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# make bindings: each binding installed as its README says, from a fresh folder
# outside the tree (a new /tmp/rdmaverbs-install-LANGUAGE.XXXXXX, which
# BUILD_DIR/bindings/install/LANGUAGE links to, for run.sh), and a program that uses it.
#
#   install.sh BUILD_DIR LANGUAGE
#   install.sh --block LANGUAGE     prints the README's install block
#
# The commands are the README's own: the ```sh block that follows the line
# '<!-- install: ... -->' in bindings/LANGUAGE/README.md, run as written in
# one bash, but for its first line, 'CHECKOUT=...' (where the reader cloned
# rdmaverbs), which becomes this tree. The library is this tree's
# (RDMAVERBS_LIBRARY; Rust: the README's PKG_CONFIG_PATH and LD_LIBRARY_PATH
# lines). The program, written into the folder first (Prog.java, Prog.cs,
# prog.lua) or run after the block (Python, Node.js, Rust), checks that the
# package it loaded is the installed one and that it calls librdmaverbs and
# libibverbs. Its output is in BUILD_DIR/bindings/install/LANGUAGE.log. Outside the
# tree as a reader's folder is: no Cargo workspace, package.json or node_modules
# above it (npm would take that folder for the project), nothing of the checkout's.
# Layouts are not checked here but by bindings/layout.sh (make test-bindings,
# after this): each binding's struct sizes, offsets and constants against the
# system headers' (generate.py --layout-c), Python's and LuaJIT's from the
# packages installed here (run.sh runs the venv's wheel and the rocks tree).
set -euo pipefail
[ $# = 2 ] || { echo "usage: install.sh BUILD_DIR|--block LANGUAGE" >&2; exit 2; }
cd "$(dirname "$0")/../.."
lang=$2
block=$(awk '/^<!-- install:/ { armed = 1; next }
	armed && /^```sh$/ { inside = 1; next }
	inside && /^```$/ { exit }
	inside { print }' "bindings/$lang/README.md")
case $block in
CHECKOUT=*) ;;
*) echo "install.sh: bindings/$lang/README.md: no install block starting with CHECKOUT=" >&2; exit 1 ;;
esac
if [ "$1" = --block ]; then
	printf '%s\n' "$block"
	exit 0
fi
TREE=$PWD B=$(realpath "$1")
LINK=$B/bindings/install/$lang LOG=$B/bindings/install/$lang.log
export RDMAVERBS_LIBRARY=$B/lib/librdmaverbs.so.1
script="CHECKOUT=$TREE
$(printf '%s\n' "$block" | tail -n +2)"

# The last install's folder goes with its link.
if [ -L "$LINK" ]; then rm -rf "$(readlink "$LINK")"; fi
rm -rf "$LINK" && mkdir -p "$(dirname "$LINK")"
DIR=$(mktemp -d "/tmp/rdmaverbs-install-$lang.XXXXXX")
ln -s "$DIR" "$LINK"
cd "$DIR"
# What this language writes first, and $check (bindings/install/LANGUAGE.sh).
[ -f "$TREE/bindings/install/$lang.sh" ] || { echo "install.sh: no language '$lang'" >&2; exit 2; }
# shellcheck source=/dev/null
. "$TREE/bindings/install/$lang.sh"

printf '%s\n' "$script" "$check" > install-steps.sh
# Rust, Java and C# install offline (their READMEs say from what): with
# no network at all when unshare can take it away.
nonet=
case $lang in rust | java | csharp) if unshare -n true 2> /dev/null; then nonet="unshare -n"; fi ;; esac
if $nonet bash -e -o pipefail install-steps.sh > "$LOG" 2>&1; then
	grep ': installed: ok$' "$LOG"
else
	echo "install.sh: $lang: the install of bindings/$lang/README.md failed, from $DIR:"
	sed 's/^/    /' "$LOG"
	exit 1
fi

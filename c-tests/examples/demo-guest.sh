#!/usr/bin/env bash
# The demo's guest side: which library the demo uses, then the session.
set -eu
echo "demo: rxe0 is up on 192.0.2.1 (Soft-RoCE, inside the guest)"
echo "demo: $1 calls rdma_post_send etc. in: $(ldd "$1" | awk '/librdmaverbs/ { print $3 }')"
timeout 60 "$1"
echo
echo "demo: once more with RDMAVERBS_STATS=1: the library counts every call and prints at exit"
RDMAVERBS_STATS=1 timeout 60 "$1" 2>&1 | grep '^rdmaverbs'

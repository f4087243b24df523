# ---- every rdma-core release its users have (c-tests/releases/) ----

# Every rdma-core its users have that Debian's archive holds: the quick
# tier's library part and the bindings' layouts in roots of Debian 11, 13
# and unstable, each build's fake suites under every newer libibverbs, the
# .deb of Debian 13 (c-tests/releases/rdma-core.sh; roots kept in
# /var/cache/rdmaverbs/roots). Run after test-quick: the host's build is
# one of those run under the newer libibverbs.
test-rdma-core: vendor
	c-tests/releases/rdma-core.sh $(B)

.PHONY: test-rdma-core

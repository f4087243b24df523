# Sourced by the guest scripts: waits for a server's rdma_cm listener.
#
# listening_on PORT [SECONDS]: 0 once an rdma_cm id of this guest is in state
# LISTEN on PORT (rdma(8): `rdma resource show cm_id`), 1 after SECONDS
# (default 30). A client started before that is rejected (REJECTED, reason
# 8: no listener); a fixed sleep was not always long enough under TCG
# (perftest's server took over 2 s once, and its client then crashed).
# perftest's server listens twice (its parameters' connection, then the
# data's), and its client does not wait for the second: the callers run a
# rejected client again (linux-rdma/perftest#93).
listening_on() {
	local i
	for i in $(seq $((${2:-30} * 10))); do
		rdma resource show cm_id 2> /dev/null | grep -Eq "state LISTEN .*:$1( |\$)" && return 0
		sleep 0.1
	done
	echo "listening_on: nothing listens on port $1 after ${2:-30} s" >&2
	return 1
}

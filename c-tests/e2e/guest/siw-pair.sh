# The soft-iWARP steps of the two-host pair: sourced by pair-guest.sh in
# both guests, after the rxe steps and before host A powers off. Both hosts
# take rxe0 away, load siw.ko (OUT/siw.ko, which pair.sh put there from
# build-siw.sh's cache) after its dependencies and add siw0 on the card;
# then wire.c's stream under the link cut and with the server killed, both
# builds, as the rxe steps run them; then siw0 goes and rxe0 comes back for
# the power-off.
#
# siw's transport is TCP: a request to a peer cut off is retransmitted by
# TCP, not by the RDMA device, for tcp_retries2 rounds (15 by default, some
# 15 minutes); both hosts set 3 (a few seconds) while siw runs, as the rxe
# steps set retry_cnt 6, so that the transport gives up, not the program's
# bounded wait. The client runs with --stop-on-error: siw answers no request
# posted to a QP already in the error state (wire.c says more).
#
# Uses pair-guest.sh's role, out, sync, dev, B, A, N, K, mark, await, both
# and pair. Logs: OUT/siw-setup.ROLE.log, OUT/wire-siw-FAULT-BUILD.{a,b}.log.
siw_pair_up() {
	local ko=$out/siw.ko m i
	[ -s "$ko" ] || { echo "no $ko: build-siw.sh could not build it (pair.sh says why)"; return 1; }
	[ "$(modinfo -F vermagic "$ko" | awk '{ print $1 }')" = "$(uname -r)" ] ||
		{ echo "$ko is not for kernel $(uname -r)"; return 1; }
	rdma link delete rxe0 || return 1
	for m in $(modinfo -F depends "$ko" | tr , ' '); do modprobe "$m" || return 1; done
	insmod "$ko" || return 1
	rdma link add siw0 type siw netdev "$dev" || return 1
	siw_active || return 1
	sysctl -w net.ipv4.tcp_retries2=3 || return 1
	rdma link show
}
siw_active() {
	local i
	for i in $(seq 100); do rdma link show siw0/1 2> /dev/null | grep -q 'state ACTIVE' && return 0; sleep 0.1; done
	echo "siw0 not ACTIVE"
	rdma link show
	return 1
}
both siw.set
siw_pair_up > "$out/siw-setup.$role.log" 2>&1 && mark "siw-up.$role"
both siw.tried
if [ -e "$sync/siw-up.a" ] && [ -e "$sync/siw-up.b" ]; then
	for f in cut kill; do
		for v in ours stock; do
			both "wire-siw-$f-$v.set"
			case $f in
			cut)	# as rxe's: the client's guest cuts its own card
				pair "wire-siw-$f-$v" 120 "$B/$v/wire" server PORT --time-limit 15 -- \
					"$B/$v/wire" client $A PORT $N $K cut --time-limit 30 --stop-on-error
				[ "$role" = b ] && ip link set "$dev" up
				both "wire-siw-$f-$v.up"
				# siw0 made again on both, as rxe0 is after a cut
				rdma link delete siw0
				rdma link add siw0 type siw netdev "$dev"
				siw_active >> "$out/siw-setup.$role.log" 2>&1 ;;
			kill)
				pair "wire-siw-$f-$v" 120 "$B/$v/wire" server PORT -- \
					"$B/$v/wire" client $A PORT $N $K kill --time-limit 30 --stop-on-error ;;
			esac
			both "wire-siw-$f-$v.done"
		done
	done
fi
# rxe0 back, TCP's default, for the power-off.
sysctl -w net.ipv4.tcp_retries2=15 > /dev/null
rdma link delete siw0 2> /dev/null
rdma link add rxe0 type rxe netdev "$dev"
for i in $(seq 100); do rdma link show rxe0/1 | grep -q 'state ACTIVE' && break; sleep 0.1; done
both siw.done

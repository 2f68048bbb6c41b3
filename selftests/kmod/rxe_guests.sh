#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Real RoCE between two guests joined by mp0's two planes, for the
# kernels whose rdma_rxe has no network namespace support (6.1, 6.12:
# Documentation/rxe.md): each guest is one host in its initial namespace,
# with two NICs (virtio, a qemu socket netdev each), one plane each.  The
# tests are rxe.sh's: ibv_rc_pingpong over both planes, with the ICRC of
# rxe's packets checked; ib_send_lat; ib_write_bw with plane 1 cut in the
# middle.  selftests/vm/rxe-guests boots the pair; this script runs in
# each, MPLANE_RXE_ROLE=client (host a, 10.98.0.1, the tests) or server
# (host b, 10.98.0.2, the servers the tests talk to, one after another).
#
# As rxe.sh: rxe runs on a VXLAN device over mp0, as mp0 has no
# link-layer address for rxe to send to; policy rr spreads it over both
# planes.
# shellcheck source-path=SCRIPTDIR source=../lib/lib.sh
source "$(dirname "$0")/../lib/lib.sh"
# shellcheck source=../lib/mplane.sh
source "$(dirname "$0")/../lib/mplane.sh"
# shellcheck source=../lib/rxe.sh
source "$(dirname "$0")/../lib/rxe.sh"

ROLE=${MPLANE_RXE_ROLE:?MPLANE_RXE_ROLE=client or server}
RXE=rxe0 PORT=18515
TMPD=$(mktemp -d /tmp/mplane-rxe2.XXXXXX)
trap 'rdma link delete $RXE 2>/dev/null; rm -rf "$TMPD"; _lib_exit' EXIT

if [ "$ROLE" = client ]; then
	SELF=1 PEER=2 ME4=$MP_A4 ME6=$MP_A6 PEER4=$MP_B4 PEER6=$MP_B6
else
	SELF=2 PEER=1 ME4=$MP_B4 ME6=$MP_B6 PEER4=$MP_A4 PEER6=$MP_A6
fi
VX_ME=10.98.0.$SELF VX_PEER=10.98.0.$PEER

# rail_by_mac PLANE: the NIC that selftests/vm/rxe-guests gave this host
# for PLANE (its MAC 02:00:00:00:0<host>:0<plane>).
rail_by_mac() {
	local want dev
	want=02:00:00:00:0$(printf '%x' $((SELF + 9))):0$1
	for dev in /sys/class/net/*; do
		[ "$(cat "$dev/address" 2>/dev/null)" = "$want" ] && { basename "$dev"; return 0; }
	done
	return 1
}

# nics_load: virtio_net, by default with napi_tx=0, so that a packet
# leaves its sender's count as the NIC takes it: a downed NIC then holds
# none of rxe's count, as with a driver that frees its ring when the
# device is closed (mlx5's does).  With TX NAPI
# (MPLANE_TEST_RXE_NAPI_TX=1) a downed virtio NIC keeps rxe's queued
# packets for good, and 6.1's rxe, counting them, stalls
# (Documentation/rxe.md).
nics_load() {
	local want=${MPLANE_TEST_RXE_NAPI_TX:-0} got
	modprobe virtio_net napi_tx="$want" 2>/dev/null || true
	got=$(cat /sys/module/virtio_net/parameters/napi_tx 2>/dev/null)
	[ "$got" = "$([ "$want" = 1 ] && echo Y || echo N)" ] ||
		fail "virtio_net's napi_tx is '$got', not $want (loaded before this test?)"
}

peer_up() { ping -c 1 -W 1 "$VX_PEER" >/dev/null 2>&1; }

# This host: its two rails renamed r0 and r1, mp0 over them (rr), vx0
# over mp0, rxe on vx0, and the peer answering on vx0.
host_up() {
	local i dev
	nics_load
	for i in 0 1; do
		busywait 10000 eval "rail_by_mac $i >/dev/null" || fail "no NIC for plane $i"
		dev=$(rail_by_mac $i)
		ip link set dev "$dev" name "r$i" || fail "renaming $dev"
	done
	mplane_load
	_mp_side 2 r "$SELF" "$PEER" "$ME4" "$ME6" "$PEER4" "$PEER6" | _mp_batch ""
	# rr by default, so that both planes carry every QP (MPLANE_TEST_RXE_POLICY
	# another: rr reorders a QP's packets, which rxe takes as loss).
	"$MPLANECTL" link set mp0 policy "${MPLANE_TEST_RXE_POLICY:-rr}" ||
		fail "policy ${MPLANE_TEST_RXE_POLICY:-rr}"
	# MPLANE_TEST_RXE_REORDER_US: mp0 resequences rxe's requests
	# (Documentation/plb.md); off by default.
	"$MPLANECTL" link set mp0 reorder-window "${MPLANE_TEST_RXE_REORDER_US:-0}" ||
		fail "reorder-window ${MPLANE_TEST_RXE_REORDER_US:-0}"
	# Probes to the peer, as a fabric's mp0s have: the host whose rail
	# stays up (b, under the default cut) learns of the dead plane from
	# them, in 3 missed probes, and stops sending into it.
	"$MPLANECTL" link set mp0 peers "$PEER4" probe-interval 20000 probe-misses 3 ||
		fail "probe peers"
	printf '%s\n' "link add vx0 type vxlan id 42 local $ME4 remote $PEER4 dstport 4789 dev mp0" \
		"addr add $VX_ME/24 dev vx0" "link set vx0 up" | _mp_batch ""
	modprobe crc32_generic 2>/dev/null || true
	modprobe rdma_rxe || skip "no rdma_rxe module"
	rdma link add $RXE type rxe netdev vx0 || fail "rdma link add $RXE over vx0"
	busywait 10000 rxe_has_gid $RXE "$SELF" || fail "no RoCE v2 GID for $VX_ME"
	G=$(rxe_gid_index $RXE "$SELF")
	# The other guest boots on its own time.
	slowwait 120 peer_up || fail "no answer from $VX_PEER over vx0"
}

# client OUT CMD...: CMD, tried again while the peer's server is not yet
# listening (it starts once the one before it has ended), for up to 60 s;
# its status in client_rc, and as the function's.
client() {
	local out=$1 until=$((EPOCHSECONDS + 60))
	shift
	while :; do
		client_rc=0
		timeout 60 "$@" >"$out" 2>&1 || client_rc=$?
		[ "$client_rc" -ne 0 ] && grep -q "Couldn't connect to" "$out" &&
			[ $EPOCHSECONDS -lt $until ] || break
		sleep 0.3
	done
	log "$1: status $client_rc, $(tail -n 2 "$out" | tr -s ' \n' ' ')"
	return "$client_rc"
}

# server CMD...: one of the peer's servers, its output kept; one that
# still runs after 50 s (its client gone, or its QP stalled) is
# explained, from this side, before its timeout ends it.
server() {
	local rc=0
	timeout 120 "$@" -p $PORT >"$TMPD/srv" 2>&1 &
	rxe_wait_or_explain $! "" $RXE "$TMPD/srv" 50 || rc=$?
	log "$1 served: status $rc, $(tail -n 2 "$TMPD/srv" | tr -s ' \n' ' ')"
	assert_eq "$1's status" "$rc" 0
}

test_rc_pingpong_both_planes() {
	local p0 p1
	if [ "$ROLE" = server ]; then
		server ibv_rc_pingpong -d $RXE -g "$G" -n 50 -s 4096
		return
	fi
	p0=$(rxe_tx "" 0) p1=$(rxe_tx "" 1)
	rxe_icrc_start "" vx0
	client "$TMPD/pp" ibv_rc_pingpong -d $RXE -g "$G" -p $PORT -n 50 -s 4096 "$VX_PEER" || true
	assert_eq "client status" "$client_rc" 0
	rxe_icrc_check
	rxe_check_pingpong "$TMPD/pp" $(($(rxe_tx "" 0) - p0)) $(($(rxe_tx "" 1) - p1))
}

test_send_lat() {
	if [ "$ROLE" = server ]; then
		server ib_send_lat -d $RXE -x "$G" -n 100 -F
		return
	fi
	client "$TMPD/lat" ib_send_lat -d $RXE -x "$G" -p $PORT -n 100 -F "$VX_PEER" || true
	assert_eq "client status" "$client_rc" 0
	rxe_check_send_lat "$TMPD/lat"
}

# cut_plane1: this host takes its plane-1 rail down (ip link set down).
# MPLANE_TEST_RXE_CUT=carrier cuts it as a pulled cable does instead:
# selftests/vm/rxe-guests takes plane 1's link down at both guests from
# outside, when asked through the results share.  Either way the downed
# NIC keeps what rxe had queued on it; with TX NAPI on, 6.1's rxe counts
# those packets as in flight and can wait for them for good (nics_load).
cut_plane1() {
	if [ "${MPLANE_TEST_RXE_CUT:-down}" = down ]; then
		ip link set r1 down
		return
	fi
	touch /tmp/results/cut-plane1
	busywait 10000 carrier_gone r1 ||
		fail "plane 1's carrier still up 10 s after the cut was asked for"
}
carrier_gone() { [ "$(cat "/sys/class/net/$1/carrier" 2>/dev/null)" != 1 ]; }

# ib_write_bw for 4 s; once plane 1 carries its data, this host's plane-1
# rail loses its carrier.  The run ends on its own, with bandwidth, and
# the cut plane sends nothing more.
test_write_bw_plane_cut() {
	local p1_start p0_cut p1_cut cpid
	rxe_mark $RXE
	if [ "$ROLE" = server ]; then
		server ib_write_bw -d $RXE -x "$G" -s 4096 -D 4 -F
		rxe_moved $RXE
		rxe_reorder_moved ""
		# Whichever cut: this host's mp0 has left the plane too.
		assert_eq "this host's plane 1 after the cut" "$(mp_state "" 1)" down
		return
	fi
	p1_start=$(rxe_tx "" 1)
	client "$TMPD/bw" ib_write_bw -d $RXE -x "$G" -p $PORT -s 4096 -D 4 -F \
		"$VX_PEER" &
	cpid=$!
	busywait 30000 rxe_tx_grew "" 1 "$p1_start" 100 || fail "plane 1 carried no RDMA writes"
	cut_plane1
	p0_cut=$(rxe_tx "" 0) p1_cut=$(rxe_tx "" 1)
	# -D 4 ends in seconds; a QP that stalls is looked at before the
	# client's 60 s timeout ends it (Documentation/rxe.md: 6.1, once).
	rxe_wait_or_explain "$cpid" "" $RXE "$TMPD/bw" 40 && client_rc=0 || client_rc=$?
	[ "$client_rc" = 0 ] || rxe_explain "" $RXE "$TMPD/bw"
	assert_eq "client status" "$client_rc" 0
	rxe_moved $RXE
	rxe_reorder_moved ""
	rxe_check_write_bw "$TMPD/bw" "" "$p0_cut" "$p1_cut"
}

G=
host_up
log "$ROLE: mp0 over $(ip -o link show master mp0 | awk -F': ' '{ printf "%s ", $2 }')GID index $G"
ktap_run test_rc_pingpong_both_planes test_send_lat test_write_bw_plane_cut

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Real RoCE between two hosts joined by mp0's two planes: Soft-RoCE
# (rdma_rxe), ibv_rc_pingpong and perftest (ib_send_lat, ib_write_bw),
# a plane cut in the middle of a run.  Documentation/rxe.md says why.
#
# rxe cannot run on mp0 itself: mp0 has no link-layer address
# (ARPHRD_NONE, IFF_NOARP), so the destination MAC that ib_core resolves
# for every peer is all zeroes, the same as mp0's own, and rxe_prepare()
# marks every packet RXE_LOOPBACK_MASK: it goes back into the sender's
# own rxe and never reaches mp0.  So rxe runs on a VXLAN device over mp0,
# an Ethernet device whose frames mp0 carries, one UDP datagram each, over
# both planes (policy rr).
#
# rxe binds its UDP socket and looks up its routes in init_net only
# before the kernel's rxe_ns.c (Debian's 6.1 and 6.12 have none): the
# hosts here are namespaces, so those kernels skip, with the reason.
#
# One pair of hosts serves all the tests: its set-up is most of the
# script's time under TCG (make check has a budget).
# shellcheck source-path=SCRIPTDIR source=../lib/lib.sh
source "$(dirname "$0")/../lib/lib.sh"
# shellcheck source=../lib/mplane.sh
source "$(dirname "$0")/../lib/mplane.sh"
# shellcheck source=../lib/rxe.sh
source "$(dirname "$0")/../lib/rxe.sh"

RXA=mprxa$$ RXB=mprxb$$
VX_A=10.98.0.1 VX_B=10.98.0.2
PORT=18515
TMPD=$(mktemp -d /tmp/mplane-rxe.XXXXXX)
why_skip=
pair_ns=
loaded=()

rxe_cleanup() {
	rdma link delete "$RXA" 2>/dev/null || true
	rdma link delete "$RXB" 2>/dev/null || true
	# shellcheck disable=SC2086
	[ -z "$pair_ns" ] || _ns_del $pair_ns
	# The modules this script loaded, users first.
	for t in "${loaded[@]}"; do modprobe -r "$t" 2>/dev/null || true; done
	rm -rf "$TMPD"
}
trap 'rxe_cleanup; _lib_exit' EXIT

# The pair, once: ha and hb with mp0 over two planes (rr), vx0 over mp0
# (10.98.0.1 and .2/24), rxe on each vx0.  Any reason to skip is kept in
# why_skip, for every test to report.
rxe_pair() {
	local t
	for t in rdma ibv_rc_pingpong ib_send_lat ib_write_bw ss; do
		command -v $t >/dev/null || { why_skip="no $t (scripts/deps.sh test)"; return 0; }
	done
	[ -x "$MPLANECTL" ] || { why_skip="no $MPLANECTL (make tools)"; return 0; }
	# rdma_rxe needs crc32 by name, which no module alias provides
	# (7.x has crc32 in the library, and no crc32_generic).
	for t in vxlan rdma_rxe ib_uverbs ib_uverbs_support ib_core crc32_generic; do
		[ -e /sys/module/$t ] || loaded+=("$t")
	done
	modprobe crc32_generic 2>/dev/null || true
	modprobe rdma_rxe 2>/dev/null || { why_skip="no rdma_rxe module"; return 0; }
	# rxe_ns.c keeps one UDP socket per namespace; without it
	# (rxe_net_ipv4_init() on init_net, rxe_find_route4() on init_net)
	# an rxe in a namespace never sends or receives a packet.
	grep -q ' rxe_ns_pernet_sk4' /proc/kallsyms || {
		why_skip="rdma_rxe of $(uname -r) has no network namespace support (its UDP socket and route lookup are init_net's: Documentation/rxe.md)"
		return 0; }
	modprobe vxlan 2>/dev/null || { why_skip="no vxlan module"; return 0; }
	mp_pair 2 || return 1
	# Kept out of the registry, which each test's end empties.
	pair_ns="$ha $hb"
	: >"$_ns_registry"
	"$MPLANECTL" -n "$ha" link set mp0 policy rr reorder-window "${MPLANE_TEST_RXE_REORDER_US:-0}"
	"$MPLANECTL" -n "$hb" link set mp0 policy rr reorder-window "${MPLANE_TEST_RXE_REORDER_US:-0}"
	printf '%s\n' "link add vx0 type vxlan id 42 local $MP_A4 remote $MP_B4 dstport 4789 dev mp0" \
		"addr add $VX_A/24 dev vx0" "link set vx0 up" | _mp_batch "$ha"
	printf '%s\n' "link add vx0 type vxlan id 42 local $MP_B4 remote $MP_A4 dstport 4789 dev mp0" \
		"addr add $VX_B/24 dev vx0" "link set vx0 up" | _mp_batch "$hb"
	ip netns exec "$ha" rdma link add "$RXA" type rxe netdev vx0 || return 1
	ip netns exec "$hb" rdma link add "$RXB" type rxe netdev vx0 || return 1
	busywait 10000 rxe_has_gid "$RXA" 1 || return 1
	busywait 10000 rxe_has_gid "$RXB" 2 || return 1
	GA=$(rxe_gid_index "$RXA" 1) GB=$(rxe_gid_index "$RXB" 2)
}

need_pair() {
	[ -z "$why_skip" ] || skip "$why_skip"
	[ -n "$GB" ] || fail "setting up the pair failed"
}

listening() { [ -n "$(ip netns exec "$hb" ss -Hltn "sport = :$PORT")" ]; }

# run_pair OUT SERVER_CMD -- CLIENT_CMD: the server in hb, the client in
# ha once the server listens; the client's status in $client_rc, its
# output in OUT, the server's status in $server_rc.
run_pair() {
	local out=$1 srv=()
	shift
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	ip netns exec "$hb" timeout 30 "${srv[@]}" >"$out.srv" 2>&1 &
	local spid=$! t0=$EPOCHSECONDS
	busywait 10000 listening || { kill "$spid"; fail "${srv[0]} never listened"; }
	log "${srv[0]} listened after $((EPOCHSECONDS - t0)) s"
	client_rc=0
	ip netns exec "$ha" timeout 30 "$@" >"$out" 2>&1 || client_rc=$?
	server_rc=0
	wait "$spid" || server_rc=$?
	log "${srv[0]} done after $((EPOCHSECONDS - t0)) s"
	log "$(tail -n 3 "$out" | tr -s ' \n' ' ')"
}

# ibv_rc_pingpong over both planes, with the ICRC of rxe's packets on
# ha's vx0 checked on the way (rxe_icrc_start).
test_rc_pingpong_both_planes() {
	local p0 p1
	need_pair
	p0=$(rxe_tx "$ha" 0) p1=$(rxe_tx "$ha" 1)
	rxe_icrc_start "$ha" vx0
	run_pair "$TMPD/pp" ibv_rc_pingpong -d "$RXB" -g "$GB" -n 50 -s 4096 -- \
		ibv_rc_pingpong -d "$RXA" -g "$GA" -n 50 -s 4096 $VX_B
	assert_eq "client status" "$client_rc" 0
	assert_eq "server status" "$server_rc" 0
	rxe_icrc_check
	rxe_check_pingpong "$TMPD/pp" $(($(rxe_tx "$ha" 0) - p0)) $(($(rxe_tx "$ha" 1) - p1))
}

test_send_lat() {
	need_pair
	run_pair "$TMPD/lat" ib_send_lat -d "$RXB" -x "$GB" -n 100 -F -- \
		ib_send_lat -d "$RXA" -x "$GA" -n 100 -F $VX_B
	assert_eq "client status" "$client_rc" 0
	assert_eq "server status" "$server_rc" 0
	rxe_check_send_lat "$TMPD/lat"
}

# ib_write_bw for 4 s; once plane 1 carries its data, ha's plane-1 rail
# goes down.  The run ends on its own, with bandwidth, and the cut plane
# sends nothing more.  In MB/s, perftest's default: a TCG guest's rxe
# moves a few MB/s, which --report_gbits rounds to 0.00 Gb/s.
test_write_bw_plane_cut() {
	local p1_start p0_cut p1_cut spid
	need_pair
	rxe_mark "$RXA"
	p1_start=$(rxe_tx "$ha" 1)
	ip netns exec "$hb" timeout 30 ib_write_bw -d "$RXB" -x "$GB" -s 4096 -D 4 -F \
		>"$TMPD/bw.srv" 2>&1 &
	spid=$!
	busywait 10000 listening || { kill "$spid"; fail "ib_write_bw never listened"; }
	ip netns exec "$ha" timeout 30 ib_write_bw -d "$RXA" -x "$GA" -s 4096 -D 4 -F \
		$VX_B >"$TMPD/bw" 2>&1 &
	local cpid=$!
	# RDMA writes of 4 packets each: 100 packets on plane 1 is the data.
	busywait 15000 rxe_tx_grew "$ha" 1 "$p1_start" 100 ||
		fail "plane 1 carried no RDMA writes"
	ip -n "$ha" link set a1 down
	p0_cut=$(rxe_tx "$ha" 0) p1_cut=$(rxe_tx "$ha" 1)
	client_rc=0 server_rc=0
	wait "$cpid" || client_rc=$?
	wait "$spid" || server_rc=$?
	log "$(tail -n 2 "$TMPD/bw" | tr -s ' \n' ' ')"
	[ "$client_rc" = 0 ] || rxe_explain "$ha" "$RXA" "$TMPD/bw"
	assert_eq "client status" "$client_rc" 0
	assert_eq "server status" "$server_rc" 0
	rxe_moved "$RXA"
	rxe_moved "$RXB"
	rxe_reorder_moved "$hb"
	rxe_check_write_bw "$TMPD/bw" "$ha" "$p0_cut" "$p1_cut"
}

GA='' GB=''
rxe_pair || GB=
ktap_run test_rc_pingpong_both_planes test_send_lat test_write_bw_plane_cut

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RoCEv2 resequencing in mp0 (`link set mp0 reorder-window US`), between
# two hosts joined by two planes: the setting's range and message; a
# gap that a late packet fills, a gap that the window gives up on and
# its straggler, a resend followed back, and a hold that overflows, each
# with its counters and the order and time the
# receiver saw; a QP sprayed over two planes of different delay, put
# back in order, bare and inside VXLAN, and ACKs left alone; and the
# table made and freed under traffic, with nothing lost.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/mplane.sh"

PSN_PY=$MPLANE_ROOT/selftests/lib/roce_psn.py
PADDED=$MPLANE_ROOT/selftests/lib/padded_bth.py

# window NS US: NS's mp0 resequences with a window of US.
window() {
	"$MPLANECTL" -n "$1" link set mp0 reorder-window "$2" ||
		fail "link set mp0 reorder-window $2"
}

# counters NS: NS's four resequencing counters, both planes, as
# "held filled expired overflows".
counters() {
	mp_json "$1" | jq -r '[.devices[0].planes[].stats] |
		"\(map(.reorder_held) | add) \(map(.reorder_filled) | add) \(map(.reorder_expired) | add) \(map(.reorder_overflows) | add)"'
}

# psn_recv COUNT: roce_psn.py's receiver in hb, in the background; its
# JSON goes to $RECV_OUT once psn_wait has waited for it.
psn_recv() {
	local ready=$TMPDIR/mp-ready.$$
	rm -f "$ready"
	RECV_OUT=$TMPDIR/psn.$$
	ip netns exec "$hb" python3 "$PSN_PY" recv "$1" --timeout 20 \
		--ready-file "$ready" >"$RECV_OUT" &
	recv_pid=$!
	busywait 30000 test -e "$ready" || fail "receiver not ready"
}
psn_wait() { wait "$recv_pid" || fail "receiver: $(cat "$RECV_OUT")"; }
# psn_send QPN PSN...: from ha to hb's mp0, 1 ms apart.
psn_send() {
	ip netns exec "$ha" python3 "$PSN_PY" send $MP_B4 "$@" || fail "send $*"
}
psns() { jq -c .psns "$RECV_OUT"; }
# ms_of INDEX: when the INDEXth arrival came, in ms after the first.
ms_of() { jq ".ms[$1] | floor" "$RECV_OUT"; }

test_window_setting() {
	mp_pair 2
	assert_eq "off by default" "$(mp_json "$ha" | jq .devices[0].reorder_us)" 0
	expect_fail_msg "a window over 100 ms" \
		"reorder window \\(IFLA_MPLANE_REORDER_US\\) must be 0\\.\\.100000 us \\(0: off\\)" \
		"$MPLANECTL" -n "$ha" link set mp0 reorder-window 100001
	window "$ha" 2000
	assert_eq "set" "$(mp_json "$ha" | jq .devices[0].reorder_us)" 2000
	"$MPLANECTL" -n "$ha" link show mp0 | grep -q "reorder-window 2000us" ||
		fail "link show does not show reorder-window 2000us"
	window "$ha" 0
	assert_eq "off again" "$(mp_json "$ha" | jq .devices[0].reorder_us)" 0
}

# 0, then 2 and 3 past the gap, then 1: the receiver gets 0 1 2 3, and 2
# and 3 no later than 1 let them go.  A resend of 1 after is let through.
test_gap_filled() {
	mp_pair 2
	mp_pair_carries 2
	window "$hb" 50000
	psn_recv 5
	psn_send 0x61 0 2 3 1 1
	psn_wait
	log "arrived $(psns), at $(jq -c .ms "$RECV_OUT") ms"
	assert_eq "in PSN order, the resend last" "$(psns)" "[0,1,2,3,1]"
	assert_le "2 went up with 1, not after the window (ms)" \
		$(($(ms_of 2) - $(ms_of 1))) 20
	assert_eq "held, filled, expired, overflows" "$(counters "$hb")" "2 1 0 0"
}

# 0 1 2, then 4 5 6: 3 does not come in time.  4 waits the window
# (30 ms) and goes up with 5 and 6 behind it.  Then the requester goes
# back to 3, as an RC one does on the responder's NAK, and its resends
# arrive 3 5 4 6 7: the sequence follows it back and puts them in order.
test_gap_expires() {
	mp_pair 2
	mp_pair_carries 2
	window "$hb" 30000
	psn_recv 11
	psn_send 0x62 0-2 4-6 +200 3 5 4 6 7
	psn_wait
	log "arrived $(psns), at $(jq -c .ms "$RECV_OUT") ms"
	assert_eq "in PSN order past the gap, then the resends in order" "$(psns)" \
		"[0,1,2,4,5,6,3,4,5,6,7]"
	assert_ge "4 waited the window (ms after 2)" $(($(ms_of 3) - $(ms_of 2))) 28
	assert_le "5 and 6 went up with it (ms)" $(($(ms_of 5) - $(ms_of 3))) 10
	assert_le "the resent 5 went up with 4, not after the window (ms)" \
		$(($(ms_of 8) - $(ms_of 7))) 20
	assert_eq "held, filled, expired, overflows" "$(counters "$hb")" "4 1 1 0"
}

# 0..4 in order, then the requester goes back to 2 (go-back-N) and its
# resends arrive 2 4 3: the sequence follows it back, and 4 waits for 3.
test_resend_followed() {
	mp_pair 2
	mp_pair_carries 2
	window "$hb" 50000
	psn_recv 8
	psn_send 0x6a 0-4 2 4 3
	psn_wait
	log "arrived $(psns), at $(jq -c .ms "$RECV_OUT") ms"
	assert_eq "the resends in order too" "$(psns)" "[0,1,2,3,4,2,3,4]"
	assert_eq "held, filled, expired, overflows" "$(counters "$hb")" "1 1 0 0"
}

# 0, 2 and 3 held for 1, then 300: a gap wider than a QP holds
# (MPLANE_REORDER_DEPTH) is a loss, not reordering, so it is given up at
# once (an overflow, not the window's end) and all go up in order.
test_hold_overflows() {
	mp_pair 2
	mp_pair_carries 2
	window "$hb" 100000
	psn_recv 4
	psn_send 0x63 0 2 3 300
	psn_wait
	assert_eq "in PSN order" "$(psns)" "[0,2,3,300]"
	assert_le "not held for the window (ms)" "$(ms_of 3)" 60
	assert_eq "held, filled, expired, overflows" "$(counters "$hb")" "2 0 0 1"
}

# Datagrams too short for a BTH, whose frames' padding reads as one with
# PSNs 5 then 7, are not resequenced: nothing held.
test_short_datagram_not_held() {
	mp_pair 2
	mp_pair_carries 2
	local rx
	window "$ha" 50000
	rx=$(mp_pstat "$ha" 0 rx_packets)
	# RC SEND ONLY cut short, padded to read as QP 0x6b's PSNs 5 and 7.
	ip netns exec "$hb" python3 "$PADDED" 0x04 0x6b 5 || fail "padded frame"
	ip netns exec "$hb" python3 "$PADDED" 0x04 0x6b 7 || fail "padded frame"
	busywait 3000 mp_pstat_ge "$ha" 0 rx_packets $((rx + 2)) ||
		fail "padded frames not received"
	assert_eq "held, filled, expired, overflows" "$(counters "$ha")" "0 0 0 0"
}

# rr over two planes, plane 1 4 ms slower (netem on ha's a1): half of a
# QP's packets overtake the other half.  The streams are UC sends (opcode
# 0x24): nothing resends them, and mp0 follows no UC packet back.
# sprayed NAME ARGS: `traffic send ARGS` to a `traffic recv`, whose JSON
# goes to $TMPDIR/NAME.$$.
sprayed() {
	local ready=$TMPDIR/mp-ready.$$ name=$1
	shift
	rm -f "$ready"
	ip netns exec "$hb" "$MPLANECTL" -j traffic recv --port 4791 --idle 1 \
		--timeout 30 --ready-file "$ready" >"$TMPDIR/$name.$$" 2>/dev/null &
	busywait 30000 test -e "$ready" || fail "receiver not ready"
	"$MPLANECTL" -n "$ha" traffic send "$@" --count 300 --rate 1000 >/dev/null ||
		fail "traffic send $*"
	wait
	log "$name: $(jq -c '{received, lost, reordered}' "$TMPDIR/$name.$$")"
}
spray_setup() {
	modprobe sch_netem 2>/dev/null || true
	mp_pair 2
	mp_pair_carries 2
	"$MPLANECTL" -n "$ha" link set mp0 policy rr || fail "policy rr"
	tc -n "$ha" qdisc add dev a1 root netem delay 4ms 2>/dev/null ||
		skip "no netem qdisc"
}

# vxlan_up: vx0 over mp0 on both hosts (10.98.0.1 and .2), as rxe runs
# where it needs an Ethernet netdev (Documentation/rxe.md).
vxlan_up() {
	local ns me peer
	for ns in "$ha" "$hb"; do
		[ "$ns" = "$ha" ] && me=1 peer=2 || me=2 peer=1
		printf '%s\n' "link add vx0 type vxlan id 42 local 10.99.0.$me remote 10.99.0.$peer dstport 4789 dev mp0" \
			"addr add 10.98.0.$me/24 dev vx0" "link set vx0 up" |
			ip -n "$ns" -batch - 2>/dev/null || return 1
	done
}

# Sprayed, a QP's packets overtake each other; with a window they reach
# the receiver in order, over IPv4, IPv6 and inside VXLAN, where mp0
# finds the BTH in the inner frame.  ACKs (opcode 0x11) carry no request
# sequence: they still arrive out of order, and nothing is held.
test_sprayed_qp_in_order() {
	local held filled expired overflows f runs="v4 v6"
	spray_setup
	sprayed off $MP_B4 --roce 0x64 --opcode 0x24
	assert_ge "reordered without a window" "$(jq .reordered "$TMPDIR/off.$$")" 50
	assert_eq "nothing held without a window" "$(pstat_sum "$hb" reorder_held)" 0
	window "$hb" 20000
	sprayed v4 $MP_B4 --roce 0x64 --opcode 0x24
	sprayed v6 $MP_B6 --roce 0x65 --opcode 0x24
	if vxlan_up; then
		sprayed vxlan 10.98.0.2 --roce 0x69 --opcode 0x24
		runs="$runs vxlan"
	else
		log "no vxlan: RoCEv2 inside VXLAN not tried"
	fi
	# A QP's first packet tells mp0 where its sequence starts: when the
	# first one sent took the slow plane, the second comes first and the
	# first goes up behind it.  And a guest's two CPUs can each hand up
	# what it let go at the same moment, in either order (plb.md): 0-1
	# with one vCPU, as make check runs, up to 7 of 300 with two.
	for f in $runs; do
		assert_eq "$f received" "$(jq .received "$TMPDIR/$f.$$")" 300
		assert_le "$f reordered with a window" "$(jq .reordered "$TMPDIR/$f.$$")" 15
	done
	# Plane 1 is the slow one: what came early came on plane 0 and waited,
	# and what filled the gaps came on plane 1.  A gap of several packets
	# is filled once, by the last of them.
	read -r held filled expired overflows <<<"$(counters "$hb")"
	log "held $held, filled $filled, expired $expired, overflows $overflows"
	assert_ge "held" "$held" 50
	assert_ge "gaps filled" "$filled" 20
	assert_eq "gaps given up" "$((expired + overflows))" 0
	assert_le "plane 1's held, a tenth at most" \
		"$(mp_pstat "$hb" 1 reorder_held)" $((held / 10))
	assert_le "plane 0's filled, a tenth at most" \
		"$(mp_pstat "$hb" 0 reorder_filled)" $((filled / 10))
	sprayed acks $MP_B4 --roce 0x66 --opcode 0x11
	assert_ge "ACKs reordered" "$(jq .reordered "$TMPDIR/acks.$$")" 50
	assert_eq "nothing held for ACKs" "$(counters "$hb")" \
		"$held $filled $expired $overflows"
}

# The window off and on again and again while a sprayed QP flows, gaps
# held at every switch: turning it off lets what it held go, so the
# receiver gets every packet.  Then the device goes with packets held.
test_table_lifecycle_under_traffic() {
	local i sender held count=1000 cycles=5
	quick && count=300 cycles=3
	spray_setup
	window "$hb" 20000
	ip netns exec "$hb" "$MPLANECTL" -j traffic recv --port 4791 --idle 2 \
		--timeout 60 >"$TMPDIR/cycle.$$" 2>/dev/null &
	sleep 1
	"$MPLANECTL" -n "$ha" traffic send $MP_B4 --roce 0x67 --opcode 0x24 --count $count \
		--rate 1000 >/dev/null &
	sender=$!
	for ((i = 0; i < cycles; i++)); do
		sleep 0.1
		window "$hb" 0
		window "$hb" $((10000 + i * 1000))
	done
	wait "$sender" || fail "sender"
	wait
	log "$(jq -c '{received, lost, reordered}' "$TMPDIR/cycle.$$")"
	assert_eq "received" "$(jq .received "$TMPDIR/cycle.$$")" $count
	assert_ge "held" "$(pstat_sum "$hb" reorder_held)" $((count / 20))
	# Even PSNs only: every one opens a gap, so something is always held.
	held=$(pstat_sum "$hb" reorder_held)
	window "$hb" 100000
	ip netns exec "$ha" python3 "$PSN_PY" send $MP_B4 0x68 $(seq 0 2 4000) \
		--gap-ms 5 &
	sender=$!
	slowwait 60 pstat_sum_ge "$hb" reorder_held $((held + 10)) || fail "nothing held"
	ip -n "$hb" link del mp0 || fail "delete mp0 with packets held"
	kill "$sender"
	wait "$sender" || true
}

QUICK_TESTS="test_table_lifecycle_under_traffic"
ktap_run test_window_setting test_gap_filled test_gap_expires test_resend_followed \
	test_hold_overflows test_short_datagram_not_held test_sprayed_qp_in_order \
	test_table_lifecycle_under_traffic

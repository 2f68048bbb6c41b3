#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mp0's datapath between two hosts joined by planes: IPv4 and IPv6 through
# mp0, and how each policy spreads packets (per-plane counters, read with
# mplanectl, and the mplane:plane_select tracepoint).
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/mplane.sh"

TRACING=/sys/kernel/tracing

# The debug kernel under TCG sends a few hundred packets a second: fewer
# packets there, the same assertions.
RR_COUNT=1000 HASH_COUNT=800 SPRAY_COUNT=3000 GSO_BYTES=4M
quick && RR_COUNT=400 HASH_COUNT=400 SPRAY_COUNT=1000 GSO_BYTES=1M

# send NS DST COUNT RATE [ARGS]: a paced UDP stream from NS to hb, with a
# receiver there (no ICMP port unreachable to stop the sender); waits.
# The receiver stops at the last packet, or 1 s after the last one that
# came when some were lost.
send() {
	local ns=$1 dst=$2 count=$3 rate=$4 ready=$TMPDIR/mp-ready.$$
	shift 4
	rm -f "$ready"
	ip netns exec "$hb" "$MPLANECTL" traffic recv --count "$count" --idle 1 \
		--timeout 60 --ready-file "$ready" >/dev/null 2>&1 &
	busywait 30000 test -e "$ready" || fail "receiver not ready"
	ip netns exec "$ns" "$MPLANECTL" traffic send "$dst" --count "$count" \
		--rate "$rate" "$@" >/dev/null
	wait
}

# Packets of plane N that reached hb's mp0.  Counted at the receiver:
# ha's own IPv6 multicast (MLD, router solicitations) also leaves through
# mp0, but it is never addressed to hb's mp0.
rx_of() { mp_pstat "$hb" "$1" rx_packets; }

test_ping_v4_v6() {
	mp_pair 2
	ip netns exec "$ha" ping -c 3 -i 0.1 -W 2 -q $MP_B4 >/dev/null || fail "IPv4 ping"
	ip netns exec "$ha" ping -c 3 -i 0.1 -W 2 -q $MP_B6 >/dev/null || fail "IPv6 ping"
	# Both directions went through the mplane devices' counters.
	assert_ge "mp0 rx (hb)" "$(\
		ip netns exec "$hb" cat /sys/class/net/mp0/statistics/rx_packets)" 6
	assert_ge "mp0 tx (ha)" "$(ip netns exec "$ha" cat /sys/class/net/mp0/statistics/tx_packets)" 6
}

test_rr_is_even() {
	local t0 t1
	mp_pair 2
	"$MPLANECTL" -n "$ha" link set mp0 policy rr
	send "$ha" $MP_B4 $RR_COUNT 5000
	t0=$(rx_of 0) t1=$(rx_of 1)
	log "rr: plane0 $t0, plane1 $t1"
	assert_ge "both planes" $((t0 + t1)) $RR_COUNT
	# One sender mostly on one CPU: alternation, a few off at most.
	assert_le "rr imbalance" $(((t0 - t1) * (t0 - t1))) 400
}

test_hash_keeps_flows() {
	local map
	mp_pair 2
	"$MPLANECTL" -n "$ha" link set mp0 policy hash
	echo 1 >$TRACING/events/mplane/plane_select/enable
	echo >$TRACING/trace
	send "$ha" $MP_B4 $HASH_COUNT 4000 --flows 16
	echo 0 >$TRACING/events/mplane/plane_select/enable
	# Every hash (flow) maps to exactly one plane; 16 flows use both.
	# (ha's own IPv6 multicast through mp0 may add a flow or two.)
	map=$(grep -o 'plane=[0-9]* policy=1 hash=0x[0-9a-f]*' $TRACING/trace | sort -u)
	[ -n "$map" ] || fail "no plane_select events"
	assert_ge "flows seen" "$(echo "$map" | awk '{print $3}' | sort -u | wc -l)" 16
	assert_eq "one plane per flow" "$(echo "$map" | awk '{print $3}' | sort | uniq -d | wc -l)" 0
	assert_eq "planes used" "$(echo "$map" | awk '{print $1}' | sort -u | wc -l)" 2
}

test_spray_prefers_emptier_plane() {
	local t0 t1 slow=5mbit
	# Spray gives the slow plane about its drain rate, so the fast one
	# carries 4x as much only while the sender is 5x faster than that.
	# The debug kernel under TCG sends 200-2000 packets/s: 100 kbit/s is
	# 12.5 of these 1000-byte packets per second.
	quick && slow=100kbit
	mp_pair 2
	"$MPLANECTL" -n "$ha" link set mp0 policy spray
	# Plane 1 is slow: its queue builds and its load with it.
	link_rate "$ha" a1 $slow
	send "$ha" $MP_B4 $SPRAY_COUNT 15000 --size 1000
	t0=$(rx_of 0) t1=$(rx_of 1)
	log "spray: plane0 $t0, plane1 ($slow) $t1"
	assert_ge "fast plane carries 4x the slow one" "$t0" $((4 * t1))
	assert_ge "slow plane still used" "$t1" 1
}

test_flowlet_sticks_and_moves() {
	local t0 t1 i used=0 bursts=8
	quick && bursts=3
	mp_pair 2
	"$MPLANECTL" -n "$ha" link set mp0 policy flowlet flowlet-gap 100000
	for ((i = 1; i <= bursts; i++)); do
		t0=$(rx_of 0) t1=$(rx_of 1)
		# Back to back (every 1 ms < 100 ms gap): one flowlet, one plane.
		send "$ha" $MP_B4 50 1000
		t0=$(($(rx_of 0) - t0)) t1=$(($(rx_of 1) - t1))
		assert_eq "burst $i delivered" $((t0 + t1)) 50
		[ "$t0" -eq 0 ] || [ "$t1" -eq 0 ] || fail "burst $i split: $t0 + $t1"
		[ "$t0" -gt 0 ] && used=$((used | 1))
		[ "$t1" -gt 0 ] && used=$((used | 2))
		# Idle past the gap: the next burst is a new flowlet.
		sleep 0.3
	done
	# Idle planes tie and ties break at random: 8 flowlets use both.
	quick || assert_eq "planes used over 8 flowlets" "$used" 3
}

test_ethtool_stats() {
	mp_pair 2
	send "$ha" $MP_B4 100 5000
	ip netns exec "$ha" ethtool -S mp0 | grep -q "plane1_tx_packets" || fail "no plane1 stats"
	assert_eq "ethtool = netlink" \
		"$(ip netns exec "$hb" ethtool -S mp0 | awk '/plane0_rx_packets/ {print $2}')" \
		"$(rx_of 0)"
}

test_policy_change_under_traffic_loses_nothing() {
	local out
	mp_pair 2
	# It stops at the last packet; the idle limit only ends a stream that
	# lost some, and must outlast the debug guest's stalls of seconds.
	ip netns exec "$hb" "$MPLANECTL" -j traffic recv --expect 4000 --count 4000 \
		--idle 10 --timeout 120 --ready-file /tmp/mp-ready >/tmp/mp-recv.json &
	busywait 30000 test -e /tmp/mp-ready || fail "receiver not ready"
	ip netns exec "$ha" "$MPLANECTL" traffic send $MP_B4 --count 4000 \
		--rate 4000 >/dev/null &
	for p in rr spray hash flowlet rr; do
		sleep 0.15
		"$MPLANECTL" -n "$ha" link set mp0 policy $p
	done
	wait
	out=$(cat /tmp/mp-recv.json)
	assert_eq "lost while changing policy" "$(echo "$out" | jq .lost)" 0
	assert_eq "received" "$(echo "$out" | jq .received)" 4000
}

test_no_route_plane_not_used() {
	mp_pair 2
	# Plane 1 has no route to hb: everything must take plane 0.
	ip -n "$ha" route del $MP_B4/32 dev a1
	"$MPLANECTL" -n "$ha" link set mp0 policy rr
	send "$ha" $MP_B4 200 4000
	assert_eq "plane0 carried all" "$(rx_of 0)" 200
	assert_eq "plane1 carried none" "$(rx_of 1)" 0
	assert_ge "plane1 had no route" "$(mp_pstat "$ha" 1 drop_no_route)" 1
}

# tx_sum NS COUNTER: COUNTER summed over NS's planes.
tx_sum() {
	mp_json "$1" | jq "[.devices[0].planes[].stats.$2] | add"
}

# iperf3_listening: hb's iperf3 server takes connections.
iperf3_listening() {
	[ -n "$(ss -N "$hb" -Hltn "sport = :5201")" ]
}

# GSO: one TCP connection through mp0 under rr.  "whole" hands each
# super-packet to one rail as it is (the rails carry packets longer than
# the MTU); "segment" cuts them in mp0 and chooses per segment, so no
# packet on a rail is longer than the MTU and both planes carry the flow.
test_gso_whole_and_segment() {
	local mode p0 p1 pk by avg_whole avg_segment
	command -v iperf3 >/dev/null || skip "no iperf3"
	mp_pair 2
	"$MPLANECTL" -n "$ha" link set mp0 policy rr
	ip netns exec "$ha" ethtool -K mp0 tso on gso on >/dev/null 2>&1
	for mode in whole segment; do
		"$MPLANECTL" -n "$ha" link set mp0 gso $mode
		pk=$(tx_sum "$ha" tx_packets) by=$(tx_sum "$ha" tx_bytes)
		p0=$(mp_pstat "$ha" 0 tx_packets)
		ip netns exec "$hb" iperf3 -s -1 >/dev/null 2>&1 &
		busywait 30000 iperf3_listening || fail "no iperf3 server"
		ip netns exec "$ha" iperf3 -c $MP_B4 -n $GSO_BYTES >/dev/null || fail "iperf3 ($mode)"
		wait
		pk=$(( $(tx_sum "$ha" tx_packets) - pk )) by=$(( $(tx_sum "$ha" tx_bytes) - by ))
		p0=$(( $(mp_pstat "$ha" 0 tx_packets) - p0 ))
		log "gso $mode: $pk packets on the rails, $((by / pk)) bytes each on average, plane0 $p0"
		eval "avg_$mode=$((by / pk))"
		[ $mode = segment ] && p1=$((pk - p0))
	done
	assert_ge "average packet of gso whole (bytes)" "$avg_whole" 1515
	assert_le "average packet of gso segment (bytes)" "$avg_segment" 1514
	assert_ge "plane 0 share of the segments" "$p0" $((pk / 4))
	assert_ge "plane 1 share of the segments" "$p1" $((pk / 4))
}

ktap_run test_ping_v4_v6 test_rr_is_even test_hash_keeps_flows \
	test_spray_prefers_emptier_plane test_flowlet_sticks_and_moves \
	test_ethtool_stats test_policy_change_under_traffic_loses_nothing \
	test_no_route_plane_not_used test_gso_whole_and_segment

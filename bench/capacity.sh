#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Capacity and TCP through mp0, with real clients (run by `make bench`:
# both are throughput goals measured against a baseline of the same run).
# Spray must use the sum of the planes' capacity when one plane is slower
# than the others (goal: 90%), and TCP over flowlets must not retransmit
# more per Mbit/s delivered than over a single rail.  Links are rate-limited with tbf to rates
# a TCG guest can fill.  Prints KTAP, so a missed goal shows as "not ok".
source "$(dirname "$0")/../selftests/lib/lib.sh"
source "$(dirname "$0")/../selftests/lib/mplane.sh"

# Rates in Mbit/s of the planes; the last one is a quarter of the others.
RATES=(20 20 20 5)
SIZE=1400		# UDP payload; 1442 bytes on the wire

limit() {
	local ns=$1 dev=$2 mbit=$3
	tc -n "$ns" qdisc replace dev "$dev" root tbf rate "${mbit}mbit" \
		burst 64kbit latency 20ms
}

test_spray_reaches_summed_capacity() {
	local i sum=0 secs=4 pps ready=$TMPDIR/c-ready.$$ got
	quick && skip "a throughput goal: checked on the release kernels"
	mp_pair ${#RATES[@]}
	"$MPLANECTL" -n "$ha" link set mp0 policy spray
	for i in "${!RATES[@]}"; do
		limit "$ha" "a$i" "${RATES[$i]}"
		sum=$((sum + RATES[i]))
	done
	# Offer 40% more than the planes can carry.
	pps=$((sum * 1400000 / (1442 * 8)))
	ip netns exec "$hb" "$MPLANECTL" -j traffic recv --idle 2 --timeout 60 \
		--ready-file "$ready" >"$TMPDIR/c-recv.json" &
	busywait 30000 test -e "$ready" || fail "receiver not ready"
	ip netns exec "$ha" "$MPLANECTL" traffic send $MP_B4 --rate "$pps" \
		--count $((pps * secs)) --size $SIZE --flows 8 >/dev/null
	wait
	got=$(jq '.received * 1442 * 8 / .duration_s / 1000000 | floor' "$TMPDIR/c-recv.json")
	log "spray over ${RATES[*]} Mbit/s ($sum in all): $got Mbit/s on the wire"
	assert_ge "Mbit/s delivered (90% of $sum)" "$got" $((sum * 9 / 10))
}

# iperf3 TCP, 4 streams for 4 s from ha to DST; prints "retransmits Mbit/s".
tcp_run() {
	local dst=$1
	ip netns exec "$hb" iperf3 -s -1 >/dev/null 2>&1 &
	busywait 5000 ip netns exec "$hb" ss -ltn "sport = :5201" | grep -q LISTEN ||
		fail "no iperf3 server"
	ip netns exec "$ha" iperf3 -c "$dst" -t 4 -P 4 -J >"$TMPDIR/c-tcp.json" || fail "iperf3"
	wait
	jq -r '"\(.end.sum_sent.retransmits) \(.end.sum_received.bits_per_second / 1e6 | floor)"' \
		"$TMPDIR/c-tcp.json"
}

test_tcp_flowlet_retransmit_rate_no_worse_than_one_rail() {
	local one two
	quick && skip "a throughput goal: checked on the release kernels"
	command -v iperf3 >/dev/null || skip "no iperf3"
	# One rail, no mplane: the baseline.
	setup_ns ha hb
	veth_pair "$ha" a0 "$hb" b0
	ip -n "$ha" addr add $MP_A4/24 dev a0
	ip -n "$hb" addr add $MP_B4/24 dev b0
	limit "$ha" a0 20
	one=$(tcp_run $MP_B4)
	cleanup_all_ns
	# Two such rails under mp0, flowlet.  A flowlet may move only after a
	# gap longer than the planes' delays can differ, or TCP sees
	# reordering: tbf queues here hold up to 20 ms, so the gap is 25 ms
	# (a fabric's queues hold microseconds, hence the 100 us default).
	mp_pair 2
	"$MPLANECTL" -n "$ha" link set mp0 policy flowlet flowlet-gap 25000
	limit "$ha" a0 20
	limit "$ha" a1 20
	two=$(tcp_run $MP_B4)
	log "iperf3 TCP: one rail ${one#* } Mbit/s, ${one% *} retransmits;" \
		"mp0 flowlet over two ${two#* } Mbit/s, ${two% *} retransmits"
	# Twice the rate sends twice the segments, so compare retransmits
	# per Mbit/s delivered: cross-multiplied to stay in integers.
	assert_le "mp0 retransmits x one-rail Mbit/s (vs one rail's retransmits x mp0 Mbit/s)" \
		$(( ${two% *} * ${one#* } )) $(( ${one% *} * ${two#* } ))
	assert_ge "mp0 uses both planes (Mbit/s)" "${two#* }" $(( ${one#* } * 3 / 2 ))
}

# GSO super-packets through mp0 (spray, two unshaped planes): whole (one
# choice per super-packet) against segment (segmented in mp0, one choice
# per segment), iperf3 TCP for 4 s each.  A measurement, reported side by
# side: it fails only if a mode moves nothing.
test_gso_whole_vs_segment() {
	local mode out
	command -v iperf3 >/dev/null || skip "no iperf3"
	mp_pair 2
	"$MPLANECTL" -n "$ha" link set mp0 policy spray
	for mode in whole segment; do
		"$MPLANECTL" -n "$ha" link set mp0 gso $mode
		out=$(tcp_run $MP_B4)
		log "gso $mode: ${out#* } Mbit/s, ${out% *} retransmits"
		assert_ge "gso $mode Mbit/s" "${out#* }" 1
	done
}

ktap_run test_spray_reaches_summed_capacity \
	test_tcp_flowlet_retransmit_rate_no_worse_than_one_rail \
	test_gso_whole_vs_segment

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# plb.sh: the plane-load-balancing benchmark, run as root inside the test
# VM by `make bench` (needs bonding, so a Debian kernel).  Every figure is
# measured in this one run and reported next to its baseline:
#
#  - packets per second and CPU per packet through mp0 (each policy) vs
#    bonding balance-rr vs a bare veth, with a sender that sends as fast
#    as it can (64-byte UDP);
#  - loss and longest delivery gap when the far end of one link goes
#    down under a 20 kpps stream: mp0 vs bonding balance-rr and
#    active-backup (miimon 100), and mp0 with no failure as the floor.
source "$(dirname "$0")/../selftests/lib/lib.sh"
source "$(dirname "$0")/../selftests/lib/mplane.sh"
source "$(dirname "$0")/lib.sh"

PKTS=${MPLANE_BENCH_PKTS:-60000}
OUT=${MPLANE_BENCH_OUT:-/tmp/results/plb.json}

# bond_pair MODE: ha/hb joined by two veths, bonded on both sides.
bond_pair() {
	local mode=$1 ns i
	modprobe bonding 2>/dev/null || skip "no bonding module"
	setup_ns ha hb
	for ns in "$ha" "$hb"; do
		ip -n "$ns" link add bond0 type bond mode "$mode" miimon 100
	done
	for i in 0 1; do
		ip link add "a$i" netns "$ha" type veth peer name "b$i" netns "$hb"
		ip -n "$ha" link set "a$i" master bond0
		ip -n "$hb" link set "b$i" master bond0
	done
	ip -n "$ha" addr add $MP_A4/24 dev bond0
	ip -n "$hb" addr add $MP_B4/24 dev bond0
	ip -n "$ha" link set bond0 up
	ip -n "$hb" link set bond0 up
	ip -n "$ha" link set a0 up; ip -n "$ha" link set a1 up
	ip -n "$hb" link set b0 up; ip -n "$hb" link set b1 up
	slowwait 5 ip netns exec "$ha" ping -c 1 -W 1 -q $MP_B4 >/dev/null
}

veth_pair_setup() {
	setup_ns ha hb
	veth_pair "$ha" a0 "$hb" b0
	ip -n "$ha" addr add $MP_A4/24 dev a0
	ip -n "$hb" addr add $MP_B4/24 dev b0
}

bench_throughput() {
	local p
	veth_pair_setup
	record "bare veth" pps "$(run_stream "$PKTS" 1000000)"
	cleanup_all_ns
	for p in rr hash spray flowlet; do
		mp_pair 2
		"$MPLANECTL" -n "$ha" link set mp0 policy $p
		ip netns exec "$ha" ping -c 4 -i 0.05 -q $MP_B4 >/dev/null
		record "mp0 $p" pps "$(run_stream "$PKTS" 1000000)"
		cleanup_all_ns
	done
	bond_pair balance-rr
	record "bond balance-rr" pps "$(run_stream "$PKTS" 1000000)"
	cleanup_all_ns
}

bench_failover() {
	local n=$((20000 * 6))
	mp_pair 2
	"$MPLANECTL" -n "$ha" link set mp0 policy rr
	ip netns exec "$ha" ping -c 8 -i 0.02 -q $MP_B4 >/dev/null
	"$MPLANECTL" -n "$ha" link set mp0 policy spray
	record "mp0 spray, no failure" failover "$(run_stream $n 20000)"
	record "mp0 spray" failover "$(run_stream $n 20000 'ip link set b1 down' b1)"
	cleanup_all_ns
	bond_pair balance-rr
	record "bond balance-rr miimon 100" failover "$(run_stream $n 20000 'ip link set b1 down' b1)"
	cleanup_all_ns
	bond_pair active-backup
	record "bond active-backup miimon 100" failover "$(run_stream $n 20000 'ip link set b0 down' b0)"
	cleanup_all_ns
}

mplane_load
bench_throughput
bench_failover
printf '%s\n' "${results[@]}" | jq -s '{kernel: "'"$(uname -r)"'", results: .}' >"$OUT"
jq -r '
  (.results | map(select(.name == "bare veth"))[0].recv_pps) as $base |
  "\nThroughput, 64-byte UDP, 8 flows (\(.kernel), TCG):",
  (.results[] | select(.kind == "pps") |
   "  \(.name | .[0:22] | . + " " * (22 - length)) \(.recv_pps | floor) pps  (\(.recv_pps / $base * 100 | floor)% of bare veth)  \(.cpu_us_per_pkt * 10 | floor / 10) us CPU/pkt"),
  "\nFailover under a 20 kpps stream (far end of one link down):",
  (.results[] | select(.kind == "failover") |
   "  \(.name | .[0:30] | . + " " * (30 - length)) lost \(.lost)  longest gap \(.max_gap_us // 0 | floor) us  (beyond the sender: \(.max_excess_gap_us // 0 | floor) us); within 5 ms of the failure \(if .max_gap_near_fault_us then "\(.max_gap_near_fault_us | floor) us (the path: \(.max_excess_gap_near_fault_us | floor) us)" else "-" end)")
' "$OUT"

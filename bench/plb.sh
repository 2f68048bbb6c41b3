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

# MPLANE_BENCH_PLB=throughput|failover runs one half; MPLANE_BENCH_ROUNDS
# sets the throughput rounds; MPLANE_BENCH_BEFORE_KO=KO runs the
# throughput rounds with an older module first (a before/after in one
# boot).
PKTS=${MPLANE_BENCH_PKTS:-20000}
ROUNDS=${MPLANE_BENCH_ROUNDS:-15}
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

# counts NS DEV...: packets each DEV has sent, "a/b/...".
counts() {
	local ns=$1 d out=
	shift
	for d in "$@"; do
		out+=${out:+/}$(ip netns exec "$ns" cat "/sys/class/net/$d/statistics/tx_packets")
	done
	echo "$out"
}

# delta BEFORE AFTER: "a/b" of AFTER less BEFORE, field by field: how a
# stream was spread over the rails (8 flows hash onto 2 planes unevenly).
delta() {
	local IFS=/ b a out= i
	read -ra b <<<"$1"
	read -ra a <<<"$2"
	for i in "${!a[@]}"; do out+=${out:+/}$((a[i] - b[i])); done
	echo "$out"
}

# The paths all exist at once (a bare veth, two veths bonded balance-rr,
# mp0 over two veths), and take turns round by round, mp0 changing its
# policy in between: a TCG guest's speed drifts by 2x over minutes (a
# nested host), so each round is short and every path in it meets the
# same drift.  Each path's median and worst are reported against
# bonding's, and so is the median of the rounds' own ratios.
bench_throughput() {
	local round p before rails
	local -A pa pb
	veth_pair_setup
	pa[veth]=$ha pb[veth]=$hb
	bond_pair balance-rr
	pa[bond]=$ha pb[bond]=$hb
	mp_pair 2
	pa[mp0]=$ha pb[mp0]=$hb
	ip netns exec "${pa[mp0]}" ping -c 4 -i 0.05 -q $MP_B4 >/dev/null
	for ((round = 1; round <= ROUNDS; round++)); do
		for p in veth bond rr hash spray flowlet; do
			case $p in
			veth|bond) ha=${pa[$p]} hb=${pb[$p]} ;;
			*) ha=${pa[mp0]} hb=${pb[mp0]}
			   "$MPLANECTL" -n "$ha" link set mp0 policy $p ;;
			esac
			rails="a0 a1"
			[ $p = veth ] && rails=a0
			# shellcheck disable=SC2086
			before=$(counts "$ha" $rails)
			record "$(path_name $p)" pps "$(run_stream "$PKTS" 1000000)" \
				"$(delta "$before" "$(counts "$ha" $rails)")" "$round"
		done
	done
	cleanup_all_ns
}

path_name() {
	case $1 in
	veth) echo "bare veth" ;;
	bond) echo "bond balance-rr" ;;
	*) echo "mp0 $1" ;;
	esac
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

# A before/after in one boot: the throughput rounds with an older build
# of the module first (its own report), then this one's.
if [ -n "${MPLANE_BENCH_BEFORE_KO:-}" ]; then
	rmmod mplane 2>/dev/null
	insmod "$MPLANE_BENCH_BEFORE_KO" || fail "cannot load $MPLANE_BENCH_BEFORE_KO"
	echo "== before: $MPLANE_BENCH_BEFORE_KO"
	bench_throughput
	printf '%s\n' "${results[@]}" | jq -s '{kernel: "'"$(uname -r)"'", results: .}' >"${OUT%.json}-before.json"
	jq -r -f "$(dirname "$0")/plb_report.jq" "${OUT%.json}-before.json"
	results=()
	rmmod mplane
	echo "== after: $MPLANE_KO"
fi
mplane_load
case ${MPLANE_BENCH_PLB:-all} in
throughput) bench_throughput ;;
failover) bench_failover ;;
*) bench_throughput; bench_failover ;;
esac
printf '%s\n' "${results[@]}" | jq -s '{kernel: "'"$(uname -r)"'", results: .}' >"$OUT"
jq -r -f "$(dirname "$0")/plb_report.jq" "$OUT"

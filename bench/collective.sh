#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# collective.sh: what the GPUs would wait for, side by side in one run,
# on 8 hosts x 2 planes (mp0 over both rails), 2 leaves x 4 spines per
# plane, every link RATE (default 2 Mbit/s: a TCG guest forwards some 50
# Mbit/s of TCP through the fabric's 5 hops of tbf, mp0 and AR, and the
# fabric's limit, 8 hosts x 2 rails x RATE, must stay below that): allreduce and alltoall busbw (the engine, tcp) and
# permutation goodput (iperf3 and the engine's permutation), under
#
#   ecmp          kernel ECMP on the switches, mp0 hash (static per flow)
#   ar            adaptive routing on the switches, mp0 hash
#   ar+spray      adaptive routing, mp0 sprays packets over the planes
#   ar+flowlet    adaptive routing, mp0 moves flowlets between planes
#
# next to the physical limit of the same fabric.  Then the outcomes the
# workload half exists for: permutation goodput (TCP, 4 flows a host)
# against the bisection over TRIALS trials, mean and worst, also with
# plane 1 at half the rate (against the summed capacity); and what a
# host link that is down costs allreduce, against its share of the
# capacity.  Runs in the VM with mplane.ko (make bench); prints one line
# per figure and writes .build/bench/collective.json (or $OUT).
# shellcheck source-path=SCRIPTDIR source=../selftests/lib/lib.sh
source "$(dirname "$0")/../selftests/lib/lib.sh"
# shellcheck source=../selftests/lib/mplane.sh
source "$(dirname "$0")/../selftests/lib/mplane.sh"

MPLANECTL=$MPLANE_BUILD/mplanectl
OUT=${MPLANE_BENCH_COLLECTIVE_OUT:-/tmp/results/collective.json}
RATE_MBIT=${MPLANE_BENCH_RATE:-2}
TRIALS=${MPLANE_BENCH_TRIALS:-8}
SECS=${MPLANE_BENCH_SECS:-5}
COLL_SIZE=${MPLANE_BENCH_COLL_SIZE:-256K}
FAB=mpc$$ HOSTS=8 PLANES=2 LEAVES=2 SPINES=4
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-bench-coll.XXXXXX")
trap '_lib_exit; "$MPLANECTL" fabric down --prefix $FAB >/dev/null 2>&1; rm -rf "$TMPD"' EXIT

in_host() { local h=$1; shift; ip netns exec "$FAB-h$h" "$@"; }
mplane_addr() { echo "10.99.$1.1"; }

# fabric_build [TOPOLOGY_JSON]: a fresh fabric, mp0 on every host.
fabric_build() {
	local topo=$TMPD/topo.json
	echo "${1:-{\}}" >"$topo"
	"$MPLANECTL" fabric up --prefix $FAB --force --quiet --mp0 \
		--planes $PLANES --leaves $LEAVES --spines $SPINES \
		--hosts $HOSTS --rate ${RATE_MBIT}mbit --topology "$topo" >/dev/null ||
		fail "fabric up"
}

# config NAME: switches and mp0 as NAME has them.
config() {
	local h policy=hash
	"$MPLANECTL" bpf detach --fabric $FAB >/dev/null 2>&1 || true
	case "$1" in
	ecmp) ;;
	ar) "$MPLANECTL" bpf attach --fabric $FAB --policy ar >/dev/null ;;
	ar+spray) policy=spray
		"$MPLANECTL" bpf attach --fabric $FAB --policy ar >/dev/null ;;
	ar+flowlet) policy=flowlet
		"$MPLANECTL" bpf attach --fabric $FAB --policy ar >/dev/null ;;
	esac || fail "attach for $1"
	for ((h = 0; h < HOSTS; h++)); do
		"$MPLANECTL" -n "$FAB-h$h" link set mp0 policy $policy ||
			fail "policy $policy on h$h"
	done
}

# iperf_permutation: host i to host i+4 over mp0, 4 TCP flows each, at
# once for SECS; prints the summed goodput in Mbit/s.
iperf_permutation() {
	local i peer
	for ((i = 0; i < HOSTS; i++)); do
		in_host $i iperf3 -s -1 -B "$(mplane_addr $i)" -p 5201 >/dev/null 2>&1 &
	done
	sleep 0.5
	for ((i = 0; i < HOSTS; i++)); do
		peer=$(( (i + HOSTS / 2) % HOSTS ))
		in_host $i iperf3 -J -c "$(mplane_addr $peer)" -B "$(mplane_addr $i)" \
			-p 5201 -P 4 -t "$SECS" -O 1 >"$TMPD/iperf$i.json" 2>&1 &
	done
	wait
	jq -s '[.[].end.sum_received.bits_per_second // 0] | add / 1e6' "$TMPD"/iperf*.json
}

# engine OP SIZE [ARGS]: the engine's JSON for one size of OP on every host.
engine() {
	local op=$1 size=$2
	shift 2
	"$MPLANECTL" -j collective run --prefix $FAB --op "$op" -b "$size" \
		-e "$size" -n 5 -w 1 --no-marks "$@" >"$TMPD/coll.json" ||
		fail "collective $op"
	jq -e '.sizes | all(.verified)' "$TMPD/coll.json" >/dev/null ||
		fail "collective $op: not verified"
	jq -c '.sizes[-1] | {busbw, algbw, p99_us, slowest_rank}' "$TMPD/coll.json"
}

# add JSON: one result; tests run in subshells, so results go to a file.
add() {
	echo "$1" >>"$TMPD/results.jsonl"
	echo "# $1"
}

# Per host: a rail per plane at RATE; the bisection (2 leaves x 4 spines
# a plane) carries all of it, so the permutation's limit is every host's
# sum of rails, and a ring's or alltoall's busbw the same per host.
host_mbit=$((PLANES * RATE_MBIT))
limit_gbs=$(echo "$host_mbit / 8000" | bc -l)

test_side_by_side() {
	local c ar aa perm iperf
	fabric_build
	for c in ecmp ar ar+spray ar+flowlet; do
		config $c
		ar=$(engine allreduce "$COLL_SIZE")
		aa=$(engine alltoall "$COLL_SIZE")
		perm=$(engine permutation "$COLL_SIZE")
		iperf=$(iperf_permutation)
		add "$(jq -nc --arg c "$c" --argjson ar "$ar" --argjson aa "$aa" \
			--argjson p "$perm" --argjson i "$iperf" --argjson lim "$limit_gbs" \
			--argjson hosts $HOSTS --argjson hm $host_mbit '
			{bench: "side_by_side", config: $c,
			 allreduce_busbw: $ar.busbw, alltoall_busbw: $aa.busbw,
			 limit_busbw: $lim,
			 engine_permutation_mbit: ($p.algbw * 8000 * $hosts),
			 iperf_permutation_mbit: $i, limit_permutation_mbit: ($hm * $hosts),
			 allreduce_of_limit: ($ar.busbw / $lim),
			 alltoall_of_limit: ($aa.busbw / $lim),
			 iperf_of_limit: ($i / ($hm * $hosts))}')"
	done
}

# trials LABEL CAPACITY_MBIT: TRIALS permutations of iperf3; mean and worst.
trials() {
	local label=$1 cap=$2 t vals=()
	for ((t = 0; t < TRIALS; t++)); do
		vals+=("$(iperf_permutation)")
	done
	add "$(printf '%s\n' "${vals[@]}" | jq -sc --arg l "$label" --argjson cap "$cap" '
		{bench: "permutation", config: $l, capacity_mbit: $cap, trials: length,
		 mean: ((add / length) / $cap), worst: ((min) / $cap),
		 goodput_mbit: .}')"
}

test_permutation_goodput() {
	fabric_build
	config ar+flowlet
	trials "ar+flowlet" $((HOSTS * host_mbit))
	config ar+spray
	trials "ar+spray" $((HOSTS * host_mbit))
	# Plane 1 at half the rate: the summed capacity is 1.5 RATE a host.
	fabric_build "{\"plane_rates\": {\"1\": \"$((RATE_MBIT * 500))kbit\"}}"
	config ar+flowlet
	trials "ar+flowlet, plane 1 at half rate" $((HOSTS * RATE_MBIT * 3 / 2))
	config ar+spray
	trials "ar+spray, plane 1 at half rate" $((HOSTS * RATE_MBIT * 3 / 2))
}

# A host rail down under allreduce: h0 keeps half its capacity, and a
# ring is as fast as its slowest link, so busbw should keep half.
test_link_down_under_allreduce() {
	local up down flap
	fabric_build
	config ar+flowlet
	up=$(engine allreduce "$COLL_SIZE")
	"$MPLANECTL" fabric fault --prefix $FAB h0:r1 down >/dev/null ||
		fail "fault down"
	down=$(engine allreduce "$COLL_SIZE")
	"$MPLANECTL" fabric fault --prefix $FAB clear >/dev/null
	# A flap every second through the whole run, in the background from
	# now (--at 0): the job still verifies.
	"$MPLANECTL" fabric fault --prefix $FAB h0:r1 flap --period 1 \
		--count 20 --at 0 >/dev/null || fail "fault flap"
	flap=$(engine allreduce "$COLL_SIZE")
	"$MPLANECTL" fabric fault --prefix $FAB clear >/dev/null
	add "$(jq -nc --argjson u "$up" --argjson d "$down" --argjson f "$flap" '
		{bench: "link_down_under_allreduce", busbw_up: $u.busbw,
		 busbw_down: $d.busbw, busbw_flapping: $f.busbw,
		 kept: ($d.busbw / $u.busbw), capacity_kept: 0.5,
		 kept_flapping: ($f.busbw / $u.busbw)}')"
}

mplane_load || exit 1
ktap_run test_side_by_side test_permutation_goodput test_link_down_under_allreduce
rc=$?
mkdir -p "$(dirname "$OUT")"
jq -s . "$TMPD/results.jsonl" >"$OUT" 2>/dev/null || echo '[]' >"$OUT"
exit $rc

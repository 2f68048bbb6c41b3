#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ar.sh: goodput of a permutation over a fabric, ecmp vs ar vs flowlet,
# run natively by `make bench` (BPF and veth only, no module).
#
# One plane, 2 leaves, 2 spines, 8 hosts, every link shaped to RATE.
# Host i sends one UDP flow to host (i + 4) mod 8, so every flow crosses
# the spines, at RATE/2: the offered load is exactly the bisection
# bandwidth (2 uplinks x RATE per leaf and direction).  ECMP hashes 4
# flows onto 2 uplinks and loses what a collision overloads; ar and
# flowlet spread by queue.  Goodput is delivered / sent, which is the
# fraction of the bisection bandwidth since the offer equals it.  Each
# policy runs ROUNDS times with fresh source ports (fresh hashes).
source "$(dirname "$0")/../selftests/lib/lib.sh"

MPLANECTL=${MPLANE_BUILD:-$(dirname "$0")/../.build}/mplanectl
FAB=mpb$$
RATE_MBIT=${MPLANE_BENCH_RATE:-40}
SECS=${MPLANE_BENCH_SECS:-3}
ROUNDS=${MPLANE_BENCH_ROUNDS:-3}
SIZE=1200
HOSTS=8
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-bench-ar.XXXXXX")
trap '"$MPLANECTL" fabric down --prefix $FAB >/dev/null 2>&1; rm -rf "$TMPD"' EXIT

# Packets per second for RATE/2 of SIZE-byte payloads (+ 42 bytes of
# UDP, IP and Ethernet headers on the wire).
PPS=$(( RATE_MBIT * 1000000 / 2 / ((SIZE + 42) * 8) ))
COUNT=$(( PPS * SECS ))

in_host() { local h=$1; shift; ip netns exec "$FAB-h$h" "$@"; }

# round: every host sends to its partner at once; prints "sent received
# reordered" summed over the 8 flows.
round() {
	local i dst port=9100
	for i in $(seq 0 $((HOSTS - 1))); do
		in_host "$i" "$MPLANECTL" -j traffic recv --port $port \
			--timeout $((SECS + 10)) --idle 2 >"$TMPD/r$i.json" &
	done
	sleep 0.3
	for i in $(seq 0 $((HOSTS - 1))); do
		dst=10.100.$(( (i + HOSTS / 2) % HOSTS )).2
		in_host "$i" "$MPLANECTL" -j traffic send "$dst:$port" \
			--count $COUNT --rate $PPS --size $SIZE >"$TMPD/s$i.json" &
	done
	wait
	jq -s '[ (map(.sent // 0) | add), (map(.received // 0) | add),
		 (map(.reordered // 0) | add) ] | map(tostring) | join(" ")' -r \
		"$TMPD"/s*.json "$TMPD"/r*.json
}

"$MPLANECTL" fabric up --prefix $FAB --planes 1 --leaves 2 --spines 2 \
	--hosts $HOSTS --rate ${RATE_MBIT}mbit --no-mp0 >/dev/null || fail "fabric up"
echo "TAP version 13"
echo "1..1"
echo "# permutation, $HOSTS hosts, 2 leaves x 2 spines at $RATE_MBIT Mbit/s," \
	"offered = bisection; $ROUNDS rounds of ${SECS} s per policy"
declare -A goodput
for policy in ecmp ar flowlet; do
	"$MPLANECTL" bpf attach --fabric $FAB --policy $policy >/dev/null ||
		fail "attach $policy"
	tot_sent=0 tot_recv=0 tot_reord=0
	for r in $(seq "$ROUNDS"); do
		read -r sent recv reord < <(round)
		echo "# $policy round $r: sent $sent, received $recv, reordered $reord"
		tot_sent=$((tot_sent + sent)) tot_recv=$((tot_recv + recv))
		tot_reord=$((tot_reord + reord))
	done
	goodput[$policy]=$(( tot_recv * 1000 / tot_sent ))
	printf '# %-8s goodput %d.%d%% of bisection, %d.%d%% of packets reordered\n' \
		$policy $((goodput[$policy] / 10)) $((goodput[$policy] % 10)) \
		$((tot_reord * 100 / tot_recv)) $((tot_reord * 1000 / tot_recv % 10))
done
"$MPLANECTL" bpf detach --fabric $FAB >/dev/null
if [ "${goodput[ar]}" -ge "${goodput[ecmp]}" ]; then
	echo "ok 1 ar goodput >= ecmp goodput"
else
	echo "not ok 1 ar goodput >= ecmp goodput"
fi

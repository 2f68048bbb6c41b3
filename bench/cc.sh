#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cc.sh: what DCQCN in mp0 buys and costs, CC off and on side by side in
# one run (issue 16, section 5), over TRIALS trials, median and worst:
#
#   incast_streams  the 4:1 incast of selftests/kmod/cc_fabric.sh, on its
#                   fabric and with its DCQCN settings
#                   (selftests/lib/cc_incast.sh): from 3 s after traffic
#                   first crossed the bottleneck to 7 s, its queue (p50,
#                   p99, max, the shares of samples under Kmin and
#                   empty), tbf's
#                   drops, what left the port, and Jain's index over 2 s
#   incast_engine   the same with the engine's roce incast (1 MiB from
#                   each sender, every element checked), from 3 s to 8 s,
#                   and the engine's time and retransmits
#   victim          allreduce of 4 KiB (engine, roce, port 4792: not a QP
#                   mp0's CC paces) between h0 and h5 for 20 s, under the
#                   paced streams into h0: the iterations done, and their
#                   completion time, mean, p50 and p99 (with CC off, 64
#                   KiB took minutes an iteration: each loss of the
#                   incast's is a go-back-N timeout)
#   aqm             incast_streams and victim with CC on, the switches
#                   marking by RED (the profile above) and by PI (bpf
#                   attach --aqm pi, a 12 ms target: twice Kmin's 6 ms
#                   at 4 Mbit/s), in turn, ABBA over the trials; their
#                   records carry "aqm"
#   pps             mp0's packets per second, CC on against off, no
#                   congestion: traffic send --roce of 64-byte packets as
#                   fast as the sender goes, h1 to h0 over a 10 Gbit/s
#                   fabric (the link never the limit, so what moves is
#                   mp0's per-packet cost, the QP lookup of an unlimited
#                   QP), in slices of 0.5 s, CC off and on in turn (four
#                   each a trial); goal >= 0.9.  A TCG guest's rate
#                   jumps by up to two between slices, so make bench
#                   runs this part in a guest of one vCPU counting
#                   instructions (selftests/vm/run, MPLANE_VM_ICOUNT):
#                   there a packet's time is its instructions, the same
#                   within 1% from slice to slice, and the summary gives
#                   them per packet
#
# Runs in the VM with mplane.ko (make bench); one line per figure, and
# the results as JSON in $OUT.
# shellcheck source-path=SCRIPTDIR source=../selftests/lib/lib.sh
source "$(dirname "$0")/../selftests/lib/lib.sh"
# shellcheck source=../selftests/lib/mplane.sh
source "$(dirname "$0")/../selftests/lib/mplane.sh"
# shellcheck source=../selftests/lib/cc_incast.sh
source "$(dirname "$0")/../selftests/lib/cc_incast.sh"

OUT=${MPLANE_BENCH_CC_OUT:-/tmp/results/cc.json}
TRIALS=${MPLANE_BENCH_TRIALS:-3}
FAB=mpq$$ HOSTS=6 RECV_TIMEOUT=3600
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-bench-cc.XXXXXX")
RECV_PIDS=
trap '_lib_exit; kill $RECV_PIDS 2>/dev/null; cc_incast_cleanup
	"$MPLANECTL" fabric down --prefix ${FAB}f >/dev/null 2>&1; rm -rf "$TMPD"' EXIT

add() { echo "$1" >>"$TMPD/results.jsonl"; echo "# $1"; }

# window_json CC WHO: the figures of the incast just measured, from 3 s
# on, as one JSON object.
window_json() {
	local q j kbit stall
	read -r -a q <<<"$(queue 3000000)"
	read -r j _ <<<"$(jain "$A" "$B")"
	read -r _ stall <<<"$(stalls 3000000)"
	kbit=$(kbit_out)
	jq -nc --arg cc "$1" --arg who "$2" --arg q "${q[*]}" \
		--argjson d_start $((D1 - D0)) --argjson d_after $((D2 - D1)) \
		--argjson kbit "$kbit" --argjson j "$j" --argjson stall "$stall" \
		--argjson aqm "$(aqm_json)" '
		($q | split(" ") | map(tonumber)) as $q |
		{bench: $who, cc: $cc, queue_p50: $q[1], queue_p99: $q[2],
		 queue_max: $q[3], under_kmin_pct: $q[4], empty_pct: $q[5],
		 drops_start: $d_start,
		 drops_after: $d_after, out_kbit: $kbit, jain: ($j / 1000),
		 longest_stall_ms: $stall} + $aqm'
}

# incast_streams CC: one trial of the test's incast of paced streams.
incast_streams() {
	cc_all "$1"
	D0=$(drops)
	QP_READ=qp_bytes
	incast 3 7
	add "$(window_json "$1" incast_streams)"
}

# incast_engine CC: the engine's roce incast, measured as the streams.
incast_engine() {
	local w
	cc_all "$1"
	recv_stop
	D0=$(drops)
	QP_READ=qp_top
	incast_start engine_incast
	incast_window 3 8
	wait $COLL || fail "the engine's incast failed (cc $1): $(head -c 300 "$TMPD/coll.json")"
	w=$(window_json "$1" incast_engine)
	add "$(jq -c --argjson w "$w" '.sizes[0] as $s | $w + {
		time_ms: ($s.time_us / 1000 | floor), verified: $s.verified,
		goodput_kbit: ($s.size * 4 * 8 * 1000 / $s.time_us | floor),
		retransmits: .transport_stats.retransmits,
		timeouts: .transport_stats.timeouts}' "$TMPD/coll.json")"
	recv_start
}

# victim CC: allreduce h0,h5 (roce, port 4792) under the streams into h0.
victim() {
	local p0
	cc_all "$1"
	p0=$(rt tbf_sent)
	streams 900
	busywait 30000 incast_on "$p0" || fail "no traffic through the bottleneck"
	sleep 3
	"$MPLANECTL" -j collective run --prefix $FAB --op allreduce --hosts h0,h5 \
		--transport roce --port 4792 -b 4K -e 4K --duration 20 -w 0 --no-marks \
		--timeout 60 >"$TMPD/victim.json" || fail "victim allreduce (cc $1)"
	kill -INT "${PIDS[@]}" 2>/dev/null || true
	wait "${PIDS[@]}" 2>/dev/null || true
	add "$(jq -c --arg cc "$1" --argjson aqm "$(aqm_json)" '.sizes[0] | {bench: "victim_allreduce", cc: $cc,
		size: .size, iters: .iters, verified: .verified,
		cct_p50_ms: (.p50_us / 100 | round / 10), cct_p99_ms: (.p99_us / 100 | round / 10),
		cct_mean_ms: (.time_us / 100 | round / 10)} + $aqm' \
		"$TMPD/victim.json")"
}

# The switches' marking of the records that follow: RED, the profile,
# unless test_aqm has set another.
AQM=
aqm_json() { if [ -n "$AQM" ]; then jq -nc --arg a "$AQM" '{aqm: $a}'; else echo '{}'; fi; }

# aqm_set red|pi: the leaf's marking, for the records after.
aqm_set() {
	AQM=$1
	if [ "$1" = pi ]; then
		switches_attach --aqm pi --pi-target 12000
	else
		switches_attach
	fi
}

test_streams() {
	local t
	[ -f /run/mplane/fabric/$FAB.json ] || fabric_build
	for ((t = 0; t < TRIALS; t++)); do
		incast_streams off
		incast_streams dcqcn
	done
}

test_engine() {
	local t
	[ -f /run/mplane/fabric/$FAB.json ] || fabric_build
	for ((t = 0; t < TRIALS; t++)); do
		incast_engine off
		incast_engine dcqcn
	done
}

test_victim() {
	local t
	[ -f /run/mplane/fabric/$FAB.json ] || fabric_build
	for ((t = 0; t < TRIALS; t++)); do
		victim off
		victim dcqcn
	done
}

test_aqm() {
	local t a
	[ -f /run/mplane/fabric/$FAB.json ] || fabric_build
	for ((t = 0; t < TRIALS; t++)); do
		for a in $( ((t % 2)) && echo pi red || echo red pi); do
			aqm_set "$a"
			incast_streams dcqcn
			victim dcqcn
		done
	done
	aqm_set red
	AQM=
}

# pps_slice CC: mp0's tx packets a second on h1 in half a second of
# 64-byte RoCE, with CC set to CC on both hosts.
pps_slice() {
	local h
	for h in 0 1; do
		"$MPLANECTL" -n ${FAB}f-h$h link set mp0 cc "$1"
	done
	"$MPLANECTL" -n ${FAB}f-h1 -j traffic send 10.99.0.1 --roce 0x201 --size 64 \
		--rate 10000000 --burst 100000 --duration 0.5 | jq .pps
}

# pps_trial FIRST: eight slices, CC off and on in turn in ABBA order from
# FIRST (off: off on on off off on on off), and each's mean pps.  A TCG
# guest's packet rate jumps (by up to two, in either direction) between
# runs seconds apart; slices that alternate this fast see most jumps on
# both sides alike, where two 2 s runs, one each, put each jump on one.
pps_trial() {
	local first=$1 second=dcqcn cc pps on=() off=()
	[ "$first" = off ] || second=off
	for cc in "$first" "$second" "$second" "$first" "$first" "$second" "$second" "$first"; do
		pps=$(pps_slice "$cc") || fail "traffic send (cc $cc)"
		if [ "$cc" = off ]; then off+=("$pps"); else on+=("$pps"); fi
	done
	pps_add off "${off[@]}"
	pps_add dcqcn "${on[@]}"
}

# pps_add CC PPS...: a trial's slices of CC, and their mean.
pps_add() {
	local cc=$1 IFS=,
	shift
	add "$(jq -nc --arg cc "$cc" --argjson s "[$*]" \
		'{bench: "pps", cc: $cc, pps: (($s | add) / ($s | length)), slices: $s}')"
}

pps_receiver_bound() { [ -n "$(ss -N ${FAB}f-h0 -Hlun 'sport = :4791')" ]; }

test_pps() {
	local t
	"$MPLANECTL" fabric up -q --force --prefix ${FAB}f --planes 1 --leaves 1 \
		--spines 1 --hosts 2 --rate 10gbit --probe-interval off --cc dcqcn \
		>/dev/null || fail "fabric up (pps)"
	ip netns exec ${FAB}f-h0 "$MPLANECTL" traffic recv --port 4791 --timeout 600 \
		>/dev/null 2>&1 &
	RECV_PIDS="$RECV_PIDS $!"
	# Packets sent before it listens cost an ICMP error each, not a
	# delivery; counting instructions, a sleep would not wait for it.
	busywait 60000 pps_receiver_bound || fail "traffic recv never bound UDP 4791"
	# Every other trial starts with CC on.
	for ((t = 0; t < TRIALS; t++)); do
		if ((t % 2)); then pps_trial dcqcn; else pps_trial off; fi
	done
}

# MPLANE_BENCH_CC_PARTS="pps" (say) runs only those of streams, engine,
# victim, aqm and pps.
parts=()
for t in ${MPLANE_BENCH_CC_PARTS:-streams engine victim aqm pps}; do parts+=("test_$t"); done
mplane_load
ktap_run "${parts[@]}"
mkdir -p "$(dirname "$OUT")"
jq -s . "$TMPD/results.jsonl" >"$OUT" 2>/dev/null || echo '[]' >"$OUT"
# The summary: median and worst per bench and cc.
jq -r '
	def med: sort | .[(length - 1) / 2 | floor];
	group_by(.bench + "/" + .cc + "/" + (.aqm // ""))[] | . as $g |
	"# summary \($g[0].bench) cc \($g[0].cc)\($g[0].aqm // "" | if . != "" then " aqm " + . else "" end) (\(length) trials): " +
	([$g[0] | keys[] | select(. != "bench" and . != "cc" and . != "aqm" and . != "slices")] | map(. as $k |
		"\($k) median \([$g[][$k]] | med) worst \(
			if ($k | test("goodput|jain|pps|sent|out_kbit|verified|iters")) then [$g[][$k]] | min
			else [$g[][$k]] | max end)") | join(", "))' "$OUT"
jq -r '([.[] | select(.bench == "pps" and .cc == "off") | .pps]) as $off |
	([.[] | select(.bench == "pps" and .cc == "dcqcn") | .pps]) as $on |
	[range(0; [$off, $on] | map(length) | min) | $on[.] / $off[.]] | sort |
	"# summary pps ratio on/off per trial: \(map(. * 1000 | round / 1000)) median \(.[(length - 1) / 2 | floor]) worst \(min) (goal >= 0.9)"' "$OUT"
# Counting instructions, the guest's ns are 2^SHIFT instructions each:
# a packet's cost, sender, both mp0s and receiver, with CC off and on.
if [ -n "${MPLANE_VM_ICOUNT:-}" ]; then
	jq -r --argjson shift "$MPLANE_VM_ICOUNT" '
		def per_packet(cc): [.[] | select(.bench == "pps" and .cc == cc) | .slices[]] |
			1e9 / (add / length) / pow(2; $shift) | round;
		per_packet("off") as $off | per_packet("dcqcn") as $on |
		"# summary instructions per packet (icount shift \($shift)): CC off \($off), on \($on), CC adds \($on - $off)"' "$OUT"
fi

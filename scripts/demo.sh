#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh: a link fails under load, and mplane's telemetry tells the story.
#
# A 2-plane leaf-spine fabric (mplanectl fabric) with adaptive routing on
# every switch and mp0 on every host; each host streams to the next one.
# Halfway through, host h0's rail in plane 1 loses its link.  h0's mp0
# sees the carrier go and moves its flows to plane 0 at once; h3, which
# sends to h0, learns it from its liveness probes a few milliseconds
# later.  Everything is recorded on one timeline (kmod tracepoints, the
# plane and port samplers, AR's events), and the report shows per-plane
# throughput before and after, the gap and the loss, ECN and the queues.
#
# `make demo` runs it as root in a VM booted on a Debian kernel (this
# host's kernel cannot load modules); it runs as well on any host that can
# insmod, with MPLANE_KO pointing at mplane.ko.
set -euo pipefail
ROOT=${MPLANE_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
KO=${MPLANE_KO:?set MPLANE_KO to the mplane.ko built for this kernel}
MPLANECTL=${MPLANE_BUILD:-$ROOT/.build}/mplanectl
OUT=${MPLANE_DEMO_OUT:-$([ -d /tmp/results ] && echo /tmp/results || echo /tmp)}
FAB=demo HOSTS=4
RATE=${MPLANE_DEMO_PPS:-500}		# packets/s of each stream
SIZE=1000				# UDP payload bytes
SECONDS_RUN=4 FAIL_AT=2			# the run, and when the link fails
CAPTURE=$OUT/demo.mpcap

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
show() { printf '$ %s\n' "$*"; "$@"; }
mpx() { "$MPLANECTL" "$@"; }
host() { echo "$FAB-h$1"; }

cleanup() {
	mpx telemetry detach >/dev/null 2>&1 || true
	mpx fabric down --prefix "$FAB" >/dev/null 2>&1 || true
	rmmod mplane 2>/dev/null || true
}
trap cleanup EXIT

step "load mplane.ko on $(uname -r)"
insmod "$KO"

# Links of 5 Mbit/s: a stream (4 Mbit/s) fits one plane only just, so
# the plane left to h0 queues after the failure.  Slow links keep the
# packet rate within what an emulated (TCG) guest forwards.  With
# mplane.ko loaded, fabric up gives every host mp0 over its two rails,
# probing every other host: every 10 ms, so that a dead path is left
# within 50 ms (a fourth probe unanswered, the misses being 3).
step "the fabric: 2 planes x (2 leaves, 2 spines), 4 hosts, 5 Mbit/s links, mp0 on every host"
show mpx fabric up --prefix "$FAB" --planes 2 --leaves 2 --spines 2 \
	--hosts $HOSTS --rate 5mbit --mp0 --probe-interval 10ms --quiet
# flowlet: a flow moves between spines only after an idle gap, so the
# switches' events are flowlet moves and samples, not one per packet.
show mpx bpf attach --fabric "$FAB" --policy flowlet --ring-bytes 1048576

step "mp0 on every host: one plane per rail, probing every other host"
show mpx -n "$(host 0)" link show mp0

step "telemetry: record everything; with the traffic, sample every plane each 1 ms, every switch port each 2 ms"
show mpx telemetry attach
rm -f "$OUT/demo-record.ready"
# What the rings hold from the setup is not part of the story.
mpx events --duration 0.1 >/dev/null 2>&1 || true
echo "\$ mplanectl telemetry record -o $CAPTURE --fabric $FAB &"
"$MPLANECTL" telemetry record -o "$CAPTURE" --fabric "$FAB" --poll-hz 0 \
	--ready-file "$OUT/demo-record.ready" 2>"$OUT/demo-record.txt" &
record=$!
while [ ! -e "$OUT/demo-record.ready" ]; do sleep 0.05; done

step "traffic: h0->h1->h2->h3->h0, $RATE pkt/s of $SIZE bytes, 4 flows each, ${SECONDS_RUN} s"
streams=()
for ((h = 0; h < HOSTS; h++)); do
	rm -f "$OUT/demo-ready-h$h"
	"$MPLANECTL" -n "$(host $h)" -j traffic recv --idle 1 --timeout $((SECONDS_RUN + 3)) \
		--expect $((RATE * SECONDS_RUN / 4)) \
		--ready-file "$OUT/demo-ready-h$h" >"$OUT/demo-recv-h$h.json" &
	streams+=($!)
done
for ((h = 0; h < HOSTS; h++)); do
	while [ ! -e "$OUT/demo-ready-h$h" ]; do sleep 0.05; done
done
# The samplers start with the traffic, so that "before the failure" is
# all traffic.
for ((h = 0; h < HOSTS; h++)); do
	mpx -n "$(host $h)" link set mp0 sample-interval 1000
done
mpx telemetry sample --fabric "$FAB" --interval 2ms >/dev/null
for ((h = 0; h < HOSTS; h++)); do
	to=10.99.$(((h + 1) % HOSTS)).1
	"$MPLANECTL" -n "$(host $h)" -j traffic send "$to" --flows 4 --rate $RATE \
		--size $SIZE --count $((RATE * SECONDS_RUN)) \
		>"$OUT/demo-send-h$h.json" 2>"$OUT/demo-send-h$h.err" &
	streams+=($!)
done
sleep $FAIL_AT
step "t=${FAIL_AT}s: the link between h0 and its plane-1 leaf goes down"
# Through the fault injector, so that the fault is on the timeline at the
# time it was made: what follows is measured from it, not from when mp0
# was told.
show mpx fabric fault --prefix "$FAB" port p1l0:h0 down
wait "${streams[@]}" || true
# Samplers off first, so that the capture's counts close exactly.
for ((h = 0; h < HOSTS; h++)); do
	mpx -n "$(host $h)" link set mp0 sample-interval 0
done
mpx telemetry sample --fabric "$FAB" --interval off >/dev/null
kill -INT "$record"
wait "$record" || true

step "the story in numbers"
echo "What each receiver saw (its own count of the sender's numbered packets):"
for ((h = 0; h < HOSTS; h++)); do
	from=$(((h + HOSTS - 1) % HOSTS))
	jq -r --arg p "h$from -> h$h" \
		'"  \($p): \(.received) received, \(.lost) lost, longest delivery gap \(.max_gap_us / 1000 * 10 | floor / 10) ms"' \
		"$OUT/demo-recv-h$h.json"
done
mpx -j telemetry report --around 1 "$CAPTURE" >"$OUT/demo-report.json"
jq -r '
  def mbit: if . == null then "-" else (. / 1e5 | floor / 10 | tostring) end;
  def at(t): [.anomalies[] | select(.type == t)][0];
  def since(a; b): ((a.t_ms - b.t_ms) * 1000 | floor / 1000 | tostring) + " ms";
  "Each host'"'"'s planes (mp0), Mbit/s before -> after the failure:",
  (.entities[] | select(.kind == "plane") |
   "  \(.name | sub("^demo-"; ""))  \(.bw_before_bps | mbit) -> \(.bw_after_bps | mbit)"),
  "The failure, on one timeline (ms from the start of the capture):",
  (.anomalies[] | "  +\(.t_ms * 1000 | floor / 1000) ms  \(.type)  \(.entity)"),
  (if at("fault") and at("plane_down") then
   "  from the fault, as the injector made it: mp0 heard of it (plane_down) \(since(at("plane_down"); at("fault"))) later" +
   (if at("failover") then ", and failed over \(since(at("failover"); at("fault"))) after the fault" else "" end)
   else empty end),
  "ECN-CE marks: \([.entities[].ecn_ce] | add), CNPs: \([.entities[].cnp] | add) (CC is off here: fabric up --cc dcqcn turns DCQCN on)",
  "Queue depth over every plane and port sample: p99 \(.queue.p99_bytes) B, max \(.queue.max_bytes) B",
  "Events recorded: \(.event_count), dropped: \(.dropped)"
' "$OUT/demo-report.json"
echo
echo "h3 loses what it sent to h0 over plane 1 until its probes (every 10 ms,"
echo "3 misses) tell it that h0 is gone from that plane; h0 itself loses at"
echo "most a packet, since mp0 sees the carrier.  Unaffected streams show the"
echo "emulated guest's own stalls in their longest gaps."

step "the timeline around the failure (mplanectl telemetry report --around 1)"
mpx telemetry report --around 1 "$CAPTURE" | sed -n '/^anomalies/,$p'
echo
echo "The capture: ${MPLANE_DEMO_SHOWN_OUT:-$OUT}/demo.mpcap ('mplanectl telemetry report|hist|dump FILE')."

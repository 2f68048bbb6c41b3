#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# telemetry.sh: what the telemetry costs the datapath, run as root inside
# the test VM by `make bench`.  mp0 (two planes, flowlet) carries a stream
# sent as fast as the sender can, with the telemetry off and then on: the
# kmod relay attached (plane choices 1 in 64), every plane sampled every
# 100 us and a recorder writing it all to a file.  Off and on alternate
# twice, and the result is their ratio, measured in this one run.
source "$(dirname "$0")/../selftests/lib/lib.sh"
source "$(dirname "$0")/../selftests/lib/mplane.sh"
source "$(dirname "$0")/lib.sh"

PKTS=${MPLANE_BENCH_PKTS:-60000}
OUT=${MPLANE_BENCH_OUT:-/tmp/results/telemetry.json}
CAPTURE=$TMPDIR/bench-telemetry.mpcap

telemetry_on() {
	"$MPLANECTL" telemetry attach >/dev/null || fail "telemetry attach"
	"$MPLANECTL" -n "$ha" link set mp0 sample-interval 100
	"$MPLANECTL" telemetry record -o "$CAPTURE" --poll-hz 1000 \
		--ready-file "$TMPDIR/rec-ready" 2>"$TMPDIR/rec.txt" &
	recorder=$!
	busywait 5000 test -e "$TMPDIR/rec-ready" || fail "recorder not ready"
}

telemetry_off() {
	kill -INT "$recorder"
	wait "$recorder"
	rm -f "$TMPDIR/rec-ready"
	echo "# recorder: $(head -1 "$TMPDIR/rec.txt")"
	"$MPLANECTL" -n "$ha" link set mp0 sample-interval 0
	"$MPLANECTL" telemetry detach >/dev/null
}

mplane_load
mp_pair 2
ip netns exec "$ha" ping -c 4 -i 0.05 -q $MP_B4 >/dev/null
for round in 1 2; do
	record "telemetry off" pps "$(run_stream "$PKTS" 1000000)"
	telemetry_on
	record "telemetry on" pps "$(run_stream "$PKTS" 1000000)"
	telemetry_off
done
cleanup_all_ns
printf '%s\n' "${results[@]}" | jq -s '{kernel: "'"$(uname -r)"'", results: .}' >"$OUT"
jq -r '
  def mean(f): map(f) | add / length;
  (.results | map(select(.name == "telemetry off"))) as $off |
  (.results | map(select(.name == "telemetry on"))) as $on |
  "\nTelemetry on vs off, mp0 flowlet, 64-byte UDP, 8 flows (\(.kernel), TCG):",
  "  off: \($off | mean(.recv_pps) | floor) pps, \($off | mean(.cpu_us_per_pkt) * 10 | floor / 10) us CPU/pkt",
  "  on:  \($on | mean(.recv_pps) | floor) pps, \($on | mean(.cpu_us_per_pkt) * 10 | floor / 10) us CPU/pkt",
  "  on/off: throughput \(($on | mean(.recv_pps)) / ($off | mean(.recv_pps)) * 1000 | floor / 1000), CPU per packet \(($on | mean(.cpu_us_per_pkt)) / ($off | mean(.cpu_us_per_pkt)) * 1000 | floor / 1000)"
' "$OUT"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# record.sh: how many events per second 'mplanectl telemetry record' takes
# from a ring to a file, next to the raw ring rate in the same run: a bare
# libbpf ring_buffer loop (bench/ring_drain.c, built here) and, for
# reference, 'mplanectl events' printing to /dev/null; and their ratio.
#
# The producer is hostacct's ingress program run by BPF_PROG_TEST_RUN on
# a CNP (one event per run), as fast as the kernel runs it: far faster
# than any reader, so the ring overflows and what a reader took over the
# burst's length is the most it sustains; above that rate a ring fills
# and drops.  A second, paced run (bursts smaller than the ring, one
# bpftool process each) checks that record is lossless below it.
# Runs on the host (no VM): the reader's own speed is what is measured.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${MPLANE_BUILD:-$ROOT/.build}
M=$BUILD/mplanectl
OUT=${MPLANE_BENCH_OUT:-$BUILD/bench/record.txt}
N=${MPLANE_BENCH_EVENTS:-3000000}	# events per saturating burst
NS=mpbench-rec-$$
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-bench-record.XXXXXX")

cleanup() {
	[ -n "${PIN:-}" ] && rm -rf "$PIN"
	ip netns del "$NS" 2>/dev/null || true
	rm -rf "$TMPD"
}
trap cleanup EXIT

mkdir -p "$BUILD/bench"
cc -O2 -Wall -Wextra -Werror -o "$BUILD/bench/ring_drain" "$ROOT/bench/ring_drain.c" \
	$(pkg-config --cflags --libs libbpf)

# A RoCEv2 CNP (BTH opcode 0x81) for 10.99.0.1, as hostacct's ingress sees it.
python3 - "$TMPD/cnp.bin" <<'EOF'
import struct, sys
eth = bytes.fromhex("020000000002" "020000000001" "0800")
bth = bytes([0x81, 0, 0xff, 0xff]) + struct.pack(">II", 0x77, 0)
pl = bth + bytes(16) + bytes(4)
udp = struct.pack(">HHHH", 40000, 4791, 8 + len(pl), 0)
ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 28 + len(pl), 0, 0, 64, 17, 0,
                 bytes([10, 99, 0, 2]), bytes([10, 99, 0, 1]))
s = sum(struct.unpack(">10H", ip))
s = (s & 0xffff) + (s >> 16)
s = (s & 0xffff) + (s >> 16)
ip = ip[:10] + struct.pack(">H", ~s & 0xffff) + ip[12:]
open(sys.argv[1], "wb").write(eth + ip + udp + pl)
EOF

ip netns add "$NS"
ip -n "$NS" link add va type veth peer name vb
ip -n "$NS" link set va up
ip -n "$NS" link set vb up
"$M" -n "$NS" bpf attach --prog hostacct va >/dev/null
st() { "$M" -n "$NS" -j bpf status --prog hostacct va | jq -r "$1"; }
PIN=$(st .pin)
PROG=$(st .ingress.prog_id)

# burst COUNT : run the program COUNT times in one call; prints its ns.
burst() {
	bpftool prog run id "$PROG" data_in "$TMPD/cnp.bin" repeat "$1" |
		awk '/duration/ { print $NF + 0 }'
}

# measure NAME READER-COMMAND... : start the reader, fire one saturating
# burst, stop it; prints "NAME read produced dropped burst_ns".
measure() {
	local name=$1 p0 d0 ns read
	shift
	p0=$(st .event_ring.produced)
	d0=$(st .event_ring.dropped)
	"$@" >"$TMPD/$name.out" 2>"$TMPD/$name.err" &
	local pid=$!
	sleep 1
	ns=$(burst "$N")
	sleep 1
	kill -INT "$pid"
	wait "$pid" || true
	case $name in
	raw)	read=$(cat "$TMPD/$name.out") ;;
	events)	read=$(jq -r .read "$TMPD/$name.err") ;;
	*)	read=$(jq -r '.sources[] | select(.source | test("/va$")) | .recorded' \
			"$TMPD/$name.out") ;;
	esac
	echo "$name $read $(( $(st .event_ring.produced) - p0 )) $(( $(st .event_ring.dropped) - d0 )) $((ns * N))"
}

# A reader's rate: what it took over the burst's length.
rate() { awk -v r="$1" -v ns="$2" 'BEGIN { printf "%.0f", r / (ns / 1e9) }'; }

mkdir -p "$(dirname "$OUT")"
# Drain what an earlier run left.
"$M" events --pin "$PIN" --duration 0.2 >/dev/null 2>&1 || true
read -r _ raw_read raw_prod raw_drop raw_ns < <(measure raw \
	"$BUILD/bench/ring_drain" "$PIN/mp_events")
read -r _ ev_read ev_prod ev_drop ev_ns < <(measure events \
	"$M" -j events --pin "$PIN")
read -r _ rec_read rec_prod rec_drop rec_ns < <(measure record \
	"$M" -j telemetry record -o "$TMPD/bench.mpcap" --pin "$PIN" --poll-hz 0)
raw_rate=$(rate "$raw_read" "$raw_ns")
ev_rate=$(rate "$ev_read" "$ev_ns")
rec_rate=$(rate "$rec_read" "$rec_ns")

# Paced: bursts of 3000 (the ring holds 4096), one bpftool run each.
p0=$(st .event_ring.produced)
d0=$(st .event_ring.dropped)
"$M" -j telemetry record -o "$TMPD/paced.mpcap" --pin "$PIN" --poll-hz 0 \
	>"$TMPD/paced.json" 2>/dev/null &
pid=$!
sleep 1
t0=$(date +%s%N)
for _ in $(seq 40); do burst 3000 >/dev/null; done
t1=$(date +%s%N)
sleep 0.5
kill -INT "$pid"
wait "$pid" || true
paced_prod=$(( $(st .event_ring.produced) - p0 ))
paced_drop=$(( $(st .event_ring.dropped) - d0 ))
paced_rate=$(awk -v n="$paced_prod" -v ns="$((t1 - t0))" 'BEGIN { printf "%.0f", n / (ns / 1e9) }')

{
	echo "# telemetry record vs the raw ring: one hostacct ring, $N-event bursts"
	printf "%-28s %12s %12s %12s %14s\n" reader read produced dropped "events/s"
	printf "%-28s %12s %12s %12s %14s\n" "raw ring_buffer loop" "$raw_read" \
		"$raw_prod" "$raw_drop" "$raw_rate"
	printf "%-28s %12s %12s %12s %14s\n" "events (> /dev/null)" "$ev_read" \
		"$ev_prod" "$ev_drop" "$ev_rate"
	printf "%-28s %12s %12s %12s %14s\n" "telemetry record (file)" "$rec_read" \
		"$rec_prod" "$rec_drop" "$rec_rate"
	awk -v a="$rec_rate" -v b="$raw_rate" \
		'BEGIN { printf "ratio record/raw: %.2f\n", b ? a / b : 0 }'
	echo "paced: $paced_prod events at $paced_rate events/s offered, $paced_drop dropped"
} | tee "$OUT"

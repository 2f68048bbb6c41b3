#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sampler_bpf.sh: what the switch ports' sampler (the bpf_timer of
# bpf/ar.bpf.c) costs, run natively as root (BPF and veth only):
#
#   bash bench/sampler_bpf.sh
#
# The fabric of selftests/bpf/sampler.sh (1 plane, 2 leaves, 1 spine,
# 4 hosts: 3 switches, 8 ports), AR attached, idle.  Per interval (off,
# 1 ms, 100 us, 10 us), two windows of SECS seconds:
#   - no reader: the system + irq + softirq time of /proc/stat, in % of
#     one core, and the samples produced per second (the switches'
#     mp_event_stats), i.e. how often the timers really fired x 8 ports;
#   - 'mplanectl -j events --type port_sample' reading: the samples it
#     delivered per second and what the full rings refused.
# Each row is the median of ROUNDS rounds by CPU; the rounds interleave
# the intervals so that noise from elsewhere hits every row alike.
source "$(dirname "$0")/../selftests/lib/lib.sh"
source "$(dirname "$0")/lib.sh"

MPLANECTL=${MPLANE_BUILD:-$(dirname "$0")/../.build}/mplanectl
FAB=mpsb$$
SECS=${MPLANE_BENCH_SECS:-2}
ROUNDS=${MPLANE_BENCH_ROUNDS:-3}
PORTS=8
OUT=${MPLANE_BENCH_OUT:-${MPLANE_BUILD:-$(dirname "$0")/../.build}/bench/sampler_bpf.json}
HZ=$(getconf CLK_TCK)
PINS=/sys/fs/bpf/mplane/fabric/$FAB
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-bench-sampler.XXXXXX")
trap '"$MPLANECTL" fabric down --prefix $FAB >/dev/null 2>&1; rm -rf "$TMPD"' EXIT

# Kernel-side jiffies of every CPU: system, irq, softirq.

# Events FIELD (produced or dropped) by every switch so far, summed over
# CPUs.
ev_stat() {
	local f n=0 p
	for f in "$PINS"/*/mp_event_stats; do
		p=$(bpftool -j map dump pinned "$f" |
			jq --arg f "$1" '[.[0].formatted.values[].value[$f]] | add')
		n=$((n + p))
	done
	echo $n
}

# Empty the rings, so that a reader starting now reads only new samples.
drain() {
	"$MPLANECTL" events --fabric $FAB --duration 0.1 >/dev/null 2>&1
}

# row US: prints "interval_us produced/s delivered/s dropped/s cpu%".
row() {
	local us=$1 c0 c1 t0 t1 p0 p1 a0 a1 b0 b1 d0 d1 rd
	if [ "$us" = 0 ]; then
		"$MPLANECTL" telemetry sample --fabric $FAB --interval off >/dev/null
	else
		"$MPLANECTL" telemetry sample --fabric $FAB --interval "${us}us" >/dev/null
	fi || fail "sample $us"
	sleep 0.2	# let the change settle before measuring
	# Reading the counters takes a while: time it from the middle of
	# one read to the middle of the other.
	a0=$(date +%s%N) p0=$(ev_stat produced) b0=$(date +%s%N)
	c0=$(cpu_kernel) t0=$(date +%s%N)
	sleep "$SECS"
	c1=$(cpu_kernel) t1=$(date +%s%N)
	a1=$(date +%s%N) p1=$(ev_stat produced) b1=$(date +%s%N)
	# The reader prints its summary last, on stderr.
	drain
	d0=$(ev_stat dropped)
	rd=$("$MPLANECTL" -j events --fabric $FAB --type port_sample \
		--duration "$SECS" 2>&1 >/dev/null | tail -n 1 | jq .read)
	d1=$(ev_stat dropped)
	awk -v us="$us" -v p="$((p1 - p0))" -v c="$((c1 - c0))" \
		-v ns="$((t1 - t0))" -v hz="$HZ" -v secs="$SECS" \
		-v pns="$(((a1 + b1) / 2 - (a0 + b0) / 2))" \
		-v rd="$rd" -v dr="$((d1 - d0))" 'BEGIN {
		s = ns / 1e9
		printf "%-11s %11.0f %11.0f %11.0f %11.0f %7.1f\n",
			us ? us : "off", us ? 1e6 / us * '$PORTS' : 0,
			p / (pns / 1e9), rd / secs, dr / secs, 100 * c / hz / s
	}'
}

"$MPLANECTL" fabric up --prefix $FAB --planes 1 --leaves 2 --spines 1 \
	--hosts 4 --rate 50mbit --no-mp0 >/dev/null 2>&1 || fail "fabric up"
"$MPLANECTL" bpf attach --fabric $FAB >/dev/null || fail "bpf attach"
sleep 1	# let the new links' own chatter (DAD, MLD) pass
echo "# switch port sampler (bpf_timer), 3 switches, $PORTS ports, idle;" \
	"$SECS s per window, median of $ROUNDS rounds; $(nproc) CPUs"
printf "%-11s %11s %11s %11s %11s %7s\n" interval_us target/s produced/s \
	delivered/s dropped/s cpu_%
rows=$(for ((r = 0; r < ROUNDS; r++)); do
	row 0
	row 1000
	row 100
	row 10
done | medians 1 6)
echo "$rows"
"$MPLANECTL" telemetry sample --fabric $FAB --interval off >/dev/null
mkdir -p "$(dirname "$OUT")" 2>/dev/null &&
	echo "$rows" | awk 'BEGIN { printf "[" }
		{ printf "%s{\"interval_us\":\"%s\",\"target_per_s\":%s,\"produced_per_s\":%s,\"delivered_per_s\":%s,\"dropped_per_s\":%s,\"cpu_pct\":%s}",
			(NR > 1 ? "," : ""), $1, $2, $3, $4, $5, $6 }
		END { print "]" }' >"$OUT" || true

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sampler_kmod.sh: what mplane.ko's plane sampler costs, run as root in the
# test VM:
#
#   selftests/vm/run 6.1 -- bash bench/sampler_kmod.sh
#
# mp0 with two planes, idle, for SECS seconds per row (the median of
# ROUNDS rounds, by CPU): the sampler off
# (the baseline), then at 1000, 100 and 10 us with mplane:plane_sample
# enabled in a trace instance (each event is written to its ring buffer),
# and at 10 us with the tracepoint off (the timer alone).  CPU is the
# system + irq + softirq time of /proc/stat over the row, in % of one
# core; samples/s is per plane, counted from the instance's buffer
# (entries + overrun, so nothing is missed when it wraps).
source "$(dirname "$0")/../selftests/lib/lib.sh"
source "$(dirname "$0")/../selftests/lib/mplane.sh"
source "$(dirname "$0")/lib.sh"

SECS=${MPLANE_BENCH_SECS:-2}
ROUNDS=${MPLANE_BENCH_ROUNDS:-3}
OUT=${MPLANE_BENCH_OUT:-/tmp/results/sampler_kmod.json}
TRACING=/sys/kernel/tracing
INST=$TRACING/instances/mplane_bench_$$
HZ=$(getconf CLK_TCK)

# Kernel-side jiffies: system, irq, softirq.

events() {
	cat $INST/per_cpu/cpu*/stats |
		awk '/^(entries|overrun):/ {n += $2} END {print n + 0}'
}

# row INTERVAL TRACE: one measurement; prints "interval samples/s cpu%".
row() {
	local us=$1 trace=$2 c0 c1 t0 t1 n
	# The tracepoint first: patching its static branch while the timer
	# runs that code on another vCPU can oops under TCG.
	echo "$trace" >$INST/events/mplane/plane_sample/enable
	"$MPLANECTL" -n "$ha" link set mp0 sample-interval "$us"
	echo >$INST/trace
	sleep 0.2	# let the change settle before measuring
	echo >$INST/trace
	c0=$(cpu_kernel) t0=$(date +%s%N)
	sleep "$SECS"
	c1=$(cpu_kernel) t1=$(date +%s%N)
	n=$(events)
	"$MPLANECTL" -n "$ha" link set mp0 sample-interval 0
	echo 0 >$INST/events/mplane/plane_sample/enable
	awk -v us="$us" -v tr="$trace" -v n="$n" -v c="$((c1 - c0))" \
		-v ns="$((t1 - t0))" -v hz="$HZ" 'BEGIN {
		s = ns / 1e9
		printf "%-10s %-10s %12.0f %12.0f %10.1f\n",
			us ? us : "off", tr ? "on" : "off",
			us ? 1e6 / us : 0, n / 2 / s, 100 * c / hz / s
	}'
}

main() {
	local rows r
	mp_pair 2
	sleep 1	# let the new links' own chatter (DAD, MLD) pass
	[ -d $TRACING/instances ] || mount -t tracefs nodev $TRACING
	mkdir $INST
	echo 4096 >$INST/buffer_size_kb
	printf "%-10s %-10s %12s %12s %10s\n" interval_us tracepoint \
		target/s samples/s cpu_%
	# Rounds of every row, so that noise from the host hits them alike.
	rows=$(for ((r = 0; r < ROUNDS; r++)); do
		row 0 1
		row 1000 1
		row 100 1
		row 10 1
		row 10 0
	done | medians 2 5)
	echo "$rows"
	"$MPLANECTL" -n "$ha" link set mp0 sample-interval 0
	rmdir $INST
	mkdir -p "$(dirname "$OUT")" 2>/dev/null &&
		echo "$rows" | awk 'BEGIN { printf "[" }
			{ printf "%s{\"interval_us\":\"%s\",\"tracepoint\":\"%s\",\"samples_per_s\":%s,\"cpu_pct\":%s}",
				(NR > 1 ? "," : ""), $1, $2, $4, $5 }
			END { print "]" }' >"$OUT" || true
}

(
	trap cleanup_all_ns EXIT
	main
)

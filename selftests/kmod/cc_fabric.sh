#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cc_fabric.sh: DCQCN end to end on a fabric (issue 16, section 5).  A
# 4:1 incast of RoCEv2 streams (h1..h4 to h0, one QP each, ECT(0))
# through one leaf running ar with ECN marking; the bottleneck is the
# leaf's port h0.  With CC off the port's queue sits at its limit and
# tbf drops; with DCQCN on every host's mp0, once the first cuts have
# landed, the queue stays under the limit with no drops, the link stays
# busy, and the four flows share it fairly (Jain's index over the last
# second, from the bytes of each QP that h0's rail received: hostacct).
# The queue is the ar program's virtual queue of that port, sampled
# every 2 ms by the switch's sampler (port_sample events).
#
# Scale: one plane, one leaf, every link 4 Mbit/s (about 460 frames of
# 1086 bytes a second at the bottleneck, which a 1-vCPU TCG guest
# forwards with room to spare).  The port's tbf limit is its burst (two
# frames, 3028 bytes) plus 20 ms at the rate: 13028 bytes, 12 frames.
# Kmin 3000 and Kmax 9000 (RED, pmax 20%) sit inside it, as DCQCN's
# switch profile sits inside a real buffer.
#
# Why traffic send --roce and not the engine's roce transport: the
# engine keeps 256 packets in flight per QP with a 4 MiB send buffer, so
# a whole window sits in the sender rail's fq, stamped at the rate of
# the moment mp0 sent it: a cut takes effect a window later (256 x 8.9
# ms = 2.3 s at a fair share), longer than the queue's 20 ms and the
# retransmission timer's 400 ms ceiling, and the loop cannot hold the
# queue (Documentation/benchmarks.md has the engine's figures).  A real
# RNIC paces its QPs where it schedules them, with no host queue behind
# the rate limiter.  Here the senders are paced streams whose socket
# buffer is held to 16 KiB (net.core.wmem_default; 7 packets of 2.3 KiB
# truesize), so that little waits at the old rate and the loop's delay
# is mostly the fabric's.  Less (4608, two packets) starves the senders
# under TCG even with CC off: each packet waits for a wake-up (130
# packets a second, a third of the link, measured).
# shellcheck source-path=SCRIPTDIR source=../lib/lib.sh
source "$(dirname "$0")/../lib/lib.sh"
# shellcheck source=../lib/mplane.sh
source "$(dirname "$0")/../lib/mplane.sh"

FAB=kcc$$
SENDERS=4
RATE_KBIT=4000
LIMIT=$((3028 + RATE_KBIT * 1000 / 8 / 50))	# burst + 20 ms at the rate
KMIN=3000 KMAX=9000 PMAX=20
# Frames of the streams: 1036 bytes of UDP payload (a BTH, 1024 bytes and
# the ICRC, as the engine's packets), 1086 bytes on the wire.
SIZE=1036
FRAME=$((SIZE + 8 + 20 + 14))
# Each sender offers more than the link it is on (460 frames/s): what it
# cannot send it gives up (traffic send's "slipped"), as a window-limited
# sender would wait.
PPS=600
# DCQCN for a 4 Mbit/s fabric whose round trip is milliseconds, where
# ConnectX's defaults are for 100 Gbit/s and microseconds:
#   rate-max 4000      the host link's rate (0 would be mp0's capacity)
#   rate-min 100       well under the fair share of 1000
#   rate-ai 10         0.25% of the line rate per step (DCQCN's R_AI is
#                      0.1% of 40 Gbit/s), so that four flows add 2 Mbit/s
#                      a second together and the queue has time to tell
#   rate-hai 50        5 x R_AI, as ConnectX
#   time-reset 20000   20 ms between increase steps: a few round trips,
#                      as 300 us is at the data-centre's scale
#   byte-reset 1 MiB   at 1 Mbit/s eight seconds a stage: the timer drives
#                      the increases, not the byte counter (32767 bytes
#                      would be a stage every 260 ms and hyper increase)
#   cnp-interval 5000  a CNP per QP per 5 ms, about one per marked packet
#                      at 110 packets a second, a few per round trip
#   reduce-period 10000  at most one cut per QP per 10 ms, about the time
#                      a cut takes to show in the queue
#   alpha-period 5000  alpha decays once per CNP interval, as ConnectX's
#                      (microseconds, per microseconds of CNP interval)
CC_PARAMS="rate-max $RATE_KBIT rate-min 100 rate-ai 10 rate-hai 50 time-reset 20000
	byte-reset 1048576 cnp-interval 5000 reduce-period 10000 alpha-period 5000"
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-kccfab.XXXXXX")
WMEM0=$(</proc/sys/net/core/wmem_default)

trap '_lib_exit; [ -f "$TMPD/recv.pid" ] && kill "$(<"$TMPD/recv.pid")" 2>/dev/null
	echo "$WMEM0" >/proc/sys/net/core/wmem_default
	"$MPLANECTL" fabric down --prefix "$FAB" >/dev/null 2>&1; rm -rf "$TMPD"' EXIT

hns() { echo "$FAB-h$1"; }

fabric_build() {
	local ready=$TMPD/ready
	"$MPLANECTL" fabric up -q --force --prefix "$FAB" --planes 1 --leaves 1 \
		--spines 1 --hosts $((SENDERS + 1)) --rate ${RATE_KBIT}kbit \
		--probe-interval off --cc dcqcn >/dev/null || fail "fabric up"
	"$MPLANECTL" bpf attach --fabric "$FAB" --kmin $KMIN --kmax $KMAX \
		--pmax $PMAX >/dev/null || fail "bpf attach --fabric"
	"$MPLANECTL" -n "$(hns 0)" bpf attach --prog hostacct --ingress r0 \
		>/dev/null || fail "hostacct on h0 r0"
	"$MPLANECTL" telemetry sample --fabric "$FAB" --node p0l0 --interval 2ms \
		>/dev/null || fail "telemetry sample"
	# h0 takes the streams, so that no port unreachable comes back.
	ip netns exec "$(hns 0)" "$MPLANECTL" traffic recv --port 4791 \
		--timeout 120 --ready-file "$ready" >/dev/null 2>&1 &
	echo $! >"$TMPD/recv.pid"
	busywait 30000 test -e "$ready" || fail "receiver not ready"
	echo 16384 >/proc/sys/net/core/wmem_default
}

# cc_all off|dcqcn: every host's mp0, h0 (the NP) included.
cc_all() {
	local h pids=()
	for ((h = 0; h <= SENDERS; h++)); do
		if [ "$1" = off ]; then
			"$MPLANECTL" -n "$(hns $h)" link set mp0 cc off &
		else
			# shellcheck disable=SC2086
			"$MPLANECTL" -n "$(hns $h)" link set mp0 cc dcqcn $CC_PARAMS &
		fi
		pids+=($!)
	done
	for h in "${pids[@]}"; do wait "$h" || fail "cc $1"; done
}

# drops: what the bottleneck's tbf dropped so far.
drops() {
	tc -n "$FAB-p0l0" -s qdisc show dev h0 |
		sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | head -1
}

# qp_bytes: "TIME_US B1 B2 B3 B4", the bytes h0's rail received for each
# sender's QP (0x101..0x104) so far.
qp_bytes() {
	local t=${EPOCHREALTIME/./}
	echo "$t $("$MPLANECTL" -n "$(hns 0)" -j bpf status --prog hostacct r0 |
		jq -r '[.qps[] | select(.dir == "ingress")] as $q |
			[range(1; 5) | . as $h | [$q[] | select(.qpn == 256 + $h) | .bytes] | add // 0] |
			join(" ")')"
}

# incast SECS: the four streams for SECS seconds, the sampler's events
# of the bottleneck into $TMPD/ev; QP bytes at SECS - 3 s and an exec later
# into A and B, the drops then into D1.
incast() {
	local secs=$1 h pids=()
	"$MPLANECTL" -j events --fabric "$FAB" --type port_sample \
		--duration $((secs + 1)) >"$TMPD/ev" 2>/dev/null &
	local ev=$! up
	# The events' clock is CLOCK_MONOTONIC, which /proc/uptime is too.
	read -r up _ </proc/uptime
	T0=$((${up/./} * 10000))
	for ((h = 1; h <= SENDERS; h++)); do
		"$MPLANECTL" -n "$(hns $h)" -j traffic send 10.99.0.1 --roce $((0x100 + h)) \
			--ecn ect0 --size $SIZE --rate $PPS --duration "$secs" \
			>"$TMPD/send$h" &
		pids+=($!)
	done
	sleep $((secs - 3))
	D1=$(drops)
	A=$(qp_bytes)
	sleep 0.6
	B=$(qp_bytes)
	for h in "${pids[@]}"; do wait "$h" || fail "traffic send"; done
	wait $ev
	D2=$(drops)
}

# sent_total: packets the senders of the last incast sent.
sent_total() {
	local h sent=0
	for ((h = 1; h <= SENDERS; h++)); do
		sent=$((sent + $(json_num "$(<"$TMPD/send$h")" sent)))
	done
	echo $sent
}

# queue FROM_US: "N P50 P99 MAX BELOW_KMIN_PCT" of the bottleneck's queue
# samples from FROM_US (after T0) on.
queue() {
	local port
	port=$(ip -n "$FAB-p0l0" -o link show h0 | cut -d: -f1)
	jq -rs --argjson port "$port" --argjson from $(((T0 + $1) * 1000)) \
		--argjson kmin $KMIN '
		[.[] | select(.ifindex == $port and .ts_ns >= $from) | .q_bytes] | sort as $q |
		($q | length) as $n |
		if $n == 0 then "0 0 0 0 0" else
		"\($n) \($q[($n * 0.5) | floor]) \($q[($n * 0.99) | floor]) \($q[-1]) \(([$q[] | select(. < $kmin)] | length) * 100 / $n | floor)"
		end' "$TMPD/ev"
}

# jain "T B1 B2 B3 B4" "T B1 B2 B3 B4": "JAIN_1000 KBIT_S" of the deltas.
jain() {
	local -a a=($1) b=($2)
	local i d s=0 s2=0 dt=$((b[0] - a[0]))
	for i in 1 2 3 4; do
		d=$((b[i] - a[i]))
		s=$((s + d)) s2=$((s2 + d * d))
	done
	[ $s2 -gt 0 ] || { echo "0 0"; return; }
	echo "$((s * s * 1000 / (SENDERS * s2))) $((s * 8 * 1000 / dt))"
}

test_incast_cc_off() {
	local n p50 p99 max below j kbit sent
	only_on_612
	fabric_build
	cc_all off
	incast 4
	# From 2 s on: the senders' start is late by an exec or two.
	read -r n p50 p99 max below <<<"$(queue 2000000)"
	read -r j kbit <<<"$(jain "$A" "$B")"
	sent=$(sent_total)
	log "cc off: queue p50 $p50 p99 $p99 max $max bytes (limit $LIMIT, $n samples)," \
		"drops $D2 of $sent sent, Jain $j/1000"
	assert_ge "samples of the bottleneck" "$n" 100
	# At the limit: within two frames of it, half the time.
	assert_ge "cc off: queue p50 (bytes)" "$p50" $((LIMIT - 2 * FRAME))
	# Four senders at their line rate into one: most of it is dropped.
	assert_ge "cc off: tbf drops, of $sent sent" $((D2 * 2)) "$sent"
}

test_incast_cc_on() {
	local n p50 p99 max below j kbit d0
	only_on_612
	[ -f "/run/mplane/fabric/$FAB.json" ] || fabric_build
	cc_all dcqcn
	d0=$(drops)
	incast 7
	# From 3 s on: the first second is the flows' start at line rate into
	# a 12-frame buffer, before their first cuts come back.
	read -r n p50 p99 max below <<<"$(queue 3000000)"
	read -r j kbit <<<"$(jain "$A" "$B")"
	# What h0 got, all 7 s: sent less dropped, in frames (hostacct's two
	# reads are an exec apart, each up to a second late under TCG, so
	# their bytes give the shares, not the rate).
	kbit=$((($(sent_total) - (D2 - d0)) * FRAME * 8 / 7 / 1000))
	log "dcqcn: queue p50 $p50 p99 $p99 max $max bytes (Kmin $KMIN, limit $LIMIT," \
		"$below% of $n samples under Kmin), drops $((D1 - d0)) in the start," \
		"$((D2 - D1)) after, $kbit kbit/s at h0, Jain $j/1000 ($A / $B)"
	assert_ge "samples of the bottleneck" "$n" 100
	assert_eq "dcqcn: tbf drops after the start" $((D2 - D1)) 0
	# Under the limit, by a frame: a queue that reached it drops.
	assert_le "dcqcn: queue p99 (bytes), under the limit" "$p99" $((LIMIT - FRAME))
	assert_ge "dcqcn: queue p50 (bytes), a standing queue" "$p50" 1
	assert_ge "dcqcn: Jain's index (1/1000)" "$j" 950
	# The link stays busy: at least 70% of 4 Mbit/s of frames over the
	# 7 s, the start included.
	assert_ge "dcqcn: kbit/s into h0" "$kbit" $((RATE_KBIT * 7 / 10))
}

# make check runs this on 6.12 alone: its guest has minutes to spare
# where the others' are make check's longest, and each run here costs
# 32-40 s under TCG.  MPLANE_TEST_SHARE=all runs it on any kernel, as
# Documentation/cc.md's figures were taken on 6.1, 6.12 and 7.3.
only_on_612() {
	[ "${MPLANE_TEST_SHARE:-}" = all ] && return 0
	[ "${MPLANE_KERNEL:-}" = 6.12 ] ||
		skip "make check runs it on 6.12 (MPLANE_TEST_SHARE=all: any kernel)"
}

mplane_load
ktap_run test_incast_cc_off test_incast_cc_on

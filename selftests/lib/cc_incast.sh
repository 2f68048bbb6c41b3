#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cc_incast.sh: the 4:1 incast of DCQCN end to end, for
# selftests/kmod/cc_fabric.sh (its goals) and bench/cc.sh (its figures,
# CC off and on side by side).  Source after lib.sh and mplane.sh, with
# FAB and TMPD set; HOSTS hosts (SENDERS + 1 unless set: h0 takes the
# incast, h1..h4 send it, any more are for other jobs).  The caller's
# EXIT trap runs cc_incast_cleanup.
# shellcheck disable=SC2034 # what the measures set is for the callers
#
# h1..h4 send to h0 through one leaf running ar with ECN marking; the
# bottleneck is the leaf's port h0.  The queue is the ar program's
# virtual queue of that port, sampled every 5 ms by the switch's sampler
# (port_sample events).
#
# Scale: one plane, one leaf, every link 4 Mbit/s (about 460 frames of
# 1086 bytes a second at the bottleneck, which a 2-vCPU TCG guest
# forwards with room to spare: CC off gets 3.9-4.0 Mbit/s out of the
# port; with one vCPU, 2.6).  The port's buffer (fabric up --buffer)
# is 100 ms: tbf's limit is its burst (two frames, 3028 bytes) plus
# 50000 bytes, 48 frames.  Kmin 3000 and Kmax 9000 (RED, pmax 20%) sit
# low in it, as DCQCN's switch profile sits low in a real buffer.  The
# room above Kmax is for the guest: under TCG it stands still for 20 to
# 90 ms a few times a second (the sampler's gaps, logged), and then every
# sender's fq lets out at once what came due meanwhile; 20 ms of buffer
# (13028 bytes) dropped a few such bunches in every run, CC or not.
# With --cc dcqcn the fabric's switch ports hold each packet 1 us in
# netem, which takes it off its sender's socket (fabric_shape.c): without
# that, four senders' 16 KiB send buffers bounded the whole incast to
# under 30 frames in flight, and CC off never filled the buffer.
#
# The streams are traffic send --roce, paced, with a socket buffer held
# to 16 KiB (net.core.wmem_default; 7 packets of 2.3 KiB truesize), and
# the engine's roce transport (collective run --op incast), whose send
# buffer on a fabric with --cc dcqcn is 20 ms at the link rate, at least
# 16 KiB, for the same reason: mp0 stamps each packet with its QP's rate
# as it passes, and it waits in the sender rail's fq until then, so a
# cut acts once what was stamped before it has left.  With the engine's
# earlier 4 MiB (--sndbuf 4M), a whole window of 256 packets waited
# there: a cut acted 256 x 8.9 ms = 2.3 s later, and the loop could not
# hold the queue.  A real RNIC paces its QPs where it schedules them,
# with no host queue behind the rate limiter.  Less than 16 KiB (4608,
# two packets) starves a sender under TCG even with CC off: each packet
# waits for a wake-up (130 packets a second, a third of the link).
# MPLANE_CC_WMEM replaces the 16 KiB.

SENDERS=4
RATE_KBIT=4000
BUFFER_MS=100
LIMIT=$((3028 + RATE_KBIT * BUFFER_MS / 8))	# burst + the buffer at the rate
# MPLANE_CC_MARK="KMIN KMAX PMAX" replaces the profile, to try others
# (bench/cc.sh; Documentation/cc.md has a sweep); MPLANE_CC_AQM adds
# bpf attach's options, such as "--aqm pi --pi-target 12000".
read -r KMIN KMAX PMAX <<<"${MPLANE_CC_MARK:-3000 9000 20}"
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
#   reduce-period 30000  at most one cut per QP per 30 ms: a cut shows in
#                      the queue only once what the QP's fq holds, stamped
#                      at the old rate, has left (7 packets, some 60 ms at
#                      a fair share), and each CNP meanwhile would cut
#                      again.  Measured in a 2-vCPU guest (bench/cc.sh,
#                      MPLANE_CC_PARAMS; Documentation/cc.md): 10 ms held
#                      the queue under Kmin 55-60% of the samples, 20-25
#                      ms 37-48%, 30 ms 33-37% (its median 6212-6530
#                      bytes, between Kmin and Kmax), each with no drops
#                      after the start; 60 ms left it at the limit
#   alpha-period 5000  alpha decays once per CNP interval, as ConnectX's
#                      (microseconds, per microseconds of CNP interval)
# MPLANE_CC_PARAMS replaces them all, to try others (bench/cc.sh).
CC_PARAMS=${MPLANE_CC_PARAMS:-"rate-max $RATE_KBIT rate-min 100 rate-ai 10 rate-hai 50 time-reset 20000
	byte-reset 1048576 cnp-interval 5000 reduce-period 30000 alpha-period 5000"}
HOSTS=${HOSTS:-$((SENDERS + 1))}
WMEM0=$(</proc/sys/net/core/wmem_default)

# What fabric_build changed in the guest, put back, and the fabric down.
cc_incast_cleanup() {
	[ -f "$TMPD/recv.pid" ] && kill "$(<"$TMPD/recv.pid")" 2>/dev/null
	echo "$WMEM0" >/proc/sys/net/core/wmem_default
	[ -f "$TMPD/softirq" ] && while read -r p; do chrt -o -p 0 "$p"; done <"$TMPD/softirq"
	"$MPLANECTL" fabric down --prefix "$FAB" >/dev/null 2>&1
}

hns() { echo "$FAB-h$1"; }

# recv_start: h0 takes the streams, so that no port unreachable comes
# back; recv_stop gives the port (4791, RoCEv2's, which mp0's CC looks
# for) to the engine's rank 0.
recv_start() {
	local ready=$TMPD/ready
	rm -f "$ready"
	ip netns exec "$(hns 0)" "$MPLANECTL" traffic recv --port 4791 \
		--timeout "${RECV_TIMEOUT:-120}" --ready-file "$ready" >/dev/null 2>&1 &
	echo $! >"$TMPD/recv.pid"
	busywait 30000 test -e "$ready" || fail "receiver not ready"
}
recv_stop() {
	[ -f "$TMPD/recv.pid" ] || return 0
	kill "$(<"$TMPD/recv.pid")" 2>/dev/null
	wait "$(<"$TMPD/recv.pid")" 2>/dev/null || true
	rm -f "$TMPD/recv.pid"
}

# switches_attach [OPTION...]: ar with ECN marking on the leaf, by the
# profile above (RED) unless the options say otherwise (--aqm pi ...);
# again, it replaces the program and keeps its queues and counters.
switches_attach() {
	"$MPLANECTL" bpf attach --fabric "$FAB" --kmin "$KMIN" --kmax "$KMAX" \
		--pmax "$PMAX" "$@" >/dev/null || fail "bpf attach --fabric $*"
}

fabric_build() {
	"$MPLANECTL" fabric up -q --force --prefix "$FAB" --planes 1 --leaves 1 \
		--spines 1 --hosts "$HOSTS" --rate ${RATE_KBIT}kbit \
		--buffer ${BUFFER_MS}ms --probe-interval off --cc dcqcn >/dev/null ||
		fail "fabric up"
	# shellcheck disable=SC2086 # MPLANE_CC_AQM is words of options
	switches_attach ${MPLANE_CC_AQM:-}
	"$MPLANECTL" -n "$(hns 0)" bpf attach --prog hostacct --ingress r0 \
		>/dev/null || fail "hostacct on h0 r0"
	"$MPLANECTL" telemetry sample --fabric "$FAB" --node p0l0 --interval 5ms \
		>/dev/null || fail "telemetry sample"
	recv_start
	echo "${MPLANE_CC_WMEM:-16384}" >/proc/sys/net/core/wmem_default
	# The guest's softirq threads above its processes, as a switch's
	# forwarding and a NIC's pacing are not time-shared with the hosts'
	# programs: under load softirqs move to ksoftirqd, and with the
	# senders, the reader and the receiver runnable, tbf's, fq's and the
	# sampler's timers ran tens of ms late (36 gaps of 20-80 ms in 3 s),
	# the links lost that time while ar's model of the queue did not,
	# and tbf dropped what the model never saw (208 drops, the modelled
	# queue at half the limit).  Put back on exit.
	pgrep -x 'ksoftirqd/[0-9]+' >"$TMPD/softirq"
	while read -r p; do chrt -f -p 50 "$p"; done <"$TMPD/softirq"
}

# cc_all off|dcqcn: every host's mp0, h0 (the NP) included.
cc_all() {
	local h pids=()
	for ((h = 0; h < HOSTS; h++)); do
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

# drops: what the bottleneck's tbf dropped so far (under netem's hold).
drops() {
	tc -n "$FAB-p0l0" -j -s qdisc show dev h0 |
		jq '[.[] | select(.kind == "tbf")][0].drops'
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

# tbf_snap: "UPTIME_US DROPS PACKETS" of the bottleneck's tbf, the time
# taken as tc answered.
tbf_snap() {
	local j up
	j=$(tc -n "$FAB-p0l0" -j -s qdisc show dev h0)
	read -r up _ </proc/uptime
	echo "$((${up/./} * 10000)) $(jq -r '[.[] | select(.kind == "tbf")][0] | "\(.drops) \(.packets)"' <<<"$j")"
}

# tbf_sent: packets the bottleneck's tbf has sent so far.
tbf_sent() {
	tc -n "$FAB-p0l0" -j -s qdisc show dev h0 |
		jq '[.[] | select(.kind == "tbf")][0].packets'
}

# incast_on FROM: the bottleneck's tbf has sent 20 packets since it had
# sent FROM (tbf_sent), read just under the softirqs (rt).
incast_on() { [ "$(rt tbf_sent)" -ge $(($1 + 20)) ]; }

uptime_us() {
	local up
	read -r up _ </proc/uptime
	echo $((${up/./} * 10000))
}

# incast_start: the events of the bottleneck's sampler into $TMPD/ev
# (EV: its reader), and T0 (uptime, us: the events' CLOCK_MONOTONIC) once
# the incast is on, the bottleneck having sent 20 more packets: under
# TCG with another guest beside, the senders' execs take seconds, and a
# window counted from their launch would begin before they did.
incast_start() {
	local p0
	p0=$(rt tbf_sent)
	"$MPLANECTL" -j events --fabric "$FAB" --type port_sample \
		--duration 120 >"$TMPD/ev" 2>/dev/null &
	EV=$!
	"$@"
	busywait 30000 incast_on "$p0" || fail "no traffic through the bottleneck"
	T0=$(uptime_us)
}

# incast_window WARM SECS: at T0 + WARM s, T1, the drops D1 and the
# packets P1 the bottleneck sent, and A, the QP bytes ($QP_READ); B an
# exec and 2 s later (a QP of the engine can wait out a retransmission
# timeout of up to 400 ms after the start's drops); at T0 + SECS s (or once B is read), D2, P2 and
# T_END.
incast_window() {
	sleep_until $((T0 + $1 * 1000000))
	read -r T1 D1 P1 <<<"$(rt tbf_snap)"
	A=$(rt $QP_READ)
	sleep 2
	B=$(rt $QP_READ)
	sleep_until $((T0 + $2 * 1000000))
	read -r T_END D2 P2 <<<"$(rt tbf_snap)"
	kill -INT $EV 2>/dev/null || true
	wait $EV || true
}

# rt FUNCTION: FUNCTION's reads of the fabric, their execs scheduled
# just under the softirq threads (fabric_build): with the incast on, the
# guest's CPUs are busy, and each exec at the usual priority took
# seconds (two hostacct reads 22 s).
rt() {
	local f=$1
	shift
	FAB=$FAB MPLANECTL=$MPLANECTL chrt -f 40 bash -c "$(declare -f "$f" hns); $f"
}

# sleep_until UPTIME_US
sleep_until() {
	local now
	now=$(uptime_us)
	[ "$now" -ge "$1" ] || sleep "$(printf '%d.%06d' $((($1 - now) / 1000000)) $((($1 - now) % 1000000)))"
}

# streams [SECS]: the four paced streams, until SIGINT or SECS (120)
# have passed (their pids in PIDS).
streams() {
	local h secs=${1:-120}
	PIDS=()
	for ((h = 1; h <= SENDERS; h++)); do
		"$MPLANECTL" -n "$(hns $h)" -j traffic send 10.99.0.1 --roce $((0x100 + h)) \
			--ecn ect0 --size $SIZE --rate $PPS --duration "$secs" \
			>"$TMPD/send$h" &
		PIDS+=($!)
	done
}

# incast WARM SECS: the four streams, measured from T0 + WARM s to
# T0 + SECS s, and stopped.
incast() {
	local h
	incast_start streams
	incast_window "$1" "$2"
	kill -INT "${PIDS[@]}" 2>/dev/null
	for h in "${PIDS[@]}"; do wait "$h" || fail "traffic send"; done
}

# sent_total: packets the senders of the last incast sent.
sent_total() {
	local h sent=0
	for ((h = 1; h <= SENDERS; h++)); do
		sent=$((sent + $(json_num "$(<"$TMPD/send$h")" sent)))
	done
	echo $sent
}

# queue FROM_US: "N P50 P99 MAX BELOW_KMIN_PCT EMPTY_PCT" of the
# bottleneck's queue samples from FROM_US after T0 to T_END (empty: the
# link had nothing left to send, it was idle then).
queue() {
	local port
	port=$(ip -n "$FAB-p0l0" -o link show h0 | cut -d: -f1)
	jq -rs --argjson port "$port" --argjson from $(((T0 + $1) * 1000)) \
		--argjson to $((T_END * 1000)) --argjson kmin $KMIN '
		[.[] | select(.ifindex == $port and .ts_ns >= $from and .ts_ns <= $to) |
			.q_bytes] | sort as $q |
		($q | length) as $n |
		def pct(f): ([$q[] | select(f)] | length) * 100 / $n | floor;
		if $n == 0 then "0 0 0 0 0 0" else
		"\($n) \($q[($n * 0.5) | floor]) \($q[($n * 0.99) | floor]) \($q[-1]) \(pct(. < $kmin)) \(pct(. == 0))"
		end' "$TMPD/ev"
}

# stalls FROM_US: "N MAX_MS" of the gaps of 20 ms or more between the
# bottleneck sampler's consecutive samples (every 5 ms) from FROM_US
# after T0 to T_END: the times the guest stood still.
stalls() {
	local port
	port=$(ip -n "$FAB-p0l0" -o link show h0 | cut -d: -f1)
	jq -rs --argjson port "$port" --argjson from $(((T0 + $1) * 1000)) \
		--argjson to $((T_END * 1000)) '
		[.[] | select(.ifindex == $port and .ts_ns >= $from and .ts_ns <= $to) |
			.ts_ns] | sort |
		[range(1; length) as $i | (.[$i] - .[$i - 1]) / 1000000 | select(. >= 20)] |
		"\(length) \(max // 0 | floor)"' "$TMPD/ev"
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

# kbit_out: what the bottleneck sent from T1 to T_END, in kbit/s.
kbit_out() {
	echo $(((P2 - P1) * FRAME * 8 * 1000 / (T_END - T1)))
}

# qp_top "TIME_US": the bytes h0's rail received for each of the four
# QPs that received most (the engine's QPNs are its own), by QPN.
qp_top() {
	local t=${EPOCHREALTIME/./}
	echo "$t $("$MPLANECTL" -n "$(hns 0)" -j bpf status --prog hostacct r0 |
		jq -r '[.qps[] | select(.dir == "ingress" and .qpn >= 65536)] |
			sort_by(-.bytes) | .[:4] | sort_by(.qpn) | map(.bytes) | join(" ")')"
}

# The engine's roce transport in the same incast: one iteration of 1 MiB
# from each sender (about 9 s at a fair share), every byte checked
# (collective run fails on a wrong element).
engine_incast() {
	"$MPLANECTL" -j collective run --prefix "$FAB" --op incast \
		--hosts h0,h1,h2,h3,h4 --transport roce -b 1M -e 1M -n 1 -w 0 \
		--no-marks --timeout 30 >"$TMPD/coll.json" &
	COLL=$!
}

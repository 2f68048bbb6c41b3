#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cc.sh: what DCQCN in mp0 buys and costs, CC off and on side by side in
# one run (issue 16, section 5), over TRIALS trials, median and worst:
#
#   incast     4:1 through one ar leaf with ECN marking, on the fabric of
#              selftests/kmod/cc_fabric.sh (4 Mbit/s links, Kmin 3000,
#              Kmax 9000, its DCQCN settings): goodput into h0, the
#              bottleneck's queue p99 (ar's virtual queue, sampled every
#              2 ms, from 3 s on), Jain's index over a second near the
#              end, tbf drops; with the paced streams of the test
#              (traffic send --roce) and with the engine's roce incast
#   victim     allreduce (engine, roce) between h0 and h5, under a
#              background incast of paced streams into h0: its completion
#              time, p50 and p99 of the iterations
#   pps        mp0's packets per second, CC on against off, no
#              congestion: traffic send --roce of 64-byte packets as fast
#              as the sender goes, h1 to h0 over a 10 Gbit/s fabric (the
#              link never the limit, so what moves is mp0's per-packet
#              cost, the QP lookup of an unlimited QP); goal >= 0.9
#
# Runs in the VM with mplane.ko (make bench); one line per figure, and
# .build/bench/cc.json (or $OUT).
# shellcheck source-path=SCRIPTDIR source=../selftests/lib/lib.sh
source "$(dirname "$0")/../selftests/lib/lib.sh"
# shellcheck source=../selftests/lib/mplane.sh
source "$(dirname "$0")/../selftests/lib/mplane.sh"

MPLANECTL=$MPLANE_BUILD/mplanectl
OUT=${MPLANE_BENCH_CC_OUT:-/tmp/results/cc.json}
TRIALS=${MPLANE_BENCH_TRIALS:-3}
SECS=${MPLANE_BENCH_SECS:-7}
ENGINE_SIZE=${MPLANE_BENCH_CC_ENGINE_SIZE:-512K}
FAB=mpq$$ RATE_KBIT=4000 KMIN=3000 KMAX=9000 PMAX=20 SIZE=1036 PPS=600
# selftests/kmod/cc_fabric.sh explains each value.
CC_PARAMS="rate-max $RATE_KBIT rate-min 100 rate-ai 10 rate-hai 50 time-reset 20000
	byte-reset 1048576 cnp-interval 5000 reduce-period 10000 alpha-period 5000"
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-bench-cc.XXXXXX")
WMEM0=$(</proc/sys/net/core/wmem_default)
trap '_lib_exit; kill $RECV_PIDS 2>/dev/null; echo "$WMEM0" >/proc/sys/net/core/wmem_default
	[ -f "$TMPD/softirq" ] && while read -r p; do chrt -o -p 0 "$p"; done <"$TMPD/softirq"
	"$MPLANECTL" fabric down --prefix $FAB >/dev/null 2>&1
	"$MPLANECTL" fabric down --prefix ${FAB}f >/dev/null 2>&1; rm -rf "$TMPD"' EXIT

hns() { echo "$FAB-h$1"; }
add() { echo "$1" >>"$TMPD/results.jsonl"; echo "# $1"; }

# The incast fabric: 6 hosts (h5 is the victim's second rank).
fabric_build() {
	"$MPLANECTL" fabric up -q --force --prefix $FAB --planes 1 --leaves 1 \
		--spines 1 --hosts 6 --rate ${RATE_KBIT}kbit --buffer 100ms \
		--probe-interval off --cc dcqcn >/dev/null || fail "fabric up"
	"$MPLANECTL" bpf attach --fabric $FAB --kmin $KMIN --kmax $KMAX \
		--pmax $PMAX >/dev/null || fail "bpf attach"
	"$MPLANECTL" -n "$(hns 0)" bpf attach --prog hostacct --ingress r0 \
		>/dev/null || fail "hostacct"
	"$MPLANECTL" telemetry sample --fabric $FAB --node p0l0 --interval 2ms \
		>/dev/null || fail "sample"
	recv_start
	PORT=$(ip -n $FAB-p0l0 -o link show h0 | cut -d: -f1)
	# As selftests/kmod/cc_fabric.sh: the guest's softirq threads above
	# its processes (put back on exit).
	pgrep -x 'ksoftirqd/[0-9]+' >"$TMPD/softirq"
	while read -r p; do chrt -f -p 50 "$p"; done <"$TMPD/softirq"
}

# The streams' receiver on h0, so that no port unreachable comes back;
# the engine's rank 0 needs its port (4791, which mp0's CC looks for).
recv_start() {
	ip netns exec "$(hns 0)" "$MPLANECTL" traffic recv --port 4791 \
		--timeout 3600 >/dev/null 2>&1 &
	STREAMS_RECV=$!
	RECV_PIDS="$RECV_PIDS $!"
}
recv_stop() { kill "$STREAMS_RECV" 2>/dev/null; wait "$STREAMS_RECV" 2>/dev/null; }

cc_all() {
	local h
	for h in 0 1 2 3 4 5; do
		if [ "$1" = off ]; then
			"$MPLANECTL" -n "$(hns $h)" link set mp0 cc off &
		else
			# shellcheck disable=SC2086
			"$MPLANECTL" -n "$(hns $h)" link set mp0 cc dcqcn $CC_PARAMS &
		fi
	done
	wait
}

drops() { tc -n $FAB-p0l0 -j -s qdisc show dev h0 | jq '[.[] | select(.kind == "tbf")][0].drops'; }
uptime_us() { local up; read -r up _ </proc/uptime; echo $((${up/./} * 10000)); }
qp_bytes() {
	echo "${EPOCHREALTIME/./} $("$MPLANECTL" -n "$(hns 0)" -j bpf status --prog hostacct r0 |
		jq -r '[.qps[] | select(.dir == "ingress")] as $q |
			[range(1; 5) | . as $h | [$q[] | select(.qpn == 256 + $h) | .bytes] | add // 0] |
			join(" ")')"
}
streams() {	# SECS: paced streams h1..h4 -> h0
	local h
	STREAM_PIDS=()
	for h in 1 2 3 4; do
		"$MPLANECTL" -n "$(hns $h)" traffic send 10.99.0.1 --roce $((0x100 + h)) \
			--ecn ect0 --size $SIZE --rate $PPS --duration "$1" >/dev/null 2>&1 &
		STREAM_PIDS+=($!)
	done
}
# qstats FROM_UPTIME_US: "P99 MAX" of the bottleneck's samples from then on.
qstats() {
	jq -rs --argjson port "$PORT" --argjson from $(($1 * 1000)) '
		[.[] | select(.ifindex == $port and .ts_ns >= $from) | .q_bytes] | sort as $q |
		($q | length) as $n | if $n == 0 then "0 0" else "\($q[($n * 0.99) | floor]) \($q[-1])" end' \
		"$TMPD/ev"
}
# jain A B: "JAIN GOODPUT_KBIT"
jain() {
	local -a a=($1) b=($2)
	local i d s=0 s2=0 dt=$((b[0] - a[0]))
	for i in 1 2 3 4; do d=$((b[i] - a[i])); s=$((s + d)) s2=$((s2 + d * d)); done
	[ $s2 -gt 0 ] || { echo "0 0"; return; }
	echo "$(echo "$s * $s / (4 * $s2)" | bc -l) $((s * 8 * 1000 / dt))"
}

# incast_streams CC: one trial of the test's incast.
incast_streams() {
	local t0 d0 d1 a b j kbit p99 max
	cc_all "$1"
	d0=$(drops)
	"$MPLANECTL" -j events --fabric $FAB --type port_sample --duration $((SECS + 1)) \
		>"$TMPD/ev" 2>/dev/null &
	local ev=$!
	t0=$(uptime_us)
	streams "$SECS"
	sleep $((SECS - 3))
	a=$(qp_bytes); sleep 0.6; b=$(qp_bytes)
	wait "${STREAM_PIDS[@]}" $ev
	d1=$(drops)
	read -r j kbit <<<"$(jain "$a" "$b")"
	read -r p99 max <<<"$(qstats $((t0 + 3000000)))"
	add "$(jq -nc --arg cc "$1" --argjson j "$j" --argjson k "$kbit" --argjson p "$p99" \
		--argjson m "$max" --argjson d $((d1 - d0)) \
		'{bench: "incast_streams", cc: $cc, goodput_kbit: $k, queue_p99: $p,
		  queue_max: $m, jain: $j, drops: $d}')"
}

# incast_engine CC: the engine's roce incast, ENGINE_SIZE from each sender.
incast_engine() {
	local t0 d0 d1 p99 max
	cc_all "$1"
	d0=$(drops)
	"$MPLANECTL" -j events --fabric $FAB --type port_sample --duration 120 \
		>"$TMPD/ev" 2>/dev/null &
	local ev=$!
	t0=$(uptime_us)
	"$MPLANECTL" -j collective run --prefix $FAB --op incast --hosts h0,h1,h2,h3,h4 \
		--transport roce -b "$ENGINE_SIZE" -e "$ENGINE_SIZE" -n 1 -w 0 --no-marks \
		--timeout 60 >"$TMPD/coll.json" || fail "engine incast"
	kill -INT $ev 2>/dev/null; wait $ev
	d1=$(drops)
	read -r p99 max <<<"$(qstats "$t0")"
	add "$(jq -c --arg cc "$1" --argjson p "$p99" --argjson m "$max" --argjson d $((d1 - d0)) '
		.sizes[0] as $s | {bench: "incast_engine", cc: $cc, bytes: ($s.size * 4),
		 time_ms: ($s.time_us / 1000), goodput_kbit: ($s.size * 4 * 8 * 1000 / $s.time_us),
		 jain: ([$s.ranks[1:][].time_us] | (add * add) / (length * (map(. * .) | add))),
		 queue_p99: $p, queue_max: $m, drops: $d,
		 retransmits: .transport_stats.retransmits, timeouts: .transport_stats.timeouts}' \
		"$TMPD/coll.json")"
}

# victim CC: allreduce h0,h5 (roce, port 4792) under the streams into h0.
victim() {
	cc_all "$1"
	streams $((SECS + 20))
	sleep 2
	"$MPLANECTL" -j collective run --prefix $FAB --op allreduce --hosts h0,h5 \
		--transport roce --port 4792 -b 64K -e 64K -n 10 -w 1 --no-marks \
		--timeout 60 >"$TMPD/victim.json" || fail "victim allreduce"
	kill "${STREAM_PIDS[@]}" 2>/dev/null
	wait "${STREAM_PIDS[@]}" 2>/dev/null
	add "$(jq -c --arg cc "$1" '.sizes[0] | {bench: "victim_allreduce", cc: $cc,
		size: .size, cct_p50_ms: (.p50_us / 1000), cct_p99_ms: (.p99_us / 1000),
		cct_mean_ms: (.time_us / 1000)}' "$TMPD/victim.json")"
}

test_incast() {
	local t
	fabric_build
	echo 16384 >/proc/sys/net/core/wmem_default
	for ((t = 0; t < TRIALS; t++)); do
		incast_streams off
		incast_streams dcqcn
	done
	echo "$WMEM0" >/proc/sys/net/core/wmem_default
	recv_stop
	for ((t = 0; t < TRIALS; t++)); do
		incast_engine off
		incast_engine dcqcn
	done
	recv_start
}

test_victim() {
	local t
	[ -f /run/mplane/fabric/$FAB.json ] || fabric_build
	PORT=$(ip -n $FAB-p0l0 -o link show h0 | cut -d: -f1)
	echo 16384 >/proc/sys/net/core/wmem_default
	for ((t = 0; t < TRIALS; t++)); do
		victim off
		victim dcqcn
	done
	echo "$WMEM0" >/proc/sys/net/core/wmem_default
}

# pps_trial CC: mp0 tx packets a second on h1, 2 s of 64-byte RoCE.
pps_trial() {
	local ns=${FAB}f-h1 h out
	for h in 0 1; do
		if [ "$1" = off ]; then
			"$MPLANECTL" -n ${FAB}f-h$h link set mp0 cc off
		else
			"$MPLANECTL" -n ${FAB}f-h$h link set mp0 cc dcqcn
		fi
	done
	out=$("$MPLANECTL" -n "$ns" -j traffic send 10.99.0.1 --roce 0x201 --size 64 \
		--rate 10000000 --burst 100000 --duration 2)
	add "$(jq -c --arg cc "$1" '{bench: "pps", cc: $cc, pps: .pps, sent: .sent}' <<<"$out")"
}

test_pps() {
	local t
	"$MPLANECTL" fabric up -q --force --prefix ${FAB}f --planes 1 --leaves 1 \
		--spines 1 --hosts 2 --rate 10gbit --probe-interval off --cc dcqcn \
		>/dev/null || fail "fabric up (pps)"
	ip netns exec ${FAB}f-h0 "$MPLANECTL" traffic recv --port 4791 --timeout 600 \
		>/dev/null 2>&1 &
	RECV_PIDS="$RECV_PIDS $!"
	for ((t = 0; t < TRIALS; t++)); do
		pps_trial off
		pps_trial dcqcn
	done
}

# MPLANE_BENCH_CC_PARTS="pps" (say) runs only those of incast, victim
# and pps.
parts=()
for t in ${MPLANE_BENCH_CC_PARTS:-incast victim pps}; do parts+=("test_$t"); done
mplane_load
ktap_run "${parts[@]}"
mkdir -p "$(dirname "$OUT")"
jq -s . "$TMPD/results.jsonl" >"$OUT" 2>/dev/null || echo '[]' >"$OUT"
# The summary: median and worst per bench and cc.
jq -r '
	def med: sort | .[(length - 1) / 2 | floor];
	group_by(.bench + "/" + .cc)[] | . as $g |
	"# summary \($g[0].bench) cc \($g[0].cc) (\(length) trials): " +
	([$g[0] | keys[] | select(. != "bench" and . != "cc")] | map(. as $k |
		"\($k) median \([$g[][$k]] | med) worst \(
			if ($k | test("goodput|jain|pps|sent")) then [$g[][$k]] | min
			else [$g[][$k]] | max end)") | join(", "))' "$OUT"
jq -r '([.[] | select(.bench == "pps" and .cc == "off") | .pps]) as $off |
	([.[] | select(.bench == "pps" and .cc == "dcqcn") | .pps]) as $on |
	[range(0; [$off, $on] | map(length) | min) | $on[.] / $off[.]] | sort |
	"# summary pps ratio on/off per trial: \(map(. * 1000 | round / 1000)) median \(.[(length - 1) / 2 | floor]) worst \(min) (goal >= 0.9)"' "$OUT"

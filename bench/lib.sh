#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What the benchmarks share: CPU time from /proc/stat, medians of rounds,
# and (in the VM) a measured stream from $ha to $hb and a results list.
# Source after selftests/lib/lib.sh (and mplane.sh for the stream).

results=()

cpu_busy() { awk '/^cpu / {print $2+$3+$4+$7+$8}' /proc/stat; }
# The kernel's share only: system + irq + softirq jiffies.
cpu_kernel() { awk '/^cpu / {print $4 + $7 + $8}' /proc/stat; }

# medians KEYS COL: of lines whose first KEYS fields name a row, the run
# with the median value in column COL, one per row, in the order first
# seen (few runs a row: an insertion sort).
medians() {
	awk -v keys="$1" -v col="$2" '
	     { key = $1; for (f = 2; f <= keys; f++) key = key " " $f
	       if (!(key in n)) order[++k] = key
	       line[key, ++n[key]] = $0; cpu[key, n[key]] = $col }
	     END {
		for (i = 1; i <= k; i++) {
			key = order[i]; m = n[key]
			for (a = 1; a <= m; a++) idx[a] = a
			for (a = 2; a <= m; a++)
				for (b = a; b > 1 && cpu[key, idx[b]] < cpu[key, idx[b-1]]; b--) {
					t = idx[b]; idx[b] = idx[b-1]; idx[b-1] = t
				}
			print line[key, idx[int((m + 1) / 2)]]
		}
	     }'
}

# run_stream COUNT RATE [FAIL_CMD [LINK]]: a stream ha -> hb; FAIL_CMD runs
# in hb a third of the way through, and the receiver watches hb's LINK
# (its change is a fault: the gaps near it are measured).  Prints
# "recv-json|send-json|cpu-jiffies".
run_stream() {
	local count=$1 rate=$2 fail_cmd=${3:-} watch=${4:-} ready=$TMPDIR/b-ready.$$ c0 c1 send
	rm -f "$ready"
	ip netns exec "$hb" "$MPLANECTL" -j traffic recv --expect $((count / 8)) \
		--idle 2 --timeout 120 ${watch:+--watch-link "$watch"} \
		--ready-file "$ready" >"$TMPDIR/b-recv.json" &
	busywait 30000 test -e "$ready" || fail "receiver not ready"
	c0=$(cpu_busy)
	ip netns exec "$ha" "$MPLANECTL" -j traffic send $MP_B4 --count "$count" \
		--rate "$rate" --flows 8 >"$TMPDIR/b-send.json" &
	send=$!
	if [ -n "$fail_cmd" ]; then
		sleep "$(echo "$count / $rate / 3" | bc -l)"
		ip netns exec "$hb" sh -c "$fail_cmd"
	fi
	wait "$send"
	c1=$(cpu_busy)
	wait
	echo "$(jq -c . "$TMPDIR/b-recv.json")|$(jq -c . "$TMPDIR/b-send.json")|$((c1 - c0))"
}

# record NAME KIND LINE [SPLIT [ROUND]]: one result, from run_stream's
# LINE; the loss is split into the path's and the receiver's full
# socket's.
record() {
	local name=$1 kind=$2 line=$3 split=${4:-} round=${5:-0} recv send jiffies
	IFS='|' read -r recv send jiffies <<<"$line"
	results+=("$(jq -nc --arg name "$name" --arg kind "$kind" --argjson r "$recv" \
		--argjson s "$send" --argjson j "$jiffies" --argjson hz "$(getconf CLK_TCK)" \
		--arg split "$split" --argjson round "$round" '
		{name: $name, kind: $kind, round: $round, sent: $s.sent, send_pps: $s.pps,
		 received: $r.received, lost: $r.lost, socket_drops: $r.socket_drops,
		 split: $split,
		 recv_pps: ($r.received / $s.duration_s),
		 cpu_us_per_pkt: ($j / $hz * 1e6 / ($r.received + 1)),
		 max_gap_us: $r.max_gap_us, max_excess_gap_us: $r.max_excess_gap_us,
		 max_gap_near_fault_us: $r.max_gap_near_fault_us,
		 max_excess_gap_near_fault_us: $r.max_excess_gap_near_fault_us}')")
	echo "# $name: $(echo "${results[-1]}" | jq -c 'del(.name, .kind)')"
}

# tbf_retune PREFIX LIMIT_MS: every root tbf in the namespaces PREFIX-*
# (a fabric that 'fabric up' made without delay or loss) gets a queue of
# LIMIT_MS at its own rate on top of its burst (1 ms at the rate, at
# least 2 full-size frames, as fabric up makes it), in place of fabric
# up's 20 ms (at least 8 frames).  At 2 Mbit/s fabric up's queue is 8
# frames, 48 ms: with 4 TCP flows on a link, a window of 2 frames a flow
# (bench/permutation_host.sh measures whether it matters).  AR's
# queue model keeps fabric up's limit (ar_switch.c): it only caps what
# the model counts, so it sees the queue fill at the old limit.
tbf_retune() {
	local prefix=$1 ms=$2 ns
	# ip netns list complains of other runs' namespaces going away.
	for ns in $(ip netns list 2>/dev/null |
		    awk -v p="$prefix-" 'index($1, p) == 1 {print $1}'); do
		tc -j -n "$ns" qdisc show | jq -r --argjson ms "$ms" '
			.[] | select(.kind == "tbf" and .root) | .options.rate as $r |
			([$r / 1000 | floor, 3028] | max) as $b |
			"qdisc change dev \(.dev) root handle 1: tbf rate \($r * 8)bit burst \($b) limit \($b + ($r * $ms / 1000 | floor))"' |
			tc -n "$ns" -batch - || return 1
	done
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What the VM benchmarks share: a measured stream from $ha to $hb and a
# results list.  Source after selftests/lib/lib.sh and mplane.sh.

results=()

cpu_busy() { awk '/^cpu / {print $2+$3+$4+$7+$8}' /proc/stat; }

# run_stream COUNT RATE [FAIL_CMD]: a stream ha -> hb; FAIL_CMD runs in
# hb a third of the way through.  Prints "recv-json|send-json|cpu-jiffies".
run_stream() {
	local count=$1 rate=$2 fail_cmd=${3:-} ready=$TMPDIR/b-ready.$$ c0 c1 send
	rm -f "$ready"
	ip netns exec "$hb" "$MPLANECTL" -j traffic recv --expect $((count / 8)) \
		--idle 2 --timeout 120 --ready-file "$ready" >"$TMPDIR/b-recv.json" &
	busywait 5000 test -e "$ready" || fail "receiver not ready"
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

record() {
	local name=$1 kind=$2 line=$3 recv send jiffies
	IFS='|' read -r recv send jiffies <<<"$line"
	results+=("$(jq -nc --arg name "$name" --arg kind "$kind" --argjson r "$recv" \
		--argjson s "$send" --argjson j "$jiffies" --argjson hz "$(getconf CLK_TCK)" '
		{name: $name, kind: $kind, sent: $s.sent, send_pps: $s.pps,
		 received: $r.received, lost: $r.lost,
		 recv_pps: ($r.received / $s.duration_s),
		 cpu_us_per_pkt: ($j / $hz * 1e6 / ($r.received + 1)),
		 max_gap_us: $r.max_gap_us, max_excess_gap_us: $r.max_excess_gap_us}')")
	echo "# $name: $(echo "${results[-1]}" | jq -c 'del(.name, .kind)')"
}


#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# collective_host.sh: is the engine the bottleneck?  Natively on the
# running kernel (make bench, before the VM), on a fabric that shapes
# nothing a socket can reach (100gbit tbf on every link, one plane, two
# hosts on one leaf), in the same run:
#
#   - iperf3's TCP goodput between h0 and h1 (one flow each way, as the
#     engine's tcp transport has one connection a peer), and a 2-rank
#     allreduce's busbw over the same two hosts: busbw is what each rank
#     sends a second while it receives as much, so the baseline is
#     iperf3 --bidir's goodput per direction (over veth both directions
#     share the CPUs, which a NIC's full duplex would not), and the goal
#     busbw >= 0.9 of it (ROUNDS rounds: the median ratio and the worst;
#     one-way iperf3 is printed beside it);
#   - memory: the largest resident set of any rank (GNU time's maximum
#     over the waited processes) against the largest buffer; the goal is
#     a small constant, 4 buffers at most (send, receive, staging and the
#     check's expected values).
#
# Prints KTAP: a goal missed is "not ok".  Results: $OUT.
# shellcheck source-path=SCRIPTDIR source=../selftests/lib/lib.sh
source "$(dirname "$0")/../selftests/lib/lib.sh"

MPLANECTL=$MPLANE_BUILD/mplanectl
OUT=${MPLANE_BENCH_COLLECTIVE_HOST_OUT:-$MPLANE_BUILD/bench/collective_host.json}
ROUNDS=${MPLANE_BENCH_ROUNDS:-5}
SIZE=${MPLANE_BENCH_COLL_SIZE:-64M}
FAB=mph$$
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-bench-collh.XXXXXX")
trap '_lib_exit; "$MPLANECTL" fabric down --prefix $FAB >/dev/null 2>&1; rm -rf "$TMPD"' EXIT

mkdir -p "$(dirname "$OUT")"
"$MPLANECTL" fabric up --prefix $FAB --quiet --no-mp0 --planes 1 --leaves 1 \
	--spines 1 --hosts 2 --rate 100gbit >/dev/null || exit 1

# iperf3 h0 <-> h1 for 3 s (ARGS: --bidir or none): Gbit/s per direction.
iperf_gbit() {
	ip netns exec $FAB-h1 iperf3 -s -1 -B 10.100.1.2 >/dev/null 2>&1 &
	sleep 0.3
	ip netns exec $FAB-h0 iperf3 -J -c 10.100.1.2 -t 3 -O 1 "$@" >"$TMPD/iperf.json"
	wait
	jq '[.end.sum_received.bits_per_second,
	     (.end.sum_received_bidir_reverse.bits_per_second // empty)] |
	    add / length / 1e9' "$TMPD/iperf.json"
}

# allreduce of SIZE on h0,h1: busbw in Gbit/s; max RSS (KiB) to $TMPD/rss.
allreduce_gbit() {
	/usr/bin/time -f %M -o "$TMPD/rss" "$MPLANECTL" -j collective run \
		--prefix $FAB --op allreduce -b "$SIZE" -e "$SIZE" -n 10 -w 2 \
		--no-marks >"$TMPD/coll.json" || return 1
	jq -e '.sizes | all(.verified)' "$TMPD/coll.json" >/dev/null || return 1
	jq '.sizes[-1].busbw * 8' "$TMPD/coll.json"
}

test_engine_vs_iperf3() {
	local r ip one ar rows=()
	for ((r = 0; r < ROUNDS; r++)); do
		one=$(iperf_gbit)
		ip=$(iperf_gbit --bidir)
		ar=$(allreduce_gbit) || fail "allreduce round $r"
		rows+=("$ip $ar $one")
		echo "# round $r: iperf3 --bidir $ip Gbit/s a direction (one way $one), allreduce busbw $ar Gbit/s"
	done
	printf '%s\n' "${rows[@]}" | jq -Rsc --arg size "$SIZE" --argjson rss "$(cat "$TMPD/rss")" '
		split("\n") | map(select(length > 0) | split(" ") | map(tonumber)) |
		map({iperf3_bidir_gbit: .[0], busbw_gbit: .[1], iperf3_oneway_gbit: .[2],
		     ratio: (.[1] / .[0])}) as $r |
		($r | map(.ratio) | sort) as $s |
		{bench: "engine_vs_iperf3", size: $size, rounds: $r,
		 median_ratio: $s[(($s | length) / 2 | floor)], worst_ratio: $s[0],
		 max_rss_kib: $rss}' >"$OUT"
	echo "# $(jq -c 'del(.rounds)' "$OUT")"
	assert_ge "median busbw / iperf3 (%)" "$(jq '.median_ratio * 100 | floor' "$OUT")" 90
}

test_memory_per_rank() {
	local rss_kib buf_kib
	[ -s "$TMPD/rss" ] || allreduce_gbit >/dev/null || fail "allreduce"
	rss_kib=$(cat "$TMPD/rss")
	buf_kib=$(( $(numfmt --from=iec "$SIZE") / 1024 ))
	echo "# largest resident set $rss_kib KiB for a $buf_kib KiB buffer"
	assert_le "max RSS (KiB)" "$rss_kib" $((4 * buf_kib + 16384))
}

ktap_run test_engine_vs_iperf3 test_memory_per_rank

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# accept_baseline.sh: the baseline class's figures, as goals, where
# selftests/bpf/accept.sh only checks that they are sane.  Natively on
# the running kernel (the policies that need no mp0: ecmp and ar), on the
# test's fabric: 4 hosts, one plane of 2 leaves and 2 spines at 50mbit,
# ROUNDS rounds of 'accept baseline --policies ecmp,ar', each a fresh
# fabric per policy (accept builds it).
#
# Goals, against ecmp in the same round (the machine is shared: only
# ratios within a round mean anything):
#   - ar's permutation goodput is at least ecmp's: the median of the
#     rounds' ar / ecmp ratios >= 1 (ecmp's hash luck makes it 0.47-0.90
#     of the bisection, so a round where ecmp was lucky is near 1);
#   - ar's allreduce and alltoall busbw are at least 0.9 of ecmp's, in
#     the median: neither has a bisection bottleneck here, so ar may not
#     win, but it must not lose.
# The median and the worst round of each figure and each ratio are
# printed, and every round is in $OUT.
#
# Knobs: MPLANE_BENCH_ROUNDS (default 5), MPLANE_BENCH_ACCEPT_SIZE (-b,
# default 4M), MPLANE_BENCH_ACCEPT_ITERS (-n, default 3).
# Prints KTAP: a goal missed is "not ok".
# shellcheck source-path=SCRIPTDIR source=../selftests/lib/lib.sh
source "$(dirname "$0")/../selftests/lib/lib.sh"

MPLANECTL=$MPLANE_BUILD/mplanectl
OUT=${MPLANE_BENCH_ACCEPT_OUT:-$MPLANE_BUILD/bench/accept_baseline.json}
ROUNDS=${MPLANE_BENCH_ROUNDS:-5}
SIZE=${MPLANE_BENCH_ACCEPT_SIZE:-4M}
ITERS=${MPLANE_BENCH_ACCEPT_ITERS:-3}
FAB=mpab$$
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-bench-accept.XXXXXX")
trap '_lib_exit; "$MPLANECTL" fabric down --prefix $FAB >/dev/null 2>&1; rm -rf "$TMPD"' EXIT

FIGURES="permutation_goodput allreduce_busbw alltoall_busbw"

# round N: one accept run's figures, as {"ecmp": {...}, "ar": {...}}.
round() {
	"$MPLANECTL" -j accept baseline --prefix $FAB --hosts 4 --planes 1 \
		--leaves 2 --spines 2 --rate 50mbit -b "$SIZE" -n "$ITERS" \
		--policies ecmp,ar >"$TMPD/run.json" 2>/dev/null
	jq -ce --argjson n "$1" '{round: $n} + ([.policies[] | select(.ran) |
		{(.policy): .figures}] | add) | select(.ecmp and .ar)' "$TMPD/run.json"
}

test_ar_against_ecmp() {
	local r line rows=()
	mkdir -p "$(dirname "$OUT")"
	for ((r = 0; r < ROUNDS; r++)); do
		line=$(round "$r") || fail "round $r: $(head -c 300 "$TMPD/run.json")"
		echo "# round $r: $line"
		rows+=("$line")
	done
	printf '%s\n' "${rows[@]}" | jq -sc --arg size "$SIZE" --arg figures "$FIGURES" '
		def median: sort | .[(length - 1) / 2 | floor];
		. as $rounds |
		{bench: "accept_baseline", size: $size, rounds: $rounds} +
		([$figures | split(" ")[] as $f |
		  {($f): {ar_median: ($rounds | map(.ar[$f]) | median),
			  ar_worst: ($rounds | map(.ar[$f]) | min),
			  ecmp_median: ($rounds | map(.ecmp[$f]) | median),
			  ecmp_worst: ($rounds | map(.ecmp[$f]) | min),
			  ratio_median: ($rounds | map(.ar[$f] / .ecmp[$f]) | median),
			  ratio_worst: ($rounds | map(.ar[$f] / .ecmp[$f]) | min)}}] | add)' >"$OUT"
	for f in $FIGURES; do
		echo "# $f: $(jq -c --arg f "$f" '.[$f]' "$OUT")"
	done
	assert_ge "ar / ecmp permutation goodput, median (%)" \
		"$(jq '.permutation_goodput.ratio_median * 100 | floor' "$OUT")" 100
	assert_ge "ar / ecmp allreduce busbw, median (%)" \
		"$(jq '.allreduce_busbw.ratio_median * 100 | floor' "$OUT")" 90
	assert_ge "ar / ecmp alltoall busbw, median (%)" \
		"$(jq '.alltoall_busbw.ratio_median * 100 | floor' "$OUT")" 90
}

ktap_run test_ar_against_ecmp

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# collective_roce.sh: the roce transport of 'mplanectl collective' next
# to tcp, natively on the running kernel (run by `make bench` before the
# VM part): a 2-rank allreduce of 16 MiB over one plane, leaf and spine
# at 100gbit (unshaped), tcp and roce in turn for ROUNDS rounds, each
# reported as the median busbw and roce's share of tcp's; then roce
# under 1% loss at the leaf.  Prints KTAP; roce below
# MPLANE_BENCH_ROCE_MIN_PCT percent of tcp (default 3: a collapse, not a
# goal) is "not ok".  Results also go to .build/bench/collective_roce.json.
# shellcheck source-path=SCRIPTDIR source=../selftests/lib/lib.sh
source "$(dirname "$0")/../selftests/lib/lib.sh"

MPLANECTL=$MPLANE_BUILD/mplanectl
OUT=${MPLANE_BENCH_ROCE_OUT:-$MPLANE_BUILD/bench/collective_roce.json}
MIN_PCT=${MPLANE_BENCH_ROCE_MIN_PCT:-3}
ROUNDS=${MPLANE_BENCH_ROCE_ROUNDS:-3}
PREFIX=mbr$$
trap '_lib_exit; "$MPLANECTL" fabric down --prefix "$PREFIX" >/dev/null 2>&1' EXIT

# busbw TRANSPORT: one job's busbw, in MB/s (integer), and its counters
# in $TMPDIR/b-TRANSPORT.json.
busbw() {
	"$MPLANECTL" -j collective run --prefix "$PREFIX" --hosts 2 \
		--op allreduce -b 16M -e 16M -n 5 -w 1 --transport "$1" \
		>"${TMPDIR:-/tmp}/b-$1.$$.json" || fail "$1: the job failed"
	jq '.sizes[0].busbw * 1000 | floor' "${TMPDIR:-/tmp}/b-$1.$$.json"
}

median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }

test_roce_vs_tcp() {
	local i tcp=() roce=() t r pct lossy st
	"$MPLANECTL" fabric up -q --prefix "$PREFIX" --planes 1 --leaves 1 \
		--spines 1 --hosts 2 --rate 100gbit >/dev/null
	for ((i = 0; i < ROUNDS; i++)); do
		tcp+=("$(busbw tcp)")
		roce+=("$(busbw roce)")
	done
	t=$(median "${tcp[@]}")
	r=$(median "${roce[@]}")
	pct=$((100 * r / (t > 0 ? t : 1)))
	"$MPLANECTL" fabric fault --prefix "$PREFIX" switch p0l0 loss 1% >/dev/null
	lossy=$(busbw roce)
	st=$(jq -c .transport_stats "${TMPDIR:-/tmp}/b-roce.$$.json")
	rm -f "${TMPDIR:-/tmp}"/b-*.$$.json
	log "allreduce 16 MiB, 2 ranks, busbw MB/s: tcp $t (${tcp[*]}), roce $r (${roce[*]}): roce is $pct% of tcp"
	log "roce under 1% loss: $lossy MB/s, $st"
	mkdir -p "$(dirname "$OUT")"
	printf '{"tcp_mbps":%d,"roce_mbps":%d,"roce_pct":%d,"roce_loss1_mbps":%d,"roce_loss1_stats":%s}\n' \
		"$t" "$r" "$pct" "$lossy" "$st" >"$OUT"
	assert_ge "roce % of tcp" "$pct" "$MIN_PCT"
}

ktap_run test_roce_vs_tcp

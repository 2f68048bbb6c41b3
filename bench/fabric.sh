#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabric.sh: how long 'mplanectl fabric up' and 'fabric down' take for
# 64 hosts in 4 planes of 8 leaves and 8 spines (128 namespaces, 512 veth
# pairs), natively on the running kernel (run by `make bench` before the
# VM part).  Prints KTAP; a build slower than MPLANE_BENCH_FABRIC_MAX_S
# (30 s) is "not ok", and the script then fails.  Results also go to
# .build/bench/fabric.json.
# shellcheck source-path=SCRIPTDIR source=../selftests/lib/lib.sh
source "$(dirname "$0")/../selftests/lib/lib.sh"

MPLANECTL=$MPLANE_BUILD/mplanectl
OUT=${MPLANE_BENCH_FABRIC_OUT:-$MPLANE_BUILD/bench/fabric.json}
MAX_S=${MPLANE_BENCH_FABRIC_MAX_S:-30}
PREFIX=mpb$$
PLANES=4 LEAVES=8 SPINES=8 HOSTS=64
trap '_lib_exit; "$MPLANECTL" fabric down --prefix "$PREFIX" >/dev/null 2>&1' EXIT

now_ms() { date +%s%3N; }
secs() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }

# veth_ends: veth devices in the fabric's namespaces, as the kernel has them.
veth_ends() {
	local ns n=0
	for ns in /run/netns/"$PREFIX"-*; do
		n=$((n + $(ip -n "$(basename "$ns")" -o link show type veth | wc -l)))
	done
	echo "$n"
}

test_fabric_up_down() {
	local t0 up_ms down_ms netns veths left
	"$MPLANECTL" fabric down --prefix "$PREFIX" >/dev/null
	t0=$(now_ms)
	"$MPLANECTL" fabric up --prefix "$PREFIX" --planes $PLANES \
		--leaves $LEAVES --spines $SPINES --hosts $HOSTS --no-mp0 >/dev/null
	up_ms=$(($(now_ms) - t0))
	netns=$(find /run/netns -maxdepth 1 -name "$PREFIX-*" | wc -l)
	veths=$(veth_ends)
	t0=$(now_ms)
	"$MPLANECTL" fabric down --prefix "$PREFIX" >/dev/null
	down_ms=$(($(now_ms) - t0))
	left=$(find /run/netns -maxdepth 1 -name "$PREFIX-*" | wc -l)
	log "fabric ${HOSTS}x${PLANES} planes (${LEAVES} leaves, ${SPINES} spines): $netns netns, $((veths / 2)) veth pairs; up $(secs "$up_ms") s, down $(secs "$down_ms") s"
	mkdir -p "$(dirname "$OUT")"
	printf '{"host_count":%d,"plane_count":%d,"leaf_count":%d,"spine_count":%d,"netns_count":%d,"veth_pairs":%d,"up_s":%s,"down_s":%s}\n' \
		$HOSTS $PLANES $LEAVES $SPINES "$netns" $((veths / 2)) \
		"$(secs "$up_ms")" "$(secs "$down_ms")" >"$OUT"
	assert_eq "namespaces" "$netns" $((HOSTS + PLANES * (LEAVES + SPINES)))
	assert_eq "veth ends" "$veths" $((2 * PLANES * (HOSTS + LEAVES * SPINES)))
	assert_eq "namespaces after down" "$left" 0
	assert_le "up (ms)" "$up_ms" $((MAX_S * 1000))
	assert_le "down (ms)" "$down_ms" $((MAX_S * 1000))
}

ktap_run test_fabric_up_down

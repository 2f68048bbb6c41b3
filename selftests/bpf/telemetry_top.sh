#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 'mplanectl telemetry top' on a live fabric: 1 plane, 2 leaves, 2 spines,
# 4 hosts at 50 Mbit/s, ECMP on the switches and their ports sampled every
# millisecond.  One flow h0 -> h3 takes one uplink of leaf p0l0, so p0l0's
# ports are far from symmetric: top must show the flow's bandwidth on
# that uplink, and flag the leaf.
# shellcheck source-path=SCRIPTDIR source=../lib/lib.sh
source "$(dirname "$0")/../lib/lib.sh"

MPLANECTL=$MPLANE_BUILD/mplanectl
FAB=mpt$$
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-top.XXXXXX")
H3=10.100.3.2
RATE=2000 SIZE=1000	# 16 Mbit/s of payload

fabric_cleanup() {
	"$MPLANECTL" fabric down --prefix "$FAB" >/dev/null 2>&1
	rm -rf "$TMPD"
}
trap 'fabric_cleanup' EXIT

mpx() { "$MPLANECTL" "$@"; }
in_node() { local node=$1; shift; ip netns exec "$FAB-$node" "$@"; }

setup_fabric() {
	mpx fabric up --force --prefix "$FAB" --planes 1 --leaves 2 --spines 2 \
		--hosts 4 --rate 50mbit --no-mp0 --quiet >/dev/null || fail "fabric up"
	mpx bpf attach --fabric "$FAB" --policy ecmp >/dev/null || fail "attach"
	mpx telemetry sample --fabric "$FAB" --interval 1ms >/dev/null ||
		fail "sample"
}

# flow SEC: one flow h0 -> h3 for SEC seconds, in the background.
flow() {
	in_node h0 "$MPLANECTL" traffic send "$H3:9999" --rate $RATE \
		--size $SIZE --duration "$1" >/dev/null 2>&1 &
}

# The busier uplink of p0l0 in top's JSON line $1 and its bit/s.
busy_uplink() {
	jq -r '[.entities[] | select(.name | test("^p0l0/s[01]$"))] |
		max_by(.bps // 0) | "\(.name) \(.bps // 0 | floor)"' <<<"$1"
}

test_top_shows_the_flow_and_flags_the_leaf() {
	local last name bps
	setup_fabric
	flow 4
	mpx -j telemetry top --fabric "$FAB" --interval 1 --count 3 \
		>"$TMPD/top.json" 2>"$TMPD/top.err" || fail "top: $(cat "$TMPD/top.err")"
	wait
	assert_eq "refreshes" "$(wc -l <"$TMPD/top.json")" 3
	last=$(tail -1 "$TMPD/top.json")
	read -r name bps <<<"$(busy_uplink "$last")"
	log "busiest uplink $name: $bps bit/s"
	# 2000 packets/s of 1042 bytes on the wire at least: ~16.7 Mbit/s.
	assert_ge "$name bit/s" "$bps" 8000000
	assert_le "$name bit/s" "$bps" 50000000
	assert_eq "p0l0's uplinks flagged" "$(jq '.symmetry[] |
		select(.group == "p0l0/s*") | .flagged' <<<"$last")" true
	assert_eq "p0l0's uplinks" "$(jq '.symmetry[] |
		select(.group == "p0l0/s*") | .members' <<<"$last")" 2
	# An idle port is listed because it is slow: "all" of an empty list
	# would be true, so the list must hold exactly the idle uplink.
	assert_eq "the idle uplink is slow" "$(jq -c --arg n "$name" '[.entities[] |
		select(.name | test("^p0l0/s[01]$")) | select(.name != $n) |
		.is_slow]' <<<"$last")" "[true]"
}

test_top_text_names_the_slow_uplink() {
	setup_fabric
	flow 3
	mpx telemetry top --fabric "$FAB" --interval 1 --count 2 \
		>"$TMPD/top.txt" || fail "top"
	wait
	grep -q "^PLANE/PORT" "$TMPD/top.txt" || fail "no table header"
	grep -Eq "^p0l0/s\* .*ASYMMETRIC" "$TMPD/top.txt" ||
		fail "p0l0's uplinks not marked ASYMMETRIC: $(grep '^p0l0' "$TMPD/top.txt")"
	grep -Eq "^p0l0/s[01] .*SLOW" "$TMPD/top.txt" ||
		fail "the idle uplink not named SLOW: $(grep '^p0l0' "$TMPD/top.txt")"
}

test_top_refuses_bad_options() {
	expect_fail_msg "interval" "at least 0.1 s" \
		mpx telemetry top --interval 0.01
	expect_fail_msg "threshold" "a ratio above 1" \
		mpx telemetry top --threshold 0.5
	expect_fail_msg "count" "count" mpx telemetry top --count 0
	expect_fail_msg "argument" "unexpected argument 'x'" \
		mpx telemetry top x
}

ktap_run test_top_shows_the_flow_and_flags_the_leaf test_top_text_names_the_slow_uplink \
	test_top_refuses_bad_options

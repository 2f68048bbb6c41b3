#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cc_fabric.sh: DCQCN end to end on a fabric (issue 16, section 5).  A
# 4:1 incast of RoCEv2 streams (h1..h4 to h0, one QP each, ECT(0))
# through one leaf running ar with ECN marking; the bottleneck is the
# leaf's port h0.  With CC off the port's queue sits at its limit and
# tbf drops; with DCQCN on every host's mp0, once the first cuts have
# landed, the queue stays between Kmin and the limit (its median at Kmin
# or more, its p99 under the limit) with no drops, the link is kept busy,
# and the four flows share it fairly (Jain's index over 2 s,
# from the bytes of each QP that h0's rail received: hostacct), for the
# paced streams and for the engine's roce incast.
# The queue is the ar program's virtual queue of that port, sampled
# every 5 ms by the switch's sampler (port_sample events).
#
# The fabric, the streams and the measures are selftests/lib/cc_incast.sh's.
# shellcheck source-path=SCRIPTDIR source=../lib/lib.sh
source "$(dirname "$0")/../lib/lib.sh"
# shellcheck source=../lib/mplane.sh
source "$(dirname "$0")/../lib/mplane.sh"
# shellcheck source=../lib/cc_incast.sh
source "$(dirname "$0")/../lib/cc_incast.sh"

FAB=kcc$$
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-kccfab.XXXXXX")
trap '_lib_exit; cc_incast_cleanup; rm -rf "$TMPD"' EXIT

# The fabric of the incasts, as --cc dcqcn builds it (make check runs
# this on every release kernel; the incasts take minutes: e2e_only).
test_dcqcn_fabric_shape() {
	fabric_build
	# --cc dcqcn: 1 us of netem at the root of every switch port (tbf
	# under it), none on the hosts' rails (tbf, and fq under it).
	# (tc prints the 1000 ns as "0us", from the old field in ticks).
	tc -n "$FAB-p0l0" qdisc show dev h0 | grep -q '^qdisc netem .* root ' ||
		fail "p0l0 h0: no netem at the root: $(tc -n "$FAB-p0l0" qdisc show dev h0 | head -1)"
	assert_eq "state: p0l0 h0's delay (us)" "$("$MPLANECTL" -j fabric show --prefix "$FAB" |
		jq '.nodes[] | select(.name == "p0l0") | .ports[0].delay_us')" 1
	assert_eq "h1 r0: the root qdisc" "$(tc -n "$(hns 1)" -j qdisc show dev r0 |
		jq -r '[.[] | select(.root)][0].kind')" tbf
}

test_incast_cc_off() {
	local n p50 p99 max below j sent
	e2e_only
	[ -f "/run/mplane/fabric/$FAB.json" ] || fabric_build
	cc_all off
	QP_READ=qp_bytes
	incast 2 4
	read -r n p50 p99 max below _ <<<"$(queue 2000000)"
	read -r j _ <<<"$(jain "$A" "$B")"
	sent=$(sent_total)
	log "cc off: queue p50 $p50 p99 $p99 max $max bytes (limit $LIMIT, $n samples)," \
		"drops $((D2 - D1)) in the last $(((T_END - T1) / 1000)) ms, $D2 of $sent sent," \
		"$(kbit_out) kbit/s out, Jain $j/1000"
	assert_ge "samples of the bottleneck" "$n" 100
	# At the limit: up to it (within two frames) in the 1% of highest
	# samples, and in its top fifth half the time (the drops free room
	# that the next packets take; under TCG a sender's wake-up is late).
	assert_ge "cc off: queue p99 (bytes)" "$p99" $((LIMIT - 2 * FRAME))
	assert_ge "cc off: queue p50 (bytes)" "$p50" $((LIMIT * 4 / 5))
	# Four senders at their line rate into one: most of it is dropped,
	# and it keeps dropping.
	assert_ge "cc off: tbf drops, of $sent sent" $((D2 * 2)) "$sent"
	assert_ge "cc off: tbf drops at the end" $((D2 - D1)) 1
}

# cc_on_trial WHO: the figures of the last incast into Q (n p50 p99 max
# below empty), J, KBIT and STALL (its longest, ms), logged.
cc_on_trial() {
	local ns
	read -r -a Q <<<"$(queue $((WARM_S * 1000000)))"
	read -r J _ <<<"$(jain "$A" "$B")"
	read -r ns STALL <<<"$(stalls $((WARM_S * 1000000)))"
	KBIT=$(kbit_out)
	log "$1: queue p50 ${Q[1]} p99 ${Q[2]} max ${Q[3]} bytes (Kmin $KMIN, limit $LIMIT," \
		"${Q[4]}% of ${Q[0]} samples under Kmin, ${Q[5]}% empty), drops $((D1 - D0)) in the start," \
		"$((D2 - D1)) in the last $(((T_END - T1) / 1000)) ms, $KBIT kbit/s out," \
		"Jain $J/1000 ($A / $B); $ns guest stalls of 20 ms or more, the longest $STALL ms"
}

# A guest stall this long lets out a burst of every sender's due packets
# at once (4 x 7 of them, 30 KB), and tbf, which can keep no more than
# its burst of tokens, loses that much of the link: drops after it are
# the guest's.  A trial with drops is tried once more only if it shows
# such a stall.
STALL_MS=40

# cc_on_tries WHO RUN: RUN (an incast) until a trial without drops after
# the start, at most twice, and the goals of DCQCN on it.
cc_on_tries() {
	local who=$1 try
	for try in 1 2; do
		D0=$(drops)
		$2
		cc_on_trial "$who"
		[ $((D2 - D1)) -eq 0 ] && break
		[ "$STALL" -ge $STALL_MS ] && [ $try -eq 1 ] || break
		log "$who: $((D2 - D1)) drops after the start, with a guest stall of $STALL ms: once more"
	done
	assert_ge "samples of the bottleneck" "${Q[0]}" 100
	assert_eq "$who: tbf drops after the start" $((D2 - D1)) 0
	# Under the limit, by a frame: a queue that reached it drops.
	assert_le "$who: queue p99 (bytes), under the limit" "${Q[2]}" $((LIMIT - FRAME))
	assert_ge "$who: Jain's index (1/1000)" "$J" 950
	# In DCQCN's band: the marks between Kmin and Kmax hold the queue
	# there, and the four QPs' cuts together take it under Kmin now and
	# then, so the median, not every sample.  With a reduce period of
	# 10 ms the median was 1479-2114 bytes (Documentation/cc.md).
	assert_ge "$who: queue p50 (bytes), Kmin or more" "${Q[1]}" $KMIN
	# The link kept busy: three quarters of 4 Mbit/s (3.5-3.9 Mbit/s were
	# measured in a 2-vCPU guest; CC off gets 3.9-4.0).
	assert_ge "$who: kbit/s out of the bottleneck" "$KBIT" $((RATE_KBIT * 3 / 4))
}

# From 3 s on: the first seconds are the flows' start at line rate,
# before their first cuts come back.
WARM_S=3

streams_incast() { incast $WARM_S 7; }

test_incast_cc_on() {
	e2e_only
	[ -f "/run/mplane/fabric/$FAB.json" ] || fabric_build
	cc_all dcqcn
	QP_READ=qp_bytes
	cc_on_tries dcqcn streams_incast
}

# engine_run: one engine incast, measured as the streams' are.
engine_run() {
	incast_start engine_incast
	incast_window $WARM_S 8
	wait $COLL || fail "the engine's incast failed: $(head -c 300 "$TMPD/coll.json")"
	log "engine: $(jq -r '"\(.sizes[0].time_us / 1000 | floor) ms, verified \(.sizes[0].verified), retransmits \(.transport_stats.retransmits)"' "$TMPD/coll.json")"
	assert_eq "engine: every element checked" \
		"$(jq '[.sizes[].verified] | all' "$TMPD/coll.json")" true
}

test_incast_engine_cc_on() {
	e2e_only
	[ -f "/run/mplane/fabric/$FAB.json" ] || fabric_build
	# The engine's rank 0 takes port 4791 (RoCEv2's, which mp0's CC
	# looks for) from the streams' receiver.
	recv_stop
	cc_all dcqcn
	QP_READ=qp_top
	cc_on_tries engine engine_run
}

# The incasts run under make check-cc-fabric (MPLANE_TEST_SHARE=all), on
# 6.1, 6.12 and 7.3, one 2-vCPU guest at a time: about 55 s a kernel,
# which make check's 30 minutes, with its 1-vCPU guests two at a time,
# do not have.
e2e_only() {
	[ "${MPLANE_TEST_SHARE:-}" = all ] ||
		skip "the incasts run under make check-cc-fabric (MPLANE_TEST_SHARE=all)"
}

mplane_load
ktap_run test_dcqcn_fabric_shape test_incast_cc_off test_incast_cc_on \
	test_incast_engine_cc_on

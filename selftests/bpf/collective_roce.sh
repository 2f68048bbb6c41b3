#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 'mplanectl collective run --transport roce' on the running kernel: one
# plane, one leaf, one spine and 8 hosts at 100gbit (unshaped: nothing
# is lost unless a test loses it).  Every operation on 4 and 8 ranks
# with every element checked; 1% loss at the leaf's ports, so that
# go-back-N has to work; hostacct on the hosts' rails counting exactly
# what the transport says it sent, on the QPs the design gives; IPv6; a
# link that goes down in the middle of a job, named when it fails; and
# two jobs on the same hosts, on one port and on two.
# shellcheck source-path=SCRIPTDIR source=../lib/lib.sh
source "$(dirname "$0")/../lib/lib.sh"

MPLANECTL=$MPLANE_BUILD/mplanectl
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-croce.XXXXXX")
FAB=cr$$
SLOW_FAB=${FAB}w	# test_window's, at 10mbit
OPS="allreduce allgather reduce_scatter broadcast alltoall permutation incast"

fabric_cleanup() {
	"$MPLANECTL" fabric down --prefix "$FAB" >/dev/null 2>&1 || true
	"$MPLANECTL" fabric down --prefix "$SLOW_FAB" >/dev/null 2>&1 || true
}
trap '_lib_exit; fabric_cleanup; rm -rf "$TMPD"' EXIT

# need_fabric: the fabric, built once for the tests of this run; faults
# a test made are cleared before the next one.
need_fabric() {
	if [ -f "/run/mplane/fabric/$FAB.json" ]; then
		"$MPLANECTL" fabric fault --prefix "$FAB" clear >/dev/null
		return
	fi
	"$MPLANECTL" fabric up -q --prefix "$FAB" --planes 1 --leaves 1 \
		--spines 1 --hosts 8 --rate 100gbit >/dev/null
}

# job NAME ARGS... : a roce job as JSON in $TMPD/NAME.json; its exit
# status must be 0.
job() {
	local name=$1
	shift
	"$MPLANECTL" -j collective run --prefix "$FAB" --transport roce "$@" \
		>"$TMPD/$name.json" 2>"$TMPD/$name.err" ||
		fail "$name: exit $?: $(cat "$TMPD/$name.err")"
}

# J[...]: the last job's verdict and transport counters, from one jq.
declare -A J
read_job() {
	json_flat J "$(cat "$TMPD/$1.json")" \
		'{verified, wrong, s: .transport_stats, sizes: (.sizes | length)}'
}

# Every size of every operation checked.  Even an unshaped fabric of veth
# pairs loses a packet now and then (a CPU's backlog overflows when 8
# ranks send at once), so the counters are only bounded.
check_job() {
	local name=$1
	read_job "$name"
	assert_eq "$name: verified" "${J[verified]}" true
	assert_eq "$name: wrong" "${J[wrong]}" 0
	assert_ge "$name: sizes" "${J[sizes]}" 2
	assert_ge "$name: packets" "${J[s.tx_packets]}" 1
	assert_le "$name: payload in <= out" "${J[s.rx_bytes]}" "${J[s.tx_bytes]}"
	# Round trips: some QP timed one, and the least sample is no more
	# than the least smoothed RTT, which is no more than their mean
	# and most.
	assert_ge "$name: QPs with a round trip" "${J[s.rtt_conns]}" 1
	assert_le "$name: least RTT sample (us)" "${J[s.rtt_min_us]}" "${J[s.srtt_min_us]}"
	assert_le "$name: least SRTT (us)" "${J[s.srtt_min_us]}" "${J[s.srtt_mean_us]}"
	assert_le "$name: mean SRTT (us)" "${J[s.srtt_mean_us]}" "${J[s.srtt_max_us]}"
}

ops_on() {
	local n=$1 op
	need_fabric
	for op in $OPS; do
		job "$op-$n" --op "$op" --hosts "$n" -b 4K -e 256K -f 8 -n 2 -w 1
		check_job "$op-$n"
	done
}

test_ops_4_ranks() { ops_on 4; }

# A send buffer of the kernel's least (4 KiB: one packet at a time): the
# sends find it full all along, and every element still checks.
test_small_sndbuf() {
	need_fabric
	job sndbuf --op allreduce --hosts 4 -b 64K -e 256K -f 4 -n 2 -w 1 --sndbuf 4K
	check_job sndbuf
}
test_ops_8_ranks() { ops_on 8; }

# 1% of what the leaf sends is lost: each packet, data or ACK, crosses
# it once.  Go-back-N must still give every element right, and say what
# it did.
test_loss_1pct() {
	local dropped
	need_fabric
	"$MPLANECTL" fabric fault --prefix "$FAB" switch p0l0 loss 1% >/dev/null
	job loss-ar --op allreduce --hosts 4 -b 64K -e 1M -f 4 -n 3 -w 1
	read_job loss-ar
	assert_eq "verified" "${J[verified]}" true
	assert_eq "wrong" "${J[wrong]}" 0
	assert_ge "retransmits" "${J[s.retransmits]}" 1
	assert_ge "naks + timeouts" "$((${J[s.naks]} + ${J[s.timeouts]}))" 1
	assert_ge "held past a gap" "${J[s.held]}" 1
	# Selective repeat: a loss costs its own packet, not the window
	# behind it (go-back-N resent about 97 a NAK here).
	assert_le "retransmits a NAK or timeout" \
		"$((${J[s.retransmits]} / (${J[s.naks]} + ${J[s.timeouts]})))" 4
	log "allreduce under 1% loss: ${J[s.retransmits]} retransmits, ${J[s.naks]} NAKs, ${J[s.timeouts]} timeouts, ${J[s.held]} held"
	job loss-a2a --op alltoall --hosts 8 -b 64K -e 256K -f 4 -n 3 -w 1
	read_job loss-a2a
	assert_eq "alltoall verified" "${J[verified]}" true
	assert_ge "alltoall retransmits" "${J[s.retransmits]}" 1
	dropped=$("$MPLANECTL" -j fabric fault --prefix "$FAB" show |
		jq '[.ports[].dropped // 0] | add')
	assert_ge "the leaf dropped" "$dropped" 10
	log "alltoall under 1% loss: ${J[s.retransmits]} retransmits; the leaf dropped $dropped"
}

# hostacct on every host's rail while a job runs: what the transport
# counted is what crossed the rails, QP by QP as collective.md says
# (rank R sends to rank P on QP 0x01PPRR, and the CM is QP 1), every
# packet ECT(0), and nothing else on UDP 4791.
test_hostacct_counts() {
	local h out=0 in=0 bad
	need_fabric
	for h in 0 1 2 3; do
		"$MPLANECTL" -n "$FAB-h$h" bpf attach --prog hostacct r0
	done
	job acct --op allreduce --hosts 4 -b 16K -e 128K -f 8 -n 2 -w 1
	read_job acct
	for h in 0 1 2 3; do
		"$MPLANECTL" -n "$FAB-h$h" -j bpf status --prog hostacct r0 \
			>"$TMPD/acct-h$h.json"
		"$MPLANECTL" -n "$FAB-h$h" bpf detach --prog hostacct r0
		bad=$(jq --argjson r "$h" '
			def src: . % 256; def dst: (. / 256 | floor) % 256;
			def ours: . == 1 or (. >= 65536 and . < 131072);
			[.qps[] | select(
				(.qpn | ours | not) or
				(.dir == "egress" and .qpn != 1 and
				 ((.qpn | src) != $r or (.qpn | dst) == $r)) or
				(.dir == "ingress" and .qpn != 1 and
				 ((.qpn | dst) != $r or (.qpn | src) == $r)))] |
			length' "$TMPD/acct-h$h.json")
		assert_eq "h$h: QPs not of the design" "$bad" 0
		jq_read "$(cat "$TMPD/acct-h$h.json")" \
			'.egress.roce_packets, .ingress.roce_packets, .egress.ect,
			 ([.qps[] | select(.dir == "egress") | .packets] | add),
			 ([.qps[] | select(.dir == "egress" and .qpn == 65536 + 256 * (('"$h"' + 1) % 4) + '"$h"') | .packets] | add // 0)' \
			E I ECT QE NEXT
		assert_eq "h$h: QPs sum to the rail" "$QE" "$E"
		assert_ge "h$h: ECT(0) on every packet" "$ECT" "$E"
		assert_ge "h$h: data to the ring's next rank" "$NEXT" 10
		out=$((out + E))
		in=$((in + I))
	done
	assert_eq "packets on the rails out = the transport's" "$out" "${J[s.tx_packets]}"
	assert_le "packets on the rails in <= out" "$in" "$out"
	# Some REQs reach a host before its rank has bound: they are on the
	# rail, not in the socket.
	assert_le "received <= on the rails" "${J[s.rx_packets]}" "$in"
}

test_ipv6() {
	need_fabric
	job v6 --op allreduce --hosts 4 --family 6 -b 4K -e 256K -f 8 -n 2 -w 1
	check_job v6
}

# A rail goes down while a job runs: the job fails within its timeout,
# not at the end of its --duration, and the first rank to give up names
# the peer it waited for (by rank and address).
test_link_down_named() {
	local rc=0 start=$EPOCHREALTIME
	need_fabric
	"$MPLANECTL" fabric fault --prefix "$FAB" --at 0.3 h1:r0 down >/dev/null
	"$MPLANECTL" collective run --prefix "$FAB" --transport roce \
		--op allreduce --hosts 4 -b 64K -e 64K --duration 5 --timeout 1 \
		>"$TMPD/down.out" 2>"$TMPD/down.err" || rc=$?
	assert_eq "exit" "$rc" 1
	grep -Eq 'roce: rank [0-3]: rank ([0-3]) \(10\.100\.\1\.2:4791\): nothing moved for 1\.0 s' \
		"$TMPD/down.err" || fail "no roce timeout naming a rank: $(cat "$TMPD/down.err")"
	assert_le "failed in (s)" $(((${EPOCHREALTIME/./} - ${start/./}) / 1000000)) 3
}

# roce_bound NS: a UDP socket on 4791 in NS.
roce_bound() {
	[ -n "$(ip netns exec "$1" ss -Hlun 'sport = :4791')" ]
}

# Two jobs on the same hosts: the second on the same port fails at once,
# saying why; on its own --port it runs next to the first, and both
# check.  The background job runs as long as the two others take.
test_same_hosts_ports() {
	local bg rc=0
	need_fabric
	"$MPLANECTL" -j collective run --prefix "$FAB" --transport roce \
		--op allreduce --hosts 2 -b 64K -e 64K --duration 2 \
		>"$TMPD/bg.json" 2>"$TMPD/bg.err" &
	bg=$!
	busywait 5000 roce_bound "$FAB-h0" || fail "the first job did not bind"
	"$MPLANECTL" collective run --prefix "$FAB" --transport roce \
		--op allreduce --hosts 2 -b 64K -e 64K -n 1 \
		>/dev/null 2>"$TMPD/taken.err" || rc=$?
	assert_eq "same port: exit" "$rc" 1
	# Both hosts' ports are the first job's: whichever rank finds it first
	# ends the job, naming itself and its address.
	grep -Eq "roce: rank ([01]) \(10\.100\.\1\.2:4791\): the port is taken" "$TMPD/taken.err" ||
		fail "same port: $(cat "$TMPD/taken.err")"
	job port2 --op allreduce --hosts 2 -b 64K -e 256K -f 4 -n 2 -w 1 --port 4792
	check_job port2
	wait "$bg" || fail "the first job: $(cat "$TMPD/bg.err")"
	read_job bg
	assert_eq "the first job verified" "${J[verified]}" true
}

# The window: the fabric's bandwidth-delay product by default, which is
# past the most (256) on this unshaped fabric and 11 packets on two
# planes of 10mbit (two frames of 1086 bytes and ACKs of 66 on each of
# four links, and 1 ms for the hosts); --window sets it, over roce only.
test_window() {
	local rc=0
	need_fabric
	job win-auto --op allreduce --hosts 2 -b 64K -e 64K -n 1 -w 0
	assert_eq "this fabric's window" "$(jq .window_pkts "$TMPD/win-auto.json")" 256
	job win-4 --op alltoall --hosts 4 -b 64K -e 256K -f 4 -n 2 -w 1 --window 4
	check_job win-4
	assert_eq "--window 4" "$(jq .window_pkts "$TMPD/win-4.json")" 4
	"$MPLANECTL" collective run --prefix "$FAB" --op allreduce --window 4 \
		>/dev/null 2>"$TMPD/win-tcp.err" || rc=$?
	assert_eq "--window over tcp: exit" "$rc" 2
	grep -q "window is the roce transport's" "$TMPD/win-tcp.err" ||
		fail "--window over tcp: $(cat "$TMPD/win-tcp.err")"
	"$MPLANECTL" fabric up -q --prefix "$SLOW_FAB" --planes 2 --hosts 4 \
		--rate 10mbit >/dev/null || fail "a fabric at 10mbit"
	"$MPLANECTL" -j collective run --prefix "$SLOW_FAB" --transport roce \
		--op allreduce --hosts 2 -b 8K -e 8K -n 1 -w 0 >"$TMPD/win-10.json" \
		2>"$TMPD/win-10.err" || fail "at 10mbit: $(cat "$TMPD/win-10.err")"
	assert_eq "the window at 10mbit, 2 planes" "$(jq .window_pkts "$TMPD/win-10.json")" 11
	"$MPLANECTL" fabric down --prefix "$SLOW_FAB" >/dev/null
}

ktap_run test_ops_4_ranks test_ops_8_ranks test_small_sndbuf test_loss_1pct \
	test_hostacct_counts test_ipv6 test_link_down_named \
	test_same_hosts_ports test_window

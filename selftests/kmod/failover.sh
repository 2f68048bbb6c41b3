#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Plane failure and recovery: carrier loss under a 20 kpps stream (loss
# and the longest delivery gap), hold-down before re-admission, silent
# failure found by probes, admin drain/down, and the netlink notification
# of every state change.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/mplane.sh"

# The debug kernel (quick) cannot send 20 kpps under TCG: a one-vCPU
# KASAN guest took 10-20 s for a 2 s stream at 2000 pps (a stream that
# outlives its receiver loses its tail), so it streams at 500.
RATE=20000
quick && RATE=500

# stream SECONDS [PPS]: start a paced 8-flow stream ha -> hb at PPS
# (default RATE) in the background, with its receiver; results land in
# $TMPDIR/mp-recv.json and mp-send.json after wait.
# b1 (plane 1 at hb) is the receiver's watched link: its failure is a
# fault of the stream, lost packets or not.
stream() {
	local secs=$1 pps=${2:-$RATE} ready=$TMPDIR/mp-ready.$$
	local count=$((pps * secs))
	rm -f "$ready"
	ip netns exec "$hb" "$MPLANECTL" -j traffic recv --expect $((count / 8)) \
		--idle 2 --timeout $((secs * 10 + 30)) --watch-link b1 --ready-file "$ready" \
		>"$TMPDIR/mp-recv.json" &
	# A debug guest busy with probes takes seconds to start it.
	busywait 30000 test -e "$ready" || fail "receiver not ready"
	ip netns exec "$ha" "$MPLANECTL" -j traffic send $MP_B4 --count "$count" \
		--rate "$pps" --flows 8 >"$TMPDIR/mp-send.json" &
}

# warm POLICY: resolve every plane's neighbours first (round robin), so
# that the measured stream sees no ARP delay, then switch to POLICY.
warm() {
	"$MPLANECTL" -n "$ha" link set mp0 policy rr
	ip netns exec "$ha" ping -c 8 -i 0.02 -q $MP_B4 >/dev/null || fail "warm-up ping"
	"$MPLANECTL" -n "$ha" link set mp0 policy "$1"
}

# The outage of one carrier failure: the stream's loss, and its gaps near
# the failure (the holes it left, and b1 going down: traffic recv
# --watch-link).  Of the longest gap there, the path's part (the excess:
# the gap less the sender's own between the same two packets) must be
# under 1 ms.  The rest is the sender's: on a 2-vCPU TCG guest it shares
# the CPUs with the command that takes the link down, and stalls for
# 0.5-0.8 ms then; with 2 packets lost at most, the holes add 150 us.
#
# Loss is the path's only once the receiver's own is taken out: packets
# its full socket buffer dropped (socket_drops) were delivered.  The
# path's loss is bounded in every trial; nothing excuses it.
#
# A TCG guest stalls for several ms now and then, whatever the path does,
# and near the failure as likely as anywhere.  A trial whose outage is
# long is tried again, up to 5 trials, only when it shows such a stall of
# its own: an excess gap as long away from the failure, a sender held up
# as long, or a receiver that overflowed.  A path that held packets at
# failover is slow in a trial that shows none of these, and fails.  (Next
# to a busy guest, 3 trials in a row on 7.3 each showed stalls of 5-9 ms
# away from the failure, with the path's part at it 1.5-2.4 ms; alone,
# 150-850 us or a stall again.)
# The debug kernel sends at a tenth of the rate and its own jitter is a
# few scheduler ticks (1-4 ms seen): there the limit is 10 ms, still far
# from the 100 ms of a bond's MII polling.
test_carrier_failover() {
	local trial lost drops gap excess away late rcvbuf noise limit=1000
	local -A R S
	quick && limit=10000
	mp_pair 2
	"$MPLANECTL" -n "$ha" link set mp0 holddown 0
	for trial in 1 2 3 4 5; do
		warm spray
		rcvbuf=$(udp_rcvbuf_errors "$hb")
		stream 2
		sleep 1
		# The far end of plane 1 goes away: a1 loses carrier at once.
		ip -n "$hb" link set b1 down
		wait
		json_flat R "$(<"$TMPDIR/mp-recv.json")"
		json_flat S "$(<"$TMPDIR/mp-send.json")"
		lost=${R[lost]} drops=${R[socket_drops]} gap=${R[max_gap_near_fault_us]}
		excess=${R[max_excess_gap_near_fault_us]} away=${R[max_excess_gap_away_us]}
		late=${S[max_late_us]}
		log "carrier failover at $RATE pps, trial $trial: ${R[received]} received" \
			"in ${R[duration_s]} s (stopped by ${R[stopped_by]}), ${S[sent]} sent; lost $lost, of which" \
			"$drops by the receiver's full socket ($(($(udp_rcvbuf_errors "$hb") - rcvbuf))" \
			"UDP RcvbufErrors in hb); within 5 ms of the failure: longest gap" \
			"$gap us, of which the path's $excess us; away from it: the" \
			"path's longest $away us; the sender at most $late us late"
		[ "${R[stopped_by]}" != timeout ] ||
			fail "the receiver timed out before the stream ended: the sender" \
				"fell behind its rate (a guest too slow for $RATE pps)"
		assert_le "packets the path lost" $((lost - drops)) 2
		assert_eq "plane 1" "$(mp_state "$ha" 1)" down
		assert_ge "failovers" "$(mp_pstat "$ha" 1 failovers)" "$trial"
		assert_ge "b1 going down seen" "${R[link_changes]}" 1
		[ "${excess%.*}" -ge $limit ] || return 0
		[ "${away%.*}" -ge $limit ] || [ "${late%.*}" -ge $limit ] || [ "$drops" -gt 0 ] ||
			fail "the path's gap at failover was $excess us (over $limit) in a" \
				"trial with no stall of the guest to blame"
		# A stall is to blame only for as much as the guest stalled
		# elsewhere in the same trial: a failover slower than that is
		# the datapath's, whatever the guest did.
		noise=$(( ${away%.*} > ${late%.*} ? ${away%.*} : ${late%.*} ))
		[ "${excess%.*}" -le "$noise" ] ||
			fail "the path's gap at failover was $excess us, longer than any" \
				"stall of the guest in the same trial ($noise us)"
		log "the guest stalled in this trial too: again"
		ip -n "$hb" link set b1 up
		busywait 3000 mp_state_is "$ha" 1 up || fail "plane 1 not back"
	done
	# Every trial stalled, and in each the failover's gap was within
	# the guest's own stalls: nothing of it can be told from them.
	log "the guest stalled in all 5 trials; the failover's gap was never" \
		"longer than the guest's own stalls in its trial"
}

test_holddown_then_readmit() {
	local before holddown=3000
	# Each poll of the plane's state takes half a second on the debug
	# kernel: a hold-down long enough to be seen and used in.
	quick && holddown=10000
	mp_pair 2
	"$MPLANECTL" -n "$ha" link set mp0 policy rr holddown $holddown
	ip -n "$hb" link set b1 down
	busywait 2000 mp_state_is "$ha" 1 down || fail "plane 1 not down"
	ip -n "$hb" link set b1 up
	busywait 2000 mp_state_is "$ha" 1 probing || fail "no hold-down"
	assert_eq "reason" "$(mp_json "$ha" | jq -r '.devices[0].planes[1].reason')" holddown
	before=$(mp_pstat "$hb" 1 rx_packets)
	ip netns exec "$ha" ping -c 10 -i 0.01 -q $MP_B4 >/dev/null || fail "ping during hold-down"
	[ "$(mp_state "$ha" 1)" = probing ] || skip "hold-down ended before the check (slow VM)"
	assert_eq "plane 1 unused in hold-down" "$(mp_pstat "$hb" 1 rx_packets)" "$before"
	slowwait $((holddown / 1000 + 10)) mp_state_is "$ha" 1 up ||
		fail "plane 1 not re-admitted"
}

test_silent_failure_probes() {
	local lost interval=2000 rate=$RATE secs=2
	local -A R P S
	# Probes every 2 ms keep a KASAN guest under TCG too busy to start
	# the stream's receiver.  With one vCPU and probes every 20 ms it
	# sends this stream at 200-300 pps whatever the rate asked: ask for
	# what it keeps, or the loss bound below counts a slow sender.
	quick && interval=20000 rate=200 secs=3
	mp_pair 2
	warm spray
	"$MPLANECTL" -n "$ha" link set mp0 peers $MP_B4 \
		probe-interval $interval probe-misses 3
	slowwait 5 mp_pstat_ge "$ha" 1 probes_sent 20 || fail "no probes sent"
	assert_eq "plane 1 answered" "$(mp_state "$ha" 1)" up
	# The qdisc before the stream: creating it turns static keys on in
	# the transmit path, and under TCG patching code that another vCPU
	# runs can oops on the int3 of the patching (seen on 6.12 in
	# __dev_queue_xmit), which is the emulator's doing, not mplane's.
	tc -n "$hb" qdisc add dev b1 clsact
	stream $secs $rate
	sleep 1
	# Carrier stays up; plane 1 silently eats everything towards hb.
	tc -n "$hb" filter add dev b1 ingress pref 1 matchall action drop
	wait
	json_flat R "$(<"$TMPDIR/mp-recv.json")"
	json_flat P "$(mp_json "$ha")" '.devices[0].planes'
	# The receiver's full socket buffer is not the path's loss.
	lost=$((R[lost] - R[socket_drops]))
	log "silent failure at $rate pps, probes every $interval us: lost ${R[lost]}," \
		"${R[socket_drops]} of them by the receiver's full socket"
	# What tells a slow probe from a slow guest when the loss is high.
	json_flat S "$(<"$TMPDIR/mp-send.json")"
	log "sent ${S[sent]} in ${S[duration_s]} s (${S[errors]} errors, at most" \
		"${S[max_late_us]} us late, ${S[slipped]} slipped)"
	log "received ${R[received]} in ${R[duration_s]} s, ${R[holes]} holes," \
		"longest gap ${R[max_gap_us]} us, stopped by ${R[stopped_by]}"
	log "plane 0: ${P[0.stats.state_changes]} state changes," \
		"${P[0.stats.probes_lost]} of ${P[0.stats.probes_sent]} probes lost;" \
		"plane 1: ${P[1.stats.probes_lost]} of ${P[1.stats.probes_sent]}"
	[ "${R[stopped_by]}" != timeout ] ||
		fail "the receiver timed out before the stream ended: the sender" \
			"fell behind its rate (a guest too slow for $rate pps)"
	assert_eq "plane 1" "${P[1.state]}" down
	assert_eq "reason" "${P[1.reason]}" probe_miss
	# Found within 10 intervals: at most that much of the stream.
	assert_le "packets lost" "$lost" $((rate * 10 * interval / 1000000))
	tc -n "$hb" filter del dev b1 ingress pref 1
	slowwait 5 mp_state_is "$ha" 1 up || fail "plane 1 did not recover"
}

# FORGE_PY COUNT: COUNT probe replies from hb to ha on plane 1, as b1
# sends them but past its qdisc (PACKET_QDISC_BYPASS), so that b1's
# egress filter, which drops hb's own replies, lets them through.  Each
# has a sequence number of its own, 0 to COUNT - 1, so that those of
# ha's window come too, and a nonce that is not ha's.
# shellcheck disable=SC2016
FORGE_PY='
import os, socket, struct, sys, time
count = int(sys.argv[1])
def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    s = (s >> 16) + (s & 0xffff)
    return ~(s + (s >> 16)) & 0xffff
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.setsockopt(263, 20, 1)          # SOL_PACKET, PACKET_QDISC_BYPASS
s.bind(("b1", 0))
for seq in range(count):
    probe = struct.pack("!IBBBBQQQ", 0x4d505052, 2, 2, 1, 0, seq, 0,
                        int.from_bytes(os.urandom(8), "big"))
    udp = struct.pack("!HHHH", 4792, 4792, 8 + len(probe), 0) + probe
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), seq & 0xffff, 0,
                     64, 17, 0, socket.inet_aton("10.99.0.2"),
                     socket.inet_aton("10.99.0.1"))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    eth = bytes.fromhex("02000000 0a01 02000000 0b01 0800".replace(" ", ""))
    s.send(eth + ip + udp)
    time.sleep(0.002)
'

# Forged answers do not bring a plane back: with hb's real replies on
# plane 1 dropped, ha's plane 1 is down (probe_miss), and 200 replies
# that carry no nonce of ha's, some with the sequence numbers ha just
# sent, are all refused, and counted: the plane does not change state
# while they come.  The real replies, let through again, bring it up.
test_forged_replies_refused() {
	local changes n=200
	mp_pair 2
	"$MPLANECTL" -n "$ha" link set mp0 peers $MP_B4 probe-interval 20000 probe-misses 3
	slowwait 5 mp_state_is "$ha" 1 up || fail "plane 1 never answered"
	tc -n "$hb" qdisc add dev b1 clsact
	tc -n "$hb" filter add dev b1 egress pref 1 matchall action drop
	slowwait 5 mp_state_is "$ha" 1 down || fail "plane 1 stayed up without answers"
	changes=$(mp_pstat "$ha" 1 state_changes)
	ip netns exec "$hb" python3 -c "$FORGE_PY" $n || fail "forging the replies"
	assert_eq "plane 1 after $n forged replies" "$(mp_state "$ha" 1)" down
	assert_eq "plane 1's state changes meanwhile" "$(mp_pstat "$ha" 1 state_changes)" "$changes"
	assert_eq "replies refused" "$(mp_pstat "$ha" 1 probes_refused)" $n
	tc -n "$hb" filter del dev b1 egress pref 1
	slowwait 5 mp_state_is "$ha" 1 up || fail "plane 1 did not come back on real replies"
	assert_eq "real replies refused" "$(mp_pstat "$ha" 1 probes_refused)" $n
}

# The congestion half-life reaches 10 s: one past 2^32 ns (4.29 s) must
# keep its length.  Cut to 32 bits, 4294968 us was 704 ns: a score fell
# to nothing between two marks, and no plane was ever found congested.
test_congestion_long_halflife() {
	local ready=$TMPDIR/mp-ready.$$ receiver
	local -A P
	mp_pair 2
	"$MPLANECTL" -n "$ha" link set mp0 cong-threshold 20 cong-halflife 4294968
	"$MPLANECTL" -n "$hb" link set mp0 policy rr
	rm -f "$ready"
	ip netns exec "$ha" "$MPLANECTL" traffic recv --count 200 --idle 2 --timeout 60 \
		--ready-file "$ready" >/dev/null 2>&1 &
	busywait 30000 test -e "$ready" || fail "receiver not ready"
	# CE-marked towards ha, half of it on each plane.
	ip netns exec "$hb" "$MPLANECTL" traffic send $MP_A4 --ecn ce --count 200 \
		--rate 1000 >/dev/null || fail "sender"
	# One read, at once: the score halves every 4.3 s, and on the debug
	# kernel three reads took as long (one of them saw the plane
	# congested, the next one up again).
	json_flat P "$(mp_json "$ha")" '.devices[0].planes'
	wait
	assert_eq "plane 0 read" "${P[0.index]}" 0
	assert_ge "CE marks on plane 0" "${P[0.stats.ecn_ce]}" 90
	assert_eq "plane 0" "${P[0.state]}" congested
	assert_eq "reason" "${P[0.reason]}" ecn
	# RoCEv2 CNPs (UDP 4791, BTH opcode 0x81) are counted per plane, as
	# the uapi's MPLANE_ROCEV2_PORT and MPLANE_BTH_OPCODE_CNP name them.
	# A socket takes them in, so that no port-unreachable answers; it
	# counts them as invalid test traffic and never stops by count,
	# hence the kill (waiting for its timeout cost 60 s).
	rm -f "$ready"
	ip netns exec "$ha" "$MPLANECTL" traffic recv --port 4791 --timeout 60 \
		--ready-file "$ready" >/dev/null 2>&1 &
	receiver=$!
	busywait 30000 test -e "$ready" || fail "receiver not ready"
	ip netns exec "$hb" "$MPLANECTL" traffic send $MP_A4 --cnp 0x11 --count 100 \
		--rate 1000 >/dev/null || fail "CNP sender"
	busywait 5000 eval '[ $(($(mp_pstat "$ha" 0 cnp) + $(mp_pstat "$ha" 1 cnp))) -ge 100 ]' ||
		fail "CNPs counted: $(mp_pstat "$ha" 0 cnp) + $(mp_pstat "$ha" 1 cnp), want 100"
	kill "$receiver"
	wait
}

# CE is mp0's signal only on mp0's traffic: 200 CE-marked packets to
# the rail a0's own address (10.97.0.1, not mp0's) go up a0's stack, and
# neither count as plane 0's CE nor feed its score; the same to mp0's
# address do.
test_ce_for_others_ignored() {
	local ready=$TMPDIR/mp-ready.$$
	mp_pair 2
	ip -n "$ha" addr add 10.97.0.1/24 dev a0
	ip -n "$hb" addr add 10.97.0.2/24 dev b0
	rm -f "$ready"
	ip netns exec "$ha" "$MPLANECTL" traffic recv --count 200 --idle 2 --timeout 60 \
		--ready-file "$ready" >/dev/null &
	busywait 30000 test -e "$ready" || fail "receiver not ready"
	ip netns exec "$hb" "$MPLANECTL" traffic send 10.97.0.1 --ecn ce --count 200 \
		--rate 1000 >/dev/null || fail "sender to a0's address"
	wait
	# ecn_ce and the score are fed together (mplane_rx_account()).
	assert_eq "plane 0 CE for a0's own address" "$(mp_pstat "$ha" 0 ecn_ce)" 0
	rm -f "$ready"
	ip netns exec "$ha" "$MPLANECTL" traffic recv --count 50 --idle 2 --timeout 60 \
		--ready-file "$ready" >/dev/null &
	busywait 30000 test -e "$ready" || fail "receiver not ready"
	"$MPLANECTL" -n "$hb" link set mp0 policy rr
	ip netns exec "$hb" "$MPLANECTL" traffic send $MP_A4 --ecn ce --count 50 \
		--rate 1000 >/dev/null || fail "sender to mp0's address"
	wait
	assert_ge "plane 0 CE for mp0's address" "$(mp_pstat "$ha" 0 ecn_ce)" 20
}

test_admin_drain_and_down() {
	local before
	mp_pair 2
	"$MPLANECTL" -n "$ha" link set mp0 policy rr
	"$MPLANECTL" -n "$ha" link plane a1 admin down
	assert_eq "state" "$(mp_state "$ha" 1)" admin_down
	before=$(mp_pstat "$hb" 1 rx_packets)
	ip netns exec "$ha" ping -c 20 -i 0.01 -q $MP_B4 >/dev/null || fail "ping"
	assert_eq "admin down carries nothing" "$(mp_pstat "$hb" 1 rx_packets)" "$before"
	"$MPLANECTL" -n "$ha" link plane a1 admin drain
	ip netns exec "$ha" ping -c 20 -i 0.01 -q $MP_B4 >/dev/null || fail "ping"
	assert_eq "drain takes no new flowlets" "$(mp_pstat "$hb" 1 rx_packets)" "$before"
	"$MPLANECTL" -n "$ha" link plane a1 admin up
	assert_eq "state" "$(mp_state "$ha" 1)" up
	ip netns exec "$ha" ping -c 20 -i 0.01 -q $MP_B4 >/dev/null || fail "ping"
	assert_ge "back in use" "$(mp_pstat "$hb" 1 rx_packets)" $((before + 1))
}

test_state_changes_are_announced() {
	local out=$TMPDIR/mp-monitor.$$ ready=$TMPDIR/mp-mready.$$
	mp_pair 2
	"$MPLANECTL" -n "$ha" link set mp0 holddown 0
	"$MPLANECTL" -n "$ha" -j link monitor mp0 --count 2 --timeout 20 \
		--ready-file "$ready" >"$out" &
	busywait 30000 test -e "$ready" || fail "monitor not ready"
	ip -n "$hb" link set b1 down
	busywait 3000 mp_state_is "$ha" 1 down || fail "plane 1 not down"
	ip -n "$hb" link set b1 up
	wait $! || fail "monitor saw fewer than 2 changes: $(cat "$out")"
	assert_eq "first change" "$(jq -rs '.[0].state' "$out")" down
	assert_eq "its reason" "$(jq -rs '.[0].reason' "$out")" carrier
	assert_eq "second change" "$(jq -rs '.[1].state' "$out")" up
}

# The debug kernel's share: the probe timer (its packets, sent and
# answered, and a plane lost and found by them).  The congestion timer
# runs there in lifecycle.sh (test_failed_enslave_with_timers_armed keeps
# it re-arming); a carrier failover, hold-down, drain and the
# announcements are notifier and state logic (plane_fsm.c, unit-tested)
# that the release kernels run.
QUICK_TESTS="test_silent_failure_probes"

# shellcheck disable=SC2086 # TESTS is a list of names
ktap_run ${TESTS:-test_carrier_failover test_holddown_then_readmit \
	test_silent_failure_probes test_congestion_long_halflife test_admin_drain_and_down \
	test_state_changes_are_announced test_forged_replies_refused \
	test_ce_for_others_ignored}

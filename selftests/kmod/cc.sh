#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Endpoint congestion control (DCQCN) in mp0, between two hosts joined by
# two planes: the settings' ranges, CNPs at most one per interval per QP,
# a rate cut on a CNP and its recovery without one, in order, bad input
# that is counted and changes nothing else, EDT pacing through fq, and
# the QP table's bound.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/mplane.sh"

TRACING=/sys/kernel/tracing

# cc NS SETTINGS...: `mplanectl link set mp0 SETTINGS` in NS.
cc() {
	local ns=$1
	shift
	"$MPLANECTL" -n "$ns" link set mp0 "$@" || fail "link set mp0 $*"
}

# snap NS: NS's mp0 "cc" object and "qps" list as lines cc.FIELD=VALUE
# and qp.QPN.FIELD=VALUE in $SNAP, for cc_of and qp_of: one jq for all
# the fields a test reads (jq takes half a second to start under TCG).
snap() {
	SNAP=$(mp_json "$1" | jq -r '.devices[0] |
		(.cc | to_entries[] | "cc.\(.key)=\(.value)"),
		(.qps[]? | .qpn as $n | to_entries[] | "qp.\($n).\(.key)=\(.value)")')
}
_snap_val() {
	local v
	v=$(grep -m1 "^$1=" <<<"$SNAP") && echo "${v#*=}" || echo null
}
# cc_of FIELD: a field of the "cc" object; qp_of QPN FIELD: a field of
# the QP QPN, "null" when it is not listed.
cc_of() { _snap_val "cc.$1"; }
qp_of() { _snap_val "qp.$(($1)).$2"; }

# cc_json NS FIELD: one field of NS's mp0 "cc" object, read now.
cc_json() { snap "$1"; cc_of "$2"; }

# roce NS DST QPN COUNT RATE [ARGS]: RoCEv2-shaped packets to QP QPN.
roce() {
	local ns=$1 dst=$2 qpn=$3 count=$4 rate=$5
	shift 5
	"$MPLANECTL" -n "$ns" traffic send "$dst" --roce "$qpn" --count "$count" \
		--rate "$rate" "$@" >/dev/null || fail "traffic send --roce $qpn"
}

# cnp NS DST QPN COUNT: COUNT CNPs to QP QPN, as a peer's mp0 would.
cnp() {
	"$MPLANECTL" -n "$1" traffic send "$2" --cnp "$3" --count "$4" --rate 2000 \
		>/dev/null || fail "traffic send --cnp $3"
}

# A receiver on hb's UDP 4791, so that no port-unreachable comes back;
# stop_recv ends it.
recv_4791() {
	local ready=$TMPDIR/mp-ready.$$
	rm -f "$ready"
	ip netns exec "$hb" "$MPLANECTL" traffic recv --port 4791 --timeout 60 \
		--ready-file "$ready" >/dev/null 2>&1 &
	recv_pid=$!
	busywait 30000 test -e "$ready" || fail "receiver not ready"
}
stop_recv() { kill "$recv_pid" 2>/dev/null; wait "$recv_pid" 2>/dev/null || true; }

# scrape PORT: one scrape of a `telemetry export` started here, in the
# initial namespace, from which it reads every namespace's mp0 QPs, into
# $METRICS; the exporter is stopped again, and must stop cleanly.
scrape() {
	local port=$1 pid
	"$MPLANECTL" telemetry export --listen "127.0.0.1:$port" >/dev/null &
	pid=$!
	slowwait 10 curl -sf -o /dev/null "http://127.0.0.1:$port/" || fail "export did not serve"
	METRICS=$(curl -sf "http://127.0.0.1:$port/metrics") || fail "scrape"
	kill "$pid"
	wait "$pid" || fail "export did not stop cleanly"
}
# metric SERIES: its value in $METRICS, "none" when it is not there.
metric() {
	awk -v s="$1" '$1 == s { print $2; f = 1 } END { if (!f) print "none" }' <<<"$METRICS"
}

test_settings_ranges() {
	mp_pair 2
	snap "$ha"
	assert_eq "cc off by default" "$(cc_of algo)" off
	assert_eq "default cnp interval" "$(cc_of cnp_interval_us)" 50
	assert_eq "default qp-max" "$(cc_of qp_max)" 1024
	expect_fail_msg "algo" "bad cc '7': want off\|dcqcn" \
		"$MPLANECTL" -n "$ha" link set mp0 cc 7
	# Each setting just out of its range, and the extack text it gets.
	while read -r key value re; do
		expect_fail_msg "$key" "$re" "$MPLANECTL" -n "$ha" link set mp0 "$key" "$value" \
			</dev/null
	done <<-'EOF'
	cnp-interval 1000001 IFLA_MPLANE_CC_CNP_INTERVAL_US.*0\.\.1000000 us
	rate-max 9 IFLA_MPLANE_CC_RATE_MAX_KBPS.*0 \(line rate\) or 10\.\.
	rate-min 5 IFLA_MPLANE_CC_RATE_MIN_KBPS.*10\.\.400000000 kbit/s
	rate-ai 400000001 IFLA_MPLANE_CC_RATE_AI_KBPS
	rate-hai 0 IFLA_MPLANE_CC_RATE_HAI_KBPS
	time-reset 0 IFLA_MPLANE_CC_TIME_RESET_US.*1\.\.10000000 us
	byte-reset 63 IFLA_MPLANE_CC_BYTE_RESET.*64\.\.1073741824 bytes
	threshold 32 IFLA_MPLANE_CC_THRESHOLD.*1\.\.31
	alpha-g 1024 IFLA_MPLANE_CC_ALPHA_G.*0\.\.1023
	alpha-period 0 IFLA_MPLANE_CC_ALPHA_PERIOD_US.*1\.\.131071
	alpha-initial 0 IFLA_MPLANE_CC_ALPHA_INITIAL.*1\.\.1023
	reduce-period 10000001 IFLA_MPLANE_CC_REDUCE_PERIOD_US.*0\.\.10000000 us
	min-dec-fac 101 IFLA_MPLANE_CC_MIN_DEC_FAC.*0\.\.100 %
	qp-max 15 IFLA_MPLANE_CC_QP_MAX.*16\.\.65536
	EOF
	expect_fail_msg "min above max" "RATE_MIN_KBPS\) must not be above rate-max" \
		"$MPLANECTL" -n "$ha" link set mp0 rate-max 1000 rate-min 2000
	# A rejected change changes nothing, not even its good settings.
	expect_fail_msg "mixed" "IFLA_MPLANE_CC_QP_MAX" \
		"$MPLANECTL" -n "$ha" link set mp0 cc dcqcn qp-max 1
	assert_eq "still off" "$(cc_json "$ha" algo)" off
	cc "$ha" cc dcqcn rate-max 20000 qp-max 64
	log "$(dmesg | grep -o 'congestion control: a table of .*' | tail -1)"
	snap "$ha"
	assert_eq "on" "$(cc_of algo)" dcqcn
	assert_eq "rate-max" "$(cc_of rate_max_kbps)" 20000
	cc "$ha" cc off
	assert_eq "off again" "$(cc_json "$ha" algo)" off
}

# hb answers CE with at most one CNP per QP per interval: exactly one for
# each of two QPs in a burst shorter than the interval, one more each
# after it, and one for every CE packet at interval 0.
test_cnp_one_per_interval_per_qp() {
	local sent cuts
	mp_pair 2
	# No recovery while the test runs: QP 0x13 stays listed with its cuts.
	cc "$ha" cc dcqcn time-reset 10000000 byte-reset 1073741824
	cc "$hb" cc dcqcn cnp-interval 1000000
	recv_4791
	roce "$ha" $MP_B4 0x11 200 2000 --ecn ce &
	roce "$ha" $MP_B4 0x12 200 2000 --ecn ce
	wait %%
	busywait 3000 pstat_sum_ge "$hb" cnp_sent 2 || true
	assert_eq "CNPs for two QPs in 0.1 s" "$(pstat_sum "$hb" cnp_sent)" 2
	sleep 1.1
	roce "$ha" $MP_B4 0x11 100 2000 --ecn ce
	roce "$ha" $MP_B4 0x12 100 2000 --ecn ce
	assert_eq "one more each after the interval" "$(pstat_sum "$hb" cnp_sent)" 4
	cc "$hb" cnp-interval 0
	roce "$ha" $MP_B4 0x13 50 1000 --ecn ce
	sent=$(pstat_sum "$hb" cnp_sent)
	assert_eq "a CNP for every CE packet at interval 0" "$sent" 54
	# Not-CE traffic makes none.
	roce "$ha" $MP_B4 0x13 50 1000
	assert_eq "none without CE" "$(pstat_sum "$hb" cnp_sent)" 54
	# ha's mp0 took every CNP, on the planes they came in on.
	busywait 3000 pstat_sum_ge "$ha" cnp 54 || true
	assert_eq "CNPs received by ha" "$(pstat_sum "$ha" cnp)" 54
	snap "$ha"
	assert_eq "QP 0x11's CNPs" "$(qp_of 0x11 cnp_rx)" 2
	assert_eq "QP 0x13's CNPs" "$(qp_of 0x13 cnp_rx)" 50
	assert_eq "unknown CNPs" "$(cc_of cnp_unknown)" 0
	cuts=$(qp_of 0x11 rate_cuts)
	# hb lists the QPs it sent CNPs for, without rates.
	snap "$hb"
	assert_eq "hb's CNPs for QP 0x13" "$(qp_of 0x13 cnp_tx)" 50
	assert_eq "hb's QP 0x13 has no rate" "$(qp_of 0x13 rate_kbps)" null
	# Prometheus has the same counts, per QP and on both sides.
	scrape 9471
	local a="node=\"$ha\",dev=\"mp0\",peer=\"$MP_B4\"" b="node=\"$hb\",dev=\"mp0\",peer=\"$MP_A4\""
	assert_eq "QP 0x11's CNPs in Prometheus" "$(metric "mplane_qp_cnp_received_total{$a,qpn=\"17\"}")" 2
	assert_eq "QP 0x13's CNPs in Prometheus" "$(metric "mplane_qp_cnp_received_total{$a,qpn=\"19\"}")" 50
	assert_eq "QP 0x11's cuts in Prometheus" "$(metric "mplane_qp_device_rate_cuts_total{$a,qpn=\"17\"}")" "$cuts"
	assert_eq "hb's CNPs for QP 0x13 in Prometheus" "$(metric "mplane_qp_cnp_sent_total{$b,qpn=\"19\"}")" 50
	assert_eq "no CNPs received on hb's side" "$(metric "mplane_qp_cnp_received_total{$b,qpn=\"19\"}")" none
	stop_recv
}

# One CNP halves the rate (alpha starts at 1023/1024) and, with no more
# CNPs, the timer brings it back: fast recovery for F stages, then
# additive increase, one rate_update event for each, in that order.  The
# CNP comes while the QP sends 100 packets a second, so that each of the
# timer's expiries (every 300 ms) is seen by a packet of its own.
test_rate_cut_then_recovery_in_order() {
	local trace
	mp_pair 2
	cc "$ha" cc dcqcn rate-max 2000 time-reset 300000 byte-reset 1073741824 \
		threshold 2 rate-ai 500 reduce-period 4
	recv_4791
	echo 1 >$TRACING/events/mplane/rate_update/enable
	echo >$TRACING/trace
	roce "$ha" $MP_B4 0x22 450 100 &
	sleep 0.3
	cnp "$hb" $MP_A4 0x22 1
	busywait 3000 pstat_sum_ge "$ha" rate_cuts 1 || fail "no rate cut"
	wait %%
	echo 0 >$TRACING/events/mplane/rate_update/enable
	trace=$(grep -o 'qpn=0x22 rate=[0-9]* old=[0-9]* cause=[0-9]' $TRACING/trace |
		sed 's/qpn=0x22 rate=\([0-9]*\) old=[0-9]* cause=\([0-9]\)/\2:\1/' | xargs)
	log "cause:rate $trace"
	# cut to 1000 (and Rt = 2000); Rc = (Rt + Rc) / 2, rounded up, twice
	# in fast recovery (1) and then in additive increase (2), Rt held at
	# the line rate.
	assert_eq "events" "$trace" \
		"0:1000 1:1500 1:1750 2:1875 2:1938 2:1969 2:1985 2:1993 2:1997 2:1999 2:2000"
	assert_eq "cuts" "$(pstat_sum "$ha" rate_cuts)" 1
	snap "$ha"
	assert_eq "no longer limited" "$(qp_of 0x22 rate_kbps)" null
	stop_recv
}

# Every CNP that hb's mp0 sends carries RoCEv2's ICRC, over IPv4 and
# IPv6, as a peer's RNIC checks it (roce_icrc.py, which rxe.sh checks
# against rxe's own packets).  They were sent with zeros before.
test_cnp_icrc() {
	local ready=$TMPDIR/mp-icrc.$$ json sent
	mp_pair 2
	# A CNP for every CE packet: under TCG two packets may come within
	# the default 50 us, and this test counts CNPs, not intervals.
	cc "$hb" cc dcqcn cnp-interval 0
	recv_4791
	rm -f "$ready"
	ip netns exec "$ha" python3 "$MPLANE_ROOT/selftests/lib/roce_icrc.py" \
		--opcode 0x81 --count 20 --timeout 30 --ready-file "$ready" a0 a1 \
		>"$TMPDIR/icrc.$$" &
	busywait 10000 test -e "$ready" || fail "roce_icrc.py not ready"
	roce "$ha" $MP_B4 0x31 10 500 --ecn ce
	roce "$ha" $MP_B6 0x32 10 500 --ecn ce
	wait %%
	json=$(<"$TMPDIR/icrc.$$")
	rm -f "$TMPDIR/icrc.$$" "$ready"
	sent=$(pstat_sum "$hb" cnp_sent)
	assert_eq "CNPs checked, of $sent sent, over IPv4 and IPv6 ($json)" \
		"$(jq -r '"\(.checked) \(.by_version["4"]) \(.by_version["6"])"' <<<"$json")" "$sent 10 10"
	assert_eq "CNPs with a wrong ICRC ($json)" "$(jq .bad <<<"$json")" 0
	stop_recv
}

# cong_sum NS: the congestion scores of NS's mp0 planes, added up.
cong_sum() { mp_json "$1" | jq '[.devices[0].planes[].cong_score] | add'; }
# bad_input_in NS UNKNOWN SHORT: NS's mp0 has counted that many CNPs for
# unknown QPs and short BTHs (for busywait).
bad_input_in() {
	snap "$1"
	[ "$(cc_of cnp_unknown)" -ge "$2" ] && [ "$(cc_of bad_bth)" -ge "$3" ]
}

# A CNP for a QP ha never sent to, a BTH cut short (in a datagram that
# ends early, alone or in a padded frame), and a flood of CNPs within the
# rate-reduce period are counted, and move no other QP.  The first two
# are not ha's, and raise no plane's congestion; its own QP's CNPs do
# (the half-life is 10 s, so the scores hardly decay meanwhile).
test_bad_input_counted() {
	local score
	mp_pair 2
	cc "$ha" cc dcqcn rate-max 20000 reduce-period 10000000 time-reset 10000000 \
		cong-halflife 10000000
	recv_4791
	roce "$ha" $MP_B4 0x22 10 2000
	roce "$ha" $MP_B4 0x23 10 2000
	cnp "$hb" $MP_A4 0x22 1
	busywait 3000 pstat_sum_ge "$ha" rate_cuts 1 || fail "no rate cut"
	score=$(cong_sum "$ha")
	cnp "$hb" $MP_A4 0x99 20
	ip netns exec "$hb" python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(5):
    s.sendto(b"\x81\x00\xff", ("'$MP_A4'", 4791))'
	# 5 CNPs cut short, padded to read as whole ones for QP 0x22.
	ip netns exec "$hb" python3 "$MPLANE_ROOT/selftests/lib/padded_bth.py" 0x81 0x22 1 5 ||
		fail "padded frames"
	busywait 3000 bad_input_in "$ha" 20 10 || true
	assert_le "congestion from unknown QPs and short BTHs (was $score)" \
		"$(cong_sum "$ha")" "$score"
	cnp "$hb" $MP_A4 0x22 200
	busywait 3000 pstat_sum_ge "$ha" cnp 221 || true
	assert_ge "congestion from 200 CNPs of ha's own QP (was $score)" \
		"$(cong_sum "$ha")" $((score + 150))
	snap "$ha"
	assert_eq "unknown QP" "$(cc_of cnp_unknown)" 20
	assert_eq "short BTH (5 alone, 5 padded)" "$(cc_of bad_bth)" 10
	assert_eq "CNPs on the planes (padded frames are none)" \
		"$(pstat_sum "$ha" cnp)" 221
	assert_eq "the flood's cuts (one per reduce period)" "$(qp_of 0x22 rate_cuts)" 1
	assert_eq "CNPs QP 0x22 took" "$(qp_of 0x22 cnp_rx)" 201
	assert_eq "QP 0x23 untouched" "$(qp_of 0x23 rate_kbps)" null
	assert_eq "cuts on the planes" "$(pstat_sum "$ha" rate_cuts)" 1
	stop_recv
}

# rate_of JSON: the receiver's rate in kbit/s, from its first packet to
# its last, of UDP payloads of 472 bytes (500 bytes of IP packet).
rate_of() {
	jq -r '(.received - 1) * 500 * 8 / .duration_s / 1000 | floor' <<<"$1"
}

# The QP cut to 2001 kbit/s leaves at that rate (within 10 %) where the
# rails have fq, and at the sender's own (16 Mbit/s offered; a TCG guest
# sends some 5) where they have none.
test_edt_pacing_holds_rate() {
	local ready=$TMPDIR/mp-ready.$$ json rate
	modprobe sch_fq 2>/dev/null || true
	mp_pair 2
	tc -n "$ha" qdisc add dev a0 root fq flow_limit 10000 2>/dev/null ||
		skip "no fq qdisc"
	tc -n "$ha" qdisc add dev a1 root fq flow_limit 10000
	cc "$ha" cc dcqcn rate-max 4000 time-reset 10000000 byte-reset 1073741824 \
		reduce-period 0
	recv_4791
	roce "$ha" $MP_B4 0x33 10 2000
	stop_recv
	cnp "$hb" $MP_A4 0x33 1
	busywait 3000 pstat_sum_ge "$ha" rate_cuts 1 || fail "no rate cut"
	snap "$ha"
	assert_eq "paced rate" "$(qp_of 0x33 rate_kbps)" 2001
	for fq in on off; do
		rm -f "$ready"
		ip netns exec "$hb" "$MPLANECTL" -j traffic recv --port 4791 --idle 1 \
			--timeout 20 --ready-file "$ready" >"$TMPDIR/recv.$$" 2>/dev/null &
		busywait 30000 test -e "$ready" || fail "receiver not ready"
		roce "$ha" $MP_B4 0x33 500 4000 --size 472
		wait
		json=$(<"$TMPDIR/recv.$$")
		rate=$(rate_of "$json")
		log "fq $fq: $(jq -c '{received, duration_s}' <<<"$json"), $rate kbit/s"
		if [ $fq = on ]; then
			assert_ge "paced rate (kbit/s), -10%" "$rate" 1801
			assert_le "paced rate (kbit/s), +10%" "$rate" 2201
			# Without fq nothing holds packets to their time.
			tc -n "$ha" qdisc del dev a0 root
			tc -n "$ha" qdisc del dev a1 root
		else
			assert_ge "unpaced without fq (kbit/s)" "$rate" 3000
		fi
	done
	snap "$ha"
	assert_eq "still one cut" "$(qp_of 0x33 rate_cuts)" 1
}

# 64 QPs through a table of 16: every QP beyond what its set holds takes
# the oldest entry, and each such eviction is counted.
test_qp_table_bounded() {
	local count evicted
	mp_pair 2
	cc "$ha" cc dcqcn qp-max 16
	ip netns exec "$ha" python3 -c '
import socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for qpn in range(0x100, 0x140):
    s.sendto(struct.pack("!BBHII", 4, 0, 0xffff, qpn, 0) + bytes(32),
             ("'$MP_B4'", 4791))'
	snap "$ha"
	count=$(cc_of qp_count) evicted=$(cc_of qp_evictions)
	log "64 QPs: $count held, $evicted evicted"
	assert_le "QPs held" "$count" 16
	assert_eq "held + evicted" $((count + evicted)) 64
}

# The table's life under traffic: made, used by both roles (a CNP for
# every CE packet, cuts), made again at a new size, freed; then the
# device goes with CC on.  The debug kernel's kmemleak, KASAN and lockdep
# watch it.
test_table_lifecycle_under_traffic() {
	mp_pair 2
	cc "$ha" cc dcqcn
	cc "$hb" cc dcqcn cnp-interval 0
	recv_4791
	roce "$ha" $MP_B4 0x44 20 500 --ecn ce
	busywait 5000 pstat_sum_ge "$ha" cnp 20 || true
	assert_eq "CNPs back" "$(pstat_sum "$ha" cnp)" 20
	assert_ge "cuts" "$(pstat_sum "$ha" rate_cuts)" 1
	cc "$ha" qp-max 32
	roce "$ha" $MP_B4 0x44 20 500 --ecn ce
	cc "$ha" cc off
	roce "$ha" $MP_B4 0x44 20 500 --ecn ce
	stop_recv
	# CC off: the CNPs of the last burst reach no reaction point.
	assert_eq "CNPs, all of them" "$(pstat_sum "$ha" cnp)" 60
	ip -n "$hb" link del mp0
}

# The debug kernel's share: the paths that allocate and free the table
# (under traffic, and on a change of algorithm), take its locks and
# build CNPs; the rest is exec after exec, which a KASAN guest under TCG
# takes a second for each.
QUICK_TESTS="test_table_lifecycle_under_traffic test_notify_counts_without_cuts"

# Spray weighs a plane by the CNPs that come back on it (balance.h): with
# a CNP for about every fifth packet of ha's stream, all of them in on
# plane 0, plane 0 carries a small part of the stream; once they stop,
# its share comes back to half.  The CNPs leave hb on plane 0 alone (b1
# down by admin there).  steer_spray CC: so under `cc CC...`.
steer_spray() {
	local n=600 t0 t1 marked back
	mp_pair 2
	cc "$ha" policy spray "$@"
	"$MPLANECTL" -n "$hb" link plane b1 admin down || fail "b1 admin down"
	recv_4791
	roce "$ha" $MP_B4 0x44 $n 300 --size 200 &
	sleep 0.2
	"$MPLANECTL" -n "$hb" traffic send $MP_A4 --cnp 0x44 --count 90 --rate 60 \
		>/dev/null || fail "traffic send --cnp"
	wait %%
	t0=$(mp_pstat "$hb" 0 rx_packets) t1=$(mp_pstat "$hb" 1 rx_packets)
	marked=$(mp_pstat "$ha" 0 cnp)
	log "with CNPs on plane 0 ($marked): plane0 $t0, plane1 $t1 of $n"
	assert_eq "CNPs in on plane 0" "$marked" 90
	assert_eq "delivered over both planes" $((t0 + t1)) $n
	assert_le "plane 0's part" "$t0" $((n / 5))
	assert_ge "plane 0 still used" "$t0" 1
	roce "$ha" $MP_B4 0x44 $n 300 --size 200
	back=$(($(mp_pstat "$hb" 0 rx_packets) - t0))
	log "without: plane0 $back of $n"
	assert_ge "plane 0's part again" "$back" $((n * 2 / 5))
	stop_recv
}

# The QP's rate floor is well above the stream's, so that the cuts the
# CNPs make pace nothing.
test_cnps_steer_spray() { steer_spray cc dcqcn rate-min 20000; }

# Under notify, as under dcqcn, without a cut.
test_notify_cnps_steer_spray() {
	steer_spray cc notify
	assert_eq "no rate cut under notify" "$(pstat_sum "$ha" rate_cuts)" 0
}

# Under notify both ends keep their CNPs and nothing more: hb answers
# each CE packet (interval 0), ha counts every CNP for the QP it names,
# which lists no rate, and cuts nothing (under dcqcn, 200 CNPs a
# reduce-period apart make cuts).  A switch back to dcqcn starts the QPs
# over.
test_notify_counts_without_cuts() {
	mp_pair 2
	cc "$ha" cc notify rate-max 20000
	cc "$hb" cc notify cnp-interval 0
	recv_4791
	roce "$ha" $MP_B4 0x46 200 400 --ecn ce --size 1000
	busywait 3000 pstat_sum_ge "$ha" cnp 200 || true
	assert_eq "hb's CNPs" "$(pstat_sum "$hb" cnp_sent)" 200
	assert_eq "CNPs received by ha" "$(pstat_sum "$ha" cnp)" 200
	assert_eq "no rate cut" "$(pstat_sum "$ha" rate_cuts)" 0
	snap "$ha"
	assert_eq "the algorithm" "$(cc_of algo)" notify
	assert_eq "QP 0x46's CNPs" "$(qp_of 0x46 cnp_rx)" 200
	assert_eq "QP 0x46's cuts" "$(qp_of 0x46 rate_cuts)" 0
	assert_eq "QP 0x46 has no rate" "$(qp_of 0x46 rate_kbps)" null
	assert_ge "QP 0x46's bytes" "$(qp_of 0x46 tx_bytes)" 200000
	assert_eq "unknown CNPs" "$(cc_of cnp_unknown)" 0
	cc "$ha" cc dcqcn
	snap "$ha"
	assert_eq "no QP after the switch" "$(cc_of qp_count)" 0
	stop_recv
}

ktap_run test_settings_ranges test_cnp_one_per_interval_per_qp test_cnp_icrc \
	test_rate_cut_then_recovery_in_order test_bad_input_counted \
	test_edt_pacing_holds_rate test_qp_table_bounded \
	test_table_lifecycle_under_traffic test_cnps_steer_spray \
	test_notify_cnps_steer_spray test_notify_counts_without_cuts

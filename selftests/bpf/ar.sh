#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Adaptive routing (bpf/ar.bpf.c) on a real fabric: 2 planes x 2 leaves x
# 2 spines x 4 hosts, links shaped to 50 Mbit/s, built once by 'mplanectl
# fabric up'.  Host h0 hangs off leaf 0 and h3 off leaf 1, so every packet
# from h0 to h3 in plane 0 leaves p0l0 by uplink s0 or s1: the tests count
# what each uplink sent (ar's egress counters, kept whatever chose the
# port) and what the receiver got.
# shellcheck source-path=SCRIPTDIR source=../lib/lib.sh
source "$(dirname "$0")/../lib/lib.sh"

MPLANECTL=$MPLANE_BUILD/mplanectl
FAB=mpt$$
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-ar.XXXXXX")
H3=10.100.3.2
H3_6=fd10:0:3::2

fabric_cleanup() {
	"$MPLANECTL" fabric down --prefix "$FAB" >/dev/null 2>&1
	rm -rf "$TMPD"
}
trap 'fabric_cleanup' EXIT

mpx() { "$MPLANECTL" "$@"; }
in_node() { local node=$1; shift; ip netns exec "$FAB-$node" "$@"; }

# snap [NODE...]: the fabric's 'bpf status' (or NODE's) into P, keyed
# NODE/PORT/COLUMN (TX_PKTS, CE_MARK, AR_FWD, SWITCHES, UP, ...).  It reads
# the text table: jq costs half a second per run in a VM under TCG, and
# the tests read counters before and after every flow.
declare -A P
snap() {
	local f cols=() i
	P=()
	while read -r -a f; do
		if [ "${f[0]}" = NODE ]; then
			cols=("${f[@]}")
			continue
		fi
		for ((i = 2; i < ${#f[@]}; i++)); do
			P[${f[0]}/${f[1]}/${cols[i]}]=${f[i]}
		done
	done <<<"$(mpx bpf status --fabric "$FAB" "$@")"
	[ ${#P[@]} -gt 0 ] || fail "bpf status --fabric $FAB $*: nothing read"
}

# uplinks COLUMN: p0l0's s0 and s1 values of COLUMN, as "S0 S1".
uplinks() {
	snap p0l0
	echo "${P[p0l0/s0/$1]} ${P[p0l0/s1/$1]}"
}

# fabric_sum COLUMN / fabric_max COLUMN: over every port of every switch.
fabric_sum() {
	local k sum=0
	snap
	for k in "${!P[@]}"; do
		[[ $k == */"$1" ]] && sum=$((sum + P[$k]))
	done
	echo $sum
}
fabric_max() {
	local k max=0
	snap
	for k in "${!P[@]}"; do
		[[ $k == */"$1" ]] && [ "${P[$k]}" -gt $max ] && max=${P[$k]}
	done
	echo $max
}

# send_flow N RATE [ARGS...]: one UDP flow of N packets from h0 to h3,
# received and counted there; prints the number received.
send_flow() {
	local n=$1 rate=$2 port=$((9000 + RANDOM % 1000)) ready=$TMPD/recv.ready
	shift 2
	rm -f "$ready"
	in_node h3 "$MPLANECTL" -j traffic recv --port $port --count "$n" \
		--timeout 20 --idle 2 --ready-file "$ready" >"$TMPD/recv.json" &
	busywait 30000 test -e "$ready" || fail "traffic recv did not start"
	in_node h0 "$MPLANECTL" traffic send "$H3:$port" --count "$n" \
		--rate "$rate" --size 200 "$@" >/dev/null ||
		fail "traffic send"
	wait $! || true
	[[ $(<"$TMPD/recv.json") =~ \"received\":([0-9]+) ]] ||
		fail "traffic recv printed no count: $(cat "$TMPD/recv.json")"
	echo "${BASH_REMATCH[1]}"
}

attach() { mpx bpf attach --fabric "$FAB" "$@" >/dev/null || fail "attach $*"; }

test_ecmp_keeps_one_flow_on_one_spine() {
	local s0 s1 got
	attach --policy ecmp
	snap p0l0
	s0=${P[p0l0/s0/TX_PKTS]} s1=${P[p0l0/s1/TX_PKTS]}
	got=$(send_flow 1000 2000)
	assert_eq "received" "$got" 1000
	snap p0l0
	s0=$((P[p0l0/s0/TX_PKTS] - s0)) s1=$((P[p0l0/s1/TX_PKTS] - s1))
	log "ecmp: s0 $s0, s1 $s1"
	assert_ge "packets on one uplink" $((s0 > s1 ? s0 : s1)) 1000
	assert_le "packets on the other" $((s0 > s1 ? s1 : s0)) 5
}

test_ar_spreads_one_flow_over_both_spines() {
	local s0 s1 sw got
	attach --policy ar
	snap p0l0
	s0=${P[p0l0/s0/TX_PKTS]} s1=${P[p0l0/s1/TX_PKTS]}
	sw=${P[p0l0/s0/SWITCHES]}
	got=$(send_flow 1000 2000)
	assert_eq "received" "$got" 1000
	snap p0l0
	s0=$((P[p0l0/s0/TX_PKTS] - s0)) s1=$((P[p0l0/s1/TX_PKTS] - s1))
	log "ar: s0 $s0, s1 $s1"
	# Idle queues tie, and ties go at random: about half each.
	assert_ge "packets on s0" "$s0" 300
	assert_ge "packets on s1" "$s1" 300
	assert_ge "path switches on s0" "${P[p0l0/s0/SWITCHES]}" $((sw + 100))
	assert_ge "forwarded by ar on s0" "${P[p0l0/s0/AR_FWD]}" 300
}

# A burst arrives back to back: 200 packets 250 us apart, well inside a
# 100 ms flowlet gap, so it stays on one uplink.  Each burst is a new
# flow (a new source port).
#
# A one-vCPU TCG guest stalls now and then for tens of ms (the debug
# kernel for more), and a stall longer than the gap does end a flowlet:
# a burst split so is the policy at work, not a fault.  It shows at the
# receiver as a gap between arrivals of at least half the flowlet gap;
# such a burst is tried again, up to 3 times.  A split without one is
# a failure.
test_flowlet_keeps_a_burst_together() {
	local b try s0 s1 d0 d1 gap used0=0 used1=0 flowlet_us=100000
	attach --policy flowlet --flowlet-gap $flowlet_us
	for b in 1 2 3 4 5 6; do
		for try in 1 2 3; do
			snap p0l0
			s0=${P[p0l0/s0/TX_PKTS]} s1=${P[p0l0/s1/TX_PKTS]}
			assert_eq "burst $b received" "$(send_flow 200 4000)" 200
			snap p0l0
			d0=$((P[p0l0/s0/TX_PKTS] - s0)) d1=$((P[p0l0/s1/TX_PKTS] - s1))
			gap=$(json_num "$(<"$TMPD/recv.json")" max_gap_us)
			log "burst $b: s0 $d0, s1 $d1, longest gap $gap us"
			[ $((d0 > d1 ? d0 : d1)) -eq 200 ] && break
			[ "$gap" -ge $((flowlet_us / 2)) ] ||
				fail "burst $b split over both uplinks with no gap of $((flowlet_us / 2)) us"
			[ "$try" -lt 3 ] || fail "burst $b split by a stall in 3 tries"
		done
		[ "$d0" -gt 0 ] && used0=1
		[ "$d1" -gt 0 ] && used1=1
	done
	log "uplinks used over the bursts: s0 $used0, s1 $used1"
}

# The watcher takes a down port out of the choice: nothing is sent to it,
# and nothing is lost on the way.
test_down_port_gets_nothing() {
	local s1 got sent pid
	attach --policy ar
	mpx -j events --fabric "$FAB" --type port_state --duration 2 \
		>"$TMPD/ev.json" 2>/dev/null &
	pid=$!
	sleep 0.5
	ip -n "$FAB-p0l0" link set s1 down
	wait $pid || true
	jq -e 'select(.type == "port_state" and .up == 0)' "$TMPD/ev.json" >/dev/null ||
		fail "no port_state event for s1 going down: $(cat "$TMPD/ev.json")"
	# The JSON view once, the text table everywhere else.
	assert_eq "s1 up in the map" "$(mpx -j bpf status --fabric "$FAB" p0l0 |
		jq '.switches[0].ports[] | select(.port == "s1") | .up')" false
	snap p0l0
	s1=${P[p0l0/s1/TX_PKTS]}
	got=$(send_flow 1000 2000)
	snap p0l0
	sent=${P[p0l0/s1/TX_PKTS]}
	# Up again before any assertion, so that later tests find it up.
	ip -n "$FAB-p0l0" link set s1 up
	assert_eq "received" "$got" 1000
	assert_eq "packets sent by the down s1" "$sent" "$s1"
	slowwait 5 [ "$(uplinks UP)" = "up up" ] || fail "s1 not back up"
}

# The router's duties: TTL 2 from h0 leaves p0l0 (ar) with TTL 1, and the
# spine answers time exceeded; IPv6 goes through ar too.
test_ttl_expiry_and_ipv6() {
	local fwd out
	attach --policy ar
	out=$(in_node h0 ping -c 1 -W 2 -t 2 $H3 2>&1 || true)
	echo "$out" | grep -q "Time to live exceeded" ||
		fail "no time exceeded: $out"
	snap p0l0
	fwd=$((P[p0l0/s0/AR_FWD] + P[p0l0/s1/AR_FWD]))
	in_node h0 ping -6 -c 5 -i 0.2 -W 2 $H3_6 >/dev/null || fail "IPv6 ping"
	snap p0l0
	assert_ge "IPv6 packets forwarded by ar" \
		$((P[p0l0/s0/AR_FWD] + P[p0l0/s1/AR_FWD])) $((fwd + 5))
}

# set_mtu MTU: plane 0's links from the spines to leaf 1, both ends.
set_mtu() {
	local s
	for s in 0 1; do
		ip -n "$FAB-p0s$s" link set l1 mtu "$1" || fail "p0s$s l1 mtu $1"
		ip -n "$FAB-p0l1" link set "s$s" mtu "$1" || fail "p0l1 s$s mtu $1"
	done
}

# A packet over the egress port's MTU is the kernel's, which answers a
# sender that set DF with the ICMP error its path MTU discovery needs:
# h0's 1428-byte ping to h3, through the spines' 1280-byte links to leaf
# 1, comes back "Frag needed", and the spines count it.  (A redirect
# would have dropped it at the veth unsaid.)
test_mtu_exceeded_left_to_kernel() {
	local out n
	attach --policy ar
	set_mtu 1280
	out=$(in_node h0 ping -c 1 -W 2 -M do -s 1400 $H3 2>&1 || true)
	n=$(mpx -j bpf status --fabric "$FAB" p0s0 p0s1 | jq '[.switches[].ports[].mtu_exceeded] | add')
	set_mtu 1500
	[[ $out == *"Frag needed and DF set (mtu = 1280)"* ]] ||
		fail "no frag needed from the spine: $out"
	assert_ge "packets over the MTU the spines left to the kernel" "$n" 1
	# h0 learnt the path MTU: forget it, and the path takes 1428 again.
	ip -n "$FAB-h0" route flush cache
	in_node h0 ping -c 1 -W 2 -M do -s 1400 $H3 >/dev/null ||
		fail "1428 bytes at MTU 1500 again"
}

# Incast: h0 and h1 each send 39 Mbit/s of ECT(0) to h3 through 50 Mbit/s
# links: wherever the two flows meet (a leaf uplink, or h3's port), a
# virtual queue grows and packets get CE.  One stream well under the
# rate gets none.
# ecn_under_then_over WHO: no CE mark from a flow under the rate, then at
# least 50 from two ECT flows over it (h0 and h1 into h3, 78 Mbit/s into
# 50), on top of the marks there were.
ecn_under_then_over() {
	local m h
	m=$(fabric_sum CE_MARK)
	send_flow 500 1000 --tos 0x02 >/dev/null
	assert_eq "${1}CE marks under the rate" "$(fabric_sum CE_MARK)" "$m"
	for h in h0 h1; do
		in_node $h "$MPLANECTL" traffic send "$H3:9999" --count 7000 \
			--rate 3500 --size 1400 --tos 0x02 >/dev/null 2>&1 &
	done
	wait
	log "${1}CE marks $(( $(fabric_sum CE_MARK) - m )), highest queue" \
		"$(fabric_max QUEUE_HWM) bytes"
	assert_ge "${1}CE marks over the rate" "$(fabric_sum CE_MARK)" $((m + 50))
}

test_ecn_marks_only_when_queue_builds() {
	attach --policy ecmp --kmin 3000 --kmax 30000 --pmax 50
	ecn_under_then_over ""
	assert_ge "queue high-water (bytes)" "$(fabric_max QUEUE_HWM)" 30000
}

# --aqm pi: RED's band is put out of reach, so every mark is PI's.  None
# under the rate; marks once the queue's delay passes the target; and,
# once it has drained, none again at a low rate although the probability
# the overload left is still high: under half the target nothing is
# marked.
test_ecn_pi_marks_over_target() {
	local m
	attach --policy ecmp --kmin 1073741824 --kmax 1073741824 \
		--aqm pi --pi-target 2000 --pi-period 1000
	ecn_under_then_over "pi: "
	assert_ge "pi: the highest port's marking probability (ppm)" \
		"$(mpx -j bpf status --fabric "$FAB" |
			jq '[.switches[].ports[].pi_mark_ppm] | max')" 1
	m=$(fabric_sum CE_MARK)
	send_flow 500 1000 --tos 0x02 >/dev/null
	assert_eq "pi: CE marks under the rate, after" "$(fabric_sum CE_MARK)" "$m"
	assert_eq "pi: every switch's settings" "$(switch_settings)" \
		"ecmp pi 1073741824 2000 1000 125 1250"
	# A second attach loads, and shows, its own settings.
	attach --policy ar --kmin 3000 --kmax 9000 --pmax 5
	assert_eq "red again: every switch's settings" "$(switch_settings)" \
		"ar red 3000 9000 5 15000"
}

# switch_settings: the settings bpf status gives, each different line
# once: policy, aqm, then RED's kmin, kmax and pmax, or PI's target,
# period and gains.
switch_settings() {
	mpx -j bpf status --fabric "$FAB" | jq -r '.switches[].settings |
		[.policy, .aqm] + (if .aqm == "pi" then [.kmin_bytes, .pi_target_us,
			.pi_period_us, .pi_alpha_mhz, .pi_beta_mhz]
		else [.kmin_bytes, .kmax_bytes, .pmax_pct, .pi_target_us] end) |
		map(tostring) | join(" ")' | sort -u
}

# Queue samples every 10 packets reach the reader, in time order.
test_events_in_time_order() {
	local pid n sorted
	attach --policy ar --sample-packets 10
	mpx -j events --fabric "$FAB" --type queue_sample --count 50 --duration 10 \
		>"$TMPD/ev.json" 2>"$TMPD/ev.err" &
	pid=$!
	sleep 0.5
	send_flow 1000 2000 >/dev/null
	wait $pid || true
	jq_read "$(<"$TMPD/ev.json")" '[., inputs] |
		length, ([.[].ts_ns] as $t | $t == ($t | sort))' n sorted
	assert_eq "queue samples read" "$n" 50
	assert_eq "timestamps in order" "$sorted" true
}

# Detach takes only ar's programs: another tool's filter stays, on the
# hook ar is not on (tcx where the kernel has it) and the one it is on
# (cls_bpf, chosen).
test_detach_leaves_foreign_filters() {
	local hook
	for hook in auto cls_bpf; do
		attach --policy ar --tc-hook "$hook"
		tc -n "$FAB-p0l0" qdisc replace dev s0 clsact
		tc -n "$FAB-p0l0" filter add dev s0 ingress pref 10 bpf da \
			obj "$MPLANE_BUILD/bpf/pass.bpf.o" sec tc || fail "foreign filter"
		mpx bpf detach --fabric "$FAB" || fail "detach"
		tc -n "$FAB-p0l0" filter show dev s0 ingress | grep -q mp_pass ||
			fail "$hook: the foreign filter is gone"
		if tc_progs "$FAB-p0l0" s0 in | grep -q mp_ar; then
			fail "$hook: ar's program is still there: $(tc_progs "$FAB-p0l0" s0 in)"
		fi
		[ -e "/sys/fs/bpf/mplane/fabric/$FAB" ] && [ -n "$(ls -A "/sys/fs/bpf/mplane/fabric/$FAB")" ] &&
			fail "pins left: $(ls -R "/sys/fs/bpf/mplane/fabric/$FAB")"
		[ -e "/run/mplane/fabric/$FAB.watch.pid" ] && fail "watcher pid file left"
		tc -n "$FAB-p0l0" filter del dev s0 ingress pref 10
	done
}

# ar's programs land on tcx where the kernel has it (cls_bpf otherwise),
# on cls_bpf when asked, and a re-attach moves them: one copy per hook.
test_tc_hook() {
	local auto=cls_bpf hook want
	has_tcx && auto=tcx
	for hook in auto cls_bpf auto; do
		attach --policy ar --tc-hook "$hook"
		want=$hook
		[ "$hook" = auto ] && want=$auto
		assert_eq "$hook: p0l0/s0 ingress" \
			"$(tc_progs "$FAB-p0l0" s0 in | grep mp_ar | xargs)" "$want mp_ar_ingress"
		assert_eq "$hook: p0l0/s0 egress" \
			"$(tc_progs "$FAB-p0l0" s0 eg | grep mp_ar | xargs)" "$want mp_ar_egress"
		assert_eq "$hook: bpf status -j" "$(mpx -j bpf status --fabric "$FAB" p0l0 |
			jq -r '[.switches[0].ports[] | .ingress_tc_hook, .egress_tc_hook] | unique | join(" ")')" "$want"
		snap p0l0
		assert_eq "$hook: bpf status" "${P[p0l0/s0/TC_HOOK]}" "$want"
	done
	in_node h0 ping -q -c 3 -i 0.2 -W 2 $H3 >/dev/null ||
		fail "no traffic through ar after the moves"
	mpx bpf detach --fabric "$FAB" || fail "detach"
}

# RoCEv2 across the fabric: N data packets marked CE from h0 to QP 0x77 of
# h3, and M CNPs back, through ar's switches; hostacct on both rails
# counts them exactly.  The switches forward RoCEv2 like any UDP.
test_roce_counted_exactly_across_fabric() {
	local n=300 m=40 in ce cnp out
	attach --policy ar
	# -n, not ip netns exec: that remounts /sys, hiding the pins.
	mpx -n "$FAB-h3" bpf attach --prog hostacct r0 || fail "hostacct h3"
	mpx -n "$FAB-h0" bpf attach --prog hostacct r0 || fail "hostacct h0"
	# Nobody listens on 4791, so some sends meet the ICMP port
	# unreachable of an earlier one and fail: count what went out.
	n=$(json_num "$(in_node h0 "$MPLANECTL" -j traffic send "$H3" --roce 0x77 \
		--ecn ce --count $n --rate 2000 2>/dev/null)" sent)
	m=$(json_num "$(in_node h3 "$MPLANECTL" -j traffic send 10.100.0.2 \
		--cnp 0x77 --count $m --rate 2000 2>/dev/null)" sent)
	assert_ge "RoCEv2 packets sent" "$n" 200
	assert_ge "CNPs sent" "$m" 20
	jq_read "$(mpx -n "$FAB-h3" -j bpf status --prog hostacct r0)" \
		'.ingress.roce_packets, .ingress.roce_ce, .egress.cnp' in ce cnp
	assert_eq "h3 RoCEv2 packets in" "$in" $n
	assert_eq "h3 RoCEv2 CE in" "$ce" $n
	assert_eq "h3 CNPs out" "$cnp" $m
	jq_read "$(mpx -n "$FAB-h0" -j bpf status --prog hostacct r0)" \
		'.ingress.cnp, .egress.roce_packets' cnp out
	assert_eq "h0 CNPs in" "$cnp" $m
	assert_eq "h0 RoCEv2 packets out" "$out" $n
	mpx -n "$FAB-h3" bpf detach --prog hostacct r0
	mpx -n "$FAB-h0" bpf detach --prog hostacct r0
}

# 'fabric down' with ar attached: no pins, no watcher, no namespaces.
test_fabric_down_takes_ar_with_it() {
	local fab2=${FAB}b pid
	mpx fabric up --prefix "$fab2" --planes 1 --leaves 1 --spines 1 \
		--hosts 2 --no-mp0 >/dev/null 2>&1 || fail "fabric up $fab2"
	mpx bpf attach --fabric "$fab2" >/dev/null || fail "attach $fab2"
	pid=$(cat "/run/mplane/fabric/$fab2.watch.pid")
	kill -0 "$pid" || fail "no watcher"
	mpx fabric down --prefix "$fab2" >/dev/null || fail "fabric down"
	slowwait 5 bash -c "! kill -0 $pid 2>/dev/null" || fail "watcher $pid still runs"
	[ -e "/sys/fs/bpf/mplane/fabric/$fab2" ] && fail "pins left"
	[ -z "$(ip netns list | grep "^$fab2-")" ] || fail "namespaces left"
	return 0
}

[ -x "$MPLANECTL" ] || skip "no $MPLANECTL (make tools)"
# No mp0 even where mplane.ko is loaded: its probes would add to the
# counts.
mpx fabric up --prefix "$FAB" --planes 2 --leaves 2 --spines 2 --hosts 4 \
	--rate 50mbit --no-mp0 >/dev/null 2>&1 || { echo "1..0 # SKIP fabric up failed"; exit 1; }
# The share that the debug kernel runs (selftests/kmod/bpf.sh).
QUICK_TESTS="test_ecmp_keeps_one_flow_on_one_spine
	test_ar_spreads_one_flow_over_both_spines test_down_port_gets_nothing
	test_events_in_time_order"
# shellcheck disable=SC2086 # TESTS is a list of names
ktap_run ${TESTS:-test_ecmp_keeps_one_flow_on_one_spine \
	test_ar_spreads_one_flow_over_both_spines \
	test_flowlet_keeps_a_burst_together \
	test_down_port_gets_nothing \
	test_ttl_expiry_and_ipv6 \
	test_mtu_exceeded_left_to_kernel \
	test_ecn_marks_only_when_queue_builds test_ecn_pi_marks_over_target \
	test_events_in_time_order \
	test_detach_leaves_foreign_filters test_tc_hook \
	test_roce_counted_exactly_across_fabric \
	test_fabric_down_takes_ar_with_it}

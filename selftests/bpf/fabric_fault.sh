#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 'mplanectl fabric fault' on the running kernel, on a 1-plane fabric of
# 2 leaves, 1 spine and 2 hosts (h0 on p0l0, h1 on p0l1, every path
# through p0s0): a link down and up (both ends down, ping fails, and
# comes back with the routes and neighbours the kernel dropped), a rate
# degraded in tbf, loss of a given share (the BPF dropper on a kernel
# without netem, netem on one with it) counted and checked against what
# arrived, clear putting all of it back without touching another tool's
# filter, a scheduled flap on the timeline at its times and in 'telemetry
# report' next to its effects, 'fabric down' stopping a schedule,
# --reroute (the leaves route around a failed link, where static routes
# black-hole a share of the traffic), and bad command lines.  On a kernel with netem (loss through netem):
#   selftests/vm/run 6.1 -- bash selftests/bpf/fabric_fault.sh
# shellcheck source-path=SCRIPTDIR source=../lib/lib.sh
source "$(dirname "$0")/../lib/lib.sh"

MPLANECTL=$MPLANE_BUILD/mplanectl
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-fault.XXXXXX")
FAB=ff$$
FB=fg$$
STATE=/run/mplane/fabric
MARKS=/sys/fs/bpf/mplane/marks
H1=10.100.1.2
H1_6=fd10:0:1::2

cleanup() {
	"$MPLANECTL" fabric down --prefix "$FAB" >/dev/null 2>&1
	"$MPLANECTL" fabric down --prefix "$FB" >/dev/null 2>&1
}
trap '_lib_exit; cleanup; rm -rf "$TMPD"' EXIT

mpx() { "$MPLANECTL" "$@"; }
fault() { "$MPLANECTL" fabric fault --prefix "$FAB" "$@"; }
in_node() { local node=$1; shift; ip netns exec "$FAB-$node" "$@"; }
pings() { in_node h0 ping -c 1 -W 1 "$@" >/dev/null 2>&1; }

# flags NODE PORT: the port's link flags, as ip prints them.
flags() { ip -n "$FAB-$1" -o link show dev "$2" | sed 's/.*<\([^>]*\)>.*/\1/'; }
is_up() { [[ ,$(flags "$1" "$2"), == *,UP,* ]]; }

# rate NODE PORT: the port's tbf rate in bytes per second.
rate() { tc -n "$FAB-$1" -j qdisc show dev "$2" | jq '.[] | select(.kind == "tbf") | .options.rate'; }

need_fabric() {
	[ -f "$STATE/$FAB.json" ] && return 0
	mpx fabric up -q --prefix "$FAB" --planes 1 --leaves 2 --spines 1 \
		--hosts 2 >/dev/null || fail "fabric up"
}

# alive PID: running, not a zombie nobody reaps (some containers' init).
alive() { [ -e "/proc/$1/stat" ] && ! [[ $(</proc/"$1"/stat) =~ \)\ [ZX] ]]; }

# A leaf-spine link down: both ends lose UP, h0 no longer reaches h1;
# up: both back, and so are the routes (leaf to spine, spine to leaf),
# IPv6 addresses and permanent neighbours the kernel dropped with them.
test_link_down_up() {
	local out
	need_fabric
	pings $H1 || fail "no ping before the fault"
	out=$(mpx -j fabric fault --prefix "$FAB" p0l0:s0 down)
	assert_eq "ports taken down" "$(jq -c '[.ports[] | "\(.node)/\(.port)"]' <<<"$out")" \
		'["p0l0/s0","p0s0/l0"]'
	assert_eq "step" "$(jq -r '.steps[0] | "\(.action) \(.via) \(.ok)"' <<<"$out")" \
		"down admin true"
	is_up p0l0 s0 && fail "p0l0/s0 still up: $(flags p0l0 s0)"
	is_up p0s0 l0 && fail "p0s0/l0 still up: $(flags p0s0 l0)"
	pings $H1 && fail "ping went through a down link"
	fault p0l0:s0 up >/dev/null
	is_up p0l0 s0 || fail "p0l0/s0 not up: $(flags p0l0 s0)"
	is_up p0s0 l0 || fail "p0s0/l0 not up: $(flags p0s0 l0)"
	busywait 3000 pings $H1 || fail "no ping after up"
	busywait 3000 pings -6 $H1_6 || fail "no IPv6 ping after up"
	ip -n "$FAB-p0l0" neigh show dev s0 nud permanent | grep -q . ||
		fail "p0l0/s0 lost its permanent neighbours"
}

# ar_rate NODE PORT: the rate of ar's model of the port (bit/s).
ar_rate() {
	local ifindex
	ifindex=$(ip -n "$FAB-$1" -j link show dev "$2" | jq '.[0].ifindex')
	bpftool -j map dump pinned "/sys/fs/bpf/mplane/fabric/$FAB/$1/mp_port_cfg" |
		jq --argjson i "$ifindex" '.[].formatted | select(.key == $i) | .value.rate_bps'
}

# Degrade: the tbf of both ends at the new rate (tc -j gives bytes/s), as
# 'fault show' says, and ar's model of the port with it; a plane: both
# ends of its every link.
test_degrade_rate() {
	local out
	need_fabric
	mpx bpf attach --fabric "$FAB" >/dev/null 2>&1 || fail "ar attach"
	fault p0l1:s0 degrade 10mbit >/dev/null
	assert_eq "p0l1/s0 rate" "$(rate p0l1 s0)" 1250000
	assert_eq "p0s0/l1 rate" "$(rate p0s0 l1)" 1250000
	assert_eq "p0l0/s0 untouched" "$(rate p0l0 s0)" 12500000
	assert_eq "ar's p0l1/s0" "$(ar_rate p0l1 s0)" 10000000
	assert_eq "ar's p0l0/s0" "$(ar_rate p0l0 s0)" 100000000
	out=$(mpx -j fabric fault --prefix "$FAB" show)
	assert_eq "degraded ports shown" \
		"$(jq -c '[.ports[] | "\(.node)/\(.port) \(.rate_bps)"]' <<<"$out")" \
		'["p0l1/s0 10000000","p0s0/l1 10000000"]'
	out=$(mpx -j fabric fault --prefix "$FAB" plane 0 degrade 20mbit)
	assert_eq "plane 0: both ends of 4 links" "$(jq '.ports | length' <<<"$out")" 8
	assert_eq "h1/r0 rate" "$(rate h1 r0)" 2500000
	fault clear >/dev/null
	assert_eq "h1/r0 rate after clear" "$(rate h1 r0)" 12500000
	assert_eq "ar's p0l1/s0 after clear" "$(ar_rate p0l1 s0)" 100000000
	mpx bpf detach --fabric "$FAB" >/dev/null 2>&1
}

# send_udp N: N UDP packets from h0 to h1 at 20 kpps, counted by a
# receiver on h1; prints how many arrived.
send_udp() {
	local ready=$TMPD/recv.ready pid
	rm -f "$ready"
	in_node h1 "$MPLANECTL" -j traffic recv --port 9000 --count "$1" \
		--timeout 10 --idle 1 --ready-file "$ready" >"$TMPD/recv.json" &
	pid=$!
	busywait 5000 test -e "$ready" || fail "traffic recv did not start"
	in_node h0 "$MPLANECTL" traffic send "$H1:9000" --count "$1" \
		--rate 20000 >/dev/null || fail "traffic send"
	wait $pid || true
	json_num "$(<"$TMPD/recv.json")" received
}

# 10% loss on h0's rail, both ways: of 4000 UDP packets h0 sends, about
# 400 are dropped (binomial: sd 19, so within 300..500 but once in a
# million runs), counted by the dropper (or netem), and what it passed
# is what p0l0 received.  On this kernel (no netem) it is the dropper, in
# its own tc slot next to pktcount's.
test_loss_share() {
	local out via passed dropped ppm got lost
	need_fabric
	mpx -n "$FAB-h0" bpf attach r0 >/dev/null || fail "pktcount attach"
	out=$(mpx -j fabric fault --prefix "$FAB" h0:r0 loss 10%)
	via=$(jq -r '.steps[0].via' <<<"$out")
	log "loss via $via"
	if [ "$via" = bpf ]; then
		# At the tail of tcx, after pktcount, where the kernel has it.
		want="cls_bpf mp_pkt_egress cls_bpf mp_fault_drop"
		has_tcx && want="tcx mp_pkt_egress tcx mp_fault_drop"
		assert_eq "h0/r0 egress" "$(tc_progs "$FAB-h0" r0 eg | xargs)" "$want"
	else
		assert_eq "loss via" "$via" netem
	fi
	got=$(send_udp 4000)
	out=$(mpx -j fabric fault --prefix "$FAB" show)
	jq_read "$out" '.ports[] | select(.node == "h0") | .loss_via, .passed, .dropped, .loss_ppm' \
		via passed dropped ppm
	assert_eq "h0/r0 loss" "$ppm" 100000
	log "h0/r0 dropped $dropped, passed $passed; h1 received $got of 4000"
	assert_ge "dropped" "$dropped" 300
	assert_le "dropped" "$dropped" 500
	assert_ge "seen" $((passed + dropped)) 4000
	# What it passed arrived: it counted what the wire lost (and a few
	# packets of the fabric's own, such as IPv6's).
	lost=$((4000 - got))
	assert_ge "lost on the way to h1" "$lost" $((dropped - 10))
	assert_le "lost on the way to h1" "$lost" "$dropped"
}

# seen: what the dropper on h0/r0 saw (passed and dropped), by fault show.
seen() {
	jq -r '[.ports[] | select(.node == "h0" and .port == "r0") | .passed + .dropped] | add' \
		<<<"$(mpx -j fabric fault --prefix "$FAB" show)"
}

# --tc-hook places the dropper, and a dropper already on the port moves
# to the hook asked for, the same program, so its counts go on (give or
# take the fabric's own few packets, IPv6's); one copy is left, and show
# says where it is.  --tc-hook means --via bpf, so this runs where the
# kernel has netem too.
test_loss_tc_hook() {
	local auto=cls_bpf before after hook want
	has_tcx && auto=tcx
	need_fabric
	mpx fabric fault --prefix "$FAB" --tc-hook cls_bpf h0:r0 loss 5% >/dev/null ||
		fail "loss on cls_bpf"
	assert_eq "h0/r0 egress" "$(tc_progs "$FAB-h0" r0 eg | grep mp_fault | xargs)" \
		"cls_bpf mp_fault_drop"
	send_udp 400 >/dev/null
	before=$(seen)
	assert_ge "seen on cls_bpf" "$before" 400
	for hook in auto cls_bpf auto; do
		want=$hook
		[ "$hook" = auto ] && want=$auto
		mpx fabric fault --prefix "$FAB" --tc-hook $hook h0:r0 loss 5% >/dev/null ||
			fail "loss with --tc-hook $hook"
		assert_eq "--tc-hook $hook: h0/r0 egress" \
			"$(tc_progs "$FAB-h0" r0 eg | grep mp_fault | xargs)" "$want mp_fault_drop"
		assert_eq "--tc-hook $hook: show" "$(mpx -j fabric fault --prefix "$FAB" show |
			jq -r '.ports[] | select(.node == "h0" and .port == "r0") | .tc_hook')" "$want"
	done
	after=$(seen)
	assert_ge "counts kept through the moves" "$after" "$before"
	assert_le "counts kept through the moves" "$after" $((before + 20))
	send_udp 400 >/dev/null
	assert_ge "counted after the moves" "$(seen)" $((after + 400))
	MPLANE_TC_HOOK=cls_bpf mpx fabric fault --prefix "$FAB" h0:r0 loss 2% >/dev/null ||
		fail "loss with MPLANE_TC_HOOK"
	assert_eq "MPLANE_TC_HOOK=cls_bpf: h0/r0 egress" \
		"$(tc_progs "$FAB-h0" r0 eg | grep mp_fault | xargs)" "cls_bpf mp_fault_drop"
	mpx fabric fault --prefix "$FAB" h0:r0 loss 0 >/dev/null || fail "loss 0"
	assert_eq "loss 0: h0/r0 egress" "$(tc_progs "$FAB-h0" r0 eg | grep mp_fault | xargs)" ""
}

# Clear after down, degrade and loss: every port up at the fabric's rate,
# no dropper, pktcount's filter still there, ping through again.
test_clear_restores() {
	local out
	need_fabric
	fault port p0l1:h1 down >/dev/null
	fault h1:r0 degrade 1mbit >/dev/null
	fault p0l1:s0 loss 50% >/dev/null
	out=$(mpx -j fabric fault --prefix "$FAB" show)
	assert_ge "ports with a fault" "$(jq '.ports | length' <<<"$out")" 4
	pings $H1 && fail "ping to a host whose leaf port is down"
	out=$(mpx -j fabric fault --prefix "$FAB" clear)
	assert_eq "clear" "$(jq -r '"\(.target) \(.steps[0].action) \(.steps[0].ok)"' <<<"$out")" \
		"fabric clear true"
	out=$(mpx -j fabric fault --prefix "$FAB" show)
	assert_eq "ports with a fault after clear" "$(jq -c '.ports' <<<"$out")" "[]"
	is_up p0l1 h1 || fail "p0l1/h1 not up"
	assert_eq "h1/r0 rate" "$(rate h1 r0)" 12500000
	tc_progs "$FAB-p0l1" s0 eg | grep -q mp_fault_drop &&
		fail "dropper left on p0l1/s0"
	if mpx -n "$FAB-h0" -j bpf status r0 >/dev/null 2>&1; then
		tc_progs "$FAB-h0" r0 eg | grep -q mp_pkt_egress ||
			fail "clear took pktcount's filter: $(tc_progs "$FAB-h0" r0 eg)"
		mpx -n "$FAB-h0" bpf detach r0 >/dev/null
	fi
	busywait 3000 pings $H1 || fail "no ping after clear"
}

# A flap at --start + 1 s (--start on the real-time clock) recorded with
# the rest of the telemetry: four fault events, down, up, down, up, at
# the times the command gave, within 50 ms, the first 1 s after a step
# mark made as the command ran; 'telemetry report' lists them with the
# port state changes ar's watcher saw, and the schedule leaves no
# process or pid file.
test_scheduled_flap_on_timeline() {
	local out pid rep at got mark
	need_fabric
	mpx bpf attach --fabric "$FAB" >/dev/null 2>&1 || fail "ar attach"
	mpx telemetry record -o "$TMPD/flap.cap" --duration 3 --poll-hz 0 \
		>/dev/null 2>&1 &
	pid=$!
	sleep 0.3
	mpx mark step 7 >/dev/null || fail "mark"
	out=$(mpx -j fabric fault --prefix "$FAB" p0l0:s0 flap --period 0.4 \
		--count 2 --at 1 --start "@$(date +%s.%N)")
	at=$(jq -c '[.steps[] | .at_ns]' <<<"$out")
	[ "$(jq '.pid' <<<"$out")" -gt 1 ] || fail "no pid: $out"
	wait $pid || fail "telemetry record"
	rep=$(mpx -j telemetry report "$TMPD/flap.cap")
	# The ring may still have held faults of the earlier tests, and it
	# has those of any other fabric on this machine: ours are the ones
	# on p0l0:s0 from the schedule's first step on.
	got=$(jq -c --argjson at "$at" '[.anomalies[] | select(.type == "fault" and
		.entity == "p0l0:s0" and .ts_ns > $at[0] - 100000000) |
		{at: .entity, f: "\(.what) (\(.target), \(.via))", ts: .ts_ns}]' <<<"$rep")
	assert_eq "faults on the timeline" "$(jq -c '[.[] | "\(.at) \(.f)"]' <<<"$got")" \
		'["p0l0:s0 down (link, admin)","p0l0:s0 up (link, admin)","p0l0:s0 down (link, admin)","p0l0:s0 up (link, admin)"]'
	log "fault events after their times: $(jq -c --argjson at "$at" \
		'[range(4) as $i | (.[$i].ts - $at[$i]) / 1000 | floor]' <<<"$got") us"
	jq -e --argjson at "$at" '[range(4) as $i | (.[$i].ts - $at[$i]) |
		select(. < 0 or . > 50000000)] | length == 0' <<<"$got" >/dev/null ||
		fail "fault events off schedule: $got, scheduled $at"
	mark=$(mpx -j telemetry dump "$TMPD/flap.cap" 2>/dev/null |
		jq -s '[.[] | select(.type == "step_mark" and .step_index == 7)][0].ts_ns')
	jq -e --argjson at "$at" --argjson m "$mark" \
		'($at[0] - $m) > 900000000 and ($at[0] - $m) < 1500000000' <<<null >/dev/null ||
		fail "first step $at not 1 s after the mark at $mark"
	assert_ge "ports seen going down" "$(jq '[.anomalies[] | select(.type == "port_down")] | length' <<<"$rep")" 2
	busywait 2000 bash -c "! ls $STATE/$FAB.fault.*.pid 2>/dev/null" ||
		fail "pid file left: $(ls "$STATE")"
	is_up p0l0 s0 || fail "p0l0/s0 not up after the flap"
	mpx bpf detach --fabric "$FAB" >/dev/null 2>&1 || true
}

# 'fabric down' stops a pending schedule: no process, no pid file.
test_down_stops_schedule() {
	local out pid
	mpx fabric up -q --prefix "$FB" --planes 1 --leaves 1 --spines 1 \
		--hosts 1 >/dev/null || fail "fabric up $FB"
	out=$(mpx -j fabric fault --prefix "$FB" p0l0:s0 flap --count 5 --at 30)
	pid=$(jq '.pid' <<<"$out")
	alive "$pid" || fail "schedule $pid not running"
	[ -e "$STATE/$FB.fault.$pid.pid" ] || fail "no pid file"
	assert_eq "show" "$(mpx -j fabric fault --prefix "$FB" show | jq -c '[.schedules[].what]')" \
		'["p0l0:s0 flap"]'
	mpx fabric down --prefix "$FB" >/dev/null
	busywait 3000 bash -c "! { [ -e /proc/$pid/stat ] && ! [[ \$(</proc/$pid/stat) =~ \\)\\ [ZX] ]]; }" ||
		fail "schedule $pid still runs after fabric down"
	[ ! -e "$STATE/$FB.fault.$pid.pid" ] || fail "pid file left"
}

# Bad lines: exit 2 and one line that says what is wrong (then where to
# look), before anything is touched.
test_bad_lines() {
	local rc line
	need_fabric
	while IFS='|' read -r args re; do
		# shellcheck disable=SC2086
		mpx fabric fault --prefix "$FAB" $args >/dev/null 2>"$TMPD/err" && rc=0 || rc=$?
		assert_eq "exit of '$args'" "$rc" 2
		line=$(head -1 "$TMPD/err")
		[[ $line =~ $re ]] || fail "'$args' says '$line', want /$re/"
		[ "$(wc -l <"$TMPD/err")" -eq 2 ] || fail "'$args': $(cat "$TMPD/err")"
	done <<'EOF'
p9l9:s0 down|has no node 'p9l9'
p0l0:s7 down|p0l0 of fabric .* has no port 's7' \(it has h0, s0\)
h0 down|a host is not a switch
p0l0:s0 explode|bad ACTION 'explode'
p0l0:s0|missing ACTION
p0l0:s0 degrade|'degrade' wants a value
p0l0:s0 degrade 5|bad rate '5'
p0l0:s0 loss 120%|bad loss '120%'
plane 1 down|bad plane '1': want an integer from 0 to 0
port p0s0 down|a port is NODE:PORT
switch p0l0:s0 down|a switch is a node name
p0l0:s0 down --count 2|--count is for flap only
p0l0:s0 flap --period 1 --down-for 1|--down-for must be shorter than --period
p0l0:s0 down --period 0.001|bad --period '0.001'
p0l0:s0 loss 1% --via carrier|bad --via 'carrier'
show --at 1|show takes --prefix only
p0l0:s0 down --start now|--start is what --at counts from
p0l0:s0 down --via bpf|--via is for loss only
p0l0:s0 down --tc-hook tcx|--tc-hook is for loss only
p0l0:s0 loss 1% --via netem --tc-hook cls_bpf|--tc-hook places the BPF dropper: it cannot go with --via netem
p0l0:s0 loss 1% --tc-hook bpf|bad --tc-hook 'bpf'
p0l0:s0 flap --at 1 --start 12x|bad --start '12x'
p0l0:s0 down extra|unexpected argument 'extra'
EOF
	is_up p0l0 s0 || fail "a bad line touched p0l0/s0"
}

# flows_delivered: what 'traffic recv' on h0 received of 16 flows of 50
# packets that h2 sends to h0's rail, through one leaf-spine link down.
flows_delivered() {
	local ready=$TMPD/rr.ready
	rm -f "$ready"
	ip netns exec "$FB-h0" "$MPLANECTL" -j traffic recv --port 9300 --idle 1 --timeout 20 \
		--ready-file "$ready" >"$TMPD/rr.json" &
	busywait 5000 test -e "$ready" || fail "receiver not ready"
	ip netns exec "$FB-h2" "$MPLANECTL" traffic send 10.100.0.2:9300 --flows 16 --count 800 \
		--rate 4000 >/dev/null 2>&1
	wait
	jq .received "$TMPD/rr.json"
}

# --reroute: with p0l0's link to s1 down, p0l1 keeps sending a share of
# h0's traffic to s1, which cannot reach p0l0: a black hole, lost.  With
# --reroute p0l1 routes h0 over s0 alone, and every packet arrives; up
# puts s1 back.
test_reroute() {
	local got
	mpx fabric up -q --prefix "$FB" --planes 1 --leaves 2 --spines 2 --hosts 4 \
		>/dev/null || fail "fabric up"
	want_spines() {
		assert_eq "$1" "$(ip -n "$FB-p0l1" route show 10.100.0.0/24 | grep -o 'dev s[0-9]' | xargs)" "$2"
	}
	want_spines "p0l1 to h0, all up" "dev s0 dev s1"
	mpx fabric fault --prefix "$FB" p0l0:s1 down >/dev/null || fail "down"
	want_spines "p0l1 to h0, static" "dev s0 dev s1"
	got=$(flows_delivered)
	log "static routes: $got of 800 arrived"
	[ "$got" -lt 800 ] || fail "nothing lost into s1 without --reroute: the test shows nothing"
	mpx fabric fault --prefix "$FB" --reroute p0l0:s1 down >/dev/null || fail "down --reroute"
	want_spines "p0l1 to h0, rerouted" "dev s0"
	assert_eq "--reroute: arrived" "$(flows_delivered)" 800
	mpx fabric fault --prefix "$FB" --reroute p0l0:s1 up >/dev/null || fail "up --reroute"
	want_spines "p0l1 to h0, back" "dev s0 dev s1"
	expect_fail_msg "--reroute with loss" "--reroute is for down, up, flap and clear" \
		mpx fabric fault --prefix "$FB" --reroute p0l0:s1 loss 1%
	mpx fabric down --prefix "$FB" >/dev/null
}

[ -x "$MPLANECTL" ] || skip "no $MPLANECTL (make tools)"
[ "$(id -u)" -eq 0 ] || skip "needs root"
ktap_run test_link_down_up test_degrade_rate test_loss_share \
	test_loss_tc_hook test_clear_restores test_scheduled_flap_on_timeline \
	test_down_stops_schedule test_bad_lines test_reroute

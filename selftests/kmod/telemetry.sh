#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The tracepoint relay ('mplanectl telemetry attach', bpf/kmtrace.bpf.c):
# mplane.ko's tracepoints become records of the event ring, with the values
# documented in tools/include/mplane_events.h.  A real failover gives a plane_state
# and a failover record; plane choices are relayed one in --sel-sample;
# the module's sampler gives evenly spaced plane_sample records; and the
# relay, which holds the module, lets rmmod through once detached.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/mplane.sh"

KPIN=/sys/fs/bpf/mplane/kmod
EVENTS=$TMPDIR/mp-kmtrace.$$
# enum mplane_plane_state, enum mplane_plane_reason, enum mplane_policy
ST_DOWN=1 REASON_CARRIER=1 POLICY_RR=2

# relay_on ARGS...: attach the relay, and detach it when the test ends
# (even when it fails), so that the next test and script can rmmod.
relay_on() {
	trap '"$MPLANECTL" telemetry detach >/dev/null 2>&1; cleanup_all_ns' EXIT
	"$MPLANECTL" telemetry attach --replace "$@" >/dev/null || fail "attach $*"
}

# ring_read TYPES: the relay's records of TYPES, as JSON lines, in $EVENTS.
ring_read() {
	"$MPLANECTL" -j events --pin "$KPIN" --type "$1" --duration 1 \
		>"$EVENTS" 2>"$EVENTS.sum" || fail "events --type $1"
}

ifindex() { ip -n "$1" -j link show "$2" | jq '.[0].ifindex'; }

# nrec JQ-FILTER: how many records of $EVENTS the filter selects.
nrec() { jq -s "[.[] | select($1)] | length" "$EVENTS"; }

# unload: rmmod mplane, waiting for namespaces of earlier tests (and
# scripts) to finish going away.
unload() {
	[ -e /sys/module/mplane ] || return 0
	slowwait 10 rmmod mplane 2>/dev/null
}

test_attach_needs_module() {
	"$MPLANECTL" telemetry detach >/dev/null
	unload || skip "mplane.ko could not be unloaded: $(rmmod mplane 2>&1)"
	expect_fail_msg "attach without mplane.ko" "mplane.ko is not loaded" \
		"$MPLANECTL" telemetry attach
	[ -e "$KPIN" ] && fail "a failed attach left $KPIN"
	mplane_load
}

test_attach_twice_and_detach_twice() {
	mplane_load
	relay_on
	expect_fail_msg "second attach" "already attached" \
		"$MPLANECTL" telemetry attach
	assert_eq "relayed" "$("$MPLANECTL" -j telemetry attach --replace \
		--sel-sample 0 | jq -c .relayed)" \
		'["plane_state","failover","plane_sample","plane_select","rate_update"]'
	"$MPLANECTL" telemetry detach | grep -q "^detached" || fail "detach"
	[ -e "$KPIN" ] && fail "$KPIN left after detach"
	"$MPLANECTL" telemetry detach | grep -q "not attached" ||
		fail "second detach"
}

test_failover_is_relayed() {
	local mp0 a1
	mp_pair 2
	relay_on
	mp0=$(ifindex "$ha" mp0) a1=$(ifindex "$ha" a1)
	ip -n "$hb" link set b1 down
	busywait 3000 mp_state_is "$ha" 1 down || fail "plane 1 not down"
	ring_read plane_state,failover
	log "$(wc -l <"$EVENTS") records; mp0 is if$mp0, a1 if$a1"
	assert_ge "plane_state down/carrier of mp0 plane 1 via a1" \
		"$(nrec ".type == \"plane_state\" and .ifindex == $mp0 and
			.plane == 1 and .state_id == $ST_DOWN and .state == \"down\" and
			.old_state_id == 0 and .old_state == \"up\" and
			.reason_id == $REASON_CARRIER and .reason == \"carrier\" and
			.rail_ifindex == $a1")" 1
	assert_ge "failover of mp0 plane 1, plane 0 still usable" \
		"$(nrec ".type == \"failover\" and .ifindex == $mp0 and
			.plane == 1 and .reason_id == $REASON_CARRIER and
			.reason == \"carrier\" and .usable_mask == 1")" 1
	assert_eq "records of plane 0" "$(nrec '.plane == 0')" 0
}

# send N: N packets ha -> hb over mp0.
send() {
	ip netns exec "$ha" "$MPLANECTL" traffic send $MP_B4 --count "$1" \
		--rate 2000 >/dev/null 2>&1 || fail "traffic send"
}

test_plane_select_sampling() {
	local mp0 n0 n1 n
	mp_pair 2
	"$MPLANECTL" -n "$ha" link set mp0 policy rr
	ip netns exec "$ha" ping -c 4 -i 0.05 -q $MP_B4 >/dev/null || fail "ping"
	# hb's mp0 (often the same ifindex as ha's) chooses nothing now: its
	# port-unreachable answers would be counted as ha's choices.
	tc -n "$hb" qdisc add dev mp0 clsact
	tc -n "$hb" filter add dev mp0 egress pref 1 matchall action drop
	mp0=$(ifindex "$ha" mp0)
	relay_on --sel-sample 1
	send 200
	ring_read plane_select
	n0=$(nrec ".ifindex == $mp0 and .plane == 0")
	n1=$(nrec ".ifindex == $mp0 and .plane == 1")
	log "every choice relayed: plane 0 $n0, plane 1 $n1 of 200 packets"
	# Round robin: half each, give or take what else mp0 sends.
	assert_ge "plane 0 choices" "$n0" 90
	assert_ge "plane 1 choices" "$n1" 90
	assert_le "choices" $((n0 + n1)) 210
	assert_eq "policy of every choice (rr)" \
		"$(nrec ".policy_id != $POLICY_RR or .policy != \"rr\"")" 0
	# One in 10 per CPU: the first on each CPU, then every tenth.
	relay_on --sel-sample 10
	send 200
	ring_read plane_select
	n=$(nrec 'true')
	log "one in 10 relayed: $n of 200 packets"
	assert_ge "choices relayed with --sel-sample 10" "$n" 20
	assert_le "choices relayed with --sel-sample 10" "$n" 24
	# 0 relays none, however much is chosen.
	relay_on --sel-sample 0
	send 200
	ring_read plane_select
	assert_eq "choices relayed with --sel-sample 0" "$(nrec 'true')" 0
}

# spacing PLANE: "median_ms min_ms decreases" of the plane_sample records
# of ha's mp0 for PLANE.
spacing() {
	jq -rs --argjson ifi "$mp0" --argjson p "$1" '
		[.[] | select(.type == "plane_sample" and .ifindex == $ifi and
			      .plane == $p)] | sort_by(.ts_ns) as $s |
		[range(1; $s | length) | ($s[.].ts_ns - $s[. - 1].ts_ns)] |
		sort as $d |
		[range(1; $s | length) |
		 select($s[.].tx_bytes < $s[. - 1].tx_bytes)] | length as $dec |
		"\($d | length) \($d[($d | length) / 2 | floor] / 1e6)" +
		" \($dec)"' "$EVENTS"
}

test_plane_samples() {
	local p gaps median dec
	"$MPLANECTL" link set --help | grep -q sample-interval ||
		skip "no 'link set sample-interval' in mplanectl yet"
	mp_pair 2
	mp0=$(ifindex "$ha" mp0)
	relay_on
	"$MPLANECTL" -n "$ha" link set mp0 sample-interval 1000
	ip netns exec "$ha" "$MPLANECTL" traffic send $MP_B4 --count 2000 \
		--rate 2000 >/dev/null 2>&1 &
	sleep 0.5
	ring_read plane_sample
	wait
	"$MPLANECTL" -n "$ha" link set mp0 sample-interval 0
	assert_eq "records the full ring refused" "$(jq .dropped "$EVENTS.sum")" 0
	for p in 0 1; do
		read -r gaps median dec <<<"$(spacing $p)"
		log "plane $p: $gaps gaps, median ${median} ms, tx_bytes decreased $dec times"
		assert_ge "plane $p samples" "$gaps" 100
		# 0.5-3 ms around the 1 ms asked for: TCG is slow and noisy.
		awk -v m="$median" 'BEGIN { exit !(m >= 0.5 && m <= 3) }' ||
			fail "plane $p: median spacing $median ms, want 0.5-3"
		assert_eq "plane $p tx_bytes decreases" "$dec" 0
	done
}

# One relay serves every namespace: hdr.flags names the device's by its
# inode, and the model names the planes after it.  Both rails are shaped
# below the offered rate, so that the samples must show their queues.
test_plane_samples_name_their_namespace() {
	local cap=$TMPDIR/mp-kmtrace-cap.$$ n p ino
	mp_pair 2
	link_rate "$ha" a0 1mbit
	link_rate "$ha" a1 1mbit
	relay_on
	ino=$(stat -L -c %i "/run/netns/$ha")
	"$MPLANECTL" -n "$ha" link set mp0 sample-interval 1000
	ip netns exec "$ha" "$MPLANECTL" traffic send $MP_B4 --count 7500 \
		--rate 5000 --flows 8 >/dev/null 2>&1 &
	# Record once both planes carry the stream: a guest busy elsewhere
	# can take a second to start the sender (a window with no traffic
	# in it saw no queue on 6.1).
	busywait 5000 mp_pstat_ge "$ha" 0 tx_packets 200 || fail "no traffic on plane 0"
	busywait 5000 mp_pstat_ge "$ha" 1 tx_packets 200 || fail "no traffic on plane 1"
	"$MPLANECTL" telemetry record -o "$cap" --pin "$KPIN" --poll-hz 0 \
		--type plane_sample --duration 0.8 2>/dev/null || fail "record"
	wait
	"$MPLANECTL" -n "$ha" link set mp0 sample-interval 0
	"$MPLANECTL" telemetry dump "$cap" | jq -c \
		'select(.frame == "event" and .type == "plane_sample")' >"$EVENTS"
	n=$(nrec 'true')
	assert_ge "plane samples captured" "$n" 100
	assert_eq "samples whose flags are not $ha's namespace ($ino)" \
		"$(nrec ".flags != $ino")" 0
	for p in 0 1; do
		log "plane $p, 1 Mbit/s under 4 Mbit/s: highest queue" \
			"$(jq -s "map(select(.plane == $p) | .q_bytes) | max" "$EVENTS") B"
		assert_ge "plane $p samples with a queue" \
			"$(nrec ".plane == $p and .q_bytes > 0")" 1
		assert_eq "report names plane $p after $ha" "$("$MPLANECTL" -j \
			telemetry report "$cap" | jq -r --arg n "$ha:mp0/plane$p" \
			'[.. | objects | select(.name? == $n)] | length > 0')" true
	done
}

test_rmmod_needs_detach() {
	local msg
	mplane_load
	relay_on
	if msg=$(rmmod mplane 2>&1); then
		fail "rmmod succeeded while the relay held the module"
	fi
	log "rmmod while attached: $msg"
	"$MPLANECTL" telemetry detach >/dev/null || fail "detach"
	unload || fail "rmmod after detach: $(rmmod mplane 2>&1)"
	mplane_load
}

# The debug kernel's share: the relay's life cycle (the relayed events
# and sample rates asserted elsewhere need a faster guest).
QUICK_TESTS="test_attach_needs_module test_rmmod_needs_detach"
ktap_run test_attach_needs_module test_attach_twice_and_detach_twice \
	test_failover_is_relayed test_plane_select_sampling \
	test_plane_samples test_plane_samples_name_their_namespace \
	test_rmmod_needs_detach

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mp0's plane sampler (kmod/sampler.c): IFLA_MPLANE_SAMPLE_INTERVAL_US and
# its limits, the mplane:plane_sample events it fires (per plane, at the
# interval, with counters that only grow and queues that the datapath
# sees), that 0 stops it, that perf sees it, and teardown while it runs
# at its finest interval.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/mplane.sh"

TRACING=/sys/kernel/tracing
# A trace instance of our own: the events of other tests stay out.
INST=$TRACING/instances/mplane_sampler_$$

# The tracepoint is turned on once, for the whole script, and the sample
# interval alone starts and stops the samples: under TCG, patching a
# static branch while another vCPU runs that code can oops on the
# patching int3 (seen on 6.12 with plane_sample's own branch, and with
# sched_wakeup's, which enabling any event hooks to record task names),
# as lifecycle.sh saw with ping's timestamp key: the emulator's doing,
# not mplane's.  So: few toggles, and no task names.
RECORD_CMD=$TRACING/options/record-cmd

tracing_up() {
	[ -d $TRACING/instances ] || mount -t tracefs nodev $TRACING 2>/dev/null ||
		skip "no tracefs"
	[ -d $INST ] || mkdir $INST
	[ -d $INST/events/mplane/plane_sample ] ||
		fail "no mplane:plane_sample tracepoint"
	if [ "$(cat $INST/events/mplane/plane_sample/enable)" != 1 ]; then
		[ ! -w $RECORD_CMD ] || echo 0 >$RECORD_CMD
		echo 1 >$INST/events/mplane/plane_sample/enable
	fi
	echo >$INST/trace
}

tracing_down() {
	[ -d $INST ] || return 0
	# Gone with the module after an rmmod.
	[ ! -e $INST/events/mplane ] ||
		echo 0 >$INST/events/mplane/plane_sample/enable
	rmdir $INST
	[ ! -w $RECORD_CMD ] || echo 1 >$RECORD_CMD
}

# The samples in the instance's buffer as "plane q_bytes tx_bytes load",
# one line each, in order.
samples() {
	sed -n 's/.*plane_sample: dev=mp0 plane=\([0-9]*\) q_bytes=\([0-9]*\) tx_bytes=\([0-9]*\) ecn_ce=[0-9]* cnp=[0-9]* load=\([0-9]*\)$/\1 \2 \3 \4/p' \
		$INST/trace
}

now_us() { echo "${EPOCHREALTIME/./}"; }

# check_series FILE PLANE LO HI: PLANE has LO..HI samples in FILE, and
# its tx_bytes never go down.
check_series() {
	local file=$1 plane=$2 lo=$3 hi=$4 n
	n=$(awk -v p="$plane" '$1 == p' "$file" | wc -l)
	log "plane $plane: $n samples (want $lo..$hi)"
	assert_ge "plane $plane samples" "$n" "$lo"
	assert_le "plane $plane samples" "$n" "$hi"
	assert_eq "plane $plane tx_bytes going down" "$(awk -v p="$plane" \
		'$1 == p { if (seen && $3 < last) bad++; last = $3; seen = 1 }
		 END { print bad + 0 }' "$file")" 0
}

# bytes_grew FILE PLANE: last tx_bytes of PLANE minus its first.
bytes_grew() {
	awk -v p="$2" '$1 == p { if (!seen) first = $3; last = $3; seen = 1 }
		END { print last - first }' "$1"
}

test_limits() {
	mp_pair 1
	expect_fail_msg "sample interval 5" \
		"IFLA_MPLANE_SAMPLE_INTERVAL_US.*0 \(off\) or 10\.\.1000000" \
		"$MPLANECTL" -n "$ha" link set mp0 sample-interval 5
	expect_fail_msg "sample interval 2000000" \
		"IFLA_MPLANE_SAMPLE_INTERVAL_US.*0 \(off\) or 10\.\.1000000" \
		"$MPLANECTL" -n "$ha" link set mp0 sample-interval 2000000
	assert_eq "off by default" \
		"$(mp_json "$ha" | jq '.devices[0].sample_interval_us')" 0
	"$MPLANECTL" -n "$ha" link set mp0 sample-interval 10
	"$MPLANECTL" -n "$ha" link set mp0 sample-interval 1000000
	assert_eq "sample_interval_us" \
		"$(mp_json "$ha" | jq '.devices[0].sample_interval_us')" 1000000
	"$MPLANECTL" -n "$ha" link show mp0 | grep -q "sample-interval 1000000us" ||
		fail "link show does not print the interval"
	"$MPLANECTL" -n "$ha" link set mp0 sample-interval off
	assert_eq "off" "$(mp_json "$ha" | jq '.devices[0].sample_interval_us')" 0
	"$MPLANECTL" -n "$ha" link show mp0 | grep -q "sample-interval off" ||
		fail "link show does not print 'off'"
	# At creation too, where the timer starts once the device exists.
	expect_fail_msg "create with 9" "IFLA_MPLANE_SAMPLE_INTERVAL_US" \
		"$MPLANECTL" -n "$ha" link add mp1 sample-interval 9
	"$MPLANECTL" -n "$ha" link add mp1 sample-interval 500
	assert_eq "created with" "$("$MPLANECTL" -n "$ha" -j link show mp1 |
		jq '.devices[0].sample_interval_us')" 500
	ip -n "$ha" link del mp1
}

# 1000 us for about 0.5 s: both planes, about 500 samples each (TCG is
# slow: from 25% of what the time it surely ran allows to 120% of what
# the time it may have run allows).
test_interval() {
	local t0 t1 t2 t3 lo hi
	mp_pair 2
	tracing_up
	# The sampler surely ran from t1 to t2, and at most from t0 to t3.
	t0=$(now_us)
	"$MPLANECTL" -n "$ha" link set mp0 sample-interval 1000
	t1=$(now_us)
	sleep 0.5
	t2=$(now_us)
	"$MPLANECTL" -n "$ha" link set mp0 sample-interval 0
	t3=$(now_us)
	samples >"$TMPDIR/s.$$"
	lo=$(((t2 - t1) / 1000 / 4)) hi=$(((t3 - t0) / 1000 * 6 / 5))
	check_series "$TMPDIR/s.$$" 0 $lo $hi
	check_series "$TMPDIR/s.$$" 1 $lo $hi
	rm -f "$TMPDIR/s.$$"
}

# Under traffic the counters advance, and a slow rail's queue and load
# show in its samples as the balancer sees them.
test_traffic() {
	local f=$TMPDIR/s.$$ q
	mp_pair 2
	tracing_up
	"$MPLANECTL" -n "$ha" link set mp0 policy rr
	# Slower than even a debug kernel sends: a queue builds on a1.
	link_rate "$ha" a1 200kbit
	# A receiver, so that no ICMP port unreachable stops the sender.
	ip netns exec "$hb" "$MPLANECTL" traffic recv --idle 1 --timeout 60 \
		--ready-file "$TMPDIR/ready.$$" >/dev/null 2>&1 &
	busywait 30000 test -e "$TMPDIR/ready.$$" || fail "receiver not ready"
	"$MPLANECTL" -n "$ha" link set mp0 sample-interval 1000
	ip netns exec "$ha" "$MPLANECTL" traffic send $MP_B4 --count 2000 \
		--rate 5000 --size 500 >/dev/null
	sleep 0.05
	"$MPLANECTL" -n "$ha" link set mp0 sample-interval 0
	wait
	rm -f "$TMPDIR/ready.$$"
	samples >"$f"
	check_series "$f" 0 1 100000
	check_series "$f" 1 1 100000
	log "tx_bytes grew by $(bytes_grew "$f" 0) and $(bytes_grew "$f" 1)"
	assert_ge "plane 0 tx_bytes grew" "$(bytes_grew "$f" 0)" 100000
	assert_ge "plane 1 tx_bytes grew" "$(bytes_grew "$f" 1)" 5000
	q=$(awk '$1 == 1 && $2 > m { m = $2 } END { print m + 0 }' "$f")
	log "plane 1 (200 kbit/s): max q_bytes $q"
	assert_ge "plane 1 queue seen" "$q" 1000
	assert_ge "plane 1 load seen" \
		"$(awk '$1 == 1 && $2 > 0 && $4 > 0' "$f" | wc -l)" 1
	rm -f "$f"
}

test_off_stops() {
	mp_pair 2
	tracing_up
	"$MPLANECTL" -n "$ha" link set mp0 sample-interval 100
	sleep 0.2
	assert_ge "samples at 100 us" "$(samples | wc -l)" 20
	"$MPLANECTL" -n "$ha" link set mp0 sample-interval 0
	# The timer is cancelled before the request returns.
	echo >$INST/trace
	sleep 0.3
	assert_eq "samples after off" "$(samples | wc -l)" 0
}

# perf: Debian's perf may be a wrapper that wants a perf_<version> for
# the running kernel; try it, then the real binaries.
perf_bin() {
	local p
	for p in perf /usr/bin/perf_* /usr/lib/linux-tools*/perf; do
		command -v "$p" >/dev/null 2>&1 || continue
		"$p" version >/dev/null 2>&1 && { echo "$p"; return 0; }
	done
	return 1
}

test_perf() {
	local perf n data=$TMPDIR/perf.$$.data
	perf=$(perf_bin) || skip "no working perf binary in this system"
	mp_pair 2
	tracing_up
	# tracing_up() turned the tracepoint's branch on: perf adds a probe
	# and patches nothing.
	"$MPLANECTL" -n "$ha" link set mp0 sample-interval 1000
	if ! "$perf" record -q -o "$data" -e 'mplane:plane_sample' -a \
		-- sleep 0.3 >"$TMPDIR/perf.$$.log" 2>&1; then
		"$MPLANECTL" -n "$ha" link set mp0 sample-interval 0
		log "$(tail -n 3 "$TMPDIR/perf.$$.log")"
		rm -f "$data" "$TMPDIR/perf.$$.log"
		skip "perf record cannot trace here"
	fi
	"$MPLANECTL" -n "$ha" link set mp0 sample-interval 0
	n=$("$perf" script -i "$data" 2>/dev/null |
		grep -c 'plane_sample: dev=mp0 plane=[01] ')
	rm -f "$data" "$TMPDIR/perf.$$.log"
	log "perf script: $n plane_sample lines in 0.3 s"
	assert_ge "perf plane_sample lines" "$n" 20
}

# At the finest interval, with the tracepoint on: delete a device, then
# rmmod with the other one still sampling (at 100 us: two devices at 10 us
# would keep both vCPUs of a TCG guest busy).  The VM runner fails the run
# on any splat.
test_teardown_while_sampling() {
	mp_pair 2
	tracing_up
	"$MPLANECTL" -n "$ha" link set mp0 sample-interval 10
	"$MPLANECTL" -n "$hb" link set mp0 sample-interval 100
	sleep 0.3
	assert_eq "samples at 10 us" "$(grep -m 20 -c 'plane_sample: dev=mp0' $INST/trace)" 20
	ip -n "$ha" link del mp0
	sleep 0.1
	rmmod mplane || fail "rmmod while sampling"
	[ -e /sys/module/mplane ] && fail "mplane still loaded"
	return 0
}

rc=0
# The debug kernel's share: the timer's teardown while it samples at
# 10 us (its precision and the limits are the release kernels').
QUICK_TESTS="test_teardown_while_sampling"
ktap_run test_limits test_interval test_traffic test_off_stops test_perf \
	test_teardown_while_sampling || rc=$?
tracing_down
exit $rc

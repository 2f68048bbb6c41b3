#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 'mplanectl telemetry record' and 'dump' on the running kernel: a step
# mark, the counter pollers (link statistics of a veth carrying paced
# traffic, its ethtool -S counters, RDMA hw_counters where there is a
# device), events of three sources merged on one timeline, and the exact
# drop count of a stopped and of a throttled reader facing a burst larger
# than the ring, the exporter's own ring beside a recorder's, and the
# kmod relay's source naming the namespaces of /run/netns.  TESTS="test_a test_b" runs only those.

# a and b (the namespaces) are set by setup_ns, called from veth_hosts.
# shellcheck disable=SC2154
# shellcheck source-path=SCRIPTDIR source=../lib/lib.sh
source "$(dirname "$0")/../lib/lib.sh"

MPLANECTL=$MPLANE_BUILD/mplanectl
MARKS=/sys/fs/bpf/mplane/marks
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-telemetry.XXXXXX")
remove_pins() {
	local dir
	if [ -f "$TMPD/mounts" ]; then
		while read -r dir; do
			umount "$dir"
		done <"$TMPD/mounts"
	fi
	[ -f "$TMPD/pins" ] || return 0
	while read -r dir; do
		rm -rf "$dir"
	done <"$TMPD/pins"
}
# The readers a failed test left running would read the next tests' rings.
trap '_lib_exit; signal_pids_in "$TMPD/readers" KILL; remove_pins; rm -rf "$TMPD"' EXIT

# CLOCK_MONOTONIC in ns, the events' clock (bpf_ktime_get_ns).
mono_ns() { python3 -c 'import time; print(time.monotonic_ns())'; }

# record OUT [OPTIONS...] : 'telemetry record -o OUT' in the background
# (its summary in OUT.json), until rec_stop; returns once every source
# is open.  In namespace REC_NS if set.  Sets rec_pid.
record() {
	local out=$1
	shift
	rm -f "$out.ready"
	"$MPLANECTL" ${REC_NS:+-n "$REC_NS"} -j telemetry record -o "$out" \
		--ready-file "$out.ready" "$@" >"$out.json" 2>"$out.err" &
	rec_pid=$!
	echo "$rec_pid" >>"$TMPD/readers"
	slowwait 30 test -e "$out.ready" || fail "record not ready: $(cat "$out.err")"
}

# rec_stop OUT : SIGINT, and the recorder must end well.
rec_stop() {
	kill -INT "$rec_pid"
	wait "$rec_pid" || fail "record failed: $(cat "$1.err")"
}

# dump FILE [--sorted] : the capture as JSON lines, in $FILE.jsonl.
dump() {
	"$MPLANECTL" telemetry dump "$@" >"$1.jsonl" || fail "dump $1 failed"
}

# Marks left in the ring by earlier runs would be read as in flight.
drain_marks() {
	"$MPLANECTL" mark step 0 || fail "loading the marks program"
	"$MPLANECTL" events --pin "$MARKS" --duration 0.2 >/dev/null 2>&1 || true
}

# receiver NS PORT : absorbs what is sent to PORT, so that no ICMP error
# comes back to the sender; stopped when the test ends.
receiver() {
	local ready=$TMPD/rx-$1-$2.ready
	"$MPLANECTL" -n "$1" traffic recv --port "$2" --timeout 20 \
		--ready-file "$ready" >/dev/null 2>&1 &
	rx_pid=$!
	trap 'kill $rx_pid 2>/dev/null || true; cleanup_all_ns' EXIT
	busywait 30000 test -e "$ready" || fail "receiver not ready"
}

# (a) A step mark made while recording is in the capture, on its clock.
test_step_mark_recorded() {
	local f=$TMPD/mark.cap t0 t1
	drain_marks
	record "$f" --poll-hz 0
	t0=$(mono_ns)
	"$MPLANECTL" mark step 7 || fail "mark step 7"
	t1=$(mono_ns)
	rec_stop "$f"
	dump "$f"
	jq -s -e --argjson a "$t0" --argjson b "$t1" \
		'[.[] | select(.frame == "event" and .type == "step_mark" and
		  .label == "marks" and .step_index == 7 and .ts_ns >= $a and
		  .ts_ns <= $b)] | length == 1' "$f.jsonl" >/dev/null ||
		fail "no step 7 in the capture, between $t0 and $t1: $(grep -v ifname "$f.jsonl" | head -20)"
	jq -e '.sources[] | select(.source == "marks") |
		.recorded >= 1 and .dropped == 0' "$f.json" >/dev/null ||
		fail "summary: $(cat "$f.json")"
}

# record, then report: the report reads back every event the recorder
# wrote, per source, and the step times of this shell's marks ('mark
# step' stamps its caller's pid): five 20 ms apart or more, then five
# back to back, nine steps in all.
test_record_report_round_trip() {
	local f=$TMPD/rt.cap i
	drain_marks
	record "$f" --poll-hz 0
	for i in 1 2 3 4 5; do
		"$MPLANECTL" mark step $i >/dev/null || fail "mark step $i"
		sleep 0.02
	done
	"$MPLANECTL" mark step 9 --repeat 5 >/dev/null || fail "mark --repeat"
	rec_stop "$f"
	"$MPLANECTL" -j telemetry report "$f" >"$f.report" || fail "report"
	assert_eq "events reported" "$(jq .event_count "$f.report")" \
		"$(jq '[.sources[].recorded] | add' "$f.json")"
	assert_eq "marks recorded, as reported" \
		"$(jq '.sources[] | select(.label == "marks") | .recorded' "$f.report")" \
		"$(jq '.sources[] | select(.source == "marks") | .recorded' "$f.json")"
	assert_eq "marks" "$(jq '.sources[] | select(.label == "marks") | .event_count' "$f.report")" 10
	assert_eq "dropped" "$(jq .dropped "$f.report")" 0
	assert_eq "steps" "$(jq .step_times.count "$f.report")" 9
	assert_eq "processes" "$(jq .step_pids "$f.report")" 1
	assert_ge "p50 step (us)" "$(jq '.step_times.p50_us | floor' "$f.report")" 20000
}

# (b) The veth's tx_packets at 1 kHz under 5000 pps: a change every tick
# or so (median spacing 0.5-2 ms), and never a step back.
test_poller_series() {
	local f=$TMPD/poll.cap med
	veth_hosts static
	receiver "$b" 9000
	# No rings (--pin of an empty place): the pollers alone, in a.
	REC_NS=$a record "$f" --pin "$TMPD/no-rings" --poll-hz 1000 \
		--poll-ifaces va
	"$MPLANECTL" -n "$a" traffic send -r 5000 -d 1.5 10.99.0.2 >/dev/null ||
		fail "traffic send"
	rec_stop "$f"
	dump "$f"
	jq -s -e 'any(.[]; .frame == "counter_name" and .name == "va/tx_packets"
		and .kind == "netdev")' "$f.jsonl" >/dev/null ||
		fail "no va/tx_packets counter"
	jq -s -c '[.[] | select(.frame == "event" and .counter == "va/tx_packets")
		| [.ts_ns, .value]]' "$f.jsonl" >"$TMPD/series"
	assert_ge "tx_packets samples" "$(jq length "$TMPD/series")" 500
	jq -e '. as $s | all(range(1; length); $s[.][1] >= $s[. - 1][1])' \
		"$TMPD/series" >/dev/null || fail "tx_packets went down"
	jq -e '. as $s | all(range(1; length); $s[.][0] > $s[. - 1][0])' \
		"$TMPD/series" >/dev/null || fail "timestamps not increasing"
	# Spacing of successive changes, in us, while traffic flowed.
	med=$(jq '. as $s | [range(1; length) | select($s[.][1] > $s[. - 1][1])
		| ($s[.][0] - $s[. - 1][0]) / 1000] | .[1:-1] | sort
		| .[length / 2 | floor] | floor' "$TMPD/series")
	log "median spacing of tx_packets changes: $med us"
	assert_ge "median spacing (us)" "$med" 500
	assert_le "median spacing (us)" "$med" 2000
}

# (c) ethtool -S of a veth: every name the driver reports, as a counter.
test_ethtool_counters() {
	local f=$TMPD/eth.cap want got
	veth_hosts static
	"$MPLANECTL" -n "$a" -j telemetry record -o "$f" --pin "$TMPD/no-rings" \
		--poll-hz 100 --poll-ifaces va --ethtool --duration 0.5 \
		>"$f.json" 2>"$f.err" || fail "record: $(cat "$f.err")"
	dump "$f"
	want=$(ip netns exec "$a" ethtool -S va | awk -F: 'NR > 1 { gsub(/ /, "", $1); print "va/ethtool/" $1 }' | sort)
	got=$(jq -r 'select(.frame == "counter_name" and .kind == "ethtool") | .name' \
		"$f.jsonl" | sort)
	[ -n "$want" ] || fail "ethtool -S va reports nothing"
	assert_eq "ethtool counters" "$got" "$want"
	# peer_ifindex is vb's ifindex, in b: there from the first tick.
	assert_eq "peer_ifindex value" \
		"$(jq -s -r '[.[] | select(.frame == "event" and .counter == "va/ethtool/peer_ifindex")][0].value' "$f.jsonl")" \
		"$(ip -n "$b" -j link show vb | jq '.[0].ifindex')"
}

# (d) Marks, the pollers and hostacct's CNP events in one capture: in
# time order after --sorted, interleaved.
test_sources_merge() {
	local f=$TMPD/merge.cap i
	veth_hosts static
	"$MPLANECTL" -n "$a" bpf attach --prog hostacct va || fail "attach hostacct"
	"$MPLANECTL" -n "$a" -j bpf status --prog hostacct va | jq -r .pin >>"$TMPD/pins"
	receiver "$a" 4791
	drain_marks
	REC_NS=$a record "$f" --poll-hz 1000 --poll-ifaces va
	for i in 1 2 3 4; do
		"$MPLANECTL" mark step "$i" || fail "mark $i"
		# CNPs a <- b: hostacct on va sees them at ingress.
		"$MPLANECTL" -n "$b" traffic send --cnp 0x77 -r 2000 -c 20 \
			10.99.0.1:4791 >/dev/null || fail "cnp send"
	done
	rec_stop "$f"
	dump "$f" --sorted
	jq -s -c '[.[] | select(.frame == "event") | {t: .ts_ns, l: .label}]' \
		"$f.jsonl" >"$TMPD/ev"
	jq -e '. as $e | all(range(1; length); $e[.].t >= $e[. - 1].t)' \
		"$TMPD/ev" >/dev/null || fail "dump --sorted not in time order"
	# Only the three sources of this test: others' rings may be there.
	jq -c '[.[] | select(.l == "marks" or .l == "poll" or (.l | test("^dev/.*/va$")))]' \
		"$TMPD/ev" >"$TMPD/ev3"
	assert_eq "sources with events" \
		"$(jq '[.[].l] | unique | length' "$TMPD/ev3")" 3
	# hostacct's ring is named after a's namespace: its links are a's.
	jq -s -e 'any(.[]; .frame == "ifname" and (.label | test("^dev/.*/va$"))
		and .name == "va")' "$f.jsonl" >/dev/null ||
		fail "hostacct's source does not name va"
	assert_eq "CNP events" \
		"$(jq -s '[.[] | select(.type == "cnp")] | length' "$f.jsonl")" 80
	# Interleaved: each mark is followed by CNPs, then the next mark, with
	# counters in between: many changes of source along the timeline.
	assert_ge "source changes along the timeline" \
		"$(jq '. as $e | [range(1; length) | select($e[.].l != $e[. - 1].l)] | length' "$TMPD/ev3")" 12
}

# (e) A burst of 10000 marks into a 4096-record ring that its reader
# cannot keep up with: the ring overflows, and the counts are exact.
#
# overflow_counted_exactly HOW: HOW is "stopped" (the reader gets SIGSTOP
# for the burst) or "throttled" (it sleeps 300 ms after each batch,
# --throttle-us).  Only a stopped reader overflows on every kernel: under
# TCG the debug kernel takes seconds over the burst, and a throttled
# reader keeps up with it.
overflow_counted_exactly() {
	local f=$TMPD/drop-$1.cap n=10000
	drain_marks
	if [ "$1" = stopped ]; then
		record "$f" --pin "$MARKS" --poll-hz 0
		kill -STOP "$rec_pid"
	else
		record "$f" --pin "$MARKS" --poll-hz 0 --throttle-us 300000
	fi
	"$MPLANECTL" mark step --repeat $n 5 || { kill -CONT "$rec_pid"; fail "burst"; }
	kill -CONT "$rec_pid"
	# Two slow batches at most: what the ring kept.
	sleep 1
	rec_stop "$f"
	dump "$f"
	jq -c 'select(.frame == "stats")' "$f.jsonl" >"$TMPD/st"
	log "marks ring, reader $1: $(cat "$TMPD/st")"
	assert_eq "stats frames" "$(wc -l <"$TMPD/st")" 1
	assert_eq "produced" "$(jq .produced "$TMPD/st")" $n
	assert_ge "dropped" "$(jq .dropped "$TMPD/st")" 1
	assert_eq "in_flight" "$(jq .in_flight "$TMPD/st")" 0
	assert_eq "produced = recorded + dropped" "$(jq .produced "$TMPD/st")" \
		"$(jq '.recorded + .dropped' "$TMPD/st")"
	assert_eq "events in the file" \
		"$(jq -s '[.[] | select(.frame == "event")] | length' "$f.jsonl")" \
		"$(jq .recorded "$TMPD/st")"
	jq -e '.dropped > 0' "$f.json" >/dev/null || fail "summary: $(cat "$f.json")"
}

test_drops_exact() { overflow_counted_exactly stopped; }
test_drops_exact_throttled() { overflow_counted_exactly throttled; }

# A reader killed mid-stream (SIGKILL: nothing flushed, nothing closed)
# harms neither the producers nor the next reader: every mark of the
# burst it died in is still made, its file reads up to where it was cut,
# and the next recorder accounts exactly for what it finds: the marks
# left in the ring are in flight, and every mark of its own window is
# recorded or dropped.
test_reader_killed() {
	local a=$TMPD/killed.cap b=$TMPD/after.cap n=5000 st burst_pid mine
	drain_marks
	record "$a" --pin "$MARKS" --poll-hz 0
	"$MPLANECTL" mark step --repeat 20000 2 &
	burst_pid=$!
	sleep 0.1
	kill -KILL "$rec_pid"
	wait "$rec_pid" 2>/dev/null || true
	wait "$burst_pid" || fail "the marks of the burst the reader died in"
	# Cut anywhere: what precedes the cut still reads.
	"$MPLANECTL" -j telemetry report "$a" >"$a.report" 2>"$a.report.err" ||
		fail "report of the killed reader's file: $(cat "$a.report.err")"
	log "the killed reader's file: $(stat -c %s "$a") bytes, $(jq .event_count "$a.report") events"
	assert_eq "its mode" "$(stat -c %a "$a")" 600
	record "$b" --pin "$MARKS" --poll-hz 0
	"$MPLANECTL" mark step --repeat $n 3 || fail "the burst after"
	sleep 0.3
	rec_stop "$b"
	dump "$b"
	st=$(jq -c 'select(.frame == "stats")' "$b.jsonl")
	log "the next reader: $st"
	mine=$(jq -s '[.[] | select(.frame == "event" and .step_index == 3)] | length' "$b.jsonl")
	assert_eq "produced in its window" "$(jq .produced <<<"$st")" $n
	assert_eq "its marks recorded or dropped" "$((mine + $(jq .dropped <<<"$st")))" $n
	assert_eq "left by the dead reader: in flight" \
		"$(jq -s '[.[] | select(.frame == "event" and .step_index == 2)] | length' "$b.jsonl")" \
		"$(jq .in_flight <<<"$st")"
	exporter_killed
}

# The live exporter killed mid-stream: the marks go on, and another
# takes its port at once and serves the marks that came since.
exporter_killed() {
	local port=$((20000 + RANDOM % 20000)) x i
	for i in 1 2; do
		"$MPLANECTL" telemetry export --listen "127.0.0.1:$port" \
			>"$TMPD/export-$i.out" 2>&1 &
		x=$!
		slowwait 20 curl -sf "http://127.0.0.1:$port/metrics" -o /dev/null ||
			fail "exporter $i does not serve: $(cat "$TMPD/export-$i.out")"
		"$MPLANECTL" mark step --repeat 100 7 || fail "marks with exporter $i"
		slowwait 20 sh -c "curl -sf http://127.0.0.1:$port/metrics | grep -q '^mplane_step_seconds_count{[^}]*} [1-9]'" ||
			fail "exporter $i saw no steps"
		kill -KILL "$x"
		wait "$x" 2>/dev/null || true
	done
}

# exporter_start N : exporter N on a port of its own, serving; sets
# exp_pid[N] and exp_port[N].
declare -A exp_pid exp_port
exporter_start() {
	local port=$((20000 + RANDOM % 20000))
	"$MPLANECTL" telemetry export --listen "127.0.0.1:$port" \
		>"$TMPD/exp-$1.out" 2>&1 &
	exp_pid[$1]=$! exp_port[$1]=$port
	echo "${exp_pid[$1]}" >>"$TMPD/readers"
	slowwait 20 curl -sf "http://127.0.0.1:$port/metrics" -o /dev/null ||
		fail "exporter $1 does not serve: $(cat "$TMPD/exp-$1.out")"
}

# marks_seen N : the step marks exporter N has counted.
marks_seen() {
	curl -sf "http://127.0.0.1:${exp_port[$1]}/metrics" |
		awk '/^mplane_events_total\{node="marks",source="marks",type="step_mark"\}/ { n = $2 }
		     END { print n + 0 }'
}

reader_slots() {
	bpftool -j map dump pinned "$MARKS/mp_event_readers" | jq length
}

# (g) A ring has one consumer, so the exporter reads a ring of its own:
# beside a recorder of the same ring, both get every mark of a burst.
# Each exporter takes one of the 4 reader slots and gives it back when it
# stops; a killed one's slot is taken back by the next that finds none
# free; with every slot held, an exporter says so and leaves the ring to
# the others (their counts unchanged), and is the only one to lose.
test_exporter_beside_recorder() {
	local f=$TMPD/beside.cap n=1000 i
	# Fresh marks: the slots of exporters killed by earlier tests
	# (exporter_killed) are still filled, as they should be.
	rm -rf "$MARKS"
	drain_marks
	assert_eq "slots in use before" "$(reader_slots)" 0
	exporter_start 0
	record "$f" --pin "$MARKS" --poll-hz 0
	"$MPLANECTL" mark step --repeat $n 11 || fail "burst"
	slowwait 20 sh -c "[ \"\$(curl -sf http://127.0.0.1:${exp_port[0]}/metrics |
		grep -c '^mplane_events_total{node=\"marks\",source=\"marks\",type=\"step_mark\"} $n\$')\" = 1 ]" ||
		fail "the exporter saw $(marks_seen 0) marks of $n"
	rec_stop "$f"
	dump "$f"
	assert_eq "the recorder's marks" \
		"$(jq -s '[.[] | select(.frame == "event" and .step_index == 11)] | length' "$f.jsonl")" $n
	assert_eq "the recorder's drops" \
		"$(jq -s '[.[] | select(.frame == "stats")][0].dropped' "$f.jsonl")" 0
	assert_eq "slots in use" "$(reader_slots)" 1
	kill -TERM "${exp_pid[0]}"
	wait "${exp_pid[0]}" || fail "exporter 0 did not end well: $(cat "$TMPD/exp-0.out")"
	assert_eq "slots after it stopped" "$(reader_slots)" 0
	# One killed: its slot stays, with a ring nobody holds.
	exporter_start 1
	kill -KILL "${exp_pid[1]}"
	wait "${exp_pid[1]}" 2>/dev/null || true
	assert_eq "slots after a kill" "$(reader_slots)" 1
	for i in 2 3 4 5; do
		exporter_start $i
	done
	assert_eq "slots with four exporters" "$(reader_slots)" 4
	exporter_start 6
	slowwait 10 grep -q "not reading marks: every reader slot is taken" "$TMPD/exp-6.out" ||
		fail "the fifth exporter: $(cat "$TMPD/exp-6.out")"
	"$MPLANECTL" mark step --repeat 100 12 || fail "second burst"
	for i in 2 3 4 5; do
		slowwait 20 sh -c "curl -sf http://127.0.0.1:${exp_port[$i]}/metrics |
			grep -q '^mplane_events_total{node=\"marks\",source=\"marks\",type=\"step_mark\"} 100\$'" ||
			fail "exporter $i saw $(marks_seen $i) marks of 100"
	done
	assert_eq "the fifth exporter's marks" "$(marks_seen 6)" 0
	assert_eq "its warnings about marks" "$(grep -c "not reading marks:" "$TMPD/exp-6.out")" 1
	for i in 2 3 4 5 6; do
		kill -TERM "${exp_pid[$i]}"
		wait "${exp_pid[$i]}" || fail "exporter $i did not end well"
	done
	assert_eq "slots at the end" "$(reader_slots)" 0
}

# marks_dropped N : the drops exporter N's own ring has counted.
marks_dropped() {
	curl -sf "http://127.0.0.1:${exp_port[$1]}/metrics" |
		awk '/^mplane_events_dropped_total\{node="marks",source="marks"\}/ { n = $2 }
		     END { print n + 0 }'
}

# (h) An exporter that falls behind loses only its own records, and
# says how many, live: stopped through a burst larger than its 1 MiB
# ring, what it then counts and what it says it dropped add up to the
# burst; a recorder beside it accounts for the burst in its own ring.
test_exporter_counts_its_drops() {
	local f=$TMPD/behind.cap n=30000 seen dropped
	rm -rf "$MARKS"
	drain_marks
	exporter_start 7
	record "$f" --pin "$MARKS" --poll-hz 0
	kill -STOP "${exp_pid[7]}"
	"$MPLANECTL" mark step --repeat $n 13 || { kill -CONT "${exp_pid[7]}"; fail "burst"; }
	kill -CONT "${exp_pid[7]}"
	slowwait 20 sh -c "[ \$(( \$(curl -sf http://127.0.0.1:${exp_port[7]}/metrics |
		awk '/^mplane_events_(total{node=\"marks\",source=\"marks\",type=\"step_mark\"}|dropped_total{node=\"marks\",source=\"marks\"})/ { n += \$2 } END { print n + 0 }') )) -eq $n ]" ||
		fail "seen $(marks_seen 7) + dropped $(marks_dropped 7), want $n"
	seen=$(marks_seen 7) dropped=$(marks_dropped 7)
	log "the stopped exporter: $seen seen, $dropped dropped of $n"
	assert_ge "its drops" "$dropped" 1
	rec_stop "$f"
	dump "$f"
	# The recorder's own ring is mp_events: what it read and what that
	# ring refused are the burst (all read, on an idle machine).
	assert_eq "the recorder's marks and its ring's drops" \
		"$(( $(jq -s '[.[] | select(.frame == "event" and .step_index == 13)] | length' "$f.jsonl") +
		    $(jq -s '[.[] | select(.frame == "stats")][0].dropped' "$f.jsonl") ))" $n
	kill -TERM "${exp_pid[7]}"
	wait "${exp_pid[7]}" || fail "exporter 7 did not end well"
}

# (f) RDMA hw_counters, named as the kernel names them.
test_rdma_counters() {
	local f=$TMPD/rdma.cap n
	compgen -G "/sys/class/infiniband/*/ports/*/hw_counters/*" >/dev/null ||
		skip "no RDMA device with hw_counters (selftests/kmod/telemetry_rdma.sh makes one with rdma_rxe)"
	"$MPLANECTL" -j telemetry record -o "$f" --pin "$TMPD/no-rings" \
		--poll-hz 100 --poll-ifaces lo --rdma --duration 0.5 \
		>"$f.json" 2>"$f.err" || fail "record: $(cat "$f.err")"
	dump "$f"
	n=$(find /sys/class/infiniband/*/ports/*/hw_counters/ -type f ! -name lifespan | wc -l)
	assert_eq "RDMA counters" \
		"$(jq -s '[.[] | select(.frame == "counter_name" and .kind == "rdma")] | length' "$f.jsonl")" "$n"
}

# A capture is its owner's alone: made 0600 whatever the umask, made so
# again when it was there with wider modes, and never written through a
# symbolic link planted at its path (exit 1, the link's target intact).
test_capture_private() {
	local f=$TMPD/private.cap t=$TMPD/target
	(umask 022 && "$MPLANECTL" -j telemetry record -o "$f" --pin "$TMPD/no-rings" \
		--poll-hz 10 --poll-ifaces lo --duration 0.1 >/dev/null 2>"$f.err") || fail "record: $(cat "$f.err")"
	assert_eq "mode of a new capture" "$(stat -c %a "$f")" 600
	chmod 644 "$f"
	"$MPLANECTL" -j telemetry record -o "$f" --pin "$TMPD/no-rings" --poll-hz 10 --poll-ifaces lo \
		--duration 0.1 >/dev/null 2>"$f.err" || fail "record again: $(cat "$f.err")"
	assert_eq "mode of a capture written over" "$(stat -c %a "$f")" 600
	echo precious >"$t"
	ln -s "$t" "$TMPD/link.cap"
	expect_fail_msg "a symbolic link" \
		"$TMPD/link.cap: a symbolic link: a capture is not written through one" \
		"$MPLANECTL" -j telemetry record -o "$TMPD/link.cap" --pin "$TMPD/no-rings" \
		--poll-hz 10 --poll-ifaces lo --duration 0.1
	assert_eq "the link's target" "$(cat "$t")" precious
	# A header whose host fills all 64 bytes, with no NUL: read as its
	# first 63, not on into what follows.
	printf 'h%.0s' $(seq 64) | dd of="$f" bs=1 seek=24 conv=notrunc status=none
	assert_eq "an unterminated host" \
		"$("$MPLANECTL" -j telemetry report "$f" | jq -r '.host | length')" 63
	# A counter's id sizes dump's table: the last a poller can give is
	# taken, one past it is a bad frame, not a table of 2^24 entries.
	counter_name_frame() {
		python3 -c 'import struct, sys
name = b"x\0"
p = struct.pack("=III", int(sys.argv[1]), 0, 0) + name
sys.stdout.buffer.write(struct.pack("=IHH", len(p), 4, 0) + p + bytes(-len(p) % 8))' "$1"
	}
	{ head -c 88 "$f"; counter_name_frame 65535; } >"$TMPD/id-last.cap"
	"$MPLANECTL" -j telemetry dump "$TMPD/id-last.cap" >/dev/null 2>"$TMPD/id.err" ||
		fail "counter id 65535: $(cat "$TMPD/id.err")"
	{ head -c 88 "$f"; counter_name_frame 65536; } >"$TMPD/id-over.cap"
	! "$MPLANECTL" -j telemetry dump "$TMPD/id-over.cap" >/dev/null 2>"$TMPD/id.err" ||
		fail "counter id 65536 taken"
	grep -q "damaged after frame 1" "$TMPD/id.err" || fail "counter id 65536: $(cat "$TMPD/id.err")"
}

# (g) The kmod relay's events name devices of every namespace (hdr.flags
# is the namespace inode), so its source names them all: CF_NETNS for
# ours ("") and each one under /run/netns, CF_IFNAME with the inode.  The
# relay needs mplane.ko; any ring pinned as kmod/mp_events below a
# scratch pin root is that source to the feed, so the marks ring is.  The
# scratch root is a bpffs of its own: nobody else's feed walks it.
test_kmod_netns_names() {
	local f=$TMPD/netns.cap scr id ino1 ino2 home n1 n2
	drain_marks
	scr=$TMPD/bpffs
	mkdir "$scr"
	mount -t bpf bpf "$scr" || fail "mount a scratch bpffs"
	echo "$scr" >>"$TMPD/mounts"
	mkdir "$scr/kmod"
	id=$(bpftool -j map show pinned "$MARKS/mp_events" | jq .id)
	bpftool map pin id "$id" "$scr/kmod/mp_events" || fail "pin the marks ring as kmod"
	setup_ns n1 n2
	veth_pair "$n1" nsa0 "$n2" nsb0 || fail "veth between $n1 and $n2"
	ino1=$(stat -L -c %i "/run/netns/$n1")
	ino2=$(stat -L -c %i "/run/netns/$n2")
	home=$(stat -L -c %i /proc/self/ns/net)
	record "$f" --pin "$scr" --poll-hz 0
	"$MPLANECTL" mark step 9 || fail "mark step 9"
	rec_stop "$f"
	dump "$f"
	jq -c 'select(.frame == "netns")' "$f.jsonl" >"$TMPD/netns"
	log "$(wc -l <"$TMPD/netns") netns frames; ours $home, $n1 $ino1, $n2 $ino2"
	jq -s -e 'all(.[]; .label == "kmod")' "$TMPD/netns" >/dev/null ||
		fail "netns frames of another source: $(cat "$TMPD/netns")"
	assert_eq "netns frames naming ours" 		"$(jq -s --argjson i "$home" '[.[] | select(.inode == $i and .name == "")] | length' "$TMPD/netns")" 1
	assert_eq "netns frames naming $n1" 		"$(jq -s --arg n "$n1" '[.[] | select(.name == $n) | .inode]' -c "$TMPD/netns")" "[$ino1]"
	assert_eq "netns frames naming $n2" 		"$(jq -s --arg n "$n2" '[.[] | select(.name == $n) | .inode]' -c "$TMPD/netns")" "[$ino2]"
	assert_eq "inodes named twice" 		"$(jq -s '[.[].inode] | length - (unique | length)' "$TMPD/netns")" 0
	# Each namespace's links, with its inode; lo is ifindex 1 in both.
	assert_eq "nsa0 of $n1" "$(jq -s -c '[.[] | select(.frame == "ifname" and
		.label == "kmod" and .name == "nsa0") | .netns_inode]' "$f.jsonl")" "[$ino1]"
	assert_eq "nsb0 of $n2" "$(jq -s -c '[.[] | select(.frame == "ifname" and
		.label == "kmod" and .name == "nsb0") | .netns_inode]' "$f.jsonl")" "[$ino2]"
	assert_eq "lo of both, and of ours as 0" "$(jq -s -c --argjson a "$ino1" \
		--argjson b "$ino2" '[.[] | select(.frame == "ifname" and
		.label == "kmod" and .name == "lo" and .ifindex == 1 and
		(.netns_inode == $a or .netns_inode == $b or .netns_inode == 0)) | .netns_inode] | sort' \
		"$f.jsonl")" "$(printf '%s\n' 0 "$ino1" "$ino2" | sort -n | jq -s -c .)"
	# The rest of the source is as before: its events are there.
	jq -s -e 'any(.[]; .frame == "event" and .label == "kmod" and
		.type == "step_mark" and .step_index == 9)' "$f.jsonl" >/dev/null ||
		fail "no step 9 from the kmod-pinned ring"
}

test_refusals() {
	expect_fail_msg "no -o" "no output file" "$MPLANECTL" telemetry record
	expect_fail_msg "bad iface" "--poll-ifaces 'nosuch0'" \
		"$MPLANECTL" telemetry record -o "$TMPD/x" --poll-ifaces nosuch0 --duration 0.1
	expect_fail_msg "ethtool without pollers" "need the pollers" \
		"$MPLANECTL" telemetry record -o "$TMPD/x" --poll-hz 0 --ethtool
	printf 'not a capture at all, no' >"$TMPD/bad"
	expect_fail_msg "bad magic" "not a telemetry capture" \
		"$MPLANECTL" telemetry dump "$TMPD/bad"
	expect_fail_msg "unwritable" "/nonexistent/x" \
		"$MPLANECTL" telemetry record -o /nonexistent/x --duration 0.1
}

[ -x "$MPLANECTL" ] || skip "no $MPLANECTL (make tools)"
# The debug kernel's share (selftests/kmod/bpf.sh).
QUICK_TESTS="test_drops_exact"
# shellcheck disable=SC2086 # TESTS is a list of names
ktap_run ${TESTS:-test_step_mark_recorded test_record_report_round_trip test_poller_series test_ethtool_counters \
	test_sources_merge test_drops_exact test_drops_exact_throttled test_rdma_counters \
	test_reader_killed test_exporter_beside_recorder test_exporter_counts_its_drops \
	test_kmod_netns_names test_capture_private \
	test_refusals}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# soak.sh: an hour of mixed work on a BPF fabric (make bench; natively
# on the running kernel), and what must not drift through it:
#
#   - the work, in turns: an allreduce and an alltoall of the collective
#     engine (each checked), a flap of a host's port, and ar's policy
#     changed (detached and attached again: ecmp, ar, flowlet in turn);
#   - beside it, the long-running mplanectl processes: the live exporter
#     (scraped every second), 'telemetry record' and 'mark serve' (a mark
#     a step through it);
#   - the goals: every collective verified; the resident set of each
#     long-running process, from the end of the first tenth of the run
#     to its end, within 10 % (VmRSS in /proc/PID/status); no counter of
#     any scrape (a *_total series) lower than in the scrape before.
#
# SOAK_S sets the length (default 3600).  Prints KTAP; the figures go to
# $OUT (.build/bench/soak.txt).
# shellcheck source-path=SCRIPTDIR source=../selftests/lib/lib.sh
source "$(dirname "$0")/../selftests/lib/lib.sh"

MPLANECTL=$MPLANE_BUILD/mplanectl
OUT=${MPLANE_BENCH_SOAK_OUT:-$MPLANE_BUILD/bench/soak.txt}
SOAK_S=${SOAK_S:-3600}
FAB=mps$$
PORT=$((30000 + RANDOM % 20000))
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-bench-soak.XXXXXX")

# The long runners read the rings every test shares (the marks'): one
# left behind would take other programs' events.  Their pids are in
# $TMPD/pids, as the test runs in a subshell of its own.
stop_long_runners() {
	local p
	[ -f "$TMPD/pids" ] || return 0
	signal_pids_in "$TMPD/pids" INT
	while read -r p; do
		busywait 10000 sh -c "! kill -0 $p 2>/dev/null" ||
			kill -KILL "$p" 2>/dev/null || true
	done <"$TMPD/pids"
	rm -f "$TMPD/pids"
}

cleanup() {
	stop_long_runners
	"$MPLANECTL" fabric down --prefix $FAB >/dev/null 2>&1
	rm -rf "$TMPD"
	_lib_exit
}
trap cleanup EXIT

mkdir -p "$(dirname "$OUT")"
: >"$OUT"

# rss PID: its resident set in KiB.
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }

# scrape N: the exporter's counters (every *_total sample) in
# $TMPD/scrape.N, "series value" a line.
scrape() {
	curl -sf --max-time 5 "http://127.0.0.1:$PORT/metrics" |
		awk '!/^#/ && $1 ~ /_total($|\{)/ { print $1, $2 }' |
		sort >"$TMPD/scrape.$1"
}

# backwards A B: the series of scrape B lower than in scrape A.
backwards() {
	join "$TMPD/scrape.$1" "$TMPD/scrape.$2" | awk '$3 + 0 < $2 + 0'
}

# sleep_until US: sleep until EPOCHREALTIME reaches US microseconds.
sleep_until() {
	local left=$(($1 - ${EPOCHREALTIME/./}))
	(( left > 0 )) || return 0
	sleep "$((left / 1000000)).$(printf %06d $((left % 1000000)))"
}

# scraper: once a second, on the second's schedule (a scrape that takes
# a while does not push the next ones later), until $TMPD/stop, a scrape
# checked against the one before; the series that went backwards go to
# $TMPD/backwards, the count to $TMPD/scrapes.  A scrape still running
# when its successor is due makes the schedule skip a second, which the
# count shows.
scraper() {
	local n=0 next=${EPOCHREALTIME/./} now
	while [ ! -e "$TMPD/stop" ]; do
		if scrape $((n + 1)); then
			(( n == 0 )) || backwards $n $((n + 1)) >>"$TMPD/backwards"
			rm -f "$TMPD/scrape.$n"
			n=$((n + 1))
		else
			echo "scrape $((n + 1)) failed" >>"$TMPD/backwards"
		fi
		echo $n >"$TMPD/scrapes"
		now=${EPOCHREALTIME/./}
		next=$((next + 1000000))
		(( next > now )) || next=$((now - (now - next) % 1000000 + 1000000))
		sleep_until $next
	done
}

start_long_runners() {
	"$MPLANECTL" telemetry export --listen "127.0.0.1:$PORT" \
		>"$TMPD/export.out" 2>&1 &
	export_pid=$!
	echo $export_pid >>"$TMPD/pids"
	"$MPLANECTL" telemetry record -o "$TMPD/soak.cap" --poll-hz 10 \
		>"$TMPD/record.out" 2>&1 &
	record_pid=$!
	echo $record_pid >>"$TMPD/pids"
	"$MPLANECTL" mark serve --socket "$TMPD/mark.sock" \
		>"$TMPD/serve.out" 2>&1 &
	serve_pid=$!
	echo $serve_pid >>"$TMPD/pids"
	slowwait 30 curl -sf "http://127.0.0.1:$PORT/metrics" -o /dev/null ||
		fail "the exporter does not serve: $(cat "$TMPD/export.out")"
	busywait 10000 test -S "$TMPD/mark.sock" || fail "mark serve has no socket"
}

# One turn of the work, by its number.
work() {
	local policies=(ecmp ar flowlet)
	"$MPLANECTL" mark step --socket "$TMPD/mark.sock" "$1" || return 1
	case $(($1 % 4)) in
	0)	"$MPLANECTL" -j collective run --prefix $FAB --op allreduce \
			-b 256K -e 256K -n 4 -w 1 >"$TMPD/coll.json" || return 1
		jq -e '.sizes | all(.verified)' "$TMPD/coll.json" >/dev/null ;;
	1)	"$MPLANECTL" -j collective run --prefix $FAB --op alltoall \
			-b 256K -e 256K -n 4 -w 1 >"$TMPD/coll.json" || return 1
		jq -e '.sizes | all(.verified)' "$TMPD/coll.json" >/dev/null ;;
	2)	"$MPLANECTL" fabric fault --prefix $FAB port p0l0:h0 flap \
			--count 1 --period 0.2 >/dev/null ;;
	3)	"$MPLANECTL" bpf detach --fabric $FAB >/dev/null &&
		"$MPLANECTL" bpf attach --fabric $FAB \
			--policy "${policies[$(($1 / 4 % 3))]}" >/dev/null ;;
	esac
}

test_soak() {
	local t0 now turn=0 n failed=0 warm_at base_e base_r base_s scraper_pid
	"$MPLANECTL" fabric up --prefix $FAB --quiet --no-mp0 --planes 2 \
		--leaves 2 --spines 2 --hosts 4 --rate 200mbit >/dev/null ||
		fail "fabric up"
	"$MPLANECTL" bpf attach --fabric $FAB --policy ar >/dev/null ||
		fail "ar on the fabric"
	trap 'touch "$TMPD/stop"; stop_long_runners; cleanup_all_ns' EXIT
	start_long_runners
	: >"$TMPD/backwards"
	scraper &
	scraper_pid=$!
	t0=$SECONDS
	warm_at=$((SOAK_S / 10))
	while (( (now = SECONDS - t0) < SOAK_S )); do
		work $turn || { failed=$((failed + 1)); log "turn $turn failed"; }
		turn=$((turn + 1))
		if [ -z "${base_e:-}" ] && (( now >= warm_at )); then
			base_e=$(rss $export_pid) base_r=$(rss $record_pid) base_s=$(rss $serve_pid)
			log "after $now s: RSS export $base_e KiB, record $base_r KiB, serve $base_s KiB"
		fi
	done
	local end_e end_r end_s
	end_e=$(rss $export_pid) end_r=$(rss $record_pid) end_s=$(rss $serve_pid)
	touch "$TMPD/stop"
	wait $scraper_pid
	stop_long_runners
	n=$(cat "$TMPD/scrapes")
	{
		echo "soak of $SOAK_S s: $turn turns ($failed failed), $n scrapes"
		echo "RSS KiB after the first tenth -> at the end:" \
			"export $base_e -> $end_e, record $base_r -> $end_r, serve $base_s -> $end_s"
	} | tee -a "$OUT" | sed 's/^/# /'
	[ ! -s "$TMPD/backwards" ] ||
		fail "counters went backwards: $(head -5 "$TMPD/backwards")"
	assert_eq "turns failed" "$failed" 0
	assert_ge "scrapes" "$n" $((SOAK_S * 9 / 10))
	assert_le "export's RSS (KiB)" "$end_e" $((base_e * 11 / 10))
	assert_le "record's RSS (KiB)" "$end_r" $((base_r * 11 / 10))
	assert_le "serve's RSS (KiB)" "$end_s" $((base_s * 11 / 10))
}

[ -x "$MPLANECTL" ] || skip "no $MPLANECTL (make tools)"
ktap_run test_soak

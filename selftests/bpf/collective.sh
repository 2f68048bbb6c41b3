#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 'mplanectl collective run' on the running kernel, over an 8-host fabric
# at 1gbit: every operation verified on 4 and 8 ranks, with the JSON's
# figures consistent (busbw = algbw x the operation's factor, count =
# size / 4, a time per rank); the text table; a rank killed with SIGKILL
# and one stopped with SIGSTOP, each ending the job with exit 1 and one
# line naming it, within the timeout, with no rank left in any host's
# namespace; usage errors with exit 2 and one line; two jobs side by side
# on disjoint hosts, and two on the same hosts and port; IPv6; and every
# timed iteration of every rank on the telemetry timeline, counted as a
# step.  TESTS="test_a test_b" runs only those.
# shellcheck source-path=SCRIPTDIR source=../lib/lib.sh
source "$(dirname "$0")/../lib/lib.sh"

MPLANECTL=$MPLANE_BUILD/mplanectl
MARKS=/sys/fs/bpf/mplane/marks
FAB=co$$
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-collective.XXXXXX")
OPS="allreduce allgather reduce_scatter broadcast alltoall permutation incast"
trap '_lib_exit; "$MPLANECTL" fabric down --prefix "$FAB" >/dev/null 2>&1; rm -rf "$TMPD"' EXIT

# Not for jobs in the background: $! would be a subshell's.
coll() { "$MPLANECTL" "$@"; }

need_fabric() {
	[ -f "/run/mplane/fabric/$FAB.json" ] && return 0
	coll fabric up -q --prefix "$FAB" --planes 1 --leaves 2 --spines 2 \
		--hosts 8 --rate 1gbit >/dev/null
}

# factor OP N: the busbw factor nccl-tests gives (incast: rank 0's link
# carries n-1 senders' bytes).
factor() {
	case $1 in
	allreduce) echo "2 * ($2 - 1) / $2" ;;
	allgather|reduce_scatter|alltoall) echo "($2 - 1) / $2" ;;
	incast) echo "$2 - 1" ;;
	*) echo 1 ;;
	esac
}

# check_json FILE OP N: every size verified, five sizes of 64K to 1M, and
# the figures of each consistent with each other.
check_json() {
	local f=$1 op=$2 n=$3
	jq -e --arg op "$op" --argjson n "$n" --argjson f "$(jq -n "$(factor "$op" "$n")")" '
		.op == $op and .nranks == $n and .transport != null and
		.verified == true and .wrong == 0 and (.hosts | length) == $n and
		([.sizes[].size] == [65536, 131072, 262144, 524288, 1048576]) and
		all(.sizes[];
			.verified == true and .wrong == 0 and .iters == 3 and
			.count * 4 == .size and .time_us > 0 and .algbw > 0 and
			((.busbw - .algbw * $f) | fabs) <= 1e-4 * .busbw and
			((.algbw - .size / .time_us / 1e3) | fabs) <= 1e-4 * .algbw and
			.p50_us <= .p99_us and .p99_us <= .max_us and
			.p01_busbw > 0 and .p01_busbw <= .busbw * 1.0001 and
			.slowest_rank >= 0 and .slowest_rank < $n and
			(.ranks | length) == $n and
			all(.ranks[]; .time_us > 0) and
			([.ranks[].rank] == [range($n)]) and
			.ranks[.slowest_rank].time_us == ([.ranks[].time_us] | max)) and
		.avg_busbw > 0 and .transport_stats.tx_bytes > 0 and
		.transport_stats.tx_bytes == .transport_stats.rx_bytes and
		(.transport_stats | .rtt_conns >= 1 and
			.rtt_min_us <= .srtt_min_us and .srtt_min_us <= .srtt_mean_us and
			.srtt_mean_us <= .srtt_max_us)' "$f" >/dev/null ||
		fail "$op on $n ranks: $(jq -c . "$f")"
}

# ops_verified TRANSPORT N: every operation on the first N hosts.
ops_verified() {
	local op rc
	need_fabric
	for op in $OPS; do
		run_rc rc coll -j collective run --prefix "$FAB" --hosts "$2" \
			--transport "$1" --op "$op" -b 64K -e 1M -n 3 -w 1 --no-marks
		assert_eq "$op on $2 ranks: exit ($ERR)" "$rc" 0
		assert_eq "$op: stderr" "$ERR" ""
		echo "$OUT" >"$TMPD/$op.json"
		check_json "$TMPD/$op.json" "$op" "$2"
	done
}

test_ops_tcp_4_ranks() { ops_verified tcp 4; }
test_ops_tcp_8_ranks() { ops_verified tcp 8; }

# The text table: the header, a row per size (and each rank's times),
# busbw = 1.5 algbw to the printed precision, the verdict and the mean.
test_text_table() {
	local rc rows
	need_fabric
	run_rc rc coll collective run --prefix "$FAB" --hosts h0,h2,h4,h6 \
		--op allreduce -b 64K -e 1M -n 3 -w 1 --no-marks
	assert_eq "exit ($ERR)" "$rc" 0
	echo "$OUT" | grep -q "^# collective allreduce over 4 ranks (h0,h2,h4,h6), transport tcp, fabric $FAB$" ||
		fail "header: $OUT"
	rows=$(echo "$OUT" | awk '!/^#/ && NF == 13 && $3 == "float" && $4 == "sum" && $8 == 0 &&
		($7 - $6 * 1.5 <= 0.016) && ($6 * 1.5 - $7 <= 0.016)' | wc -l)
	assert_eq "consistent rows" "$rows" 5
	assert_eq "rank lines" "$(echo "$OUT" | grep -c "^#   each rank's mean time (us): h0 [0-9.]* h2 [0-9.]* h4 [0-9.]* h6 [0-9.]*$")" 5
	echo "$OUT" | grep -q "^# Wrong elements       : 0 (verified: true)$" || fail "verdict: $OUT"
	echo "$OUT" | grep -Eq "^# Avg bus bandwidth    : [0-9]+\.[0-9]{2}$" || fail "average: $OUT"
}

# has_rank HOST: a process runs in HOST's namespace.
has_rank() { [ -n "$(ip netns pids "$FAB-$1")" ]; }

# no_ranks_left: no process in any host's namespace.
no_ranks_left() {
	local h
	for h in 0 1 2 3 4 5 6 7; do
		[ -z "$(ip netns pids "$FAB-h$h")" ] || fail "left in h$h: $(ip netns pids "$FAB-h$h")"
	done
}

# long_job: a job that would run for minutes on h0..h3, in the
# background (job_pid), once its rank in h2 is connected.
long_job() {
	need_fabric
	"$MPLANECTL" collective run --prefix "$FAB" --hosts 4 --op allreduce \
		-b 256K -e 256K -n 1000000 -w 0 --timeout 3 --no-marks \
		>"$TMPD/long.out" 2>"$TMPD/long.err" &
	job_pid=$!
	busywait 5000 connected || fail "rank 2 never connected: $(cat "$TMPD/long.err")"
}

# connected: rank 2 of long_job has its three connections.
connected() {
	[ "$(ss -N "$FAB-h2" -Htn state established | wc -l)" -ge 3 ]
}

# job_end: the job's exit status (job_rc) and how long it took to end
# after now (job_ms).
job_end() {
	local t0=${EPOCHREALTIME/./}
	wait "$job_pid" && job_rc=0 || job_rc=$?
	job_ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
}

test_rank_killed() {
	local pid
	long_job
	pid=$(ip netns pids "$FAB-h2")
	kill -KILL "$pid"
	job_end
	assert_eq "exit" "$job_rc" 1
	assert_eq "stderr" "$(cat "$TMPD/long.err")" \
		"mplanectl: collective run: rank 2 (h2) was killed by signal 9 (Killed)"
	assert_le "ended in (ms)" "$job_ms" 3000
	no_ranks_left
}

test_rank_stopped() {
	local pid
	long_job
	pid=$(ip netns pids "$FAB-h1")
	kill -STOP "$pid"
	job_end
	assert_eq "exit" "$job_rc" 1
	grep -Eq "^mplanectl: collective run: rank 1 \(h1\) did not answer for [3-5]\.[0-9] s \(its process is stopped\)$" \
		"$TMPD/long.err" || fail "stderr: $(cat "$TMPD/long.err")"
	assert_eq "lines" "$(wc -l <"$TMPD/long.err")" 1
	# --timeout 3, and the ranks that time out waiting for it.
	assert_le "ended in (ms)" "$job_ms" 5500
	no_ranks_left
}

# expect_usage MSG ARGS...: exit 2, and MSG as the first line of stderr.
expect_usage() {
	local want=$1 rc
	shift
	run_rc rc coll collective run --prefix "$FAB" "$@"
	assert_eq "'$*': exit" "$rc" 2
	assert_eq "'$*': message" "$(echo "$ERR" | head -1)" "mplanectl: collective run: $want"
	assert_eq "'$*': stdout" "$OUT" ""
}

test_usage_errors() {
	need_fabric
	expect_usage "bad --op 'foo': want one of allreduce, allgather, reduce_scatter, broadcast, alltoall, permutation, incast" --op foo
	expect_usage "missing --op: want one of allreduce, allgather, reduce_scatter, broadcast, alltoall, permutation, incast" -b 1M
	expect_usage "bad --minbytes '1Q': want a size such as 4096, 64K or 1M, from 1 to 1073741824 bytes" --op allreduce -b 1Q
	expect_usage "bad --maxbytes '2G': want a size such as 4096, 64K or 1M, from 1 to 1073741824 bytes" --op allreduce -e 2G
	expect_usage "bad -b/--minbytes 4194304: more than -e/--maxbytes 1048576" --op allreduce -b 4M -e 1M
	expect_usage "bad --stepfactor '1': want an integer from 2 to 1024" --op allreduce -f 1
	expect_usage "bad --hosts 'h0,h9': fabric $FAB has no host h9 (its hosts are h0 to h7)" --op allreduce --hosts h0,h9
	expect_usage "bad --hosts 'h1,h1': h1 twice" --op allreduce --hosts h1,h1
	expect_usage "bad --hosts 'x1': want host names such as h0,h1,h3, or a number of hosts" --op allreduce --hosts x1
	expect_usage "bad --hosts '1': want a number of hosts from 2 to 256, or a list such as h0,h1,h3" --op allreduce --hosts 1
	expect_usage "bad --hosts '9': fabric $FAB has 8 hosts" --op allreduce --hosts 9
	expect_usage "bad --transport 'ib': want one of tcp, roce" --op allreduce --transport ib
	expect_usage "-n/--iters and --duration exclude each other: a timed run's iterations are what fits" --op incast -n 5 --duration 1
	expect_usage "bad --sndbuf '1K': want a size such as 4096, 64K or 1M, from 4096 to 1073741824 bytes" --op allreduce --transport roce --sndbuf 1K
	expect_usage "--sndbuf is the roce transport's: TCP keeps its own queue below the socket short (TCP small queues)" --op allreduce --sndbuf 64K
	no_ranks_left
}

# A victim and a background job on disjoint hosts at once: the victim
# starts and ends while the background runs, and both verify.  Then two
# jobs on the same two hosts and the same port.
test_side_by_side() {
	local bg rc
	need_fabric
	"$MPLANECTL" -j collective run --prefix "$FAB" --hosts h4,h5,h6,h7 --op incast \
		-e 1M --duration 3 -w 1 --no-marks >"$TMPD/bg.json" 2>"$TMPD/bg.err" &
	bg=$!
	busywait 5000 has_rank h7 ||
		fail "no background rank: $(cat "$TMPD/bg.err" "$TMPD/bg.json")"
	run_rc rc coll -j collective run --prefix "$FAB" --hosts h0,h1,h2,h3 \
		--op allreduce -b 64K -e 1M -n 3 -w 1 --no-marks
	assert_eq "victim: exit ($ERR)" "$rc" 0
	kill -0 "$bg" || fail "the background job ended before the victim"
	echo "$OUT" >"$TMPD/victim.json"
	check_json "$TMPD/victim.json" allreduce 4
	wait "$bg" || fail "background: $(cat "$TMPD/bg.err")"
	jq -e '.verified == true and .duration_s == 3 and .iters == null and
		(.sizes | length) == 1 and .sizes[0].size == 1048576 and
		.sizes[0].iters >= 2' "$TMPD/bg.json" >/dev/null ||
		fail "background: $(cat "$TMPD/bg.json")"
	"$MPLANECTL" -j collective run --prefix "$FAB" --hosts h0,h1 --op alltoall \
		-b 1M -e 1M -n 20 --no-marks >"$TMPD/a.json" &
	bg=$!
	run_rc rc coll -j collective run --prefix "$FAB" --hosts h1,h0 --op allgather \
		-b 1M -e 1M -n 20 --no-marks
	assert_eq "same hosts: exit ($ERR)" "$rc" 0
	wait "$bg" || fail "first of the same hosts"
	assert_eq "both verified" "$(jq .verified "$TMPD/a.json")$(echo "$OUT" | jq .verified)" truetrue
}

# listening HOST PORT: a TCP listener on PORT in HOST's namespace.
listening() {
	[ -n "$(ss -N "$FAB-$1" -Hltn "sport = :$2")" ]
}

# A job whose setup is stuck holds a port only where a higher rank of its
# own may still connect, never on its last rank's host: a foreign
# listener on h0 (it takes connections and never answers) keeps job X
# (h0,h1) in setup, and job Y (h1,h2) on the same port runs meanwhile.
# Then the foreign listener goes, and X's setup retries and completes.
# Before the fix, X's last rank held h1's port and Y timed out; two jobs
# on the same hosts in other orders could so hold each other's port.
test_stuck_setup_port() {
	local port=18600 lsn x rc
	need_fabric
	ip netns exec "$FAB-h0" python3 -c "
import socket, time
s = socket.socket(); s.bind(('', $port)); s.listen(8); time.sleep(30)" &
	lsn=$!
	busywait 5000 listening h0 "$port" || fail "no foreign listener"
	"$MPLANECTL" -j collective run --prefix "$FAB" --hosts h0,h1 --port "$port" \
		--op allreduce -b 64K -e 64K -n 3 -w 1 --timeout 20 --no-marks \
		>"$TMPD/x.json" 2>"$TMPD/x.err" &
	x=$!
	busywait 5000 has_rank h1 || fail "no rank of X on h1: $(cat "$TMPD/x.err")"
	sleep 0.5
	listening h1 "$port" && fail "X's last rank holds h1's port"
	run_rc rc coll -j collective run --prefix "$FAB" --hosts h1,h2 --port "$port" \
		--op allreduce -b 64K -e 64K -n 3 -w 1 --timeout 5 --no-marks
	assert_eq "Y beside X's stuck setup: exit ($ERR)" "$rc" 0
	kill -0 "$x" || fail "X ended while h0's port was held: $(cat "$TMPD/x.err")"
	kill "$lsn"
	wait "$x" || fail "X after the foreign listener went: $(cat "$TMPD/x.err")"
	assert_eq "both verified" "$(jq .verified "$TMPD/x.json")$(echo "$OUT" | jq .verified)" truetrue
}

test_ipv6() {
	local rc
	need_fabric
	run_rc rc coll -j collective run --prefix "$FAB" --hosts h3,h6 --family 6 \
		--op allreduce -b 64K -e 64K -n 3 -w 1 --no-marks
	assert_eq "exit ($ERR)" "$rc" 0
	assert_eq "verified" "$(echo "$OUT" | jq '.sizes[0].verified')" true
}

# Every timed iteration of every rank is a begin and an end event on the
# timeline, with the job's pid, the op, the rank and the bytes; the
# telemetry report counts each as a step of its rank.
test_timeline() {
	local rc n=4 iters=3 sizes=2 want job
	need_fabric
	want=$((n * iters * sizes * 2))
	coll mark step 0 >/dev/null || fail "loading the marks program"
	coll events --pin "$MARKS" --duration 0.2 >/dev/null 2>&1 || true
	rm -f "$TMPD/rec.ready"
	"$MPLANECTL" -j telemetry record -o "$TMPD/rec.cap" --poll-hz 0 \
		--ready-file "$TMPD/rec.ready" >"$TMPD/rec.json" 2>"$TMPD/rec.err" &
	rec=$!
	slowwait 30 test -e "$TMPD/rec.ready" || fail "record not ready: $(cat "$TMPD/rec.err")"
	"$MPLANECTL" -j collective run --prefix "$FAB" --hosts "$n" --op reduce_scatter \
		-b 64K -e 128K -n "$iters" -w 2 >"$TMPD/tl.json" 2>"$TMPD/tl.err" &
	job=$!
	wait "$job" || fail "job: $(cat "$TMPD/tl.err")"
	kill -INT "$rec"
	wait "$rec" || fail "record: $(cat "$TMPD/rec.err")"
	coll telemetry dump "$TMPD/rec.cap" >"$TMPD/rec.jsonl"
	jq -s -e --argjson job "$job" --argjson n "$n" --argjson want "$want" '
		[.[] | select(.frame == "event" and .type == "collective" and .ifindex == $job)] as $e |
		($e | length) == $want and
		all($e[]; .flags == 2 and (.bytes == 65536 or .bytes == 131072)) and
		([$e[] | .rank] | unique) == [range($n)] and
		([$e[] | select(.kind_id == 0 and .kind == "step")] | length) == $want / 2 and
		([$e[] | .iteration] | unique) == [range($want / $n / 2)]' \
		"$TMPD/rec.jsonl" >/dev/null ||
		fail "events: $(grep collective "$TMPD/rec.jsonl" | head -5)"
	coll -j telemetry report "$TMPD/rec.cap" >"$TMPD/rec.report"
	assert_eq "steps" "$(jq .step_times.count "$TMPD/rec.report")" $((want / 2))
	assert_eq "ranks" "$(jq .step_ranks "$TMPD/rec.report")" "$n"
}

# shellcheck disable=SC2086 # TESTS is a list of names
ktap_run ${TESTS:-test_ops_tcp_4_ranks test_ops_tcp_8_ranks test_text_table \
	test_rank_killed test_rank_stopped test_usage_errors test_side_by_side \
	test_stuck_setup_port \
	test_ipv6 test_timeline}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A real framework's collectives: Debian's python3-torch, backend gloo,
# trains a small MLP with one rank per host of a one-plane fabric,
# averaging its gradients by all_reduce over the hosts' rails
# (tools/torch/launch.sh, allreduce_train.py).  Every rank must end with
# bitwise the same parameters, one step mark pair per step per rank must
# be on the timeline, a rank whose parameters diverge must fail the job,
# and a rank that dies must end it at once, leaving nothing behind.
# Skipped when python3-torch is not installed (scripts/deps.sh torch).
# shellcheck source-path=SCRIPTDIR source=../lib/lib.sh
source "$(dirname "$0")/../lib/lib.sh"

MPLANECTL=$MPLANE_BUILD/mplanectl
LAUNCH=$MPLANE_ROOT/tools/torch/launch.sh
MARKS=/sys/fs/bpf/mplane/marks
FAB=tt$$
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-torch.XXXXXX")
SOCK=$TMPD/mark.sock
# Small enough for any machine: a 64K-float model, a few steps.
STEPS=5
TRAIN=(--floats 64K --depth 2 --steps "$STEPS" --warmup 2 --timeout 30)
trap '_lib_exit; "$MPLANECTL" fabric down --prefix $FAB >/dev/null 2>&1; rm -rf "$TMPD"' EXIT

need_fabric() {
	[ -f "/run/mplane/fabric/$FAB.json" ] && return 0
	"$MPLANECTL" fabric up -q --prefix "$FAB" --planes 1 --leaves 1 \
		--spines 1 --hosts 3 --rate 1gbit >/dev/null || fail "fabric up"
}

# launch OUT ARGS...: the job on the fabric; its status in $rc, its
# stderr in OUT.err.
launch() {
	local out=$1
	shift
	rc=0
	bash "$LAUNCH" --prefix "$FAB" --timeout 120 "$@" >"$out" 2>"$out.err" || rc=$?
}

# Three ranks, each marking its steps through 'mark serve' while the
# timeline is recorded: verified, identical, trained, and marked.
test_train_verified_and_marked() {
	local f=$TMPD/job.json cap=$TMPD/marks.cap pids
	need_fabric
	"$MPLANECTL" mark serve --socket "$SOCK" 2>"$TMPD/serve.err" &
	serve_pid=$!
	trap 'kill $serve_pid $rec_pid 2>/dev/null || true' EXIT
	busywait 5000 test -S "$SOCK" || fail "no mark socket"
	# Marks left in the ring by earlier runs would be recorded too.
	"$MPLANECTL" events --pin "$MARKS" --duration 0.2 >/dev/null 2>&1 || true
	"$MPLANECTL" -j telemetry record -o "$cap" --pin "$MARKS" --type step_mark \
		--poll-hz 0 --ready-file "$cap.ready" >"$cap.json" 2>"$cap.err" &
	rec_pid=$!
	slowwait 30 test -e "$cap.ready" || fail "record not ready: $(cat "$cap.err")"
	launch "$f" --port 29501 -- "${TRAIN[@]}" --mark-socket "$SOCK"
	kill -INT "$rec_pid"
	wait "$rec_pid" || fail "record: $(cat "$cap.err")"
	kill "$serve_pid"
	wait "$serve_pid"
	assert_eq "job status ($(cat "$f.err"))" "$rc" 0
	log "$(jq -c '.job' "$f")"
	assert_eq "verified" "$(jq .job.verified "$f")" true
	assert_eq "ranks" "$(jq '.ranks | length' "$f")" 3
	assert_eq "parameters differing" "$(jq '[.ranks[].params_differ] | add' "$f")" 0
	assert_eq "wrong sums" "$(jq '[.ranks[].allreduce_wrong] | add' "$f")" 0
	assert_eq "one parameter sum" "$(jq '[.ranks[].param_sum] | unique | length' "$f")" 1
	jq -e '.ranks | all(.[]; .param_change > 0 and .busbw > 0 and
		.step_times.p50_us >= .allreduce_times.p50_us and .marks_sent == 2 * .step_count and
		.marks_dropped == 0)' "$f" >/dev/null || fail "ranks: $(jq -c '.ranks' "$f")"
	# On the timeline: per rank's pid, STEP then STEP_END of each step
	# in order, and 'telemetry report' counts their step times.
	pids=$(jq -c '[.ranks[].pid]' "$f")
	"$MPLANECTL" telemetry dump --sorted "$cap" >"$cap.jsonl" || fail "dump"
	assert_eq "marks per rank" "$(jq -s -c --argjson p "$pids" '[$p[] as $pid |
		[.[] | select(.frame == "event" and .type == "step_mark" and .pid == $pid) |
		 "\(.step_index)\(["s", "e"][.kind_id])"] | join(" ")] | unique' "$cap.jsonl")" \
		'["0s 0e 1s 1e 2s 2e 3s 3e 4s 4e"]'
	"$MPLANECTL" -j telemetry report "$cap" >"$cap.report" || fail "report"
	assert_ge "processes with steps" "$(jq .step_pids "$cap.report")" 3
	assert_ge "step times" "$(jq .step_times.count "$cap.report")" $((3 * (STEPS - 1)))
	grep -q "$((6 * STEPS)) marks relayed, 0 datagrams refused" "$TMPD/serve.err" ||
		fail "serve: $(cat "$TMPD/serve.err")"
}

# A rank whose parameters drift from the others' fails the check, and
# the job with it: a wrong result is never reported as bandwidth.
test_diverged_replicas_fail() {
	local f=$TMPD/diverge.json
	need_fabric
	launch "$f" --hosts h0,h1 --port 29502 -- "${TRAIN[@]}" --fault diverge
	assert_eq "status" "$rc" 1
	grep -q "rank [01] on h[01] failed (status 1): .*1 parameters differ between ranks" "$f.err" ||
		fail "message: $(cat "$f.err")"
}

# A rank that dies ends the job at once, named, with no rank left.
test_dead_rank_ends_job() {
	local f=$TMPD/dead.json t0=$SECONDS
	need_fabric
	launch "$f" --port 29503 -- "${TRAIN[@]}" --fault exit
	assert_eq "status" "$rc" 1
	grep -q "^launch.sh: rank 2 on h2 failed (status 3)" "$f.err" ||
		fail "message: $(cat "$f.err")"
	[ $((SECONDS - t0)) -lt 60 ] || fail "took $((SECONDS - t0)) s: no faster than the collectives' timeout"
	! pgrep -f "allreduce_train.py .*--master 10.100.0.2:29503" >/dev/null ||
		fail "ranks left: $(pgrep -af "allreduce_train.py .*--master 10.100.0.2:29503")"
}

[ -x "$MPLANECTL" ] || skip "no $MPLANECTL (make tools)"
dpkg-query -W -f='${db:Status-Status}' python3-torch 2>/dev/null | grep -qx installed ||
	skip "python3-torch is not installed (scripts/deps.sh torch)"
ktap_run test_train_verified_and_marked test_diverged_replicas_fail test_dead_rank_ends_job

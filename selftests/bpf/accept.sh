#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 'mplanectl accept' on the running kernel, at the size a 2-core machine
# can show: the baseline class over 4 hosts in one plane of 2 leaves and
# 2 spines at 50mbit, for ecmp and ar (the policies without mp0).
#   - ar's permutation, allreduce and alltoall reach at least 0.8 of the
#     limits the fabric was built with, every element checked, and the
#     expectations they meet PASS; one no fabric can meet (goodput above
#     the bisection) FAILs, with exit status 1; policies this host cannot
#     run are SKIPped, with why; text and JSON say the same;
#   - every mistake is exit 2 with one line: an unknown class or policy,
#     an expectations file's bad line (named);
#   - Ctrl-C in a step: exit 130, what was measured so far is printed,
#     and no namespace, process or state file of the fabric is left.
# TESTS="test_a test_b" runs only those.
# shellcheck source-path=SCRIPTDIR source=../lib/lib.sh
source "$(dirname "$0")/../lib/lib.sh"

MPLANECTL=$MPLANE_BUILD/mplanectl
FAB=ac$$
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-accept.XXXXXX")
trap '_lib_exit; "$MPLANECTL" fabric down --prefix "$FAB" >/dev/null 2>&1; rm -rf "$TMPD"' EXIT

SMALL=(--prefix "$FAB" --hosts 4 --planes 1 --leaves 2 --spines 2 --rate 50mbit
	-b 4M -n 3)

# The expectations of these tests: what 4 hosts at 50mbit can show, and
# one line no fabric meets.
cat >"$TMPD/expect.conf" <<'EOF'
# SPDX-License-Identifier: GPL-2.0
baseline  ar         permutation_goodput  >= 0.8
baseline  ar         allreduce_busbw      >= 0.8
baseline  ar         alltoall_busbw       >= 0.7
baseline  ecmp       permutation_goodput  > 1.0
baseline  ar+plb     permutation_goodput  >= 0.9
isolation ar+plb+cc  victim_step_ratio    <= 1.05
EOF

# left_behind: what of fabric $FAB is still there, or nothing.
left_behind() {
	ip netns list | awk -v p="$FAB-" 'index($1, p) == 1 { print "netns " $1 }'
	[ -e "/run/mplane/fabric/$FAB.json" ] && echo "state file"
	pgrep -f -- "--prefix $FAB" | sed 's/^/pid /'
	true
}

test_baseline_verdicts() {
	local rc=0 j=$TMPD/run.json t=$TMPD/run.txt
	"$MPLANECTL" -j accept baseline "${SMALL[@]}" --policies ecmp,ar,ar+plb \
		--expect "$TMPD/expect.conf" >"$j" 2>"$TMPD/progress" || rc=$?
	assert_eq "exit status (one FAIL)" "$rc" 1
	jq -e . "$j" >/dev/null || fail "not JSON: $(head -c 300 "$j")"
	log "$(jq -c '[.policies[] | {policy, figures}]' "$j")"
	# ar's figures, against the physical limits: a figure over 1 would be
	# a wrong limit, not a fast fabric.
	jq -e '.policies[] | select(.policy == "ar") | .ran and
		(.figures | [.[]] | length == 3 and all(. >= 0.7 and . <= 1.0))' "$j" >/dev/null ||
		fail "ar's figures: $(jq -c '.policies[1].figures' "$j")"
	jq -e '.policies[] | select(.policy == "ar") |
		.steps | map(.step) == ["permutation", "allreduce", "alltoall"] and
		all(.limit_bps == 50000000 and .busbw_bps > 0)' "$j" >/dev/null ||
		fail "ar's steps: $(jq -c '.policies[1].steps' "$j")"
	jq -e '.policies[] | select(.policy == "ar+plb") | (.ran | not) and
		(.why_not | test("mplane.ko"))' "$j" >/dev/null || fail "ar+plb ran without mplane.ko"
	assert_eq "verdicts" "$(jq -r '[.verdicts[] | "\(.policy):\(.figure):\(.verdict)"] | join(" ")' "$j")" \
		"ar:permutation_goodput:PASS ar:allreduce_busbw:PASS ar:alltoall_busbw:PASS ecmp:permutation_goodput:FAIL ar+plb:permutation_goodput:SKIP"
	assert_eq "tally" "$(jq -c '[.passed, .failed, .skipped, .interrupted]' "$j")" "[3,1,1,false]"
	# Each expectation names its line.
	assert_eq "the FAIL's line" "$(jq '.verdicts[3].line' "$j")" 5
	grep -Eq "accept baseline: ar \(2 of 3\): alltoall, step 10 of 10, about [0-9]* s left" "$TMPD/progress" ||
		fail "progress: $(tail -n 3 "$TMPD/progress")"
	assert_eq "left behind" "$(left_behind)" ""
	# The text says the same, one PASS/FAIL/SKIP a line, then the tally;
	# ar, not asked for this time, is SKIPped too.
	rc=0
	"$MPLANECTL" accept baseline "${SMALL[@]}" -n 1 -b 1M --policies ecmp,ar+plb \
		--expect "$TMPD/expect.conf" >"$t" 2>/dev/null || rc=$?
	assert_eq "text: exit status" "$rc" 1
	grep -Eq '^  FAIL  ecmp +permutation_goodput +[0-9.]+ > 1 +\(line 5\)' "$t" ||
		fail "text FAIL line: $(grep FAIL "$t")"
	grep -Eq '^  SKIP  ar\+plb .*needs mp0, and mplane.ko is not loaded' "$t" ||
		fail "text SKIP line: $(grep SKIP "$t")"
	assert_eq "text tally" "$(tail -n 1 "$t")" "0 passed, 1 failed, 4 skipped"
}

# usage CMD...: exit status 2 and exactly one line of error, printed.
usage() {
	local rc=0
	"$MPLANECTL" "$@" >"$TMPD/out" 2>"$TMPD/err" || rc=$?
	assert_eq "$* exit status" "$rc" 2
	head -n 1 "$TMPD/err"
}

test_errors() {
	printf 'baseline ar permutation_goodput >= 0.9\nbaseline ar+pbl permutation_goodput >= 0.9\n' \
		>"$TMPD/bad.conf"
	assert_eq "no class" "$(usage accept)" \
		"mplanectl: accept: no class: want baseline, isolation, resiliency or scale"
	assert_eq "unknown class" "$(usage accept basline)" \
		"mplanectl: accept: unknown class 'basline': want baseline, isolation, resiliency or scale"
	assert_eq "unknown policy" "$(usage accept baseline --policies ecmp,arr)" \
		"mplanectl: accept: bad --policies: unknown policy 'arr': want bond, ecmp, dcqcn, ar, ar+plb or ar+plb+cc"
	assert_eq "bad line" "$(usage accept baseline --expect "$TMPD/bad.conf")" \
		"mplanectl: accept: $TMPD/bad.conf:2: unknown policy 'ar+pbl': want bond, ecmp, dcqcn, ar, ar+plb or ar+plb+cc"
	printf 'baseline ar victim_step_ratio <= 1.05\n' >"$TMPD/bad.conf"
	assert_eq "a figure of another class" "$(usage accept baseline --expect "$TMPD/bad.conf")" \
		"mplanectl: accept: $TMPD/bad.conf:1: baseline has no figure 'victim_step_ratio' (its figures: permutation_goodput, allreduce_busbw or alltoall_busbw)"
	assert_eq "odd hosts" "$(usage accept baseline --hosts 5)" \
		"mplanectl: accept: bad --hosts 5: the permutation pairs rank r with r + n/2, so want an even number"
	assert_eq "no fabric was built" "$(left_behind)" ""
}

test_interrupt_cleans_up() {
	local pid rc=0 j=$TMPD/int.json
	"$MPLANECTL" -j accept baseline "${SMALL[@]}" -b 16M --policies ar,ecmp \
		--expect "$TMPD/expect.conf" >"$j" 2>"$TMPD/progress" &
	pid=$!
	slowwait 60 grep -q "ar (1 of 2): allreduce" "$TMPD/progress" ||
		fail "never reached allreduce: $(tail -n 2 "$TMPD/progress")"
	sleep 1
	kill -INT "$pid"
	wait "$pid" || rc=$?
	assert_eq "exit status" "$rc" 130
	grep -q "interrupted: the figures above are what was measured" "$TMPD/progress" ||
		fail "no word of the interruption: $(tail -n 2 "$TMPD/progress")"
	# The permutation was measured before the stop, and is kept.
	jq -e '.interrupted and (.policies | length) == 1 and
		(.policies[0].figures.permutation_goodput > 0) and
		.policies[0].figures.allreduce_busbw == null' "$j" >/dev/null ||
		fail "what was kept: $(head -c 400 "$j")"
	assert_eq "left behind" "$(left_behind)" ""
}

# The man page's option list is the option table's (--help-man).
test_man_page_options() {
	local list page
	list=$("$MPLANECTL" accept --help-man)
	page=$(<"$MPLANE_ROOT/Documentation/mplanectl.8")
	[[ $page == *"$list"* ]] ||
		fail "Documentation/mplanectl.8 lacks 'accept --help-man' as it is now"
}

# shellcheck disable=SC2086 # TESTS is a list of names
ktap_run ${TESTS:-test_errors test_baseline_verdicts test_interrupt_cleans_up \
	test_man_page_options}

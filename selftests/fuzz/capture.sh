#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fuzz_capture (tools/fuzz/fuzz_capture.c, 'make fuzz'): the capture
# reader, the telemetry model and the views over a capture, under ASan
# and UBSan.  Every seed of tools/fuzz/corpus/capture (among them the
# inputs of bugs found before) must replay clean, and then a short
# mutation run from a fixed seed must find no crash, leak, undefined
# behaviour, allocation above 64 MB, RSS above 512 MB or input slower
# than 10 s.  Longer runs, by hand:
#
#   .build/fuzz/fuzz_capture -max_total_time=600 DIR tools/fuzz/corpus/capture
# shellcheck source-path=SCRIPTDIR source=../lib/lib.sh
source "$(dirname "$0")/../lib/lib.sh"

FUZZER=$MPLANE_BUILD/fuzz/fuzz_capture
CORPUS=$(cd "$(dirname "$0")/../.." && pwd)/tools/fuzz/corpus/capture
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-fuzz.XXXXXX")
trap 'rm -rf "$TMPD"' EXIT
# What a failing run found, and its log, stay here.
FINDINGS=$MPLANE_BUILD/fuzz/findings
# Inputs a make check run mutates; make bench's fuzz runs far more.
RUNS=${MPLANE_FUZZ_RUNS:-4000}
LIMITS=(-rss_limit_mb=512 -malloc_limit_mb=64 -timeout=10)

# fuzz NAME ARGS...: the fuzzer, its log and findings under $FINDINGS;
# fails with the report's first lines when it finds anything.
fuzz() {
	local log=$FINDINGS/$1.log rc=0
	shift
	mkdir -p "$FINDINGS"
	(cd "$TMPD" && "$FUZZER" "${LIMITS[@]}" -artifact_prefix="$FINDINGS/" \
		"$@") >"$log" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		grep -m8 -E 'ERROR|runtime error|SUMMARY|Test unit written|^==' "$log" |
			sed 's/^/# /'
		fail "fuzz_capture exited $rc (log: $log)"
	fi
}

test_corpus_replays_clean() {
	local n
	n=$(find "$CORPUS" -type f | wc -l)
	assert_ge "seeds in the corpus" "$n" 8
	fuzz replay -runs=0 "$CORPUS"
	grep -q "INITED\|Done" "$FINDINGS/replay.log" ||
		fail "the corpus did not run: $(tail -3 "$FINDINGS/replay.log")"
}

test_mutations_find_nothing() {
	local done
	mkdir "$TMPD/work"
	fuzz mutate -seed=1 -runs="$RUNS" "$TMPD/work" "$CORPUS"
	done=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$FINDINGS/mutate.log")
	assert_ge "inputs run" "${done:-0}" "$RUNS"
	log "$done inputs, $(find "$TMPD/work" -type f | wc -l) new ones kept"
}

[ -x "$FUZZER" ] || skip "no $FUZZER (make fuzz)"
ktap_run test_corpus_replays_clean test_mutations_find_nothing

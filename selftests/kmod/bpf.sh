#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bpf.sh: the BPF fabric's suites again, on this kernel.  selftests/run
# runs them on the host's kernel; here they run on each kernel of the
# matrix, whose verifiers, helpers and qdiscs are older, so that a
# program that only loads or behaves on a new kernel shows:
#   fixtures    every program through BPF_PROG_TEST_RUN: verdicts, bytes,
#               counters
#   hostacct    RoCEv2, CNP and ECN counted exactly, on tc and XDP
#   ar          adaptive routing, flowlets, ECN marking, a down port and
#               RoCEv2 on a 2-plane leaf-spine fabric
#   fabric      'mplanectl fabric' up, down, refusals, 20 cycles
#   pktcount    the per-protocol counters
#   traffic     the test sender and receiver (exact loss and gaps)
#   mark        step marks on the events' clock
#   telemetry   only its exact drop counts of an overflowing ring
#
# The debug kernel (MPLANE_TEST_PROFILE=quick) runs the fixtures and the
# share that hostacct.sh, ar.sh and telemetry.sh name in QUICK_TESTS.
# MPLANE_TEST_BPF=fixtures runs only the fixtures, for a quick check.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../bpf" && pwd)
rc=0
if [ "${MPLANE_TEST_BPF:-}" = fixtures ]; then
	scripts="fixtures"
elif [ "${MPLANE_TEST_PROFILE:-full}" = quick ]; then
	scripts="fixtures hostacct ar telemetry"
else
	scripts="fixtures hostacct ar fabric pktcount traffic mark telemetry"
fi
for t in $scripts; do
	echo "# bpf/$t.sh on $(uname -r)"
	start=$SECONDS
	if [ "$t" = telemetry ]; then
		TESTS="test_drops_exact test_drops_exact_throttled" bash "$here/$t.sh" || rc=1
	else
		bash "$here/$t.sh" || rc=1
	fi
	echo "# bpf/$t.sh took $((SECONDS - start)) s"
done
exit $rc

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
#   telemetry   its exact drop counts of an overflowing ring, and the
#               exporter's own ring (reader slots) beside a recorder
#
# MPLANE_TEST_BPF says how much (selftests/run sets it per kernel):
#   all       every suite above (the host runs them all on its own kernel)
#   share     the fixtures and the share that hostacct.sh, ar.sh and
#             telemetry.sh name in QUICK_TESTS (the release kernels)
#   fixtures  only the fixtures: every program loaded, verified and run
#             once (a quick check of a program change on every kernel)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../bpf" && pwd)
rc=0
case "${MPLANE_TEST_BPF:-all}" in
fixtures) scripts="fixtures" ;;
share)	scripts="fixtures hostacct ar telemetry"
	export MPLANE_TEST_SHARE=share ;;
*)	scripts="fixtures hostacct ar fabric pktcount traffic mark telemetry" ;;
esac
for t in $scripts; do
	echo "# bpf/$t.sh on $(uname -r)"
	start=$SECONDS
	if [ "$t" = telemetry ]; then
		TESTS="test_drops_exact test_drops_exact_throttled \
			test_exporter_beside_recorder test_exporter_counts_its_drops" \
			bash "$here/$t.sh" || rc=1
	else
		bash "$here/$t.sh" || rc=1
	fi
	echo "# bpf/$t.sh took $((SECONDS - start)) s"
done
exit $rc

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bpf.sh: the BPF suites again, on this kernel.  selftests/run runs them
# on the host's kernel; here they run on each release kernel of the
# matrix, whose verifiers and helpers are older, so that a program that
# only loads on a new kernel shows.
#
# Every release kernel gets the fixtures (every program loaded and run
# through BPF_PROG_TEST_RUN, with its verdicts, bytes and counters).  The
# fabric test (ar.sh: a real 2-plane fabric with traffic, about two
# minutes under TCG) runs where MPLANE_TEST_BPF=full, which selftests/run
# sets for the first kernel of the matrix, the oldest.  hostacct.sh adds
# only traffic over one veth to what the fixtures check, and stays on the
# host, for make check's time budget.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../bpf" && pwd)
rc=0
scripts="fixtures"
[ "${MPLANE_TEST_BPF:-fixtures}" = full ] && scripts="fixtures ar"
for t in $scripts; do
	echo "# bpf/$t.sh on $(uname -r)"
	bash "$here/$t.sh" || rc=1
done
exit $rc

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
# traffic tests of hostacct.sh and ar.sh (a real 2-plane fabric) take
# three minutes per kernel under TCG, which make check's 25-minute budget
# leaves no room for; they run on request.  MPLANE_TEST_BPF=share runs the
# share that hostacct.sh and ar.sh name in QUICK_TESTS (RoCEv2 counted
# exactly on tc and XDP; ecmp against ar, and a down port, on the
# fabric), about a minute per kernel; MPLANE_TEST_BPF=full runs them all:
#   MPLANE_TEST_BPF=full make kmod-check KERNELS="6.1 6.12"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../bpf" && pwd)
rc=0
case "${MPLANE_TEST_BPF:-fixtures}" in
full) scripts="fixtures hostacct ar" ;;
share) scripts="fixtures hostacct ar"; export MPLANE_TEST_PROFILE=quick ;;
*) scripts="fixtures" ;;
esac
for t in $scripts; do
	echo "# bpf/$t.sh on $(uname -r)"
	bash "$here/$t.sh" || rc=1
done
exit $rc

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The table-driven BPF_PROG_TEST_RUN fixtures (selftests/bpf/fixtures/):
# every packet fixture and object test of every table, as KTAP.  The
# runner is built by `make tools` (or `make fixtures`) into .build/.

# shellcheck source-path=SCRIPTDIR source=../lib/lib.sh
source "$(dirname "$0")/../lib/lib.sh"

FIXTURES=$MPLANE_BUILD/fixtures

if [ ! -x "$FIXTURES" ]; then
	echo "TAP version 13"
	echo "1..1"
	echo "ok 1 fixtures # SKIP $FIXTURES not built (make fixtures)"
	exit 0
fi
exec "$FIXTURES"

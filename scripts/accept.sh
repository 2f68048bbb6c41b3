#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# accept.sh: every acceptance class, one after the other, as `make accept`
# runs them in a guest with mplane.ko: each class's text (its verdicts)
# on stdout and in RESULTS/accept-CLASS.txt, and its report in .html,
# each policy's telemetry beside it (.html.POLICY.mpcp).  The sizes fit
# a 2-vCPU TCG guest: 10 Mbit/s links, collectives of 512 KiB (1 MiB
# took the four classes 25-36 minutes, over issue 17's 20), over roce
# so that the DCQCN policies run too.  The progress (.progress) has each
# line's time since the class began.
# MPLANE_ACCEPT_ARGS adds options to every class (--rate 20mbit, say);
# MPLANE_ACCEPT_CLASSES picks the classes.  Exit status: 1 when any class
# failed an expectation or a step.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MPLANECTL=${MPLANE_BUILD:-$ROOT/.build}/mplanectl
RESULTS=${MPLANE_ACCEPT_OUT:-/tmp/results}

[ -e /sys/module/mplane ] || insmod "${MPLANE_KO:?no mplane.ko: run in the VM, as make accept does}" ||
	exit 1
# The bonding baseline needs its driver; without it, bond SKIPs, saying so.
[ -e /sys/module/bonding ] || modprobe bonding 2>/dev/null ||
	echo "# no bonding driver: the bond policy is skipped"
mkdir -p "$RESULTS"
rc=0

# stamped: each line of stdin after the seconds since it started, so
# that a class's progress shows where its time went.
stamped() {
	local t0=${EPOCHREALTIME/./} line us
	while IFS= read -r line; do
		us=$((${EPOCHREALTIME/./} - t0))
		printf '%5d.%d s  %s\n' $((us / 1000000)) $((us / 100000 % 10)) "$line"
	done
}
# shellcheck disable=SC2086 # the arguments are words
for class in ${MPLANE_ACCEPT_CLASSES:-baseline isolation resiliency scale}; do
	echo "# accept $class"
	start=$(date +%s)
	"$MPLANECTL" accept "$class" --transport roce --rate 10mbit --size 512K -n 3 \
		--html "$RESULTS/accept-$class.html" ${MPLANE_ACCEPT_ARGS:-} \
		2>&1 >"$RESULTS/accept-$class.txt" | stamped >"$RESULTS/accept-$class.progress"
	[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
	cat "$RESULTS/accept-$class.txt"
	grep -v '^ *[0-9.]* s  accept ' "$RESULTS/accept-$class.progress"
	echo "# accept $class took $(($(date +%s) - start)) s"
done
exit $rc

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Second stage of the test VM, on the host's root (read-only 9p, with the
# mounts made by initramfs-init): run the command the host asked for, save
# its status and the kernel log, and stop the VM.  Everything the host
# needs back goes to the "results" share.
results=/tmp/results
export HOME=/root TMPDIR=/tmp
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# The host wrote the command, its working directory and environment.
# shellcheck disable=SC1091
. $results/env
cd "$MPLANE_CWD" || echo "guest-init: no directory $MPLANE_CWD" >&2

# kmemleak scans by itself every 10 minutes, ~20 s of a vCPU each under
# TCG, in the middle of the tests.  The scans after the command (below)
# find every leak that those would have, so the automatic ones are off.
kmemleak=/sys/kernel/debug/kmemleak
[ -w $kmemleak ] && echo scan=off >$kmemleak

# A stalled vCPU lets a receiver's socket overflow: let readers ask for
# big buffers (traffic recv forces its own; iperf3 and sockperf ask).
echo 33554432 >/proc/sys/net/core/rmem_max
echo 33554432 >/proc/sys/net/core/wmem_max

echo "guest-init: running the command" >/dev/kmsg
bash -c "$MPLANE_CMD" </dev/null >$results/out 2>&1
echo $? >$results/rc.tmp

# kmemleak reports only objects older than 5 s, hence the wait.  A scan
# costs ~20 s under TCG, so a second one (which drops pointers that were
# only in flight during the first) runs only when the first found any.
if [ -w $kmemleak ]; then
	sleep 6
	echo scan >$kmemleak
	if [ -n "$(head -c1 $kmemleak)" ]; then
		echo scan >$kmemleak
	fi
	cat $kmemleak >$results/kmemleak
fi
dmesg >$results/dmesg
mv $results/rc.tmp $results/rc
sync
echo b >/proc/sysrq-trigger

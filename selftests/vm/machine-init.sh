#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# machine-init.sh: a second stage for 'run --init' that boots the guest's
# machine (selftests/vm/machine.sh) as a host boots: its root becomes the
# root, and its own systemd is PID 1.  The machine's units do the rest;
# one of them must write the results share (/mnt/results in the machine)
# and end the VM, as guest-init.sh does.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# shellcheck disable=SC1091
. /tmp/results/env
# shellcheck source=selftests/vm/machine.sh
. "$MPLANE_ROOT/selftests/vm/machine.sh"

die() {
	echo "machine-init: $*" >/dev/kmsg
	echo b >/proc/sysrq-trigger
}

machine_mount || die "cannot mount the machine"
mkdir -p "$MACHINE/mnt/results" "$MACHINE/oldroot"
mount --move /tmp/results "$MACHINE/mnt/results" || die "cannot move the results share"
# A tree the machine's lower layer does not show (a CI clone under /tmp,
# the guest's own 9p share; a machine of another root): at the same path.
machine_tree || die "cannot show $MPLANE_ROOT in the machine"
for m in dev proc sys; do
	mount --move "/$m" "$MACHINE/$m" || die "cannot move /$m"
done
cd "$MACHINE" || die "no $MACHINE"
pivot_root . oldroot || die "pivot_root failed"
exec chroot . /lib/systemd/systemd --system

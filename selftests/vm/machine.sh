# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# machine.sh, sourced in a guest: a machine of the guest's own, with a
# root that keeps what is written to it from one boot to the next.  The
# guest's disk (/dev/vda, from 'run --disk') holds the layers that take
# the writes; this host's root, read-only over 9p, is the layer under
# them.  So a first boot can install packages into the machine and a
# second boot can start the machine's own systemd on what they left.
#
# The kernel's modules come from the guest's own share (the unpacked
# image, over the host's /lib/modules/RELEASE with its headers' build
# link), under a layer of their own: DKMS installs there and depmod
# writes its indexes there.
#
# MPLANE_TEST_MACHINE_ROOT, when set, is the lower layer instead of the
# host's root: another Debian release's root as the host's / shows it
# (the trixie build root, for trixie's kernels: selftests/deb/boot.sh),
# so that the machine is a host of that release, with its compiler,
# DKMS and systemd.

MACHINE=/tmp/machine
MACHINE_DISK=/tmp/machine-disk

# machine_mount: the machine's root at $MACHINE, and its modules.
machine_mount() {
	local release mods i lower=${MPLANE_TEST_MACHINE_ROOT:-/}

	release=$(uname -r)
	mods=/lib/modules/$release
	for i in virtio_blk ext4 overlay; do
		modprobe -q "$i" 2>/dev/null || true	# built in on the debug kernel
	done
	for ((i = 0; i < 50; i++)); do
		[ -b /dev/vda ] && break
		sleep 0.1
	done
	[ -b /dev/vda ] || { echo "machine: no /dev/vda (run --disk)" >&2; return 1; }
	mkdir -p "$MACHINE_DISK" "$MACHINE"
	mount /dev/vda "$MACHINE_DISK" || return 1
	mkdir -p "$MACHINE_DISK"/{root,modules}/{upper,work}
	[ -x "$lower/usr/bin/dpkg" ] || { echo "machine: $lower is no Debian root" >&2; return 1; }
	mount -t overlay machine -o "lowerdir=$lower,upperdir=$MACHINE_DISK/root/upper,workdir=$MACHINE_DISK/root/work" \
		"$MACHINE" || return 1
	mkdir -p "$MACHINE$mods"
	# Only a share of its own is hidden from the lower layer above: a
	# kernel installed on the host is already in the machine's root.
	mountpoint -q "$mods" || return 0
	mount -t overlay machine-modules \
		-o "lowerdir=$mods:$MACHINE$mods,upperdir=$MACHINE_DISK/modules/upper,workdir=$MACHINE_DISK/modules/work" \
		"$MACHINE$mods"
}

# machine_tree: the project's tree (and .build) at their own paths in
# the machine, where its lower layer does not show them: a tree under
# /tmp (a CI clone, the guest's own share), or any tree in a machine of
# another root (whose build root has only empty directories there).
machine_tree() {
	local d
	for d in "$MPLANE_ROOT" "$MPLANE_BUILD"; do
		[ -n "$(ls -A "$MACHINE$d" 2>/dev/null)" ] && continue
		mkdir -p "$MACHINE$d" && mount --bind "$d" "$MACHINE$d" || return 1
	done
}

# machine_chroot_mounts: what a chroot into the machine needs to run
# dpkg and DKMS: the kernel's file systems, and an empty /run and /tmp,
# as at boot (so that no unit is started: systemd does not run there).
machine_chroot_mounts() {
	local m

	for m in proc sys dev; do
		mount --rbind "/$m" "$MACHINE/$m" || return 1
	done
	mount -t tmpfs -o mode=0755 tmpfs "$MACHINE/run" &&
		mount -t tmpfs -o mode=1777 tmpfs "$MACHINE/tmp"
}

# machine_umount: all of it, written through to the disk.
machine_umount() {
	sync
	umount -R "$MACHINE" 2>/dev/null || umount -lR "$MACHINE"
	umount "$MACHINE_DISK"
}

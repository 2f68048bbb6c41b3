#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms.sh: the module DKMS built (scripts/dkms-build.sh, on the host, for
# this guest's kernel) is installed into /lib/modules as the mplane-dkms
# package leaves it, and 'ip link add ... type mplane' loads it by its
# alias, with nothing loaded by hand.  The guest's /lib/modules/RELEASE
# is the kernel's own, read-only: an overlay on a tmpfs takes the
# module and depmod's files, and goes at the end.
#
# shellcheck disable=SC2154
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/mplane.sh"

release=$(uname -r)
moddir=/lib/modules/$release
# DKMS compresses the module as the kernel's own are (6.12's: xz).
DKMS_KO=$(ls "$MPLANE_BUILD/dkms/modules/$release/updates/dkms/mplane.ko"* 2>/dev/null |
	head -n 1)
overlay=

# with_dkms_tree: /lib/modules/RELEASE gains updates/dkms/mplane.ko and
# a depmod that knows it.
with_dkms_tree() {
	[ -n "$DKMS_KO" ] || skip "no DKMS build for $release (scripts/dkms-build.sh)"
	command -v depmod >/dev/null || skip "no depmod"
	overlay=$(mktemp -d)
	mkdir -p "$overlay/upper" "$overlay/work"
	mount -t tmpfs tmpfs "$overlay/upper" 2>/dev/null || true
	mkdir -p "$overlay/upper/u" "$overlay/upper/w"
	mount -t overlay overlay -o "lowerdir=$moddir,upperdir=$overlay/upper/u,workdir=$overlay/upper/w" "$moddir" ||
		skip "no overlayfs here"
	trap 'undo_dkms_tree' EXIT
	install -D -m 0644 "$DKMS_KO" "$moddir/updates/dkms/${DKMS_KO##*/}"
	# depmod of that one module (it needs no other), whose modules.dep
	# and modules.alias then list only it, for as long as the overlay
	# lasts.  DKMS's own depmod -a reads every module of the kernel,
	# which took 74 s of a TCG guest on 6.12 (xz); the deb suite's
	# machine runs that one.
	depmod "$release" "$moddir/updates/dkms/${DKMS_KO##*/}"
}

undo_dkms_tree() {
	cleanup_all_ns
	[ -d /sys/module/mplane ] && rmmod mplane 2>/dev/null
	umount "$moddir" 2>/dev/null
	umount "$overlay/upper" 2>/dev/null
	rm -rf "$overlay"
	# The scripts after this one load the module they were given.
	[ -z "${MPLANE_KO:-}" ] || insmod "$MPLANE_KO"
}

test_autoload_from_dkms() {
	local path alias

	with_dkms_tree
	path=$(modinfo -n mplane)
	assert_eq "mplane resolves to" "$path" "$moddir/updates/dkms/${DKMS_KO##*/}"
	alias=$(modinfo -F alias mplane)
	[[ $alias == *rtnl-link-mplane* ]] || fail "no rtnl-link alias: $alias"
	[ ! -d /sys/module/mplane ] || rmmod mplane ||
		fail "cannot unload the module loaded before"
	setup_ns_nolo dkns
	ip -n "$dkns" link add mp0 type mplane
	[ -d /sys/module/mplane ] || fail "mplane.ko was not loaded"
	# The one DKMS built, not another of the same name.
	assert_eq "loaded module's srcversion" \
		"$(</sys/module/mplane/srcversion)" "$(modinfo -F srcversion "$DKMS_KO")"
	assert_eq "version" "$(</sys/module/mplane/version)" "$(<"$MPLANE_ROOT/VERSION")"
	ip -n "$dkns" link del mp0
}

ktap_run test_autoload_from_dkms

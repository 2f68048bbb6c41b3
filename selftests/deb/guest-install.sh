#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-install.sh, the first boot of selftests/deb/boot.sh: make the
# guest's machine (selftests/vm/machine.sh) a fresh Debian host with this
# kernel and its headers, install mplane-tools and mplane-dkms with dpkg
# as an operator would, and configure mp0 and the units for the next boot.
#
# From the host: MPLANE_TEST_DEBS, the two packages (built for the
# machine's release); MPLANE_TEST_MACHINE_ROOT, the machine's lower layer
# where it is not the host's root (machine.sh); MPLANE_TEST_CONFIG,
# the kernel's config (for /boot); MPLANE_TEST_HEADERS, the kernel's
# unpacked headers where the host has none installed (the debug kernel):
# they are linked in where their package puts them, as dpkg -i of that
# package took 4.5 min of the guest (TCG, KASAN).
#
# shellcheck disable=SC2154
source "$(dirname "$0")/../lib/lib.sh"
source "$MPLANE_ROOT/selftests/vm/machine.sh"

release=$(uname -r)
version=$(<"$MPLANE_ROOT/VERSION")

in_machine() { chroot "$MACHINE" "$@"; }

# The machine boots this kernel only: DKMS builds for the running kernel
# and the newest in /boot, and the host's /boot has others.
test_fresh_machine() {
	machine_mount || fail "cannot mount the machine's disk"
	machine_tree || fail "cannot show $MPLANE_ROOT in the machine"
	machine_chroot_mounts || fail "cannot mount /proc, /sys, /dev in the machine"
	# shellcheck disable=SC1091 # the machine's
	log "the machine: $(. "$MACHINE/etc/os-release" && echo "$PRETTY_NAME"), $(in_machine gcc --version | head -n1)"
	rm -f "$MACHINE"/boot/*
	install -m 0644 "$MPLANE_TEST_CONFIG" "$MACHINE/boot/config-$release"
	if [ -n "${MPLANE_TEST_HEADERS:-}" ]; then
		ln -sfn "$MPLANE_TEST_HEADERS" "$MACHINE/usr/src/linux-headers-$release"
		ln -sfn "/usr/src/linux-headers-$release" "$MACHINE/lib/modules/$release/build"
	fi
	in_machine test -f "/lib/modules/$release/build/Makefile" ||
		fail "no headers for $release in the machine"
	! in_machine dpkg -s mplane-tools >/dev/null 2>&1 ||
		fail "mplane-tools is already installed: not a fresh machine"
}

test_install_packages() {
	local status ko
	# shellcheck disable=SC2086 # a list of paths
	in_machine dpkg -i $MPLANE_TEST_DEBS >"$MACHINE/root/dpkg.log" 2>&1 || {
		sed 's/^/# /' "$MACHINE/root/dpkg.log" | tail -n 30
		fail "dpkg -i failed"
	}
	grep -a "Building for\|Installing\|DKMS" "$MACHINE/root/dpkg.log" | sed 's/^/# /' | head -n 5
	status=$(in_machine dkms status mplane)
	log "dkms status: $status"
	[[ $status == *"mplane/$version, $release, "*": installed"* ]] ||
		fail "DKMS did not install mplane $version for $release"
	ko=$(in_machine modinfo -k "$release" -n mplane)
	[[ $ko == "/lib/modules/$release/updates/dkms/mplane.ko"* ]] ||
		fail "modinfo finds $ko, not DKMS's"
	assert_eq "the module's version" "$(in_machine modinfo -k "$release" -F version mplane)" "$version"
}

# mp0 from /etc/mplane/mp0.conf at boot.  The guest has no NICs: veth
# pairs, made by the same file, stand in for the rails.
test_configure_boot() {
	mkdir -p "$MACHINE/etc/mplane"
	cat >"$MACHINE/etc/mplane/mp0.conf" <<-CONF
		link add rail0 type veth peer name rail0-peer
		link add rail1 type veth peer name rail1-peer
		link add mp0 type mplane policy flowlet flowlet-gap 50
		link set rail0 master mp0
		link set rail1 master mp0
		addr add 10.0.0.1/32 dev mp0
		link set mp0 up
	CONF
	in_machine systemctl enable mplane-link@mp0.service 2>&1 | sed 's/^/# /'
	assert_eq "mplane-link@mp0" "$(in_machine systemctl is-enabled mplane-link@mp0.service)" enabled
	assert_eq "mplane-exporter, enabled by its package" \
		"$(in_machine systemctl is-enabled mplane-exporter.service)" enabled
	# The test's own unit: it checks the booted machine and ends the VM.
	cat >"$MACHINE/etc/systemd/system/mplane-boot-check.service" <<-UNIT
		[Unit]
		Description=mplane's boot test (selftests/deb/guest-check.sh)
		After=mplane-link@mp0.service mplane-exporter.service

		[Service]
		Type=oneshot
		ExecStart=/bin/bash $MPLANE_ROOT/selftests/deb/guest-check.sh

		[Install]
		WantedBy=multi-user.target
	UNIT
	in_machine systemctl enable mplane-boot-check.service 2>/dev/null
	machine_umount || fail "cannot unmount the machine"
}

ktap_run test_fresh_machine test_install_packages test_configure_boot

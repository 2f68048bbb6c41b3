#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# boot.sh [KERNEL...]: mplane as a fleet host gets it.  For each kernel a
# VM with a disk of its own (selftests/vm/machine.sh) boots twice:
#   1. guest-install.sh: a fresh Debian machine with that kernel and its
#      headers; dpkg installs mplane-tools and mplane-dkms, DKMS builds
#      the module, mp0 gets a config file and its unit is enabled;
#   2. machine-init.sh: the machine boots its own systemd, which loads
#      DKMS's module, brings mp0 up from the config and starts the
#      exporter; guest-check.sh checks all of it and that promtool takes
#      /metrics.
# Kernels: the arguments, else MPLANE_KERNELS, else the matrix.  7.3 is
# trixie's kernel, built by trixie's gcc-14, which the machine (this
# Debian 12 host's root) cannot have: DKMS could not build for it there,
# so it is skipped (make dkms builds for it in the trixie build root).
source "$(dirname "$0")/../lib/lib.sh"

kernels_sh=$MPLANE_ROOT/scripts/kernels.sh
run=$MPLANE_ROOT/selftests/vm/run
work=$MPLANE_BUILD/deb-boot
debs='' promtool='' no_packages=''

# The packages, as make deb builds them from this tree, once per run;
# what went wrong, if anything, in no_packages.
packages() {
	if ! make -s -C "$MPLANE_ROOT" deb >/dev/null; then
		no_packages="make deb failed"
	elif ! promtool=$("$MPLANE_ROOT/scripts/promtool.sh"); then
		no_packages="no promtool (scripts/promtool.sh)"
	else
		# shellcheck disable=SC2011 # the names are make deb's
		debs=$(ls "$MPLANE_BUILD"/deb/mplane-tools_*.deb "$MPLANE_BUILD"/deb/mplane-dkms_*.deb | xargs)
	fi
}

# boot_twice KERNEL: both boots; their KTAP goes out as comments.
boot_twice() {
	local k=$1 release dir config headers='' rc

	release=$("$kernels_sh" release "$k")
	case "$("$kernels_sh" origin "$release" 2>/dev/null || echo "")" in
	trixie) skip "$release is trixie's (gcc-14): a Debian 12 machine cannot build for it" ;;
	esac
	"$kernels_sh" prepare-boot "$k" >/dev/null || fail "cannot prepare $k"
	config=$("$kernels_sh" moddir "$k")/boot/config-$release
	[ -f "$config" ] || fail "no $config"
	# The debug kernel's headers are not installed on the host, unlike
	# Debian's: their unpacked tree (make kmod) stands in.
	[ "$k" != debug ] || headers=$("$kernels_sh" build debug)
	[ -z "$no_packages" ] || fail "$no_packages"
	dir=$work/$release
	rm -rf "$dir" && mkdir -p "$dir"
	truncate -s 4G "$dir/disk.img"
	mkfs.ext4 -q -F "$dir/disk.img" || fail "mkfs.ext4 failed"

	MPLANE_TEST_DEBS=$debs MPLANE_TEST_CONFIG=$config MPLANE_TEST_HEADERS=$headers \
		"$run" --quiet --timeout 1200 --disk "$dir/disk.img" --out "$dir/install" "$k" -- \
		bash "$MPLANE_ROOT/selftests/deb/guest-install.sh" >"$dir/install.ktap" 2>"$dir/install.err"
	rc=$?
	sed 's/^/# install: /' "$dir/install.ktap"
	[ "$rc" -eq 0 ] || { tail -n 20 "$dir/install.err" | sed 's/^/# /'; fail "the first boot (install) failed ($rc)"; }

	MPLANE_TEST_PROMTOOL=$promtool "$run" --quiet --timeout 600 --disk "$dir/disk.img" --out "$dir/boot" \
		--init "$MPLANE_ROOT/selftests/vm/machine-init.sh" "$k" -- true \
		>"$dir/boot.ktap" 2>"$dir/boot.err"
	rc=$?
	sed 's/^/# boot: /' "$dir/boot.ktap"
	[ "$rc" -eq 0 ] || { tail -n 20 "$dir/boot.err" | sed 's/^/# /'; fail "the second boot (systemd) failed ($rc)"; }
	rm -f "$dir/disk.img"
}

kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || read -ra kernels <<<"${MPLANE_KERNELS:-$("$kernels_sh" matrix)}"
packages
tests=()
for k in "${kernels[@]}"; do
	name=test_install_and_boot_${k//[^a-z0-9]/_}
	eval "$name() { boot_twice $k; }"
	tests+=("$name")
done
ktap_run "${tests[@]}"

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
# Kernels: the arguments, else MPLANE_KERNELS, else the matrix.
# MPLANE_DEB_SMP: the guests' CPUs (default 2).
#
# The machine is a host of the kernel's own release.  For Debian 12's
# kernels (6.1, 6.12, debug) its lower layer is this Debian 12 host's
# root and the packages are make deb's.  7.3 is trixie's kernel, built
# by trixie's gcc-14, which Debian 12 has not: its machine is a trixie
# host, whose lower layer is the trixie build root (scripts/buildroot.sh,
# with trixie's DKMS, gcc-14, systemd, the kernel's headers and the
# packages' dependencies installed in it), and its packages are built
# for trixie in that root (scripts/deb-trixie.sh, .build/deb-trixie/).
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

# What a trixie host has beyond the build root's minbase, for the test's
# machine: DKMS, systemd and udev to boot, and what guest-check.sh runs.
# The packages' own dependencies are added from the .debs.
TRIXIE_MACHINE_PKGS=(dkms systemd udev iproute2 kmod procps jq curl bash-builtins)
trixie_debs='' trixie_root='' no_trixie=''

# The trixie machine's packages and root, made once per run, when a
# trixie kernel is asked for; what went wrong, if anything, in no_trixie.
trixie_machine() {
	local deps
	[ -z "$trixie_debs$no_trixie" ] || return 0
	if ! trixie_debs=$("$MPLANE_ROOT/scripts/deb-trixie.sh" | xargs); then
		no_trixie="scripts/deb-trixie.sh failed" trixie_debs=''
		return
	fi
	# Their Depends by name (the first of alternatives), as apt would
	# have installed them before a fleet's dpkg -i.
	# shellcheck disable=SC2086 # a list of paths
	deps=$(for d in $trixie_debs; do dpkg-deb -f "$d" Depends; done |
		tr ',' '\n' | sed 's/|.*//; s/(.*)//; s/[[:space:]]//g; /^$/d' | sort -u | xargs)
	# shellcheck disable=SC2086 # a list of names
	if ! "$MPLANE_ROOT/scripts/buildroot.sh" trixie ensure "${TRIXIE_MACHINE_PKGS[@]}" $deps >&2; then
		no_trixie="cannot install the machine's packages in the trixie build root"
		return
	fi
	trixie_root=$("$MPLANE_ROOT/scripts/buildroot.sh" trixie path)
}

# boot_twice KERNEL: both boots; their KTAP goes out as comments.
boot_twice() {
	local k=$1 release dir config headers='' rc moddir pkgs=$debs lower=''
	# DKMS's build of the module takes about 19 of the install's minutes
	# under the debug kernel's KASAN, 5 under a release kernel (TCG).
	local install_limit=1200 boot_limit=600
	[ "$k" != debug ] || install_limit=2700 boot_limit=1800

	release=$("$kernels_sh" release "$k")
	"$kernels_sh" prepare-boot "$k" >/dev/null || fail "cannot prepare $k"
	# The headers DKMS builds against: Debian 12's installed on this
	# host (which the machine's lower layer shows), the debug kernel's
	# unpacked, trixie's in its build root.  make check has them from
	# make kmod; make check-deb alone must get them itself.
	"$kernels_sh" prepare-build "$k" >/dev/null || fail "no headers for $k"
	if [ "$("$kernels_sh" origin "$release" 2>/dev/null || echo "")" = trixie ]; then
		[ -n "$trixie_debs" ] || fail "$no_trixie"
		pkgs=$trixie_debs lower=$trixie_root
		log "a trixie machine: lower layer ${lower#"$MPLANE_ROOT"/}, packages ${trixie_debs//"$MPLANE_ROOT"\//}"
	fi
	# A Debian 12 package puts the config in /boot, trixie's next to
	# the modules.
	moddir=$("$kernels_sh" moddir "$k")
	config=$moddir/boot/config-$release
	[ -f "$config" ] || config=$moddir/lib/modules/$release/config
	[ -f "$config" ] || fail "no config of $release under $moddir"
	# The debug kernel's headers are not installed on the host, unlike
	# Debian's: their unpacked tree (make kmod) stands in.
	[ "$k" != debug ] || headers=$("$kernels_sh" build debug)
	[ -z "$no_packages" ] || fail "$no_packages"
	dir=$work/$release
	rm -rf "$dir" && mkdir -p "$dir"
	truncate -s 4G "$dir/disk.img"
	mkfs.ext4 -q -F "$dir/disk.img" || fail "mkfs.ext4 failed"

	MPLANE_TEST_DEBS=$pkgs MPLANE_TEST_CONFIG=$config MPLANE_TEST_HEADERS=$headers \
		MPLANE_TEST_MACHINE_ROOT=$lower "$run" --quiet --smp "${MPLANE_DEB_SMP:-2}" --timeout "$install_limit" --disk "$dir/disk.img" --out "$dir/install" "$k" -- \
		bash "$MPLANE_ROOT/selftests/deb/guest-install.sh" >"$dir/install.ktap" 2>"$dir/install.err"
	rc=$?
	sed 's/^/# install: /' "$dir/install.ktap"
	[ "$rc" -eq 0 ] || { tail -n 20 "$dir/install.err" | sed 's/^/# /'; fail "the first boot (install) failed ($rc)"; }

	MPLANE_TEST_PROMTOOL=$promtool MPLANE_TEST_MACHINE_ROOT=$lower "$run" --quiet --smp "${MPLANE_DEB_SMP:-2}" --timeout "$boot_limit" --disk "$dir/disk.img" --out "$dir/boot" \
		--init "$MPLANE_ROOT/selftests/vm/machine-init.sh" "$k" -- true \
		>"$dir/boot.ktap" 2>"$dir/boot.err"
	rc=$?
	sed 's/^/# boot: /' "$dir/boot.ktap"
	[ "$rc" -eq 0 ] || { tail -n 20 "$dir/boot.err" | sed 's/^/# /'; fail "the second boot (systemd) failed ($rc)"; }
	rm -f "$dir/disk.img"
}

# The packages built for trixie (trixie_machine) pass trixie's lintian:
# no error and no warning, and they name trixie's libraries.  Here and not
# in the build suite, as building them installs trixie's build
# dependencies in the build root (minutes on a fresh machine).
test_trixie_packages_lintian() {
	local out

	[ -n "$trixie_debs" ] || fail "$no_trixie"
	out=$("$MPLANE_ROOT/scripts/deb-trixie.sh" lintian 2>&1) ||
		fail "scripts/deb-trixie.sh lintian failed: $(tail -n 5 <<<"$out")"
	out=$(grep -E '^[EW]: ' <<<"$out" || true)
	assert_eq "trixie's lintian" "$out" ""
	dpkg-deb -f "$MPLANE_BUILD"/deb-trixie/mplane-tools_*.deb Depends | grep -q 'libmicrohttpd12t64' ||
		fail "the trixie mplane-tools does not depend on trixie's libmicrohttpd12t64"
}

kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || read -ra kernels <<<"${MPLANE_KERNELS:-$("$kernels_sh" matrix)}"
packages
tests=()
for k in "${kernels[@]}"; do
	if [ "$("$kernels_sh" origin "$k" 2>/dev/null)" = trixie ] && [ -z "$trixie_debs$no_trixie" ]; then
		trixie_machine
		tests+=(test_trixie_packages_lintian)
	fi
	name=test_install_and_boot_${k//[^a-z0-9]/_}
	eval "$name() { boot_twice $k; }"
	tests+=("$name")
done
ktap_run "${tests[@]}"

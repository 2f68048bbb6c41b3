#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh: what building installs.  A GPU host builds the module with
# `make kmod KERNELS=$(uname -r)`: that must install no kernel image and
# no qemu (a new kernel image can change what the host boots, under its
# GPU driver), and a missing headers package must be named, not guessed.
source "$(dirname "$0")/../lib/lib.sh"

DEPS=$MPLANE_ROOT/scripts/deps.sh
KERNELS=$MPLANE_ROOT/scripts/kernels.sh

# What no build may bring: kernels, VMs and the VM's own tools.
FORBIDDEN='^(linux-image|linux-binary|linux-modules|qemu|busybox|debootstrap)'

test_build_set_names_no_kernel_or_vm() {
	local bad
	bad=$("$DEPS" --list build | grep -E "$FORBIDDEN|^linux-headers" || true)
	assert_eq "forbidden packages in the build set" "$bad" ""
	# The test set has the VM; so the sets do differ.
	"$DEPS" --list test | grep -qx qemu-system-x86 || fail "no qemu in the test set"
}

# With every dependency apt would pull in, not only the names listed.
test_build_set_pulls_no_kernel_or_vm() {
	local bad
	# shellcheck disable=SC2046
	bad=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances $("$DEPS" --list build) 2>/dev/null |
		awk '/^[a-z0-9]/ { print $1 }' | sort -u | grep -E "$FORBIDDEN" || true)
	assert_eq "packages the build set pulls in" "$bad" ""
}

# shim DIR: apt-get, apt and debootstrap that only log their arguments to
# DIR/log and fail, first on PATH.
shim() {
	local dir=$1 cmd
	mkdir -p "$dir"
	for cmd in apt-get apt debootstrap; do
		printf '#!/bin/sh\necho "%s $*" >>%s/log\nexit 100\n' "$cmd" "$dir" >"$dir/$cmd"
		chmod +x "$dir/$cmd"
	done
	: >"$dir/log"
}

# A kernel outside the matrix whose headers are not there: the build
# stops, names the package, and asks apt for nothing.
test_kmod_for_unknown_kernel_names_headers() {
	local dir out rc=0
	dir=$(mktemp -d)
	shim "$dir"
	out=$(PATH=$dir:$PATH "$MPLANE_ROOT/scripts/build-kmod.sh" 9.9.9-none-amd64 2>&1) || rc=$?
	[ "$rc" -ne 0 ] || fail "built for a kernel that has no headers"
	[[ $out == *"install linux-headers-9.9.9-none-amd64"* ]] || fail "package not named: $out"
	assert_eq "apt and debootstrap calls" "$(<"$dir/log")" ""
	rm -rf "$dir"
}

# README's recipe for a GPU host, as written, on this machine's kernel:
# whether or not its headers are here, nothing is installed.
test_make_kmod_for_this_kernel_installs_nothing() {
	local dir out rc=0 release
	release=$(uname -r)
	dir=$(mktemp -d)
	shim "$dir"
	out=$(PATH=$dir:$PATH make -C "$MPLANE_ROOT" --no-print-directory kmod KERNELS="$release" 2>&1) || rc=$?
	log "make kmod KERNELS=$release: status $rc"
	if [ ! -d "/lib/modules/$release/build" ]; then
		[ "$rc" -ne 0 ] || fail "built without headers"
		[[ $out == *"install linux-headers-$release"* ]] || fail "package not named: $out"
	fi
	assert_eq "apt and debootstrap calls" "$(<"$dir/log")" ""
	rm -rf "$dir"
}

test_kernel_names() {
	assert_eq "7.3" "$("$KERNELS" release 7.3)" 7.3.4+deb13-amd64
	assert_eq "7.3 from" "$("$KERNELS" origin 7.3)" trixie
	assert_eq "6.12 from" "$("$KERNELS" origin 6.12)" bookworm
	assert_eq "a release string" "$("$KERNELS" release 6.18.2-custom)" 6.18.2-custom
	assert_eq "its origin" "$("$KERNELS" origin 6.18.2-custom)" host
	assert_eq "its headers" "$("$KERNELS" build 6.18.2-custom)" /lib/modules/6.18.2-custom/build
	# Images are unpacked under .build, never taken from /boot.
	[[ $("$KERNELS" image 6.12) == "$MPLANE_BUILD"/kernels/* ]] || fail "6.12's image is not unpacked"
	[[ $("$KERNELS" matrix) == "6.1 6.12 7.3"* ]] || fail "matrix: $("$KERNELS" matrix)"
}

ktap_run test_build_set_names_no_kernel_or_vm test_build_set_pulls_no_kernel_or_vm \
	test_kmod_for_unknown_kernel_names_headers test_make_kmod_for_this_kernel_installs_nothing \
	test_kernel_names

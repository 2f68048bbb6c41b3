#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel matrix: maps a short name (6.1, 6.12, debug, or a full
# release string) to the files that build and boot it.  Used by the
# Makefile, the VM runner and the test driver, so that adding a kernel is
# a change in one place (see Documentation/testing.md).
#
#   kernels.sh matrix            names of the default matrix present here
#   kernels.sh release NAME      its `uname -r`
#   kernels.sh build NAME        the headers' build directory
#   kernels.sh image NAME        the bootable bzImage
#   kernels.sh moddir NAME       root under which lib/modules/RELEASE lives
#   kernels.sh prepare NAME      unpack what NAME needs (debug kernel debs)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SHARED=${MPLANE_SHARED:-$ROOT/../shared}
BUILD=${MPLANE_BUILD:-$ROOT/.build}
DEBUG_DIR=$BUILD/kernels/debug

die() { echo "kernels.sh: $*" >&2; exit 1; }

debug_deb() {
	local kind=$1 f
	for f in "$SHARED"/kernels/linux-"$kind"-*-mplane-debug_*.deb; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

# linux-image-amd64 is a metapackage; its dependency names the 6.1 release.
meta_release() {
	dpkg-query -W -f='${Depends}' linux-image-amd64 2>/dev/null |
		sed -n 's/.*linux-image-\([^ ,]*-amd64\).*/\1/p' | head -n1
}

release() {
	case "$1" in
	6.1)	local r; r=$(meta_release)
		[ -n "$r" ] || r=$(ls /lib/modules 2>/dev/null | grep -E '^6\.1\.[0-9]+-[0-9]+-amd64$' | sort -V | tail -n1)
		[ -n "$r" ] || die "no Debian 6.1 kernel installed (make deps)"
		echo "$r" ;;
	6.12)	echo "6.12.117+deb12-amd64" ;;
	debug)	local deb; deb=$(debug_deb image) || die "no debug kernel in $SHARED/kernels"
		basename "$deb" | sed -n 's/^linux-image-\(.*-mplane-debug\)_.*/\1/p' ;;
	*)	echo "$1" ;;
	esac
}

is_debug() { [ "$1" = debug ] || [[ "$1" == *-mplane-debug ]]; }

build_dir() {
	local r; r=$(release "$1")
	if is_debug "$1"; then
		echo "$DEBUG_DIR/headers/usr/src/linux-headers-$r"
	else
		echo "/lib/modules/$r/build"
	fi
}

image() {
	local r; r=$(release "$1")
	if is_debug "$1"; then
		echo "$DEBUG_DIR/image/boot/vmlinuz-$r"
	else
		echo "/boot/vmlinuz-$r"
	fi
}

moddir() {
	if is_debug "$1"; then echo "$DEBUG_DIR/image"; else echo "/"; fi
}

prepare() {
	is_debug "$1" || return 0
	local r img hdr
	r=$(release "$1")
	img=$(debug_deb image) || die "no debug kernel image deb"
	hdr=$(debug_deb headers) || die "no debug kernel headers deb"
	if [ ! -f "$DEBUG_DIR/image/boot/vmlinuz-$r" ] || [ "$img" -nt "$DEBUG_DIR/image/boot/vmlinuz-$r" ]; then
		rm -rf "$DEBUG_DIR/image" && mkdir -p "$DEBUG_DIR/image"
		dpkg-deb -x "$img" "$DEBUG_DIR/image"
	fi
	if [ ! -d "$DEBUG_DIR/headers/usr/src/linux-headers-$r" ]; then
		rm -rf "$DEBUG_DIR/headers" && mkdir -p "$DEBUG_DIR/headers"
		dpkg-deb -x "$hdr" "$DEBUG_DIR/headers"
	fi
}

# The default matrix: both Debian kernels, plus the debug kernel when
# ../shared provides it.
matrix() {
	local m="6.1 6.12"
	debug_deb image >/dev/null && m="$m debug"
	echo "$m"
}

cmd=${1:-}
[ $# -ge 1 ] && shift
case "$cmd" in
matrix)		matrix ;;
release)	release "${1:?name}" ;;
build)		build_dir "${1:?name}" ;;
image)		image "${1:?name}" ;;
moddir)		moddir "${1:?name}" ;;
prepare)	prepare "${1:?name}" ;;
*)		sed -n '8,15s/^# \{0,1\}//p' "$0"; exit 2 ;;
esac

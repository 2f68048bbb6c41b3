#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel matrix: maps a short name (6.1, 6.12, 7.3, debug, or a full
# release string) to the files that build and boot it.  Used by the
# Makefile, the VM runner and the test driver, so that adding a kernel is
# a change in one place (see Documentation/testing.md).
#
#   kernels.sh matrix              names of the default matrix present here
#   kernels.sh release NAME        its `uname -r`
#   kernels.sh build NAME          the headers' build directory (inside the
#                                  build root for trixie's kernels)
#   kernels.sh exec NAME CMD...    run CMD where NAME's module is built
#   kernels.sh prepare-build NAME  get NAME's headers (and build root)
#   kernels.sh image NAME          the bootable bzImage
#   kernels.sh moddir NAME         root under which lib/modules/RELEASE lives
#   kernels.sh prepare-boot NAME   download and unpack NAME's image
#
# Where each kernel comes from:
#   6.1, 6.12  Debian 12's own kernels: headers installed with apt (they
#              change nothing that boots), image downloaded and unpacked
#   7.3        trixie-backports, pinned: headers in a trixie build root
#              (gcc-14), image unpacked from Debian's packages
#   debug      ../shared/kernels: the debug 6.12 (KASAN, lockdep, kmemleak)
# No kernel image is ever installed on this machine; images live under
# .build/kernels/RELEASE.  Any other release string builds against
# /lib/modules/RELEASE/build and is never installed for you.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SHARED=${MPLANE_SHARED:-$ROOT/../shared}
BUILD=${MPLANE_BUILD:-$ROOT/.build}
KERNELS_DIR=$BUILD/kernels
DEBUG_DIR=$KERNELS_DIR/debug
# The newest 7.x that trixie-backports serves, pinned as 6.12 is.
TRIXIE_RELEASE=7.3.4+deb13-amd64
BUILDROOT_PKGS=(make gcc-14)

die() { echo "kernels.sh: $*" >&2; exit 1; }

debug_deb() {
	local kind=$1 f
	for f in "$SHARED"/kernels/linux-"$kind"-*-mplane-debug_*.deb; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

# Debian 12's 6.1: the release that its linux-headers-amd64 points at.
bookworm_61_release() {
	local r
	r=$(apt-cache depends linux-headers-amd64 2>/dev/null |
		sed -n 's/.*Depends: linux-headers-\(6\.1\.[^ ]*-amd64\)$/\1/p' | head -n1)
	[ -n "$r" ] || r=$(ls /usr/src 2>/dev/null | sed -n 's/^linux-headers-\(6\.1\.0-[0-9]*-amd64\)$/\1/p' |
		sort -V | tail -n1)
	[ -n "$r" ] || die "apt knows no Debian 6.1 kernel (apt-get update)"
	echo "$r"
}

release() {
	case "$1" in
	6.1)	bookworm_61_release ;;
	6.12)	echo "6.12.117+deb12-amd64" ;;
	7.3|7.x) echo "$TRIXIE_RELEASE" ;;
	debug)	local deb; deb=$(debug_deb image) || die "no debug kernel in $SHARED/kernels"
		basename "$deb" | sed -n 's/^linux-image-\(.*-mplane-debug\)_.*/\1/p' ;;
	*)	echo "$1" ;;
	esac
}

# origin RELEASE: debug, trixie (Debian 13's packages, built in the
# build root), matrix (one of Debian 12's kernels of the matrix) or host.
origin() {
	case "$1" in
	*-mplane-debug) echo debug ;;
	*+deb13-amd64) echo trixie ;;
	6.1.0-*-amd64|6.12.*+deb12-amd64) echo bookworm ;;
	*) echo host ;;
	esac
}

trixie_root() { "$ROOT/scripts/buildroot.sh" trixie path; }

build_dir() {
	local r; r=$(release "$1")
	case "$(origin "$r")" in
	debug)	echo "$DEBUG_DIR/headers/usr/src/linux-headers-$r" ;;
	trixie)	echo "/usr/src/linux-headers-$r" ;;
	*)	echo "/lib/modules/$r/build" ;;
	esac
}

# A build directory as seen from this machine (the build root's is
# inside it), to check that it exists.
build_dir_here() {
	local r; r=$(release "$1")
	if [ "$(origin "$r")" = trixie ]; then
		echo "$(trixie_root)$(build_dir "$1")"
	else
		build_dir "$1"
	fi
}

prepare_debug_headers() {
	local r=$1 hdr
	hdr=$(debug_deb headers) || die "no debug kernel headers deb in $SHARED/kernels"
	if [ ! -d "$DEBUG_DIR/headers/usr/src/linux-headers-$r" ]; then
		rm -rf "$DEBUG_DIR/headers" && mkdir -p "$DEBUG_DIR/headers"
		dpkg-deb -x "$hdr" "$DEBUG_DIR/headers"
	fi
}

# Debian 12's headers for a kernel of the matrix: a package of headers
# and build scripts (6.12's also pull its image, which is not booted).
prepare_bookworm_headers() {
	local r=$1 pkg=linux-headers-$1
	[ -d "/lib/modules/$r/build" ] && return 0
	[ "$(id -u)" -eq 0 ] || die "missing $pkg; run as root to install it"
	echo "  APT     $pkg"
	# 6.12's headers depend on its image, whose postinst would make an
	# initramfs this machine never boots (75 s of a fresh make check):
	# INITRD=No skips it, and without one the trigger has none to update.
	local -x INITRD=No
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null 2>&1 ||
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null; } ||
		die "cannot install $pkg"
}

prepare_build() {
	local r; r=$(release "$1")
	case "$(origin "$r")" in
	debug)	prepare_debug_headers "$r" ;;
	trixie)	"$ROOT/scripts/buildroot.sh" trixie ensure "${BUILDROOT_PKGS[@]}" "linux-headers-$r" ;;
	bookworm) prepare_bookworm_headers "$r" ;;
	host)	[ -d "/lib/modules/$r/build" ] ||
			die "no headers for $r (/lib/modules/$r/build): install linux-headers-$r, e.g. apt-get install linux-headers-$r" ;;
	esac
}

exec_build() {
	local r; r=$(release "$1")
	shift
	if [ "$(origin "$r")" = trixie ]; then
		exec "$ROOT/scripts/buildroot.sh" trixie run "$@"
	fi
	exec "$@"
}

# Unpacked images: .build/kernels/RELEASE/root, with modules.dep made by
# depmod as the package's installation would have.
unpacked() { echo "$KERNELS_DIR/$1/root"; }

# The files of an unpacked release: a bookworm package puts the image in
# /boot and modules in /lib/modules; trixie's in /usr/lib/modules.
unpacked_image() {
	local root r=$1 f
	root=$(unpacked "$r")
	for f in "$root/boot/vmlinuz-$r" "$root/usr/lib/modules/$r/vmlinuz"; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

unpacked_moddir() {
	local root; root=$(unpacked "$1")
	if [ -d "$root/usr/lib/modules/$1" ]; then echo "$root/usr"; else echo "$root"; fi
}

image() {
	local r; r=$(release "$1")
	case "$(origin "$r")" in
	debug)	echo "$DEBUG_DIR/image/boot/vmlinuz-$r" ;;
	host)	echo "/boot/vmlinuz-$r" ;;
	*)	unpacked_image "$r" || echo "$(unpacked "$r")/boot/vmlinuz-$r" ;;
	esac
}

moddir() {
	local r; r=$(release "$1")
	case "$(origin "$r")" in
	debug)	echo "$DEBUG_DIR/image" ;;
	host)	echo "/" ;;
	*)	unpacked_moddir "$r" ;;
	esac
}

# download_debs ORIGIN DIR PKG...: from Debian 12 (the machine's own apt,
# download only) or from trixie (scripts/apt.sh).
download_debs() {
	local from=$1 dir=$2
	shift 2
	if [ "$from" = trixie ]; then
		"$ROOT/scripts/apt.sh" trixie download "$dir" "$@"
		return
	fi
	mkdir -p "$dir"
	(cd "$dir" && apt-get -q=2 download "$@" >/dev/null 2>&1) ||
		{ apt-get update -qq && (cd "$dir" && apt-get -q=2 download "$@" >/dev/null); } ||
		die "cannot download $* from Debian"
}

# unpack_release ORIGIN RELEASE: the image and modules of RELEASE under
# .build/kernels/RELEASE.  Newer Debian kernels split linux-image-R into
# linux-base-R, linux-binary-R and linux-modules-R, which it depends on.
unpack_release() {
	local from=$1 r=$2 dir root debs=() dep
	dir=$KERNELS_DIR/$r
	root=$(unpacked "$r")
	unpacked_image "$r" >/dev/null && [ -f "$(unpacked_moddir "$r")/lib/modules/$r/modules.dep" ] &&
		return 0
	echo "  KERNEL  $r (download and unpack; nothing is installed)"
	download_debs "$from" "$dir/debs" "linux-image-$r"
	debs=("$dir"/debs/linux-image-"$r"_*.deb)
	for dep in $(dpkg-deb -f "${debs[0]}" Depends | tr ',|' '\n\n' |
		awk -v r="$r" '$1 == "linux-binary-" r || $1 == "linux-modules-" r || $1 == "linux-base-" r { print $1 }'); do
		download_debs "$from" "$dir/debs" "$dep"
		debs+=("$dir"/debs/"$dep"_*.deb)
	done
	rm -rf "$root.tmp" && mkdir -p "$root.tmp"
	for dep in "${debs[@]}"; do dpkg-deb -x "$dep" "$root.tmp"; done
	rm -rf "$root" && mv "$root.tmp" "$root"
	unpacked_image "$r" >/dev/null || die "no vmlinuz in the packages of $r"
	depmod -b "$(unpacked_moddir "$r")" "$r" || die "depmod $r failed"
}

prepare_boot() {
	local r img
	r=$(release "$1")
	case "$(origin "$r")" in
	debug)
		img=$(debug_deb image) || die "no debug kernel image deb"
		if [ ! -f "$DEBUG_DIR/image/boot/vmlinuz-$r" ] || [ "$img" -nt "$DEBUG_DIR/image/boot/vmlinuz-$r" ]; then
			rm -rf "$DEBUG_DIR/image" && mkdir -p "$DEBUG_DIR/image"
			dpkg-deb -x "$img" "$DEBUG_DIR/image"
		fi ;;
	trixie|bookworm) unpack_release "$(origin "$r")" "$r" ;;
	host)	[ -r "/boot/vmlinuz-$r" ] || die "no image for $r in /boot" ;;
	esac
}

# The default matrix: Debian 12's two kernels, the newest 7.x, and the
# debug kernel when ../shared provides it.
matrix() {
	local m="6.1 6.12 7.3"
	debug_deb image >/dev/null && m="$m debug"
	echo "$m"
}

cmd=${1:-}
[ $# -ge 1 ] && shift
case "$cmd" in
matrix)		matrix ;;
release)	release "${1:?name}" ;;
origin)		origin "$(release "${1:?name}")" ;;
build)		build_dir "${1:?name}" ;;
build-here)	build_dir_here "${1:?name}" ;;
exec)		n=${1:?name}; shift; exec_build "$n" "$@" ;;
prepare-build)	prepare_build "${1:?name}" ;;
image)		image "${1:?name}" ;;
moddir)		moddir "${1:?name}" ;;
prepare-boot|prepare) prepare_boot "${1:?name}" ;;
*)		sed -n '8,17s/^# \{0,1\}//p' "$0"; exit 2 ;;
esac

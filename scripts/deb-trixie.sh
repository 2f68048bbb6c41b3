#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb-trixie.sh: mplane-tools and mplane-dkms for Debian 13 (trixie), as
# make deb builds them for Debian 12: dpkg-buildpackage, from a copy of
# the tree's files, but inside the trixie build root (scripts/buildroot.sh)
# with trixie's compilers and libraries, so that the packages name
# trixie's libraries (libmicrohttpd12t64, ...) and are what a trixie
# fleet installs.  Into $MPLANE_BUILD/deb-trixie/ (make deb-trixie).
#
#   deb-trixie.sh            build them; print the .debs' paths
#   deb-trixie.sh lintian    build them, then run trixie's lintian on them
#                            in the build root (its output, one tag a line)
#
# The build dependencies are debian/control's Build-Depends, installed in
# the build root (never on this machine).  The BPF programs' vmlinux.h
# comes from this machine's kernel BTF, as make deb's does: the build
# root has no /sys, and the programs are CO-RE.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${MPLANE_BUILD:-$ROOT/.build}
OUT=$BUILD/deb-trixie
VERSION=$(<"$ROOT/VERSION")
br=$ROOT/scripts/buildroot.sh

die() { echo "deb-trixie.sh: $*" >&2; exit 1; }

# Build-Depends by package name: versions dropped, the first of
# alternatives (trixie's), and debhelper-compat (a virtual package) is
# debhelper's.
build_deps() {
	sed -n '/^Build-Depends:/,/^[^ ]/{/^Build-Depends:/s/^[^:]*://p; /^ /p}' "$ROOT/debian/control" |
		tr ',' '\n' | sed 's/|.*//; s/(.*)//; s/[[:space:]]//g; /^$/d; s/^debhelper-compat$/debhelper/'
}

build() {
	local src=$OUT/mplane-$VERSION
	# shellcheck disable=SC2046 # a list of names
	"$br" trixie ensure build-essential perl $(build_deps)
	rm -rf "$OUT" && mkdir -p "$src"
	(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 cp --parents -t "$src")
	cp /sys/kernel/btf/vmlinux "$OUT/vmlinux.btf" || die "no kernel BTF on this machine"
	echo "  DEB     ${OUT#"$ROOT"/} (trixie build root)" >&2
	# shellcheck disable=SC2016
	if ! "$br" trixie run sh -c 'cd "$1" && VMLINUX_BTF=$2 dpkg-buildpackage -b -us -uc' \
		sh "$src" "$OUT/vmlinux.btf" >"$OUT/build.log" 2>&1; then
		tail -n 30 "$OUT/build.log" >&2
		die "dpkg-buildpackage failed in the trixie build root (log: $OUT/build.log)"
	fi
	ls "$OUT"/mplane-tools_"$VERSION"_*.deb "$OUT"/mplane-dkms_"$VERSION"_all.deb
}

case "${1:-}" in
"") build ;;
lintian)
	build >/dev/null
	"$br" trixie ensure lintian >/dev/null
	# shellcheck disable=SC2016
	"$br" trixie run sh -c 'lintian --tag-display-limit 0 "$@" 2>&1' sh \
		"$OUT"/mplane-tools_"$VERSION"_*.deb "$OUT"/mplane-dkms_"$VERSION"_all.deb ;;
*) sed -n '4,17s/^# \{0,1\}//p' "$0"; exit 2 ;;
esac

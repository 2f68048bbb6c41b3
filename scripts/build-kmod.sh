#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-kmod.sh NAME: build mplane.ko for one kernel of the matrix with W=1,
# and fail on any compiler warning.  It installs nothing but NAME's
# headers (scripts/kernels.sh prepare-build), and those only for the
# kernels of the matrix; any other kernel's missing package is named.
#
# Kbuild writes objects next to the sources and, before 6.13, M= cannot put
# them elsewhere; so each kernel gets its own tree of symlinks to the
# sources under .build/kmod/RELEASE, and builds never mix objects.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${MPLANE_BUILD:-$ROOT/.build}
name=${1:?usage: build-kmod.sh NAME}

kernels=$ROOT/scripts/kernels.sh
"$kernels" prepare-build "$name"
release=$("$kernels" release "$name")
kdir=$("$kernels" build "$name")
[ -d "$("$kernels" build-here "$name")" ] ||
	{ echo "build-kmod: no headers for $release at $kdir" >&2; exit 1; }

tree=$BUILD/kmod/$release
mkdir -p "$tree"
# Mirror the sources as symlinks; drop links whose source went away.
(cd "$ROOT" && find Kbuild VERSION kmod uapi selftests/kmod/testmod -type f \
	\( -name '*.[ch]' -o -name Kbuild -o -name VERSION \) ) |
while read -r f; do
	mkdir -p "$tree/$(dirname "$f")"
	ln -sfn "$ROOT/$f" "$tree/$f"
done
find "$tree" -xtype l -delete

# build DIR: one Kbuild directory of the tree, W=1, no warning allowed.
# Kernels newer than this machine's compiler build in their build root
# (kernels.sh exec), which sees this tree at the same path.
build() {
	local dir=$1 log=$1/build.log
	if ! "$kernels" exec "$name" make -j"$(nproc)" -C "$kdir" M="$dir" W=1 modules >"$log" 2>&1; then
		cat "$log" >&2
		echo "build-kmod: $release: build of ${dir#"$tree"/} failed" >&2
		exit 1
	fi
	# make's own notes (a jobserver reset under make -j) are no compiler's.
	if grep -E 'warning:|WARNING:' "$log" | grep -v '^make\[[0-9]*\]: ' >&2; then
		echo "build-kmod: $release: warnings (W=1 must be clean)" >&2
		exit 1
	fi
}

build "$tree"
# The test modules (selftests/kmod/testmod), never installed.
build "$tree/selftests/kmod/testmod"
echo "  KMOD    $release -> ${tree#"$ROOT"/}/kmod/mplane.ko"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-kmod.sh NAME: build mplane.ko for one kernel of the matrix with W=1,
# and fail on any compiler warning.
#
# Kbuild writes objects next to the sources and, before 6.13, M= cannot put
# them elsewhere; so each kernel gets its own tree of symlinks to the
# sources under .build/kmod/RELEASE, and builds never mix objects.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${MPLANE_BUILD:-$ROOT/.build}
name=${1:?usage: build-kmod.sh NAME}

"$ROOT/scripts/kernels.sh" prepare "$name"
release=$("$ROOT/scripts/kernels.sh" release "$name")
kdir=$("$ROOT/scripts/kernels.sh" build "$name")
[ -d "$kdir" ] || { echo "build-kmod: no headers for $release at $kdir (make deps)" >&2; exit 1; }

tree=$BUILD/kmod/$release
mkdir -p "$tree"
# Mirror the sources as symlinks; drop links whose source went away.
(cd "$ROOT" && find Kbuild kmod uapi -type f \( -name '*.[ch]' -o -name Kbuild \) ) |
while read -r f; do
	mkdir -p "$tree/$(dirname "$f")"
	ln -sfn "$ROOT/$f" "$tree/$f"
done
find "$tree" -xtype l -delete

log=$tree/build.log
if ! make -C "$kdir" M="$tree" W=1 modules >"$log" 2>&1; then
	cat "$log" >&2
	echo "build-kmod: $release: build failed" >&2
	exit 1
fi
if grep -E 'warning:|WARNING:' "$log" >&2; then
	echo "build-kmod: $release: warnings (W=1 must be clean)" >&2
	exit 1
fi
echo "  KMOD    $release -> ${tree#$ROOT/}/kmod/mplane.ko"

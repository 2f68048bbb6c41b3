#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms-build.sh NAME...: build and install mplane.ko with DKMS, as the
# mplane-dkms package does on a host, for each kernel NAME of the matrix
# (scripts/kernels.sh) whose headers build with this machine's compiler.
# Nothing of the machine's is touched: the source goes where
# 'make install-dkms DESTDIR=.build/dkms/root' puts it, DKMS's tree and
# its signing key are under .build/dkms, and each module lands in
# .build/dkms/modules/RELEASE/updates/dkms/mplane.ko, which the VM's
# selftests/kmod/dkms.sh installs into the guest's /lib/modules.
#
# Kernels whose headers are in the trixie build root (gcc-14) are built
# by the build root's own DKMS (scripts/buildroot.sh installs it there).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${MPLANE_BUILD:-$ROOT/.build}
DKMS=$BUILD/dkms
VERSION=$(<"$ROOT/VERSION")
kernels=$ROOT/scripts/kernels.sh

command -v dkms >/dev/null || { echo "dkms-build: no dkms (scripts/deps.sh package)" >&2; exit 1; }
rm -rf "$DKMS/root" "$DKMS/tree"
mkdir -p "$DKMS/tree" "$DKMS/modules"
make -s -C "$ROOT" install-dkms DESTDIR="$DKMS/root" >/dev/null
src=$DKMS/root/usr/src
# DKMS signs what it builds, with a key it makes on first use: ours.
export mok_signing_key=$DKMS/mok.key mok_certificate=$DKMS/mok.pub
opts=(-m mplane -v "$VERSION" --sourcetree "$src" --dkmstree "$DKMS/tree")
dkms add "${opts[@]}" >/dev/null
for name in "$@"; do
	release=$("$kernels" release "$name")
	kdir=$("$kernels" build "$name")
	run=()
	if [ ! -d "$kdir" ]; then
		# Its headers are in the build root: so is the DKMS that builds.
		"$ROOT/scripts/buildroot.sh" trixie ensure dkms >/dev/null
		run=("$ROOT/scripts/buildroot.sh" trixie run env
			mok_signing_key="$mok_signing_key" mok_certificate="$mok_certificate")
	fi
	log=$DKMS/$release.log
	rm -rf "${DKMS:?}/modules/$release"
	mkdir -p "$DKMS/modules/$release"
	if ! "${run[@]}" dkms build "${opts[@]}" -k "$release" --kernelsourcedir "$kdir" >"$log" 2>&1 ||
	   ! "${run[@]}" dkms install "${opts[@]}" -k "$release" --kernelsourcedir "$kdir" \
		--installtree "$DKMS/modules" --no-depmod >>"$log" 2>&1; then
		echo "dkms-build: $release failed; see $log" >&2
		tail -n 20 "$log" >&2
		exit 1
	fi
	echo "  DKMS    $release -> ${DKMS#"$ROOT"/}/modules/$release/updates/dkms/mplane.ko"
done

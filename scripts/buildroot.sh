#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# buildroot.sh SUITE COMMAND...: a Debian build root under .build/, for
# kernels whose headers need a newer compiler and C library than this
# machine has (trixie's kernels want gcc-14).  It is made once with
# debootstrap, from Debian's own servers, and kept.
#
#   buildroot.sh trixie ensure PKG...  make it if needed; install PKG in it
#   buildroot.sh trixie run CMD...     run CMD inside it, with the project
#                                      tree (and .build) at their own paths
#   buildroot.sh trixie path           where it is
#
# Progress goes to stderr: callers read `path`'s stdout, and take
# `ensure`'s as nothing (deb-trixie.sh prints the packages it built on
# its own stdout, after an ensure).
#
# Nothing is installed on this machine but debootstrap itself.  `run`
# works in a private mount namespace: the bind mounts it makes vanish
# with it, whatever happens to the command.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${MPLANE_BUILD:-$ROOT/.build}
MIRROR=${MPLANE_DEBIAN_MIRROR:-http://deb.debian.org/debian}

die() { echo "buildroot.sh: $*" >&2; exit 1; }
usage() { sed -n '4,13s/^# \{0,1\}//p' "$0"; exit 2; }

[ $# -ge 2 ] || usage
suite=$1 cmd=$2
shift 2
case "$suite" in
trixie) extra_suites="trixie-backports" ;;
*) die "unknown suite '$suite' (known: trixie)" ;;
esac
br=$BUILD/buildroot/$suite

# create: debootstrap into a temporary directory, renamed when complete,
# so that an interrupted run never leaves a half-made root behind.
create() {
	local tmp=$br.tmp s
	[ -x "$br/usr/bin/apt-get" ] && return 0
	"$ROOT/scripts/deps.sh" --quiet buildroot
	[ "$(id -u)" -eq 0 ] || die "making the $suite build root needs root"
	echo "  ROOT    $suite build root (debootstrap, about 30 s) -> ${br#"$ROOT"/}" >&2
	rm -rf "$tmp"
	mkdir -p "$(dirname "$br")"
	if ! debootstrap --variant=minbase "$suite" "$tmp" "$MIRROR" >"$br.log" 2>&1; then
		tail -n 20 "$br.log" >&2
		rm -rf "$tmp"
		die "debootstrap $suite failed (log: $br.log)"
	fi
	{
		echo "deb $MIRROR $suite main"
		for s in $extra_suites; do echo "deb $MIRROR $s main"; done
	} >"$tmp/etc/apt/sources.list"
	mv "$tmp" "$br"
}

# in_root CMD...: run CMD in the build root, as root, in a private mount
# namespace with /proc (objtool reads its limits there) and the tree.
in_root() {
	local binds=("$ROOT") b
	case "$BUILD/" in "$ROOT"/*) ;; *) binds+=("$BUILD") ;; esac
	for b in "${binds[@]}"; do mkdir -p "$br$b"; done
	# shellcheck disable=SC2016
	unshare -m /bin/sh -c '
		br=$1; n=$2; shift 2
		mount -t proc proc "$br/proc" || exit 125
		while [ "$n" -gt 0 ]; do
			mount --bind "$1" "$br$1" || exit 125
			shift; n=$((n - 1))
		done
		exec chroot "$br" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"' \
		sh "$br" ${#binds[@]} "${binds[@]}" "$@"
}

ensure() {
	local p missing=()
	create
	for p in "$@"; do
		in_root dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null |
			grep -qx installed || missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	echo "  ROOT    $suite: installing ${missing[*]}" >&2
	if ! in_root sh -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends "$@"' \
		sh "${missing[@]}" >"$br.install.log" 2>&1; then
		tail -n 20 "$br.install.log" >&2
		die "cannot install ${missing[*]} in the $suite build root (log: $br.install.log)"
	fi
}

case "$cmd" in
ensure) ensure "$@" ;;
run) [ -x "$br/usr/bin/apt-get" ] || die "no $suite build root yet (ensure first)"; in_root "$@" ;;
path) echo "$br" ;;
*) usage ;;
esac

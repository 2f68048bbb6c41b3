#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# apt.sh SUITE COMMAND...: apt with the project's own sources file and
# state, never the machine's.  It reads Debian's package servers for a
# suite the machine does not run (trixie and trixie-backports, for the
# newer kernels of the matrix) and only ever downloads: nothing is
# installed on this machine through it.
#
#   apt.sh trixie update             refresh the package lists (cached a day)
#   apt.sh trixie download DIR PKG.. fetch .debs into DIR (kept: a second
#                                    call with the same names costs nothing)
#   apt.sh trixie policy PKG         is PKG known, and at which version
#
# Everything lives under .build/apt/SUITE: sources.list, lists, the
# package cache.  The archive keys are Debian's own keyring, which
# Debian 12 ships with trixie's keys.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${MPLANE_BUILD:-$ROOT/.build}
MIRROR=${MPLANE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

die() { echo "apt.sh: $*" >&2; exit 1; }
usage() { sed -n '4,16s/^# \{0,1\}//p' "$0"; exit 2; }

[ $# -ge 2 ] || usage
suite=$1 cmd=$2
shift 2
case "$suite" in
trixie) suites="trixie trixie-backports" ;;
*) die "unknown suite '$suite' (known: trixie)" ;;
esac

dir=$BUILD/apt/$suite
mkdir -p "$dir"/lists/partial "$dir"/cache/archives/partial "$dir"/prefs.d
for s in $suites; do
	echo "deb [signed-by=$KEYRING] $MIRROR $s main"
done >"$dir/sources.list.tmp"
if ! cmp -s "$dir/sources.list.tmp" "$dir/sources.list" 2>/dev/null; then
	mv "$dir/sources.list.tmp" "$dir/sources.list"
	rm -f "$dir/updated"
else
	rm -f "$dir/sources.list.tmp"
fi

# No status file: this apt knows nothing of what the machine has
# installed, so it never plans an installation on it.
opts=(-o "Dir::Etc::SourceList=$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
      -o Dir::Etc::Preferences=/dev/null -o "Dir::Etc::PreferencesParts=$dir/prefs.d"
      -o "Dir::State=$dir" -o "Dir::State::Lists=$dir/lists"
      -o Dir::State::status=/dev/null -o "Dir::Cache=$dir/cache"
      -o APT::Architecture=amd64 -o Debug::NoLocking=1
      -o APT::Sandbox::User=root -q=1)

update() {
	# A day-old list still names the pinned kernels; a download that
	# misses refreshes it anyway.
	if [ -z "${1:-}" ] && [ -n "$(find "$dir/updated" -mmin -1440 2>/dev/null)" ]; then
		return 0
	fi
	apt-get "${opts[@]}" update >"$dir/update.log" 2>&1 ||
		{ cat "$dir/update.log" >&2; die "cannot read $MIRROR ($suite)"; }
	touch "$dir/updated"
}

download() {
	local dest=${1:?download DIR PKG...} p missing=()
	shift
	mkdir -p "$dest"
	for p in "$@"; do
		compgen -G "$dest/${p}_*.deb" >/dev/null || missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	update
	if ! (cd "$dest" && apt-get "${opts[@]}" download "${missing[@]}") >"$dir/download.log" 2>&1; then
		update force
		(cd "$dest" && apt-get "${opts[@]}" download "${missing[@]}") >"$dir/download.log" 2>&1 ||
			{ cat "$dir/download.log" >&2; die "cannot download ${missing[*]} from $suite"; }
	fi
}

case "$cmd" in
update) update force ;;
download) download "$@" ;;
policy) update; apt-cache "${opts[@]}" policy "${1:?policy PKG}" ;;
*) usage ;;
esac

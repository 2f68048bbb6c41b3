#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# launch.sh [OPTIONS] [-- TRAIN_ARGS...]: run allreduce_train.py with one
# rank per host namespace of a fabric ('mplanectl fabric up'), rank i on
# the i-th host of --hosts, rank 0's address the rendezvous, and print one
# JSON object: every rank's summary under "ranks" and the job's under
# "job" (an iteration lasts as long as its slowest rank, so each figure is
# the worst rank's).  A rank that fails or outlives --timeout ends the
# job: the other ranks are killed, one line names the rank, its host and
# its last words, and the exit status is 1.
#
# Options:
#   --prefix NAME   the fabric (default mpf)
#   --hosts LIST    h0,h1,... (default: every host of the fabric)
#   --addr KIND     rail: plane 0's rail, 10.100.H.2 on r0 (the default);
#                   mp0: the mplane address, 10.99.H.1 on mp0
#   --port PORT     the rendezvous port on rank 0 (default 29500)
#   --timeout SEC   the whole job's limit (default 300)
#   --out DIR       keep each rank's rank-I.json and rank-I.err here
#                   (default: a temporary directory, removed)
# TRAIN_ARGS go to every rank (tools/torch/allreduce_train.py --help).
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MPLANECTL=${MPLANECTL:-${MPLANE_BUILD:-$HERE/../../.build}/mplanectl}
# Debian's interpreter, the one python3-torch is installed for.
PYTHON=${MPLANE_PYTHON:-/usr/bin/python3}
prefix=mpf hosts="" addr=rail port=29500 limit=300 out=""

usage() { sed -n '4,22s/^# \{0,1\}//p' "$0"; exit "${1:-2}"; }
die() { echo "launch.sh: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
	case "$1" in
	--prefix) prefix=$2; shift 2 ;;
	--hosts) hosts=$2; shift 2 ;;
	--addr) addr=$2; shift 2 ;;
	--port) port=$2; shift 2 ;;
	--timeout) limit=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	-h|--help) usage 0 ;;
	--) shift; break ;;
	*) echo "launch.sh: unknown option '$1'" >&2; usage ;;
	esac
done
case "$addr" in
rail) ifname=r0 ;;
mp0) ifname=mp0 ;;
*) echo "launch.sh: bad --addr '$addr': want rail or mp0" >&2; exit 2 ;;
esac

if [ -z "$hosts" ]; then
	hosts=$("$MPLANECTL" -j fabric show --prefix "$prefix" |
		jq -r '[.nodes[] | select(.role == "host") | .name] | join(",")') ||
		die "no fabric '$prefix' (mplanectl fabric up)"
fi
IFS=, read -r -a names <<<"$hosts"
world=${#names[@]}
[ "$world" -ge 1 ] || die "no hosts"

# host_addr hH: its address of kind $addr.
host_addr() {
	local h=${1#h}
	[[ $1 == h* && $h =~ ^[0-9]+$ ]] || die "bad host '$1': want h<H>"
	if [ "$addr" = mp0 ]; then echo "10.99.$h.1"; else echo "10.100.$h.2"; fi
}
master=$(host_addr "${names[0]}"):$port

keep=$out
out=${out:-$(mktemp -d "${TMPDIR:-/tmp}/mplane-torch.XXXXXX")}
mkdir -p "$out" || die "cannot make $out"
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	[ -n "$keep" ] || rm -rf "$out"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

declare -A rank_of
for i in "${!names[@]}"; do
	# timeout(1) passes the kill on to the rank, and ends a hung one.
	"$MPLANECTL" fabric exec --prefix "$prefix" "${names[i]}" -- \
		timeout "$limit" "$PYTHON" "$HERE/allreduce_train.py" \
		--rank "$i" --world "$world" --master "$master" --ifname "$ifname" \
		"$@" >"$out/rank-$i.json" 2>"$out/rank-$i.err" &
	pids[i]=$!
	rank_of[$!]=$i
done

# Reap the ranks as they end; the first failure stops the others.
left=$world
while [ "$left" -gt 0 ]; do
	wait -n -p done_pid "${pids[@]}"
	rc=$?
	i=${rank_of[$done_pid]}
	unset "pids[$i]"
	left=$((left - 1))
	if [ "$rc" -ne 0 ]; then
		why=$(grep -v '^\s*$' "$out/rank-$i.err" | tail -n1)
		[ "$rc" -ne 124 ] || why="still running after ${limit}s"
		echo "launch.sh: rank $i on ${names[i]} failed (status $rc): ${why:-no message}" >&2
		exit 1
	fi
done

# What the ranks said (a warning such as no mark server), then their JSON.
for i in "${!names[@]}"; do
	sed "s/^/rank $i: /" "$out/rank-$i.err" >&2
done
for i in "${!names[@]}"; do cat "$out/rank-$i.json"; done |
	jq -s --argjson n "$world" --arg addr "$addr" '{
	  job: {world: $n, addr: $addr, bytes: .[0].bytes, floats: .[0].floats,
		step_count: .[0].step_count,
		step_times: {p50_us: (map(.step_times.p50_us) | max),
			     p99_us: (map(.step_times.p99_us) | max),
			     max_us: (map(.step_times.max_us) | max)},
		allreduce_times: {mean_us: (map(.allreduce_times.mean_us) | max),
				  p50_us: (map(.allreduce_times.p50_us) | max),
				  p99_us: (map(.allreduce_times.p99_us) | max)},
		busbw: (map(.busbw) | min), algbw: (map(.algbw) | min),
		verified: all(.[]; .ok), import_s: (map(.import_s) | max)},
	  ranks: .}' || die "bad output of a rank (in $out)"

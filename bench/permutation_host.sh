#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# permutation_host.sh: what limits TCP permutation goodput on the
# collective benchmark's fabric, with mp0 out of the way.  Issue 15's
# goal is 0.95 of the bisection in the mean and 0.90 in the worst of 8
# trials; bench/collective.sh measures it in a TCG guest at 2 Mbit/s
# links (far below the 0.95 goal), and the question is whether the guest,
# the paths, or TCP at that low a rate is the limit.  This script answers
# it by running the same permutation on the same topology wherever it is
# started: natively on the host kernel (no module needed: --no-mp0) and,
# unchanged, in the VM (selftests/vm/run 6.1 -- 'bash bench/...'), so the
# two can be compared at one rate.
#
# Topology: 8 hosts on one plane, single rail each, 2 leaves x 4 spines,
# every link RATE (tbf at both ends, as 'fabric up' makes it).  Host i
# sends to host i+4 (always across the spines) with iperf3 -P FLOWS for
# SECS seconds after OMIT seconds left out for slow start; the figure is
# the summed receiver goodput over 8 x RATE, the bisection (4 hosts a
# leaf, 4 spines, so bisection = every host's rail).  Note the ceiling:
# tbf counts 1514-byte frames and iperf3 counts TCP payload (1448 bytes
# with timestamps), so a full link carries 1448/1514 = 0.956 in goodput;
# and as every host also receives, its rail carries the other way's ACKs
# too, which pair2 below measures (Documentation/benchmarks.md: it never
# reached 0.95).
#
# Configurations, each on a fresh fabric at every rate:
#   ecmp   the switches' kernel ECMP (L4 hash), no BPF
#   ar     'bpf attach --fabric --policy ar' (per packet, emptiest queue)
#   flowlet  the same choice, kept while a flow's packets come closer
#          together than the gap (--policy flowlet, its default gap)
#   pair   one pair alone (h0 -> h4, same FLOWS): no contention at all, the
#          most TCP gets through one path of this rate and queue; a low
#          pair figure means the rate's TCP/queue dynamics, not paths
#   pair2  h0 -> h4 and h4 -> h0 at once: still no two pairs on a link,
#          but each rail now carries its own data and the ACKs of the
#          other way's, as every rail does in the permutation (each host
#          both sends and receives): the permutation with no path shared
#   ecmp-oneway, ar-oneway, flowlet-oneway
#          leaf 0's hosts to leaf 1's only (h0..h3 -> h4..h7): the same
#          16 flows over the same 4 spines in that direction, but no data
#          back, so every rail carries one way's data and the other way's
#          ACKs, as in pair; against 4 x RATE, the bisection one way
#
# Knobs (environment), so that the low-rate settings can be tried:
#   MPLANE_BENCH_PERM_RATES    link rates in Mbit/s (default "2 10 100")
#   MPLANE_BENCH_PERM_CONFIGS  (default "pair ecmp ar")
#   MPLANE_BENCH_TRIALS        trials a config and rate (default 8)
#   MPLANE_BENCH_SECS          iperf3 -t (default 5)
#   MPLANE_BENCH_OMIT          iperf3 -O, seconds not counted (default 1)
#   MPLANE_BENCH_FLOWS         iperf3 -P (default 4)
#   MPLANE_BENCH_TBF_LIMIT_MS  if set: every tbf's queue re-set to this
#                              many ms at its rate (plus the burst), in
#                              place of fabric up's 20 ms / 8 frames;
#                              AR's queue model keeps fabric up's limit
#   MPLANE_BENCH_ECN           1: tcp_ecn=1 on every host (default: the
#                              kernel's, 2: answered, never asked)
#
# Prints one line per trial (with /proc/loadavg at its start: the machine
# is shared, so compare only within one run) and a table of mean and
# worst; JSON lines to $OUT.  Not KTAP: a measurement, with no goal to
# fail on.
MPLANE_ROOT=${MPLANE_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
MPLANE_BUILD=${MPLANE_BUILD:-$MPLANE_ROOT/.build}
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
MPLANECTL=$MPLANE_BUILD/mplanectl
OUT=${MPLANE_BENCH_PERM_OUT:-${TMPDIR:-/tmp}/permutation_host.jsonl}
RATES=${MPLANE_BENCH_PERM_RATES:-2 10 100}
CONFIGS=${MPLANE_BENCH_PERM_CONFIGS:-pair ecmp ar}
TRIALS=${MPLANE_BENCH_TRIALS:-8}
SECS=${MPLANE_BENCH_SECS:-5}
OMIT=${MPLANE_BENCH_OMIT:-1}
FLOWS=${MPLANE_BENCH_FLOWS:-4}
LIMIT_MS=${MPLANE_BENCH_TBF_LIMIT_MS:-}
ECN=${MPLANE_BENCH_ECN:-}
FAB=mpp$$ HOSTS=8 LEAVES=2 SPINES=4
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-bench-perm.XXXXXX")
trap '"$MPLANECTL" fabric down --prefix $FAB >/dev/null 2>&1; rm -rf "$TMPD"' EXIT

rail() { echo "10.100.$1.2"; }
in_host() { local h=$1; shift; ip netns exec "$FAB-h$h" "$@"; }

fabric_build() {
	local mbit=$1 h
	"$MPLANECTL" fabric up --prefix $FAB --force --quiet --no-mp0 --planes 1 \
		--leaves $LEAVES --spines $SPINES --hosts $HOSTS \
		--rate "${mbit}mbit" >/dev/null || return 1
	[ -z "$LIMIT_MS" ] || tbf_retune $FAB "$LIMIT_MS" || return 1
	if [ -n "$ECN" ]; then
		for ((h = 0; h < HOSTS; h++)); do
			in_host $h sysctl -qw net.ipv4.tcp_ecn="$ECN" || return 1
		done
	fi
}

config() {
	"$MPLANECTL" bpf detach --fabric $FAB >/dev/null 2>&1 || true
	case $1 in
	ar|flowlet|ar-oneway|flowlet-oneway)
		"$MPLANECTL" bpf attach --fabric $FAB --policy "${1%-oneway}" >/dev/null ;;
	esac
}

# permutation SENDERS...: each sender i to i+4, at once; prints
# "goodput_mbit retransmits", summed over the senders.  Every iperf3
# runs under timeout: in the guest a trial once never ended, and a
# client whose namespace went away (an interrupted run) spins forever.
permutation() {
	local i peer f limit=$((OMIT + SECS + 30))
	rm -f "$TMPD"/iperf*.json
	for i in "$@"; do
		peer=$(( (i + HOSTS / 2) % HOSTS ))
		in_host $peer timeout -k 5 "$limit" iperf3 -s -1 -B "$(rail $peer)" \
			>/dev/null 2>&1 &
	done
	sleep 0.5
	for i in "$@"; do
		peer=$(( (i + HOSTS / 2) % HOSTS ))
		in_host $i timeout -k 5 "$limit" iperf3 -J -c "$(rail $peer)" \
			-B "$(rail $i)" -P "$FLOWS" -t "$SECS" -O "$OMIT" \
			>"$TMPD/iperf$i.json" 2>&1 &
	done
	wait
	# A client that did not finish (killed by timeout: a guest stalled
	# for good in one trial) counts 0.
	for f in "$TMPD"/iperf*.json; do
		jq -r '[.end.sum_received.bits_per_second // 0,
			.end.sum_sent.retransmits // 0] | @tsv' "$f" 2>/dev/null ||
			echo "0	0"
	done | awk '{ g += $1; r += $2 } END { print g / 1e6, r }'
}

: >"$OUT"
printf '# %s, kernel %s, %d CPUs; secs %s omit %s flows %s tbf limit (ms) %s ecn %s\n' \
	"$(date -u +%FT%TZ)" "$(uname -r)" "$(nproc)" "$SECS" "$OMIT" "$FLOWS" \
	"${LIMIT_MS:-default}" "${ECN:-default}"
for mbit in $RATES; do
	for c in $CONFIGS; do
		fabric_build "$mbit" || { echo "# fabric up at ${mbit}mbit failed"; exit 1; }
		config "$c" || { echo "# attach $c failed"; exit 1; }
		if [ "$c" = pair ]; then
			senders=(0) cap=$mbit
		elif [ "$c" = pair2 ]; then
			senders=(0 4) cap=$((2 * mbit))
		elif [ "${c%-oneway}" != "$c" ]; then
			senders=(0 1 2 3) cap=$((HOSTS * mbit / 2))
		else
			senders=(0 1 2 3 4 5 6 7) cap=$((HOSTS * mbit))
		fi
		for ((t = 0; t < TRIALS; t++)); do
			load=$(cut -d' ' -f1-3 /proc/loadavg)
			read -r good retx < <(permutation "${senders[@]}")
			echo "# ${mbit} Mbit/s $c trial $t: $good Mbit/s of $cap, retransmits $retx, load $load"
			jq -nc --argjson r "$mbit" --arg c "$c" --argjson t "$t" \
				--argjson g "$good" --argjson x "$retx" --argjson cap "$cap" \
				--arg load "$load" --arg limit "${LIMIT_MS:-default}" \
				--arg ecn "${ECN:-default}" --argjson secs "$SECS" \
				--argjson omit "$OMIT" --arg k "$(uname -r)" '
				{rate_mbit: $r, config: $c, trial: $t, goodput_mbit: $g,
				 capacity_mbit: $cap, fraction: ($g / $cap), retransmits: $x,
				 loadavg: $load, tbf_limit_ms: $limit, ecn: $ecn,
				 secs: $secs, omit: $omit, kernel: $k}' >>"$OUT"
		done
	done
done
"$MPLANECTL" fabric down --prefix $FAB >/dev/null 2>&1

echo "| rate | config | trials | mean | worst | retransmits/trial | loadavg (1 min) |"
echo "|---|---|---|---|---|---|---|"
jq -rs 'group_by([.rate_mbit, .config]) | sort_by(.[0].rate_mbit) | .[] |
	"| \(.[0].rate_mbit) Mbit/s | \(.[0].config) | \(length) | " +
	"\((map(.fraction) | add / length * 100 | round) / 100) | " +
	"\((map(.fraction) | min * 100 | round) / 100) | " +
	"\(map(.retransmits) | add / length | round) | " +
	"\(map(.loadavg | split(" ")[0] | tonumber) | "\(min)-\(max)") |"' "$OUT"

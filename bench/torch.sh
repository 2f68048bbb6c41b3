#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# torch.sh: a real framework's allreduce next to mplane's engine, in one
# run, over the same hosts of one fabric.  For each size, Debian's
# python3-torch (gloo) trains an MLP of that many floats with one rank
# per host, averaging its gradients by all_reduce each step
# (tools/torch/launch.sh); then 'mplanectl collective run --op allreduce'
# moves the same bytes between the same hosts.  Printed side by side:
# torch's step time (p50, p99) and its all_reduce time (mean, p50, p99),
# the engine's, and the busbw of both (nccl-tests' 2(n-1)/n); both check
# their results, and a size that fails a check fails the script.
# Results also go to .build/bench/torch.json.
#
# Natively on the running kernel the ranks use plane 0's rails
# (10.100.H.2).  MPLANE_BENCH_TORCH_ADDR=mp0 (in the VM, with MPLANE_KO)
# loads mplane.ko, builds mp0 over both planes' rails on every host and
# runs torch over the mplane addresses (10.99.H.1); the engine stays on
# plane 0's rails, which is all it speaks.
#
# Settings (environment): MPLANE_BENCH_TORCH_SIZES floats per size
# ("1M 4M"), _HOSTS (4), _RATE (1gbit), _STEPS (20), _WARMUP (3), _ADDR
# (rail or mp0).
# shellcheck source-path=SCRIPTDIR source=../selftests/lib/lib.sh
source "$(dirname "$0")/../selftests/lib/lib.sh"

MPLANECTL=$MPLANE_BUILD/mplanectl
LAUNCH=$MPLANE_ROOT/tools/torch/launch.sh
OUT=${MPLANE_BENCH_TORCH_OUT:-$MPLANE_BUILD/bench/torch.json}
SIZES=${MPLANE_BENCH_TORCH_SIZES:-1M 4M}
HOSTS=${MPLANE_BENCH_TORCH_HOSTS:-4}
RATE=${MPLANE_BENCH_TORCH_RATE:-1gbit}
STEPS=${MPLANE_BENCH_TORCH_STEPS:-20}
WARMUP=${MPLANE_BENCH_TORCH_WARMUP:-3}
ADDR=${MPLANE_BENCH_TORCH_ADDR:-rail}
FAB=mpbt$$
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-bench-torch.XXXXXX")
loaded=
cleanup() {
	"$MPLANECTL" fabric down --prefix "$FAB" >/dev/null 2>&1
	[ -z "$loaded" ] || rmmod mplane 2>/dev/null
	rm -rf "$TMPD"
}
trap '_lib_exit; cleanup' EXIT

if ! dpkg-query -W -f='${db:Status-Status}' python3-torch 2>/dev/null | grep -qx installed; then
	echo "# torch.sh: skipped: python3-torch is not installed (scripts/deps.sh torch)"
	exit 0
fi

# mp0 on every host over its rails in both planes, as scripts/demo.sh
# builds it: the mplane address, reachable through mp0 first.
mp0_up() {
	local h ns p
	insmod "${MPLANE_KO:?MPLANE_BENCH_TORCH_ADDR=mp0 needs MPLANE_KO}" || fail "insmod"
	loaded=1
	for ((h = 0; h < HOSTS; h++)); do
		ns=$FAB-h$h
		ip -n "$ns" link add mp0 type mplane || fail "mp0 on h$h"
		ip -n "$ns" addr add "10.99.$h.1/32" dev mp0
		ip -n "$ns" link set mp0 up
		for p in 0 1; do
			ip -n "$ns" link set "r$p" master mp0
			ip -n "$ns" route add 10.99.0.0/16 via "10.$((100 + p)).$h.1" \
				dev "r$p" metric $((100 + p))
		done
		ip -n "$ns" route add 10.99.0.0/16 dev mp0 src "10.99.$h.1" metric 10
	done
}

# mp0_tx: bytes every host's mp0 sent, per plane ("P0 P1"); empty on
# the rails.
mp0_tx() {
	local h
	[ "$ADDR" = mp0 ] || return 0
	for ((h = 0; h < HOSTS; h++)); do
		"$MPLANECTL" -n "$FAB-h$h" -j link show mp0
	done | jq -s -r '[.[].devices[0].planes] | transpose |
		map(map(.stats.tx_bytes) | add) | map(tostring) | join(" ")'
}

planes=1
[ "$ADDR" = rail ] || planes=2
"$MPLANECTL" fabric up -q --prefix "$FAB" --planes $planes --leaves 1 --spines 1 \
	--hosts "$HOSTS" --rate "$RATE" >/dev/null || fail "fabric up"
[ "$ADDR" = rail ] || mp0_up

echo "# torch.sh: allreduce over $HOSTS hosts ($ADDR) of a $planes-plane fabric at $RATE," \
	"$STEPS timed steps or iterations after $WARMUP"
printf '# %-7s %10s %10s %10s %10s %10s %10s %8s\n' "" bytes "step p50" "step p99" \
	"ar mean" "ar p50" "ar p99" busbw
printf '# %-7s %10s %10s %10s %10s %10s %10s %8s\n' "" "" "(us)" "(us)" "(us)" "(us)" \
	"(us)" "(GB/s)"
# sizes: one torch job and one engine run per size, as tab-separated
# rows and comment lines; non-zero when one failed.
sizes() {
	local size rc=0 port=29600
	for size in $SIZES; do
		port=$((port + 1))
		one_size "$size" $port || rc=1
	done
	return $rc
}

one_size() {
	local size=$1 port=$2 bytes tx0 tx1 p
	read -r -a tx0 < <(mp0_tx)
	bash "$LAUNCH" --prefix "$FAB" --addr "$ADDR" --port "$port" --timeout 1200 -- \
		--floats "$size" --steps "$STEPS" --warmup "$WARMUP" >"$TMPD/t.json" ||
		{ echo "# torch $size: failed"; return 1; }
	bytes=$(jq .job.bytes "$TMPD/t.json")
	if [ "$ADDR" = mp0 ]; then
		read -r -a tx1 < <(mp0_tx)
		for p in "${!tx1[@]}"; do
			tx1[p]=$((tx1[p] - tx0[p]))
		done
		echo "# torch over mp0: bytes sent per plane: ${tx1[*]}"
	fi
	"$MPLANECTL" -j collective run --prefix "$FAB" --op allreduce -b "$bytes" \
		-e "$bytes" -n "$STEPS" -w "$WARMUP" --no-marks >"$TMPD/e.json" ||
		{ echo "# engine $bytes: failed"; return 1; }
	jq -r '.job | [ "torch", .bytes, .step_times.p50_us, .step_times.p99_us, .allreduce_times.mean_us,
		.allreduce_times.p50_us, .allreduce_times.p99_us, .busbw ] | @tsv' "$TMPD/t.json"
	jq -r '.sizes[0] | [ "engine", .size, "-", "-", .time_us, .p50_us, .p99_us, .busbw ] |
		@tsv' "$TMPD/e.json"
	jq -r --slurpfile e "$TMPD/e.json" '.job | "# ratio (torch / engine): all_reduce mean \(
		.allreduce_times.mean_us / $e[0].sizes[0].time_us * 100 | round / 100)x, busbw \(
		.busbw / $e[0].sizes[0].busbw * 100 | round / 100)"' "$TMPD/t.json"
	jq -c --slurpfile e "$TMPD/e.json" '{floats: .job.floats, torch: .job,
		engine: $e[0].sizes[0]}' "$TMPD/t.json" >>"$TMPD/rows"
}

: >"$TMPD/rows"
sizes | awk -F'\t' '/^#/ { print; next }
	{ printf "  %-7s %10s %10s %10s %10.1f %10.1f %10.1f %8.4f\n", $1, $2, $3, $4, $5, $6, $7, $8 }'
rc=${PIPESTATUS[0]}
mkdir -p "$(dirname "$OUT")"
jq -s --arg addr "$ADDR" --arg rate "$RATE" --argjson hosts "$HOSTS" \
	'{hosts: $hosts, rate: $rate, addr: $addr, sizes: .}' "$TMPD/rows" >"$OUT"
echo "# results: $OUT"
exit "$rc"

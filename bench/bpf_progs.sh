#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bpf_progs.sh: the cost per packet of mplane's BPF programs, measured with
# BPF_PROG_TEST_RUN on the running kernel (no VM: the JIT is what is
# measured, and TCG would only blur it).  Each program is timed next to a
# program that only passes the packet, in the same run, and reported as a
# ratio to it (`fixtures --bench`, selftests/bpf/fixtures/bench.c).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${MPLANE_BUILD:-$ROOT/.build}
OUT=${MPLANE_BENCH_OUT:-$BUILD/bench/bpf_progs.txt}
REPEAT=${MPLANE_BENCH_REPEAT:-1000000}

mkdir -p "$(dirname "$OUT")"
"$BUILD/fixtures" --bench "$REPEAT" | tee "$OUT"

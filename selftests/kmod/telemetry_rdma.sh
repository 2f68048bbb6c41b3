#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The RDMA counter poller of 'mplanectl telemetry record --rdma' and
# 'telemetry export --rdma' on a real RDMA device: Soft-RoCE (rdma_rxe)
# over a veth, which the host kernel of the test machine cannot load.
# Every hw_counters file of the device's port must be in the capture under
# the kernel's own name ("DEV/PORT/COUNTER"), and on the exporter's
# /metrics as mplane_rdma_stat_total{node,dev,port,stat}, each with the
# value its file has (nothing moves them meanwhile).
# shellcheck source-path=SCRIPTDIR source=../lib/lib.sh
source "$(dirname "$0")/../lib/lib.sh"

MPLANECTL=$MPLANE_BUILD/mplanectl
TMPD=$(mktemp -d /tmp/mplane-rdma.XXXXXX)
RXE=mprxe$$
VA=mprv$$a
VB=mprv$$b

cleanup() {
	rdma link delete "$RXE" 2>/dev/null || true
	ip link del "$VA" 2>/dev/null || true
	rm -rf "$TMPD"
}
trap cleanup EXIT

rxe_up() {
	[ ! -d "/sys/class/infiniband/$RXE" ] || return 0
	# rdma_rxe needs crc32 by name, which no module alias provides.
	modprobe crc32_generic 2>/dev/null || true
	modprobe rdma_rxe 2>/dev/null || skip "no rdma_rxe module"
	command -v rdma >/dev/null || skip "no rdma tool (iproute2)"
	ip link add "$VA" type veth peer name "$VB"
	ip link set "$VA" up
	ip link set "$VB" up
	rdma link add "$RXE" type rxe netdev "$VA" ||
		fail "rdma link add $RXE over $VA"
	busywait 5000 test -d "/sys/class/infiniband/$RXE/ports/1/hw_counters" ||
		fail "no hw_counters for $RXE"
}

test_rdma_hw_counters() {
	local f=$TMPD/rdma.cap want got bad
	rxe_up
	"$MPLANECTL" telemetry record -o "$f" --pin "$TMPD/no-rings" \
		--poll-hz 1000 --poll-ifaces "$VA" --rdma --duration 1 \
		2>"$f.err" || fail "record: $(cat "$f.err")"
	"$MPLANECTL" telemetry dump "$f" >"$f.jsonl" || fail "dump"
	want=$(cd "/sys/class/infiniband/$RXE/ports/1/hw_counters" &&
		ls | grep -vx lifespan | sed "s|^|$RXE/1/|" | sort)
	got=$(jq -r 'select(.frame == "counter_name" and .kind == "rdma") | .name' \
		"$f.jsonl" | grep "^$RXE/" | sort)
	[ -n "$want" ] || fail "$RXE has no hw_counters"
	assert_eq "rxe counter names" "$got" "$want"
	# The last value of each counter in the capture, against its file.
	jq -s -r '[.[] | select(.frame == "event" and .counter != null)]
		| group_by(.counter)[] | "\(.[-1].counter) \(.[-1].value)"' \
		"$f.jsonl" | grep "^$RXE/" >"$TMPD/last"
	assert_eq "counters with values" "$(wc -l <"$TMPD/last")" \
		"$(echo "$want" | wc -l)"
	bad=$(while read -r name val; do
		[ "$(cat "/sys/class/infiniband/${name%%/*}/ports/1/hw_counters/${name##*/}")" = "$val" ] ||
			echo "$name=$val"
	done <"$TMPD/last")
	assert_eq "values that differ from the files" "$bad" ""
	log "$(echo "$want" | wc -l) counters of $RXE, e.g. $(echo "$want" | head -3 | tr '\n' ' ')"
}

# rxe_files: "COUNTER VALUE" of each hw_counters file of $RXE's port 1.
rxe_files() {
	local c
	for c in "/sys/class/infiniband/$RXE/ports/1/hw_counters"/*; do
		[ "${c##*/}" = lifespan ] || echo "${c##*/} $(cat "$c")"
	done | sort
}

# The live exporter polls them too with --rdma, as record does: every
# counter of $RXE, under {node,dev,port,stat} as the other pollers'
# counters are, with its file's value; and promtool takes the page.
test_rdma_exported() {
	local port m=$TMPD/rdma.metrics want got tool out
	rxe_up
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	"$MPLANECTL" telemetry export --listen "127.0.0.1:$port" --rdma \
		>"$TMPD/export.out" 2>&1 &
	export_pid=$!
	# This test's subshell only: the script's own trap removes the rest.
	trap 'kill $export_pid 2>/dev/null || true; cleanup_all_ns' EXIT
	# The pollers' first tick names and reads every counter.
	slowwait 20 sh -c "curl -sf -o '$m' http://127.0.0.1:$port/metrics &&
		grep -q '^mplane_rdma_stat_total{[^}]*dev=\"$RXE\"' '$m'" ||
		fail "no RDMA counter of $RXE on /metrics: $(cat "$TMPD/export.out")"
	want=$(rxe_files)
	[ -n "$want" ] || fail "$RXE has no hw_counters"
	got=$(sed -n "s/^mplane_rdma_stat_total{node=\"$(uname -n)\",dev=\"$RXE\",port=\"1\",stat=\"\([^\"]*\)\"} \([0-9]*\)\$/\1 \2/p" "$m" | sort)
	assert_eq "$RXE's counters on /metrics, {node,dev,port,stat}" "$got" "$want"
	grep -q '^# TYPE mplane_rdma_stat_total counter$' "$m" || fail "no TYPE line"
	tool=$("$MPLANE_ROOT/scripts/promtool.sh") || fail "no promtool (scripts/promtool.sh on the host first)"
	out=$("$tool" check metrics <"$m" 2>&1) || fail "promtool check metrics: $out"
	assert_eq "promtool's complaints" "$out" ""
	# Without the pollers, --rdma is refused, as record refuses it.
	expect_fail_msg "--rdma, --poll-hz 0" "--rdma polls: give a --poll-hz above 0" \
		"$MPLANECTL" telemetry export --rdma --poll-hz 0
	kill "$export_pid"
	wait "$export_pid" || fail "export did not stop cleanly: $(cat "$TMPD/export.out")"
	log "$(echo "$want" | wc -l) counters of $RXE on /metrics"
}

[ -x "$MPLANECTL" ] || skip "no $MPLANECTL (make tools)"
ktap_run test_rdma_hw_counters test_rdma_exported

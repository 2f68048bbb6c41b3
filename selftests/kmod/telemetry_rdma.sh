#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The RDMA counter poller of 'mplanectl telemetry record --rdma' on a
# real RDMA device: Soft-RoCE (rdma_rxe) over a veth, which the host
# kernel of the test machine cannot load.  Every hw_counters file of the
# device's port must be in the capture under the kernel's own name
# ("DEV/PORT/COUNTER"), and the last value of each must be what the file
# says after the recording (nothing moves them meanwhile).
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

[ -x "$MPLANECTL" ] || skip "no $MPLANECTL (make tools)"
ktap_run test_rdma_hw_counters

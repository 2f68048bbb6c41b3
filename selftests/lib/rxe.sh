#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What selftests/kmod/rxe.sh (two namespaces) and rxe_guests.sh (two
# guests) share: reading rxe's GIDs and mp0's planes, the ICRC check of
# rxe's packets, and the checks of each test's client output.  NS, where
# a function takes one, is a network namespace, or "" for the current.
# Source after lib.sh.

# rxe_in NS CMD...: CMD in NS.
rxe_in() {
	local ns=$1
	shift
	if [ -n "$ns" ]; then ip netns exec "$ns" "$@"; else "$@"; fi
}

# rxe_gid_index DEV N: the index of DEV's RoCE v2 GID for 10.98.0.N, read
# with bash alone (the table has 1024 entries behind one file each).
rxe_gid_index() {
	local d=/sys/class/infiniband/$1/ports/1 n v t
	for n in 0 1 2 3 4 5 6 7; do
		read -r v <"$d/gids/$n" 2>/dev/null || continue
		read -r t <"$d/gid_attrs/types/$n" 2>/dev/null || continue
		[[ $v == *:ffff:0a62:000$2 && $t == "RoCE v2" ]] && { echo "$n"; return 0; }
	done
	return 1
}
rxe_has_gid() { rxe_gid_index "$1" "$2" >/dev/null; }

# rxe_tx NS PLANE: packets NS's mp0 sent on PLANE.
rxe_tx() {
	rxe_in "$1" ethtool -S mp0 | awk -v k="plane$2_tx_packets:" '$1 == k { print $2 }'
}

# rxe_counters DEV: "NAME VALUE" for each of DEV's (rxe's) port counters;
# lifespan is not one (how long the kernel caches them, in ms).
rxe_counters() {
	local c v
	for c in "/sys/class/infiniband/$1/ports/1/hw_counters"/*; do
		[ "${c##*/}" != lifespan ] || continue
		read -r v 2>/dev/null <"$c" && echo "${c##*/} $v"
	done
}

# rxe_mark DEV: from now, rxe_explain gives DEV's counters as the change
# since, so that a test's own retries are not mixed with earlier tests'.
rxe_mark() { rxe_counters "$1" >"$TMPD/rxe-mark.$1"; }

# rxe_explain NS DEV OUT: what to know of a client or server that failed
# or hung, logged: its output OUT's end, its QPs' states and PSNs, DEV's
# (rxe's) counters that moved since rxe_mark (retries, sequence errors,
# RNR: whether rxe gave up, or never heard back), NS's mp0's per-plane
# ones and the drops of its own (not per plane, in ip -s link).
rxe_explain() {
	log "output: $(tail -n 5 "$3" | tr -s ' \n' ' ')"
	log "QPs: $(rxe_in "$1" rdma resource show qp link "$2/1" 2>&1 | tr -s ' \n' ' ')"
	rxe_qp_internals "$1" "$2"
	rxe_moved "$2"
	log "mp0: $(rxe_in "$1" ethtool -S mp0 2>&1 | awk '$1 ~ /:$/ && $2 != 0 { printf "%s%s ", $1, $2 }')" \
		"$(rxe_in "$1" ip -j -s link show mp0 2>/dev/null |
			jq -r '.[0].stats64 | "tx_dropped:\(.tx.dropped) rx_dropped:\(.rx.dropped)"')"
}

# rxe_moved DEV: DEV's (rxe's) counters that moved since rxe_mark,
# logged: retries, sequence errors, RNR.
rxe_moved() {
	local moved
	moved=$(rxe_counters "$1" | awk -v mark="$TMPD/rxe-mark.$1" '
		BEGIN { while ((getline l < mark) > 0) { split(l, f); was[f[1]] = f[2] } }
		$2 != was[$1] { printf "%s+%d ", $1, $2 - was[$1] }')
	log "$1 counters, moved since $([ -e "$TMPD/rxe-mark.$1" ] && echo "the test began" ||
		echo "rxe was added"): ${moved:-none}"
}

# rxe_reorder_moved NS: NS's mp0's resequencing counters (both planes'),
# logged when its reorder-window is on: held, gaps filled, and gaps given
# up as the window ended or the hold overflowed.
rxe_reorder_moved() {
	local j
	j=$(rxe_in "$1" "$MPLANECTL" -j link show mp0 2>/dev/null) || return 0
	[ "$(jq '.devices[0].reorder_us' <<<"$j")" != 0 ] || return 0
	log "mp0 resequencing ($(jq '.devices[0].reorder_us' <<<"$j") us): $(jq -r '[.devices[0].planes[].stats] |
		"held \(map(.reorder_held) | add), filled \(map(.reorder_filled) | add), expired \(map(.reorder_expired) | add), overflows \(map(.reorder_overflows) | add)"' <<<"$j")"
}

# rxe_qp_internals NS DEV: each of NS's rxe QPs as the kernel holds it
# (rxe_qp.bt), logged, when bpftrace is installed: what rdma resource
# show cannot say, whether the requester waits for skbs, for a PSN
# window or for nothing.
rxe_qp_internals() {
	local bt=$TMPD/rxe_qp.bt off all out rdma line drop=tasklets
	command -v bpftrace >/dev/null || { log "no bpftrace: rxe's QP internals not read"; return 0; }
	# rxe_qp's members, "NAME BYTE_OFFSET", from the module's BTF.
	bpftool btf dump file /sys/kernel/btf/rdma_rxe format raw 2>/dev/null | awk '
		/^\[/ { in_qp = $2 == "STRUCT" && $3 == "\047rxe_qp\047"; next }
		in_qp { gsub("\047", "", $1); sub("bits_offset=", "", $3); print $1, $3 / 8 }' \
		>"$TMPD/rxe_qp.members"
	off=$(awk '$1 == "skb_out" { print $2; exit }' "$TMPD/rxe_qp.members")
	[ -n "$off" ] || { log "rxe_qp has no skb_out in rdma_rxe's BTF: QP internals not read"; return 0; }
	grep -q '^send_task ' "$TMPD/rxe_qp.members" || drop="work items"
	sed -e "s/@SKB_OUT@/$off/" -e "\\|// $drop {|,\\|// }|d" \
		"$MPLANE_ROOT/selftests/lib/rxe_qp.bt" >"$bt"
	# bpftrace -c wants one binary, not a name found twice in PATH.
	rdma="$(readlink -f "$(command -v rdma)") resource show qp link $2/1"
	[ -z "$1" ] || rdma="$(readlink -f "$(command -v ip)") netns exec $1 $rdma"
	all=$(timeout 60 bpftrace "$bt" -c "$rdma" 2>&1)
	out=$(grep '^qp ' <<<"$all")
	[ -n "$out" ] || { log "bpftrace read no QP: $(grep -m1 ERROR <<<"$all")"; return 0; }
	while read -r line; do log "inside: $line"; done <<<"$out"
}

# rxe_wait_or_explain PID NS DEV OUT SECS: wait for PID (a client or a
# server, writing OUT); one still running after SECS is explained
# (rxe_explain) while its QPs are still there, before its own timeout
# kills it.  Returns its status.
rxe_wait_or_explain() {
	local i
	for ((i = 0; i < $5 * 10; i++)); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$1" 2>/dev/null; then
		log "${4##*/}'s program still runs after $5 s"
		rxe_explain "$2" "$3" "$4"
	fi
	wait "$1"
}

# rxe_tx_grew NS PLANE FROM N: plane PLANE sent N packets since FROM.
rxe_tx_grew() { [ $(($(rxe_tx "$1" "$2") - $3)) -ge "$4" ]; }

# rxe_icrc_start NS IFACE: roce_icrc.py on NS's IFACE, in the background
# until rxe_icrc_check, which asserts that it saw at least 100 of rxe's
# packets and found every one's ICRC right: rxe is the reference that
# the checker of mp0's CNPs (cc.sh's test_cnp_icrc) is checked against.
rxe_icrc_start() {
	local ready=$TMPD/icrc.ready
	local cmd=(python3 "$MPLANE_ROOT/selftests/lib/roce_icrc.py" --count 100000
		--timeout 120 --ready-file "$ready" "$2")
	rm -f "$ready"
	# Not through rxe_in: $! would be a subshell's, not the checker's.
	[ -z "$1" ] || cmd=(ip netns exec "$1" "${cmd[@]}")
	"${cmd[@]}" >"$TMPD/icrc.json" &
	RXE_ICRC_PID=$!
	busywait 10000 test -e "$ready" || fail "roce_icrc.py not ready"
}
rxe_icrc_check() {
	local json
	kill -TERM "$RXE_ICRC_PID"
	wait "$RXE_ICRC_PID"
	json=$(<"$TMPD/icrc.json")
	log "roce_icrc.py: $json"
	assert_ge "rxe's packets checked ($json)" "$(jq .checked <<<"$json")" 100
	assert_eq "rxe's packets with an ICRC roce_icrc.py finds wrong ($json)" \
		"$(jq .bad <<<"$json")" 0
}

# rxe_check_pingpong OUT P0 P1: ibv_rc_pingpong's client output OUT, of 50
# exchanges of 4096 bytes each way, with P0 and P1 packets on the planes.
rxe_check_pingpong() {
	assert_eq "bytes exchanged" "$(awk '/bytes in/ { print $1 }' "$1")" 409600
	log "RoCE through mp0: plane0 $2, plane1 $3 packets"
	# 50 sends of 4 packets (MTU 1024): rr puts half on each plane.
	assert_ge "plane0 packets" "$2" 75
	assert_ge "plane1 packets" "$3" 75
}

# rxe_check_send_lat OUT: ib_send_lat's client output has a latency.
rxe_check_send_lat() {
	local typ
	# #bytes #iterations t_min t_max t_typical ...
	typ=$(awk '$1 == 2 && $2 == 100 { print int($5) }' "$1")
	[ -n "$typ" ] || fail "no result line: $(cat "$1")"
	assert_ge "typical latency (us)" "$typ" 1
}

# rxe_check_write_bw OUT NS P0_CUT P1_CUT: ib_write_bw's client output
# has writes completed in perftest's window, and since NS's plane 1 was
# cut (its planes' counts then P0_CUT and P1_CUT) plane 1 sent nothing
# and plane 0 the rest.  The cut comes before the window, which is the
# middle half of -D's time: #iterations counts only the writes completed
# inside it.  Its bandwidth is not what is asserted: under TCG perftest
# now and then prints 0.00 MB/s and a message rate of 0 beside thousands
# of writes in the window, its cycle count of the window gone wrong
# (Documentation/rxe.md).
rxe_check_write_bw() {
	local iters bw
	# #bytes #iterations BW_peak BW_average MsgRate
	read -r iters bw < <(awk '$1 == 4096 && NF == 5 { print $2, $4 }' "$1")
	[ -n "$iters" ] || fail "no result line: $(cat "$1")"
	assert_ge "writes completed in perftest's window, after the cut" "$iters" 1
	awk -v b="$bw" 'BEGIN { exit !(b > 0) }' ||
		log "perftest's bandwidth $bw MB/s beside $iters writes: its time base, not the QP"
	log "plane 1 cut at $4 packets; after: plane0 +$(($(rxe_tx "$2" 0) - $3))," \
		"plane1 +$(($(rxe_tx "$2" 1) - $4))"
	assert_eq "plane1 packets after the cut" "$(rxe_tx "$2" 1)" "$4"
	assert_ge "plane0 packets after the cut" "$(($(rxe_tx "$2" 0) - $3))" 1
}

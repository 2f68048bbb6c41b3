#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The pktcount BPF programs and 'mplanectl bpf': namespaces a and b joined
# by the veth pair va--vb, programs on vb, every command run with -n.
# Counts are asserted exactly: IPv6 is off, so nothing but what a test
# sends crosses the link.

# a and b (the namespaces) are set by setup_ns, called from topo.
# shellcheck disable=SC2154
# shellcheck source-path=SCRIPTDIR source=../lib/lib.sh
source "$(dirname "$0")/../lib/lib.sh"

MPLANECTL=$MPLANE_BUILD/mplanectl
# tc priority of mplane's filter (PKTCOUNT_TC_PRIO, 0x4d50).
PKTCOUNT_PREF=19792
# What tc sees of a default ping: 56 data + 8 ICMP + 20 IPv4 + 14 Ethernet
# (skb->len includes the link-layer header at both hooks).
PING_LEN=98
# An ARP request or reply on veth: 28 ARP + 14 Ethernet, never padded.
ARP_LEN=42

mpctl() { "$MPLANECTL" -n "$b" "$@"; }

# topo [static]: the two namespaces and the link (veth_hosts).
topo() { veth_hosts "$@"; }

pings() { ip netns exec "$a" ping -q -c "$1" -i 0.01 -W 1 10.99.0.2 >/dev/null; }

# st : read 'bpf status -j vb' into S, flat (see json_flat), for the
# assertions that follow: S[ingress.ipv4.packets].
declare -A S
st() { json_flat S "$(mpctl -j bpf status vb)"; }

# our_filters in|eg : how many pktcount programs the hook holds, on tcx
# and cls_bpf together (tc_progs)
our_filters() { tc_progs "$b" vb "$1" | grep -c " mp_pkt_" || true; }

# on_hook in|eg : where pktcount is on vb, as tcx or tc sees it:
# "tcx", "cls_bpf", or "" ("tcx cls_bpf" if it were on both)
on_hook() { tc_progs "$b" vb "$1" | awk '/ mp_pkt_/ { print $1 }' | xargs; }

# (a) ten pings each way, counted exactly: nothing but IPv4, 98 bytes each.
test_counts_exact() {
	local dir class

	topo static
	mpctl bpf attach vb
	pings 10
	st
	for dir in ingress egress; do
		assert_eq "$dir attached" "${S[$dir.attached]}" true
		assert_eq "$dir ipv4 packets" "${S[$dir.ipv4.packets]}" 10
		assert_eq "$dir ipv4 bytes" "${S[$dir.ipv4.bytes]}" $((10 * PING_LEN))
		for class in ipv6 arp other; do
			assert_eq "$dir $class packets" "${S[$dir.$class.packets]}" 0
		done
	done
}

# (b) without neighbour entries the first ping resolves through ARP: the
# request comes in on vb and the reply goes out.
test_arp_counted() {
	local dir n

	topo
	mpctl bpf attach vb
	pings 1
	st
	for dir in ingress egress; do
		n=${S[$dir.arp.packets]}
		assert_ge "$dir arp packets" "$n" 1
		assert_eq "$dir arp bytes" "${S[$dir.arp.bytes]}" $((n * ARP_LEN))
		assert_eq "$dir ipv4 packets" "${S[$dir.ipv4.packets]}" 1
	done
}

# (c) another tool's filter after ours on the same hook still sees every
# packet (ours returns TC_ACT_UNSPEC), and detach leaves it in place.  The
# foreign filter mirrors IPv4 to vm0, whose tx counter shows what it saw.
test_foreign_filter_kept() {
	local before

	topo static
	ip -n "$b" link add vm0 type veth peer name vm1
	ip -n "$b" link set vm0 up
	ip -n "$b" link set vm1 up
	mpctl bpf attach vb
	# A tcx attach makes no clsact qdisc: the filter needs one.
	tc -n "$b" qdisc replace dev vb clsact
	tc -n "$b" filter add dev vb ingress pref 50000 protocol ip \
		u32 match u32 0 0 action mirred egress mirror dev vm0
	before=$(ip -n "$b" -s -j link show vm0 | jq '.[0].stats64.tx.packets')
	pings 10
	st
	assert_eq "mplane ingress ipv4" "${S[ingress.ipv4.packets]}" 10
	assert_eq "mirrored by the foreign filter" \
		"$(ip -n "$b" -s -j link show vm0 | jq '.[0].stats64.tx.packets')" \
		$((before + 10))

	mpctl bpf detach vb
	assert_eq "mplane filters left" "$(our_filters in)" 0
	st
	assert_eq "ingress attached" "${S[ingress.attached]}" false
	tc -n "$b" filter show dev vb ingress | grep -q "pref 50000 u32" ||
		fail "detach removed the foreign filter"
}

# (d) attaching again replaces our program in place: still one filter per
# hook, and the counters carry on in the same map.
test_attach_idempotent() {
	topo static
	mpctl bpf attach vb
	pings 5
	mpctl bpf attach vb
	pings 5
	st
	assert_eq "ingress filters" "$(our_filters in)" 1
	assert_eq "egress filters" "$(our_filters eg)" 1
	assert_eq "ingress ipv4 packets" "${S[ingress.ipv4.packets]}" 10
	assert_eq "egress ipv4 packets" "${S[egress.ipv4.packets]}" 10
	assert_eq "one map for both hooks" "${S[ingress.map_id]}" "${S[egress.map_id]}"
}

# (e) detach where nothing is attached is a silent no-op; detach leaves
# the clsact qdisc (cls_bpf made it), which other tools' filters may need.
test_detach_idle() {
	local rc

	topo
	run_rc rc mpctl bpf detach vb
	assert_eq "detach, nothing attached: exit" "$rc" 0
	assert_eq "detach, nothing attached: stderr" "$ERR" ""
	mpctl bpf attach --tc-hook cls_bpf --ingress vb
	st
	assert_eq "egress attached" "${S[egress.attached]}" false
	mpctl bpf detach vb
	run_rc rc mpctl bpf detach vb
	assert_eq "second detach: exit" "$rc" 0
	st
	assert_eq "ingress attached" "${S[ingress.attached]}" false
	tc -n "$b" qdisc show dev vb | grep -q clsact || fail "clsact qdisc removed"
}

# (f) a missing device is an error (1) naming it; a bad command line is a
# usage error (2).
test_errors() {
	local rc

	topo
	run_rc rc mpctl bpf attach nosuchdev
	assert_eq "attach nosuchdev: exit" "$rc" 1
	assert_eq "attach nosuchdev: message" "$ERR" \
		"mplanectl: bpf attach: nosuchdev: No such device"
	run_rc rc mpctl bpf attach
	assert_eq "attach without DEV: exit" "$rc" 2
	run_rc rc mpctl bpf attach --bogus vb
	assert_eq "attach --bogus: exit" "$rc" 2
	run_rc rc mpctl bpf frobnicate vb
	assert_eq "unknown command: exit" "$rc" 2
}

# (g) -n acts in the named namespace only, and a missing one is an error.
test_netns() {
	local rc

	topo
	mpctl bpf attach vb
	st
	assert_eq "attached in b" "${S[ingress.attached]}" true
	run_rc rc "$MPLANECTL" -n "$a" bpf status vb
	assert_eq "vb from namespace a: exit" "$rc" 1
	run_rc rc "$MPLANECTL" -n "${b}-none" bpf status vb
	assert_eq "missing namespace: exit" "$rc" 1
	assert_eq "missing namespace: message" "$ERR" \
		"mplanectl: netns ${b}-none: No such file or directory"
}

# (h) a filter that is not mplane's in our cls_bpf slot makes a cls_bpf
# attach fail without changing anything, and detach leave it alone.
# Classic BPF is used as the foreign filter because bpf_tc_query() cannot
# see its program.  tcx needs no slot: there, auto attaches all the same.
test_slot_taken() {
	local rc

	topo
	tc -n "$b" qdisc add dev vb clsact
	tc -n "$b" filter add dev vb egress pref "$PKTCOUNT_PREF" handle 0x4d50 \
		bpf bytecode '1,6 0 0 4294967295,'
	if has_tcx; then
		mpctl bpf attach vb
		assert_eq "auto, beside the foreign filter" "$(on_hook eg)" tcx
		mpctl bpf detach vb
	fi
	run_rc rc mpctl bpf attach --tc-hook cls_bpf vb
	assert_eq "attach: exit" "$rc" 1
	echo "$ERR" | grep -q "vb: egress: .* not mplane's" || fail "attach: message '$ERR'"
	st
	assert_eq "ingress left untouched" "${S[ingress.attached]}" false
	mpctl bpf detach vb
	tc -n "$b" filter show dev vb egress | grep -q "handle 0x4d50 .*bytecode" ||
		fail "the foreign filter is gone"
}

# (i) auto is tcx on a kernel that has it, and cls_bpf on one without,
# where --tc-hook tcx is an error that attaches nothing; tcx needs no
# clsact qdisc.  Status says which (text and JSON).
test_tc_hook_auto() {
	local rc want=cls_bpf

	topo static
	has_tcx && want=tcx
	mpctl bpf attach vb
	assert_eq "ingress on" "$(on_hook in)" "$want"
	assert_eq "egress on" "$(on_hook eg)" "$want"
	st
	assert_eq "status ingress tc_hook" "${S[ingress.tc_hook]}" "$want"
	assert_eq "status egress tc_hook" "${S[egress.tc_hook]}" "$want"
	mpctl bpf status vb | grep -q "ingress  $want, prog" ||
		fail "status text: $(mpctl bpf status vb)"
	if [ "$want" = tcx ]; then
		if tc -n "$b" qdisc show dev vb | grep -q clsact; then
			fail "tcx attach made a clsact qdisc"
		fi
	else
		mpctl bpf detach vb
		run_rc rc mpctl bpf attach --tc-hook tcx vb
		assert_eq "--tc-hook tcx without tcx: exit" "$rc" 1
		assert_eq "--tc-hook tcx without tcx: message" "$ERR" \
			"mplanectl: bpf attach: vb: this kernel has no tcx (Linux 6.6 or later): use --tc-hook cls_bpf or auto"
		st
		assert_eq "nothing attached" "${S[ingress.attached]}" false
	fi
}

# (j) --tc-hook cls_bpf, or MPLANE_TC_HOOK=cls_bpf, is a tc filter even
# where tcx is; a bad MPLANE_TC_HOOK is an error.
test_tc_hook_cls_bpf() {
	local rc

	topo static
	mpctl bpf attach --tc-hook cls_bpf vb
	assert_eq "ingress on" "$(on_hook in)" cls_bpf
	assert_eq "egress on" "$(on_hook eg)" cls_bpf
	st
	assert_eq "status tc_hook" "${S[ingress.tc_hook]}" cls_bpf
	mpctl bpf detach vb
	MPLANE_TC_HOOK=cls_bpf mpctl bpf attach --ingress vb
	assert_eq "MPLANE_TC_HOOK=cls_bpf" "$(on_hook in)" cls_bpf
	run_rc rc env MPLANE_TC_HOOK=bogus "$MPLANECTL" -n "$b" bpf attach vb
	assert_eq "bad MPLANE_TC_HOOK: exit" "$rc" 1
	assert_eq "bad MPLANE_TC_HOOK: message" "$ERR" \
		"mplanectl: bpf attach: MPLANE_TC_HOOK=bogus: not auto, tcx or cls_bpf"
}

# (k) moving between tcx and cls_bpf, and back, keeps exactly one copy on
# each hook and the same counters: every ping is counted once.
test_tc_hook_switch() {
	local hook n=0

	has_tcx || skip "no tcx on this kernel"
	topo static
	for hook in tcx cls_bpf tcx cls_bpf auto; do
		mpctl bpf attach --tc-hook "$hook" vb
		[ "$hook" = auto ] && hook=tcx
		assert_eq "$hook: ingress on" "$(on_hook in)" "$hook"
		assert_eq "$hook: egress on" "$(on_hook eg)" "$hook"
		pings 5
		n=$((n + 5))
		st
		assert_eq "$hook: ingress ipv4 packets" "${S[ingress.ipv4.packets]}" "$n"
		assert_eq "$hook: egress ipv4 packets" "${S[egress.ipv4.packets]}" "$n"
	done
	mpctl bpf detach vb
	assert_eq "after detach, ingress" "$(on_hook in)" ""
	assert_eq "after detach, egress" "$(on_hook eg)" ""
}

# (l) another tool's tcx program, attached before ours, stays where it is,
# runs after ours (counters go first) and still sees every packet, while
# ours is on and after ours is detached.
test_foreign_tcx_kept() {
	local id map

	has_tcx || skip "no tcx on this kernel"
	topo static
	read -r id map < <(ip netns exec "$b" "$MPLANE_BUILD/mptcx" counter vb in) ||
		fail "foreign tcx program"
	mpctl bpf attach vb
	assert_eq "order" "$(tc_progs "$b" vb in | xargs)" \
		"tcx mp_pkt_ingress tcx tcx_foreign"
	pings 10
	st
	assert_eq "ours counted" "${S[ingress.ipv4.packets]}" 10
	assert_eq "foreign counted" "$(ip netns exec "$b" "$MPLANE_BUILD/mptcx" count "$map")" 10
	mpctl bpf detach vb
	assert_eq "left after detach" "$(tc_progs "$b" vb in | xargs)" "tcx tcx_foreign"
	pings 10
	assert_eq "foreign counted after detach" \
		"$(ip netns exec "$b" "$MPLANE_BUILD/mptcx" count "$map")" 20
	ip netns exec "$b" "$MPLANE_BUILD/mptcx" detach vb in "$id"
}

# skip_all WHY : the whole script cannot run; one skipped line says why.
skip_all() {
	printf 'TAP version 13\n1..1\nok 1 pktcount # SKIP %s\n' "$1"
	exit "$KSFT_SKIP"
}

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null || skip_all "needs jq"
[ -x "$MPLANECTL" ] || skip_all "$MPLANECTL not built (make tools)"
[ -x "$MPLANE_BUILD/mptcx" ] || skip_all "$MPLANE_BUILD/mptcx not built (make tools)"

ktap_run test_counts_exact test_arp_counted test_foreign_filter_kept \
	test_attach_idempotent test_detach_idle test_errors test_netns \
	test_slot_taken test_tc_hook_auto test_tc_hook_cls_bpf \
	test_tc_hook_switch test_foreign_tcx_kept

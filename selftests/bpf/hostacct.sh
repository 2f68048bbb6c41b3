#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The hostacct BPF programs through 'mplanectl bpf --prog hostacct' and
# RoCEv2 from 'mplanectl traffic send': namespaces a and b joined by the
# veth pair va--vb, hostacct on both ends.  a sends RoCEv2 data marked CE
# to a QP of b, b answers with CNPs, as a DCQCN notification point would.
# IPv6 is off and neighbours are static, so counts are exact.

# a and b (the namespaces) are set by setup_ns, called from topo.
# shellcheck disable=SC2154
# shellcheck source-path=SCRIPTDIR source=../lib/lib.sh
source "$(dirname "$0")/../lib/lib.sh"

MPLANECTL=$MPLANE_BUILD/mplanectl
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-hostacct.XXXXXX")
# Pins outlive a namespace that is deleted without a detach: remove
# those of every device this run attached to.
remove_pins() {
	local dir
	[ -f "$TMPD/pins" ] || return 0
	while read -r dir; do
		rm -rf "$dir"
		rmdir "$(dirname "$dir")" 2>/dev/null || true
	done <"$TMPD/pins"
}
trap '_lib_exit; remove_pins; rm -rf "$TMPD"' EXIT

N=40		# RoCEv2 packets a -> b, all CE
M=7		# CNPs b -> a
U=20		# plain UDP a -> b with ECT(0)
QP=0x1234	# b's QP that a sends to
CNP_QP=0x77	# a's QP that b's CNPs are for
ACKREQ=5	# every 5th data packet asks for an ACK
# tc priority of hostacct's filter (HOSTACCT_TC_PRIO, 0x4d48).
HOSTACCT_PREF=19784

topo() { veth_hosts static; }

# attach NS DEV [OPTIONS...]
attach() {
	local ns=$1 dev=$2
	shift 2
	"$MPLANECTL" -n "$ns" bpf attach --prog hostacct "$@" "$dev" || return
	st "$ns" "$dev"
	echo "${S[pin]}" >>"$TMPD/pins"
}

# st NS DEV : DEV's 'bpf status --prog hostacct -j' into S, flat (see
# json_flat): S[ingress.packets], and each QP's row under qps.QPN.DIR with
# QPN in decimal.  One read for all the assertions that follow it.
declare -A S
st() {
	json_flat S "$("$MPLANECTL" -n "$1" -j bpf status --prog hostacct "$2")" \
		'.qps = ([.qps[] | {key: "\(.qpn).\(.dir)", value: .}] | from_entries)'
}

# receiver NS PORT : a 'traffic recv' that absorbs what is sent to PORT,
# so that no ICMP unreachable comes back and fails a send.
receiver() {
	local ready=$TMPD/rx-$2-$1.ready
	"$MPLANECTL" -n "$1" traffic recv --port "$2" --timeout 30 \
		--ready-file "$ready" >/dev/null 2>&1 &
	echo $! >>"$TMPD/pids"
	busywait 30000 test -e "$ready" || fail "receiver on port $2 not ready"
}

stop_receivers() {
	local pid
	[ -f "$TMPD/pids" ] || return 0
	while read -r pid; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done <"$TMPD/pids"
	rm -f "$TMPD/pids"
}

# send NS ARGS... : 'traffic send' that must send every packet.
send() {
	local ns=$1 sent
	shift
	sent=$(json_num "$("$MPLANECTL" -n "$ns" -j traffic send "$@")" sent)
	assert_eq "traffic send $*: sent" "$sent" "${*: -1:1}"
}

# roce_round : N data packets a -> b and M CNPs b -> a.
roce_round() {
	send "$a" 10.99.0.2 --roce $QP --ecn ce --ackreq-every $ACKREQ -r 5000 -c $N
	send "$b" 10.99.0.1 --cnp $CNP_QP -r 5000 -c $M
}

# no_bad_input DEV : the last st read nothing malformed or truncated.
no_bad_input() {
	local dir
	for dir in ingress egress; do
		assert_eq "$1 $dir malformed" "${S[$dir.malformed]}" 0
		assert_eq "$1 $dir truncated" "${S[$dir.truncated]}" 0
	done
}

# (a) RoCEv2, CNPs, ECT(0) UDP and one TCP exchange, counted exactly.
test_counts_exact() {
	topo
	attach "$a" va
	attach "$b" vb
	receiver "$b" 4791
	receiver "$a" 4791
	receiver "$b" 9000
	roce_round
	send "$a" 10.99.0.2 --ecn ect0 -r 5000 -c $U
	# A SYN to a closed port: one TCP packet each way (SYN, RST).
	ip netns exec "$a" bash -c 'exec 3<>/dev/tcp/10.99.0.2/7' 2>/dev/null || true
	stop_receivers

	local qp=$((QP)) cnp_qp=$((CNP_QP))
	st "$b" vb
	assert_eq "b ingress attached" "${S[ingress.attached]}" true
	assert_eq "b ingress hook" "${S[ingress.hook]}" tc
	assert_eq "b ingress packets" "${S[ingress.packets]}" $((N + U + 1))
	assert_eq "b ingress roce_packets" "${S[ingress.roce_packets]}" $N
	assert_eq "b ingress roce_ce" "${S[ingress.roce_ce]}" $N
	assert_eq "b ingress ecn_ce" "${S[ingress.ecn_ce]}" $N
	assert_eq "b ingress udp_ce" "${S[ingress.udp_ce]}" $N
	assert_eq "b ingress ect" "${S[ingress.ect]}" $U
	assert_eq "b ingress tcp_ce" "${S[ingress.tcp_ce]}" 0
	assert_eq "b ingress cnp" "${S[ingress.cnp]}" 0
	assert_eq "b egress cnp" "${S[egress.cnp]}" $M
	assert_eq "b egress packets" "${S[egress.packets]}" $((M + 1))
	assert_eq "b QP packets" "${S[qps.$qp.ingress.packets]}" $N
	assert_eq "b QP ecn_ce" "${S[qps.$qp.ingress.ecn_ce]}" $N
	assert_eq "b QP ack_req" "${S[qps.$qp.ingress.ack_req]}" $((N / ACKREQ))
	assert_eq "b QP last_psn" "${S[qps.$qp.ingress.last_psn]}" $((N - 1))
	assert_eq "b CNP QP cnp" "${S[qps.$cnp_qp.egress.cnp]}" $M
	# Each CNP was an event at both ends; nothing reads, nothing drops.
	assert_eq "b events" "${S[event_ring.produced]}" $M
	assert_eq "b events dropped" "${S[event_ring.dropped]}" 0
	# Two QPs at b (a's data to QP, its CNPs to CNP_QP), each made once,
	# none lost to a full map.
	assert_eq "b QP map entries" "${S[limits.qp_entries]}" 2
	assert_eq "b QPs made" "${S[limits.qp_created]}" 2
	assert_eq "b QPs evicted" "${S[limits.qp_evicted]}" 0
	assert_eq "b rail map full" "${S[limits.rail_full]}" 0
	no_bad_input vb

	st "$a" va
	assert_eq "a ingress cnp" "${S[ingress.cnp]}" $M
	assert_eq "a ingress roce_packets" "${S[ingress.roce_packets]}" $M
	assert_eq "a egress roce_packets" "${S[egress.roce_packets]}" $N
	assert_eq "a egress roce_ce" "${S[egress.roce_ce]}" $N
	assert_eq "a CNP QP cnp" "${S[qps.$cnp_qp.ingress.cnp]}" $M
	assert_eq "a QP egress packets" "${S[qps.$qp.egress.packets]}" $N
	no_bad_input va
}

# (b) ingress moved to XDP: the counters carry on (pins), and a second
# round adds exactly what the first did.
test_xdp_counts_same() {
	local bytes1

	topo
	attach "$a" va
	attach "$b" vb
	receiver "$b" 4791
	receiver "$a" 4791
	roce_round
	st "$b" vb
	bytes1=${S[ingress.roce_bytes]}
	attach "$b" vb --xdp
	assert_eq "ingress hook" "${S[ingress.hook]}" xdp
	assert_eq "egress hook" "${S[egress.hook]}" tc
	ip -n "$b" link show vb | grep -q "prog/xdp" || fail "no XDP program on vb"
	[ "$(tc -n "$b" filter show dev vb ingress | grep -c "pref $HOSTACCT_PREF")" = 0 ] ||
		fail "tc ingress filter left after the move to XDP"
	roce_round
	stop_receivers
	st "$b" vb
	assert_eq "xdp roce_packets" "${S[ingress.roce_packets]}" $((2 * N))
	assert_eq "xdp roce_ce" "${S[ingress.roce_ce]}" $((2 * N))
	assert_eq "xdp roce_bytes" "${S[ingress.roce_bytes]}" $((2 * bytes1))
	assert_eq "xdp QP packets" "${S[qps.$((QP)).ingress.packets]}" $((2 * N))
	assert_eq "egress cnp" "${S[egress.cnp]}" $((2 * M))
	# And back to tc: XDP is left.
	attach "$b" vb
	ip -n "$b" link show vb | grep -q "prog/xdp" && fail "XDP program left on vb"
	assert_eq "ingress hook back" "${S[ingress.hook]}" tc
}

# (c) status -j and text both parse; pins are there and owner-only.
test_status_and_pins() {
	local ino dir f

	topo
	attach "$b" vb
	"$MPLANECTL" -n "$b" -j bpf status --prog hostacct vb | jq -e . >/dev/null ||
		fail "status -j is not JSON"
	"$MPLANECTL" -n "$b" bpf status --prog hostacct vb | grep -q "roce_packets" ||
		fail "status text has no counters"
	ino=$(ip netns exec "$b" stat -L -c %i /proc/self/ns/net)
	dir=/sys/fs/bpf/mplane/dev/$ino/vb
	assert_eq "pin dir" "${S[pin]}" "$dir"
	for f in mp_rail_acct mp_qp_acct mp_events mp_event_stats mp_event_readers; do
		[ -e "$dir/$f" ] || fail "no pin $dir/$f"
		assert_eq "mode of $f" "$(stat -c %a "$dir/$f")" 600
	done
	pins_of_another_layout "$dir"
	"$MPLANECTL" -n "$b" bpf detach --prog hostacct vb
}

# A pin of another layout (an older mplanectl's event counters, 16
# bytes a CPU where they are now 48) cannot be reused by a re-attach:
# attach says which pin and what to do, exit 1, and changes nothing;
# detach, then attach, starts afresh.
pins_of_another_layout() {
	local dir=$1 err rc=0
	rm "$dir/mp_event_stats"
	bpftool map create "$dir/mp_event_stats" type percpu_array key 4 value 16 \
		entries 1 name mp_event_stats || fail "cannot pin the old layout"
	err=$("$MPLANECTL" -n "$b" bpf attach --prog hostacct vb 2>&1) || rc=$?
	assert_eq "re-attach over an old pin: exit" "$rc" 1
	[[ $err == *"$dir/mp_event_stats was pinned by another version of mplanectl"*"bpf detach --prog hostacct vb' first"* ]] ||
		fail "message: $err"
	st "$b" vb
	assert_eq "still attached" "${S[ingress.attached]}" true
	"$MPLANECTL" -n "$b" bpf detach --prog hostacct vb || fail "detach"
	attach "$b" vb || fail "attach after the detach"
}

# (d) detach takes only hostacct's filters, its XDP program and its pins:
# a foreign filter and pktcount stay.
test_detach_only_ours() {
	local ino dir

	topo
	tc -n "$b" qdisc add dev vb clsact
	tc -n "$b" filter add dev vb ingress pref 50000 protocol ip u32 match u32 0 0 flowid 1:1
	"$MPLANECTL" -n "$b" bpf attach vb
	attach "$b" vb --xdp
	ino=$(ip netns exec "$b" stat -L -c %i /proc/self/ns/net)
	dir=/sys/fs/bpf/mplane/dev/$ino/vb
	[ -d "$dir" ] || fail "no pin directory"
	"$MPLANECTL" -n "$b" bpf detach --prog hostacct vb
	[ -e "$dir" ] && fail "pins left in $dir"
	ip -n "$b" link show vb | grep -q "prog/xdp" && fail "XDP program left"
	[ "$(tc -n "$b" filter show dev vb egress | grep -c "pref $HOSTACCT_PREF")" = 0 ] ||
		fail "hostacct egress filter left"
	tc -n "$b" filter show dev vb ingress | grep -q "pref 50000 u32" ||
		fail "foreign filter removed"
	assert_eq "pktcount kept" "$("$MPLANECTL" -n "$b" -j bpf status vb | jq -r .ingress.attached)" true
	st "$b" vb
	assert_eq "status after detach" "${S[ingress.attached]}" false
	# Nothing left: detaching again is not an error.
	"$MPLANECTL" -n "$b" bpf detach --prog hostacct vb
}

# (e) a foreign XDP program is never replaced, and usage errors.
test_refusals() {
	local rc=0 err

	topo
	ip -n "$b" link set dev vb xdp obj "$MPLANE_BUILD/bpf/pass.bpf.o" sec xdp 2>/dev/null ||
		skip "ip cannot load an XDP object"
	err=$(attach "$b" vb --xdp 2>&1) || rc=$?
	assert_eq "attach over a foreign XDP program: exit" "$rc" 1
	echo "$err" | grep -q "not mplane's" || fail "message '$err'"
	ip -n "$b" -d link show vb | grep -q "name mp_pass_xdp" || fail "foreign XDP program replaced"
	rc=0
	"$MPLANECTL" -n "$b" bpf attach --xdp vb 2>/dev/null || rc=$?
	assert_eq "pktcount --xdp: exit" "$rc" 2
	rc=0
	"$MPLANECTL" -n "$b" bpf attach --prog nosuch vb 2>/dev/null || rc=$?
	assert_eq "unknown --prog: exit" "$rc" 2
}

# xdp_loader NS ARGS... : xdp-loader in NS.  Not 'ip netns exec', whose
# fresh /sys has no bpffs, without which libxdp makes no dispatcher.
xdp_loader() {
	local ns=$1
	shift
	nsenter --net="/run/netns/$ns" xdp-loader "$@"
}

# xdp_components NS DEV : "NAME PRIO" of each program on DEV's libxdp
# dispatcher, one a line, in the order the dispatcher runs them.
xdp_components() {
	xdp_loader "$1" status "$2" |
		awk -v dev="$2" '$1 == dev && $2 ~ /xdp_dispatcher/ { on = 1; next }
			on && $1 == "=>" { print $3, $2; next } on { on = 0 }'
}

# (g) the XDP hook is shared through libxdp's dispatcher: another tool's
# program (xdp-loader's) and hostacct both run, hostacct first, and
# counts exactly; a re-attach keeps the one component; detach leaves the
# other tool's.  Where the kernel has no freplace (BPF_PROG_TYPE_EXT),
# libxdp has no dispatcher, and test_refusals covers the one program.
test_xdp_shares_the_hook() {
	local id1 id2 old

	bpftool feature probe kernel 2>/dev/null |
		grep -q "program_type ext is available" ||
		skip "$(uname -r) has no freplace (BPF_PROG_TYPE_EXT): no libxdp dispatcher"
	topo
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
	# hostacct attached directly, as an mplanectl before libxdp did: the
	# next attach moves it onto a dispatcher.
	old=/sys/fs/bpf/mplane-test-old-$$
	bpftool prog loadall "$MPLANE_BUILD/bpf/hostacct.bpf.o" "$old" ||
		fail "bpftool cannot load hostacct"
	nsenter --net="/run/netns/$b" ip link set dev vb xdp pinned "$old/mp_hacct_xdp" ||
		fail "ip cannot attach it"
	rm -rf "$old"
	attach "$b" vb --xdp
	assert_eq "moved onto a dispatcher" "$(xdp_components "$b" vb | xargs)" "mp_hacct_xdp 10"
	"$MPLANECTL" -n "$b" bpf detach --prog hostacct vb || fail "detach"
	xdp_loader "$b" load -n mp_pass_xdp vb "$MPLANE_BUILD/bpf/pass.bpf.o" ||
		fail "xdp-loader cannot load the foreign program"
	assert_eq "the foreign program alone" "$(xdp_components "$b" vb | xargs)" "mp_pass_xdp 50"
	attach "$b" vb --xdp
	assert_eq "ingress hook" "${S[ingress.hook]}" xdp
	assert_eq "both on the dispatcher" "$(xdp_components "$b" vb | xargs)" 		"mp_hacct_xdp 10 mp_pass_xdp 50"
	id1=${S[ingress.prog_id]}
	attach "$b" vb --xdp
	id2=${S[ingress.prog_id]}
	assert_eq "a re-attach keeps the component" "$id2" "$id1"
	assert_eq "still one hostacct" "$(xdp_components "$b" vb | grep -c mp_hacct_xdp)" 1
	receiver "$b" 4791
	send "$a" 10.99.0.2 --roce $QP --ecn ce -r 5000 -c $N
	stop_receivers
	st "$b" vb
	assert_eq "xdp roce_packets" "${S[ingress.roce_packets]}" $N
	assert_eq "xdp QP packets" "${S[qps.$((QP)).ingress.packets]}" $N
	"$MPLANECTL" -n "$b" bpf detach --prog hostacct vb || fail "detach"
	assert_eq "the foreign program stays" "$(xdp_components "$b" vb | xargs)" "mp_pass_xdp 50"
	xdp_loader "$b" unload vb --all || fail "xdp-loader unload"
}

# (f) a device deleted without a detach leaves its pins; a new device of
# the same name starts from zero, not from those counters.
test_stale_pins() {
	topo
	attach "$b" vb
	receiver "$b" 4791
	send "$a" 10.99.0.2 --roce $QP -r 5000 -c 3
	stop_receivers
	st "$b" vb
	assert_eq "before" "${S[ingress.roce_packets]}" 3
	ip -n "$b" link del vb
	veth_pair "$a" va "$b" vb
	attach "$b" vb
	assert_eq "after re-creation" "${S[ingress.roce_packets]}" 0
}

# The exporter serves the rail counters that bpf status shows, per
# {node,dev,dir}, node the namespace's name; promtool takes them.
test_exported() {
	local port m=$TMPD/metrics pid want dir field tool
	topo
	attach "$a" va
	attach "$b" vb
	receiver "$b" 4791
	receiver "$a" 4791
	roce_round
	stop_receivers
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	"$MPLANECTL" telemetry export --listen "127.0.0.1:$port" >"$TMPD/export.out" 2>&1 &
	pid=$!
	trap 'kill $pid 2>/dev/null || true' EXIT
	slowwait 10 curl -sf -o "$m" "http://127.0.0.1:$port/metrics" ||
		fail "export: $(cat "$TMPD/export.out")"
	kill "$pid"
	st "$b" vb
	for dir in ingress egress; do
		for field in packets bytes roce_packets roce_ce cnp ecn_ce; do
			want="mplane_hostacct_${field}_total{node=\"$b\",dev=\"vb\",dir=\"$dir\"} ${S[$dir.$field]}"
			grep -qxF "$want" "$m" || fail "no '$want' in: $(grep "dev=\"vb\",dir=\"$dir\"" "$m" | head -5)"
		done
	done
	# Not vacuous: what was sent is there.
	grep -qxF "mplane_hostacct_roce_packets_total{node=\"$b\",dev=\"vb\",dir=\"ingress\"} $N" "$m" ||
		fail "b's $N RoCE packets are not on /metrics"
	grep -qxF "mplane_hostacct_cnp_total{node=\"$a\",dev=\"va\",dir=\"ingress\"} $M" "$m" ||
		fail "a's $M CNPs are not on /metrics"
	tool=$("$MPLANE_ROOT/scripts/promtool.sh") || fail "no promtool"
	want=$("$tool" check metrics <"$m" 2>&1) || fail "promtool: $want"
	assert_eq "promtool's complaints" "$want" ""
}

# bpf_map_fds PID: how many BPF maps PID holds open.
bpf_map_fds() {
	find "/proc/$1/fd" -lname 'anon_inode:bpf-map' 2>/dev/null | wc -l
}

# The exporter across detach and attach: each attach is a new object with
# a new ring under the same pin directory.  It goes on as the same
# source, its count of events never goes back and counts every one, it
# is one series, and the rings of the objects that went are let go (the
# exporter used to keep each one, 1 MiB of reader ring and two fds, for
# ever: 74 -> 703 MiB in a 600 s soak).
test_exported_across_reattach() {
	local port m=$TMPD/reattach pid round ino label fds1=0 fds
	topo
	attach "$b" vb
	ino=$(ip netns exec "$b" stat -L -c %i /proc/self/ns/net)
	label=dev/$ino/vb
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	"$MPLANECTL" telemetry export --listen "127.0.0.1:$port" >"$TMPD/export.out" 2>&1 &
	pid=$!
	trap 'kill $pid 2>/dev/null || true' EXIT
	receiver "$a" 4791
	cnps() {
		curl -sf -o "$m" "http://127.0.0.1:$port/metrics" &&
			grep -c "^mplane_events_total{node=\"ns$ino\",source=\"$label\",type=\"cnp\"}" "$m" >"$m.n"
		grep "^mplane_events_total{node=\"ns$ino\",source=\"$label\",type=\"cnp\"}" "$m" | awk '{ print $2 }'
	}
	for round in 1 2 3 4 5; do
		# Its ring in the new object's slots: the events come to it.
		slowwait 10 sh -c "[ \$(grep -c 'reading 1 more ring' $TMPD/export.out) -ge $((round - 1)) ]" ||
			fail "round $round: the exporter reads no new ring of vb: $(cat "$TMPD/export.out")"
		send "$b" 10.99.0.1 --cnp $CNP_QP -r 5000 -c $M
		slowwait 10 sh -c "[ \"\$(curl -sf http://127.0.0.1:$port/metrics | grep '^mplane_events_total{node=\"ns$ino\",source=\"$label\",type=\"cnp\"}' | awk '{ print \$2 }')\" = $((round * M)) ]" ||
			fail "round $round: cnp events '$(cnps)', want $((round * M))"
		cnps >/dev/null
		assert_eq "round $round: series of the source" "$(cat "$m.n")" 1
		fds=$(bpf_map_fds "$pid")
		[ "$round" -gt 1 ] || fds1=$fds
		assert_le "round $round: the exporter's BPF maps" "$fds" "$fds1"
		"$MPLANECTL" -n "$b" bpf detach --prog hostacct vb || fail "detach"
		attach "$b" vb || fail "attach"
	done
	stop_receivers
	kill "$pid"
}

# The share that the debug kernel runs (selftests/kmod/bpf.sh).
QUICK_TESTS="test_counts_exact test_xdp_counts_same test_xdp_shares_the_hook"
# (tc) hostacct goes on tcx where the kernel has it (cls_bpf otherwise),
# at the head of the chain, ahead of pktcount attached before it; moving
# to cls_bpf and back keeps one copy per hook and counts each packet
# once; status says where ("tc_hook").
test_tc_hook() {
	local auto=cls_bpf hook want n=0
	has_tcx && auto=tcx
	topo
	receiver "$b" 4791
	"$MPLANECTL" -n "$b" bpf attach vb
	for hook in auto cls_bpf auto; do
		attach "$b" vb --tc-hook "$hook"
		want=$hook
		[ "$hook" = auto ] && want=$auto
		assert_eq "$hook: status tc_hook" "${S[ingress.tc_hook]}" "$want"
		assert_eq "$hook: status hook" "${S[ingress.hook]}" tc
		assert_eq "$hook: ingress copies" \
			"$(tc_progs "$b" vb in | grep -c mp_hacct_tc_in)" 1
		if [ "$want" = tcx ]; then
			assert_eq "$hook: first on tcx" \
				"$(tc_progs "$b" vb in | head -1)" "tcx mp_hacct_tc_in"
		fi
		send "$a" 10.99.0.2 --roce $QP -r 5000 -c $N
		n=$((n + N))
		st "$b" vb
		assert_eq "$hook: roce packets" "${S[ingress.roce_packets]}" "$n"
	done
	"$MPLANECTL" -n "$b" bpf detach --prog hostacct vb
	"$MPLANECTL" -n "$b" bpf detach vb
	assert_eq "left on vb" "$(tc_progs "$b" vb in | xargs)" ""
	stop_receivers
}

ktap_run test_counts_exact test_xdp_counts_same test_xdp_shares_the_hook test_status_and_pins \
	test_detach_only_ours test_refusals test_stale_pins test_exported \
	test_exported_across_reattach test_tc_hook

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabric.sh: 'mplanectl fabric up' with mplane.ko loaded.  A 2-plane
# leaf-spine (2 leaves, 1 spine, 4 hosts, 20mbit links) where every host
# has mp0 over its two rails; every host reaches every other one through
# mp0, over IPv4 and IPv6, under each policy mp0 has, with ECMP on the
# switches and then with adaptive routing (bpf attach --fabric).  mp0's
# counters and its planes' say that the traffic went through it, not
# around it over a rail.  Then netem: a fabric with a delay on every
# link shows it in ping's RTT, and a lossy link in one plane only.
#
# One fabric for the reachability tests; a policy changes with 'link
# set' on the running mp0s, not by building again.  Then --host-bond,
# the bonding baseline, where the bonding driver is.
# TESTS="test_a test_b" runs only those.
# shellcheck source-path=SCRIPTDIR source=../lib/lib.sh
source "$(dirname "$0")/../lib/lib.sh"
# shellcheck source=../lib/mplane.sh
source "$(dirname "$0")/../lib/mplane.sh"

FAB=kf$$
HOSTS=4
STATE=/run/mplane/fabric
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-kfabric.XXXXXX")
# Each host sends a SYN to 3 peers in 2 families, and gets their resets.
PER_HOST=$(((HOSTS - 1) * 2))

trap '_lib_exit; "$MPLANECTL" fabric down --prefix "$FAB" >/dev/null 2>&1; rm -rf "$TMPD"' EXIT

# The policies of mp0, as 'link add --help' names them (from the uapi).
POLICIES=$("$MPLANECTL" link add --help | sed -n 's/^ *policy \([a-z|]*\)$/\1/p' | tr '|' ' ')

hns() { echo "$FAB-h$1"; }

# Probes every 250 ms, not 100: a plane is left for a peer once 4 probes
# went unanswered, and an emulated guest on a busy machine stalls for
# more than 400 ms at times.
PROBE_US=250000
fabric_up() {
	"$MPLANECTL" fabric up -q --force --prefix "$FAB" --planes 2 --leaves 2 \
		--spines 1 --hosts $HOSTS --rate 20mbit --probe-interval 250ms \
		"$@" >"$TMPD/up.out" || fail "fabric up $*"
}

# need_fabric: the fabric of test_mp0_made, made again if it is gone.
need_fabric() {
	[ -f "$STATE/$FAB.json" ] || fabric_up
}

# The prober, run in host $1's namespace (ip netns exec mounts its own
# /sys): a TCP connection to port 9 of every other host's mplane
# address, both families, which the peer's kernel refuses with a reset:
# a round trip through both mp0s, from bash itself.  Under TCG every
# exec costs half a second, and 24 pings a round were most of the test;
# one SYN retry makes a lost path fail in 3 s, not 2 minutes.  Then what
# mp0's packet counters moved.
# shellcheck disable=SC2016
PROBER='
h=$1 hosts=$2 err=$3
echo 1 >/proc/sys/net/ipv4/tcp_syn_retries
read -r tx0 </sys/class/net/mp0/statistics/tx_packets
read -r rx0 </sys/class/net/mp0/statistics/rx_packets
for ((o = 0; o < hosts; o++)); do
	[ $o -eq $h ] && continue
	for d in 10.99.$o.1 fd99::$o:1; do
		{ exec 3<>/dev/tcp/$d/9; } 2>"$err"
		exec 3<&-
		read -r msg <"$err"
		[[ $msg == *"Connection refused"* ]] || echo "unreached $d ($msg)"
	done
done
read -r tx1 </sys/class/net/mp0/statistics/tx_packets
read -r rx1 </sys/class/net/mp0/statistics/rx_packets
echo "mp0 $((tx1 - tx0)) $((rx1 - rx0))"'

# plane_tx NS: the tx_packets of mp0's planes 0 and 1, in one read.
plane_tx() {
	"$MPLANECTL" -n "$1" link show mp0 | awk '
		$1 == "plane" { for (i = 1; i <= NF; i++) if ($i == "tx_packets") c = i; next }
		c && $1 == 0 { p0 = $c } c && $1 == 1 { p1 = $c } END { print p0, p1 }'
}

# reach_all WHAT POLICY: every host reaches every other one through mp0
# under POLICY, all hosts at once.  Each SYN must be answered; each
# host's mp0 must have sent and received at least its own SYNs and their
# answers, and h0's planes must have carried what its mp0 sent (both
# planes, for the per-packet policies).
reach_all() {
	local what=$1 policy=$2 h out b0 b1 a0 a1 pids=()
	for ((h = 0; h < HOSTS; h++)); do
		"$MPLANECTL" -n "$(hns $h)" link set mp0 policy "$policy" &
		pids+=($!)
	done
	for h in "${pids[@]}"; do
		wait "$h" || fail "$what: link set mp0 policy $policy"
	done
	read -r b0 b1 <<<"$(plane_tx "$(hns 0)")"
	pids=()
	for ((h = 0; h < HOSTS; h++)); do
		ip netns exec "$(hns $h)" bash -c "$PROBER" _ $h $HOSTS \
			"$TMPD/err$h" >"$TMPD/reach$h" 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}"
	read -r a0 a1 <<<"$(plane_tx "$(hns 0)")"
	for ((h = 0; h < HOSTS; h++)); do
		out=$(<"$TMPD/reach$h")
		[[ $out != *unreached* ]] || fail "$what, $policy: h$h: ${out//$'\n'/; }"
		[[ $out =~ mp0\ ([0-9]+)\ ([0-9]+) ]] || fail "$what, $policy: h$h: $out"
		assert_ge "$what, $policy: h$h mp0 tx_packets" "${BASH_REMATCH[1]}" $PER_HOST
		assert_ge "$what, $policy: h$h mp0 rx_packets" "${BASH_REMATCH[2]}" $PER_HOST
	done
	assert_ge "$what, $policy: h0 planes' tx_packets" \
		$((a0 - b0 + a1 - b1)) $PER_HOST
	case $policy in
	rr|spray)
		assert_ge "$what, $policy: h0 plane 0 tx_packets" $((a0 - b0)) 1
		assert_ge "$what, $policy: h0 plane 1 tx_packets" $((a1 - b1)) 1 ;;
	esac
	log "$what, $policy: h0 planes sent $((a0 - b0)) + $((a1 - b1))"
}

# Each host has mp0 as the state file says, over both rails, with its
# addresses, its routes (IPv4 and IPv6, via mp0 and via each rail), its
# peers and its planes' weights.
test_mp0_made() {
	local s h ns out mp0 probe policies ifindex peers weights interval
	fabric_up
	grep -q "mp0 on $HOSTS hosts (flowlet)" "$TMPD/up.out" ||
		fail "summary: $(cat "$TMPD/up.out")"
	s=$("$MPLANECTL" -j fabric show --prefix "$FAB")
	jq_read "$s" '.has_mp0, .probe_interval_us, ([.nodes[] | select(.role == "host") | .mp0.policy] | unique | join(",")), .nodes[1].mp0.ifindex' \
		mp0 probe policies ifindex
	assert_eq "state: mp0" "$mp0" true
	assert_eq "state: probe interval" "$probe" $PROBE_US
	assert_eq "state: hosts' policy" "$policies" flowlet
	ns=$(hns 1)
	assert_eq "h1 mp0 ifindex" "$(ip -n "$ns" -o link show mp0 | cut -d: -f1)" "$ifindex"
	for h in r0 r1; do
		ip -n "$ns" -o link show "$h" | grep -q "master mp0" || fail "h1 $h: not in mp0"
	done
	out=$(ip -n "$ns" -o addr show dev mp0)
	[[ $out == *"inet 10.99.1.1/32"* && $out == *"inet6 fd99::1:1/128"* ]] ||
		fail "h1 mp0 addresses: $out"
	out=$(ip -n "$ns" route show 10.99.0.0/16)
	[[ $out == *"dev mp0 proto static scope link src 10.99.1.1 metric 10"* &&
	   $out == *"via 10.100.1.1 dev r0 proto static metric 100"* &&
	   $out == *"via 10.101.1.1 dev r1 proto static metric 101"* ]] ||
		fail "h1 IPv4 routes to 10.99/16: $out"
	out=$(ip -n "$ns" -6 route show fd99::/64)
	[[ $out == *"dev mp0 proto static src fd99::1:1 metric 10"* &&
	   $out == *"via fd10:0:1::1 dev r0 proto static metric 100"* &&
	   $out == *"via fd10:1:1::1 dev r1 proto static metric 101"* ]] ||
		fail "h1 IPv6 routes to fd99::/64: $out"
	out=$("$MPLANECTL" -n "$ns" -j link show mp0)
	jq_read "$out" '(.devices[0].peers | join(",")), ([.devices[0].planes[].weight] | join(",")), .devices[0].probe_interval_us' \
		peers weights interval
	assert_eq "h1 peers" "$peers" "10.99.2.1,10.99.3.1,10.99.0.1"
	assert_eq "h1 plane weights (Mbit/s)" "$weights" "20,20"
	assert_eq "h1 probe interval" "$interval" $PROBE_US
	# ping, from and to the mplane addresses, across the spine.
	ip netns exec "$ns" ping -n -q -c 1 -W 2 10.99.3.1 >/dev/null ||
		fail "ping h1 -> 10.99.3.1"
	ip netns exec "$ns" ping -n -q -c 1 -W 2 fd99::3:1 >/dev/null ||
		fail "ping h1 -> fd99::3:1"
}

test_reach_ecmp() {
	local p
	need_fabric
	for p in $POLICIES; do
		reach_all ECMP "$p"
	done
}

# ar_forwarded: the packets the switches' ar program forwarded itself.
ar_forwarded() {
	"$MPLANECTL" -j bpf status --fabric "$FAB" |
		jq '[.switches[].ports[].ar_forwarded] | add'
}

test_reach_ar() {
	local p before
	need_fabric
	"$MPLANECTL" bpf attach --fabric "$FAB" >/dev/null || fail "bpf attach --fabric"
	before=$(ar_forwarded)
	for p in $POLICIES; do
		reach_all AR "$p"
	done
	# The switches' program forwarded the traffic, not the kernel's ECMP.
	assert_ge "packets ar forwarded" $(($(ar_forwarded) - before)) $PER_HOST
	"$MPLANECTL" bpf detach --fabric "$FAB" >/dev/null || fail "bpf detach --fabric"
}

# The probes mp0 sends to every other host are answered: both planes up,
# and most probes answered within their interval (not all: an emulated
# guest stalls at times).
test_probes_answered() {
	local ns sent lost p
	need_fabric
	ns=$(hns 2)
	slowwait 5 mp_pstat_ge "$ns" 1 probes_sent 10 || fail "h2: no probes sent"
	for p in 0 1; do
		assert_eq "h2 plane $p state" "$(mp_state "$ns" $p)" up
		sent=$(mp_pstat "$ns" $p probes_sent)
		lost=$(mp_pstat "$ns" $p probes_lost)
		assert_le "h2 plane $p: probes lost of $sent, twice" $((lost * 2)) "$sent"
	done
}

# min_rtt NS DEST: the smallest RTT of 3 pings, in whole ms.
min_rtt() {
	ip netns exec "$1" ping -n -q -c 3 -i 0.02 -W 2 "$2" |
		awk -F'[/ =]+' '/^rtt/ {print int($6)}'
}

# netem: 5 ms on every link end, so 8 ends there and back between hosts
# of different leaves (40 ms), 4 to a host of the same leaf (20 ms);
# plus a link that drops all that plane 0's leaf sends to h3.
test_netem_delay() {
	local rtt s delay loss_leaf loss_host delay_host
	echo '{"links": [{"node": "p0l1", "port": "h3", "loss": "100%", "direction": "out"}]}' \
		>"$TMPD/topo.json"
	fabric_up --delay 5ms --topology "$TMPD/topo.json"
	grep -q "netem on 24 ports" "$TMPD/up.out" || fail "summary: $(cat "$TMPD/up.out")"
	s=$(tc -n "$FAB-p0l0" qdisc show dev s0)
	[[ $s == *"netem 1: root"*"delay 5ms"* && $s == *"tbf 10: parent 1:1 rate 20Mbit"* ]] ||
		fail "p0l0 s0 qdiscs: $s"
	rtt=$(min_rtt "$(hns 0)" 10.99.2.1)
	assert_ge "RTT h0-h2 through mp0 (ms)" "${rtt:-0}" 40
	assert_le "RTT h0-h2 through mp0 (ms)" "${rtt:-999}" 70
	rtt=$(min_rtt "$(hns 0)" fd99::1:1)
	assert_ge "RTT h0-h1 through mp0, IPv6 (ms)" "${rtt:-0}" 20
	assert_le "RTT h0-h1 through mp0, IPv6 (ms)" "${rtt:-999}" 50
	! ip netns exec "$(hns 0)" ping -n -q -c 2 -i 0.1 -W 1 10.100.3.2 >/dev/null ||
		fail "h3's plane-0 rail answered through a link that loses everything"
	s=$("$MPLANECTL" -j fabric show --prefix "$FAB")
	jq_read "$s" '.delay_us, (.nodes[] | select(.name == "p0l1") | .ports[] | select(.ifname == "h3") | .loss_pct), (.nodes[] | select(.name == "h3") | .ports[0].loss_pct), (.nodes[] | select(.name == "h3") | .ports[1].delay_us)' \
		delay loss_leaf loss_host delay_host
	assert_eq "state: delay" "$delay" 5000
	assert_eq "state: p0l1 h3 loss" "$loss_leaf" 100
	assert_eq "state: h3 r0 loss (direction out)" "$loss_host" 0
	assert_eq "state: h3 r1 delay" "$delay_host" 5000
}

# bond_tx NS: the tx_packets of the host's rails r0 and r1.
bond_tx() {
	ip netns exec "$1" cat /sys/class/net/r0/statistics/tx_packets \
		/sys/class/net/r1/statistics/tx_packets | xargs
}

# bond_flows NS DEST N: N UDP flows (source ports of their own) of 20
# packets each from host NS to DEST, in one process (an exec costs a
# second under TCG); prints how many were sent.  Nothing listens there:
# once DEST's port unreachable is back, a flow's next sends are
# refused, and not sent.
bond_flows() {
	ip netns exec "$1" "$MPLANECTL" -j traffic send "$2:9001" --flows "$3" \
		--count $(($3 * 20)) --rate 2000 2>/dev/null | jq .sent ||
		fail "$3 flows to $2"
}

# --host-bond, the bonding baseline: bond0 on every host over both
# rails, as asked (balance-xor, layer3+4, miimon 100), owning the mplane
# addresses; every host reaches every other one through it in both
# families (each SYN answered); 16 flows use both rails; and when the
# leaf's end of h0's plane-0 link goes down, h0's bond sees the carrier
# go (miimon), and every flow leaves r0 for r1.
test_host_bond() {
	local ns out h r0 r1 a0 a1 sent pids=()
	modprobe bonding 2>/dev/null || skip "no bonding module"
	"$MPLANECTL" fabric up -q --force --prefix "$FAB" --planes 2 --leaves 2 \
		--spines 1 --hosts $HOSTS --rate 20mbit --host-bond >"$TMPD/up.out" ||
		fail "fabric up --host-bond"
	assert_eq "state" "$("$MPLANECTL" -j fabric show --prefix "$FAB" |
		jq -c '[.has_mp0, .host_bond, .mp0_missing]')" '[false,true,"--host-bond"]'
	ns=$(hns 1)
	out=$(ip netns exec "$ns" cat /sys/class/net/bond0/bonding/mode \
		/sys/class/net/bond0/bonding/xmit_hash_policy \
		/sys/class/net/bond0/bonding/miimon /sys/class/net/bond0/bonding/slaves | xargs)
	assert_eq "h1 bond0" "$out" "balance-xor 2 layer3+4 1 100 r0 r1"
	out=$(ip -n "$ns" -o addr show dev bond0)
	[[ $out == *"inet 10.99.1.1/32"* && $out == *"inet6 fd99::1:1/128"* ]] ||
		fail "h1 bond0 addresses: $out"
	assert_eq "h1's route" "$(ip -n "$ns" route show 10.99.0.0/16 | xargs)" \
		"10.99.0.0/16 via 10.100.1.1 dev bond0 proto static src 10.99.1.1 onlink"
	for ((h = 0; h < HOSTS; h++)); do
		ip netns exec "$(hns $h)" bash -c "${PROBER//mp0/bond0}" _ $h $HOSTS \
			"$TMPD/err$h" >"$TMPD/reach$h" 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}"
	for ((h = 0; h < HOSTS; h++)); do
		out=$(<"$TMPD/reach$h")
		[[ $out != *unreached* ]] || fail "bond: h$h: ${out//$'\n'/; }"
		[[ $out =~ bond0\ ([0-9]+)\ ([0-9]+) ]] || fail "bond: h$h: $out"
		assert_ge "bond: h$h bond0 rx_packets" "${BASH_REMATCH[2]}" $PER_HOST
	done
	ns=$(hns 0)
	read -r r0 r1 <<<"$(bond_tx "$ns")"
	sent=$(bond_flows "$ns" 10.99.3.1 16)
	read -r a0 a1 <<<"$(bond_tx "$ns")"
	log "16 flows: r0 $((a0 - r0)), r1 $((a1 - r1)) of $sent packets"
	assert_ge "16 flows' packets on r0 and r1" $((a0 - r0 + a1 - r1)) "$sent"
	assert_ge "16 flows' packets on r0" $((a0 - r0)) 40
	assert_ge "16 flows' packets on r1" $((a1 - r1)) 40
	"$MPLANECTL" fabric fault --prefix "$FAB" port p0l0:h0 down >/dev/null ||
		fail "port p0l0:h0 down"
	slowwait 5 ip netns exec "$ns" grep -qx down /sys/class/net/r0/bonding_slave/mii_status ||
		fail "h0's bond never saw r0's carrier go"
	read -r r0 r1 <<<"$(bond_tx "$ns")"
	sent=$(bond_flows "$ns" 10.99.3.1 16)
	read -r a0 a1 <<<"$(bond_tx "$ns")"
	log "r0's carrier gone: r0 $((a0 - r0)), r1 $((a1 - r1)) of $sent packets"
	assert_eq "packets on r0 with its carrier gone" $((a0 - r0)) 0
	assert_ge "packets sent" "$sent" 304
	assert_ge "packets on r1 with r0's carrier gone" $((a1 - r1)) "$sent"
	"$MPLANECTL" fabric fault --prefix "$FAB" clear >/dev/null || fail "fault clear"
	# Both ends down and up again: the bond's port comes back as a port,
	# with no address of its own.
	"$MPLANECTL" fabric fault --prefix "$FAB" h0:r0 down >/dev/null || fail "h0:r0 down"
	"$MPLANECTL" fabric fault --prefix "$FAB" h0:r0 up >/dev/null || fail "h0:r0 up, a bond's port"
	! ip -n "$ns" -o addr show dev r0 | grep -q "inet " || fail "r0, a bond's port, has an address"
	"$MPLANECTL" fabric down --prefix "$FAB" >/dev/null
}

# --cc notify: every host's mp0 runs cc notify, and the state file says
# so; as nothing is paced, no rail has fq under its tbf and no switch
# port the 1 us of netem that --cc dcqcn adds.
test_cc_notify_made() {
	local s h algo qdiscs
	fabric_up --policy spray --cc notify
	s=$("$MPLANECTL" -j fabric show --prefix "$FAB")
	jq_read "$s" '.cc_algo' algo
	assert_eq "state: cc" "$algo" notify
	for ((h = 0; h < HOSTS; h++)); do
		algo=$("$MPLANECTL" -n "$(hns $h)" -j link show mp0 | jq -r '.devices[0].cc.algo')
		assert_eq "h$h mp0 cc" "$algo" notify
	done
	qdiscs=$(ip netns exec "$(hns 0)" tc qdisc show; ip netns exec "$FAB-p0l0" tc qdisc show)
	[[ $qdiscs != *" fq "* && $qdiscs != *netem* ]] || fail "h0 and p0l0 qdiscs: $qdiscs"
	[[ $qdiscs == *tbf* ]] || fail "no tbf: $qdiscs"
	"$MPLANECTL" fabric down --prefix "$FAB" >/dev/null
}

# Down removes the hosts' mp0 with their namespaces.
test_down() {
	need_fabric
	"$MPLANECTL" fabric down --prefix "$FAB" >/dev/null
	assert_eq "namespaces left" "$(ip netns list | grep -c "^$FAB-" || true)" 0
	[ ! -e "$STATE/$FAB.json" ] || fail "state file left"
}

mplane_load
[ -n "$POLICIES" ] || fail "no policies in 'mplanectl link add --help'"
# The share of a quick run: mp0 made, used and removed with its
# namespace.  Not in all.sh's quick list: on the debug kernel it took
# 124 s (no splat, no leak), a tenth of that kernel's whole share.
QUICK_TESTS="test_mp0_made test_reach_ecmp test_down"
quick && POLICIES=${POLICIES%% *}
# shellcheck disable=SC2086 # TESTS is a list of names
ktap_run ${TESTS:-test_mp0_made test_reach_ecmp test_reach_ar test_probes_answered \
	test_netem_delay test_host_bond test_cc_notify_made test_down}

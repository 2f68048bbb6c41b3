#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 'mplanectl fabric' on the running kernel: a 2-plane fabric of 2 leaves,
# 2 spines and 4 hosts at 50mbit, checked against the kernel's state
# (routes, qdiscs, counters, namespaces), plus refusals, a second fabric
# next to it, cleanup after a build killed with SIGKILL, and 20 up/down
# cycles that must leave nothing behind.  Then shaping: rates per role,
# per plane and per link (the topology file) as tbf has them; netem, or
# on a kernel without it a refusal that leaves nothing; and the hosts
# without mp0 (selftests/kmod/fabric.sh has them with it).
# shellcheck source-path=SCRIPTDIR source=../lib/lib.sh
source "$(dirname "$0")/../lib/lib.sh"

MPLANECTL=$MPLANE_BUILD/mplanectl
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-fabric.XXXXXX")
# One prefix per fabric of this run, short enough for any pid.
FA=fa$$
FB=fb$$
FC=fc$$
FD=fd$$
FE=fe$$
STATE=/run/mplane/fabric
PINS=/sys/fs/bpf/mplane/fabric

fabric_cleanup() {
	local p
	for p in "$FA" "$FB" "$FC" "$FD" "$FE"; do
		"$MPLANECTL" fabric down --prefix "$p" >/dev/null 2>&1
	done
}
trap '_lib_exit; fabric_cleanup; rm -rf "$TMPD"' EXIT

fab() { "$MPLANECTL" "$@"; }
fx() { local p=$1; shift; "$MPLANECTL" fabric exec --prefix "$p" "$@"; }

# netns_count PREFIX: namespaces of fabric PREFIX in /run/netns.
netns_count() {
	find /run/netns -maxdepth 1 -name "$1-*" 2>/dev/null | wc -l
}

# need_fa: fabric FA as test_up made it, made again if an earlier test
# failed before it was up.
need_fa() {
	[ -f "$STATE/$FA.json" ] && return 0
	fab fabric up -q --prefix "$FA" --planes 2 --leaves 2 --spines 2 \
		--hosts 4 --rate 50mbit >/dev/null
}

# Sizes, ports and ifindexes as the state file tells them, and as many
# namespaces as nodes.
test_up() {
	local rc
	fabric_cleanup
	run_rc rc fab fabric up --prefix "$FA" --planes 2 --leaves 2 \
		--spines 2 --hosts 4 --rate 50mbit
	assert_eq "up: exit" "$rc" 0
	echo "$ERR" | grep -q "fabric up: nodes configured 12/12" ||
		fail "up: no progress line on stderr: $ERR"
	fab -j fabric show --prefix "$FA" >"$TMPD/show.json"
	assert_eq "nodes" "$(jq '.nodes | length' "$TMPD/show.json")" 12
	assert_eq "ports" "$(jq '[.nodes[].ports[]] | length' "$TMPD/show.json")" 32
	assert_eq "host ports" "$(jq '[.nodes[] | select(.role == "host") | .ports | length] | unique' -c "$TMPD/show.json")" "[2]"
	assert_eq "leaf p0l0 ports" "$(jq '.nodes[] | select(.name == "p0l0") | .ports | length' "$TMPD/show.json")" 4
	assert_eq "ports without ifindex" "$(jq '[.nodes[].ports[] | select(.ifindex <= 0)] | length' "$TMPD/show.json")" 0
	assert_eq "rate" "$(jq '.rate_bps' "$TMPD/show.json")" 50000000
	assert_eq "h3 plane 1 leaf" "$(jq -r '.nodes[] | select(.name == "h3") | .ports[1] | "\(.peer)/\(.peer_ifname) \(.ipv4) \(.ipv6)"' "$TMPD/show.json")" \
		"p1l1/h3 10.101.3.2/24 fd10:1:3::2/64"
	assert_eq "namespaces" "$(netns_count "$FA")" 12
	fab fabric show --prefix "$FA" | grep -q "^p1s1 .*l1>p1l1.s1 10.201.1.3" ||
		fail "show: no line for p1s1"
}

# spine_pkts PREFIX PLANE: packets the plane's spines sent to leaf 1.
spine_pkts() {
	local s n=0 c
	for s in 0 1; do
		c=$(tc -n "$1-p$2s$s" -s qdisc show dev l1 | awk '/Sent/ {print $4}')
		n=$((n + c))
	done
	echo "$n"
}

# h0 (leaf 0) reaches h3 (leaf 1) in each plane, over IPv4 and IPv6,
# and the packets went through a spine of that plane.
test_ping_planes() {
	local p before after
	need_fa
	for p in 0 1; do
		before=$(spine_pkts "$FA" "$p")
		fx "$FA" h0 ping -c 2 -i 0.2 -W 2 -q "10.$((100 + p)).3.2" >/dev/null ||
			fail "IPv4 ping h0 -> h3 in plane $p"
		fx "$FA" h0 ping -6 -c 2 -i 0.2 -W 2 -q "fd10:$p:3::2" >/dev/null ||
			fail "IPv6 ping h0 -> h3 in plane $p"
		after=$(spine_pkts "$FA" "$p")
		assert_ge "plane $p: packets from spines to leaf 1" \
			$((after - before)) 4
	done
}

# A leaf reaches other leaves' hosts over both spines: ECMP.
test_multipath_route() {
	local n
	need_fa
	n=$(ip -n "$FA-p0l0" route show 10.100.3.0/24 | grep -c nexthop)
	assert_eq "p0l0 IPv4 nexthops to 10.100.3.0/24" "$n" 2
	n=$(ip -n "$FA-p0l0" -6 route show fd10:0:3::/64 | grep -c nexthop)
	assert_eq "p0l0 IPv6 nexthops to fd10:0:3::/64" "$n" 2
	n=$(ip -n "$FA-p1l1" route show 10.99.0.1 | grep -c nexthop)
	assert_eq "p1l1 nexthops to h0's mplane address" "$n" 2
	ip -n "$FA-p0l0" route show 10.99.0.1 | grep -q "via 10.100.0.2 dev h0" ||
		fail "p0l0: no route to 10.99.0.1 via its host"
	ip -n "$FA-p0s1" route show 10.100.3.0/24 | grep -q "via 10.200.1.2 dev l1" ||
		fail "p0s1: no route to 10.100.3.0/24 via p0l1"
	assert_eq "forwarding" "$(ip netns exec "$FA-p0s0" sysctl -n net.ipv4.ip_forward)" 1
	assert_eq "hash policy" "$(ip netns exec "$FA-p0s0" sysctl -n net.ipv6.fib_multipath_hash_policy)" 1
}

# tbf_rate NS DEV: the rate of DEV's root tbf, or nothing.
tbf_rate() {
	tc -n "$1" qdisc show dev "$2" | awk '$2 == "tbf" && $4 == "root" {print $8}'
}

# Both ends of a leaf-spine and of a host-leaf link are shaped.
test_tbf_both_ends() {
	need_fa
	assert_eq "p0l0 s1" "$(tbf_rate "$FA-p0l0" s1)" 50Mbit
	assert_eq "p0s1 l0" "$(tbf_rate "$FA-p0s1" l0)" 50Mbit
	assert_eq "h2 r1" "$(tbf_rate "$FA-h2" r1)" 50Mbit
	assert_eq "p1l1 h2" "$(tbf_rate "$FA-p1l1" h2)" 50Mbit
}

# exec runs in the node's namespace and passes the exit status on.
test_exec_status() {
	local rc
	need_fa
	run_rc rc fx "$FA" h0 -- sh -c 'exit 7'
	assert_eq "exit status" "$rc" 7
	run_rc rc fx "$FA" p1s0 -- ip -o link show l1
	assert_eq "ip in p1s0" "$rc" 0
	echo "$OUT" | grep -q "02:01:03:00:00:01" || fail "p1s0 l1: MAC: $OUT"
	run_rc rc fx "$FA" h9 -- true
	assert_eq "missing node: exit" "$rc" 1
	assert_eq "missing node" "$ERR" \
		"mplanectl: fabric exec: fabric $FA has no node h9 (no netns $FA-h9)"
}

# A second prefix is a second fabric, with its own addresses' namesakes.
test_second_prefix() {
	need_fa
	# Sizes from a file; --hosts on the command line wins over its 3.
	echo '{"planes": 1, "leaves": 1, "spines": 1, "hosts": 3, "rate": "20mbit"}' \
		>"$TMPD/topo.json"
	fab fabric up -q --prefix "$FB" --topology "$TMPD/topo.json" \
		--hosts 2 >/dev/null
	assert_eq "second fabric" "$(netns_count "$FB")" 4
	assert_eq "rate from the file" "$(tbf_rate "$FB-p0s0" l0)" 20Mbit
	fx "$FB" h0 ping -c 1 -W 2 -q 10.100.1.2 >/dev/null || fail "ping in $FB"
	fx "$FA" h0 ping -c 1 -W 2 -q 10.100.3.2 >/dev/null || fail "ping in $FA"
	fab fabric down --prefix "$FB" >/dev/null
	assert_eq "second fabric after down" "$(netns_count "$FB")" 0
	assert_eq "first fabric" "$(netns_count "$FA")" 12
}

# expect RC REGEX CMD... : CMD exits with RC, its stderr matches REGEX.
expect() {
	local want=$1 re=$2 rc
	shift 2
	run_rc rc "$@"
	assert_eq "'$*': exit" "$rc" "$want"
	echo "$ERR" | grep -Eq -- "$re" || fail "'$*': stderr '$ERR' !~ /$re/"
}

test_refusals() {
	need_fa
	expect 2 "bad --rate '10furlong': want a rate with a unit" \
		fab fabric up --prefix "$FB" --rate 10furlong
	expect 2 "bad --hosts '300': want an integer from 1 to 250" \
		fab fabric up --prefix "$FB" --hosts 300
	expect 2 "bad --leaves '5': want an integer from 1 to 4" \
		fab fabric up --prefix "$FB" --hosts 4 --leaves 5
	expect 2 "bad --planes '0': want an integer from 1 to 16" \
		fab fabric up --prefix "$FB" --planes 0
	expect 2 "bad --prefix 'abcdefghijk': want 1 to 10 characters" \
		fab fabric up --prefix abcdefghijk
	expect 1 "fabric $FA exists \(12 namespaces, state file .*\): .*--force" \
		fab fabric up --prefix "$FA"
	assert_eq "nothing made by refusals" "$(netns_count "$FB")" 0
	assert_eq "refused fabric kept" "$(netns_count "$FA")" 12
}

# A build killed with SIGKILL leaves namespaces without a state file:
# down finds them by prefix.
test_crash_cleanup() {
	local pid
	# Not through fab: $! must be mplanectl's own pid.
	"$MPLANECTL" fabric up -q --prefix "$FC" --planes 4 --leaves 8 \
		--spines 8 --hosts 64 >/dev/null 2>&1 &
	pid=$!
	busywait 10000 test -e "/run/netns/$FC-h0" || fail "build did not start"
	kill -9 "$pid"
	wait "$pid" 2>/dev/null || true
	[ ! -e "$STATE/$FC.json" ] || fail "build finished before it was killed"
	assert_ge "namespaces left by the killed build" "$(netns_count "$FC")" 1
	fab fabric down --prefix "$FC" >/dev/null
	assert_eq "namespaces after down" "$(netns_count "$FC")" 0
	assert_eq "ip netns list" "$(ip netns list | grep -c "^$FC-" || true)" 0
}

# 20 up/down cycles: no namespace, link, state file, pin or process left.
# The last cycle also has a pin directory and a pid file to remove.
test_lifecycle() {
	local i links0 links1 pid
	links0=$(ip -o link show | wc -l)
	for i in $(seq 20); do
		fab fabric up -q --prefix "$FD" --planes 2 --leaves 2 \
			--spines 2 --hosts 4 >/dev/null
		if [ "$i" -eq 20 ]; then
			assert_eq "namespaces while up" "$(netns_count "$FD")" 12
			sleep 600 &
			pid=$!
			echo "$pid" >"$STATE/$FD.test.pid"
			if mountpoint -q /sys/fs/bpf; then
				mkdir -p "$PINS/$FD/sub"
			fi
		fi
		fab fabric down --prefix "$FD" >/dev/null
	done
	links1=$(ip -o link show | wc -l)
	assert_eq "links in our namespace" "$links1" "$links0"
	assert_eq "namespaces" "$(netns_count "$FD")" 0
	[ ! -e "$STATE/$FD.json" ] || fail "state file left"
	[ ! -e "$STATE/$FD.test.pid" ] || fail "pid file left"
	[ ! -e "$PINS/$FD" ] || fail "pin directory left"
	busywait 2000 sh -c "! kill -0 $pid 2>/dev/null" ||
		fail "process of the pid file not stopped"
}

# tbf_bps NS DEV: the rate of DEV's tbf, root or under netem, in bit/s,
# as 'tc -j' gives it (bytes/s).
tbf_bps() {
	tc -n "$1" -j qdisc show dev "$2" |
		jq '.[] | select(.kind == "tbf") | .options.rate * 8'
}

# up_fe ARGS...: fabric FE of 2 planes, 2 leaves, 2 spines, 4 hosts.
up_fe() {
	fab fabric up -q --force --prefix "$FE" --planes 2 --leaves 2 \
		--spines 2 --hosts 4 --no-mp0 "$@"
}

# --host-rate and --uplink-rate: host-leaf and leaf-spine links at their
# own rates (here a 2:1 oversubscription), both ends, and in the state
# file; --rate is what neither covers.
test_role_rates() {
	local out
	out=$(up_fe --rate 10mbit --host-rate 40mbit --uplink-rate 20mbit)
	[[ $out == *"16 veth pairs at 20mbit to 40mbit, no mp0 (--no-mp0)"* ]] ||
		fail "summary: $out"
	assert_eq "h0 r0" "$(tbf_bps "$FE-h0" r0)" 40000000
	assert_eq "p0l0 h1" "$(tbf_bps "$FE-p0l0" h1)" 40000000
	assert_eq "p1l1 s0" "$(tbf_bps "$FE-p1l1" s0)" 20000000
	assert_eq "p1s0 l1" "$(tbf_bps "$FE-p1s0" l1)" 20000000
	fab -j fabric show --prefix "$FE" >"$TMPD/fe.json"
	assert_eq "state: rates" "$(jq -c '[.rate_bps, .host_rate_bps, .uplink_rate_bps]' "$TMPD/fe.json")" \
		"[10000000,40000000,20000000]"
	assert_eq "state: port rates" \
		"$(jq -c '[.nodes[] | select(.name == "p0l0") | .ports[].rate_bps]' "$TMPD/fe.json")" \
		"[40000000,40000000,20000000,20000000]"
}

# The topology file: a plane at half the rate of the other (a rate, and
# per role), links of their own at one end or both, the command line
# over the file's key, and netem where the kernel has it.
test_topology_rates() {
	cat >"$TMPD/fe-topo.json" <<-EOF
	{"rate": "80mbit", "uplink_rate": "60mbit",
	 "plane_rates": {"1": {"host_rate": "40mbit", "uplink_rate": "30mbit"}},
	 "links": [{"node": "p0l0", "port": "s1", "rate": "15mbit"},
	           {"node": "h1", "port": "r0", "rate": "25mbit", "direction": "out"}]}
	EOF
	up_fe --topology "$TMPD/fe-topo.json" --uplink-rate 50mbit >/dev/null
	assert_eq "h0 r0 (rate)" "$(tbf_bps "$FE-h0" r0)" 80000000
	assert_eq "p0l0 s0 (--uplink-rate over the file's)" "$(tbf_bps "$FE-p0l0" s0)" 50000000
	assert_eq "h0 r1 (plane 1 host_rate)" "$(tbf_bps "$FE-h0" r1)" 40000000
	assert_eq "p1l0 h0 (plane 1 host_rate)" "$(tbf_bps "$FE-p1l0" h0)" 40000000
	assert_eq "p1s1 l0 (plane 1 uplink_rate)" "$(tbf_bps "$FE-p1s1" l0)" 30000000
	assert_eq "p0l0 s1 (link)" "$(tbf_bps "$FE-p0l0" s1)" 15000000
	assert_eq "p0s1 l0 (link, other end)" "$(tbf_bps "$FE-p0s1" l0)" 15000000
	assert_eq "h1 r0 (link, out only)" "$(tbf_bps "$FE-h1" r0)" 25000000
	assert_eq "p0l0 h1 (link, out only: not this end)" "$(tbf_bps "$FE-p0l0" h1)" 80000000
	assert_eq "state: h1 r0" "$(fab -j fabric show --prefix "$FE" |
		jq '.nodes[] | select(.name == "h1") | .ports[0].rate_bps')" 25000000
	fx "$FE" h0 ping -c 1 -W 2 -q 10.101.3.2 >/dev/null || fail "ping in plane 1"
	# A plane's string is its rate for both roles.
	echo '{"plane_rates": {"0": "30mbit"}}' >"$TMPD/fe-topo.json"
	up_fe --topology "$TMPD/fe-topo.json" >/dev/null
	assert_eq "p0l1 h3" "$(tbf_bps "$FE-p0l1" h3)" 30000000
	assert_eq "p0s0 l0" "$(tbf_bps "$FE-p0s0" l0)" 30000000
	assert_eq "p1s0 l0 (default rate)" "$(tbf_bps "$FE-p1s0" l0)" 100000000
}

# expect_topo REGEX JSON: fabric up with JSON as its topology file is
# refused (exit 2) with a message that matches REGEX, and makes nothing.
expect_topo() {
	echo "$2" >"$TMPD/bad.json"
	expect 2 "$1" fab fabric up --prefix "$FB" --no-mp0 --topology "$TMPD/bad.json"
}

# Errors in the topology file name the key (and the file).
test_topology_errors() {
	local f=$TMPD/bad.json
	expect_topo "$f: unknown key 'colour': want planes, .*plane_rates, links" '{"colour": 1}'
	expect_topo "bad plane_rates.2 in $f: this fabric has planes 0 to 1" \
		'{"plane_rates": {"2": "5mbit"}}'
	expect_topo "bad plane_rates in $f: key 'x': want an integer from 0 to 15" \
		'{"plane_rates": {"x": "5mbit"}}'
	expect_topo "bad plane_rates.1.uplink in $f|bad plane_rates.1 in $f: unknown key 'uplink'" \
		'{"plane_rates": {"1": {"uplink": "5mbit"}}}'
	expect_topo "bad plane_rates.0 in $f '5furlong': want a rate" \
		'{"plane_rates": {"0": "5furlong"}}'
	expect_topo "bad links in $f: want an array" '{"links": {}}'
	expect_topo "bad links\[1\] in $f: no node 'p9l0'" \
		'{"links": [{"node": "h0", "port": "r0"}, {"node": "p9l0", "port": "s0"}]}'
	expect_topo "bad links\[0\] in $f: node p0l0 has no port 's7' \(its ports are h0 to s1\)" \
		'{"links": [{"node": "p0l0", "port": "s7"}]}'
	expect_topo "bad links\[0\] in $f: want both \"node\" and \"port\"" \
		'{"links": [{"node": "p0l0", "rate": "5mbit"}]}'
	expect_topo "bad links\[0\] in $f: delay '3': want a time from 0us to 1s with a unit" \
		'{"links": [{"node": "p0l0", "port": "s0", "delay": "3"}]}'
	expect_topo "bad links\[0\] in $f: loss '3': want a percentage" \
		'{"links": [{"node": "p0l0", "port": "s0", "loss": "3"}]}'
	expect_topo "bad links\[0\] in $f: unknown key 'colour': want node, port, rate, delay, loss, buffer or direction" \
		'{"links": [{"node": "p0l0", "port": "s0", "colour": "red"}]}'
	expect_topo "bad links\[0\] in $f: buffer '500us': want a time from 1ms to 1s" \
		'{"links": [{"node": "p0l0", "port": "s0", "buffer": "500us"}]}'
	expect_topo "bad host_rate in $f '1bit': want a rate from 10kbit to 100gbit" \
		'{"host_rate": "1bit"}'
	expect_topo "bad delay in $f '2': want a time" '{"delay": "2"}'
	assert_eq "nothing made by refusals" "$(netns_count "$FB")" 0
}

# tbf_lat_us NS DEV: the time tbf's queue (limit less burst) holds at
# its rate, as tc tells it.
tbf_lat_us() {
	tc -n "$1" -j qdisc show dev "$2" |
		jq '.[] | select(.kind == "tbf") | .options.lat'
}

# --buffer: every port's tbf queue as time at its rate, 20 ms without
# it; a link's own in the topology file; both in the state file, which
# an older one without them reads as 20 ms.
test_buffer() {
	up_fe --rate 4mbit >/dev/null
	assert_eq "default buffer (us)" "$(tbf_lat_us "$FE-p0l0" h0)" 20000
	echo '{"links": [{"node": "p0l0", "port": "h1", "buffer": "50ms", "direction": "out"}]}' \
		>"$TMPD/fe-topo.json"
	up_fe --rate 4mbit --buffer 100ms --topology "$TMPD/fe-topo.json" >/dev/null
	assert_eq "--buffer 100ms, host end (us)" "$(tbf_lat_us "$FE-h0" r0)" 100000
	assert_eq "--buffer 100ms, spine (us)" "$(tbf_lat_us "$FE-p1s1" l0)" 100000
	assert_eq "link buffer, out only (us)" "$(tbf_lat_us "$FE-p0l0" h1)" 50000
	assert_eq "link buffer, not the other end (us)" "$(tbf_lat_us "$FE-h1" r0)" 100000
	fab -j fabric show --prefix "$FE" >"$TMPD/fe.json"
	assert_eq "state: buffers" "$(jq -c '[.buffer_us, (.nodes[] | select(.name == "p0l0") |
		.ports[1].buffer_us)]' "$TMPD/fe.json")" "[100000,50000]"
	expect 2 "bad --buffer '2s': want a time from 1ms to 1s" \
		fab fabric up --prefix "$FB" --no-mp0 --buffer 2s
	# A state file from before --buffer.
	jq 'del(.buffer_us) | del(.nodes[].ports[].buffer_us)' "$TMPD/fe.json" \
		>"/run/mplane/fabric/$FE.json"
	assert_eq "old state: buffer" "$(fab -j fabric show --prefix "$FE" | jq .buffer_us)" 20000
}

# netem_in_kernel: whether this kernel runs netem (a module it may load).
netem_in_kernel() {
	local ns=netem-probe$$ rc=0
	ip netns add "$ns"
	tc -n "$ns" qdisc add dev lo root netem delay 1ms 2>/dev/null || rc=1
	ip netns del "$ns"
	return $rc
}

# --delay and --loss: netem at the root, the link's tbf under it; on a
# kernel without netem (the host's), one line that says so, exit 1, and
# nothing left behind.
test_netem() {
	local rc s
	if ! netem_in_kernel; then
		run_rc rc fab fabric up --prefix "$FB" --no-mp0 --delay 1ms
		assert_eq "exit without netem" "$rc" 1
		assert_eq "message without netem" "$ERR" \
			"mplanectl: fabric up: netem: this kernel has no netem qdisc (CONFIG_NET_SCH_NETEM, module sch_netem), which --delay and --loss need"
		assert_eq "namespaces left" "$(netns_count "$FB")" 0
		assert_eq "ip netns list" "$(ip netns list | grep -c "^$FB-" || true)" 0
		[ ! -e "$STATE/$FB.json" ] || fail "state file left"
		expect 1 "netem: this kernel has no netem" fab fabric up --prefix "$FB" \
			--no-mp0 --loss 1%
		return 0
	fi
	up_fe --rate 20mbit --delay 2ms --loss 0.5% >/dev/null
	s=$(tc -n "$FE-p0l0" qdisc show dev s0)
	[[ $s == *"netem 1: root"*"delay 2ms loss 0.5%"* &&
	   $s == *"tbf 10: parent 1:1 rate 20Mbit"* ]] || fail "p0l0 s0 qdiscs: $s"
	assert_eq "state: h0 r0 netem" "$(fab -j fabric show --prefix "$FE" |
		jq -c '.nodes[0].ports[0] | [.delay_us, .loss_pct]')" "[2000,0.5]"
}

# Hosts without mp0: --no-mp0 says so in the state file and makes none;
# without the module a line says why; --mp0 without it fails.
test_no_mp0() {
	local rc
	up_fe >/dev/null
	fab -j fabric show --prefix "$FE" >"$TMPD/fe.json"
	assert_eq "state: mp0" "$(jq -c '[.has_mp0, .mp0_missing, .probe_interval_us]' "$TMPD/fe.json")" \
		'[false,"--no-mp0",0]'
	assert_eq "hosts' mp0" "$(jq -c '[.nodes[] | select(.role == "host") | .mp0] | unique' "$TMPD/fe.json")" "[null]"
	ip -n "$FE-h0" link show mp0 >/dev/null 2>&1 && fail "h0 has an mp0"
	[ -z "$(ip -n "$FE-h0" route show 10.99.0.0/16)" ] || fail "h0 routes 10.99/16"
	expect 2 "--policy is for mp0: not with --no-mp0" \
		fab fabric up --prefix "$FB" --no-mp0 --policy rr
	expect 2 "bad --policy 'fast': want flowlet\|hash\|rr\|spray" \
		fab fabric up --prefix "$FB" --policy fast
	expect 2 "bad --probe-interval '10us': want a time from 50us to 1s" \
		fab fabric up --prefix "$FB" --probe-interval 10us
	[ ! -e /sys/module/mplane ] || return 0
	run_rc rc fab fabric up --prefix "$FB" --hosts 2 --leaves 1 --planes 1 --spines 1
	assert_eq "up without the module: exit" "$rc" 0
	echo "$ERR" | grep -qx "fabric up: no mp0 on the hosts: mplane.ko is not loaded (--no-mp0 to build without it, quietly)" ||
		fail "no line about mp0: $ERR"
	[[ $OUT == *"no mp0 (mplane.ko is not loaded)"* ]] || fail "summary: $OUT"
	assert_eq "state: mp0_missing" "$(fab -j fabric show --prefix "$FB" | jq -r .mp0_missing)" \
		"mplane.ko is not loaded"
	fab fabric down --prefix "$FB" >/dev/null
	expect 1 "--mp0: mplane.ko is not loaded" fab fabric up --prefix "$FB" --mp0
	assert_eq "nothing made by --mp0" "$(netns_count "$FB")" 0
}

# h0_tx DEV: tx_packets of h0's DEV.
h0_tx() { ip netns exec "$FB-h0" cat "/sys/class/net/$1/statistics/tx_packets"; }

# h0_flows: 16 flows of 20 packets from h0 to h3's ports 9001-9016; prints
# how many packets went out.  Nothing listens there: a port unreachable
# that comes back fails the flow's next send (ECONNREFUSED), which
# `traffic send` counts as an error, not as sent.
h0_flows() {
	local i sent=0 out
	for i in $(seq 1 16); do
		out=$(ip netns exec "$FB-h0" "$MPLANECTL" -j traffic send \
			"10.99.3.1:$((9000 + i))" --count 20 --rate 2000 2>/dev/null) ||
			fail "flow $i"
		sent=$((sent + $(jq .sent <<<"$out")))
	done
	echo "$sent"
}

# --host-multipath: the kernel's ECMP over the rails, no mp0.  Each
# host's mplane address on lo, one route over both rails from it, TCP
# flows spread over both by their ports, and a rail whose link is down
# left: h0 still reaches h3 with its plane-0 link down, over plane 1.
test_host_multipath() {
	local r0 r1 sent
	fab fabric up -q --prefix "$FB" --planes 2 --leaves 2 --spines 2 --hosts 4 \
		--rate 50mbit --host-multipath >/dev/null || fail "up --host-multipath"
	assert_eq "state" "$(fab -j fabric show --prefix "$FB" | jq -c '[.has_mp0, .host_multipath, .mp0_missing]')" \
		'[false,true,"--host-multipath"]'
	ip -n "$FB-h0" addr show dev lo | grep -q "inet 10.99.0.1/32" || fail "no 10.99.0.1 on h0's lo"
	assert_eq "h0's route" "$(ip -n "$FB-h0" route show 10.99.0.0/16 | xargs)" \
		"10.99.0.0/16 proto static src 10.99.0.1 nexthop via 10.100.0.1 dev r0 weight 1 nexthop via 10.101.0.1 dev r1 weight 1"
	ip -n "$FB-h0" -6 route show fd99::/64 | grep -q "nexthop via fd10:1:" || fail "no IPv6 route over r1"
	fx "$FB" h0 -- ping -c 1 -W 2 -q 10.99.3.1 >/dev/null || fail "h0 to h3's mplane address"
	# Flows by their ports: 16 of them use both rails.
	r0=$(h0_tx r0) r1=$(h0_tx r1)
	sent=$(h0_flows)
	r0=$(($(h0_tx r0) - r0)) r1=$(($(h0_tx r1) - r1))
	log "16 flows: $sent packets sent, r0 $r0, r1 $r1"
	if [ "$r0" -lt 40 ] || [ "$r1" -lt 40 ]; then
		fail "16 flows on one rail: r0 $r0, r1 $r1"
	fi
	# Every flow leaves r0 when its link goes down: every packet sent is
	# on r1 (and a route to r0 would have failed the sends instead).
	fab fabric fault --prefix "$FB" h0:r0 down >/dev/null || fail "h0:r0 down"
	r1=$(h0_tx r1)
	sent=$(h0_flows)
	r1=$(($(h0_tx r1) - r1))
	log "r0 down: $sent packets sent, r1 $r1"
	assert_ge "packets sent with r0 down (of 320)" "$sent" 300
	assert_ge "packets on r1 with r0 down" "$r1" "$sent"
	fab fabric fault --prefix "$FB" clear >/dev/null
	expect 2 "--host-multipath is for hosts without mp0: not with --mp0" \
		fab fabric up --prefix "$FC" --host-multipath --mp0
	expect 2 "--cc is for mp0: not with --host-multipath" \
		fab fabric up --prefix "$FC" --host-multipath --cc dcqcn
	fab fabric down --prefix "$FB" >/dev/null
}

# --host-bond's refusals; the bond itself is tested where the bonding
# driver is (selftests/kmod/fabric.sh), and this kernel has none.
test_host_bond_refusals() {
	expect 2 "--host-multipath and --host-bond: give one of them" \
		fab fabric up --prefix "$FC" --host-multipath --host-bond
	expect 2 "--host-bond is for hosts without mp0: not with --mp0" \
		fab fabric up --prefix "$FC" --host-bond --mp0
	expect 2 "--policy is for mp0: not with --host-bond" \
		fab fabric up --prefix "$FC" --host-bond --policy hash
	[ ! -e /sys/module/bonding ] || skip "the bonding driver is loaded here"
	expect 1 "--host-bond: the bonding driver is not loaded \(modprobe bonding first\)" \
		fab fabric up --prefix "$FC" --host-bond
	assert_eq "nothing made by --host-bond" "$(netns_count "$FC")" 0
}

test_down() {
	need_fa
	fab fabric down --prefix "$FA" | grep -q "removed 12 namespaces" ||
		fail "down did not say what it removed"
	assert_eq "namespaces" "$(netns_count "$FA")" 0
	assert_eq "down again" "$(fab fabric down --prefix "$FA")" \
		"$FA: no such fabric, nothing to remove"
}

[ -x "$MPLANECTL" ] || { echo "1..0 # SKIP no $MPLANECTL (make tools)"; exit 0; }
ktap_run test_up test_ping_planes test_multipath_route test_tbf_both_ends \
	test_exec_status test_second_prefix test_refusals test_crash_cleanup \
	test_lifecycle test_role_rates test_topology_rates test_topology_errors \
	test_buffer test_netem test_no_mp0 test_host_multipath test_host_bond_refusals \
	test_down

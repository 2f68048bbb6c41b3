#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# device.sh: the mplane net_device and its planes, as seen from iproute2
# and rtnetlink.  Needs root and mplane.ko: either already loaded, or at
# $MPLANE_KO (the VM runner sets it).  Every test works in its own
# namespace, so that deleting the namespace cleans up after it.
#
# setup_ns assigns the namespace variables by name:
# shellcheck disable=SC2154
# shellcheck source=selftests/lib/lib.sh
source "$(dirname "$0")/../lib/lib.sh"

# mplane_load : make sure the module is in; fails if it cannot be.
mplane_load() {
	[ -d /sys/module/mplane ] && return 0
	[ -n "${MPLANE_KO:-}" ] || return 1
	insmod "$MPLANE_KO"
}

need_mplane() {
	if [ ! -d /sys/module/mplane ] && [ -z "${MPLANE_KO:-}" ]; then
		skip "mplane.ko is not loaded and MPLANE_KO is not set"
	fi
	mplane_load || fail "cannot load $MPLANE_KO"
}

# mpnl NS ARGS... : raw rtnetlink requests (selftests/kmod/mpnl.c), since
# iproute2 does not know the mplane attributes:
#   info DEV...           print DEV.plane_count=N, or DEV.plane_id=N,
#                         DEV.plane_state=N and DEV.plane_reason=N
#   setlink DEV ATTR N    send IFLA_INFO_DATA {ATTR: u32 N} for DEV
#   newlink DEV ATTR N    the same, creating DEV
#   setslave DEV ATTR N   send IFLA_INFO_SLAVE_DATA {ATTR: u32 N}
# On an error it prints "Error: EXTACK" and exits 1.
MPNL=$MPLANE_BUILD/mpnl
mpnl() { "$MPNL" "$@"; }

need_mpnl() {
	[ -x "$MPNL" ] || skip "$MPNL is not built (make tools)"
}

# The debug kernel under TCG takes over a second per exec, so helpers
# parse with bash rather than with grep or sed, and set-up goes through
# one "ip -batch" where it can.

# nl_info NS DEV... : read the mplane attributes of DEVs into $nl_out.
nl_info() {
	local ns=$1
	shift
	nl_out=$(mpnl "$ns" info "$@")
}

# nl_val DEV KEY : one value read by the last nl_info.
nl_val() {
	[[ $'\n'$nl_out$'\n' =~ $'\n'$1\.$2=([0-9]+)$'\n' ]] && echo "${BASH_REMATCH[1]}"
	return 0
}

# link_of NS DEV : DEV's one-line "ip -d -o link show".
link_of() {
	ip -n "$1" -d -o link show dev "$2"
}

# master_of NS DEV : the name of DEV's master, empty if none.
master_of() {
	local out

	out=$(link_of "$1" "$2") || return 1
	[[ $out =~ \ master\ ([^ ]+)\  ]] && echo "${BASH_REMATCH[1]}"
	return 0
}

# has_flag NS DEV FLAG : DEV's flags include FLAG (SLAVE, UP, ...).
has_flag() {
	[[ $(link_of "$1" "$2") =~ [\<,]$3[,\>] ]]
}

# ipb NS : run the ip commands on stdin in NS, in one process.
ipb() {
	ip -n "$1" -batch -
}

# rails NS N... : a veth rail rN (peer rNp, both up) for each N.
rails() {
	local ns=$1 n

	shift
	for n in "$@"; do
		echo "link add r$n type veth peer name r${n}p"
		echo "link set r${n}p up"
		echo "link set r$n up"
	done | ipb "$ns"
}

# enslave NS N... : rails rN become planes of mp0, in this order.
enslave() {
	local ns=$1 n

	shift
	for n in "$@"; do
		echo "link set r$n master mp0"
	done | ipb "$ns"
}

# mp_ns : a new namespace, named by $mpns, holding an mplane device mp0.
mp_ns() {
	need_mplane
	setup_ns_nolo mpns
	ipb "$mpns" <<-EOF
		link set lo up
		link add mp0 type mplane
	EOF
}

test_create_up_down_delete() {
	local info cpus

	mp_ns
	info=$(link_of "$mpns" mp0)
	[[ $info == *"link/none"* ]] || fail "not ARPHRD_NONE: $info"
	[[ $info == *"<POINTOPOINT,NOARP>"* ]] || fail "flags: $info"
	[[ $info == *" mplane "* ]] || fail "kind missing: $info"
	[[ $info == *"minmtu 68 maxmtu 65535"* ]] || fail "mtu range: $info"

	# One transmit queue per possible CPU, at most 64.
	cpus=$(</sys/devices/system/cpu/possible)
	cpus=$((${cpus#*-} + 1))
	[[ $info =~ numtxqueues\ ([0-9]+) ]] || fail "no numtxqueues: $info"
	assert_eq "tx queues" "${BASH_REMATCH[1]}" "$((cpus < 64 ? cpus : 64))"

	ip -n "$mpns" link set mp0 up
	has_flag "$mpns" mp0 UP || fail "mp0 not up"
	ip -n "$mpns" link set mp0 down
	! has_flag "$mpns" mp0 UP || fail "mp0 still up"

	ip -n "$mpns" link set mp0 mtu 9000
	expect_fail_msg "mtu below 68" "." ip -n "$mpns" link set mp0 mtu 67

	ip -n "$mpns" link del mp0
	! link_of "$mpns" mp0 2>/dev/null || fail "mp0 still exists"
}

test_xmit_drops() {
	local sys=/sys/class/net/mp0 out

	mp_ns
	ipb "$mpns" <<-EOF
		addr add 10.99.0.1/24 dev mp0
		link set mp0 up
	EOF
	# No plane can carry anything: no carrier, and nothing is sent.
	out=$(ip netns exec "$mpns" bash -c "echo x >/dev/udp/10.99.0.2/9; \
		cat $sys/carrier $sys/statistics/tx_packets" 2>/dev/null)
	assert_eq "carrier, tx_packets" "$(echo $out)" "0 0"
}

test_enslave_release() {
	local info

	mp_ns
	rails "$mpns" 0 1
	ip -n "$mpns" link set r0 master mp0
	ip -n "$mpns" link set r1 master mp0
	info=$(link_of "$mpns" r0)
	[[ $info == *" master mp0 "* ]] || fail "no master: $info"
	[[ $info == *"mplane_slave"* ]] || fail "no slave kind: $info"
	# A rail keeps its own link-local IPv6 for neighbour discovery, so
	# it is not marked IFF_SLAVE the way bond ports are.
	! has_flag "$mpns" r0 SLAVE || fail "IFF_SLAVE on r0"
	assert_eq "r1 master" "$(master_of "$mpns" r1)" mp0

	ip -n "$mpns" link set r0 nomaster
	assert_eq "r0 master after nomaster" "$(master_of "$mpns" r0)" ""
	# Released rails are plain devices again: the next enslave works.
	ip -n "$mpns" link set r0 master mp0
	assert_eq "r0 master again" "$(master_of "$mpns" r0)" mp0
}

test_plane_attributes() {
	need_mpnl
	mp_ns
	rails "$mpns" 0 1 2
	enslave "$mpns" 0 1 2
	nl_info "$mpns" mp0 r0 r1 r2
	assert_eq "plane count" "$(nl_val mp0 plane_count)" 3
	assert_eq "plane ids" "$(nl_val r0 plane_id)$(nl_val r1 plane_id)$(nl_val r2 plane_id)" 012

	# Indexes are stable and the lowest free one is reused.
	ipb "$mpns" <<-EOF
		link set r1 nomaster
		link set r0 nomaster
		link set r0 master mp0
	EOF
	nl_info "$mpns" mp0 r0 r1 r2
	assert_eq "plane count" "$(nl_val mp0 plane_count)" 2
	assert_eq "r0 plane id" "$(nl_val r0 plane_id)" 0
	assert_eq "r1 plane id" "$(nl_val r1 plane_id)" ""
	assert_eq "r2 plane id" "$(nl_val r2 plane_id)" 2
	ip -n "$mpns" link set r1 master mp0
	nl_info "$mpns" mp0 r1
	assert_eq "r1 plane id again" "$(nl_val r1 plane_id)" 1
	assert_eq "plane count" "$(nl_val mp0 plane_count)" 3
}

# plane_state_is NS RAIL STATE/REASON : MPLANE_PLANE_UP is 0, DOWN 1;
# MPLANE_REASON_NONE is 0, CARRIER 1.
plane_state_is() {
	local out

	nl_info "$1" "$2" || return 1
	[ "$(nl_val "$2" plane_state)/$(nl_val "$2" plane_reason)" = "$3" ]
}

test_plane_state_follows_carrier() {
	need_mpnl
	mp_ns
	rails "$mpns" 0
	# Planes of a device that is down are down too (reason master-down).
	ip -n "$mpns" link set mp0 up
	ip -n "$mpns" link set r0p down
	ip -n "$mpns" link set r0 master mp0
	slowwait 10 plane_state_is "$mpns" r0 1/1 || fail "no carrier but plane not down"

	ip -n "$mpns" link set r0p up
	slowwait 10 plane_state_is "$mpns" r0 0/0 || fail "carrier back, plane not up"
	ip -n "$mpns" link set r0 down
	slowwait 10 plane_state_is "$mpns" r0 1/1 || fail "rail down, plane not down"
	ip -n "$mpns" link set r0 up
	slowwait 10 plane_state_is "$mpns" r0 0/0 || fail "rail up, plane not up"
}

test_refuse_loopback() {
	mp_ns
	expect_fail_msg "enslave lo" "loopback" ip -n "$mpns" link set lo master mp0
	assert_eq "lo master" "$(master_of "$mpns" lo)" ""
}

test_refuse_itself() {
	mp_ns
	expect_fail_msg "enslave mp0 to itself" "itself" \
		ip -n "$mpns" link set mp0 master mp0
}

test_refuse_mplane() {
	mp_ns
	ip -n "$mpns" link add mp1 type mplane
	expect_fail_msg "enslave mp1 to mp0" "mplane device" \
		ip -n "$mpns" link set mp1 master mp0
}

test_refuse_not_ethernet() {
	mp_ns
	# /dev/net/tun only appears once the tun module is in.
	[ -c /dev/net/tun ] || modprobe tun 2>/dev/null || true
	[ -c /dev/net/tun ] || skip "no /dev/net/tun"
	ip -n "$mpns" tuntap add dev tun0 mode tun
	expect_fail_msg "enslave a TUN device" "Ethernet" \
		ip -n "$mpns" link set tun0 master mp0
	assert_eq "tun0 master" "$(master_of "$mpns" tun0)" ""
}

# A bridge, bond or team aggregates its ports, which are the planes; a
# tunnel (or a VLAN over one) hands mp0's packets back to the IP stack,
# where its underlay may route them into mp0 again.  Each kind is made
# only where its module loads.
test_refuse_aggregates_and_tunnels() {
	local dev spec aggregates=0 tunnels=0
	mp_ns
	ip -n "$mpns" link add base0 type veth peer name base0p
	for spec in "br0 bridge" "bond0 bond" \
		"vx0 vxlan id 42 dstport 4789 local 10.0.0.1 remote 10.0.0.2" \
		"gt0 gretap local 10.0.0.1 remote 10.0.0.2" \
		"gn0 geneve id 7 remote 10.0.0.2"; do
		dev=${spec%% *}
		# shellcheck disable=SC2086
		if ! ip -n "$mpns" link add $dev type ${spec#* } 2>/dev/null; then
			log "no ${spec#* }: not tried"
			continue
		fi
		case $dev in
		br0|bond0) aggregates=$((aggregates + 1))
			expect_fail_msg "enslave $dev" "bridges, bonds and teams cannot be planes" \
				ip -n "$mpns" link set $dev master mp0 ;;
		*)	tunnels=$((tunnels + 1))
			expect_fail_msg "enslave $dev" "tunnels .and devices over them. cannot be planes" \
				ip -n "$mpns" link set $dev master mp0 ;;
		esac
		assert_eq "$dev master" "$(master_of "$mpns" $dev)" ""
	done
	[ "$aggregates" -ge 1 ] || fail "neither a bridge nor a bond could be made"
	# The debug kernel builds no tunnel module; the release kernels all do.
	if [ "$tunnels" -eq 0 ]; then
		quick || fail "no tunnel kind could be made"
		log "no tunnel module on this kernel: only bridges and bonds tried"
	else
		# A VLAN over the VXLAN is no better.
		ip -n "$mpns" link add vl0 link vx0 type vlan id 5
		expect_fail_msg "enslave a VLAN over a VXLAN" "tunnels" \
			ip -n "$mpns" link set vl0 master mp0
	fi
	# A VLAN over a veth is a rail.
	ip -n "$mpns" link add vl1 link base0 type vlan id 6
	ip -n "$mpns" link set vl1 master mp0
	assert_eq "vl1 master" "$(master_of "$mpns" vl1)" mp0
}

test_refuse_too_many_planes() {
	local max=16 n

	mp_ns
	for ((n = 0; n <= max; n++)); do
		echo "link add r$n type veth peer name r${n}p"
	done | ipb "$mpns"
	# shellcheck disable=SC2046
	enslave "$mpns" $(seq 0 $((max - 1)))
	expect_fail_msg "plane $((max + 1))" "planes" \
		ip -n "$mpns" link set "r$max" master mp0
	assert_eq "r$max master" "$(master_of "$mpns" "r$max")" ""
	# A free slot makes room again.
	ip -n "$mpns" link set r3 nomaster
	ip -n "$mpns" link set "r$max" master mp0
}

# rtnetlink detaches a device from its old master before it calls the
# new master's ndo_add_slave, so the "already enslaved" refusal cannot be
# reached from iproute2: a second master takes the rail over, and the same
# master again is a no-op.  These tests pin that behaviour down.
test_already_enslaved() {
	need_mpnl
	mp_ns
	rails "$mpns" 0
	ip -n "$mpns" link set r0 master mp0
	ip -n "$mpns" link set r0 master mp0
	assert_eq "r0 master" "$(master_of "$mpns" r0)" mp0
	nl_info "$mpns" mp0
	assert_eq "plane count" "$(nl_val mp0 plane_count)" 1
}

test_move_from_bridge_and_mplane() {
	mp_ns
	rails "$mpns" 0 1
	ip -n "$mpns" link add mp1 type mplane
	if ip -n "$mpns" link add br0 type bridge 2>/dev/null; then
		ip -n "$mpns" link set r0 master br0
		ip -n "$mpns" link set r0 master mp0
		assert_eq "r0 master" "$(master_of "$mpns" r0)" mp0
		assert_eq "br0 ports" "$(ip -n "$mpns" -o link show master br0)" ""
	fi
	ip -n "$mpns" link set r1 master mp1
	ip -n "$mpns" link set r1 master mp0
	assert_eq "r1 master" "$(master_of "$mpns" r1)" mp0
	assert_eq "mp1 planes" "$(ip -n "$mpns" -o link show master mp1)" ""
}

test_rail_moved_to_other_netns() {
	mp_ns
	setup_ns other
	rails "$mpns" 0
	ip -n "$mpns" link set r0 master mp0
	ip -n "$mpns" link set r0 netns "$other"
	assert_eq "r0 master in new netns" "$(master_of "$other" r0)" ""
	! has_flag "$other" r0 SLAVE || fail "IFF_SLAVE left on r0"
	assert_eq "mp0 planes" "$(ip -n "$mpns" -o link show master mp0)" ""
	# mp0 is not visible from the other namespace.
	expect_fail_msg "enslave across netns" "mp0|exist|No such device" \
		ip -n "$other" link set r0 master mp0
	# Moving it back makes it a plain rail again.
	ip -n "$other" link set r0 netns "$mpns"
	ip -n "$mpns" link set r0 master mp0
}

test_device_stays_in_netns() {
	mp_ns
	setup_ns other
	expect_fail_msg "move mp0" "." ip -n "$mpns" link set mp0 netns "$other"
	link_of "$mpns" mp0 >/dev/null || fail "mp0 left its namespace"
	! link_of "$other" mp0 2>/dev/null || fail "mp0 appeared in $other"
}

test_refuse_address() {
	mp_ns
	expect_fail_msg "add with address" "link-layer address" \
		ip -n "$mpns" link add mp1 address 02:00:00:00:00:01 type mplane
	! link_of "$mpns" mp1 2>/dev/null || fail "mp1 was created"
}

test_refuse_netlink_attrs() {
	need_mpnl
	mp_ns
	rails "$mpns" 0
	ip -n "$mpns" link set r0 master mp0
	expect_fail_msg "create with plane count" "read-only" \
		mpnl "$mpns" newlink mp1 count 3
	expect_fail_msg "set plane count" "read-only" \
		mpnl "$mpns" setlink mp0 count 3
	expect_fail_msg "set plane id" "read-only" \
		mpnl "$mpns" setslave r0 plane-id 5
	expect_fail_msg "set plane load" "read-only" \
		mpnl "$mpns" setslave r0 plane-load 5
	# A setting out of range names the attribute and its range.
	expect_fail_msg "create with a bad setting" "IFLA_MPLANE_FLOWLET_GAP_US.*1\.\.1000000" \
		mpnl "$mpns" newlink mp1 flowlet-gap 0
	! link_of "$mpns" mp1 2>/dev/null || fail "mp1 was created"
}

test_rail_deleted() {
	mp_ns
	rails "$mpns" 0 1
	enslave "$mpns" 0 1
	ip -n "$mpns" link del r0
	assert_eq "planes left" "$(ip -n "$mpns" -o link show master mp0 | wc -l)" 1
	assert_eq "r1 master" "$(master_of "$mpns" r1)" mp0
}

test_delete_with_planes() {
	mp_ns
	rails "$mpns" 0 1
	enslave "$mpns" 0 1
	ip -n "$mpns" link del mp0
	assert_eq "r0 master" "$(master_of "$mpns" r0)" ""
	assert_eq "r1 master" "$(master_of "$mpns" r1)" ""
	! has_flag "$mpns" r1 SLAVE || fail "IFF_SLAVE left on r1"
	# The rails are free for a new device.
	ip -n "$mpns" link add mp0 type mplane
	ip -n "$mpns" link set r0 master mp0
}

test_rmmod_with_devices() {
	need_mplane
	[ -n "${MPLANE_KO:-}" ] || skip "MPLANE_KO is not set: cannot reload"
	setup_ns a b
	rails "$a" 0
	ip -n "$a" link add mp0 type mplane
	ip -n "$a" link set r0 master mp0
	ip -n "$b" link add mp1 type mplane
	rmmod mplane
	[ ! -d /sys/module/mplane ] || fail "module still loaded"
	! link_of "$a" mp0 2>/dev/null || fail "mp0 survived rmmod"
	! link_of "$b" mp1 2>/dev/null || fail "mp1 survived rmmod"
	assert_eq "r0 master" "$(master_of "$a" r0)" ""
	insmod "$MPLANE_KO"
	ip -n "$a" link add mp0 type mplane
	ip -n "$a" link set r0 master mp0
}

# The debug kernel's share: the ends of a rail's and a device's life, the
# paths that free (what KASAN, lockdep and kmemleak watch); the refusals
# are netlink and rail_check.c's logic, unit-tested, and run on every
# release kernel.
QUICK_TESTS="test_rail_deleted test_rmmod_with_devices"

ktap_run \
	test_create_up_down_delete \
	test_xmit_drops \
	test_enslave_release \
	test_plane_attributes \
	test_plane_state_follows_carrier \
	test_refuse_loopback \
	test_refuse_itself \
	test_refuse_mplane \
	test_refuse_not_ethernet \
	test_refuse_aggregates_and_tunnels \
	test_refuse_too_many_planes \
	test_already_enslaved \
	test_move_from_bridge_and_mplane \
	test_rail_moved_to_other_netns \
	test_device_stays_in_netns \
	test_refuse_address \
	test_refuse_netlink_attrs \
	test_rail_deleted \
	test_delete_with_planes \
	test_rmmod_with_devices

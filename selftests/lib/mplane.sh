#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mplane topologies for the kmod tests, on top of lib.sh.  Source after
# lib.sh; needs MPLANE_KO (set by the VM runner).
#
# mp_pair N: two hosts, $ha and $hb, joined by N planes.  Plane i is the
# veth a<i> (in ha) - b<i> (in hb); each host has mp0 over its rails with
# 10.99.0.{1,2}/32 and fd99::{1,2}/128.  Routes: the peer's address via mp0
# (metric 10), and through each rail (metric 100+i) for mp0 to find; IPv6
# goes via the peer rail's link-local address fe80::{1,2}:<i>.

MPLANECTL=${MPLANECTL:-$MPLANE_BUILD/mplanectl}
MP_A4=10.99.0.1 MP_B4=10.99.0.2 MP_A6=fd99::1 MP_B6=fd99::2

mplane_load() {
	[ -e /sys/module/mplane ] && return 0
	[ -f "${MPLANE_KO:-}" ] || skip "no mplane.ko (MPLANE_KO='${MPLANE_KO:-}')"
	insmod "$MPLANE_KO"
}

_mp_host() {
	local ns=$1 me4=$2 me6=$3 peer4=$4 peer6=$5
	ip -n "$ns" link add mp0 type mplane ${MP_SETTINGS:-}
	ip -n "$ns" addr add "$me4/32" dev mp0
	ip -n "$ns" -6 addr add "$me6/128" dev mp0 nodad
	ip -n "$ns" link set mp0 up
	ip -n "$ns" route add "$peer4/32" dev mp0 metric 10
	ip -n "$ns" -6 route add "$peer6/128" dev mp0 metric 10
}

# _mp_rail NS RAIL SELF PEER I PEER4 PEER6: enslave and route one rail.
_mp_rail() {
	local ns=$1 rail=$2 self=$3 peer=$4 i=$5 peer4=$6 peer6=$7
	ip -n "$ns" link set "$rail" master mp0
	ip -n "$ns" -6 addr add "fe80::$self:$i/64" dev "$rail" nodad
	ip -n "$ns" link set "$rail" up
	ip -n "$ns" route add "$peer4/32" dev "$rail" metric $((100 + i))
	ip -n "$ns" -6 route add "$peer6/128" via "fe80::$peer:$i" dev "$rail" metric $((100 + i))
}

mp_pair() {
	local n=$1 i
	mplane_load
	setup_ns ha hb
	_mp_host "$ha" $MP_A4 $MP_A6 $MP_B4 $MP_B6
	_mp_host "$hb" $MP_B4 $MP_B6 $MP_A4 $MP_A6
	for ((i = 0; i < n; i++)); do
		ip link add "a$i" netns "$ha" address "02:00:00:00:0a:0$i" type veth \
			peer name "b$i" netns "$hb" address "02:00:00:00:0b:0$i"
		_mp_rail "$ha" "a$i" 1 2 "$i" $MP_B4 $MP_B6
		_mp_rail "$hb" "b$i" 2 1 "$i" $MP_A4 $MP_A6
	done
}

# mp_json NS: `mplanectl -j link show mp0` in NS.
mp_json() {
	"$MPLANECTL" -n "$1" -j link show mp0
}

# mp_pstat NS PLANE COUNTER: one per-plane counter of NS's mp0.
mp_pstat() {
	mp_json "$1" | jq -r ".devices[0].planes[] | select(.index == $2) | .stats.$3"
}

# mp_state NS PLANE: the plane's state name.
mp_state() {
	mp_json "$1" | jq -r ".devices[0].planes[] | select(.index == $2) | .state"
}

# For busywait/slowwait, which run a command again and again (a $(...)
# in their arguments would be read only once).
mp_state_is() { [ "$(mp_state "$1" "$2")" = "$3" ]; }
mp_pstat_ge() { [ "$(mp_pstat "$1" "$2" "$3")" -ge "$4" ]; }

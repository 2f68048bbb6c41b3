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

# The set-up is written as ip batches, one process per namespace: each
# exec costs a tenth of a second under TCG and more than half a second
# on the debug kernel, where a pair made one command at a time took 20 s.
# ip picks each line's family from its addresses.

# _mp_host ME4 ME6 PEER4 PEER6: the batch lines of one host's mp0.
_mp_host() {
	local me4=$1 me6=$2 peer4=$3 peer6=$4
	echo "link set lo up"
	echo "link add mp0 type mplane ${MP_SETTINGS:-}"
	echo "addr add $me4/32 dev mp0"
	echo "addr add $me6/128 dev mp0 nodad"
	echo "link set mp0 up"
	echo "route add $peer4/32 dev mp0 metric 10"
	echo "route add $peer6/128 dev mp0 metric 10"
}

# _mp_rail RAIL SELF PEER I PEER4 PEER6: the batch lines that enslave and
# route one rail.
_mp_rail() {
	local rail=$1 self=$2 peer=$3 i=$4 peer4=$5 peer6=$6
	echo "link set $rail master mp0"
	echo "addr add fe80::$self:$i/64 dev $rail nodad"
	echo "link set $rail up"
	echo "route add $peer4/32 dev $rail metric $((100 + i))"
	echo "route add $peer6/128 via fe80::$peer:$i dev $rail metric $((100 + i))"
}

# _mp_side N RAIL SELF PEER ME4 ME6 PEER4 PEER6: the batch lines of one
# host, mp0 and its N rails RAIL0..
_mp_side() {
	local n=$1 rail=$2 self=$3 peer=$4 i
	_mp_host "$5" "$6" "$7" "$8"
	for ((i = 0; i < n; i++)); do
		_mp_rail "$rail$i" "$self" "$peer" "$i" "$7" "$8"
	done
}

# _mp_batch NS: run the ip batch on stdin in NS (the root namespace when
# NS is empty).
_mp_batch() {
	ip ${1:+-n "$1"} -batch - || fail "ip batch in ${1:-the root namespace} failed"
}

mp_pair() {
	local n=$1 i
	mplane_load
	setup_ns_nolo ha hb
	for ((i = 0; i < n; i++)); do
		echo "link add a$i netns $ha address 02:00:00:00:0a:0$i type veth" \
			"peer name b$i netns $hb address 02:00:00:00:0b:0$i"
	done | _mp_batch "" || return 1
	_mp_side "$n" a 1 2 $MP_A4 $MP_A6 $MP_B4 $MP_B6 | _mp_batch "$ha" || return 1
	_mp_side "$n" b 2 1 $MP_B4 $MP_B6 $MP_A4 $MP_A6 | _mp_batch "$hb" || return 1
}

# mp_json NS: `mplanectl -j link show mp0` in NS.
mp_json() {
	"$MPLANECTL" -n "$1" -j link show mp0
}

# mp_plane_col NS PLANE COLUMN: one column of the plane table that
# `mplanectl link show mp0` prints, read with awk: jq starts in half a
# second under TCG (a second on the debug kernel), awk in a tenth, and
# the waits below read planes again and again.  NS empty: this namespace.
mp_plane_col() {
	"$MPLANECTL" ${1:+-n "$1"} link show mp0 | awk -v plane="$2" -v name="$3" '
		$1 == "plane" { for (i = 1; i <= NF; i++) if ($i == name) col = i; next }
		col && $1 == plane { print $col; exit }'
}

# mp_pstat NS PLANE COUNTER: one per-plane counter of NS's mp0.
mp_pstat() {
	case $3 in
	tx_packets|rx_packets|selections|failovers|ecn_ce|cnp|probes_sent|probes_lost|cnp_sent|rate_cuts)
		mp_plane_col "$1" "$2" "$3" ;;
	*)	mp_json "$1" | jq -r ".devices[0].planes[] | select(.index == $2) | .stats.$3" ;;
	esac
}

# pstat_sum NS COUNTER: a per-plane counter of NS's mp0, both planes.
pstat_sum() { echo $(($(mp_pstat "$1" 0 "$2") + $(mp_pstat "$1" 1 "$2"))); }
# pstat_sum_ge NS COUNTER N: for busywait, which runs it again and again
# (a $(...) in its arguments would be read once).
pstat_sum_ge() { [ "$(pstat_sum "$1" "$2")" -ge "$3" ]; }

# mp_state NS PLANE: the plane's state name.
mp_state() { mp_plane_col "$1" "$2" state; }

# For busywait/slowwait, which run a command again and again (a $(...)
# in their arguments would be read only once).
mp_state_is() { [ "$(mp_state "$1" "$2")" = "$3" ]; }
mp_pstat_ge() { [ "$(mp_pstat "$1" "$2" "$3")" -ge "$4" ]; }

# mp_pair_carries N: wait until planes 0..N-1 of both hosts are up.  mp0
# hears of a rail's carrier from a notifier that linkwatch may hold back
# for up to a second, and drops what it is given for a plane before that
# (counted in its tx_dropped): a test that counts its first packets waits.
mp_pair_carries() {
	local ns i
	for ns in "$ha" "$hb"; do
		for ((i = 0; i < $1; i++)); do
			busywait 5000 mp_state_is "$ns" $i up ||
				fail "plane $i of $ns is $(mp_state "$ns" $i)"
		done
	done
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 'mplanectl link' on the running kernel, which has no mplane devices (the
# module is tested in selftests/kmod): the answers when there is nothing
# to show, the kernel's own errors (with their extack text) for devices
# that are not mplane's, refusals that protect other devices, usage errors
# and the monitor's exits.  Every command runs in a namespace with -n.

# a (the namespace) is set by setup_ns, called from topo.
# shellcheck disable=SC2154
# shellcheck source-path=SCRIPTDIR source=../lib/lib.sh
source "$(dirname "$0")/../lib/lib.sh"

MPLANECTL=$MPLANE_BUILD/mplanectl
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-cli.XXXXXX")
trap '_lib_exit; rm -rf "$TMPD"' EXIT

mpctl() { "$MPLANECTL" -n "$a" "$@"; }

# topo: namespace a with the veth pair va--vb and the bridge br0.
topo() {
	setup_ns a
	ip -n "$a" link add va type veth peer name vb
	ip -n "$a" link add br0 type bridge
}

# expect RC MSG CMD... : CMD exits with RC and prints exactly MSG on stderr.
expect() {
	local want_rc=$1 want_err=$2 rc
	shift 2
	run_rc rc "$@"
	assert_eq "'$*': exit" "$rc" "$want_rc"
	assert_eq "'$*': stderr" "$ERR" "$want_err"
}

# (a) No mplane device: nothing in text, an empty list in JSON.
test_show_empty() {
	local rc

	topo
	run_rc rc mpctl link show
	assert_eq "show: exit" "$rc" 0
	assert_eq "show: stdout" "$OUT" ""
	assert_eq "show: stderr" "$ERR" ""
	run_rc rc mpctl -j link show
	assert_eq "show -j: exit" "$rc" 0
	assert_eq "show -j: stdout" "$OUT" '{"devices":[]}'
}

# (b) show DEV names what DEV is when it is not an mplane device.
test_show_not_mplane() {
	topo
	expect 1 "mplanectl: link show: nosuchdev: No such device" \
		mpctl link show nosuchdev
	expect 1 "mplanectl: link show: va: not an mplane device (kind veth)" \
		mpctl link show va
	expect 1 "mplanectl: link show: lo: not an mplane device" \
		mpctl -j link show lo
}

# (c) set goes to the kernel, whose answer is printed: no such device, or
# a device of another kind, which refuses IFLA_INFO_DATA of mplane.
test_set_kernel_errors() {
	topo
	expect 1 "mplanectl: link set: nosuchdev: No such device" \
		mpctl link set nosuchdev policy rr
	expect 1 "mplanectl: link set: va: Operation not supported (kind veth, not mplane)" \
		mpctl link set va policy rr
	expect 1 "mplanectl: link set: lo: Operation not supported (not an mplane device)" \
		mpctl link set lo holddown 10
}

# (d) The kernel's extack text reaches the user: without mplane.ko the
# kernel refuses to create an mplane device with "Unknown device type".
test_add_extack() {
	topo
	if ip -n "$a" link add mpprobe type mplane 2>/dev/null; then
		skip "mplane.ko is loaded: the kind is known here"
	fi
	expect 1 "mplanectl: link add: mp0: Unknown device type (Operation not supported): the mplane module is not loaded: 'modprobe mplane', or install it (the mplane-dkms package, or make install-dkms)" \
		mpctl link add mp0 policy rr peers 10.0.0.2,fd00::2
	ip -n "$a" link show mp0 >/dev/null 2>&1 && fail "mp0 exists"
	return 0
}

# (e) Mistakes on the command line are usage errors (2), found before
# anything is sent, so a missing device does not hide them.
test_usage_errors() {
	local rc args

	topo
	expect 2 "mplanectl: link set: bad policy 'ecmp': want flowlet|hash|rr|spray
Try 'mplanectl link set --help'." mpctl link set nosuchdev policy ecmp
	expect 2 "mplanectl: link set: bad flowlet-gap '100us': want a decimal integer
Try 'mplanectl link set --help'." mpctl link set va flowlet-gap 100us
	expect 2 "mplanectl: link set: bad peer '10.0.0.300': want an IPv4 or IPv6 address, or none
Try 'mplanectl link set --help'." mpctl link set va peers 10.0.0.1,10.0.0.300
	expect 2 "mplanectl: link set: nothing to set: give at least one setting
Try 'mplanectl link set --help'." mpctl link set va
	expect 2 "mplanectl: link plane: bad admin 'off': want up|drain|down
Try 'mplanectl link plane --help'." mpctl link plane va admin off
	for args in "link set va policy" "link set va policy rr policy hash" \
		"link set va frobnicate 1" "link set va probe-misses 4294967296" \
		"link add" "link add 0123456789abcdef" "link del" "link del va vb" \
		"link plane va" "link plane va policy rr" "link show va vb" \
		"link monitor --count 0" "link monitor --timeout soon" \
		"link monitor va vb" "link frobnicate"; do
		# shellcheck disable=SC2086
		run_rc rc mpctl $args
		assert_eq "'$args': exit" "$rc" 2
	done
}

# (f) plane refuses a rail that is not a plane of an mplane device, and
# sends nothing to another master, whose attributes ours would overwrite.
test_plane_refused() {
	local cost

	topo
	expect 1 "mplanectl: link plane: va: not a plane: it has no master (enslave it with 'ip link set va master mp0')" \
		mpctl link plane va weight 3
	ip -n "$a" link set va master br0
	cost=$(ip -n "$a" -d -j link show va | jq '.[0].linkinfo.info_slave_data.cost')
	expect 1 "mplanectl: link plane: va: not a plane of an mplane device: its master is br0 (bridge)" \
		mpctl link plane va weight 3 admin drain
	assert_eq "bridge port cost" \
		"$(ip -n "$a" -d -j link show va | jq '.[0].linkinfo.info_slave_data.cost')" "$cost"
	expect 1 "mplanectl: link plane: nosuchdev: No such device" \
		mpctl link plane nosuchdev admin up
}

# (g) del deletes mplane devices only.
test_del_refused() {
	topo
	expect 1 "mplanectl: link del: va: not an mplane device (kind veth)" \
		mpctl link del va
	expect 1 "mplanectl: link del: br0: not an mplane device (kind bridge)" \
		mpctl link del br0
	ip -n "$a" link show va >/dev/null || fail "va was deleted"
	ip -n "$a" link show br0 >/dev/null || fail "br0 was deleted"
	expect 1 "mplanectl: link del: nosuchdev: No such device" \
		mpctl link del nosuchdev
}

now_ms() { date +%s%3N; }

# (h) monitor: --timeout alone ends well (0) and on time; --count not
# reached by then is a failure (1); links of other kinds changing print
# nothing; --ready-file appears once it listens.
test_monitor() {
	local rc start took pid

	topo
	start=$(now_ms)
	run_rc rc mpctl link monitor --timeout 1
	took=$(($(now_ms) - start))
	assert_eq "monitor --timeout 1: exit" "$rc" 0
	assert_eq "monitor --timeout 1: stdout" "$OUT" ""
	assert_ge "monitor --timeout 1: ms" "$took" 1000
	assert_le "monitor --timeout 1: ms" "$took" 3000

	expect 1 "mplanectl: link monitor: timed out after 0.300 s with 0 of 1 changes" \
		mpctl -j link monitor --count 1 --timeout 0.3
	expect 1 "mplanectl: link monitor: va: not an mplane device (kind veth)" \
		mpctl link monitor va --timeout 0.1

	mpctl -j link monitor --timeout 2 --ready-file "$TMPD/ready" \
		>"$TMPD/mon.out" 2>"$TMPD/mon.err" &
	pid=$!
	busywait 1500 test -e "$TMPD/ready" || fail "no ready file"
	ip -n "$a" link set va master br0
	ip -n "$a" link set va up
	ip -n "$a" link set vb up
	ip -n "$a" link set va down
	ip -n "$a" link set va nomaster
	wait "$pid" || fail "monitor: exit $?: $(cat "$TMPD/mon.err")"
	assert_eq "monitor: stdout" "$(cat "$TMPD/mon.out")" ""
	assert_eq "monitor: stderr" "$(cat "$TMPD/mon.err")" ""
}

# (i) Every command teaches: --help exits 0 and shows the uapi's ranges.
test_help() {
	local cmd rc

	for cmd in show add set del plane monitor; do
		run_rc rc "$MPLANECTL" link "$cmd" --help
		assert_eq "link $cmd --help: exit" "$rc" 0
		echo "$OUT" | grep -q "^Examples:" || fail "link $cmd --help: no examples"
	done
	run_rc rc "$MPLANECTL" link set --help
	echo "$OUT" | grep -A2 "^  probe-interval US" | grep -q "50 to 1000000, default 1000" ||
		fail "set --help: no probe-interval range"
	echo "$OUT" | grep -q "policy flowlet|hash|rr|spray" || fail "set --help: no policies"
	echo "$OUT" | grep -q "at most 64" || fail "set --help: no peer limit"
	run_rc rc "$MPLANECTL" link plane --help
	echo "$OUT" | grep -q "at most 1000000, default 0" || fail "plane --help: no weight range"
	run_rc rc "$MPLANECTL" link --help
	assert_eq "link --help: exit" "$rc" 0
}

# skip_all WHY : the whole script cannot run; one skipped line says why.
skip_all() {
	printf 'TAP version 13\n1..1\nok 1 mplanectl_cli # SKIP %s\n' "$1"
	exit "$KSFT_SKIP"
}

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null || skip_all "needs jq"
[ -x "$MPLANECTL" ] || skip_all "$MPLANECTL not built (make tools)"

# (h) -j is global, and taken after the command too, as bpftool does.
test_json_anywhere() {
	local before after
	topo
	before=$(mpctl -j link show)
	after=$(mpctl link show -j)
	assert_eq "-j after the command" "$after" "$before"
	assert_eq "--json after the command" "$(mpctl link show --json)" "$before"
	assert_eq "JSON" "$before" '{"devices":[]}'
	# Not an operand: a device named -j is still refused as an option.
	expect 2 "mplanectl: link show: unknown option '-x'
Try 'mplanectl link show --help'." mpctl link show -jx
}

ktap_run test_show_empty test_show_not_mplane test_set_kernel_errors \
	test_add_extack test_usage_errors test_plane_refused test_del_refused \
	test_monitor test_help test_json_anywhere

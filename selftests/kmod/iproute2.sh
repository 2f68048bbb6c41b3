#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# iproute2.sh: ip(8) configures and shows mplane devices and their planes
# through link_mplane.so (tools/iproute2), loaded from IP_LIB_DIR.  The
# settings ip sends must be the ones mplanectl reads back, under the same
# JSON keys, and ip's text must give the same device when fed back to ip.
#
# shellcheck disable=SC2154
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/mplane.sh"

export IP_LIB_DIR=$MPLANE_BUILD/ip

need_plugin() {
	[ -f "$IP_LIB_DIR/link_mplane.so" ] ||
		skip "$IP_LIB_DIR/link_mplane.so is not built (make tools)"
	mplane_load || fail "cannot load $MPLANE_KO"
	setup_ns_nolo ipns
}

# dev_json NS DEV : DEV's IFLA_INFO_DATA as ip -j shows it.
dev_json() {
	ip -n "$1" -d -j link show dev "$2" | jq -c '.[0].linkinfo.info_data'
}

SETTINGS="policy spray flowlet-gap 50 probe-interval 2000 probe-misses 4
	  holddown 70 cong-threshold 9 cong-halflife 3000 gso segment
	  sample-interval off peers 10.0.0.2,fd00::2 cnp-interval 60
	  rate-min 2000"

test_add_and_show() {
	local data want got

	need_plugin
	# shellcheck disable=SC2086
	ip -n "$ipns" link add mp0 type mplane $SETTINGS
	data=$(dev_json "$ipns" mp0)
	want='spray|50|2000|4|70|9|3000|segment|0|10.0.0.2,fd00::2|60|2000|0'
	got=$(jq -r '[.policy, .flowlet_gap_us, .probe_interval_us,
		.probe_misses, .holddown_ms, .cong_threshold,
		.cong_halflife_us, .gso_mode, .sample_interval_us,
		(.peers | join(",")), .cc.cnp_interval_us, .cc.rate_min_kbps,
		.plane_count] | map(tostring) | join("|")' <<<"$data")
	assert_eq "ip -j link show" "$got" "$want"
}

# One schema: every value ip shows is mplanectl's, under the same key.
test_same_keys_as_mplanectl() {
	local ipj mpj diff

	need_plugin
	# shellcheck disable=SC2086
	ip -n "$ipns" link add mp0 type mplane $SETTINGS
	ipj=$(dev_json "$ipns" mp0)
	mpj=$("$MPLANECTL" -n "$ipns" -j link show mp0 | jq -c '.devices[0]')
	diff=$(jq -rn --argjson ip "$ipj" --argjson mp "$mpj" '
		[$ip | paths(scalars) as $p | select($mp | getpath($p) != ($ip | getpath($p)))
		 | "\($p | map(tostring) | join(".")): ip \($ip | getpath($p)), mplanectl \($mp | getpath($p))"]
		| join("; ")')
	[ -z "$diff" ] || fail "ip and mplanectl differ: $diff"
	# Not vacuous: the device's settings and the cc nest are compared.
	assert_ge "keys compared" "$(jq '[paths(scalars)] | length' <<<"$ipj")" 20
}

# ip's text gives the settings as the words that set them: fed back to
# ip, they make the same device.
test_text_round_trip() {
	local text words keywords w i a b

	need_plugin
	# shellcheck disable=SC2086
	ip -n "$ipns" link add mp0 type mplane $SETTINGS
	text=$(ip -n "$ipns" -d -o link show dev mp0)
	[[ $text =~ \ mplane\ (.*)\ addrgenmode ]] || fail "no mplane details in: $text"
	keywords=" $(ip link add type mplane help 2>&1 |
		awk '/^  [a-z]/ { printf "%s ", $1 }')"
	assert_ge "keywords in help" "$(wc -w <<<"$keywords")" 20
	read -ra a <<<"${BASH_REMATCH[1]}"
	words=()
	for ((i = 0; i + 1 < ${#a[@]}; i += 2)); do
		w=${a[i]}
		[[ $keywords == *" $w "* ]] && words+=("$w" "${a[i + 1]}")
	done
	assert_ge "settings in the text" "${#words[@]}" 40
	ip -n "$ipns" link add mp1 type mplane "${words[@]}"
	a=$(dev_json "$ipns" mp0)
	b=$(dev_json "$ipns" mp1)
	assert_eq "device made from ip's text" "$b" "$a"
}

test_set_changes_only_what_is_given() {
	local got

	need_plugin
	ip -n "$ipns" link add mp0 type mplane policy spray
	ip -n "$ipns" link set mp0 type mplane probe-misses 5 cc dcqcn
	got=$(dev_json "$ipns" mp0 | jq -r '"\(.policy) \(.probe_misses) \(.cc.algo)"')
	assert_eq "after set" "$got" "spray 5 dcqcn"
	ip -n "$ipns" link set mp0 type mplane sample-interval 500
	got=$(dev_json "$ipns" mp0 | jq -r '"\(.sample_interval_us) \(.probe_misses)"')
	assert_eq "after a second set" "$got" "500 5"
}

# The plugin says what is wrong with a line; the kernel's extack says
# what is out of range.  Neither changes the device.
test_refusals() {
	local before

	need_plugin
	ip -n "$ipns" link add mp0 type mplane
	before=$(dev_json "$ipns" mp0)
	expect_fail_msg "unknown keyword" "^Error: unknown setting 'bogus'" \
		ip -n "$ipns" link set mp0 type mplane bogus 1
	expect_fail_msg "bad enum" "^Error: bad policy 'fast': want flowlet\|hash\|rr\|spray" \
		ip -n "$ipns" link set mp0 type mplane policy fast
	expect_fail_msg "no value" "^Error: 'holddown' needs a value" \
		ip -n "$ipns" link set mp0 type mplane holddown
	expect_fail_msg "twice" "^Error: 'holddown' given twice" \
		ip -n "$ipns" link set mp0 type mplane holddown 1 holddown 2
	expect_fail_msg "not a number" "^Error: bad sample-interval 'soon': want a decimal integer or off" \
		ip -n "$ipns" link set mp0 type mplane sample-interval soon
	expect_fail_msg "kernel range" "IFLA_MPLANE_PROBE_INTERVAL_US.*50\.\.1000000" \
		ip -n "$ipns" link set mp0 type mplane probe-interval 10
	expect_fail_msg "help" "flowlet-gap US" \
		ip -n "$ipns" link set mp0 type mplane help
	assert_eq "device after refusals" "$(dev_json "$ipns" mp0)" "$before"
}

test_planes() {
	local got st

	need_plugin
	ip -n "$ipns" -batch - <<-EOF
		link add mp0 type mplane
		link add r0 type veth peer name r0p
		link add r1 type veth peer name r1p
		link set r0 master mp0
		link set r1 master mp0
	EOF
	got=$(ip -n "$ipns" -d -j link show dev r1 | jq -r '.[0].linkinfo |
		"\(.info_slave_kind) \(.info_slave_data.index) \(.info_slave_data.admin) \(.info_slave_data.stats | has("tx_packets"))"')
	assert_eq "r1's plane" "$got" "mplane 1 up true"
	ip -n "$ipns" link set r1 type mplane_slave weight 4 admin drain
	st=$("$MPLANECTL" -n "$ipns" -j link show mp0 |
		jq -r '.devices[0].planes[] | select(.rail == "r1") | "\(.weight) \(.admin)"')
	assert_eq "r1 as mplanectl reads it" "$st" "4 drain"
	got=$(ip -n "$ipns" -d -o link show dev r1)
	[[ $got == *" mplane_slave plane 1 state "*" admin drain weight 4 "* ]] ||
		fail "r1's text: $got"
	expect_fail_msg "plane keyword" "^Error: unknown setting 'policy'" \
		ip -n "$ipns" link set r1 type mplane_slave policy rr
}

QUICK_TESTS="test_add_and_show test_planes"

ktap_run \
	test_add_and_show \
	test_same_keys_as_mplanectl \
	test_text_round_trip \
	test_set_changes_only_what_is_given \
	test_refusals \
	test_planes

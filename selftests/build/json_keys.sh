#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# json_keys.sh: one schema convention for every command's JSON, checked
# on the keys the sources add (json-c calls, mp_print_*() and iproute2's
# print_*(PRINT_ANY|PRINT_JSON), and the netlink field tables): a time
# has its unit as the key's suffix (_s, _ms, _us, _ns), and "attached" is
# a boolean wherever it is.
source "$(dirname "$0")/../lib/lib.sh"

# The keys of tools/, one "file:key" a line: mp_print's are the first
# string of a call (its destination may be an expression, such as "to"),
# and its containers' names; traffic recv's rx_print_*() print a gap and
# where it was.
json_keys() {
	grep -rnoE --include='*.c' \
		'(json_object_object_add\([^,]+, *|PRINT_(ANY|JSON), *(IP_COLOR_[A-Z]+, *)?|(mp|tv|rx)_print_[a-z0-9_]+\(([^,"]*, *)?|mp_print_open_(object|array)\(|^	\{ [A-Z_0-9]+, *)"[a-z][a-z0-9_]*"' \
		"$MPLANE_ROOT/tools" | sed -E 's|^'"$MPLANE_ROOT"'/||; s|^([^:]+):[0-9]+:.*"([^"]+)"$|\1:\2|'
}

test_times_have_unit_suffixes() {
	local bad n
	n=$(json_keys | wc -l)
	[ "$n" -gt 200 ] || fail "found only $n keys: the pattern no longer matches the sources"
	# Counts and lists that only sound like times, and where a gap was
	# (traffic recv's max_gap_after_seq: a sequence number, a flow).
	bad=$(json_keys | grep -E ':[a-z0-9_]*(time|interval|gap|period|timeout|age|elapsed|duration|latency|delay|holddown|halflife|uptime|stall|seconds)[a-z0-9_]*$' |
		grep -vE '_(s|ms|us|ns)$' | grep -vE ':(gaps|timeouts|timelines|timestamps|stalls)$' |
		grep -vE '_after_(seq|flow)$' | sort -u)
	log "$n keys"
	assert_eq "time keys without a unit suffix" "$(xargs <<<"$bad")" ""
}

test_attached_is_boolean() {
	local bad
	bad=$(grep -rn -A1 --include='*.c' '"attached"' "$MPLANE_ROOT/tools" |
		grep -E 'json_object_new_(string|int|uint|double)' || true)
	assert_eq "\"attached\" that is not a boolean" "$bad" ""
}

ktap_run test_times_have_unit_suffixes test_attached_is_boolean

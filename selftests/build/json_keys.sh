#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# json_keys.sh: one schema convention for every command's JSON.  On the
# keys the sources add (json-c calls, mp_print_*() and iproute2's
# print_*(PRINT_ANY|PRINT_JSON), the netlink field tables, the keys
# of telemetry's histograms, struct tv_unit, and the PyTorch job's
# dictionaries in tools/torch), and on the JSON that the
# telemetry views and dump print of a capture made here, with an event
# of every type whose values hold an enum:
#  - a time has its unit as the key's suffix (_s, _ms, _us, _ns), and so
#    has a histogram's percentile, max and mean (p99_us, max_bytes);
#  - a key has one JSON type wherever it is printed ("attached" is a
#    boolean, "tc_hook" a hook's name), null aside.
source "$(dirname "$0")/../lib/lib.sh"

# The keys of tools/, one "file:key" a line: mp_print's are the first
# string of a call (its destination may be an expression, such as "to"),
# and its containers' names; traffic recv's rx_print_*() print a gap and
# where it was.
json_keys() {
	grep -rnoE --include='*.c' \
		'(json_object_object_add\([^,]+, *|PRINT_(ANY|JSON), *(IP_COLOR_[A-Z]+, *)?|(mp|tv|rx)_print_[a-z0-9_]+\(([^,"]*, *)?|mp_print_open_(object|array)\(|^	\{ [A-Z_0-9]+, *)"[a-z][a-z0-9_]*"' \
		"$MPLANE_ROOT/tools" | sed -E 's|^'"$MPLANE_ROOT"'/||; s|^([^:]+):[0-9]+:.*"([^"]+)"$|\1:\2|'
	tv_unit_keys
	py_keys names
}

# The keys of the Python programs' JSON (the PyTorch job's result): the
# dictionaries' literal keys and the keys they are given, in lower case
# (not the units table's "K", "M", "G", nor environment variables).
# @1 "names" gives "file:key" as json_keys(); "types" gives "key type
# file:line" as json_key_types(), where the value's type shows in the
# source: a literal, a dictionary or list, a comparison, or a number
# that round(), float(), int() or len() made.
py_keys() {
	find "$MPLANE_ROOT/tools" -name '*.py' | sort |
		/usr/bin/python3 -c '
import ast, sys
mode, root = sys.argv[1], sys.argv[2]
NUMBER = {"round", "float", "int", "len"}
def type_of(v):
    if isinstance(v, ast.Constant):
        return {bool: "boolean", str: "string", int: "number",
                float: "number"}.get(type(v.value))
    if isinstance(v, (ast.Dict, ast.DictComp)):
        return "object"
    if isinstance(v, (ast.List, ast.ListComp)):
        return "array"
    if isinstance(v, (ast.Compare, ast.BoolOp)):
        return "boolean"
    if isinstance(v, ast.Call) and getattr(v.func, "id", "") in NUMBER:
        return "number"
    return None
for path in sys.stdin.read().split():
    rel = path[len(root) + 1:]
    for n in ast.walk(ast.parse(open(path).read(), path)):
        pairs = []
        if isinstance(n, ast.Dict):
            pairs = zip(n.keys, n.values)
        elif isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Subscript):
            pairs = [(n.targets[0].slice, n.value)]
        for k, v in pairs:
            if not (isinstance(k, ast.Constant) and isinstance(k.value, str)
                    and k.value[:1].islower()):
                continue
            if mode == "names":
                print(f"{rel}:{k.value}")
            elif type_of(v):
                print(f"{k.value} {type_of(v)} {rel}:{k.lineno}")
' "$1" "$MPLANE_ROOT"
}

# A histogram's keys by its unit: the initializers of struct tv_unit.
tv_unit_keys() {
	grep -rl --include='*.c' '^const struct tv_unit ' "$MPLANE_ROOT/tools" |
	while read -r f; do
		sed -n '/^const struct tv_unit /,/^};/p' "$f" |
			grep -oE '"[a-z][a-z0-9_]*"' | tr -d '"' |
			sed "s|^|${f#"$MPLANE_ROOT"/}:|"
	done
}

# The rules on names, on "file:key" lines: those that break them.
# A time, or what only sounds like one: counts, lists, a histogram's
# object (its keys have the unit, as telemetry report's step_times and
# the PyTorch job's allreduce_times), and
# where a gap was (traffic recv's max_gap_after_seq: a sequence number, a
# flow).
untimed() {
	grep -E ':[a-z0-9_]*(time|interval|gap|period|timeout|age|elapsed|duration|latency|delay|holddown|halflife|uptime|stall|seconds)[a-z0-9_]*$' |
		grep -vE '_(s|ms|us|ns)$' | grep -vE ':(gaps?|timeouts|timelines|timestamps|stalls|step_times|allreduce_times)$' |
		grep -vE '_after_(seq|flow)$' || true
}

# A statistic of a distribution that ends the key, where its unit
# belongs ("p99", "gap_max": "p99_us", "max_bytes"); max_mean and max_over_mean are
# ratios.
unitless_stats() {
	grep -E ':([a-z0-9_]+_)?(p[0-9]+|min|max|mean|median|avg)$' |
		grep -vE ':max_(over_)?mean$' || true
}

test_times_have_unit_suffixes() {
	local bad n
	n=$(json_keys | wc -l)
	[ "$n" -gt 200 ] || fail "found only $n keys: the pattern no longer matches the sources"
	tv_unit_keys | grep -q ':p99_[a-z]*$' ||
		fail "no histogram's keys found: struct tv_unit is no longer where json_keys() reads it"
	py_keys names | grep -q 'allreduce_train.py:step_times$' ||
		fail "no key of the PyTorch job's result found: py_keys() no longer reads it"
	bad=$(json_keys | untimed | sort -u)
	log "$n keys"
	assert_eq "time keys without a unit suffix" "$(xargs <<<"$bad")" ""
	bad=$(json_keys | unitless_stats | sort -u)
	assert_eq "percentiles, max or mean without a unit suffix" "$(xargs <<<"$bad")" ""
}

# A capture with an event of every type whose values hold an enum (a
# plane's samples with a queue and step marks too: every histogram has
# values), and the JSON of the views of it: "CMD<TAB>JSON" a line, once.
VIEWS_CMDS=("telemetry report" "telemetry hist" "telemetry top --from" "telemetry dump")
views_json() {
	local cap=$TMPD/keys.mpcp m=$MPLANE_BUILD/mplanectl cmd
	[ -s "$TMPD/views" ] && return
	[ -x "$m" ] || skip "no $m: make tools"
	/usr/bin/python3 - "$cap" "$MPLANE_ROOT/selftests/lib" <<'PYEOF' || fail "no capture made"
import struct, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[2])
from mpcapture import open_capture, event
T0, US, NO_PLANE = 1_000_000_000, 1000, 0xffff
out, frame = open_capture(sys.argv[1], T0)
SOURCE, IFNAME = 2, 3
(CNP, PLANE_STATE, FAILOVER, STEP_MARK, RATE_UPDATE, COLLECTIVE,
 PLANE_SAMPLE, COUNTER, PLANE_SELECT, FAULT) = 3, 7, 8, 9, 10, 11, 12, 14, 15, 16
frame(SOURCE, 0, b'dev/4026531840/mp0\0')
frame(IFNAME, 0, struct.pack('<I16s', 5, b'mp0'))
for i in range(4):
    t = T0 + i * 100 * US
    event(frame, 0, PLANE_SAMPLE, 0, 5, 0, t, (i * 1000, i * 1000, 0, 0))
    event(frame, 0, STEP_MARK, 0, 0, NO_PLANE, t, (i, 42, i % 2, 0))
t = T0 + 50 * US
event(frame, 0, PLANE_STATE, 0, 5, 1, t, (1, 0, 1, 7))
event(frame, 0, FAILOVER, 0, 5, 1, t + 1, (1, 1, 0, 0))
event(frame, 0, CNP, 0, 5, 0, t + 2, (0x11, 1, 0x0a000001, 0))
event(frame, 0, RATE_UPDATE, 0, 5, 0, t + 3, (0x11, 1000, 2000, 0))
event(frame, 0, COLLECTIVE, 0, 42, NO_PLANE, t + 4, (0, 0, 1, 4096))
event(frame, 0, COUNTER, 0, 5, NO_PLANE, t + 5, (7, 0, 0, 0))
event(frame, 0, PLANE_SELECT, 0, 5, 0, t + 6, (3, 0xabc, 0, 1))
event(frame, 0, FAULT, 0, 5, 0, t + 7, (0, 0, 0, 0))
out.close()
PYEOF
	# Whole or not at all: a later test must not take half of it.
	for cmd in "${VIEWS_CMDS[@]}"; do
		# shellcheck disable=SC2086 # the command's words
		"$m" -j $cmd "$cap" >"$TMPD/view.json" || fail "$cmd -j failed"
		jq -c . "$TMPD/view.json" | sed "s|^|$cmd\t|" >>"$TMPD/views.part" ||
			fail "$cmd -j: no JSON"
	done
	mv "$TMPD/views.part" "$TMPD/views"
}

# The JSON of @1 (one of VIEWS_CMDS) of the capture.
view_json() { views_json; grep -P "^$1\t" "$TMPD/views" | cut -f2-; }

# The rules on names hold for keys made at run time too: "CMD:key" as
# json_keys() gives them.
test_views_json_keys() {
	local cmd bad keys
	views_json
	for cmd in "telemetry report" "telemetry hist" "telemetry top --from"; do
		keys=$(view_json "$cmd" | jq -r '[paths | .[] | strings] | unique[]') ||
			fail "$cmd -j: no JSON"
		keys=$(sed "s|^|$cmd:|" <<<"$keys" | sort -u)
		grep -qE ':p99(_[a-z]+)?$' <<<"$keys" || fail "$cmd -j: no histogram in $(xargs <<<"$keys")"
		bad=$( (untimed <<<"$keys"; unitless_stats <<<"$keys") | sort -u)
		assert_eq "$cmd -j: keys without a unit suffix" "$(xargs <<<"$bad")" ""
	done
}

# Every key's JSON type in the views' JSON, "key type CMD" as
# json_key_types() gives them: what keys only the run time makes (an
# event's values, by their names) and what types only it shows.
views_key_types() {
	local cmd
	for cmd in "${VIEWS_CMDS[@]}"; do
		view_json "$cmd" | jq -r --arg c "${cmd// /_}" '
			paths as $p | select($p[-1] | type == "string") |
			getpath($p) | type | select(. != "null") |
			"\($p[-1]) \(.) \($c)"'
	done | sort -u
}

# Every key's JSON types, "key type file:line" a line, from the calls
# whose type is known: mp_print_*(), iproute2's print_*() and
# json_object_object_add() of a json_object_new_*().  Null goes with any
# type; text-only calls have no key.
json_key_types() {
	# shellcheck disable=SC2016 # perl's variables
	find "$MPLANE_ROOT/tools" -name '*.c' | sort | xargs perl -0777 -ne '
	while (/\b(mp_print_(?:str|u64|s64|float|double|fixed|bool|open_object|open_array)|json_object_object_add|add_(?:str|int|pct)|print_(?:color_)?(?:string|bool|uint|u64|int|float|hu|lluint))\s*\(([^;"]*?,\s*)?"([a-z][a-z0-9_]*)"(\s*,\s*json_object_new_([a-z0-9]+))?/g) {
		my ($at, $fn, $args, $key, $new) = ($-[0], $1, $2 // "", $3, $5 // "");
		next if $args =~ /MP_PRINT_TEXT|PRINT_FP/;
		my $t = $fn eq "json_object_object_add" ? $new : $fn;
		$t =~ s/^(mp_print_|print_(color_)?|add_)//;
		$t = $t =~ /^(str|string)$/ ? "string" :
		     $t =~ /^(bool|boolean)$/ ? "boolean" :
		     $t =~ /^(open_)?object$/ ? "object" :
		     $t =~ /^(open_)?array$/ ? "array" :
		     $t =~ /^(u64|s64|float|double|fixed|uint|int|hu|lluint|int64|uint64|pct)$/ ? "number" : "";
		next unless $t;
		my $line = 1 + (() = substr($_, 0, $at) =~ /\n/g);
		print "$key $t $ARGV:$line\n";
	}' | sed "s| $MPLANE_ROOT/| |"
	py_keys types
}

# "key:type,type" for every key printed with more than one type.
two_types() {
	awk '!seen[$1 " " $2]++ { t[$1] = t[$1] ? t[$1] "," $2 : $2; n[$1]++ }
	     END { for (k in t) if (n[k] > 1) print k }' |
	while read -r k; do
		printf '%s:%s\n' "$k" "$(grep "^$k " "$TYPES" | cut -d" " -f2 | sort -u | paste -sd,)"
	done | sort
}

test_one_type_per_key() {
	local bad n TYPES=$TMPD/types
	json_key_types >"$TYPES"
	if [ -x "$MPLANE_BUILD/mplanectl" ]; then
		views_json
		views_key_types >"$TMPD/views-types"
		for k in state_id state reason cause step_index kind_id values; do
			grep -q "^$k .* telemetry_dump$" "$TMPD/views-types" ||
				grep -q "^$k .* telemetry_report$" "$TMPD/views-types" ||
				fail "no \"$k\" in the views' JSON: the capture lacks an event"
		done
		cat "$TMPD/views-types" >>"$TYPES"
	else
		log "no mplanectl built: the sources' keys only"
	fi
	n=$(wc -l <"$TYPES")
	[ "$n" -gt 300 ] || fail "found only $n typed keys: the pattern no longer matches the sources"
	grep -q '^tc_hook string ' "$TYPES" || fail "tc_hook not found: the pattern misses mp_print_str()"
	grep -q '^stats object ' "$TYPES" || fail "no object found: the pattern misses mp_print_open_object()"
	grep -q '^ok boolean tools/torch/' "$TYPES" || fail "no typed key of the PyTorch job's result found"
	bad=$(two_types <"$TYPES")
	log "$n typed keys"
	for k in $bad; do
		log "$k: $(grep "^${k%%:*} " "$TYPES" | cut -d" " -f2,3 | xargs)"
	done
	assert_eq "keys printed with two types" "$(xargs <<<"$bad")" ""
}

test_attached_is_boolean() {
	local bad
	bad=$(grep -rn -A1 --include='*.c' '"attached"' "$MPLANE_ROOT/tools" |
		grep -E 'json_object_new_(string|int|uint|double)' || true)
	assert_eq "\"attached\" that is not a boolean" "$bad" ""
}

TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-json-keys.XXXXXX")
trap 'rm -rf "$TMPD"' EXIT

ktap_run test_times_have_unit_suffixes test_views_json_keys \
	test_one_type_per_key test_attached_is_boolean

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# man_options.sh: every command whose options are a table (tools/lib/
# mp_opt.h) has that table's option list, as --help-man prints it, in
# Documentation/mplanectl.8, so the man page never disagrees with
# --help.  The commands are found from the groups' --help.
source "$(dirname "$0")/../lib/lib.sh"

MPLANECTL=${MPLANECTL:-$MPLANE_BUILD/mplanectl}
PAGE=$MPLANE_ROOT/Documentation/mplanectl.8

# The names in a "Commands:" list of a --help.
commands_of() {
	"$MPLANECTL" "$@" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1; next } on && !/^  / { on = 0 }'
}

test_man_has_every_table() {
	local g c list page tables=0 all=0 missing=()

	[ -x "$MPLANECTL" ] || skip "no $MPLANECTL (make tools)"
	page=$(<"$PAGE")
	# The global options first: mplanectl's own table.
	list=$("$MPLANECTL" --help-man)
	[[ -n $list && $page == *"$list"* ]] || missing+=("(global options)")
	for g in $(commands_of); do
		for c in $(commands_of "$g") ""; do
			# shellcheck disable=SC2086 # no command: the group itself
			list=$("$MPLANECTL" "$g" $c --help-man 2>/dev/null) || continue
			all=$((all + 1))
			[ -n "$list" ] || continue
			tables=$((tables + 1))
			[[ $page == *"$list"* ]] || missing+=("$g${c:+ $c}")
		done
	done
	log "$tables commands with options in a table, $all in all take --help-man"
	[ "$tables" -ge 5 ] || fail "found only $tables option tables"
	assert_eq "commands whose options mplanectl.8 lacks as --help-man prints them" \
		"${missing[*]}" ""
}

ktap_run test_man_has_every_table

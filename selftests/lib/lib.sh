#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers for mplane selftests: uniquely named network namespaces
# that are always cleaned up, veth links with optional rate limits, polling
# waits instead of fixed sleeps, and KTAP output.
#
# A test script sources this file, declares its tests and calls ktap_run:
#
#	source "$(dirname "$0")/../lib/lib.sh"
#	test_foo() { setup_ns a b; veth_pair "$a" va "$b" vb; ...; }
#	ktap_run test_foo test_bar
#
# Every test runs in its own subshell with `set -e`; a test passes when it
# returns 0, is skipped when it returns $KSFT_SKIP (use skip "why"), and
# fails otherwise.  Namespaces created by a test are removed when it ends,
# and every namespace of this run is removed on exit or on a signal.

MPLANE_ROOT=${MPLANE_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
MPLANE_BUILD=${MPLANE_BUILD:-$MPLANE_ROOT/.build}
KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

# Each exec costs a tenth of a second in a guest under TCG and 0.3-1 s on
# the debug kernel, so the helpers keep to bash: its own clock, and, from
# Debian's bash-builtins where it is installed, loadable sleep, mktemp and
# rm (busywait alone would otherwise exec twice per poll).
for _builtin in sleep mktemp rm; do
	enable -f "/usr/lib/bash/$_builtin" "$_builtin" 2>/dev/null || true
done
unset _builtin

# One prefix per run, so that two runs on one machine never collide and a
# crashed run's leftovers can be found (and removed) by prefix.
MPLANE_NS_PREFIX=${MPLANE_NS_PREFIX:-mpt$$-}
_ns_registry=$(mktemp "${TMPDIR:-/tmp}/mplane-ns.XXXXXX")
# Where run_rc keeps a command's output.
_rc_out=$(mktemp "${TMPDIR:-/tmp}/mplane-rc.XXXXXX")

log() { echo "# $*"; }
fail() { echo "# FAIL: $*" >&2; exit "$KSFT_FAIL"; }
skip() { echo "# SKIP: $*" >&2; exit "$KSFT_SKIP"; }

# setup_ns_nolo VAR... : create one namespace per name, in one ip batch,
# and store its unique name in the variable of that name.
setup_ns_nolo() {
	local var ns names=()
	for var in "$@"; do
		printf -v ns '%s%s-%06x' "$MPLANE_NS_PREFIX" "$var" $((SRANDOM & 0xffffff))
		names+=("$ns")
		printf -v "$var" '%s' "$ns"
	done
	printf '%s\n' "${names[@]}" >>"$_ns_registry"
	printf 'netns add %s\n' "${names[@]}" | ip -batch - || return 1
}

# setup_ns VAR... : as setup_ns_nolo, with lo brought up in each.
setup_ns() {
	local var
	setup_ns_nolo "$@" || return 1
	for var in "$@"; do
		ip -n "${!var}" link set lo up || return 1
	done
}

# _ns_del NS... : delete namespaces, those that are gone already included.
_ns_del() {
	[ $# -gt 0 ] || return 0
	printf 'netns del %s\n' "$@" | ip -force -batch - >/dev/null 2>&1 || true
}

cleanup_ns() {
	local ns keep=() gone=" $* "
	_ns_del "$@"
	[ -f "$_ns_registry" ] || return 0
	while read -r ns; do
		[[ -z $ns || $gone == *" $ns "* ]] || keep+=("$ns")
	done <"$_ns_registry"
	printf '%s\n' "${keep[@]}" >"$_ns_registry"
}

cleanup_all_ns() {
	local ns all=()
	[ -f "$_ns_registry" ] || return 0
	while read -r ns; do
		[ -n "$ns" ] && all+=("$ns")
	done <"$_ns_registry"
	_ns_del "${all[@]}"
	: >"$_ns_registry"
}

# Remove namespaces left by any earlier run (all share the mpt prefix).
cleanup_stale_ns() {
	local ns
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^${1:-mpt}"); do
		ip netns del "$ns" 2>/dev/null || true
	done
}

_lib_exit() {
	cleanup_all_ns
	rm -f "$_ns_registry" "$_rc_out" "$_rc_out.err"
}
trap _lib_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# veth_pair NS1 IF1 NS2 IF2 : a veth link between two namespaces, both ends
# up, IPv6 off by default so that tests count only what they send.
veth_pair() {
	local ns1=$1 if1=$2 ns2=$3 if2=$4
	ip link add "$if1" netns "$ns1" type veth peer name "$if2" netns "$ns2" || return 1
	ip -n "$ns1" link set "$if1" up
	ip -n "$ns2" link set "$if2" up
}

# no_ipv6 NS : turn off IPv6 in a namespace (no DAD, MLD or RS noise).
no_ipv6() {
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
}

# veth_hosts [static] [ipv6] : namespaces a and b (their names in $a and
# $b) joined by va--vb, 10.99.0.1 and .2/24, IPv6 off.  With "static",
# permanent neighbour entries keep ARP off the link, so counts are exact;
# with "ipv6", IPv6 stays on and fd00:99::1 and ::2/64 are added too.
# The MAC addresses are fixed, so the entries need no lookup.
VA_MAC=02:99:00:00:00:01
VB_MAC=02:99:00:00:00:02
veth_hosts() {
	local opts=" $* "

	setup_ns a b
	if [[ $opts != *" ipv6 "* ]]; then
		no_ipv6 "$a"
		no_ipv6 "$b"
	fi
	ip link add va netns "$a" address $VA_MAC type veth \
		peer name vb netns "$b" address $VB_MAC || return 1
	_veth_host "$a" va 1 2 $VB_MAC "$opts"
	_veth_host "$b" vb 2 1 $VA_MAC "$opts"
}

# _veth_host NS DEV N PEER_N PEER_MAC OPTS : one side of veth_hosts, in one
# ip process.
_veth_host() {
	local ns=$1 dev=$2 n=$3 peer=$4 peer_mac=$5 opts=$6
	{
		echo "link set $dev up"
		echo "addr add 10.99.0.$n/24 dev $dev"
		[[ $opts == *" ipv6 "* ]] && echo "addr add fd00:99::$n/64 dev $dev nodad"
		[[ $opts == *" static "* ]] || return 0
		echo "neigh replace 10.99.0.$peer lladdr $peer_mac dev $dev nud permanent"
		[[ $opts == *" ipv6 "* ]] &&
			echo "neigh replace fd00:99::$peer lladdr $peer_mac dev $dev nud permanent"
		return 0
	} | ip -n "$ns" -batch -
}

# link_rate NS IF RATE [BURST] : limit egress of IF to RATE with tbf.
link_rate() {
	local ns=$1 dev=$2 rate=$3 burst=${4:-32kbit}
	tc -n "$ns" qdisc replace dev "$dev" root tbf rate "$rate" burst "$burst" latency 50ms
}

# link_rate_htb NS IF RATE : limit egress with htb (when tbf is missing).
link_rate_htb() {
	local ns=$1 dev=$2 rate=$3
	tc -n "$ns" qdisc replace dev "$dev" root handle 1: htb default 1 &&
	tc -n "$ns" class add dev "$dev" parent 1: classid 1:1 htb rate "$rate"
}

# signal_pids_in FILE SIGNAL : SIGNAL to every pid FILE lists (one a
# line), if FILE is there; pids gone already are no error.
signal_pids_in() {
	local p
	[ -f "$1" ] || return 0
	while read -r p; do
		kill -"$2" "$p" 2>/dev/null || true
	done <"$1"
}

# busywait TIMEOUT_MS CMD... : run CMD until it succeeds or time runs out.
busywait() {
	local deadline=$((${EPOCHREALTIME/./} / 1000 + $1))
	shift
	until "$@"; do
		[ $((${EPOCHREALTIME/./} / 1000)) -ge "$deadline" ] && return 1
		sleep 0.02
	done
}

# slowwait TIMEOUT_S CMD... : as busywait, polling every 100 ms.
slowwait() {
	local deadline=$((EPOCHSECONDS + $1))
	shift
	until "$@"; do
		[ "$EPOCHSECONDS" -ge "$deadline" ] && return 1
		sleep 0.1
	done
}

# quick: true on slow kernels (the debug kernel), where tests keep every
# code path but use fewer repetitions and leave out throughput goals.
quick() { [ "${MPLANE_TEST_PROFILE:-full}" = quick ]; }

# has_tcx : the kernel has tcx (Linux 6.6 and later), asked by behaviour.
has_tcx() { "$MPLANE_BUILD/mptcx" has; }

# tc_progs NS DEV in|eg : the names of the BPF programs on a tc hook of
# DEV in namespace NS, one a line, tcx ones as "tcx NAME" in the order
# they run, then cls_bpf filters as "cls_bpf NAME".
tc_progs() {
	local hook=ingress
	[ "$3" = eg ] && hook=egress
	if has_tcx; then
		ip netns exec "$1" "$MPLANE_BUILD/mptcx" show "$2" "$3" |
			awk '{ print "tcx " $2 }'
	fi
	tc -n "$1" filter show dev "$2" "$hook" 2>/dev/null |
		sed -n 's/.* name \([^ ]*\) .*/cls_bpf \1/p'
}

# assert_eq WHAT GOT WANT / assert_ge WHAT GOT MIN : fail with a message.
assert_eq() { [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"; }
assert_ge() { [ "$2" -ge "$3" ] || fail "$1: got $2, want >= $3"; }
assert_le() { [ "$2" -le "$3" ] || fail "$1: got $2, want <= $3"; }

# Reading JSON: jq takes half a second to start in a VM under TCG, and
# tests read many counters, so they read many values per jq run or none.
#
# json_num JSON KEY: the number after the first "KEY": in JSON.  For flat
# objects, such as the one line of 'mplanectl -j traffic send'.
json_num() {
	[[ $1 =~ \"$2\":(-?[0-9]+) ]] || { echo "# no number \"$2\" in: $1" >&2; return 1; }
	echo "${BASH_REMATCH[1]}"
}

# json_flat ARRAY JSON [FILTER]: ARRAY (an associative array) gets every
# scalar of JSON, or of what FILTER makes of it, keyed by its path joined
# with dots: ingress.packets, qps.0.qpn.
json_flat() {
	local -n _flat=$1
	local k v
	_flat=()
	while IFS='=' read -r k v; do
		[ -z "$k" ] || _flat[$k]=$v
	done <<<"$(jq -r "${3:-.}"' | paths(type | . != "object" and . != "array") as $p |
		"\($p | map(tostring) | join("."))=\(getpath($p))"' <<<"$2")"
}

# jq_read JSON FILTER VAR...: one jq run; the values FILTER prints, one
# per line (say '.a, .b'), go into VAR... in order.
jq_read() {
	local json=$1 filter=$2
	shift 2
	IFS=$'\n' read -r -d '' "$@" <<<"$(jq -r "$filter" <<<"$json")" || true
}

# udp_rcvbuf_errors NS: UDP datagrams dropped by full receive buffers in
# NS (RcvbufErrors in /proc/net/snmp).  Loss that a test counts must be
# told apart from these: they are the reader's, not the path's (a guest
# stalled under TCG lets a socket overflow).
udp_rcvbuf_errors() {
	ip netns exec "$1" awk '$1 == "Udp:" {
		if (!n) { for (i = 2; i <= NF; i++) if ($i == "RcvbufErrors") c = i; n = 1; next }
		print $c; exit }' /proc/net/snmp
}

# run_rc VAR CMD... : CMD's exit status into VAR, its stdout in $OUT and
# its stderr in $ERR, despite set -e.
run_rc() {
	local var=$1
	shift
	"$@" >"$_rc_out" 2>"$_rc_out.err" && printf -v "$var" 0 || printf -v "$var" %d $?
	OUT=$(<"$_rc_out")
	ERR=$(<"$_rc_out.err")
}

# expect_fail_msg WHAT REGEX CMD... : CMD must fail and its stderr must match
# REGEX (extack messages are printed by iproute2 on stderr).
expect_fail_msg() {
	local what=$1 re=$2 out
	shift 2
	if out=$("$@" 2>&1); then
		fail "$what: '$*' succeeded, want failure matching /$re/"
	fi
	echo "$out" | grep -Eq -- "$re" || fail "$what: error '$out' does not match /$re/"
}

# in_quick_profile TEST: whether TEST runs in this kernel's share.  With
# MPLANE_TEST_SHARE=share (the default of the quick profile: the debug
# kernel under TCG runs 5-10x slower than a release one, and make check
# has a budget), a script that sets QUICK_TESTS runs only those; without
# QUICK_TESTS, all of its tests run.  MPLANE_TEST_SHARE=all runs all.
test_share() {
	case ${MPLANE_TEST_SHARE:-} in
	all|share) echo "$MPLANE_TEST_SHARE" ;;
	*) if quick; then echo share; else echo all; fi ;;
	esac
}
in_quick_profile() {
	[ "$(test_share)" = all ] || [ -z "${QUICK_TESTS:-}" ] ||
		[[ $QUICK_TESTS =~ (^|[[:space:]])$1($|[[:space:]]) ]]
}

# ktap_run TEST... : run each test function in a subshell and print KTAP.
ktap_run() {
	local n=0 pass=0 failed=0 skipped=0 t rc start
	echo "TAP version 13"
	echo "1..$#"
	for t in "$@"; do
		n=$((n + 1))
		if ! in_quick_profile "$t"; then
			echo "ok $n $t # SKIP not in the quick profile"
			skipped=$((skipped + 1))
			continue
		fi
		start=${EPOCHREALTIME/./}
		(
			set -e
			trap 'cleanup_all_ns' EXIT
			"$t"
		)
		rc=$?
		# Where the suite's time goes: make check has a budget.
		echo "# $t took $(((${EPOCHREALTIME/./} - start) / 1000)) ms"
		case $rc in
		0)	echo "ok $n $t"; pass=$((pass + 1)) ;;
		"$KSFT_SKIP") echo "ok $n $t # SKIP"; skipped=$((skipped + 1)) ;;
		*)	echo "not ok $n $t"; failed=$((failed + 1)) ;;
		esac
	done
	echo "# totals: pass:$pass fail:$failed skip:$skipped"
	[ "$failed" -eq 0 ]
}

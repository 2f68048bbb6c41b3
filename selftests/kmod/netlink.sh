#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The netlink contract: every setting round-trips through mplanectl, and
# every out-of-range or wrong-type value is refused with an extack message
# that names the attribute (and, for ranges, the range), pointing at the
# offending attribute.  Raw messages come from one small python helper,
# since no tool sends wrong types on purpose, and from mpnl's cases,
# generated from the uapi's attributes (selftests/kmod/mpnl_cases.c).
# TESTS="test_a test_b" runs only those.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/mplane.sh"

# mpnl: raw rtnetlink requests (selftests/kmod/mpnl.c).
MPNL=$MPLANE_BUILD/mpnl

# Sends RTM_NEWLINK changes to a device and prints, per case,
# "name|errno|extack message|offset given".  Attribute numbers are those
# of uapi/linux/mplane.h.
RAW_PY=$(cat <<'PY'
import socket, struct, sys

def nla(t, data):
    n = 4 + len(data)
    return struct.pack("HH", n, t) + data + b"\0" * (-n % 4)

def nest(t, *parts):
    return nla(t | 0x8000, b"".join(parts))

def change(ifindex, slave, attr):
    kind = nla(4 if slave else 1, b"mplane\0")
    info = nest(18, kind, nest(5 if slave else 2, attr))
    body = struct.pack("BBHiII", 0, 0, 0, ifindex, 0, 0) + info
    sk = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
    sk.setsockopt(270, 11, 1)   # NETLINK_EXT_ACK
    sk.setsockopt(270, 10, 1)   # NETLINK_CAP_ACK
    sk.send(struct.pack("IHHII", 16 + len(body), 16, 5, 1, 0) + body)
    reply = sk.recv(65536)
    flags = struct.unpack_from("H", reply, 6)[0]
    err = -struct.unpack_from("i", reply, 16)[0]
    msg, offs, tlv = "", 0, reply[36:] if flags & 0x100 else b""
    while len(tlv) >= 4:
        n, t = struct.unpack_from("HH", tlv)
        if t == 1:
            msg = tlv[4:n].rstrip(b"\0").decode()
        if t == 2:
            offs = 1
        tlv = tlv[(n + 3) & ~3:]
    return err, msg, offs

u8 = lambda t, v: nla(t, struct.pack("B", v))
u16 = lambda t, v: nla(t, struct.pack("H", v))
u32 = lambda t, v: nla(t, struct.pack("I", v))
peers = lambda *addrs: nest(10, *[nla(1, a) for a in addrs])

mp0, rail = int(sys.argv[1]), int(sys.argv[2])
cases = [
    ("policy_range", 0, u8(2, 4)), ("policy_type", 0, u32(2, 1)),
    ("gap_zero", 0, u32(3, 0)), ("gap_high", 0, u32(3, 1000001)),
    ("gap_type", 0, u16(3, 5)),
    ("interval_low", 0, u32(4, 49)), ("interval_type", 0, u8(4, 100)),
    ("misses_zero", 0, u32(5, 0)), ("misses_high", 0, u32(5, 256)),
    ("holddown_high", 0, u32(6, 60001)), ("threshold_zero", 0, u32(7, 0)),
    ("halflife_zero", 0, u32(8, 0)), ("gso_range", 0, u8(9, 2)),
    ("peer_len", 0, peers(b"\1\2\3\4\5")), ("peers_many", 0, peers(*[b"\1\2\3\4"] * 65)),
    ("count_ro", 0, u32(1, 3)),
    ("weight_high", 1, u32(4, 1000001)), ("weight_type", 1, u8(4, 1)),
    ("admin_range", 1, u8(5, 3)), ("state_ro", 1, u8(2, 0)),
    ("gap_ok", 0, u32(3, 250)), ("weight_ok", 1, u32(4, 40)),
]
for name, slave, attr in cases:
    err, msg, offs = change(rail if slave else mp0, slave, attr)
    print(f"{name}|{err}|{msg}|{offs}")
PY
)

# Probes every 50 ms: the values only need to round-trip, and faster
# probes to two peers keep a debug guest under TCG too busy to go on.
test_settings_round_trip() {
	local j
	mp_pair 1
	"$MPLANECTL" -n "$ha" link set mp0 policy spray flowlet-gap 250 \
		probe-interval 50000 probe-misses 5 holddown 20 cong-threshold 9 \
		cong-halflife 300 gso segment peers $MP_B4,$MP_B6
	"$MPLANECTL" -n "$ha" link plane a0 weight 40 admin drain
	j=$(mp_json "$ha" | jq -c '.devices[0] | [.policy, .flowlet_gap_us,
		.probe_interval_us, .probe_misses, .holddown_ms, .cong_threshold,
		.cong_halflife_us, .gso_mode, .peers, .planes[0].weight, .planes[0].admin]')
	assert_eq "settings" "$j" \
		'["spray",250,50000,5,20,9,300,"segment",["10.99.0.2","fd99::2"],40,"drain"]'
	"$MPLANECTL" -n "$ha" link set mp0 peers none
	assert_eq "peers cleared" "$(mp_json "$ha" | jq -c '.devices[0].peers')" '[]'
	# A v4-mapped IPv6 peer is the IPv4 one: probed, and shown, as such.
	"$MPLANECTL" -n "$ha" link set mp0 peers "::ffff:$MP_B4"
	assert_eq "v4-mapped peer" "$(mp_json "$ha" | jq -c '.devices[0].peers')" "[\"$MP_B4\"]"
	"$MPLANECTL" -n "$ha" link set mp0 peers none
}

test_rejections_name_the_attribute() {
	local out line name err msg offs
	mp_pair 1
	out=$(ip netns exec "$ha" python3 -S -c "$RAW_PY" \
		"$(ip netns exec "$ha" cat /sys/class/net/mp0/ifindex)" \
		"$(ip netns exec "$ha" cat /sys/class/net/a0/ifindex)") || fail "helper failed"
	while IFS='|' read -r name err msg offs; do
		log "$name: errno $err: $msg"
		case $name in
		*_ok)	assert_eq "$name errno" "$err" 0; continue ;;
		*_ro)	[[ $msg == *read-only* ]] || fail "$name: '$msg'" ;;
		*_type)	[ -n "$msg" ] || fail "$name: no extack message" ;;
		peer_len) [[ $msg == *"4-byte IPv4 or 16-byte IPv6"* ]] || fail "$name: '$msg'" ;;
		peers_many) [[ $msg == *"IFLA_MPLANE_PEERS"* ]] || fail "$name: '$msg'" ;;
		*)	[[ $msg =~ IFLA_MPLANE_[A-Z_]+\)\ must\ be\ [0-9]+\.\.[0-9]+ ]] ||
				fail "$name: no attribute and range in '$msg'" ;;
		esac
		[ "$err" -ne 0 ] || fail "$name accepted"
		assert_eq "$name points at the attribute" "$offs" 1
	done <<<"$out"
	# Nothing refused was applied.
	assert_eq "gap" "$(mp_json "$ha" | jq '.devices[0].flowlet_gap_us')" 250
}

test_mplanectl_shows_extack() {
	mp_pair 1
	expect_fail_msg "mplanectl range" "IFLA_MPLANE_PROBE_INTERVAL_US.*50\.\.1000000" \
		"$MPLANECTL" -n "$ha" link set mp0 probe-interval 10
	expect_fail_msg "ip range" "IFLA_MPLANE_PROBE_MISSES" \
		"$MPLANECTL" -n "$ha" link set mp0 probe-misses 0
}

# A device that fails to register after its settings were applied (a
# name the core refuses, checked before ndo_init) must leave nothing
# behind: the peers list was allocated for it.  kmemleak, on the debug
# kernel, fails the run if it does.
test_failed_register_frees_settings() {
	local i tries=8
	quick && tries=3
	mplane_load
	setup_ns_nolo ha
	for ((i = 1; i <= tries; i++)); do
		expect_fail_msg "a bad name" "Invalid argument" \
			"$MPLANECTL" -n "$ha" link add "a:$i" policy spray peers 10.99.0.2,fd99::2
	done
	ip -n "$ha" -o link show | grep -q mplane && fail "a device was made"
	return 0
}

# Every attribute of the device, its CC nest and its rails, generated
# from the uapi (selftests/kmod/mpnl_cases.c): wrong lengths, values out
# of range, read-only ones, unknown types and misused nests, each with
# its answer and extack; the edges of each range accepted; nothing
# refused applied.  On the debug kernel kmemleak checks what the refused
# and the accepted ones (a CC table, say) allocated.
test_generated_cases() {
	local out n failed
	mp_pair 1
	out=$("$MPNL" "$ha" cases mp0 a0) || true
	grep '^FAIL' <<<"$out" | sed 's/^/# /'
	read -r n failed < <(sed -n 's/^cases \([0-9]*\) failed \([0-9]*\)$/\1 \2/p' <<<"$out")
	log "${n:-0} cases, ${failed:-?} failed"
	assert_ge "cases" "${n:-0}" 200
	assert_eq "failed cases" "${failed:-none}" 0
}

# The debug kernel's share: the path that allocates and frees (a failed
# register after the settings were applied), and the generated cases for
# kmemleak; the round trip and the hand-written rejections are the
# release kernels'.
QUICK_TESTS="test_failed_register_frees_settings test_generated_cases"

# shellcheck disable=SC2086 # TESTS is a list of names
ktap_run ${TESTS:-test_settings_round_trip test_rejections_name_the_attribute \
	test_mplanectl_shows_extack test_failed_register_frees_settings \
	test_generated_cases}

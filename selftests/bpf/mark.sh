#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Step markers: 'mplanectl mark step' as root, and through 'mark serve'
# from an unprivileged user with the header-only client
# (tools/include/mplane_mark.h, as the CLI's --socket uses it) and its
# Python twin (tools/include/mplane_mark.py).  The marks must reach
# 'mplanectl events' in order, with their step, kind and sender, and on
# the events' clock: between two CLOCK_MONOTONIC readings taken around
# them.
# shellcheck source-path=SCRIPTDIR source=../lib/lib.sh
source "$(dirname "$0")/../lib/lib.sh"

MPLANECTL=$MPLANE_BUILD/mplanectl
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-mark.XXXXXX")
SOCK=$TMPD/mark.sock
# The socket's directory must be reachable by the unprivileged sender.
chmod 755 "$TMPD"
trap 'rm -rf "$TMPD"' EXIT

# CLOCK_MONOTONIC in ns, the events' clock (bpf_ktime_get_ns).
mono_ns() { python3 -c 'import time; print(time.monotonic_ns())'; }

# events_until N OUT: read step marks until N arrive (or 10 s), in the
# background; sets reader_pid.  Marks left in the ring by earlier runs
# are read (and dropped) first: a reader starts where the last one left.
events_until() {
	"$MPLANECTL" events --pin /sys/fs/bpf/mplane/marks --duration 0.2 \
		>/dev/null 2>&1
	"$MPLANECTL" -j events --pin /sys/fs/bpf/mplane/marks --type step_mark \
		--count "$1" --duration 10 >"$2" 2>/dev/null &
	reader_pid=$!
	sleep 0.3
}

test_marks_in_order_on_the_events_clock() {
	local t0 t1 s
	"$MPLANECTL" mark step 0 || fail "first mark (loads the program)"
	events_until 5 "$TMPD/ev.json"
	t0=$(mono_ns)
	for s in 1 2 3; do
		"$MPLANECTL" mark step $s || fail "mark step $s"
	done
	"$MPLANECTL" mark step --kind step-end 3 || fail "step-end"
	"$MPLANECTL" mark step --kind user 99 || fail "user"
	t1=$(mono_ns)
	wait $reader_pid || true
	assert_eq "marks read" "$(jq -s length "$TMPD/ev.json")" 5
	assert_eq "steps" "$(jq -s -c '[.[].step_index]' "$TMPD/ev.json")" "[1,2,3,3,99]"
	assert_eq "kinds" "$(jq -s -c '[.[].kind_id]' "$TMPD/ev.json")" "[0,0,0,1,2]"
	jq -s -e --argjson a "$t0" --argjson b "$t1" \
		'all(.[]; .ts_ns >= $a and .ts_ns <= $b)' "$TMPD/ev.json" >/dev/null ||
		fail "marks not between $t0 and $t1: $(jq -s -c '[.[].ts_ns]' "$TMPD/ev.json")"
}

test_unprivileged_marks_through_serve() {
	local n
	"$MPLANECTL" mark serve --socket "$SOCK" 2>"$TMPD/serve.err" &
	serve_pid=$!
	# Global: the trap runs after this function's locals are gone.
	trap 'kill $serve_pid 2>/dev/null || true' EXIT
	busywait 5000 test -S "$SOCK" || fail "no socket"
	events_until 2 "$TMPD/ev2.json"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$MPLANECTL" mark step --socket "$SOCK" 41 || fail "mark as nobody"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$MPLANECTL" mark step --socket "$SOCK" --kind step-end 41 || fail "mark as nobody"
	# Not a mark: refused, and nothing reaches the stream.
	printf 'garbage' | setpriv --reuid=65534 --regid=65534 --clear-groups \
		/usr/bin/python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.sendto(sys.stdin.buffer.read(), sys.argv[1])' "$SOCK"
	wait $reader_pid || true
	kill "$serve_pid"
	wait "$serve_pid"
	n=$(jq -s length "$TMPD/ev2.json")
	assert_eq "marks through serve" "$n" 2
	assert_eq "steps" "$(jq -s -c '[.[].step_index]' "$TMPD/ev2.json")" "[41,41]"
	# The sender's own clock came along, and the pid is the kernel's.
	jq -s -e 'all(.[]; .app_ts_ns > 0 and .app_ts_ns <= .ts_ns and .pid > 1)' \
		"$TMPD/ev2.json" >/dev/null || fail "bad marks: $(cat "$TMPD/ev2.json")"
	grep -q "2 marks relayed, 1 datagrams refused" "$TMPD/serve.err" ||
		fail "serve summary: $(cat "$TMPD/serve.err")"
	[ -e "$SOCK" ] && fail "socket left behind"
	return 0
}

# as_nobody PY ARGS...: Debian's python3 as nobody, the Python client on
# its path.
as_nobody_py() {
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		env PYTHONPATH="$MPLANE_ROOT/tools/include" /usr/bin/python3 -c "$@"
}

# The Python client speaks the header's protocol: the same constants,
# and its marks reach the stream as the C client's do.
test_python_client_through_serve() {
	local kinds
	# Each constant as tools/include/mplane_mark_proto.h defines it, in its order.
	kinds=$(sed -n '/^enum mplane_mark_kind {/,/^}/s/^\s*\(MPLANE_MARK_[A-Z_]*\),.*/\1/p' \
		"$MPLANE_ROOT/tools/include/mplane_mark_proto.h" | xargs)
	assert_eq "kinds in the header" "$kinds" \
		"MPLANE_MARK_STEP MPLANE_MARK_STEP_END MPLANE_MARK_USER"
	assert_eq "constants" "$(as_nobody_py 'import mplane_mark as m
print(m.MARK_SOCKET, hex(m.MARK_MAGIC), m.MARK_VERSION, m.STEP, m.STEP_END, m.USER, m._MSG.size)')" \
		"$(awk '/define MPLANE_MARK_MAGIC/ { printf "%s ", tolower($3) }
			/define MPLANE_MARK_VERSION/ { printf "%s ", $3 }
			/define MPLANE_MARK_SOCKET/ { gsub(/"/, "", $3); printf "%s ", $3 }' \
			"$MPLANE_ROOT/tools/include/mplane_mark_proto.h")0 1 2 24"
	"$MPLANECTL" mark serve --socket "$SOCK" 2>"$TMPD/serve-py.err" &
	serve_pid=$!
	trap 'kill $serve_pid 2>/dev/null || true' EXIT
	busywait 5000 test -S "$SOCK" || fail "no socket"
	events_until 3 "$TMPD/ev-py.json"
	assert_eq "sent" "$(as_nobody_py 'import sys, mplane_mark as m
with m.connect(sys.argv[1]) as k:
    print(k.mark(m.STEP, 5), k.mark(m.STEP_END, 5), k.mark(m.USER, 6), k.sent, k.dropped)' "$SOCK")" \
		"True True True 3 0"
	wait $reader_pid || true
	kill "$serve_pid"
	wait "$serve_pid"
	assert_eq "steps" "$(jq -s -c '[.[].step_index]' "$TMPD/ev-py.json")" "[5,5,6]"
	assert_eq "kinds" "$(jq -s -c '[.[].kind_id]' "$TMPD/ev-py.json")" "[0,1,2]"
	jq -s -e 'all(.[]; .app_ts_ns > 0 and .app_ts_ns <= .ts_ns and .pid > 1)' \
		"$TMPD/ev-py.json" >/dev/null || fail "bad marks: $(cat "$TMPD/ev-py.json")"
	grep -q "3 marks relayed, 0 datagrams refused" "$TMPD/serve-py.err" ||
		fail "serve summary: $(cat "$TMPD/serve-py.err")"
}

# No server: connect() raises; a full queue or a server gone: mark()
# says False at once, never blocks and never raises.  A server that
# does not read stands in for a stalled 'mark serve'.
test_python_client_never_blocks() {
	# nobody binds the stand-in there.
	mkdir -m 1777 "$TMPD/py"
	assert_eq "no server" "$(as_nobody_py 'import sys, mplane_mark as m
try:
    m.connect(sys.argv[1])
except FileNotFoundError:
    print("FileNotFoundError")' "$TMPD/none.sock")" FileNotFoundError
	assert_eq "full, then gone" "$(as_nobody_py 'import socket, sys, time, mplane_mark as m
srv = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
srv.bind(sys.argv[1])
k = m.connect(sys.argv[1])
t0 = time.monotonic()
while k.mark(m.STEP, k.sent) and k.sent < 100000:
    pass
full = k.dropped
srv.close()
gone = k.mark(m.STEP, 0)
print(full, gone, k.dropped, k.sent > 0, time.monotonic() - t0 < 5)' "$TMPD/py/py.sock")" \
		"1 False 2 True True"
}

# Each user may send --rate marks a second through serve, a second's
# worth at once: nobody's flood is throttled to that, and root's marks,
# sent after it, all still get through.
test_rate_limit_per_user() {
	local sent t0 t1 t2 relayed throttled allowed
	"$MPLANECTL" mark serve --socket "$SOCK" --rate 50 2>"$TMPD/serve-rl.err" &
	serve_pid=$!
	trap 'kill $serve_pid 2>/dev/null || true' EXIT
	busywait 5000 test -S "$SOCK" || fail "no socket"
	t0=$(mono_ns)
	# A full socket queue drops at the client: what it sent reached serve.
	sent=$(as_nobody_py 'import sys, time, mplane_mark as m
with m.connect(sys.argv[1]) as k:
    for i in range(2000):
        if not k.mark(m.STEP, i):
            time.sleep(0.0005)
    print(k.sent)' "$SOCK")
	t1=$(mono_ns)
	events_until 5 "$TMPD/ev-rl.json"
	for s in 9001 9002 9003 9004 9005; do
		"$MPLANECTL" mark step --socket "$SOCK" $s || fail "root's mark $s"
	done
	wait $reader_pid || true
	# serve reads what is queued after the flood: its allowance grew
	# until then.
	t2=$(mono_ns)
	kill "$serve_pid"
	wait "$serve_pid"
	read -r relayed throttled < <(sed -n \
		's/.* \([0-9]*\) marks relayed, [0-9]* datagrams refused, \([0-9]*\) marks throttled$/\1 \2/p' \
		"$TMPD/serve-rl.err")
	log "nobody sent $sent in $(((t1 - t0) / 1000000)) ms: $relayed relayed, $throttled throttled"
	assert_eq "every mark counted" "$((relayed + throttled))" "$((sent + 5))"
	# 50 at once, then 50 a second, and root's 5.
	allowed=$((50 + 50 * (t2 - t0) / 1000000000 + 1 + 5))
	assert_le "relayed" "$relayed" "$allowed"
	assert_ge "relayed" "$relayed" 55
	assert_eq "root's marks" "$(jq -s -c '[.[].step_index | select(. > 9000)]' "$TMPD/ev-rl.json")" \
		"[9001,9002,9003,9004,9005]"
}

test_refusals() {
	expect_fail_msg "bad kind" "bad --kind 'often'" "$MPLANECTL" mark step --kind often 1
	expect_fail_msg "no server" "is 'mplanectl mark serve' running" \
		"$MPLANECTL" mark step --socket "$TMPD/none.sock" 1
	expect_fail_msg "bad step" "bad N" "$MPLANECTL" mark step x
	expect_fail_msg "bad rate" "bad --rate 'fast'" \
		"$MPLANECTL" mark serve --socket "$TMPD/x.sock" --rate fast
}

[ -x "$MPLANECTL" ] || skip "no $MPLANECTL (make tools)"
ktap_run test_marks_in_order_on_the_events_clock \
	test_unprivileged_marks_through_serve test_python_client_through_serve \
	test_python_client_never_blocks test_rate_limit_per_user test_refusals

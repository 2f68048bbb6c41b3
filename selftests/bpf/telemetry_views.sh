#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The telemetry views over a capture whose every number is known: a
# generator below writes it (two planes of mp0 failing over at 100 ms,
# two uneven ports of leaf l0 with 7 events dropped, steps of 10 ms), and
# 'telemetry report', 'hist' and 'export' must show those numbers.
# /metrics is checked with a real parser (Debian's python3-prometheus-
# client) and by hand for what it does not check (bucket order, _count
# equal to +Inf).  Then the live feed, when step marks can be made here.
# shellcheck source-path=SCRIPTDIR source=../lib/lib.sh
source "$(dirname "$0")/../lib/lib.sh"
# shellcheck source=../lib/browser.sh
source "$(dirname "$0")/../lib/browser.sh"

MPLANECTL=$MPLANE_BUILD/mplanectl
# Debian's python, which has the parser (not a user's pyenv or venv).
PY=/usr/bin/python3
# selftests/lib/mpcapture.py: the capture header and framing.
LIBDIR=$(cd "$(dirname "$0")/../lib" && pwd)
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mplane-tviews.XXXXXX")
CAP=$TMPD/run.mpcp
trap 'rm -rf "$TMPD"' EXIT

# The capture: tools/include/mplane_capture.h's format, little
# endian as recorded on x86.  Samples every 100 us for 200 ms:
#  - mp0/plane0: 1000 bytes a sample, 2000 after the failure; queue
#    depth (i % 10) * 1000;  mp0/plane1: 1000, then nothing;
#  - at 100.05 ms plane1 goes down (PLANE_STATE), at 100.06 ms FAILOVER,
#    both written before older samples, as another ring may deliver them;
#  - l0/s1 1000 bytes a sample (queue 3000, one CE mark every 10
#    samples), l0/s2 500; l0's ring dropped 7 events;
#  - a step mark of pid 42 every 10 ms;
#  - a frame kind and an event type from the future, to be skipped.
gen_capture() {
	"$PY" - "$1" "$LIBDIR" <<'PYEOF'
import struct, sys
T0, US, MS = 1_000_000_000, 1000, 1_000_000
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[2])
from mpcapture import open_capture, event
out, frame = open_capture(sys.argv[1], T0)
SOURCE, IFNAME, STATS = 2, 3, 5
NOPL = 0xffff
count = {}
def ev(src, typ, ifindex, plane, ts, v):
    event(frame, src, typ, 0, ifindex, plane, ts, v)
    count[src] = count.get(src, 0) + 1
for i, l in enumerate([b'dev/4026531840/mp0', b'fabric/tv/l0', b'marks']):
    frame(SOURCE, i, l + b'\0')
for src, ifindex, name in [(0, 5, b'mp0'), (1, 3, b's1'), (1, 4, b's2')]:
    frame(IFNAME, src, struct.pack('<I16s', ifindex, name))
frame(99, 0, b'a frame kind from the future')
PLANE_STATE, FAILOVER, STEP_MARK, PLANE_SAMPLE, PORT_SAMPLE = 7, 8, 9, 12, 13
b0 = b1 = s1 = s2 = 0
for i in range(2001):
    t = T0 + i * 100 * US
    if i == 1000:
        ev(0, PLANE_STATE, 5, 1, t + 50 * US, (1, 0, 1, 7))
        ev(0, FAILOVER, 5, 1, t + 60 * US, (1, 1, 0, 0))
    if i:
        b0 += 1000 if i <= 1000 else 2000
        b1 += 1000 if i <= 1000 else 0
        s1 += 1000
        s2 += 500
    ev(0, PLANE_SAMPLE, 5, 0, t, ((i % 10) * 1000, b0, 0, 0))
    ev(0, PLANE_SAMPLE, 5, 1, t, (0, b1, 0, 0))
    ev(1, PORT_SAMPLE, 3, NOPL, t, (3000, s1, i // 10, s1 // 1000))
    ev(1, PORT_SAMPLE, 4, NOPL, t, (0, s2, 0, s2 // 1000))
    if i % 100 == 0:
        ev(2, STEP_MARK, 0, NOPL, t + 10 * US, (i // 100, 42, 0, 0))
ev(1, 200, 3, NOPL, T0 + 5 * MS, (0, 0, 0, 0))
for src in range(3):
    drop = 7 if src == 1 else 0
    frame(STATS, src, struct.pack('<4Q', count[src] + drop, drop,
                                  count[src], 0))
PYEOF
}

# A capture of the kmod relay seeing three namespaces, as a fabric's
# hosts make: ours (inode 1000, mp0 ifindex 5) and tv-h1, tv-h2 (2001,
# 2002), whose mp0 are both ifindex 7; hdr.flags of the plane events is
# the namespace.  100 samples 1 ms apart: our mp0/plane0 sends 1000
# bytes a sample, tv-h1's planes 1000 and 500, tv-h2's 2000 and 2000.
# At 50 ms tv-h1's plane1 goes down.
gen_netns_capture() {
	"$PY" - "$1" "$LIBDIR" <<'PYEOF'
import struct, sys
T0, MS = 1_000_000_000, 1_000_000
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[2])
from mpcapture import open_capture, event
out, frame = open_capture(sys.argv[1], T0)
SOURCE, IFNAME, STATS, NETNS = 2, 3, 5, 6
PLANE_STATE, PLANE_SAMPLE = 7, 12
def ev(typ, netns, ifindex, plane, ts, v):
    event(frame, 0, typ, netns, ifindex, plane, ts, v)
frame(SOURCE, 0, b'kmod\0')
for ino, name in [(1000, b''), (2001, b'tv-h1'), (2002, b'tv-h2')]:
    frame(NETNS, 0, struct.pack('<I', ino) + name + b'\0')
for ino, ifindex, name in [(0, 5, b'mp0'), (0, 7, b'rail0'),
                           (2001, 7, b'mp0'), (2002, 7, b'mp0')]:
    frame(IFNAME, 0, struct.pack('<I16sI', ifindex, name, ino))
planes = [(1000, 5, 0, 1000), (2001, 7, 0, 1000), (2001, 7, 1, 500),
          (2002, 7, 0, 2000), (2002, 7, 1, 2000)]
n = 0
for i in range(101):
    if i == 50:
        ev(PLANE_STATE, 2001, 7, 1, T0 + i * MS + 1, (1, 0, 1, 8))
        n += 1
    for ino, ifindex, plane, per in planes:
        ev(PLANE_SAMPLE, ino, ifindex, plane, T0 + i * MS, (0, i * per, 0, 0))
        n += 1
frame(STATS, 0, struct.pack('<4Q', n, 0, n, 0))
PYEOF
}

# A capture of DCQCN at work, as the kmod relay and the ethtool poller
# record it: ours (inode 1000) and tv-h1 (2001), mp0 ifindex 5 in each.
#  - our QP 17: cut by CNPs on plane 1 at 10 and 20 ms (10 -> 5 -> 2.5
#    Gbit/s), fast recovery to 3.75 at 30 ms; our QP 9: cut on plane 0
#    at 15 ms (1 Gbit/s -> 500 Mbit/s); tv-h1's QP 17: additive increase
#    1 -> 1.1 Gbit/s at 25 ms.  The capture ends at 40 ms;
#  - plane samples every 10 ms, our plane1 counting 3 CNPs received;
#  - the poller's mp0/ethtool/plane1_cnp_sent 4 and _rate_cuts 2, and
#    plane1_tx_bytes, which is no CC counter.
gen_cc_capture() {
	"$PY" - "$1" "$LIBDIR" <<'PYEOF'
import struct, sys
T0, MS = 1_000_000_000, 1_000_000
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[2])
from mpcapture import open_capture, event
out, frame = open_capture(sys.argv[1], T0)
SOURCE, IFNAME, COUNTER_NAME, NETNS = 2, 3, 4, 6
RATE_UPDATE, PLANE_SAMPLE, COUNTER = 10, 12, 14
CUT, FAST, ADD = 0, 1, 2
ETHTOOL = 1
NOPL = 0xffff
def ev(src, typ, netns, ifindex, plane, ts, v):
    event(frame, src, typ, netns, ifindex, plane, ts, v)
frame(SOURCE, 0, b'kmod\0')
frame(SOURCE, 1, b'poll\0')
for ino, name in [(1000, b''), (2001, b'tv-h1')]:
    frame(NETNS, 0, struct.pack('<I', ino) + name + b'\0')
for ino in (0, 2001):
    frame(IFNAME, 0, struct.pack('<I16sI', 5, b'mp0', ino))
ids = [(1, b'mp0/ethtool/plane1_cnp_sent', 4),
       (2, b'mp0/ethtool/plane1_rate_cuts', 2),
       (3, b'mp0/ethtool/plane1_tx_bytes', 9000)]
for cid, name, _ in ids:
    frame(COUNTER_NAME, 1, struct.pack('<III', cid, ETHTOOL, 5) + name + b'\0')
for i in range(5):
    t = T0 + i * 10 * MS
    for plane in (0, 1):
        ev(0, PLANE_SAMPLE, 1000, 5, plane, t,
           (0, i * 1000, 0, min(i, 3) if plane else 0))
for cid, _, v in ids:
    ev(1, COUNTER, cid, 0, NOPL, T0 + 35 * MS, (v, ETHTOOL, 0, 0))
for ms, netns, plane, qpn, rate, old, cause in [
        (10, 1000, 1, 17, 5000000, 10000000, CUT),
        (15, 1000, 0, 9, 500000, 1000000, CUT),
        (20, 1000, 1, 17, 2500000, 5000000, CUT),
        (25, 2001, NOPL, 17, 1100000, 1000000, ADD),
        (30, 1000, NOPL, 17, 3750000, 2500000, FAST)]:
    ev(0, RATE_UPDATE, netns, 5, plane, T0 + ms * MS + 1,
       (qpn, rate, old, cause))
PYEOF
}

# jq_eq WHAT FILTER WANT FILE
jq_eq() { assert_eq "$1" "$(jq -c "$2" "$4")" "$3"; }

# A TCP port nobody listens on now.
free_port() {
	"$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_export PORT ARGS...: in the background until it serves; sets
# export_pid.
start_export() {
	local port=$1
	shift
	"$MPLANECTL" telemetry export --listen "127.0.0.1:$port" "$@" \
		>"$TMPD/export.out" 2>&1 &
	export_pid=$!
	# This test's subshell only: the script's own trap removes TMPD.
	trap 'kill $export_pid 2>/dev/null || true' EXIT
	slowwait 10 curl -sf -o /dev/null "http://127.0.0.1:$port/metrics" ||
		fail "export did not serve: $(cat "$TMPD/export.out")"
}

stop_export() {
	kill "$export_pid"
	wait "$export_pid" || fail "export did not stop cleanly on SIGTERM"
}

# check_metrics FILE: parse it as Prometheus text with the real parser
# and check histograms; prints "name{labels} value" lines for asserts.
check_metrics() {
	"$PY" - "$1" <<'PYEOF'
import sys
from prometheus_client.parser import text_string_to_metric_families
text = open(sys.argv[1]).read()
helps = {l.split()[2] for l in text.splitlines() if l.startswith('# HELP ')}
types = {l.split()[2] for l in text.splitlines() if l.startswith('# TYPE ')}
# One label scheme for every family (tools/mplanectl/telemetry_export.c):
# a polled counter is {node,dev,stat} (and port) wherever it appears,
# never one "counter" label of "eth0/rx_bytes", and everything has its
# node but the families about the exporter itself.
scheme = {'node', 'dev', 'dir', 'plane', 'port', 'stat', 'qpn', 'peer',
          'kind', 'state', 'source', 'type', 'what', 'le', 'version', 'kernel',
          'pid', 'collective', 'rank'}
no_node = {'mplane_build_info', 'mplane_anomalies_total',
           'mplane_model_refused_total', 'mplane_qps', 'mplane_qps_evicted_total'}
for fam in text_string_to_metric_families(text):
    base = fam.name + ('_total' if fam.type == 'counter' else '')
    for s in fam.samples:
        assert set(s.labels) <= scheme, '%s: labels %s' % (s.name, set(s.labels) - scheme)
        for v in s.labels.values():
            assert v and not any(c.isspace() for c in v), '%s: label value %r' % (s.name, v)
        assert base in no_node or 'node' in s.labels, '%s: no node in %s' % (s.name, s.labels)
        assert 'stat' not in s.labels or 'dev' in s.labels, '%s: a stat of no dev' % s.name
        assert 'plane' not in s.labels or 'dev' in s.labels, '%s: a plane of no dev' % s.name
    assert base in helps and base in types, 'no HELP or TYPE for ' + base
    if fam.type == 'histogram':
        # Each series (its labels but le) on its own: buckets rise to +Inf,
        # and _count is the +Inf bucket.
        def key(smp):
            return tuple(sorted((k, v) for k, v in smp.labels.items() if k != 'le'))
        for k in {key(x) for x in fam.samples}:
            buckets = [x for x in fam.samples if x.name.endswith('_bucket') and key(x) == k]
            les = [float(x.labels['le']) for x in buckets]
            assert les and les == sorted(les) and les[-1] == float('inf'), fam.name
            vals = [x.value for x in buckets]
            assert vals == sorted(vals), fam.name + ': buckets decrease'
            count = [x.value for x in fam.samples if x.name.endswith('_count') and key(x) == k]
            assert count == [vals[-1]], fam.name + ': _count is not +Inf'
    for s in fam.samples:
        labels = ','.join('%s=%s' % kv for kv in sorted(s.labels.items()))
        print('%s{%s} %s' % (s.name, labels, repr(float(s.value))))
PYEOF
}

# check_promtool FILE: Prometheus's own lint takes it without a word.
check_promtool() {
	local tool out
	tool=$("$MPLANE_ROOT/scripts/promtool.sh") || fail "no promtool"
	out=$("$tool" check metrics <"$1" 2>&1) || fail "promtool check metrics: $out"
	assert_eq "promtool's complaints" "$out" ""
}

# sum_of SAMPLES PREFIX: the sum of the values of the series PREFIX... .
sum_of() {
	awk -v p="$2" 'index($1, p) == 1 { t += $2 } END { printf "%.1f\n", t }' "$1"
}

test_report_json() {
	local j=$TMPD/report.json
	gen_capture "$CAP"
	"$MPLANECTL" -j telemetry report "$CAP" >"$j" || fail "report --json"
	jq_eq host .host '"genhost"' "$j"
	jq_eq events .event_count 8028 "$j"
	jq_eq "dropped in all" .dropped 7 "$j"
	jq_eq "l0 dropped" '.sources[] | select(.label == "fabric/tv/l0") | .dropped' 7 "$j"
	# 3 MB over 200 ms; 1 MB in the first 100 ms, 2 MB in the second.
	jq_eq "plane0 bw" '.entities[] | select(.name == "mp0/plane0") | [.tx_bytes, .bw_bps, .bw_before_bps, .bw_after_bps]' \
		'[3000000,120000000,80000000,160000000]' "$j"
	jq_eq "plane1 bw" '.entities[] | select(.name == "mp0/plane1") | [.bw_before_bps, .bw_after_bps, .state]' \
		'[80000000,0,"down"]' "$j"
	jq_eq "plane0 queue" '.entities[] | select(.name == "mp0/plane0") | .queue | [.count, .max_bytes]' \
		'[2001,9000]' "$j"
	jq_eq "s1 ECN" '.entities[] | select(.name == "l0/s1") | .ecn_ce' 200 "$j"
	jq_eq anomalies '[.anomalies[] | [.type, .entity, .t_ms]]' \
		'[["plane_down","mp0/plane1",100.05],["failover","mp0/plane1",100.06]]' "$j"
	jq_eq "first failure" .first_failure_ms 100.05 "$j"
	# Planes 120 and 40 Mbit/s: max/mean 1.5, CV 40/80 = 0.5.
	jq_eq "mp0 symmetry" '.symmetry[] | select(.group == "mp0") | [.flagged, .max_mean, .cv, .slow]' \
		'[true,1.5,0.5,["mp0/plane1"]]' "$j"
	jq_eq "l0 symmetry" '.symmetry[] | select(.group == "l0/s*") | [.flagged, .slow]' \
		'[true,["l0/s2"]]' "$j"
	# 20 steps of 10 ms: p50 at most a bucket (1/64) above.
	jq_eq steps '.step_times.count' 20 "$j"
	jq -e '.step_times.p50_us >= 10000 and .step_times.p50_us <= 10156.25' "$j" >/dev/null ||
		fail "step p50 $(jq .step_times.p50_us "$j"), want 10 ms"
	# One timeline for both anomalies, in order, in us from the first.
	jq_eq timelines '[.timelines[] | [.events[] | [.type, .dt_us]]]' \
		'[[["step_mark",-40],["plane_state",0],["failover",10]]]' "$j"
}

test_report_text() {
	local t=$TMPD/report.txt
	gen_capture "$CAP"
	"$MPLANECTL" telemetry report "$CAP" >"$t" || fail "report"
	grep -q '7 events were DROPPED by 1 source' "$t" || fail "no drop warning: $(cat "$t")"
	grep -Eq '^mp0/plane0 +3.00 MB +120 Mbit/s +80.0 Mbit/s +160 Mbit/s' "$t" ||
		fail "plane0's row: $(grep plane0 "$t")"
	grep -Eq '^  mp0 .*1\.50 +0\.50 +FLAGGED +slow: mp0/plane1$' "$t" ||
		fail "mp0's symmetry: $(grep -A3 symmetry "$t")"
	grep -Eq '\+100\.050 ms +plane_down +mp0/plane1' "$t" || fail "no anomaly line"
	grep -Eq '^ +\+10\.0 +failover +mp0/plane1' "$t" || fail "no timeline line"
	assert_le "report lines" "$(wc -l <"$t")" 40
	# The same numbers pass with a looser threshold.
	"$MPLANECTL" -j telemetry report --threshold 2.5 "$CAP" >"$TMPD/loose.json"
	jq_eq "loose flags" '[.symmetry[].flagged]' '[false,false]' "$TMPD/loose.json"
	expect_fail_msg "bad threshold" "bad --threshold '0.5'" \
		"$MPLANECTL" telemetry report --threshold 0.5 "$CAP"
	expect_fail_msg "missing file" "$TMPD/nope.mpcp: No such file" \
		"$MPLANECTL" telemetry report "$TMPD/nope.mpcp"
	echo "not a capture at all, but long enough for a header ......................................" >"$TMPD/bad"
	expect_fail_msg "not a capture" "not an mplane capture" \
		"$MPLANECTL" telemetry report "$TMPD/bad"
}

test_hist() {
	local j=$TMPD/hist.json
	gen_capture "$CAP"
	"$MPLANECTL" -j telemetry hist "$CAP" >"$j" || fail "hist --json"
	# 8004 samples of 4 entities; 200 of plane0 at each depth 0 .. 9000.
	jq_eq "queue" '.queue | [.count, .max_bytes, has("unit")]' '[8004,9000,false]' "$j"
	jq_eq "per entity" '[.queue.entities[] | .name]' \
		'["mp0/plane0","mp0/plane1","l0/s1","l0/s2"]' "$j"
	# Gaps of 100 us between the increases of four series: 2000 of
	# each but plane1, which stops at 100 ms (its idle end is no gap).
	jq_eq "gaps" '.gaps | [.count, .p50_us, .p999_us, .max_us]' '[6996,100,100,100]' "$j"
	jq -e '.step_times.count == 20 and .step_times.p99_us >= 10000 and .step_times.p99_us <= 10156.25' "$j" >/dev/null ||
		fail "step: $(jq -c .step_times "$j")"
	"$MPLANECTL" -j telemetry hist --what step "$CAP" >"$j"
	jq_eq "only step" 'keys' '["step_times"]' "$j"
	"$MPLANECTL" telemetry hist --what queue "$CAP" >"$TMPD/hist.txt"
	grep -Eq '^ +mp0/plane0 +2001 ' "$TMPD/hist.txt" || fail "text: $(cat "$TMPD/hist.txt")"
	grep -q '########################################' "$TMPD/hist.txt" || fail "no bars"
	expect_fail_msg "bad --what" "bad --what 'depth': want queue, gap or step" \
		"$MPLANECTL" telemetry hist --what queue,depth "$CAP"
}

test_export_from_file() {
	local port m=$TMPD/metrics n
	gen_capture "$CAP"
	port=$(free_port)
	start_export "$port" --from "$CAP"
	curl -sf -D "$TMPD/headers" -o "$m" "http://127.0.0.1:$port/metrics" || fail "curl"
	grep -qi '^content-type: text/plain; version=0.0.4' "$TMPD/headers" ||
		fail "content type: $(cat "$TMPD/headers")"
	check_metrics "$m" >"$TMPD/samples" || fail "/metrics does not parse"
	s() { grep -F "$1 " "$TMPD/samples" | awk '{ print $2 }'; }
	assert_eq "plane0 bytes" "$(s 'mplane_plane_tx_bytes_total{dev=mp0,node=ns4026531840,plane=0}')" 3000000.0
	assert_eq "s2 bytes" "$(s 'mplane_port_tx_bytes_total{node=l0,port=s2}')" 1000000.0
	assert_eq "l0 dropped" "$(s 'mplane_events_dropped_total{node=l0,source=fabric/tv/l0}')" 7.0
	# Events per source have its node, as its ports have it.
	n=$(grep -c '^mplane_events_total{node=l0,source=fabric/tv/l0,type=' "$TMPD/samples")
	assert_ge "l0's event types" "$n" 1
	assert_eq "l0's event types, any node" "$(grep -c '^mplane_events_total{[^}]*source=fabric/tv/l0,' "$TMPD/samples")" "$n"
	assert_eq "plane1 down" "$(s 'mplane_plane_state{dev=mp0,node=ns4026531840,plane=1,state=down}')" 1.0
	assert_eq "plane1 not up" "$(s 'mplane_plane_state{dev=mp0,node=ns4026531840,plane=1,state=up}')" 0.0
	assert_eq "plane1's states" "$(grep -c '^mplane_plane_state{dev=mp0,node=ns4026531840,plane=1,' "$TMPD/samples")" 5
	assert_eq "build info" "$(s "mplane_build_info{kernel=$(uname -r),version=$(<"$MPLANE_ROOT/VERSION")}")" 1.0
	assert_eq "failovers" "$(s 'mplane_anomalies_total{type=failover}')" 1.0
	assert_eq "mp0 flagged" "$(s 'mplane_symmetry_flagged{dev=mp0,kind=plane,node=ns4026531840}')" 1.0
	# Step times per process of a source, {node,pid}: the 20 of pid 42.
	assert_eq "steps" "$(s 'mplane_step_seconds_count{node=marks,pid=42}')" 20.0
	assert_eq "steps sum" "$(s 'mplane_step_seconds_sum{node=marks,pid=42}')" 0.2
	assert_eq "steps <= 50 ms" "$(s 'mplane_step_seconds_bucket{le=0.05,node=marks,pid=42}')" 20.0
	assert_eq "steps <= 5 ms" "$(s 'mplane_step_seconds_bucket{le=0.005,node=marks,pid=42}')" 0.0
	assert_eq "step series" "$(grep -c '^mplane_step_seconds_count' "$TMPD/samples")" 1
	# Delivery gaps per plane and port; their sum is hist's 6996, and
	# plane1, which stopped at 100 ms, has half of plane0's.
	assert_eq "gap count" "$(sum_of "$TMPD/samples" 'mplane_delivery_gap_seconds_count{')" 6996.0
	assert_eq "plane0 gaps" "$(s 'mplane_delivery_gap_seconds_count{dev=mp0,node=ns4026531840,plane=0}')" 1999.0
	assert_eq "plane1 gaps" "$(s 'mplane_delivery_gap_seconds_count{dev=mp0,node=ns4026531840,plane=1}')" 999.0
	assert_eq "s2 gaps <= 250 us" "$(s 'mplane_delivery_gap_seconds_bucket{le=0.00025,node=l0,port=s2}')" 1999.0
	assert_eq "s2 gaps <= 50 us" "$(s 'mplane_delivery_gap_seconds_bucket{le=5e-05,node=l0,port=s2}')" 0.0
	# Per plane and port now; their sum is the capture's.
	assert_eq "queue count" "$(sum_of "$TMPD/samples" 'mplane_queue_bytes_count{')" 8004.0
	assert_eq "plane0 queue count" "$(s 'mplane_queue_bytes_count{dev=mp0,node=ns4026531840,plane=0}')" 2001.0
	# Depth 0: plane1, s2 and a tenth of plane0's samples.
	assert_eq "queue le=0" "$(grep -E '[{,]le=0[,}]' "$TMPD/samples" | sum_of /dev/stdin 'mplane_queue_bytes_bucket{')" 4203.0
	check_promtool "$m"
	curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/nope" >"$TMPD/code"
	assert_eq "404" "$(cat "$TMPD/code")" 404
	stop_export
}

# Planes of three namespaces, two sharing an ifindex: named and grouped
# per namespace in the report, and told apart by node in /metrics.
test_netns_names() {
	local j=$TMPD/netns.json cap=$TMPD/netns.cap port m=$TMPD/netns.metrics
	gen_netns_capture "$cap"
	"$MPLANECTL" -j telemetry report "$cap" >"$j" || fail "report --json"
	jq_eq "planes" '[.entities[] | select(.kind == "plane") | .name] | sort' \
		'["mp0/plane0","tv-h1:mp0/plane0","tv-h1:mp0/plane1","tv-h2:mp0/plane0","tv-h2:mp0/plane1"]' "$j"
	jq_eq "tv-h1 plane1 bytes" '.entities[] | select(.name == "tv-h1:mp0/plane1") | [.tx_bytes, .state]' \
		'[50000,"down"]' "$j"
	jq_eq "groups" '[.symmetry[] | select(.kind == "plane") | [.group, .members]] | sort' \
		'[["mp0",1],["tv-h1:mp0",2],["tv-h2:mp0",2]]' "$j"
	jq_eq "anomaly" '[.anomalies[] | [.type, .entity]]' '[["plane_down","tv-h1:mp0/plane1"]]' "$j"
	"$MPLANECTL" telemetry report "$cap" >"$TMPD/netns.txt" || fail "report"
	grep -Eq '^tv-h2:mp0/plane1 ' "$TMPD/netns.txt" || fail "text: $(cat "$TMPD/netns.txt")"
	"$MPLANECTL" -j telemetry hist --what queue "$cap" >"$TMPD/netns.hist" || fail "hist"
	port=$(free_port)
	start_export "$port" --from "$cap"
	curl -sf -o "$m" "http://127.0.0.1:$port/metrics" || fail "curl"
	stop_export
	check_metrics "$m" >"$TMPD/netns.samples" || fail "/metrics does not parse"
	s() { grep -F "$1 " "$TMPD/netns.samples" | awk '{ print $2 }'; }
	assert_eq "ours" "$(s 'mplane_plane_tx_bytes_total{dev=mp0,node=kmod,plane=0}')" 100000.0
	assert_eq "tv-h1 plane1" "$(s 'mplane_plane_tx_bytes_total{dev=mp0,node=tv-h1,plane=1}')" 50000.0
	assert_eq "tv-h2 plane0" "$(s 'mplane_plane_tx_bytes_total{dev=mp0,node=tv-h2,plane=0}')" 200000.0
	# No series twice: a Prometheus server would reject the scrape.
	assert_eq "duplicate series" "$(awk '{ print $1 }' "$TMPD/netns.samples" | sort | uniq -d)" ""
	# A group per device and namespace, named by node and dev.
	assert_eq "groups" "$(grep '^mplane_symmetry_flagged{dev=mp0,kind=plane,' "$TMPD/netns.samples" |
		sed 's/.*node=\([^,}]*\).*/\1/' | sort | xargs)" "kmod tv-h1 tv-h2"
	check_promtool "$m"
}

test_export_errors() {
	local port
	gen_capture "$CAP"
	port=$(free_port)
	start_export "$port" --from "$CAP"
	expect_fail_msg "taken port" "--listen 127.0.0.1:$port: port $port is already taken" \
		"$MPLANECTL" telemetry export --from "$CAP" --listen "127.0.0.1:$port"
	stop_export
	expect_fail_msg "foreign address" "192.0.2.1 is not an address of this host" \
		"$MPLANECTL" telemetry export --listen 192.0.2.1:9464 --public
	# Serving beyond this host is asked for, and then said.
	expect_fail_msg "every interface, not asked for" \
		"--listen 0.0.0.0:$port: other hosts can reach 0.0.0.0; add --public to serve them this host's metrics" \
		"$MPLANECTL" telemetry export --from "$CAP" --listen "0.0.0.0:$port"
	expect_fail_msg "IPv6 wildcard, not asked for" "other hosts can reach ::; add --public" \
		"$MPLANECTL" telemetry export --from "$CAP" --listen "[::]:$port"
	expect_fail_msg "bad port" "bad port '70000' in --listen" \
		"$MPLANECTL" telemetry export --listen 127.0.0.1:70000
	expect_fail_msg "bad address" "nonsense\.invalid" \
		"$MPLANECTL" telemetry export --listen nonsense.invalid:9464
	expect_fail_msg "missing capture" "$TMPD/nope: No such file" \
		"$MPLANECTL" telemetry export --from "$TMPD/nope" --listen "127.0.0.1:$port"
	# The option table's refusals: each names the option and what it wants.
	expect_fail_msg "bad threshold" "bad --threshold '1': want a ratio above 1" \
		"$MPLANECTL" telemetry export --threshold 1
	expect_fail_msg "poll rate too high" "bad --poll-hz '20000': want an integer from 0 to 10000" \
		"$MPLANECTL" telemetry export --poll-hz 20000
	expect_fail_msg "ethtool without polling" "--ethtool polls: give a --poll-hz above 0" \
		"$MPLANECTL" telemetry export --poll-hz 0 --ethtool
	expect_fail_msg "an operand" "unexpected argument 'now'" \
		"$MPLANECTL" telemetry export now
}

# --public: every interface, said on stderr; and what one client may
# hold: 8 connections from one address, the 9th closed unanswered, and
# served again once they are gone.
test_export_public_and_limits() {
	local port i code
	gen_capture "$CAP"
	port=$(free_port)
	"$MPLANECTL" telemetry export --from "$CAP" --listen "0.0.0.0:$port" --public \
		>"$TMPD/export.out" 2>&1 &
	export_pid=$!
	trap 'kill $export_pid 2>/dev/null || true' EXIT
	slowwait 10 curl -sf -o /dev/null "http://127.0.0.1:$port/metrics" ||
		fail "export did not serve: $(cat "$TMPD/export.out")"
	grep -q "serving 0.0.0.0:$port to every host that reaches it (--public)" "$TMPD/export.out" ||
		fail "no warning: $(cat "$TMPD/export.out")"
	for i in 3 4 5 6 7 8 9 10; do
		eval "exec $i<>/dev/tcp/127.0.0.1/$port"
	done
	code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$port/metrics" || true)
	assert_eq "a 9th connection from 127.0.0.1: HTTP status" "$code" 000
	for i in 3 4 5 6 7 8 9 10; do
		eval "exec $i<&-"
	done
	slowwait 5 curl -sf -o /dev/null "http://127.0.0.1:$port/metrics" ||
		fail "not served again once the 8 were closed"
	kill "$export_pid"
	wait "$export_pid" || fail "export did not stop cleanly on SIGTERM"
}

# The live feed: one process's step marks 20 ms apart, through 'mark
# serve', reach /metrics as step times (steps are per process).
send_marks() {
	"$PY" - "$1" <<'PYEOF'
import socket, struct, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
for step in range(1, 6):
    s.sendto(struct.pack('<IHHQQ', 0x4d504d4b, 1, 0, step, 0), sys.argv[1])
    time.sleep(0.02)
PYEOF
}

# live_steps PORT: /metrics parses and holds the 4 steps of send_marks.
live_steps() {
	curl -sf "http://127.0.0.1:$1/metrics" >"$TMPD/live" &&
		check_metrics "$TMPD/live" >"$TMPD/live.samples" &&
		awk '/^mplane_step_seconds_count\{/ { exit !($2 >= 4) }' "$TMPD/live.samples"
}

test_export_live() {
	local port
	"$MPLANECTL" mark step 0 >/dev/null 2>&1 || skip "no step marks here"
	"$MPLANECTL" mark serve --socket "$TMPD/mark.sock" 2>"$TMPD/serve.err" &
	serve_pid=$!
	slowwait 5 test -S "$TMPD/mark.sock" || fail "mark serve: $(cat "$TMPD/serve.err")"
	port=$(free_port)
	start_export "$port"
	trap 'kill $export_pid $serve_pid 2>/dev/null || true' EXIT
	send_marks "$TMPD/mark.sock"
	slowwait 10 live_steps "$port" || fail "no steps on /metrics: $(grep step_seconds_count "$TMPD/live.samples")"
	# 20 ms apart, and generous for a loaded machine: all above 10 ms.
	awk '/^mplane_step_seconds_bucket\{le=0.01,/ { exit $2 != 0 }' "$TMPD/live.samples" ||
		fail "steps shorter than 10 ms: $(grep step_seconds "$TMPD/live.samples")"
	stop_export
	kill "$serve_pid"
}

# A service starts before the programs that pin its rings: the exporter
# serves without one, reads a ring pinned after it started, and goes on
# serving when the pin goes away.
test_export_picks_up_rings() {
	local port dir=/sys/fs/bpf/mplane/tv-later-$$ label
	label=${dir#/sys/fs/bpf/mplane/}
	port=$(free_port)
	start_export "$port"
	curl -sf -o "$TMPD/before" "http://127.0.0.1:$port/metrics" || fail "curl"
	! grep -q "source=\"$label\"" "$TMPD/before" || fail "the ring is there before it is"
	mkdir -p "$dir"
	trap 'kill $export_pid 2>/dev/null || true; rm -rf "'"$dir"'"' EXIT
	# As events.bpf.h makes them: the ring, and the readers' slots (an
	# array of rings: the exporter reads only a ring of its own).
	bpftool map create "$dir/mp_events" type ringbuf key 0 value 0 \
		entries 4096 name mp_events || fail "cannot pin a ring"
	bpftool map create "$dir/mp_event_readers" type array_of_maps key 4 value 4 \
		entries 4 name mp_event_readers inner_map pinned "$dir/mp_events" ||
		fail "cannot pin the readers' slots"
	slowwait 10 sh -c "curl -sf http://127.0.0.1:$port/metrics |
		grep -q '^mplane_events_dropped_total{node=\"$label\",source=\"$label\"} 0'" ||
		fail "the ring pinned later is not read: $(cat "$TMPD/export.out")"
	grep -q "reading 1 more ring" "$TMPD/export.out" ||
		fail "no word of the new ring: $(cat "$TMPD/export.out")"
	rm -rf "$dir"
	sleep 1.5
	curl -sf -o "$TMPD/after" "http://127.0.0.1:$port/metrics" ||
		fail "no /metrics once the pin went: $(cat "$TMPD/export.out")"
	check_metrics "$TMPD/after" >/dev/null || fail "/metrics does not parse"
	grep -q '^mplane_build_info{' "$TMPD/after" || fail "no build info"
	stop_export
}

# The pollers' counters on /metrics, raw: a link's statistics and its
# ethtool -S, as ip and ethtool read them once the traffic stopped.
test_export_polled_counters() {
	local port m=$TMPD/polled pa pb want got before after
	setup_ns pa pb
	ip -n "$pa" link add va type veth peer name vb netns "$pb"
	ip -n "$pa" addr add 10.77.0.1/24 dev va
	ip -n "$pb" addr add 10.77.0.2/24 dev vb
	ip -n "$pa" link set va up
	ip -n "$pb" link set vb up
	port=$(free_port)
	ip netns exec "$pa" "$MPLANECTL" telemetry export --listen "127.0.0.1:$port" \
		--poll-hz 20 --ethtool >"$TMPD/export.out" 2>&1 &
	export_pid=$!
	trap 'kill $export_pid 2>/dev/null || true' EXIT
	# The pings once the pollers run, so that they see the packets go
	# (a gap is the time between two increases).
	slowwait 10 ip netns exec "$pa" curl -sf -o /dev/null "http://127.0.0.1:$port/metrics" ||
		fail "export did not serve: $(cat "$TMPD/export.out")"
	ip netns exec "$pa" ping -c 5 -i 0.05 -q 10.77.0.2 >/dev/null || fail "no ping"
	# The link is not quite quiet (neighbour discovery, and under TCG a
	# scrape takes seconds): the exported value must catch up with ip's,
	# one ip read between the two reads around the scrape.
	polled_tx() {
		before=$(ip -n "$pa" -s -j link show va | jq '.[0].stats64.tx.packets')
		ip netns exec "$pa" curl -sf -o "$m" "http://127.0.0.1:$port/metrics" &&
			check_metrics "$m" >"$TMPD/polled.samples" || return 1
		after=$(ip -n "$pa" -s -j link show va | jq '.[0].stats64.tx.packets')
		got=$(s "mplane_netdev_stat_total{dev=va,node=$(uname -n),stat=tx_packets}")
		[[ $got =~ ^[0-9]+\.0$ ]] && [ "${got%.0}" -ge "$before" ] &&
			[ "${got%.0}" -le "$after" ]
	}
	s() { grep -F "$1 " "$TMPD/polled.samples" | awk '{ print $2 }'; }
	slowwait 10 polled_tx ||
		fail "va tx_packets: got '$got', want from $before to $after ($(cat "$TMPD/export.out"))"
	assert_ge "pings sent" "$after" 5
	want=$(ip netns exec "$pa" ethtool -S va | awk '$1 == "peer_ifindex:" { print $2 }')
	got=$(s "mplane_ethtool_stat{dev=va,node=$(uname -n),stat=peer_ifindex}")
	assert_eq "va's ethtool peer_ifindex" "$got" "$want.0"
	# One scheme: the gaps of va's packets are under the labels of its
	# counter, and the pollers' events under this host's node.
	assert_ge "va tx_packets gaps" \
		"$(s "mplane_delivery_gap_seconds_count{dev=va,node=$(uname -n),stat=tx_packets}" | cut -d. -f1)" 1
	assert_ge "the pollers' counter events" \
		"$(s "mplane_events_total{node=$(uname -n),source=poll,type=counter}" | cut -d. -f1)" 1
	check_promtool "$m"
	kill "$export_pid"
}

# The Grafana dashboard queries only what the exporter serves: every
# mplane_* name in its expressions is a family of some exposition (a
# capture's, the CC capture's, and a live one, which has every family
# that needs no data), or one's _bucket.
test_grafana_dashboard() {
	local port names used missing=()
	gen_capture "$CAP"
	gen_cc_capture "$TMPD/cc.cap"
	: >"$TMPD/families"
	for from in "$CAP" "$TMPD/cc.cap" ""; do
		port=$(free_port)
		start_export "$port" ${from:+--from "$from"}
		curl -sf "http://127.0.0.1:$port/metrics" | awk '$2 == "TYPE" { print $3 }' >>"$TMPD/families"
		stop_export
	done
	names=" $(sort -u "$TMPD/families" | xargs) "
	used=$(jq -r '.. | .expr? // empty' "$MPLANE_ROOT/tools/grafana/mplane.json" |
		grep -o 'mplane_[a-z_]*' | sed 's/_bucket$//' | sort -u)
	[ -n "$used" ] || fail "no expressions in the dashboard"
	for n in $used; do
		[[ $names == *" $n "* ]] || missing+=("$n")
	done
	assert_eq "metrics the exporter does not serve" "${missing[*]}" ""
	assert_ge "metrics the dashboard shows" "$(wc -w <<<"$used")" 12
}

# Each QP's latest rate in 'telemetry top', from a capture's events.
test_top_qps() {
	local cap=$TMPD/cc.cap j=$TMPD/cc-top.json t=$TMPD/cc-top.txt
	gen_cc_capture "$cap"
	"$MPLANECTL" -j telemetry top --from "$cap" >"$j" || fail "top --from"
	jq_eq "QPs, slowest first" '[.qps[] | [.name, .rate_kbps, .old_kbps, .cause, .cuts, .updates]]' \
		'[["mp0/qp9",500000,1000000,"cut",1,1],["tv-h1:mp0/qp17",1100000,1000000,"additive",0,1],["mp0/qp17",3750000,2500000,"fast_recovery",2,3]]' "$j"
	# Ages to the capture's last event (the 40 ms samples), in ms.
	jq_eq "labels and ages" '[.qps[] | [.node, .dev, .qpn, .cut_plane, (.age_s * 1000 | round)]]' \
		'[["kmod","mp0",9,0,25],["tv-h1","mp0",17,null,15],["kmod","mp0",17,1,10]]' "$j"
	jq_eq "counts" '[.qps_total, .qps_evicted]' '[3,0]' "$j"
	"$MPLANECTL" telemetry top --from "$cap" >"$t" || fail "top --from, text"
	grep -Eq '^QP +RATE +OLD +CAUSE +CUTS +UPDATES +AGE$' "$t" || fail "no QP header: $(cat "$t")"
	grep -Eq '^mp0/qp17 +3\.75 Gbit/s +2\.50 Gbit/s +fast_recovery +2 +3 +0\.010s$' "$t" ||
		fail "QP 17's row: $(grep qp17 "$t")"
	grep -Eq '^tv-h1:mp0/qp17 +1\.10 Gbit/s' "$t" || fail "tv-h1's QP: $(grep qp17 "$t")"
}

# CC's counters in /metrics: per plane (events, the sampler and the
# ethtool poller) and per QP; parsed, and checked by promtool when the
# machine has it (Debian's prometheus).
test_export_cc() {
	local cap=$TMPD/cc.cap port m=$TMPD/cc.metrics
	gen_cc_capture "$cap"
	port=$(free_port)
	start_export "$port" --from "$cap"
	curl -sf -o "$m" "http://127.0.0.1:$port/metrics" || fail "curl"
	stop_export
	check_metrics "$m" >"$TMPD/cc.samples" || fail "/metrics does not parse"
	s() { grep -F "$1 " "$TMPD/cc.samples" | awk '{ print $2 }'; }
	assert_eq "plane1 CNPs received" "$(s 'mplane_plane_cnp_received_total{dev=mp0,node=kmod,plane=1}')" 3.0
	assert_eq "plane1 cut events" "$(s 'mplane_plane_rate_cut_events_total{dev=mp0,node=kmod,plane=1}')" 2.0
	assert_eq "plane0 cut events" "$(s 'mplane_plane_rate_cut_events_total{dev=mp0,node=kmod,plane=0}')" 1.0
	assert_eq "plane1 CNPs sent" "$(s 'mplane_plane_cnp_sent_total{dev=mp0,node=kmod,plane=1}')" 4.0
	assert_eq "plane1 cuts" "$(s 'mplane_plane_rate_cuts_total{dev=mp0,node=kmod,plane=1}')" 2.0
	# 3.75 and 1.1 Gbit/s, in bytes as Prometheus's base unit wants.
	assert_eq "QP 17 rate" "$(s 'mplane_qp_rate_bytes_per_second{dev=mp0,node=kmod,qpn=17}')" 468750000.0
	assert_eq "tv-h1 QP 17 rate" "$(s 'mplane_qp_rate_bytes_per_second{dev=mp0,node=tv-h1,qpn=17}')" 137500000.0
	assert_eq "QP 17 cuts" "$(s 'mplane_qp_rate_cuts_total{dev=mp0,node=kmod,qpn=17}')" 2.0
	assert_eq "QP 9 cause" "$(s 'mplane_qp_rate_cause{dev=mp0,node=kmod,qpn=9}')" 0.0
	assert_eq "QP 17 updates" "$(s 'mplane_qp_rate_updates_total{dev=mp0,node=kmod,qpn=17}')" 3.0
	assert_eq "QPs" "$(s 'mplane_qps{}')" 3.0
	assert_eq "evicted" "$(s 'mplane_qps_evicted_total{}')" 0.0
	# tx_bytes of ethtool is no CC counter; nothing twice.
	assert_eq "CC series" "$(grep -c '^mplane_plane_\(cnp_sent\|rate_cuts\)_total' "$m")" 2
	assert_eq "duplicate series" "$(awk '{ print $1 }' "$TMPD/cc.samples" | sort | uniq -d)" ""
	check_promtool "$m"
}

# The Fabric Symmetry Dashboard of the capture (report --html), in
# headless Chromium: no console message, nothing fetched; mp0's and l0's
# groups with report --json's symmetry index, the uneven member red; the
# timeline's marks at the plane's state change; its 2001 queue samples'
# deepest per bin, 9000; 21 step marks and their 20 steps of 10 ms; the
# anomalies in order.
test_report_html() {
	local h=$TMPD/report.html
	gen_capture "$CAP"
	"$MPLANECTL" telemetry report --html "$h" "$CAP" >/dev/null || fail "report --html"
	browse_checks_console
	browse "$h"
	assert_eq "console messages" "$(cat "$TMPD/console")" ""
	assert_eq "addresses a browser would fetch" "$(grep -Eo '(src|href)=|https?://' "$h")" ""
	assert_eq "groups" "$(grep -o 'class="group" data-group="[^"]*" data-max-mean="[^"]*"' "$TMPD/dom.html" |
		sed 's/.*data-group="\([^"]*\)" data-max-mean="\([^"]*\)"/\1=\2/' | xargs)" \
		"mp0=1.500 l0/s*=1.333"
	assert_eq "slow members" "$(grep -o '<rect class="slow"' "$TMPD/dom.html" | wc -l)" 2
	grep -q '<td>mp0/plane1 plane_state 1</td>' "$TMPD/dom.html" ||
		fail "no mark of plane1's state: $(grep -o '<table class="marks">.*' "$TMPD/dom.html" | head -c 300)"
	grep -q '<text x="0" y="12">queue, bytes (max 9000)</text>' "$TMPD/dom.html" ||
		fail "the queue row: $(grep -o 'queue, bytes[^<]*' "$TMPD/dom.html" | head -3)"
	grep -q 'steps ended (max 1)' "$TMPD/dom.html" || fail "no step marks"
	grep -q '<p class="steps" data-count="20">20 steps: p50 10.0' "$TMPD/dom.html" ||
		fail "step times: $(grep -o '<p class="steps".*' "$TMPD/dom.html")"
	assert_eq "anomalies" "$(grep -o '<tr><td class="n">[0-9.]*</td><td>[a-z_]*</td>' "$TMPD/dom.html" |
		sed 's/.*>\([0-9.]*\)<.*<td>\([a-z_]*\)<.*/\1:\2/' | xargs)" \
		"100.050:plane_down 100.060:failover"
}

# shellcheck disable=SC2086 # TESTS is a list of names
ktap_run ${TESTS:-test_report_json test_report_text test_report_html test_hist test_export_from_file \
	test_netns_names test_export_errors test_export_public_and_limits test_export_live \
	test_export_picks_up_rings test_export_polled_counters test_grafana_dashboard test_top_qps \
	test_export_cc}

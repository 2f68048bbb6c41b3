# SPDX-License-Identifier: GPL-2.0
#
# The report of bench/plb.sh, from its results file: for each path, the
# median and worst run of packets per second and of CPU per packet, each
# against bonding's, and the median and worst of the rounds' own ratios
# (each round's path against that round's bonding: the drift of a TCG
# guest's speed cancels out there); then the failover rows.
#   jq -r -f plb_report.jq plb.json

def med: sort | .[(length - 1) / 2 | floor];
def pad(n): tostring | . + " " * ([n - length, 0] | max);
def r2: . * 100 | floor / 100;

.kernel as $kernel |
[.results[] | select(.kind == "pps")] as $pps |
($pps | map(select(.name == "bond balance-rr")) | map({key: (.round | tostring), value: .}) |
 from_entries) as $bond |
($pps | group_by(.name) |
 map({key: .[0].name,
      value: {pps: (map(.recv_pps) | med), worst: (map(.recv_pps) | min),
              cpu: (map(.cpu_us_per_pkt) | med), cpu_worst: (map(.cpu_us_per_pkt) | max),
              ratio: (map(.recv_pps / $bond[.round | tostring].recv_pps) | med),
              ratio_worst: (map(.recv_pps / $bond[.round | tostring].recv_pps) | min),
              cpu_ratio: (map(.cpu_us_per_pkt / $bond[.round | tostring].cpu_us_per_pkt) | med),
              cpu_ratio_worst: (map(.cpu_us_per_pkt / $bond[.round | tostring].cpu_us_per_pkt) | max),
              runs: length, split: (map(.split) | .[0:3] | join(" "))}}) |
 from_entries) as $r |
"\nThroughput, 64-byte UDP, 8 flows (\($kernel), TCG), \($r["bond balance-rr"].runs) rounds, paths in turn.",
"pps and CPU us/pkt: median (worst) run.  Of bond: median (worst) of each round's path/bond.",
"  \("path" | pad(16)) \("pps" | pad(15)) \("of bond" | pad(13)) \("CPU us/pkt" | pad(14)) \("of bond" | pad(13)) packets on a0/a1, first runs",
(["bare veth", "bond balance-rr", "mp0 rr", "mp0 hash", "mp0 spray", "mp0 flowlet"][] as $n |
 $r[$n] | select(. != null) |
 "  \($n | pad(16)) \("\(.pps | floor) (\(.worst | floor))" | pad(15)) \("\(.ratio | r2) (\(.ratio_worst | r2))" | pad(13)) \("\(.cpu * 10 | floor / 10) (\(.cpu_worst * 10 | floor / 10))" | pad(14)) \("\(.cpu_ratio | r2) (\(.cpu_ratio_worst | r2))" | pad(13)) \(.split)"),
"\nFailover under a 20 kpps stream (far end of one link down):",
(.results[] | select(.kind == "failover") |
 "  \(.name | pad(30)) lost \(.lost) (\(.socket_drops // 0) of them by the receiver's full socket)  longest gap \(.max_gap_us // 0 | floor) us (beyond the sender: \(.max_excess_gap_us // 0 | floor) us); within 5 ms of the failure \(if .max_gap_near_fault_us then "\(.max_gap_near_fault_us | floor) us (the path: \(.max_excess_gap_near_fault_us | floor) us)" else "-" end)")

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-check.sh, the second boot of selftests/deb/boot.sh: run by the
# machine's systemd (mplane-boot-check.service, after the mplane units),
# it checks what the packages and the configuration made of the boot,
# writes the results where the VM runner looks for them, and ends the VM.
#
# shellcheck disable=SC2154
results=/mnt/results
exec >"$results/out" 2>&1
# What the host told the VM runner (MPLANE_TEST_PROMTOOL among it).
# shellcheck disable=SC1091
. "$results/env"
source "$(dirname "$0")/../lib/lib.sh"

release=$(uname -r)
version=$(<"$MPLANE_ROOT/VERSION")
metrics=http://127.0.0.1:9464/metrics

test_booted_by_systemd() {
	assert_eq "PID 1" "$(</proc/1/comm)" systemd
	log "uptime $(cut -d' ' -f1 /proc/uptime) s; failed units: $(systemctl --failed --no-legend --plain | awk '{print $1}' | xargs)"
	! systemctl --failed --no-legend --plain | grep -q mplane ||
		fail "an mplane unit failed"
}

test_module_from_dkms() {
	local ko
	[ -d /sys/module/mplane ] || fail "mplane.ko is not loaded"
	ko=$(modinfo -n mplane)
	[[ $ko == "/lib/modules/$release/updates/dkms/mplane.ko"* ]] ||
		fail "mplane resolves to $ko, not DKMS's"
	assert_eq "loaded module's srcversion" "$(</sys/module/mplane/srcversion)" \
		"$(modinfo -F srcversion mplane)"
	assert_eq "version" "$(</sys/module/mplane/version)" "$version"
}

test_mp0_from_config() {
	local info
	assert_eq "mplane-link@mp0" "$(systemctl is-active mplane-link@mp0.service)" active
	info=$(ip -d -j link show mp0) || fail "no mp0"
	log "$(ip -d link show mp0 | tail -n +2 | head -n 3 | xargs)"
	assert_eq "kind" "$(jq -r '.[0].linkinfo.info_kind' <<<"$info")" mplane
	assert_eq "policy" "$(jq -r '.[0].linkinfo.info_data.policy' <<<"$info")" flowlet
	assert_eq "flowlet gap" "$(jq -r '.[0].linkinfo.info_data.flowlet_gap_us' <<<"$info")" 50
	assert_eq "up" "$(jq -r '.[0].flags | index("UP") != null' <<<"$info")" true
	assert_eq "rails" "$(ip -j link show master mp0 | jq -r '[.[].ifname] | sort | join(" ")')" \
		"rail0 rail1"
}

test_metrics_pass_promtool() {
	local page i
	assert_eq "mplane-exporter" "$(systemctl is-active mplane-exporter.service)" active
	for ((i = 0; i < 100; i++)); do
		page=$(curl -sf "$metrics") && break
		sleep 0.2
	done
	[ -n "$page" ] || fail "nothing at $metrics"
	log "$(wc -l <<<"$page") lines at $metrics"
	[ -x "${MPLANE_TEST_PROMTOOL:-}" ] || fail "no promtool from the host"
	"$MPLANE_TEST_PROMTOOL" check metrics <<<"$page" 2>&1 | sed 's/^/# promtool: /'
	"$MPLANE_TEST_PROMTOOL" check metrics <<<"$page" >/dev/null 2>&1 ||
		fail "promtool rejects $metrics"
	grep -q "^mplane_build_info{.*version=\"$version\"" <<<"$page" ||
		fail "no mplane_build_info with version $version"
	grep -q "^mplane_build_info{.*kernel=\"$release\"" <<<"$page" ||
		fail "mplane_build_info does not name kernel $release"
}

# has_series PAGE METRIC LABEL...: PAGE has a METRIC series with every
# LABEL (name="value"), in whatever order the exporter puts them.
has_series() {
	local page=$1 metric=$2 label
	shift 2
	page=$(grep "^$metric{" <<<"$page")
	for label in "$@"; do
		page=$(grep -F "$label" <<<"$page")
	done
	[ -n "$page" ]
}

# The unit's default arguments poll mp0 and its rails once a second:
# link statistics, ethtool -S (mp0's per-plane CNPs sent among them) and
# RDMA counters, all of which promtool still accepts.
test_metrics_poll_mp0() {
	local page node end=$((SECONDS + 10))
	node=$(uname -n)
	until page=$(curl -sf "$metrics") &&
		has_series "$page" mplane_netdev_stat_total "node=\"$node\"" \
			'dev="mp0"' 'stat="tx_packets"'; do
		[ "$SECONDS" -lt "$end" ] || break
		sleep 0.5
	done
	has_series "$page" mplane_netdev_stat_total 'dev="mp0"' 'stat="tx_packets"' ||
		fail "no polled link statistics of mp0 in 10 s"
	log "$(grep -c '^mplane_\(netdev_stat_total\|ethtool_stat\){' <<<"$page") polled series"
	has_series "$page" mplane_ethtool_stat 'dev="rail1"' 'stat="peer_ifindex"' ||
		fail "no ethtool -S of rail1"
	grep "^mplane_plane_cnp_sent_total{" <<<"$page" | grep -F 'dev="mp0"' |
		grep -F 'plane="1"' | grep -q ' 0$' ||
		fail "no mplane_plane_cnp_sent_total 0 for mp0's plane 1"
	"$MPLANE_TEST_PROMTOOL" check metrics <<<"$page" >/dev/null 2>&1 ||
		fail "promtool rejects the polled page"
}

test_stop_removes_mp0() {
	systemctl stop mplane-link@mp0.service
	! ip link show mp0 >/dev/null 2>&1 || fail "mp0 is still there after stop"
}

ktap_run test_booted_by_systemd test_module_from_dkms test_mp0_from_config \
	test_metrics_pass_promtool test_metrics_poll_mp0 test_stop_removes_mp0
rc=$?
journalctl -b --no-pager >"$results/journal" 2>&1
dmesg >"$results/dmesg"
echo "$rc" >"$results/rc"
sync
echo b >/proc/sysrq-trigger

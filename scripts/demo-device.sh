#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo-device.sh: mp0 over two veth rails, shown with the kernel's own tools.
# `make demo-device` runs it as root in a VM booted on a Debian kernel (this
# host's kernel cannot load modules); it runs as well on any host that can
# insmod, with MPLANE_KO pointing at mplane.ko.
set -euo pipefail
ROOT=${MPLANE_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
KO=${MPLANE_KO:?set MPLANE_KO to the mplane.ko built for this kernel}
MPLANECTL=${MPLANE_BUILD:-$ROOT/.build}/mplanectl

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
show() { printf '$ %s\n' "$*"; "$@"; }

step "load mplane.ko on $(uname -r)"
show insmod "$KO"
show modinfo -F description "$KO"

step "two rails (veth pairs): one per plane"
ip link add rail0 type veth peer name peer0
ip link add rail1 type veth peer name peer1
show ip -br link show type veth

step "create mp0 and enslave the rails"
show ip link add mp0 type mplane
show ip link set rail0 master mp0
show ip link set rail1 master mp0
show ip link set mp0 up
ip link set rail0 up; ip link set rail1 up
ip link set peer0 up; ip link set peer1 up

step "mp0 in detail: an L3 multi-plane device (no ARP, no MAC)"
show ip -d link show mp0
step "each rail is a plane of mp0"
show ip -d link show rail0

if [ -x "$MPLANECTL" ] && "$MPLANECTL" link --help >/dev/null 2>&1; then
	step "planes and their state, as mplanectl reads them over netlink"
	show "$MPLANECTL" link show mp0
	step "rail1's peer goes down: the plane follows at once (no polling)"
	show ip link set peer1 down
	show "$MPLANECTL" link show mp0
	ip link set peer1 up
fi

step "enslavements that make no sense are refused, with a reason"
show ip link set lo master mp0 || true
ip link add mp1 type mplane
show ip link set mp1 master mp0 || true
ip tuntap add dev tun0 mode tun
show ip link set tun0 master mp0 || true
ip link del tun0
ip link del mp1

step "counters"
show ip -s link show mp0

step "tear down: deleting mp0 releases its rails; rmmod cleans up the rest"
show ip link del mp0
show ip -br link show rail0
show rmmod mplane
echo
echo "Demo done: mp0 carried two planes; see Documentation/design.md for what comes next."

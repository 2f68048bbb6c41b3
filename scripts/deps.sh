#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh [--quiet] [--list]: install from Debian whatever mplane needs to
# build, test and demo.  Idempotent and quick when nothing is missing, so
# every make entry point calls it.
set -euo pipefail

PACKAGES=(
	# build
	build-essential pkg-config clang llvm bpftool libbpf-dev libmnl-dev
	libjson-c-dev libmicrohttpd-dev libcmocka-dev perl bc
	# test VM and the kernels of the matrix (see scripts/kernels.sh)
	qemu-system-x86 busybox-static cpio xz-utils kmod
	linux-image-amd64 linux-headers-amd64
	linux-image-6.12.117+deb12-amd64 linux-headers-6.12.117+deb12-amd64
	# network tools and real clients
	iproute2 ethtool iputils-ping iperf3 sockperf jq procps
	# loadable sleep/mktemp/rm for the test helpers (selftests/lib/lib.sh)
	bash-builtins
	# telemetry export's tests: a real client and a real Prometheus parser
	curl python3-prometheus-client
)

quiet=
case "${1:-}" in
--quiet) quiet=1 ;;
--list) printf '%s\n' "${PACKAGES[@]}"; exit 0 ;;
"") ;;
*) echo "usage: deps.sh [--quiet|--list]" >&2; exit 2 ;;
esac

missing=()
for p in "${PACKAGES[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$status" = installed ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	[ -n "$quiet" ] || echo "deps: everything is installed"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing ${missing[*]}; run as root to install them" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# The test VM boots with its own busybox initramfs, so the kernels' Debian
# initramfs images would only cost minutes to build: INITRD=No skips them.
export INITRD=No
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "deps: done"

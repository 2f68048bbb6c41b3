#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh [--quiet] [--list] [--dry-run] [SET...]: install from Debian what
# one part of mplane needs.  Idempotent and quick when nothing is missing,
# so every make entry point calls it for the sets it needs.
#
# Sets (default: all of them):
#   build      compilers and libraries for mplanectl, the BPF programs and
#              the module (make tools, make kmod, make install).  Kernel
#              headers are not in it: scripts/kernels.sh asks for those of
#              the kernel being built for, by name.
#   buildroot  debootstrap, for the build root of kernels newer than this
#              machine's compiler (scripts/buildroot.sh)
#   test       the test VM, the network tools and the real clients
#              (make check, make bench)
#   demo       what make demo runs beyond the build set
#   torch      a real framework's collectives: python3-torch and its gloo
#              backend (selftests/bpf/torch.sh, bench/torch.sh)
#   package    DKMS, Debian's packaging tools and lintian, bash-completion
#              (make dkms, make deb, selftests/install)
#
# No set holds a kernel image: the VM's kernels are downloaded and
# unpacked under .build/kernels (scripts/kernels.sh), so that no make
# target ever changes what this machine boots.
#
# --list prints the packages of the sets; --dry-run prints what would be
# installed, installing nothing.
set -euo pipefail

# libclang-rt-dev: libFuzzer and the sanitizers' runtimes for clang, which
# 'make fuzz' links (clang only recommends it).
# shellcheck disable=SC2034
BUILD_SET=(build-essential pkg-config clang llvm libclang-rt-dev bpftool
	libbpf-dev libxdp-dev libmnl-dev libjson-c-dev libmicrohttpd-dev libcmocka-dev
	perl bc)
# shellcheck disable=SC2034
BUILDROOT_SET=(debootstrap)
# The VM (qemu, a static busybox for its initramfs, the compressors of
# Debian's module files, kmod for their dependencies), network tools and
# real clients, and bash-builtins' loadable sleep/mktemp/rm for the test
# helpers (selftests/lib/lib.sh).  curl and python3-prometheus-client are
# the telemetry exporter's real client and parser.  xdp-tools'
# xdp-loader is another tool on the XDP hook that hostacct shares through
# libxdp's dispatcher (selftests/bpf/hostacct.sh).  rdma-core,
# ibverbs-providers (librxe), ibverbs-utils (ibv_rc_pingpong) and perftest
# (ib_write_bw, ib_send_lat) run RoCE over mp0 on Soft-RoCE
# (selftests/kmod/rxe.sh); bpftrace reads a hung test's rxe QPs in the
# kernel (selftests/lib/rxe_qp.bt).  chromium, headless, loads the HTML
# reports as a person's browser would (selftests/bpf/accept.sh): 15
# packages on top of the rest here.
# shellcheck disable=SC2034
TEST_SET=(qemu-system-x86 busybox-static cpio xz-utils zstd kmod
	iproute2 ethtool iputils-ping iperf3 sockperf jq procps bash-builtins
	curl python3-prometheus-client xdp-tools
	rdma-core ibverbs-providers ibverbs-utils perftest bpftrace chromium)
# About 170 packages, 146 MB to download and 600 MB installed: its own
# set, so that building and the demo never pay for it.
# shellcheck disable=SC2034
TORCH_SET=(python3-torch)
# promtool is not in a set: its package, prometheus, would start a
# Prometheus server on install; selftests/install/promtool.sh unpacks it
# instead.
# shellcheck disable=SC2034
PACKAGE_SET=(dkms dh-dkms debhelper lintian fakeroot bash-completion)
# shellcheck disable=SC2034
DEMO_SET=(qemu-system-x86 busybox-static cpio xz-utils zstd kmod
	iproute2 ethtool iputils-ping jq procps bash-builtins)

quiet= list= dry=
sets=()
usage() { sed -n '4,28s/^# \{0,1\}//p' "$0"; exit "${1:-2}"; }
while [ $# -gt 0 ]; do
	case "$1" in
	--quiet) quiet=1 ;;
	--list) list=1 ;;
	--dry-run) dry=1 ;;
	-h|--help) usage 0 ;;
	build|buildroot|test|demo|torch|package) sets+=("$1") ;;
	*) echo "deps.sh: unknown set or option '$1'" >&2; usage ;;
	esac
	shift
done
[ ${#sets[@]} -gt 0 ] || sets=(build buildroot test demo torch package)

packages=()
for s in "${sets[@]}"; do
	declare -n set_ref="${s^^}_SET"
	packages+=("${set_ref[@]}")
	unset -n set_ref
done
mapfile -t packages < <(printf '%s\n' "${packages[@]}" | awk '!seen[$0]++')

if [ -n "$list" ]; then
	printf '%s\n' "${packages[@]}"
	exit 0
fi

missing=()
for p in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$status" = installed ] || missing+=("$p")
done

if [ -n "$dry" ]; then
	[ ${#missing[@]} -eq 0 ] && exit 0
	# What apt would install, dependencies included, without doing it.
	apt-get -s -qq install --no-install-recommends "${missing[@]}" |
		awk '$1 == "Inst" { print $2 }'
	exit 0
fi

if [ ${#missing[@]} -eq 0 ]; then
	[ -n "$quiet" ] || echo "deps: everything is installed (${sets[*]})"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing ${missing[*]}; run as root to install them" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "deps: done"

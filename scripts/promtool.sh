#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# promtool.sh: the path of Prometheus's promtool, which checks that
# /metrics is what a Prometheus server takes (selftests).  Debian ships
# it in the prometheus package, whose install would start a Prometheus
# server on this machine; the package is downloaded and unpacked under
# .build/promtool instead, once.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${MPLANE_BUILD:-$ROOT/.build}
dir=$BUILD/promtool
tool=$dir/root/usr/bin/promtool

if [ ! -x "$tool" ]; then
	rm -rf "$dir" && mkdir -p "$dir"
	# _apt cannot write into .build: the download runs as root, said once.
	(cd "$dir" && apt-get download -qq prometheus >/dev/null 2>&1) ||
		{ echo "promtool.sh: cannot download Debian's prometheus package" >&2; exit 1; }
	dpkg-deb -x "$dir"/prometheus_*.deb "$dir/root"
	rm -f "$dir"/prometheus_*.deb
fi
"$tool" --version >/dev/null 2>&1 || { echo "promtool.sh: $tool does not run" >&2; exit 1; }
echo "$tool"

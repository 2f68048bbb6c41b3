#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# all.sh: every kmod test script, one after another, in one boot.  Run
# inside the VM by selftests/run (or natively by selftests/vm/native);
# MPLANE_KO names the module built for the running kernel.
#
# The quick profile (the debug kernel) runs the datapath's scripts whole
# (device, netlink, lifecycle, datapath, failover) at the rates a KASAN
# guest under TCG can send, and a share of the telemetry's (sampler and
# telemetry) and of the BPF fabric's (bpf): their QUICK_TESTS.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rc=0
if [ "${MPLANE_TEST_PROFILE:-full}" = quick ]; then
	scripts="device netlink lifecycle datapath failover sampler telemetry bpf"
else
	scripts=$(cd "$here" && ls ./*.sh | sed 's|^\./||; s|\.sh$||' | grep -vx all)
fi
for t in $scripts; do
	echo "# $t.sh on $(uname -r)"
	start=$SECONDS
	bash "$here/$t.sh" || rc=1
	echo "# $t.sh took $((SECONDS - start)) s"
done
# Leave the kernel as we found it, so that leaks show in kmemleak.
rmmod mplane 2>/dev/null
exit $rc

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# all.sh: every kmod test script, one after another, in one boot.  Run
# inside the VM by selftests/run (or natively by selftests/vm/native);
# MPLANE_KO names the module built for the running kernel.
#
# The quick profile (the debug kernel) runs lifecycle (traffic, deletion
# and rmmod under load, 200 enslave cycles) and a share of device,
# datapath, failover, sampler and telemetry (their QUICK_TESTS): the
# module's paths under KASAN, lockdep and kmemleak, at the rates a KASAN
# guest under TCG can send.  netlink.sh's policies and extack texts run
# on the release kernels.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rc=0
if [ "${MPLANE_TEST_PROFILE:-full}" = quick ]; then
	scripts="device lifecycle datapath failover sampler telemetry"
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

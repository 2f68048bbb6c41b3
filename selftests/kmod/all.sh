#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# all.sh: every kmod test script, one after another, in one boot.  Run
# inside the VM by selftests/run (or natively by selftests/vm/native);
# MPLANE_KO names the module built for the running kernel.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rc=0
for t in "$here"/*.sh; do
	[ "$(basename "$t")" = all.sh ] && continue
	echo "# $(basename "$t") on $(uname -r)"
	bash "$t" || rc=1
done
# Leave the kernel as we found it, so that leaks show in kmemleak.
rmmod mplane 2>/dev/null
exit $rc

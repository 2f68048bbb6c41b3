#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# all.sh [--part N | --parts]: every kmod test script, one after another,
# in one boot.  Run inside the VM by selftests/run (or natively by
# selftests/vm/native); MPLANE_KO names the module built for the running
# kernel.
#
# The quick profile (the debug kernel) runs the datapath's scripts whole
# (device, netlink, lifecycle, datapath, failover) at the rates a KASAN
# guest under TCG can send, and a share of the telemetry's (sampler and
# telemetry) and of the BPF fabric's (bpf): their QUICK_TESTS.
#
# Its scripts come in two parts of about the same length (9-10 minutes
# each under TCG), which selftests/run boots side by side: --part N runs
# part N, --parts prints how many there are (1 in the full profile).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ "${MPLANE_TEST_PROFILE:-full}" = quick ]; then
	parts=("netlink lifecycle sampler telemetry bpf" "device datapath failover")
else
	parts=("$(cd "$here" && ls ./*.sh | sed 's|^\./||; s|\.sh$||' | grep -vx all | xargs)")
fi
case "${1:-}" in
--parts)
	echo ${#parts[@]}
	exit 0 ;;
--part)
	[[ ${2:-} =~ ^[0-9]+$ ]] && [ "$2" -ge 1 ] && [ "$2" -le ${#parts[@]} ] ||
		{ echo "all.sh: --part 1..${#parts[@]}" >&2; exit 2; }
	scripts=${parts[$2 - 1]} ;;
"")
	scripts="${parts[*]}" ;;
*)
	echo "usage: all.sh [--part N | --parts]" >&2
	exit 2 ;;
esac

rc=0
for t in $scripts; do
	echo "# $t.sh on $(uname -r)"
	start=$SECONDS
	bash "$here/$t.sh" || rc=1
	echo "# $t.sh took $((SECONDS - start)) s"
done
# Leave the kernel as we found it, so that leaks show in kmemleak.
rmmod mplane 2>/dev/null
exit $rc

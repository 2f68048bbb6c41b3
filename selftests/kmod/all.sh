#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# all.sh [--part N | --parts]: every kmod test script, one after another,
# in one boot.  Run inside the VM by selftests/run (or natively by
# selftests/vm/native); MPLANE_KO names the module built for the running
# kernel.
#
# The quick profile (the debug kernel) runs each script's share, its
# QUICK_TESTS: the paths that allocate, free, arm timers and take locks,
# at the rates a KASAN guest under TCG can send, where each exec takes
# half a second.  The BPF suites (bpf) are not in it: they test the
# programs, which the release kernels and the host load and run.
#
# --part N runs part N of the scripts, --parts prints how many there are
# (selftests/run boots one VM per part, when it runs VMs side by side).
# The debug kernel's is one part, as its boot costs 75 s.  A release
# kernel's is two of about the same time (1-CPU TCG guest on 6.12: 151
# and 142 s; a boot is 10-15 s): three kernels' six parts share two
# lanes evenly, where three whole suites left one lane idle for 4 min.
# A new script goes in the second part.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ "${MPLANE_TEST_PROFILE:-full}" = quick ]; then
	parts=("netlink lifecycle sampler telemetry device datapath failover cc reorder")
else
	first=(bpf cc cc_fabric datapath device dkms fabric)
	# rxe_guests.sh is one half of a pair of guests, which
	# selftests/vm/rxe-guests boots with its role: not a script of one.
	rest=$(for f in "$here"/*.sh; do f=${f##*/}; echo "${f%.sh}"; done |
		grep -vx -e all -e rxe_guests "${first[@]/#/-e}" | xargs)
	parts=("${first[*]}" "$rest")
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

# A script that exits non-zero with no test of its own failed stopped
# outside its tests (a missing variable, set -e, a lost guest): that is
# a failure too, named for the script, or its count would not show it.
#
# A script that hangs would take the rest of the boot with it, and the
# VM's timeout keeps nothing of where it hung: each script has
# MPLANE_SCRIPT_TIMEOUT seconds, and one that runs longer is shown, its
# processes and the kernel's blocked tasks (sysrq w), before it is
# killed.  600 by default: make check's longest script took 68 s (the
# debug kernel's datapath.sh).  The whole BPF suites (MPLANE_TEST_BPF
# share or all) took bpf.sh 262 s in a 2-CPU 6.1 guest: 1100 for them.
default_limit=600
[ "${MPLANE_TEST_BPF:-fixtures}" = fixtures ] || default_limit=1100
script_limit=${MPLANE_SCRIPT_TIMEOUT:-$default_limit}

# explain_hang NAME SECS: what still runs of script NAME after SECS.
explain_hang() {
	echo "# $1.sh still runs after $2 s: its processes, then the kernel's blocked tasks"
	# shellcheck disable=SC2009 # the tree, less the kernel's threads
	ps -eo pid,stat,wchan:28,etime,args --forest | grep -v ' \[.*\]$' |
		cut -c 1-160 | sed 's/^/#   /'
	{ echo w >/proc/sysrq-trigger; } 2>/dev/null
	sleep 1
	dmesg | sed -n '/sysrq: Show Blocked State/,$p' | tail -n 80 | sed 's/^/#   /'
}

said=$(mktemp "${TMPDIR:-/tmp}/mplane-all.XXXXXX")
rc=0
for t in $scripts; do
	echo "# $t.sh on $(uname -r)"
	start=$SECONDS
	# Its sleep dies with it: an orphan would hold a pipe open (the
	# native runner's tee) for the rest of its 600 s.
	(trap 'kill $nap 2>/dev/null; exit 0' TERM
	 sleep "$script_limit" & nap=$!
	 wait $nap && explain_hang "$t" "$script_limit") &
	watchdog=$!
	# The kill comes 30 s after the watchdog wakes: ending the watchdog
	# sooner would cut its explanation short.
	timeout -k 10 "$((script_limit + 30))" bash "$here/$t.sh" | tee "$said"
	st=${PIPESTATUS[0]}
	kill "$watchdog" 2>/dev/null
	wait "$watchdog" 2>/dev/null
	[ "$st" -ne 124 ] && [ "$st" -ne 137 ] ||
		echo "not ok 1 $t.sh did not finish in $script_limit s, and was killed" | tee -a "$said"
	echo "# $t.sh took $((SECONDS - start)) s"
	[ "$st" -eq 0 ] && continue
	rc=1
	grep -E '^not ok [0-9]+' "$said" | grep -qv '# SKIP' ||
		echo "not ok 1 $t.sh exited $st, and none of its tests failed"
done
rm -f "$said"
# Leave the kernel as we found it, so that leaks show in kmemleak.
rmmod mplane 2>/dev/null
exit $rc

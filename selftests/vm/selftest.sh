#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftest.sh [KERNEL]: the VM runner's own tests.  It must hand back the
# command's status, fail on a kernel splat even when the command passed,
# give up on a guest that hangs, and bring back files and the kernel log.
source "$(dirname "$0")/../lib/lib.sh"
kernel=${1:-6.1}
vmrun=$MPLANE_ROOT/selftests/vm/run
out=$MPLANE_BUILD/vm/selftest

test_vm_status_and_results() {
	local rc=0
	"$vmrun" --quiet --out "$out" "$kernel" -- 'echo guest-$(uname -r) >/tmp/results/mark; mount | grep -q " /tmp type tmpfs" && exit 7' || rc=$?
	assert_eq "command status" "$rc" 7
	assert_eq "results share" "$(cat "$out/mark")" "guest-$("$MPLANE_ROOT/scripts/kernels.sh" release "$kernel")"
	grep -q 'Linux version' "$out/dmesg" || fail "no guest dmesg saved"
}

test_vm_splat_fails_run() {
	local rc=0
	# A line the kernel log would carry for a real warning, injected
	# through /dev/kmsg: the command passes, the run must not.
	"$vmrun" --quiet --out "$out" "$kernel" -- 'echo "WARNING: CPU: 0 PID: 1 at mplane-selftest" >/dev/kmsg' || rc=$?
	assert_eq "status on splat" "$rc" 125
}

test_vm_timeout() {
	local rc=0
	rm -f "$out/slept"
	# The guest boots in about 7 s: 12 s stops it in its sleep.
	"$vmrun" --quiet --timeout 12 --out "$out" "$kernel" -- 'touch /tmp/results/slept; sleep 600' \
		2>/dev/null || rc=$?
	assert_eq "status on timeout" "$rc" 124
	[ -e "$out/slept" ] || fail "the guest was stopped before it ran the command"
}

test_splat_re_matches() {
	local re line
	re=$("$MPLANE_ROOT/selftests/vm/splat-re")
	for line in "BUG: KASAN: slab-use-after-free in mplane_xmit" \
		"WARNING: CPU: 1 PID: 7 at net/core/dev.c:1 x" \
		"WARNING: suspicious RCU usage" "unreferenced object 0xffff8881 (size 64):" \
		"refcount_t: underflow; use-after-free." "WARNING: possible circular locking dependency detected" \
		"UBSAN: shift-out-of-bounds in kmod/plane.c:10:2"; do
		echo "$line" | grep -qE "$re" || fail "splat not caught: $line"
	done
	for line in "rcu: RCU lockdep checking is enabled." "kasan: KernelAddressSanitizer initialized" \
		"mplane: loaded"; do
		echo "$line" | grep -qE "$re" && fail "benign line caught: $line"
	done
	return 0
}

ktap_run test_splat_re_matches test_vm_status_and_results test_vm_splat_fails_run test_vm_timeout

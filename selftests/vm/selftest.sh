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

# How long a guest took to boot and run a trivial command here, for the
# timeout test: a slow machine (nested virtualisation, TCG) boots in
# 7-15 s.
boot_secs=$MPLANE_BUILD/vm/selftest-boot-s

test_vm_status_and_results() {
	local rc=0 start=$SECONDS
	"$vmrun" --quiet --out "$out" "$kernel" -- 'echo guest-$(uname -r) >/tmp/results/mark; mount | grep -q " /tmp type tmpfs" && exit 7' || rc=$?
	echo $((SECONDS - start)) >"$boot_secs"
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

# sleep_past LIMIT: a guest whose command sleeps 600 s, stopped at LIMIT
# seconds; its exit status.
sleep_past() {
	local rc=0
	rm -f "$out/slept"
	"$vmrun" --quiet --timeout "$1" --out "$out" "$kernel" -- 'touch /tmp/results/slept; sleep 600' \
		2>/dev/null || rc=$?
	return $rc
}

test_vm_timeout() {
	local rc=0 limit
	# Half as long again as a boot and a trivial command took here
	# stops the guest in its sleep.
	limit=$(($(cat "$boot_secs" 2>/dev/null || echo 20) * 3 / 2 + 4))
	sleep_past "$limit" || rc=$?
	# A boot that much slower than the last (other guests on the cores) is
	# stopped before the command: a stall, shown by the missing file,
	# and the one case tried again, with four times the time.
	if [ "$rc" = 124 ] && [ ! -e "$out/slept" ]; then
		log "stopped at $limit s before the command ran: a slow boot; again at $((limit * 4)) s"
		rc=0
		sleep_past $((limit * 4)) || rc=$?
	fi
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
		"UBSAN: shift-out-of-bounds in kmod/plane.c:10:2" \
		"workqueue: work func mplane_notify_work [mplane] enqueued on deprecated workqueue. Use system_{percpu|dfl}_wq instead."; do
		echo "$line" | grep -qE "$re" || fail "splat not caught: $line"
	done
	for line in "rcu: RCU lockdep checking is enabled." "kasan: KernelAddressSanitizer initialized" \
		"mplane: loaded"; do
		echo "$line" | grep -qE "$re" && fail "benign line caught: $line"
	done
	return 0
}

# fake_qemu MODE : a qemu stand-in for the KVM probe, in a temporary
# directory; prints its path.  MODE abort: dies as qemu does on a host
# without vmx/svm; hang: prints nothing and never ends; banner: "boots"
# (writes a banner to its -serial file); passthrough: fails on -accel kvm
# and runs the real qemu otherwise.
fake_qemu() {
	local dir f
	dir=$(mktemp -d)
	f=$dir/qemu
	cat >"$f" <<-EOS
	#!/bin/bash
	mode=$1
	serial=
	args=("\$@")
	while [ \$# -gt 0 ]; do
		case "\$1" in
		-serial) serial=\${2#file:}; shift ;;
		-accel) accel=\$2; shift ;;
		esac
		shift
	done
	case "\$mode:\${accel%%,*}" in
	abort:kvm|passthrough:kvm)
		echo "qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69" >&2
		kill -ABRT \$\$ ;;
	hang:kvm) exec sleep 600 ;;
	banner:kvm) echo "Linux version 6.1.0-fake" >"\$serial"; exec sleep 600 ;;
	esac
	exec qemu-system-x86_64 "\${args[@]}"
	EOS
	chmod +x "$f"
	echo "$f"
}

# accel_with MODE : what selftests/vm/accel answers with a fake qemu and a
# writable character device (/dev/null) standing in for /dev/kvm, from a
# cache of its own.  Prints "ANSWER|REASON".
accel_with() {
	local q tmp answer why
	q=$(fake_qemu "$1")
	tmp=$(mktemp -d)
	answer=$(env -u MPLANE_VM_ACCEL MPLANE_BUILD="$tmp" MPLANE_QEMU="$q" MPLANE_VM_KVM_DEV=/dev/null \
		MPLANE_VM_PROBE_SECS=3 "$MPLANE_ROOT/selftests/vm/accel" "$(kernel_image)" 2>"$tmp/why")
	why=$(cat "$tmp/why")
	rm -rf "$tmp" "$(dirname "$q")"
	echo "$answer|$why"
}

kernel_image() { "$MPLANE_ROOT/scripts/kernels.sh" image "$kernel"; }

test_accel_kvm_that_aborts_falls_back_to_tcg() {
	local r
	r=$(accel_with abort)
	log "$r"
	assert_eq "answer" "${r%%|*}" tcg
	[[ $r == *"exited 134"*"failed to set MSR"* ]] || fail "the reason does not name qemu's abort: $r"
}

test_accel_kvm_that_hangs_falls_back_to_tcg() {
	local r start=$SECONDS
	r=$(accel_with hang)
	log "$r"
	assert_eq "answer" "${r%%|*}" tcg
	[[ $r == *"printed nothing in 3 s"* ]] || fail "the reason does not say the guest was silent: $r"
	[ $((SECONDS - start)) -lt 10 ] || fail "the probe took $((SECONDS - start)) s for a 3 s timeout"
}

test_accel_kvm_that_boots_is_used() {
	local r
	r=$(accel_with banner)
	assert_eq "answer" "${r%%|*}" kvm
}

test_accel_without_kvm_device_is_tcg() {
	local r
	r=$(env -u MPLANE_VM_ACCEL MPLANE_VM_KVM_DEV=/nonexistent/kvm "$MPLANE_ROOT/selftests/vm/accel" 2>&1 >/dev/null)
	[[ $r == "vm: accel tcg: no writable KVM device /nonexistent/kvm" ]] || fail "got: $r"
	r=$(MPLANE_VM_ACCEL=kvm "$MPLANE_ROOT/selftests/vm/accel" 2>/dev/null)
	assert_eq "MPLANE_VM_ACCEL override" "$r" kvm
	MPLANE_VM_ACCEL=xen "$MPLANE_ROOT/selftests/vm/accel" 2>/dev/null && fail "MPLANE_VM_ACCEL=xen accepted"
	return 0
}

# The whole runner on a machine whose KVM aborts: the command still runs
# (under TCG), and the run says why in one line.
test_vm_runs_where_kvm_aborts() {
	local q rc=0 tmp
	q=$(fake_qemu passthrough)
	tmp=$(mktemp -d)
	env -u MPLANE_VM_ACCEL -u MPLANE_VM_ACCEL_SHOWN MPLANE_QEMU="$q" MPLANE_VM_KVM_DEV=/dev/null \
		MPLANE_VM_PROBE_SECS=3 "$vmrun" --quiet --out "$out" "$kernel" -- 'exit 5' \
		>/dev/null 2>"$tmp/err" || rc=$?
	cat "$tmp/err"
	assert_eq "command status" "$rc" 5
	grep -q '^vm: accel tcg: qemu with KVM exited 134' "$tmp/err" || fail "no line saying why TCG"
	# Its cached answer is keyed by the fake's path: no real run reads it.
	rm -rf "$tmp" "$(dirname "$q")"
}

ktap_run test_splat_re_matches test_accel_without_kvm_device_is_tcg \
	test_accel_kvm_that_aborts_falls_back_to_tcg test_accel_kvm_that_hangs_falls_back_to_tcg \
	test_accel_kvm_that_boots_is_used test_vm_runs_where_kvm_aborts \
	test_vm_status_and_results test_vm_splat_fails_run test_vm_timeout

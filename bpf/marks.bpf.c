// SPDX-License-Identifier: GPL-2.0
/*
 * marks: step markers from applications, on the same timeline as every
 * other mplane event.  User space runs mp_mark through BPF_PROG_TEST_RUN
 * ('mplanectl mark step N', or the 'mark serve' daemon for programs that
 * are not root); the record's timestamp is bpf_ktime_get_ns(), the clock
 * of every other event, so a training step lines up with the fabric's
 * ECN marks, path switches and failovers around it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "events.bpf.h"
#include "mp_user_event.h"
#include "mplane_events.h"
#include "mplane_mark_proto.h"

SEC("syscall")
int mp_mark(struct mplane_mark_args *args)
{
	mp_event_emit(MPLANE_EV_STEP_MARK, 0, MPLANE_EVENT_NO_PLANE,
		      args->step, args->pid, args->kind, args->app_ts_ns);
	return 0;
}

/*
 * Other events user space knows first: a collective's iterations and the
 * faults mplanectl injects.  Only those types: the rest are the kernel's
 * and BPF's to tell, and a forged one would mislead every reader.
 */
SEC("syscall")
int mp_user_event(struct mp_user_event_args *args)
{
	__u32 type = args->type;

	if (type != MPLANE_EV_COLLECTIVE && type != MPLANE_EV_FAULT)
		return -1;
	mp_event_emit_flags(type, args->ifindex, args->plane, args->flags,
			    args->val[0], args->val[1], args->val[2],
			    args->val[3]);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";

/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * mp_user_event.h: the argument of marks.bpf.c's mp_user_event, which puts
 * an event that user space knows of (a collective's iteration, a fault it
 * injected) on the timeline, stamped by the clock of every other event.
 * Shared by the BPF program and mplanectl only: not kernel ABI.  The
 * includer brings __u64 and friends: vmlinux.h in BPF, <linux/types.h>
 * in user space.
 */
#ifndef MP_USER_EVENT_H
#define MP_USER_EVENT_H

struct mp_user_event_args {
	__u32	type;		/* MPLANE_EV_COLLECTIVE or MPLANE_EV_FAULT */
	__u32	flags;		/* hdr.flags */
	__u32	ifindex;	/* hdr.ifindex */
	__u16	plane;		/* hdr.plane */
	__u16	pad;
	__u64	val[4];
};

#endif /* MP_USER_EVENT_H */

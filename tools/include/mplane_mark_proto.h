/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * mplane_mark_proto.h: the step-mark protocol between a program and
 * 'mplanectl mark serve', and the marks program's argument
 * (bpf/marks.bpf.c).  Without a dependency, so that BPF programs and the
 * installed client header (mplane_mark.h) both include it.
 */
#ifndef MPLANE_MARK_PROTO_H
#define MPLANE_MARK_PROTO_H

#ifdef __KERNEL__
#include <linux/types.h>
#elif defined(__bpf__) && defined(__VMLINUX_H__)
/* BPF programs get the kernel types from vmlinux.h. */
#else
#include <linux/types.h>
#endif

/*
 * Step markers.  A program stamps its steps into the event stream either
 * as root ('mplanectl mark step N') or, unprivileged, by sending one
 * struct mplane_mark_msg datagram to the Unix socket of 'mplanectl mark
 * serve' (MPLANE_MARK_SOCKET by default).
 */
#define MPLANE_MARK_SOCKET	"/run/mplane/mark.sock"
#define MPLANE_MARK_MAGIC	0x4d504d4b	/* "MPMK" */
#define MPLANE_MARK_VERSION	1

enum mplane_mark_kind {
	MPLANE_MARK_STEP,	/* a step begins */
	MPLANE_MARK_STEP_END,	/* a step ends */
	MPLANE_MARK_USER,	/* anything else the application marks */
	__MPLANE_MARK_MAX,
};

struct mplane_mark_msg {
	__u32	magic;		/* MPLANE_MARK_MAGIC */
	__u16	version;	/* MPLANE_MARK_VERSION */
	__u16	kind;		/* enum mplane_mark_kind */
	__u64	step;
	__u64	app_ts_ns;	/* CLOCK_MONOTONIC at the mark, or 0 */
};

/* The argument of the marks program (bpf/marks.bpf.c). */
struct mplane_mark_args {
	__u64	step;
	__u64	app_ts_ns;
	__u32	pid;
	__u32	kind;
};

#endif /* MPLANE_MARK_PROTO_H */

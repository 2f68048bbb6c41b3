/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The uapi of tcx (Linux 6.6) that Debian 12's linux-libc-dev (6.1) does
 * not have: its attach types, the mprog flags and the layouts that
 * BPF_PROG_ATTACH, BPF_PROG_DETACH and BPF_PROG_QUERY read for it.  The
 * names carry our prefix, so that a newer <linux/bpf.h>, whose attach
 * types are enum members, builds too; where that header has a flag, the
 * values are checked against it.
 */
#ifndef MP_TCX_UAPI_H
#define MP_TCX_UAPI_H

#include <linux/bpf.h>
#include <linux/types.h>

/* enum bpf_attach_type, after BPF_NETFILTER (45). */
#define MP_BPF_TCX_INGRESS	46
#define MP_BPF_TCX_EGRESS	47

/* Where in the chain: BEFORE or AFTER a relative, the head or the tail
 * without one; ID says the relative is an id rather than an fd. */
#define MP_BPF_F_REPLACE	(1U << 2)
#define MP_BPF_F_BEFORE		(1U << 3)
#define MP_BPF_F_AFTER		(1U << 4)
#define MP_BPF_F_ID		(1U << 5)
#define MP_BPF_F_LINK		(1U << 13)

#ifdef BPF_F_BEFORE
_Static_assert(MP_BPF_F_BEFORE == BPF_F_BEFORE &&
	       MP_BPF_F_AFTER == BPF_F_AFTER && MP_BPF_F_ID == BPF_F_ID,
	       "tcx flags as <linux/bpf.h> has them");
#endif
_Static_assert(MP_BPF_F_REPLACE == BPF_F_REPLACE, "BPF_F_REPLACE");

/* union bpf_attr for BPF_PROG_ATTACH and BPF_PROG_DETACH, as of 6.6. */
struct mp_tcx_attach_attr {
	__u32 target_ifindex;
	__u32 attach_bpf_fd;
	__u32 attach_type;
	__u32 attach_flags;
	__u32 replace_bpf_fd;
	__u32 relative_fd;		/* or relative_id, with MP_BPF_F_ID */
	__u64 expected_revision;
};

/* union bpf_attr for BPF_PROG_QUERY, as of 6.6. */
struct mp_tcx_query_attr {
	__u32 target_ifindex;
	__u32 attach_type;
	__u32 query_flags;
	__u32 attach_flags;
	__aligned_u64 prog_ids;
	__u32 count;			/* in: room in the arrays; out: used */
	__u32 pad;
	__aligned_u64 prog_attach_flags;
	__aligned_u64 link_ids;		/* 0 where a program is not a link's */
	__aligned_u64 link_attach_flags;
	__u64 revision;
};

_Static_assert(sizeof(struct mp_tcx_attach_attr) == 32 &&
	       sizeof(struct mp_tcx_query_attr) == 64,
	       "the kernel's layouts");

/* What a tcx chain holds at most (BPF_MPROG_MAX). */
#define MP_TCX_MAX_PROGS	64

#endif /* MP_TCX_UAPI_H */

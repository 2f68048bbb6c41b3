/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What hostacct (bpf/hostacct.bpf.c) could not keep, in its per-CPU
 * array mp_hacct_limits (one entry): what only it and mplanectl share.
 * A full map loses silently otherwise: an LRU evicts, a hash refuses.
 * The includer brings __u64: vmlinux.h in BPF, <linux/types.h> in user
 * space.
 */
#ifndef MP_HOSTACCT_LIMITS_H
#define MP_HOSTACCT_LIMITS_H

struct mp_hostacct_limits {
	__u64	qp_created;	/* QP entries made: less those the map holds
				 * now, the LRU's evictions (nothing else
				 * deletes them) */
	__u64	qp_create_failed;	/* a QP the map could not take */
	__u64	rail_full;	/* packets of a rail the full rail map
				 * could not take: not counted */
};

#endif /* MP_HOSTACCT_LIMITS_H */

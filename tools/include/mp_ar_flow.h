/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The value of ar's mp_flows map (bpf/ar.bpf.c), shared with the user
 * space that reads or seeds it (the fixtures).  The includer brings
 * __u64 and __u32: vmlinux.h in BPF, <linux/types.h> in user space.
 */
#ifndef MP_AR_FLOW_H
#define MP_AR_FLOW_H

/* The last port of each flow (by skb hash), for flowlets and to notice
 * path switches.
 */
struct flow_entry {
	__u64 last_ns;
	__u32 ifindex;
	__u32 pad;
};

#endif

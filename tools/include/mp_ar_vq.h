/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The value of ar's mp_vq map (bpf/ar.bpf.c): a port's virtual queue and
 * its marking state, under the port's lock; shared with the user space
 * that seeds or reads it (mplanectl's attach and status, the fixtures).
 * The includer brings __u64, __u32 and struct bpf_spin_lock: vmlinux.h
 * in BPF, <linux/bpf.h> in user space; and mplane_maps.h.
 */
#ifndef MP_AR_VQ_H
#define MP_AR_VQ_H

#include "mp_aqm_pi.h"

struct vq_entry {
	struct bpf_spin_lock lock;
	__u32 pkts_since_sample;
	struct mplane_vq vq;
	__u64 sample_last_ns;
	struct mp_pi_state pi;	/* --aqm pi's; unused under red */
};

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pktcount programs (bpf/pktcount.bpf.c) as 'mplanectl bpf' sees them.
 * Nothing is pinned: the tc filter holds the program and the program its
 * map, so deleting the device (or its netns) frees everything, and
 * mplanectl finds them again through the filter.
 */
#ifndef MPLANECTL_PKTCOUNT_H
#define MPLANECTL_PKTCOUNT_H

#include "bpf_prog.h"
#include "mplane_maps.h"

/*
 * A fixed tc slot ("MP") on each clsact hook.  Its priority runs before
 * the ones tc picks when none is given (49152 and down), so the counters
 * see packets that a later filter drops, and it is unlikely to collide
 * with other tools, which favour small numbers.
 */
#define PKTCOUNT_TC_HANDLE	0x4d50
#define PKTCOUNT_TC_PRIO	0x4d50

/* Names in bpf/pktcount.bpf.c, as the kernel reports them. */
#define PKTCOUNT_MAP_NAME	"mp_pktcount"
#define PKTCOUNT_PROG_INGRESS	"mp_pkt_ingress"
#define PKTCOUNT_PROG_EGRESS	"mp_pkt_egress"

extern const char *const pktcount_class_names[__MPLANE_PKT_CLASS_MAX];

/* An fd of the counter map of pktcount program @prog_id, checked to have
 * the layout of tools/include/mplane_maps.h; a negative errno otherwise. */
int pktcount_map_fd(__u32 prog_id, __u32 *map_id);

/* strerror(), knowing what pktcount_map_fd() means by -EPROTO. */
const char *pktcount_strerror(int err);

/* The counters of @dir in @map_fd, summed over CPUs. */
int pktcount_read(int map_fd, enum mplane_pktcount_dir dir,
		  struct mplane_pktcount sum[__MPLANE_PKT_CLASS_MAX]);

/* 'bpf status' of pktcount (pktcount_status.c). */
int pktcount_status(struct mpbpf_target *t);

#endif /* MPLANECTL_PKTCOUNT_H */

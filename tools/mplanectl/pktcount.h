/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the pktcount programs (bpf/pktcount.bpf.c) live on a device and
 * how to recognise them.  Nothing is pinned: the tc filter holds the
 * program and the program its map, so deleting the device (or its netns)
 * frees everything, and mplanectl finds them again through the filter.
 */
#ifndef MPLANECTL_PKTCOUNT_H
#define MPLANECTL_PKTCOUNT_H

#include <stdbool.h>
#include <bpf/libbpf.h>
#include <linux/mplane.h>

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

/* Sets of directions, as chosen by --ingress/--egress/--both. */
#define PKTCOUNT_DIR(d)		(1u << (d))
#define PKTCOUNT_BOTH		(PKTCOUNT_DIR(MPLANE_DIR_INGRESS) | \
				 PKTCOUNT_DIR(MPLANE_DIR_EGRESS))

/* The --ingress/--egress/--both options of attach and detach. */
#define PKTCOUNT_DIR_SHORTOPTS	"ieb"
#define PKTCOUNT_DIR_OPTIONS				\
	{ "ingress",	no_argument,	NULL, 'i' },	\
	{ "egress",	no_argument,	NULL, 'e' },	\
	{ "both",	no_argument,	NULL, 'b' }

/* Add the directions that option @c names to @dirs; false if none. */
bool pktcount_dir_opt(int c, unsigned int *dirs);

struct pktcount_hook {
	enum bpf_tc_attach_point point;
	enum mplane_pktcount_dir dir;
	const char *name;
};

/* Ingress and egress, indexed by enum mplane_pktcount_dir. */
extern const struct pktcount_hook pktcount_hooks[__MPLANE_DIR_MAX];
extern const char *const pktcount_class_names[__MPLANE_PKT_CLASS_MAX];

/* What holds our slot on one hook. */
struct pktcount_slot {
	__u32 prog_id;			/* 0 when the slot is free */
	bool ours;			/* a pktcount program */
	char prog_name[BPF_OBJ_NAME_LEN];
};

/* Look at our slot on @hook of @ifindex: 0 with @slot filled in (its
 * prog_id 0 when no BPF program is there), or a negative errno. */
int pktcount_query(int ifindex, const struct pktcount_hook *hook,
		   struct pktcount_slot *slot);

/* An fd of the counter map of pktcount program @prog_id, checked to have
 * the layout of uapi/linux/mplane.h; a negative errno otherwise. */
int pktcount_map_fd(__u32 prog_id, __u32 *map_id);

/* strerror(), knowing what pktcount_map_fd() means by -EPROTO. */
const char *pktcount_strerror(int err);

/* The counters of @dir in @map_fd, summed over CPUs. */
int pktcount_read(int map_fd, enum mplane_pktcount_dir dir,
		  struct mplane_pktcount sum[__MPLANE_PKT_CLASS_MAX]);

/* Fill the libbpf arguments that name our slot on @hook of @ifindex. */
void pktcount_tc_slot(int ifindex, const struct pktcount_hook *hook,
		      struct bpf_tc_hook *tc_hook, struct bpf_tc_opts *tc_opts);

#endif /* MPLANECTL_PKTCOUNT_H */

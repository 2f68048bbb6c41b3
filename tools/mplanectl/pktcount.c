// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "mp_bpf.h"
#include "pktcount.h"

const struct pktcount_hook pktcount_hooks[__MPLANE_DIR_MAX] = {
	[MPLANE_DIR_INGRESS] = { BPF_TC_INGRESS, MPLANE_DIR_INGRESS, "ingress" },
	[MPLANE_DIR_EGRESS]  = { BPF_TC_EGRESS,  MPLANE_DIR_EGRESS,  "egress" },
};

const char *const pktcount_class_names[__MPLANE_PKT_CLASS_MAX] = {
	[MPLANE_PKT_IPV4]	= "ipv4",
	[MPLANE_PKT_IPV6]	= "ipv6",
	[MPLANE_PKT_ARP]	= "arp",
	[MPLANE_PKT_OTHER]	= "other",
};

void pktcount_tc_slot(int ifindex, const struct pktcount_hook *hook,
		      struct bpf_tc_hook *tc_hook, struct bpf_tc_opts *tc_opts)
{
	/* libbpf rejects options with non-zero bytes it does not know. */
	memset(tc_hook, 0, sizeof(*tc_hook));
	tc_hook->sz = sizeof(*tc_hook);
	tc_hook->ifindex = ifindex;
	tc_hook->attach_point = hook->point;

	memset(tc_opts, 0, sizeof(*tc_opts));
	tc_opts->sz = sizeof(*tc_opts);
	tc_opts->handle = PKTCOUNT_TC_HANDLE;
	tc_opts->priority = PKTCOUNT_TC_PRIO;
}

bool pktcount_dir_opt(int c, unsigned int *dirs)
{
	switch (c) {
	case 'i':
		*dirs |= PKTCOUNT_DIR(MPLANE_DIR_INGRESS);
		return true;
	case 'e':
		*dirs |= PKTCOUNT_DIR(MPLANE_DIR_EGRESS);
		return true;
	case 'b':
		*dirs |= PKTCOUNT_BOTH;
		return true;
	}
	return false;
}

static bool prog_is_ours(const char *name)
{
	return !strcmp(name, PKTCOUNT_PROG_INGRESS) ||
	       !strcmp(name, PKTCOUNT_PROG_EGRESS);
}

int pktcount_query(int ifindex, const struct pktcount_hook *hook,
		   struct pktcount_slot *slot)
{
	struct bpf_tc_hook tc_hook;
	struct bpf_tc_opts tc_opts;
	int err;

	memset(slot, 0, sizeof(*slot));
	pktcount_tc_slot(ifindex, hook, &tc_hook, &tc_opts);
	err = bpf_tc_query(&tc_hook, &tc_opts);
	/*
	 * ENOENT: the hook has filters, none in our slot.  EINVAL: there is
	 * no clsact qdisc, or no filter at all on the hook yet ("cannot find
	 * filter chain"), or a filter of another kind or protocol holds our
	 * priority.  None is ours, and attaching (without REPLACE) cannot
	 * replace a foreign filter: the kernel refuses it.
	 */
	if (err == -ENOENT || err == -EINVAL)
		return 0;
	if (err)
		return err;
	err = mp_prog_name(tc_opts.prog_id, slot->prog_name);
	if (err)
		return err;
	slot->prog_id = tc_opts.prog_id;
	slot->ours = prog_is_ours(slot->prog_name);
	return 0;
}

int pktcount_map_fd(__u32 prog_id, __u32 *map_id)
{
	struct bpf_map_info info;
	int fd;

	fd = mp_prog_map_fd(prog_id, PKTCOUNT_MAP_NAME, &info);
	if (fd < 0)
		return fd;
	/* A program from another mplane version may count differently. */
	if (info.type != BPF_MAP_TYPE_PERCPU_ARRAY ||
	    info.value_size != sizeof(struct mplane_pktcount) ||
	    info.max_entries != MPLANE_PKTCOUNT_SLOTS) {
		close(fd);
		return -EPROTO;
	}
	*map_id = info.id;
	return fd;
}

const char *pktcount_strerror(int err)
{
	if (err == -EPROTO)
		return "its counter map has an unknown layout (attached by another mplane version?)";
	return strerror(-err);
}

int pktcount_read(int map_fd, enum mplane_pktcount_dir dir,
		  struct mplane_pktcount sum[__MPLANE_PKT_CLASS_MAX])
{
	/* A per-CPU lookup returns one value per possible CPU, each padded to
	 * 8 bytes, so an array of the struct matches when it needs none. */
	_Static_assert(sizeof(struct mplane_pktcount) % 8 == 0,
		       "per-CPU values are padded to 8 bytes");
	int ncpus = libbpf_num_possible_cpus();
	struct mplane_pktcount *vals;
	int class, cpu, err = 0;
	__u32 key;

	if (ncpus < 0)
		return ncpus;
	vals = calloc(ncpus, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (class = 0; class < __MPLANE_PKT_CLASS_MAX; class++) {
		key = dir * __MPLANE_PKT_CLASS_MAX + class;
		if (bpf_map_lookup_elem(map_fd, &key, vals)) {
			err = -errno;
			break;
		}
		sum[class] = (struct mplane_pktcount){};
		for (cpu = 0; cpu < ncpus; cpu++) {
			sum[class].packets += vals[cpu].packets;
			sum[class].bytes += vals[cpu].bytes;
		}
	}
	free(vals);
	return err;
}

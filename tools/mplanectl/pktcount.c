// SPDX-License-Identifier: GPL-2.0
/* pktcount in the table of bpf programs: its load and its map. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "mp_bpf.h"
#include "mp_out.h"
#include "pktcount.h"
#include "pktcount.skel.h"
#include "mplane_maps.h"

const char *const pktcount_class_names[__MPLANE_PKT_CLASS_MAX] = {
	[MPLANE_PKT_IPV4]	= "ipv4",
	[MPLANE_PKT_IPV6]	= "ipv6",
	[MPLANE_PKT_ARP]	= "arp",
	[MPLANE_PKT_OTHER]	= "other",
};

/*
 * The counter map of a pktcount program already on the device, so that a
 * new program keeps its counts and both directions share one map; -1 if
 * there is none (or only one of an incompatible layout).
 */
static int existing_map(const struct mpbpf_target *t)
{
	__u32 map_id;
	int d, fd;

	for (d = 0; d < __MPLANE_DIR_MAX; d++) {
		if (!t->slots[d].ours)
			continue;
		fd = pktcount_map_fd(t->slots[d].prog_id, &map_id);
		if (fd >= 0)
			return fd;
	}
	return -1;
}

static int load(const struct mpbpf_target *t, struct mpbpf_loaded *l)
{
	struct pktcount *skel;
	int map_fd, err = 0;

	skel = pktcount__open();
	if (!skel) {
		mp_err("%s: opening BPF object: %s", t->dev, strerror(errno));
		return -errno;
	}
	map_fd = existing_map(t);
	if (map_fd >= 0) {
		/* libbpf keeps a duplicate of the fd. */
		err = bpf_map__reuse_fd(skel->maps.mp_pktcount, map_fd);
		close(map_fd);
	}
	if (!err)
		err = pktcount__load(skel);
	if (err) {
		mp_err("%s: loading BPF programs: %s (-v shows libbpf's log)",
		       t->dev, strerror(-err));
		pktcount__destroy(skel);
		return err;
	}
	l->skel = skel;
	l->tc_fd[MPLANE_DIR_INGRESS] = bpf_program__fd(skel->progs.mp_pkt_ingress);
	l->tc_fd[MPLANE_DIR_EGRESS] = bpf_program__fd(skel->progs.mp_pkt_egress);
	return 0;
}

static void unload(struct mpbpf_loaded *l)
{
	pktcount__destroy(l->skel);
}

const struct mpbpf_kind pktcount_kind = {
	.name		= "pktcount",
	.tc_handle	= PKTCOUNT_TC_HANDLE,
	.tc_prio	= PKTCOUNT_TC_PRIO,
	.tc_first	= true,
	.tc_progs	= {
		[MPLANE_DIR_INGRESS]	= PKTCOUNT_PROG_INGRESS,
		[MPLANE_DIR_EGRESS]	= PKTCOUNT_PROG_EGRESS,
	},
	.load		= load,
	.unload		= unload,
	.status		= pktcount_status,
};

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

// SPDX-License-Identifier: GPL-2.0
/*
 * Loss through bpf/fault_loss.bpf.c, for kernels without netem: one copy
 * of the program per port, on its tc egress at mplane's fault slot
 * (tools/include/mp_fault_loss.h).  A port that has it already gets its
 * new share written into the program's map, so its counts go on; a
 * share of 0 takes the filter away.  Nothing but that one filter is ever
 * touched: the clsact qdisc, which other tools' filters share, stays.
 * The caller has entered the port's namespace.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>

#include "fault_loss.skel.h"
#include "mp_bpf.h"
#include "mp_fault_loss.h"
#include "mp_out.h"
#include "fabric_fault.h"

static void tc_slot(int ifindex, struct bpf_tc_hook *hook,
		    struct bpf_tc_opts *opts)
{
	memset(hook, 0, sizeof(*hook));
	hook->sz = sizeof(*hook);
	hook->ifindex = ifindex;
	hook->attach_point = BPF_TC_EGRESS;
	memset(opts, 0, sizeof(*opts));
	opts->sz = sizeof(*opts);
	opts->handle = MP_FAULT_TC_HANDLE;
	opts->priority = MP_FAULT_TC_PRIO;
}

/* Who holds the slot: 0 nobody, 1 our dropper (its id in @id), -EBUSY
 * a filter of someone else, which is never replaced. */
static int slot_owner(int ifindex, __u32 *id)
{
	char name[BPF_OBJ_NAME_LEN] = "";
	struct bpf_tc_hook hook;
	struct bpf_tc_opts opts;

	tc_slot(ifindex, &hook, &opts);
	if (bpf_tc_query(&hook, &opts))
		return 0;
	*id = opts.prog_id;
	if (mp_prog_name(opts.prog_id, name) ||
	    strcmp(name, MP_FAULT_LOSS_PROG))
		return -EBUSY;
	return 1;
}

/* The dropper's map @name, found from its program. */
static int map_fd(__u32 id, const char *name)
{
	struct bpf_map_info info;

	return mp_prog_map_fd(id, name, &info);
}

static int set_share(int cfg_fd, uint32_t ppm)
{
	struct mp_fault_loss_cfg cfg = { .ppm = ppm };
	__u32 zero = 0;

	return bpf_map_update_elem(cfg_fd, &zero, &cfg, BPF_ANY) ? -errno : 0;
}

static int detach(int ifindex)
{
	struct bpf_tc_hook hook;
	struct bpf_tc_opts opts;

	tc_slot(ifindex, &hook, &opts);
	return bpf_tc_detach(&hook, &opts);
}

/* A new copy for the port, its share set before it sees a packet. */
static int attach(const struct mp_fabric_port *p, uint32_t ppm)
{
	struct fault_loss *skel;
	struct bpf_tc_hook hook;
	struct bpf_tc_opts opts;
	int err;

	skel = fault_loss__open_and_load();
	if (!skel)
		return -errno ? -errno : -EINVAL;
	err = set_share(bpf_map__fd(skel->maps.mp_fault_cfg), ppm);
	tc_slot(p->ifindex, &hook, &opts);
	if (!err) {
		err = bpf_tc_hook_create(&hook);
		if (err == -EEXIST)
			err = 0;
	}
	if (!err) {
		opts.prog_fd = bpf_program__fd(skel->progs.mp_fault_drop);
		err = bpf_tc_attach(&hook, &opts);
	}
	/* The filter holds the program, and the program its maps. */
	fault_loss__destroy(skel);
	return err;
}

int fault_loss_bpf_set(const struct mp_fabric_port *p, uint32_t ppm)
{
	__u32 id = 0;
	int owner = slot_owner(p->ifindex, &id), fd, err;

	if (owner < 0) {
		mp_err("%s: tc egress handle %#x priority %#x holds a filter that is not mplane's fault dropper",
		       p->ifname, MP_FAULT_TC_HANDLE, MP_FAULT_TC_PRIO);
		return owner;
	}
	if (!ppm)
		return owner ? detach(p->ifindex) : 0;
	if (!owner)
		return attach(p, ppm);
	fd = map_fd(id, MP_FAULT_LOSS_CFG);
	if (fd < 0)
		return fd;
	err = set_share(fd, ppm);
	close(fd);
	return err;
}

/* The per-CPU counts of the dropper's stats map, summed. */
static int read_counts(__u32 id, struct fault_loss_counts *lc)
{
	int ncpus = libbpf_num_possible_cpus(), fd, err = 0, i;
	struct mp_fault_loss_stats *st;
	__u32 zero = 0;

	if (ncpus < 1)
		return -EINVAL;
	st = calloc(ncpus, sizeof(*st));
	if (!st)
		return -ENOMEM;
	fd = map_fd(id, MP_FAULT_LOSS_STATS);
	if (fd < 0 || bpf_map_lookup_elem(fd, &zero, st))
		err = fd < 0 ? fd : -errno;
	for (i = 0; !err && i < ncpus; i++) {
		lc->passed += st[i].passed;
		lc->dropped += st[i].dropped;
	}
	if (fd >= 0)
		close(fd);
	free(st);
	return err;
}

int fault_loss_bpf_read(const struct mp_fabric_port *p,
			struct fault_loss_counts *lc)
{
	struct mp_fault_loss_cfg cfg = {};
	__u32 id = 0, zero = 0;
	int owner, fd, err;

	memset(lc, 0, sizeof(*lc));
	owner = slot_owner(p->ifindex, &id);
	if (owner <= 0)
		return owner;
	lc->on = true;
	fd = map_fd(id, MP_FAULT_LOSS_CFG);
	if (fd < 0)
		return fd;
	err = bpf_map_lookup_elem(fd, &zero, &cfg) ? -errno : 0;
	close(fd);
	lc->ppm = cfg.ppm;
	return err ? err : read_counts(id, lc);
}

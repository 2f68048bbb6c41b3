// SPDX-License-Identifier: GPL-2.0
/*
 * Loss through bpf/fault_loss.bpf.c, for kernels without netem: one copy
 * of the program per port, on its tc egress: at the tail of tcx where the
 * kernel has it (--tc-hook or MPLANE_TC_HOOK chooses, as mp_tc.h says),
 * else at mplane's cls_bpf fault slot (tools/include/mp_fault_loss.h).  A port
 * that has it already gets its new share written into the program's map,
 * so its counts go on; a share of 0 takes the program away.  Nothing but
 * that one program is ever touched: the clsact qdisc, which other tools'
 * filters share, stays.  The caller has entered the port's namespace.
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
#include "mp_tc.h"
#include "fabric_fault.h"

static const char *const dropper[] = { MP_FAULT_LOSS_PROG, NULL };

/* On tcx, at the tail: counters ahead of it see what it drops. */
static const struct mp_tc_ours dropper_ours = {
	.names = dropper, .handle = MP_FAULT_TC_HANDLE, .prio = MP_FAULT_TC_PRIO,
};

/*
 * Who holds the port's egress: 0 nobody, 1 our dropper (its id in @id),
 * -EBUSY a cls_bpf filter of someone else in our slot, never replaced;
 * what mp_tc saw in @st.
 */
static int slot_owner(const struct mp_fabric_port *p, struct mp_tc_point *pt,
		      struct mp_tc_state *st, __u32 *id)
{
	int err;

	*pt = (struct mp_tc_point){ .ifindex = p->ifindex, .egress = true,
				    .ours = &dropper_ours };
	err = mp_tc_query(pt, st);
	if (err)
		return err;
	switch (mp_tc_where(st)) {
	case MP_TC_TCX:
		*id = st->tcx.id;
		return 1;
	case MP_TC_CLS_BPF:
		*id = st->cls.id;
		return 1;
	default:
		return st->cls.id ? -EBUSY : 0;
	}
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

/* The hook @tc_choice means for port @p (-1: MPLANE_TC_HOOK's). */
static int choose_hook(const struct mp_fabric_port *p, int tc_choice,
		       enum mp_tc_hook *hook)
{
	enum mp_tc_choice choice = tc_choice;
	int err = 0;

	if (tc_choice < 0)
		err = mp_tc_env_choice(&choice);
	return err ? err : mp_tc_choose(choice, p->ifname, p->ifindex, hook);
}

/* A new copy for the port, its share set before it sees a packet. */
static int attach(enum mp_tc_hook hook, uint32_t ppm,
		  const struct mp_tc_point *pt, const struct mp_tc_state *st)
{
	struct fault_loss *skel;
	int err;

	skel = fault_loss__open_and_load();
	if (!skel)
		return -errno ? -errno : -EINVAL;
	err = set_share(bpf_map__fd(skel->maps.mp_fault_cfg), ppm);
	if (!err)
		err = mp_tc_attach(pt, hook,
				   bpf_program__fd(skel->progs.mp_fault_drop), st);
	/* The hook holds the program, and the program its maps. */
	fault_loss__destroy(skel);
	return err;
}

/*
 * The dropper @id, already on the port, onto @hook: the same program,
 * so its counts go on; mp_tc_attach() takes it off the other hook only
 * once the new one runs it, so no packet escapes it on the way.
 */
static int move(__u32 id, enum mp_tc_hook hook, const struct mp_tc_point *pt,
		const struct mp_tc_state *st)
{
	int fd = bpf_prog_get_fd_by_id(id), err;

	if (fd < 0)
		return -errno;
	err = mp_tc_attach(pt, hook, fd, st);
	close(fd);
	return err;
}

int fault_loss_bpf_set(const struct mp_fabric_port *p, uint32_t ppm,
		       int tc_choice)
{
	struct mp_tc_state st;
	struct mp_tc_point pt;
	enum mp_tc_hook hook;
	__u32 id = 0;
	int owner = slot_owner(p, &pt, &st, &id), fd, err;

	if (owner == -EBUSY)
		mp_err("%s: tc egress handle %#x priority %#x holds a filter that is not mplane's fault dropper",
		       p->ifname, MP_FAULT_TC_HANDLE, MP_FAULT_TC_PRIO);
	if (owner < 0)
		return owner;
	if (!ppm)
		return owner ? mp_tc_detach(&pt, &st) : 0;
	err = choose_hook(p, tc_choice, &hook);
	if (err)
		return err;
	if (!owner)
		return attach(hook, ppm, &pt, &st);
	fd = map_fd(id, MP_FAULT_LOSS_CFG);
	if (fd < 0)
		return fd;
	err = set_share(fd, ppm);
	close(fd);
	if (!err && mp_tc_where(&st) != hook)
		err = move(id, hook, &pt, &st);
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
	struct mp_tc_state st;
	struct mp_tc_point pt;
	int owner, fd, err;

	memset(lc, 0, sizeof(*lc));
	owner = slot_owner(p, &pt, &st, &id);
	if (owner <= 0)
		return owner;
	lc->on = true;
	lc->tc_hook = mp_tc_hook_name(mp_tc_where(&st));
	fd = map_fd(id, MP_FAULT_LOSS_CFG);
	if (fd < 0)
		return fd;
	err = bpf_map_lookup_elem(fd, &zero, &cfg) ? -errno : 0;
	close(fd);
	lc->ppm = cfg.ppm;
	return err ? err : read_counts(id, lc);
}

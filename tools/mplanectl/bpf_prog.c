// SPDX-License-Identifier: GPL-2.0
/* The table of 'mplanectl bpf' programs and what all of them share. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "bpf_prog.h"
#include "mp_bpf.h"
#include "mp_cmd.h"
#include "mp_net.h"
#include "mplane_maps.h"

const struct mpbpf_hook mpbpf_hooks[__MPLANE_DIR_MAX] = {
	[MPLANE_DIR_INGRESS] = { MPLANE_DIR_INGRESS, "ingress" },
	[MPLANE_DIR_EGRESS]  = { MPLANE_DIR_EGRESS,  "egress" },
};

/* --prog's words, in the order of kinds[]. */
static const struct mpbpf_kind *const kinds[] = {
	&pktcount_kind,
	&hostacct_kind,
};

const char *const mpbpf_prog_names[] = { "pktcount", "hostacct", NULL };

int mpbpf_parse(const struct mp_opt_cmd *cmd, int argc, char **argv,
		struct mpbpf_target *t)
{
	struct mpbpf_settings set = { .tc_hook = -1 };
	struct mp_opt_result res;
	int ret;

	ret = mp_opt_parse(cmd, argc, argv, &set, &res);
	if (ret != MP_OPT_RUN)
		return ret;
	t->kind = kinds[set.prog];
	if (set.ingress)
		t->dirs |= MPBPF_DIR(MPLANE_DIR_INGRESS);
	if (set.egress)
		t->dirs |= MPBPF_DIR(MPLANE_DIR_EGRESS);
	if (set.both || !t->dirs)
		t->dirs = MPBPF_BOTH;
	t->xdp = set.xdp;
	t->tc_choice = set.tc_hook;
	if (t->xdp && !t->kind->xdp_prog)
		return mp_usage_err("--xdp: %s has no XDP program", t->kind->name);
	t->dev = mp_single_arg(argc, argv, "DEV");
	if (!t->dev)
		return MP_EXIT_USAGE;
	t->ifindex = mp_ifindex(t->dev);
	return t->ifindex ? MP_OPT_RUN : MP_EXIT_ERR;
}

const char *mpbpf_slot_str(const struct mpbpf_target *t)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "tc handle %#x priority %u",
		 t->kind->tc_handle, t->kind->tc_prio);
	return buf;
}

/* @t's program, as mp_tc knows it on hook @dir; @names has room for
 * both tc programs, the XDP one and the NULL that ends them. */
static void tc_point(const struct mpbpf_target *t, int dir,
		     struct mp_tc_ours *o, const char *names[4],
		     struct mp_tc_point *p)
{
	const struct mpbpf_kind *k = t->kind;

	names[0] = k->tc_progs[MPLANE_DIR_INGRESS];
	names[1] = k->tc_progs[MPLANE_DIR_EGRESS];
	/* Ours too: never taken for a foreign filter in our slot. */
	names[2] = k->xdp_prog;
	names[3] = NULL;
	*o = (struct mp_tc_ours){ .names = names, .handle = k->tc_handle,
				  .prio = k->tc_prio, .first = k->tc_first };
	*p = (struct mp_tc_point){ .ifindex = t->ifindex,
				   .egress = dir == MPLANE_DIR_EGRESS,
				   .ours = o };
}

int mpbpf_query(struct mpbpf_target *t, int dir)
{
	struct mp_tc_point p;
	struct mp_tc_ours o;
	const char *names[4];
	struct mpbpf_slot *slot;
	const struct mp_tc_prog *prog;
	int err;

	if (dir < 0)
		return mpbpf_xdp_query(t);
	slot = &t->slots[dir];
	memset(slot, 0, sizeof(*slot));
	tc_point(t, dir, &o, names, &p);
	err = mp_tc_query(&p, &slot->tc);
	if (err)
		return err;
	slot->hook = mp_tc_where(&slot->tc);
	slot->ours = slot->hook != MP_TC_NONE;
	prog = slot->hook == MP_TC_TCX ? &slot->tc.tcx : &slot->tc.cls;
	slot->prog_id = prog->id;
	memcpy(slot->prog_name, prog->name, sizeof(slot->prog_name));
	return 0;
}

int mpbpf_tc_attach(const struct mpbpf_target *t, int dir,
		    enum mp_tc_hook hook, int prog_fd)
{
	struct mp_tc_point p;
	struct mp_tc_ours o;
	const char *names[4];

	tc_point(t, dir, &o, names, &p);
	return mp_tc_attach(&p, hook, prog_fd, &t->slots[dir].tc);
}

int mpbpf_tc_detach(const struct mpbpf_target *t, int dir)
{
	struct mp_tc_point p;
	struct mp_tc_ours o;
	const char *names[4];

	tc_point(t, dir, &o, names, &p);
	return mp_tc_detach(&p, &t->slots[dir].tc);
}

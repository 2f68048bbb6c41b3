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
	[MPLANE_DIR_INGRESS] = { BPF_TC_INGRESS, MPLANE_DIR_INGRESS, "ingress" },
	[MPLANE_DIR_EGRESS]  = { BPF_TC_EGRESS,  MPLANE_DIR_EGRESS,  "egress" },
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
	struct mpbpf_settings set = {};
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
	if (t->xdp && !t->kind->xdp_prog)
		return mp_usage_err("--xdp: %s has no XDP program", t->kind->name);
	t->dev = mp_single_arg(argc, argv, "DEV");
	if (!t->dev)
		return MP_EXIT_USAGE;
	t->ifindex = mp_ifindex(t->dev);
	return t->ifindex ? MP_OPT_RUN : MP_EXIT_ERR;
}

void mpbpf_tc_slot(const struct mpbpf_target *t, int dir,
		   struct bpf_tc_hook *tc_hook, struct bpf_tc_opts *tc_opts)
{
	/* libbpf rejects options with non-zero bytes it does not know. */
	memset(tc_hook, 0, sizeof(*tc_hook));
	tc_hook->sz = sizeof(*tc_hook);
	tc_hook->ifindex = t->ifindex;
	tc_hook->attach_point = mpbpf_hooks[dir].point;

	memset(tc_opts, 0, sizeof(*tc_opts));
	tc_opts->sz = sizeof(*tc_opts);
	tc_opts->handle = t->kind->tc_handle;
	tc_opts->priority = t->kind->tc_prio;
}

const char *mpbpf_slot_str(const struct mpbpf_target *t)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "tc handle %#x priority %u",
		 t->kind->tc_handle, t->kind->tc_prio);
	return buf;
}

static bool is_ours(const struct mpbpf_kind *k, const char *name)
{
	int d;

	for (d = 0; d < __MPLANE_DIR_MAX; d++)
		if (!strcmp(name, k->tc_progs[d]))
			return true;
	return k->xdp_prog && !strcmp(name, k->xdp_prog);
}

/* The id of the program on @t's tc slot of @dir, 0 if none. */
static int tc_prog_id(const struct mpbpf_target *t, int dir, __u32 *id)
{
	struct bpf_tc_hook tc_hook;
	struct bpf_tc_opts tc_opts;
	int err;

	mpbpf_tc_slot(t, dir, &tc_hook, &tc_opts);
	err = bpf_tc_query(&tc_hook, &tc_opts);
	/*
	 * ENOENT: the hook has filters, none in our slot.  EINVAL: there is
	 * no clsact qdisc, or no filter at all on the hook yet ("cannot find
	 * filter chain"), or a filter of another kind or protocol holds our
	 * priority.  None is ours, and attaching (without REPLACE) cannot
	 * replace a foreign filter: the kernel refuses it.
	 */
	*id = err ? 0 : tc_opts.prog_id;
	return err == -ENOENT || err == -EINVAL ? 0 : err;
}

int mpbpf_query(struct mpbpf_target *t, int dir)
{
	struct mpbpf_slot *slot;
	__u32 id = 0;
	int err;

	if (dir < 0)
		return mpbpf_xdp_query(t);
	slot = &t->slots[dir];
	memset(slot, 0, sizeof(*slot));
	err = tc_prog_id(t, dir, &id);
	if (err || !id)
		return err;
	err = mp_prog_name(id, slot->prog_name);
	if (err)
		return err;
	slot->prog_id = id;
	slot->ours = is_ours(t->kind, slot->prog_name);
	return 0;
}

int mpbpf_tc_detach(const struct mpbpf_target *t, int dir)
{
	struct bpf_tc_hook tc_hook;
	struct bpf_tc_opts tc_opts;

	mpbpf_tc_slot(t, dir, &tc_hook, &tc_opts);
	return bpf_tc_detach(&tc_hook, &tc_opts);
}

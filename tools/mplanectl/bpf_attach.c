// SPDX-License-Identifier: GPL-2.0
/* mplanectl bpf attach: put a program of mplane's on a device's hooks. */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "bpf_prog.h"
#include "mp_cmd.h"
#include "mp_out.h"
#include "mplanectl.h"
#include "hostacct.h"
#include "mplane_maps.h"
#include "pktcount.h"

#define AT(member)	MP_OPT_AT(struct mpbpf_settings, member)
static const struct mp_opt attach_opts[] = {
	MPBPF_OPT_PROG,
	{ "xdp", 'x', MP_OPT_FLAG, AT(xdp), NULL,
	  .help = "hostacct only: count what DEV receives at XDP (the driver's hook, before any skb) instead of tc ingress, sharing the hook with other programs through libxdp's dispatcher; only a program attached to DEV's XDP hook without libxdp makes attach refuse" },
	{ "ingress", 'i', MP_OPT_FLAG, AT(ingress), NULL,
	  .help = "count only what DEV receives" },
	{ "egress", 'e', MP_OPT_FLAG, AT(egress), NULL,
	  .help = "count only what DEV sends" },
	{ "both", 'b', MP_OPT_FLAG, AT(both), NULL,
	  .help = "count both directions (the default)" },
	{}
};
#undef AT

_Static_assert(PKTCOUNT_TC_HANDLE == 0x4d50 && PKTCOUNT_TC_PRIO == 19792 &&
	       HOSTACCT_TC_HANDLE == 0x4d48 && HOSTACCT_TC_PRIO == 19784,
	       "attach_cmd.about names the programs' tc slots");

static const struct mp_opt_cmd attach_cmd = {
	.usage = "bpf attach [--prog NAME] [--xdp] [--ingress|--egress|--both] DEV",
	.about =
"Attach a BPF program of mplane's to the tc clsact hooks of DEV, creating\n"
"the clsact qdisc if there is none.  Packets are never changed or dropped,\n"
"and other tc filters on DEV still see every packet.  The programs:\n"
"\n"
"  pktcount  (the default) packets and bytes per direction and protocol\n"
"            class (ipv4, ipv6, arp, other)\n"
"  hostacct  RoCEv2 and ECN per rail and direction, and per destination\n"
"            QP: packets, bytes, ECT and CE marks (any, UDP, TCP, RoCE),\n"
"            CNPs received and sent, headers malformed or cut short; each\n"
"            CNP is also an event (see Documentation/hostacct.md)\n"
"\n"
"Read the counters with 'mplanectl bpf status [--prog NAME] DEV'.\n"
"\n"
"Each program uses a fixed tc slot on each hook: pktcount handle 0x4d50,\n"
"priority 19792, hostacct handle 0x4d48, priority 19784 ('pref' in tc\n"
"filter show).  If a filter that is not mplane's holds it, attach refuses\n"
"and changes nothing.  If mplane's does, its program is replaced and the\n"
"counters carry on from where they were, so attaching twice is harmless.\n"
"\n"
"hostacct's maps are pinned under " MPLANE_BPF_PIN_ROOT "/dev/NETNS/DEV/\n"
"(NETNS is the inode of the network namespace; bpffs is mounted if it is\n"
"not), so that status and event readers find them; detach removes them.\n"
"pktcount pins nothing: it goes away with DEV or its namespace.\n",
	.opts = attach_opts,
	.footer =
"Examples:\n"
"  mplanectl bpf attach eth0             count both directions of eth0\n"
"  mplanectl bpf attach --ingress eth0   count what eth0 receives\n"
"  mplanectl -n blue bpf attach veth1    veth1 of network namespace blue\n"
"  mplanectl bpf attach --prog hostacct --xdp ens1f0\n",
};

/* The tc hooks attach uses: ingress goes to XDP with --xdp. */
static bool tc_wanted(const struct mpbpf_target *t, int d)
{
	return (t->dirs & MPBPF_DIR(d)) &&
	       !(t->xdp && d == MPLANE_DIR_INGRESS);
}

/* One clsact qdisc serves both hooks, and may well be there already. */
static int create_clsact(int ifindex)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = BPF_TC_INGRESS);
	int err = bpf_tc_hook_create(&hook);

	return err == -EEXIST ? 0 : err;
}

static int refuse(const struct mpbpf_target *t, const char *hook,
		  const struct mpbpf_slot *slot, const char *where)
{
	mp_err("%s: %s: %s holds program %u (%s), which is not mplane's",
	       t->dev, hook, where, slot->prog_id, slot->prog_name);
	return -EBUSY;
}

/* Fail unless our slot on every chosen hook is free or holds ours. */
static int check_slots(struct mpbpf_target *t)
{
	int d, err;

	for (d = 0; d < __MPLANE_DIR_MAX; d++) {
		err = mpbpf_query(t, d);
		/* The other hook is only looked at for a map to share. */
		if (!tc_wanted(t, d))
			continue;
		if (err) {
			mp_err("%s: %s: %s", t->dev, mpbpf_hooks[d].name,
			       strerror(-err));
			return err;
		}
		if (t->slots[d].prog_id && !t->slots[d].ours)
			return refuse(t, mpbpf_hooks[d].name, &t->slots[d],
				      mpbpf_slot_str(t));
	}
	if (!t->kind->xdp_prog)
		return 0;
	err = mpbpf_query(t, -1);
	if (err) {
		mp_err("%s: xdp: %s", t->dev, strerror(-err));
		return err;
	}
	if (t->xdp && t->xdp_slot.prog_id && !t->xdp_slot.ours)
		return refuse(t, "xdp", &t->xdp_slot, "the XDP hook");
	return 0;
}

static int attach_hook(const struct mpbpf_target *t, int prog_fd, int d)
{
	struct bpf_tc_hook tc_hook;
	struct bpf_tc_opts tc_opts;
	int err;

	mpbpf_tc_slot(t, d, &tc_hook, &tc_opts);
	tc_opts.prog_fd = prog_fd;
	/* Without REPLACE a slot taken since check_slots() fails (EEXIST)
	 * rather than losing a foreign filter. */
	if (t->slots[d].ours)
		tc_opts.flags = BPF_TC_F_REPLACE;
	err = bpf_tc_attach(&tc_hook, &tc_opts);
	/* What the kernel answers when a filter that bpf_tc_query() cannot
	 * see (classic BPF, or another kind) holds the slot. */
	if (err == -EEXIST || err == -EINVAL)
		mp_err("%s: %s: %s is held by a filter that is not mplane's (%s)",
		       t->dev, mpbpf_hooks[d].name, mpbpf_slot_str(t),
		       strerror(-err));
	else if (err)
		mp_err("%s: %s: %s", t->dev, mpbpf_hooks[d].name,
		       strerror(-err));
	return err;
}

/*
 * Ingress is counted at one hook only: after a move between tc and XDP,
 * take ours off the hook that is no longer used.
 */
static void leave_other_ingress(const struct mpbpf_target *t)
{
	if (!(t->dirs & MPBPF_DIR(MPLANE_DIR_INGRESS)))
		return;
	if (t->xdp && t->slots[MPLANE_DIR_INGRESS].ours)
		mpbpf_tc_detach(t, MPLANE_DIR_INGRESS);
	else if (!t->xdp && t->xdp_slot.ours)
		mpbpf_xdp_detach(t);
}

/*
 * Take off what this run put on a free slot before failing, so that a
 * refused attach changes nothing.  A program that replaced one of ours
 * stays: it is the same program, counting into the same maps.
 */
static void undo(const struct mpbpf_target *t, int failed)
{
	int d;

	for (d = 0; d < failed; d++)
		if (tc_wanted(t, d) && !t->slots[d].ours)
			mpbpf_tc_detach(t, d);
}

static int attach_all(const struct mpbpf_target *t,
		      const struct mpbpf_loaded *l)
{
	int d, err = 0;

	for (d = 0; d < __MPLANE_DIR_MAX && !err; d++) {
		if (!tc_wanted(t, d))
			continue;
		err = attach_hook(t, l->tc_fd[d], d);
		if (err)
			undo(t, d);
	}
	if (!err && t->xdp) {
		err = mpbpf_xdp_attach(t, l->xdp_fd);
		if (err)
			undo(t, __MPLANE_DIR_MAX);
	}
	if (!err)
		leave_other_ingress(t);
	return err;
}

static int attach(struct mpbpf_target *t)
{
	struct mpbpf_loaded l = { .xdp_fd = -1 };
	int err;

	err = create_clsact(t->ifindex);
	if (err) {
		mp_err("%s: creating clsact qdisc: %s", t->dev, strerror(-err));
		return err;
	}
	err = check_slots(t);
	if (err)
		return err;
	err = t->kind->load(t, &l);
	if (err)
		return err;
	err = attach_all(t, &l);
	/* The hooks hold the programs, and the programs (or pins) the maps. */
	t->kind->unload(&l);
	return err;
}

int bpf_attach_main(int argc, char **argv)
{
	struct mpbpf_target t = {};
	int ret;

	ret = mpbpf_parse(&attach_cmd, argc, argv, &t);
	if (ret != MP_OPT_RUN)
		return ret;
	return attach(&t) ? MP_EXIT_ERR : MP_EXIT_OK;
}

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
	{ "tc-hook", 0, MP_OPT_CHOICE, AT(tc_hook), "HOOK",
	  .help = "where on tc: tcx (Linux 6.6 and later), cls_bpf (a filter on the clsact qdisc), or auto, tcx where the kernel has it (the default, or MPLANE_TC_HOOK); ours moves off the other one",
	  .choices = mp_tc_choice_names },
	{}
};
#undef AT

_Static_assert(PKTCOUNT_TC_HANDLE == 0x4d50 && PKTCOUNT_TC_PRIO == 19792 &&
	       HOSTACCT_TC_HANDLE == 0x4d48 && HOSTACCT_TC_PRIO == 19784,
	       "attach_cmd.about names the programs' tc slots");

static const struct mp_opt_cmd attach_cmd = {
	.usage = "bpf attach [--prog NAME] [--xdp] [--ingress|--egress|--both]\n"
		 "       [--tc-hook auto|tcx|cls_bpf] DEV",
	.about =
"Attach a BPF program of mplane's to the tc ingress and egress hooks of\n"
"DEV: through tcx where the kernel has it (Linux 6.6 and later), else as\n"
"a cls_bpf filter on the clsact qdisc, which is created if there is none.\n"
"Packets are never changed or dropped, and other programs and filters on\n"
"DEV still see every packet.  The programs:\n"
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
"On tcx the program goes first, ahead of other tools' tcx programs, and\n"
"lets every packet on to them and to the clsact filters; it is attached\n"
"without a link, so it stays after mplanectl exits ('bpftool net show'\n"
"lists it).  On cls_bpf each program uses a fixed slot on each hook:\n"
"pktcount handle 0x4d50, priority 19792, hostacct handle 0x4d48,\n"
"priority 19784 ('pref' in tc filter show).  If a filter that is not\n"
"mplane's holds it, attach refuses and changes nothing.  If mplane's\n"
"program is there, on either hook, it is replaced (taken off the hook\n"
"not chosen) and the counters carry on from where they were, so\n"
"attaching twice, or with another --tc-hook, counts nothing twice.\n"
"--tc-hook tcx on a kernel without tcx is an error; auto uses cls_bpf.\n"
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
"  mplanectl bpf attach --prog hostacct --xdp ens1f0\n"
"  mplanectl bpf attach --tc-hook cls_bpf eth0\n",
};

/* The tc hooks attach uses: ingress goes to XDP with --xdp. */
static bool tc_wanted(const struct mpbpf_target *t, int d)
{
	return (t->dirs & MPBPF_DIR(d)) &&
	       !(t->xdp && d == MPLANE_DIR_INGRESS);
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
		/* tcx has no slot to take: only cls_bpf can be held. */
		if (t->tc_hook == MP_TC_CLS_BPF && t->slots[d].prog_id &&
		    !t->slots[d].ours)
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
	int err = mpbpf_tc_attach(t, d, t->tc_hook, prog_fd);

	if (err == -EBUSY)
		mp_err("%s: %s: %s is held by a filter that is not mplane's",
		       t->dev, mpbpf_hooks[d].name, mpbpf_slot_str(t));
	else if (err)
		mp_err("%s: %s: %s: %s", t->dev, mpbpf_hooks[d].name,
		       mp_tc_hook_name(t->tc_hook), strerror(-err));
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
static void undo(struct mpbpf_target *t, int failed)
{
	int d;

	for (d = 0; d < failed; d++) {
		if (!tc_wanted(t, d) || t->slots[d].ours)
			continue;
		/* What this run put there, seen again to be taken off. */
		if (!mpbpf_query(t, d))
			mpbpf_tc_detach(t, d);
	}
}

static int attach_all(struct mpbpf_target *t, const struct mpbpf_loaded *l)
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
	enum mp_tc_choice choice;
	int err;

	if (t->tc_choice >= 0)
		choice = t->tc_choice;
	else if (mp_tc_env_choice(&choice))
		return -EINVAL;
	err = mp_tc_choose(choice, t->dev, t->ifindex, &t->tc_hook);
	if (!err)
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

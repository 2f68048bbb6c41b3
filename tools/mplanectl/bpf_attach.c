// SPDX-License-Identifier: GPL-2.0
/* mplanectl bpf attach: put the pktcount programs on a device's tc hooks. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "mp_cmd.h"
#include "mp_net.h"
#include "mp_out.h"
#include "mplanectl.h"
#include "pktcount.h"
#include "pktcount.skel.h"

static void attach_help(void)
{
	printf(
"Usage: mplanectl [GLOBAL OPTIONS] bpf attach [--ingress|--egress|--both] DEV\n"
"\n"
"Attach the pktcount BPF programs to the tc clsact hooks of DEV, creating\n"
"the clsact qdisc if there is none.  They count the packets and bytes DEV\n"
"receives (ingress) and sends (egress) per protocol class; read them with\n"
"'mplanectl bpf status DEV'.  Packets are never changed or dropped, and\n"
"other tc filters on DEV still see every packet.\n"
"\n"
"The programs use a fixed tc slot on each hook: handle %#x, priority %u\n"
"('pref %u' in tc filter show).  If a filter that is not mplane's holds\n"
"it, attach refuses and changes nothing.  If mplane's does, its program is\n"
"replaced and the counters carry on from where they were, so attaching\n"
"twice is harmless.\n"
"\n"
"Nothing keeps running after attach returns: the tc filter holds the\n"
"program, and goes away with DEV or with its network namespace.\n"
"\n"
"Options:\n"
"  -i, --ingress   count only what DEV receives\n"
"  -e, --egress    count only what DEV sends\n"
"  -b, --both      count both directions (the default)\n"
"  -h, --help      show this help\n"
"\n"
"Examples:\n"
"  mplanectl bpf attach eth0             count both directions of eth0\n"
"  mplanectl bpf attach --ingress eth0   count what eth0 receives\n"
"  mplanectl -n blue bpf attach veth1    veth1 of network namespace blue\n",
	       PKTCOUNT_TC_HANDLE, PKTCOUNT_TC_PRIO, PKTCOUNT_TC_PRIO);
}

static const struct option attach_opts[] = {
	PKTCOUNT_DIR_OPTIONS,
	{ "help",	no_argument,	NULL, 'h' },
	{}
};

struct attach {
	const char *dev;
	int ifindex;
	unsigned int dirs;	/* PKTCOUNT_DIR() bits */
	struct pktcount_slot slots[__MPLANE_DIR_MAX];
};

/* One clsact qdisc serves both hooks, and may well be there already. */
static int create_clsact(int ifindex)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = BPF_TC_INGRESS);
	int err = bpf_tc_hook_create(&hook);

	return err == -EEXIST ? 0 : err;
}

/* Fail unless our slot on every chosen hook is free or holds ours. */
static int check_slots(struct attach *a)
{
	const struct pktcount_hook *hook;
	struct pktcount_slot *slot;
	int d, err;

	for (d = 0; d < __MPLANE_DIR_MAX; d++) {
		hook = &pktcount_hooks[d];
		slot = &a->slots[d];
		err = pktcount_query(a->ifindex, hook, slot);
		/* The other hook is only looked at for a map to share. */
		if (!(a->dirs & PKTCOUNT_DIR(d)))
			continue;
		if (err) {
			mp_err("%s: %s: %s", a->dev, hook->name, strerror(-err));
			return err;
		}
		if (slot->prog_id && !slot->ours) {
			mp_err("%s: %s: tc handle %#x priority %u holds program %u (%s), which is not mplane's",
			       a->dev, hook->name, PKTCOUNT_TC_HANDLE,
			       PKTCOUNT_TC_PRIO, slot->prog_id, slot->prog_name);
			return -EBUSY;
		}
	}
	return 0;
}

/*
 * The counter map of a pktcount program already on the device, so that a
 * new program keeps its counts and both directions share one map; -1 if
 * there is none (or only one of an incompatible layout).
 */
static int existing_map(const struct attach *a)
{
	__u32 map_id;
	int d, fd;

	for (d = 0; d < __MPLANE_DIR_MAX; d++) {
		if (!a->slots[d].ours)
			continue;
		fd = pktcount_map_fd(a->slots[d].prog_id, &map_id);
		if (fd >= 0)
			return fd;
	}
	return -1;
}

static struct pktcount *load(const struct attach *a)
{
	struct pktcount *skel;
	int map_fd, err = 0;

	skel = pktcount__open();
	if (!skel) {
		mp_err("%s: opening BPF object: %s", a->dev, strerror(errno));
		return NULL;
	}
	map_fd = existing_map(a);
	if (map_fd >= 0) {
		/* libbpf keeps a duplicate of the fd. */
		err = bpf_map__reuse_fd(skel->maps.mp_pktcount, map_fd);
		close(map_fd);
	}
	if (!err)
		err = pktcount__load(skel);
	if (err) {
		mp_err("%s: loading BPF programs: %s (-v shows libbpf's log)",
		       a->dev, strerror(-err));
		pktcount__destroy(skel);
		return NULL;
	}
	return skel;
}

static int attach_hook(const struct attach *a, const struct pktcount *skel,
		       enum mplane_pktcount_dir d)
{
	const struct bpf_program *progs[__MPLANE_DIR_MAX] = {
		[MPLANE_DIR_INGRESS]	= skel->progs.mp_pkt_ingress,
		[MPLANE_DIR_EGRESS]	= skel->progs.mp_pkt_egress,
	};
	struct bpf_tc_hook tc_hook;
	struct bpf_tc_opts tc_opts;
	int err;

	pktcount_tc_slot(a->ifindex, &pktcount_hooks[d], &tc_hook, &tc_opts);
	tc_opts.prog_fd = bpf_program__fd(progs[d]);
	/* Without REPLACE a slot taken since check_slots() fails (EEXIST)
	 * rather than losing a foreign filter. */
	if (a->slots[d].ours)
		tc_opts.flags = BPF_TC_F_REPLACE;
	err = bpf_tc_attach(&tc_hook, &tc_opts);
	/* What the kernel answers when a filter that bpf_tc_query() cannot
	 * see (classic BPF, or another kind) holds the slot. */
	if (err == -EEXIST || err == -EINVAL)
		mp_err("%s: %s: tc handle %#x priority %u is held by a filter that is not mplane's (%s)",
		       a->dev, pktcount_hooks[d].name, PKTCOUNT_TC_HANDLE,
		       PKTCOUNT_TC_PRIO, strerror(-err));
	else if (err)
		mp_err("%s: %s: %s", a->dev, pktcount_hooks[d].name,
		       strerror(-err));
	return err;
}

/*
 * Take off what this run put on a free slot before failing, so that a
 * refused attach changes nothing.  A program that replaced one of ours
 * stays: it is the same program, counting into the same map.
 */
static void undo(const struct attach *a, int failed)
{
	struct bpf_tc_hook tc_hook;
	struct bpf_tc_opts tc_opts;
	int d;

	for (d = 0; d < failed; d++) {
		if (!(a->dirs & PKTCOUNT_DIR(d)) || a->slots[d].ours)
			continue;
		pktcount_tc_slot(a->ifindex, &pktcount_hooks[d], &tc_hook,
				 &tc_opts);
		bpf_tc_detach(&tc_hook, &tc_opts);
	}
}

static int attach(struct attach *a)
{
	struct pktcount *skel;
	int d, err;

	err = create_clsact(a->ifindex);
	if (err) {
		mp_err("%s: creating clsact qdisc: %s", a->dev, strerror(-err));
		return err;
	}
	err = check_slots(a);
	if (err)
		return err;
	skel = load(a);
	if (!skel)
		return -1;
	for (d = 0; d < __MPLANE_DIR_MAX && !err; d++) {
		if (!(a->dirs & PKTCOUNT_DIR(d)))
			continue;
		err = attach_hook(a, skel, d);
		if (err)
			undo(a, d);
	}
	/* The filters hold the programs, and the programs the map. */
	pktcount__destroy(skel);
	return err;
}

int bpf_attach_main(int argc, char **argv)
{
	struct attach a = {};
	int c;

	while ((c = mp_getopt(argc, argv, ":" PKTCOUNT_DIR_SHORTOPTS "h",
			       attach_opts)) != -1) {
		if (pktcount_dir_opt(c, &a.dirs))
			continue;
		if (c != 'h')
			return MP_EXIT_USAGE;
		attach_help();
		return MP_EXIT_OK;
	}
	if (!a.dirs)
		a.dirs = PKTCOUNT_BOTH;
	a.dev = mp_single_arg(argc, argv, "DEV");
	if (!a.dev)
		return MP_EXIT_USAGE;
	a.ifindex = mp_ifindex(a.dev);
	if (!a.ifindex)
		return MP_EXIT_ERR;
	return attach(&a) ? MP_EXIT_ERR : MP_EXIT_OK;
}

// SPDX-License-Identifier: GPL-2.0
/* mplanectl bpf detach: take a program of mplane's off a device. */
#include <errno.h>
#include <string.h>

#include "bpf_prog.h"
#include "mp_cmd.h"
#include "mp_out.h"
#include "mplanectl.h"
#include "mplane_maps.h"

static void detach_help(void)
{
	printf(
"Usage: mplanectl [GLOBAL OPTIONS] bpf detach [--prog NAME]\n"
"                 [--ingress|--egress|--both] DEV\n"
"\n"
"Remove a program of mplane's (pktcount unless --prog says otherwise)\n"
"from the hooks of DEV; its counters go with it.  Only mplane's own filter\n"
"is removed (the program's fixed tc slot, and a program of that name in\n"
"it): a foreign filter in that slot makes detach fail and stays, and other\n"
"filters are never touched.  For hostacct, ingress also means its XDP\n"
"program, if that is where it counts, and once nothing of it is left on\n"
"DEV its pinned maps are removed.\n"
"\n"
"The clsact qdisc stays, even when it is left empty: removing it would\n"
"remove every other tool's filters with it.  Use 'tc qdisc del dev DEV\n"
"clsact' when you know that nothing else needs it.\n"
"\n"
"Detaching where nothing of mplane's is attached does nothing and is not\n"
"an error, so cleanup scripts can run it unconditionally.\n"
"\n"
"Options:\n"
"  -p, --prog NAME pktcount (default) or hostacct\n"
"  -i, --ingress   detach only from what DEV receives\n"
"  -e, --egress    detach only from what DEV sends\n"
"  -b, --both      detach from both directions (the default)\n"
"  -h, --help      show this help\n"
"\n"
"Examples:\n"
"  mplanectl bpf detach eth0\n"
"  mplanectl -n blue bpf detach --egress veth1\n"
"  mplanectl bpf detach --prog hostacct ens1f0\n");
}

static const struct option detach_opts[] = {
	MPBPF_OPTIONS,
	{ "help",	no_argument,	NULL, 'h' },
	{}
};

/* One hook: tc slot @d, or the XDP hook when @d is -1. */
static int detach_hook(struct mpbpf_target *t, int d)
{
	const char *hook = d < 0 ? "xdp" : mpbpf_hooks[d].name;
	struct mpbpf_slot *slot = d < 0 ? &t->xdp_slot : &t->slots[d];
	int err;

	err = mpbpf_query(t, d);
	if (err)
		goto out;
	if (!slot->prog_id)
		return 0;
	if (!slot->ours) {
		/* A foreign XDP program is not in a slot of ours at all. */
		if (d < 0)
			return 0;
		mp_err("%s: %s: %s holds program %u (%s), which is not mplane's; left in place",
		       t->dev, hook, mpbpf_slot_str(t), slot->prog_id,
		       slot->prog_name);
		return -EBUSY;
	}
	err = d < 0 ? mpbpf_xdp_detach(t) : mpbpf_tc_detach(t, d);
	if (!err)
		memset(slot, 0, sizeof(*slot));
out:
	if (err)
		mp_err("%s: %s: %s", t->dev, hook, strerror(-err));
	return err;
}

/* Whether any hook still holds the program, after what detach did. */
static bool anything_left(struct mpbpf_target *t)
{
	int d;

	for (d = 0; d < __MPLANE_DIR_MAX; d++)
		if (!(t->dirs & MPBPF_DIR(d)) &&
		    (mpbpf_query(t, d) || t->slots[d].ours))
			return true;
	return t->kind->xdp_prog &&
	       (mpbpf_query(t, -1) || t->xdp_slot.ours);
}

int bpf_detach_main(int argc, char **argv)
{
	struct mpbpf_target t = {};
	int c, d, ret = MP_EXIT_OK;

	while ((c = mp_getopt(argc, argv, ":" MPBPF_SHORTOPTS "h",
			       detach_opts)) != -1) {
		ret = mpbpf_opt(c, optarg, &t);
		if (ret == 1)
			continue;
		if (ret)
			return ret;
		if (c != 'h')
			return MP_EXIT_USAGE;
		detach_help();
		return MP_EXIT_OK;
	}
	ret = mpbpf_target_init(&t, argc, argv);
	if (ret)
		return ret;
	/* One hook failing does not keep the other attached. */
	for (d = 0; d < __MPLANE_DIR_MAX; d++)
		if ((t.dirs & MPBPF_DIR(d)) && detach_hook(&t, d))
			ret = MP_EXIT_ERR;
	if (t.kind->xdp_prog && (t.dirs & MPBPF_DIR(MPLANE_DIR_INGRESS)) &&
	    detach_hook(&t, -1))
		ret = MP_EXIT_ERR;
	if (!ret && t.kind->cleanup && !anything_left(&t))
		t.kind->cleanup(&t);
	return ret;
}


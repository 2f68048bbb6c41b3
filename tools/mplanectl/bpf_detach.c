// SPDX-License-Identifier: GPL-2.0
/* mplanectl bpf detach: take a program of mplane's off a device. */
#include <errno.h>
#include <string.h>

#include "bpf_prog.h"
#include "mp_cmd.h"
#include "mp_out.h"
#include "mplanectl.h"
#include "mplane_maps.h"

#define AT(member)	MP_OPT_AT(struct mpbpf_settings, member)
static const struct mp_opt detach_opts[] = {
	MPBPF_OPT_PROG,
	{ "ingress", 'i', MP_OPT_FLAG, AT(ingress), NULL,
	  .help = "detach only from what DEV receives" },
	{ "egress", 'e', MP_OPT_FLAG, AT(egress), NULL,
	  .help = "detach only from what DEV sends" },
	{ "both", 'b', MP_OPT_FLAG, AT(both), NULL,
	  .help = "detach from both directions (the default)" },
	{}
};
#undef AT

static const struct mp_opt_cmd detach_cmd = {
	.usage = "bpf detach [--prog NAME] [--ingress|--egress|--both] DEV",
	.about =
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
"an error, so cleanup scripts can run it unconditionally.\n",
	.opts = detach_opts,
	.footer =
"Examples:\n"
"  mplanectl bpf detach eth0\n"
"  mplanectl -n blue bpf detach --egress veth1\n"
"  mplanectl bpf detach --prog hostacct ens1f0\n",
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
	int d, ret;

	ret = mpbpf_parse(&detach_cmd, argc, argv, &t);
	if (ret != MP_OPT_RUN)
		return ret;
	ret = MP_EXIT_OK;
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


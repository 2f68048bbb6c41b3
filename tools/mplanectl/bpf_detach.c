// SPDX-License-Identifier: GPL-2.0
/* mplanectl bpf detach: take the pktcount programs off a device. */
#include <errno.h>
#include <string.h>

#include "mp_cmd.h"
#include "mp_net.h"
#include "mp_out.h"
#include "mplanectl.h"
#include "pktcount.h"

static void detach_help(void)
{
	printf(
"Usage: mplanectl [GLOBAL OPTIONS] bpf detach [--ingress|--egress|--both] DEV\n"
"\n"
"Remove the pktcount programs from the tc hooks of DEV; their counters go\n"
"with them.  Only mplane's own filter is removed (tc handle %#x, priority\n"
"%u, and a pktcount program in it): a foreign filter in that slot makes\n"
"detach fail and stays, and other filters are never touched.\n"
"\n"
"The clsact qdisc stays, even when it is left empty: removing it would\n"
"remove every other tool's filters with it.  Use 'tc qdisc del dev DEV\n"
"clsact' when you know that nothing else needs it.\n"
"\n"
"Detaching where nothing of mplane's is attached does nothing and is not\n"
"an error, so cleanup scripts can run it unconditionally.\n"
"\n"
"Options:\n"
"  -i, --ingress   detach only from what DEV receives\n"
"  -e, --egress    detach only from what DEV sends\n"
"  -b, --both      detach from both directions (the default)\n"
"  -h, --help      show this help\n"
"\n"
"Examples:\n"
"  mplanectl bpf detach eth0\n"
"  mplanectl -n blue bpf detach --egress veth1\n",
	       PKTCOUNT_TC_HANDLE, PKTCOUNT_TC_PRIO);
}

static const struct option detach_opts[] = {
	PKTCOUNT_DIR_OPTIONS,
	{ "help",	no_argument,	NULL, 'h' },
	{}
};

static int detach_hook(const char *dev, int ifindex,
		       const struct pktcount_hook *hook)
{
	struct pktcount_slot slot;
	struct bpf_tc_hook tc_hook;
	struct bpf_tc_opts tc_opts;
	int err;

	err = pktcount_query(ifindex, hook, &slot);
	if (err)
		goto out;
	if (!slot.prog_id)
		return 0;
	if (!slot.ours) {
		mp_err("%s: %s: tc handle %#x priority %u holds program %u (%s), which is not mplane's; left in place",
		       dev, hook->name, PKTCOUNT_TC_HANDLE, PKTCOUNT_TC_PRIO,
		       slot.prog_id, slot.prog_name);
		return -EBUSY;
	}
	pktcount_tc_slot(ifindex, hook, &tc_hook, &tc_opts);
	err = bpf_tc_detach(&tc_hook, &tc_opts);
out:
	if (err)
		mp_err("%s: %s: %s", dev, hook->name, strerror(-err));
	return err;
}

int bpf_detach_main(int argc, char **argv)
{
	unsigned int dirs = 0;
	int c, d, ifindex, ret = MP_EXIT_OK;
	const char *dev;

	while ((c = mp_getopt(argc, argv, ":" PKTCOUNT_DIR_SHORTOPTS "h",
			       detach_opts)) != -1) {
		if (pktcount_dir_opt(c, &dirs))
			continue;
		if (c != 'h')
			return MP_EXIT_USAGE;
		detach_help();
		return MP_EXIT_OK;
	}
	if (!dirs)
		dirs = PKTCOUNT_BOTH;
	dev = mp_single_arg(argc, argv, "DEV");
	if (!dev)
		return MP_EXIT_USAGE;
	ifindex = mp_ifindex(dev);
	if (!ifindex)
		return MP_EXIT_ERR;
	/* One hook failing does not keep the other attached. */
	for (d = 0; d < __MPLANE_DIR_MAX; d++)
		if ((dirs & PKTCOUNT_DIR(d)) &&
		    detach_hook(dev, ifindex, &pktcount_hooks[d]))
			ret = MP_EXIT_ERR;
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl link add / link set: create an mplane device, or change one,
 * with RTM_NEWLINK carrying IFLA_INFO_KIND "mplane" and IFLA_INFO_DATA.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/rtnetlink.h>

#include "mp_cmd.h"
#include "mp_opt.h"
#include "mp_out.h"
#include "mplanectl.h"
#include "link.h"

/* Headers and every setting, with the most peers a command line takes. */
#define REQ_SIZE	(4096 + MP_PEERS_MAX * 20)

/* The settings, as the kernel's table has them: KEYWORD VALUE operands. */
static void dev_settings_help(FILE *f)
{
	fputs("Settings (KEYWORD VALUE, in any order; numbers are plain decimal):\n",
	      f);
	link_settings_help(f, link_dev_settings());
}

static const char settings_end[] =
"Policies: flowlet sends each burst of a flow (a flowlet) on the least\n"
"loaded plane and may move the flow after an idle gap of flowlet-gap;\n"
"hash keeps a flow on one plane by its hash (the ECMP baseline); rr sends\n"
"packet after packet round the planes; spray sends each packet on the\n"
"least loaded plane.\n"
"\n"
"The sampler (sample-interval) fires the tracepoint mplane:plane_sample\n"
"once per plane every interval, with the rail's queue (qdisc backlog and\n"
"BQL bytes in flight), the plane's load score and its tx_bytes, ecn_ce and\n"
"cnp counters.  'mplanectl telemetry attach' relays it into the event\n"
"ring; 'perf record -e mplane:plane_sample' sees it too.  While nobody\n"
"listens it costs a timer tick; at 10 us the ticks alone take a good part\n"
"of a CPU, so sample finely only while you look.\n"
"\n"
"Resequencing (reorder-window) is for policy rr or spray under a RoCE\n"
"transport that takes any reordering for a loss, such as rxe (Soft-RoCE):\n"
"spraying sends a QP's packets over several planes, and one that arrives\n"
"before those sent ahead of it makes rxe ask for them again.  With a\n"
"window, mp0 holds a RoCEv2 RC or UC request that arrives past a gap in\n"
"its QP's PSNs for up to that many microseconds, and sends what it holds\n"
"up in PSN order as soon as the gap fills.  When the window ends, or a QP\n"
"holds 256 packets or the device 4096, they go up as they are.  Make the\n"
"window a few times the difference between the planes' delays: a packet\n"
"really lost keeps the ones after it that long.  0 or off (the default)\n"
"holds nothing; hash keeps a flow's packets in order and needs none, as\n"
"flowlet does while its gap is longer than the planes' difference.  Each\n"
"plane counts reorder_held, reorder_filled, reorder_expired and\n"
"reorder_overflows (link show -j, ethtool -S).\n"
"\n"
"Congestion control (cc .. qp-max) is DCQCN as ConnectX runs it, with\n"
"its defaults: mp0 answers a RoCEv2 packet that arrives with CE by a CNP\n"
"to its sender (at most one per cnp-interval per QP), and a CNP cuts the\n"
"rate of the QP it names, which timers and a byte counter raise again.\n"
"mp0 paces each limited QP by the departure time of its packets (EDT),\n"
"which only an fq qdisc on each rail honours: without fq the rates are\n"
"computed and shown but packets leave unpaced.  Any of these settings may\n"
"be given without the others; the kernel keeps the rest.  'fabric up\n"
"--cc dcqcn' sets it, with fq, on every host.\n"
"\n"
"cc notify keeps only the CNPs: mp0 answers CE, and counts each CNP for\n"
"its QP and weighs spray's choice of the plane it came in on, as under\n"
"dcqcn, but cuts and paces nothing.  It is the plane balancer's signal\n"
"for senders that pace themselves; it needs no fq.\n"
"\n"
"Only the syntax is checked here: the kernel checks the ranges and says\n"
"which value it refused and why.\n";

static const struct mp_opt no_opts[] = {
	{}
};

static const struct mp_opt_cmd add_cmd = {
	.usage = "link add DEV [SETTINGS]",
	.about =
"Create the mplane device DEV.  Settings not given take the kernel's\n"
"defaults.  The device starts down and without planes: enslave rails with\n"
"'ip link set RAIL master DEV', then 'ip link set DEV up'.  It is the\n"
"same as 'ip link add DEV type mplane', with the settings of mplane.\n"
"\n",
	.about_table = dev_settings_help,
	.about_end = settings_end,
	.opts = no_opts,
	.footer =
"Examples:\n"
"  mplanectl link add mp0\n"
"  mplanectl link add mp0 policy spray probe-interval 500 peers 10.0.0.2\n"
"  mplanectl -n blue link add mp0 gso segment\n"
"  mplanectl link add mp0 cc dcqcn rate-max 10000000\n",
};

static const struct mp_opt_cmd set_cmd = {
	.usage = "link set DEV SETTINGS",
	.about =
"Change settings of the mplane device DEV while traffic flows.  Only the\n"
"settings given change; a request the kernel refuses changes none of\n"
"them, and its reason is printed:\n"
"  mplanectl: link set: mp0: <the kernel's message> (<error>)\n"
"Weights and admin states belong to planes: see 'mplanectl link plane'.\n"
"\n",
	.about_table = dev_settings_help,
	.about_end = settings_end,
	.opts = no_opts,
	.footer =
"Examples:\n"
"  mplanectl link set mp0 policy hash\n"
"  mplanectl link set mp0 flowlet-gap 50 holddown 200\n"
"  mplanectl link set mp0 peers 10.0.0.2,fd00::2\n"
"  mplanectl link set mp0 peers none\n"
"  mplanectl link set mp0 sample-interval 100\n"
"  mplanectl link set mp0 sample-interval off\n"
"  mplanectl link set mp0 policy spray reorder-window 2000\n"
"  mplanectl link set mp0 reorder-window off\n"
"  mplanectl link set mp0 cc dcqcn cnp-interval 50 rate-min 1000\n"
"  mplanectl link set mp0 policy spray cc notify\n"
"  mplanectl link set mp0 cc off\n",
};

/*
 * The kernel refuses IFLA_INFO_DATA for a device of another kind with a
 * bare EOPNOTSUPP: say what DEV is instead.
 */
static void report_kind(struct mp_rtnl *r, const char *dev, int err)
{
	struct mp_link *l = malloc(sizeof(*l));
	struct mp_nlerr e;

	if (l && !mp_rtnl_get_link(r, dev, l, &e) && !mp_link_is_mplane(l))
		mp_err("%s: %s (%s%s%s)", dev, strerror(-err),
		       l->kind[0] ? "kind " : "not an mplane device",
		       l->kind, l->kind[0] ? ", not mplane" : "");
	else
		mp_err("%s: %s", dev, strerror(-err));
	free(l);
}

static int change(const char *dev, uint16_t flags, const struct mp_settings *s)
{
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifi;
	struct mp_nlerr e = {};
	struct mp_rtnl r;
	char *req;
	int err;

	if (link_open(&r, 0))
		return MP_EXIT_ERR;
	req = calloc(1, REQ_SIZE);
	if (!req) {
		mp_rtnl_close(&r);
		mp_err("%s", strerror(ENOMEM));
		return MP_EXIT_ERR;
	}
	nlh = mnl_nlmsg_put_header(req);
	nlh->nlmsg_type = RTM_NEWLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	/* By name, so that the kernel, not a lookup before, says ENODEV. */
	mnl_attr_put_strz(nlh, IFLA_IFNAME, dev);
	err = mp_link_put_settings(nlh, REQ_SIZE, s);
	if (!err)
		err = mp_rtnl_request(&r, nlh, NULL, NULL, &e);
	if (err == -EOPNOTSUPP && !e.msg[0] && !(flags & NLM_F_CREATE))
		report_kind(&r, dev, err);
	else if (err == -EOPNOTSUPP && (flags & NLM_F_CREATE) &&
		 access("/sys/module/mplane", F_OK))
		/* The kernel knows no kind "mplane": it could not load it. */
		mp_err("%s: %s (%s): the mplane module is not loaded: 'modprobe mplane', or install it (the mplane-dkms package, or make install-dkms)",
		       dev, e.msg[0] ? e.msg : "Unknown device type",
		       strerror(-err));
	else if (err)
		mp_nlerr_report(dev, err, &e);
	free(req);
	mp_rtnl_close(&r);
	return err ? MP_EXIT_ERR : MP_EXIT_OK;
}

static int run(int argc, char **argv, bool create)
{
	struct mp_opt_result res;
	struct mp_settings *s;
	const char *dev;
	int ret;

	ret = mp_opt_parse(create ? &add_cmd : &set_cmd, argc, argv, NULL, &res);
	if (ret != MP_OPT_RUN)
		return ret;
	s = malloc(sizeof(*s));
	if (!s) {
		mp_err("%s", strerror(ENOMEM));
		return MP_EXIT_ERR;
	}
	ret = link_settings_args(argc, argv, "DEV", link_dev_settings(), &dev,
				 s);
	if (!ret && !create && !s->set)
		ret = mp_usage_err("nothing to set: give at least one setting");
	if (!ret)
		ret = change(dev, create ? NLM_F_CREATE | NLM_F_EXCL : 0, s);
	free(s);
	return ret;
}

int link_add_main(int argc, char **argv)
{
	return run(argc, argv, true);
}

int link_set_main(int argc, char **argv)
{
	return run(argc, argv, false);
}

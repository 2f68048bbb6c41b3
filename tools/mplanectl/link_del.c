// SPDX-License-Identifier: GPL-2.0
/* mplanectl link del: delete an mplane device, and only an mplane one. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/rtnetlink.h>

#include "mp_cmd.h"
#include "mp_opt.h"
#include "mp_out.h"
#include "mplanectl.h"
#include "link.h"

static const struct mp_opt del_opts[] = {
	{}
};

static const struct mp_opt_cmd del_cmd = {
	.usage = "link del DEV",
	.about =
"Delete the mplane device DEV.  Its rails are released and stay, as they\n"
"were before they were enslaved.  DEV must be an mplane device: any other\n"
"device is refused and left alone, so a typo cannot delete eth0.\n",
	.opts = del_opts,
	.footer =
"Examples:\n"
"  mplanectl link del mp0\n"
"  mplanectl -n blue link del mp0\n",
};

/* By ifindex: the device checked is the device deleted, even if renamed. */
static int del(struct mp_rtnl *r, const struct mp_link *l)
{
	char req[256] = { 0 };
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(req);
	struct ifinfomsg *ifi;
	struct mp_nlerr e;
	int err;

	nlh->nlmsg_type = RTM_DELLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = l->ifindex;
	err = mp_rtnl_request(r, nlh, NULL, NULL, &e);
	if (err)
		mp_nlerr_report(l->name, err, &e);
	return err ? MP_EXIT_ERR : MP_EXIT_OK;
}

int link_del_main(int argc, char **argv)
{
	struct mp_link *l;
	struct mp_nlerr e;
	struct mp_rtnl r;
	const char *dev;
	struct mp_opt_result res;
	int err, ret;

	ret = mp_opt_parse(&del_cmd, argc, argv, NULL, &res);
	if (ret != MP_OPT_RUN)
		return ret;
	dev = mp_single_arg(argc, argv, "DEV");
	if (!dev)
		return MP_EXIT_USAGE;
	ret = link_dev_arg("DEV", dev);
	if (ret)
		return ret;
	l = malloc(sizeof(*l));
	if (!l) {
		mp_err("%s", strerror(ENOMEM));
		return MP_EXIT_ERR;
	}
	ret = link_open(&r, 0);
	if (ret) {
		free(l);
		return ret;
	}
	err = mp_rtnl_get_link(&r, dev, l, &e);
	if (err) {
		mp_nlerr_report(dev, err, &e);
		ret = MP_EXIT_ERR;
	} else if (!mp_link_is_mplane(l)) {
		ret = link_not_mplane(l);
	} else {
		ret = del(&r, l);
	}
	mp_rtnl_close(&r);
	free(l);
	return ret;
}

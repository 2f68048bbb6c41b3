// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl link plane: set the weight or admin state of one plane, with
 * RTM_NEWLINK on the rail carrying IFLA_INFO_SLAVE_DATA (the kernel's
 * slave_changelink of the mplane device the rail is enslaved to).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/rtnetlink.h>

#include "mp_cmd.h"
#include "mp_opt.h"
#include "mp_out.h"
#include "mplanectl.h"
#include "link.h"

static void plane_settings_help(FILE *f)
{
	link_settings_help(f, mp_plane_settings);
}

static const struct mp_opt plane_opts[] = {
	{}
};

static const struct mp_opt_cmd plane_cmd = {
	.usage = "link plane RAIL [weight N] [admin STATE]",
	.about =
"Change the plane that the rail RAIL is of its mplane device.  RAIL must be\n"
"enslaved to an mplane device ('ip link set RAIL master mp0'); a rail of a\n"
"bridge or a bond is refused, because the numbers would mean something\n"
"else to them.  The kernel checks the values and tells what it refused.\n"
"\n"
"Settings:\n",
	.about_table = plane_settings_help,
	.about_end =
"Draining is how to take a plane out without reordering: running flowlets\n"
"finish on it, new ones go elsewhere.  'admin down' moves everything at\n"
"once.  A plane down by admin shows reason admin in 'link show'.\n",
	.opts = plane_opts,
	.footer =
"Examples:\n"
"  mplanectl link plane a1 admin drain\n"
"  mplanectl link plane a1 admin up weight 0\n"
"  mplanectl link plane a0 weight 100\n"
"  mplanectl link plane a0 weight 0          back to the link speed\n"
"  mplanectl -n blue link plane a0 admin down\n",
};

static int not_a_plane(const struct mp_link *l)
{
	char master[IF_NAMESIZE];

	if (!l->master) {
		mp_err("%s: not a plane: it has no master (enslave it with 'ip link set %s master mp0')",
		       l->name, l->name);
		return MP_EXIT_ERR;
	}
	if (!if_indextoname(l->master, master))
		snprintf(master, sizeof(master), "%d", l->master);
	mp_err("%s: not a plane of an mplane device: its master is %s (%s)",
	       l->name, master, l->slave_kind[0] ? l->slave_kind : "no kind");
	return MP_EXIT_ERR;
}

static int set_plane(struct mp_rtnl *r, const struct mp_link *l,
		     const struct mp_settings *s)
{
	char req[512] = { 0 };
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(req);
	struct ifinfomsg *ifi;
	struct mp_nlerr e = {};
	int err;

	nlh->nlmsg_type = RTM_NEWLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = l->ifindex;
	err = mp_link_put_plane_settings(nlh, sizeof(req), s);
	if (!err)
		err = mp_rtnl_request(r, nlh, NULL, NULL, &e);
	if (err)
		mp_nlerr_report(l->name, err, &e);
	return err ? MP_EXIT_ERR : MP_EXIT_OK;
}

int link_plane_main(int argc, char **argv)
{
	struct mp_settings *s;
	struct mp_link *l;
	struct mp_nlerr e;
	struct mp_rtnl r;
	struct mp_opt_result res;
	const char *rail;
	int err, ret;

	ret = mp_opt_parse(&plane_cmd, argc, argv, NULL, &res);
	if (ret != MP_OPT_RUN)
		return ret;
	s = malloc(sizeof(*s));
	l = malloc(sizeof(*l));
	if (!s || !l) {
		mp_err("%s", strerror(ENOMEM));
		ret = MP_EXIT_ERR;
		goto out;
	}
	ret = link_settings_args(argc, argv, "RAIL", mp_plane_settings, &rail,
				 s);
	if (!ret && !s->set)
		ret = mp_usage_err("nothing to set: give weight, admin or both");
	if (!ret)
		ret = link_open(&r, 0);
	if (ret)
		goto out;
	/* Another master's slave_changelink would read our numbers as its
	 * own attributes: look before sending. */
	err = mp_rtnl_get_link(&r, rail, l, &e);
	if (err) {
		mp_nlerr_report(rail, err, &e);
		ret = MP_EXIT_ERR;
	} else if (!mp_link_is_plane(l)) {
		ret = not_a_plane(l);
	} else {
		ret = set_plane(&r, l, s);
	}
	mp_rtnl_close(&r);
out:
	free(l);
	free(s);
	return ret;
}

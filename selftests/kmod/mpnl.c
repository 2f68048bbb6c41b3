// SPDX-License-Identifier: GPL-2.0
/*
 * mpnl: raw rtnetlink requests for selftests/kmod/device.sh.  iproute2
 * does not know mplane's attributes, and mplanectl never sends the ones
 * the kernel must refuse (the read-only ones), so this sends exactly what
 * it is told and prints what the kernel answers.  One small exec per call
 * matters: under TCG a python3 start cost the debug guest seconds.
 *
 *   mpnl NS info DEV...          for a device DEV.plane_count=N; for a
 *                                rail DEV.plane_id=N, DEV.plane_state=N
 *                                and DEV.plane_reason=N, where present
 *   mpnl NS setlink DEV ATTR N   IFLA_INFO_DATA { ATTR: u32 N } for DEV
 *   mpnl NS newlink DEV ATTR N   the same, creating DEV
 *   mpnl NS setslave DEV ATTR N  IFLA_INFO_SLAVE_DATA { ATTR: u32 N }
 *   mpnl NS cases DEV RAIL       the generated cases of mpnl_cases.c
 *
 * ATTR is count or flowlet-gap (IFLA_MPLANE_*), plane-id or plane-load
 * (IFLA_MPLANE_PLANE_*); each is sent as a u32, whatever its policy says,
 * in the nest the command names.
 * A refusal prints "Error: EXTACK (errno N)" and exits 1; a usage error
 * exits 2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

#include "linux/mplane.h"
#include "mp_linkmsg.h"
#include "mp_netns.h"
#include "mp_rtnl.h"
#include "mpnl.h"

struct raw_attr {
	const char *name;
	unsigned int type;
};

static const struct raw_attr raw_attrs[] = {
	{ "count", IFLA_MPLANE_PLANE_COUNT },
	{ "flowlet-gap", IFLA_MPLANE_FLOWLET_GAP_US },
	{ "plane-id", IFLA_MPLANE_PLANE_ID },
	{ "plane-load", IFLA_MPLANE_PLANE_LOAD },
};

static void __attribute__((noreturn)) usage(void)
{
	fputs("usage: mpnl NS info DEV...\n"
	      "       mpnl NS setlink|newlink|setslave DEV ATTR N\n"
	      "       mpnl NS cases DEV RAIL\n"
	      "ATTR: count, flowlet-gap, plane-id, plane-load\n", stderr);
	exit(2);
}

static void __attribute__((noreturn)) refused(int err,
					      const struct mp_nlerr *e)
{
	fprintf(stderr, "Error: %s (errno %d)\n",
		e->msg[0] ? e->msg : strerror(-err), -err);
	exit(1);
}

static void enter_netns(const char *name)
{
	int fd = mp_netns_open(name);

	if (fd < 0 || setns(fd, CLONE_NEWNET)) {
		fprintf(stderr, "mpnl: netns %s: %s\n", name,
			strerror(fd < 0 ? -fd : errno));
		exit(1);
	}
	close(fd);
}

static void info(struct mp_rtnl *r, const char *dev)
{
	static const char *const plane_keys[] = {
		[IFLA_MPLANE_PLANE_ID] = "plane_id",
		[IFLA_MPLANE_PLANE_STATE] = "plane_state",
		[IFLA_MPLANE_PLANE_REASON] = "plane_reason",
	};
	struct mp_nlerr e = { .offs = -1 };
	struct mp_link l;
	unsigned int i;
	int err;

	err = mp_rtnl_get_link(r, dev, &l, &e);
	if (err)
		refused(err, &e);
	if (l.present & (1u << IFLA_MPLANE_PLANE_COUNT))
		printf("%s.plane_count=%u\n", dev,
		       l.val[IFLA_MPLANE_PLANE_COUNT]);
	for (i = 1; i < sizeof(plane_keys) / sizeof(plane_keys[0]); i++)
		if (l.plane.present & (1u << i))
			printf("%s.%s=%u\n", dev, plane_keys[i],
			       l.plane.val[i]);
}

static unsigned int raw_attr(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(raw_attrs) / sizeof(raw_attrs[0]); i++)
		if (!strcmp(raw_attrs[i].name, name))
			return raw_attrs[i].type;
	usage();
}

/* RTM_NEWLINK for @dev carrying one u32 attribute in @nest
 * (IFLA_INFO_DATA or IFLA_INFO_SLAVE_DATA); with @create, the device is
 * made. */
static void set(struct mp_rtnl *r, const char *dev, unsigned int nest,
		const char *name, const char *value, bool create)
{
	unsigned int type = raw_attr(name);
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct mp_nlerr e = { .offs = -1 };
	struct nlattr *linkinfo, *data;
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifi;
	char *end;
	unsigned long n;
	int err;

	n = strtoul(value, &end, 0);
	if (!*value || *end || n > UINT32_MAX)
		usage();
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	if (create)
		nlh->nlmsg_flags |= NLM_F_CREATE | NLM_F_EXCL;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, dev);
	linkinfo = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	if (nest == IFLA_INFO_DATA)
		mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "mplane");
	data = mnl_attr_nest_start(nlh, nest);
	mnl_attr_put_u32(nlh, type, n);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, linkinfo);
	err = mp_rtnl_request(r, nlh, NULL, NULL, &e);
	if (err)
		refused(err, &e);
}

int main(int argc, char **argv)
{
	struct mp_rtnl r;
	const char *cmd;
	int i, err;

	if (argc < 4)
		usage();
	cmd = argv[2];
	enter_netns(argv[1]);
	err = mp_rtnl_open(&r, 0);
	if (err) {
		fprintf(stderr, "mpnl: rtnetlink: %s\n", strerror(-err));
		return 1;
	}
	if (!strcmp(cmd, "info")) {
		for (i = 3; i < argc; i++)
			info(&r, argv[i]);
	} else if (!strcmp(cmd, "cases") && argc == 5) {
		err = mpnl_cases(&r, argv[3], argv[4]);
	} else if (argc != 6) {
		usage();
	} else if (!strcmp(cmd, "setlink")) {
		set(&r, argv[3], IFLA_INFO_DATA, argv[4], argv[5], false);
	} else if (!strcmp(cmd, "newlink")) {
		set(&r, argv[3], IFLA_INFO_DATA, argv[4], argv[5], true);
	} else if (!strcmp(cmd, "setslave")) {
		set(&r, argv[3], IFLA_INFO_SLAVE_DATA, argv[4], argv[5], false);
	} else {
		usage();
	}
	mp_rtnl_close(&r);
	return err;
}

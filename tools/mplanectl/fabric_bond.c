// SPDX-License-Identifier: GPL-2.0
/*
 * fabric up --host-bond, the step after the nodes' configuration: bond0
 * on every host over all its rails, the baseline of a host that bonds
 * its NICs.  Per host, on the socket inside its namespace:
 *   1. bond0 is made, with its mode and the host's MAC: balance-xor
 *      hashed by layer3+4, so that a flow keeps a rail, as a static LAG
 *      (or 802.3ad) of a GPU host does, and miimon 100, the interval
 *      most such hosts are given, which is how long a dead rail keeps
 *      its flows;
 *   2. one batch: each rail down (a bond takes its ports closed, and
 *      opens them itself) and enslaved, then bond0's mplane addresses,
 *      bond0 up, and its routes (fabric_routes.c).
 * Every rail already has the bond's MAC, and every leaf port facing the
 * host the same MAC in each plane (fabric_plan.c): a frame the bond
 * hashes onto any rail is taken by that plane's leaf, and each leaf's
 * permanent neighbour for the host is right in every plane.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "mp_linkmsg.h"
#include "mp_nlbatch.h"
#include "mp_out.h"
#include "fabric.h"

#define BOND_MIIMON_MS	100
/* linux/if_bonding.h's, which brings linux/if.h, and that clashes with
 * the net/if.h of mp_linkmsg.h. */
#define BOND_MODE_XOR			2
#define BOND_XMIT_POLICY_LAYER34	1

bool fabric_bond_available(void)
{
	return !access("/sys/module/bonding", F_OK);
}

static int make_bond(struct mp_rtnl *r, const struct mp_fabric_node *n,
		     int *ifindex)
{
	struct nlattr *info, *data;
	struct nlmsghdr *nlh;
	struct mp_nlbatch nb;
	struct mp_link *l;
	struct mp_nlerr e;
	int err;

	err = mp_nlbatch_init(&nb, r);
	if (err)
		return err;
	nlh = fabric_link_msg(&nb, NLM_F_CREATE | NLM_F_EXCL, 0, "%s: made",
			      FABRIC_BOND_NAME);
	mnl_attr_put_strz(nlh, IFLA_IFNAME, FABRIC_BOND_NAME);
	mnl_attr_put(nlh, IFLA_ADDRESS, sizeof(n->ports[0].mac),
		     n->ports[0].mac);
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "bond");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	mnl_attr_put_u8(nlh, IFLA_BOND_MODE, BOND_MODE_XOR);
	mnl_attr_put_u8(nlh, IFLA_BOND_XMIT_HASH_POLICY,
			BOND_XMIT_POLICY_LAYER34);
	mnl_attr_put_u32(nlh, IFLA_BOND_MIIMON, BOND_MIIMON_MS);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, info);
	err = fabric_flush(&nb, n);
	mp_nlbatch_free(&nb);
	if (err)
		return err;
	l = malloc(sizeof(*l));
	if (!l)
		return -ENOMEM;
	err = mp_rtnl_get_link(r, FABRIC_BOND_NAME, l, &e);
	if (err)
		mp_nlerr_report(n->netns, err, &e);
	else
		*ifindex = l->ifindex;
	free(l);
	return err;
}

static void enslave(struct mp_nlbatch *nb, const struct mp_fabric_port *rail,
		    int bond)
{
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifi;

	nlh = fabric_link_msg(nb, 0, rail->ifindex, "%s: down", rail->ifname);
	ifi = mnl_nlmsg_get_payload(nlh);
	ifi->ifi_change = IFF_UP;
	nlh = fabric_link_msg(nb, 0, rail->ifindex,
			      "%s: master " FABRIC_BOND_NAME, rail->ifname);
	mnl_attr_put_u32(nlh, IFLA_MASTER, bond);
}

static int config_bond(struct mp_rtnl *r, const struct mp_fabric *f,
		       const struct mp_fabric_node *n, int ifindex)
{
	const struct mp_fabric_port bond = {
		.ifname = FABRIC_BOND_NAME,
		.ifindex = ifindex,
		.addr4 = n->mplane4,
		.plen4 = 32,
		.addr6 = n->mplane6,
		.plen6 = 128,
	};
	struct mp_nlbatch nb;
	unsigned int i;
	int err;

	err = mp_nlbatch_init(&nb, r);
	if (err)
		return err;
	for (i = 0; i < n->nports; i++)
		enslave(&nb, &n->ports[i], ifindex);
	fabric_addr(&nb, &bond, AF_INET);
	fabric_addr(&nb, &bond, AF_INET6);
	fabric_link_up(&nb, ifindex, bond.ifname);
	fabric_bond_routes(&nb, f, n, ifindex);
	err = fabric_flush(&nb, n);
	mp_nlbatch_free(&nb);
	return err;
}

int fabric_build_bond(struct fabric_build *b)
{
	struct mp_fabric *f = b->f;
	unsigned int i;
	int ifindex = 0, err = 0;

	/* Hosts are the first nodes: node i is host i. */
	for (i = 0; i < f->hosts && !err; i++) {
		err = make_bond(&b->rtnl[i], &f->nodes[i], &ifindex);
		if (!err)
			err = config_bond(&b->rtnl[i], f, &f->nodes[i], ifindex);
		fabric_progress(b, "bond0", i + 1, f->hosts);
	}
	if (err == -ENOMEM)
		mp_err("bond0: %s", strerror(ENOMEM));
	return err;
}

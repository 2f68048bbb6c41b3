// SPDX-License-Identifier: GPL-2.0
/*
 * fabric up, second step: the veth pairs.  Each pair is made by one
 * request from our own namespace, with both ends placed straight into
 * their nodes' namespaces (IFLA_NET_NS_FD, also inside VETH_INFO_PEER),
 * named and addressed (MAC): nothing passes through the host's
 * namespace, where names could clash.  They are brought up by the next
 * step, from inside their namespaces: a veth's peer cannot be opened
 * while its pair is being made (ENOTCONN).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>

#include "mp_nlbatch.h"
#include "mp_out.h"
#include "fabric.h"

/* The attributes of one end: name, MAC and namespace. */
static void put_end(struct nlmsghdr *nlh, const struct mp_fabric_port *p,
		    int nsfd)
{
	mnl_attr_put_strz(nlh, IFLA_IFNAME, p->ifname);
	mnl_attr_put(nlh, IFLA_ADDRESS, sizeof(p->mac), p->mac);
	mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, nsfd);
}

static void put_ifinfo(struct nlmsghdr *nlh)
{
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	ifi->ifi_family = AF_UNSPEC;
}

static void add_pair(struct mp_nlbatch *nb, const struct fabric_build *b,
		     unsigned int node, unsigned int port)
{
	const struct mp_fabric_node *n = &b->f->nodes[node];
	const struct mp_fabric_port *p = &n->ports[port];
	const struct mp_fabric_port *q;
	struct nlattr *linkinfo, *data, *peer;
	struct nlmsghdr *nlh;

	q = &b->f->nodes[p->peer_node].ports[p->peer_port];
	nlh = mp_nlbatch_new(nb, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL,
			     "veth %s/%s - %s/%s", n->name, p->ifname, p->peer,
			     q->ifname);
	put_ifinfo(nlh);
	put_end(nlh, p, b->nsfd[node]);
	linkinfo = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "veth");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	peer = mnl_attr_nest_start(nlh, VETH_INFO_PEER);
	put_ifinfo(nlh);
	put_end(nlh, q, b->nsfd[p->peer_node]);
	mnl_attr_nest_end(nlh, peer);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, linkinfo);
}

static unsigned int count_links(const struct mp_fabric *f)
{
	unsigned int i, n = 0;

	for (i = 0; i < f->nnodes; i++)
		n += f->nodes[i].nports;
	return n / 2;
}

int fabric_build_links(struct fabric_build *b)
{
	unsigned int i, j, done = 0, total = count_links(b->f);
	struct mp_nlbatch nb;
	struct mp_rtnl r;
	int err;

	err = mp_rtnl_open(&r, 0);
	if (err) {
		mp_err("rtnetlink socket: %s", strerror(-err));
		return err;
	}
	err = mp_nlbatch_init(&nb, &r);
	if (err) {
		mp_err("creating links: %s", strerror(-err));
		mp_rtnl_close(&r);
		return err;
	}
	for (i = 0; i < b->f->nnodes && !err; i++) {
		for (j = 0; j < b->f->nodes[i].nports; j++) {
			/* Each pair once, from the end with the lower node. */
			if (b->f->nodes[i].ports[j].peer_node < (int)i)
				continue;
			add_pair(&nb, b, i, j);
			done++;
		}
		err = nb.err;
		fabric_progress(b, "veth pairs", done, total);
	}
	if (!err)
		err = mp_nlbatch_flush(&nb);
	if (err)
		mp_nlbatch_report(&nb, "creating links");
	mp_nlbatch_free(&nb);
	mp_rtnl_close(&r);
	return err;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * fabric up, third step: each node's configuration, sent as one batch on
 * the socket opened inside its namespace: lo up, then per port: up, its
 * addresses, permanent neighbours for the far end (so that the fabric
 * needs no ARP or ND), its tbf, and last the node's routes, whose next
 * hops are reachable by then.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <linux/if_addr.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>

#include "mp_nlbatch.h"
#include "mp_out.h"
#include "fabric.h"

struct ifindex_walk {
	struct mp_fabric_node *n;
};

static int ifindex_msg(const struct nlmsghdr *nlh, void *data)
{
	struct ifindex_walk *w = data;
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;
	unsigned int i;

	if (nlh->nlmsg_type != RTM_NEWLINK)
		return 0;
	mnl_attr_for_each(a, nlh, sizeof(*ifi)) {
		if (mnl_attr_get_type(a) != IFLA_IFNAME)
			continue;
		for (i = 0; i < w->n->nports; i++)
			if (!strcmp(w->n->ports[i].ifname, mnl_attr_get_str(a)))
				w->n->ports[i].ifindex = ifi->ifi_index;
	}
	return 0;
}

/* The kernel chose the ifindexes: ask for them, by name. */
static int read_ifindexes(struct mp_rtnl *r, struct mp_fabric_node *n)
{
	struct ifindex_walk w = { .n = n };
	char req[64] = { 0 };
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(req);
	struct ifinfomsg *ifi;
	struct mp_nlerr e;
	unsigned int i;
	int err;

	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	err = mp_rtnl_request(r, nlh, ifindex_msg, &w, &e);
	if (err) {
		mp_nlerr_report(n->netns, err, &e);
		return err;
	}
	for (i = 0; i < n->nports; i++) {
		if (!n->ports[i].ifindex) {
			mp_err("%s: %s: not found after creating it",
			       n->netns, n->ports[i].ifname);
			return -ENODEV;
		}
	}
	return 0;
}

struct nlmsghdr *fabric_link_msg(struct mp_nlbatch *nb, uint16_t flags,
				 int ifindex, const char *fmt, const char *arg)
{
	struct nlmsghdr *nlh = mp_nlbatch_new(nb, RTM_NEWLINK, flags, fmt, arg);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	return nlh;
}

int fabric_flush(struct mp_nlbatch *nb, const struct mp_fabric_node *n)
{
	int err = nb->err ? nb->err : mp_nlbatch_flush(nb);

	if (err)
		mp_nlbatch_report(nb, n->netns);
	return err;
}

void fabric_link_up(struct mp_nlbatch *nb, int ifindex, const char *name)
{
	struct nlmsghdr *nlh = fabric_link_msg(nb, 0, ifindex, "%s up", name);
	struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);

	ifi->ifi_flags = IFF_UP;
	ifi->ifi_change = IFF_UP;
}

void fabric_addr(struct mp_nlbatch *nb, const struct mp_fabric_port *p,
		 int family)
{
	const void *addr = family == AF_INET ? (const void *)&p->addr4 :
					       (const void *)&p->addr6;
	size_t len = family == AF_INET ? 4 : 16;
	char buf[INET6_ADDRSTRLEN + 8];
	struct nlmsghdr *nlh;
	struct ifaddrmsg *ifa;

	nlh = mp_nlbatch_new(nb, RTM_NEWADDR, NLM_F_CREATE | NLM_F_REPLACE,
			     "%s: address %s", p->ifname,
			     fabric_addr_str(family, addr, family == AF_INET ?
					     p->plen4 : p->plen6,
					     buf, sizeof(buf)));
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = family;
	ifa->ifa_prefixlen = family == AF_INET ? p->plen4 : p->plen6;
	ifa->ifa_index = p->ifindex;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	mnl_attr_put(nlh, IFA_LOCAL, len, addr);
	mnl_attr_put(nlh, IFA_ADDRESS, len, addr);
	if (family == AF_INET6) {
		/* Usable at once: no duplicate detection on a veth. */
		ifa->ifa_flags = IFA_F_NODAD;
		mnl_attr_put_u32(nlh, IFA_FLAGS, IFA_F_NODAD);
	}
}

/* The far end's address and MAC, for good: no ARP or ND on the fabric. */
void fabric_neigh(struct mp_nlbatch *nb, const struct mp_fabric_port *p,
		  const struct mp_fabric_port *q, int family)
{
	const void *addr = family == AF_INET ? (const void *)&q->addr4 :
					       (const void *)&q->addr6;
	char buf[INET6_ADDRSTRLEN];
	struct nlmsghdr *nlh;
	struct ndmsg *ndm;

	inet_ntop(family, addr, buf, sizeof(buf));
	nlh = mp_nlbatch_new(nb, RTM_NEWNEIGH, NLM_F_CREATE | NLM_F_REPLACE,
			     "%s: neighbour %s", p->ifname, buf);
	ndm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ndm));
	ndm->ndm_family = family;
	ndm->ndm_ifindex = p->ifindex;
	ndm->ndm_state = NUD_PERMANENT;
	mnl_attr_put(nlh, NDA_DST, family == AF_INET ? 4 : 16, addr);
	mnl_attr_put(nlh, NDA_LLADDR, sizeof(q->mac), q->mac);
}

void fabric_config_port(struct mp_nlbatch *nb, const struct mp_fabric *f,
			const struct mp_fabric_port *p)
{
	const struct mp_fabric_port *q = &f->nodes[p->peer_node].ports[p->peer_port];

	fabric_link_up(nb, p->ifindex, p->ifname);
	/* A bond's port, a host's rail: bond0 has its addresses and its
	 * neighbours (fabric_bond.c), the port none.  Hosts are the first
	 * nodes, and q's peer is p's own node. */
	if (f->host_bond && (unsigned int)q->peer_node < f->hosts)
		return;
	fabric_addr(nb, p, AF_INET);
	fabric_addr(nb, p, AF_INET6);
	fabric_neigh(nb, p, q, AF_INET);
	fabric_neigh(nb, p, q, AF_INET6);
}

static void config_node(struct mp_nlbatch *nb, const struct mp_fabric *f,
			const struct mp_fabric_node *n)
{
	unsigned int i;

	fabric_link_up(nb, FABRIC_LO_IFINDEX, "lo");
	for (i = 0; i < n->nports; i++) {
		fabric_config_port(nb, f, &n->ports[i]);
		fabric_tbf(nb, &n->ports[i]);
	}
	fabric_routes(nb, f, n);
}

int fabric_build_config(struct fabric_build *b)
{
	struct mp_fabric_node *n;
	struct mp_nlbatch nb;
	unsigned int i;
	int err = 0;

	for (i = 0; i < b->f->nnodes && !err; i++) {
		n = &b->f->nodes[i];
		err = read_ifindexes(&b->rtnl[i], n);
		if (err)
			break;
		err = mp_nlbatch_init(&nb, &b->rtnl[i]);
		if (err) {
			mp_err("%s: %s", n->netns, strerror(-err));
			break;
		}
		config_node(&nb, b->f, n);
		err = mp_nlbatch_flush(&nb);
		if (err)
			fabric_qdisc_report(&nb, n->netns);
		mp_nlbatch_free(&nb);
		fabric_progress(b, "nodes configured", i + 1, b->f->nnodes);
	}
	return err;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The routes of each node of a fabric.  In plane P, for host H:
 *   hosts   10.(100+P).0.0/16 and fd10:P::/32 via their leaf, per rail;
 *   leaves  to their own hosts' mplane addresses via the host's rail,
 *           and to every other host's rail subnet and mplane address
 *           over all spines of the plane, as one ECMP multipath route;
 *   spines  to every host's rail subnet and mplane address via its leaf.
 * Hosts with mp0 also route the mplane addresses, 10.99/16 and fd99::/64,
 * via mp0 (metric 10, from their own), and via every rail r<P> (metric
 * 100+P), the routes mp0 looks up to send out of that rail.  Without mp0,
 * hosts have no route for them, unless the fabric has --host-multipath:
 * then each host owns its mplane addresses on lo and routes the others'
 * over all its rails as one multipath route, the kernel's ECMP; or with
 * --host-bond, the hosts' bonds own them and route the others' on link,
 * and the rails, the bonds' ports, have no routes.
 */
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/rtnetlink.h>

#include "mp_nlbatch.h"
#include "fabric.h"

struct nexthop {
	int ifindex;
	const void *gw;			/* in_addr or in6_addr; NULL: none */
	bool onlink;			/* @gw is on the link, whatever its
					 * subnets (one next hop only) */
};

/* What most routes leave out: a metric and a preferred source. */
struct route_extra {
	unsigned int metric;		/* 0: the kernel's default */
	const void *src;		/* NULL: none */
};

/* The prefixes of one host in one plane, per family. */
struct host_prefixes {
	struct in_addr rail4, mplane4;
	struct in6_addr rail6, mplane6;
};

static void put_nexthops(struct nlmsghdr *nlh, int family,
			 const struct nexthop *nh, unsigned int nnh)
{
	size_t len = family == AF_INET ? 4 : 16;
	struct rtnexthop *rtnh;
	struct nlattr *mp;
	unsigned int i;

	if (nnh == 1) {
		if (nh->gw)
			mnl_attr_put(nlh, RTA_GATEWAY, len, nh->gw);
		mnl_attr_put_u32(nlh, RTA_OIF, nh->ifindex);
		return;
	}
	mp = mnl_attr_nest_start(nlh, RTA_MULTIPATH);
	for (i = 0; i < nnh; i++) {
		rtnh = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtnh));
		rtnh->rtnh_ifindex = nh[i].ifindex;
		mnl_attr_put(nlh, RTA_GATEWAY, len, nh[i].gw);
		rtnh->rtnh_len = (char *)mnl_nlmsg_get_payload_tail(nlh) -
				 (char *)rtnh;
	}
	mnl_attr_nest_end(nlh, mp);
}

/*
 * NLM_F_REPLACE replaces a route of the same prefix and metric only
 * (IPv4 and IPv6 alike): the routes of one prefix with other metrics,
 * such as mp0's and its rails', stay side by side.
 */
static void add_route_extra(struct mp_nlbatch *nb, int family,
			    const void *dst, unsigned int plen,
			    const struct nexthop *nh, unsigned int nnh,
			    const struct route_extra *x)
{
	size_t len = family == AF_INET ? 4 : 16;
	char buf[INET6_ADDRSTRLEN + 8], metric[24] = "";
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;

	if (x->metric)
		snprintf(metric, sizeof(metric), " metric %u", x->metric);
	nlh = mp_nlbatch_new(nb, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_REPLACE,
			     "route %s%s",
			     fabric_addr_str(family, dst, plen, buf, sizeof(buf)),
			     metric);
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = family;
	rtm->rtm_dst_len = plen;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = RTPROT_STATIC;
	/* As ip(8): a route without a gateway is on the link. */
	rtm->rtm_scope = nh->gw ? RT_SCOPE_UNIVERSE : RT_SCOPE_LINK;
	rtm->rtm_type = RTN_UNICAST;
	if (nnh == 1 && nh->onlink)
		rtm->rtm_flags |= RTNH_F_ONLINK;
	mnl_attr_put(nlh, RTA_DST, len, dst);
	if (x->metric)
		mnl_attr_put_u32(nlh, RTA_PRIORITY, x->metric);
	if (x->src)
		mnl_attr_put(nlh, RTA_PREFSRC, len, x->src);
	put_nexthops(nlh, family, nh, nnh);
}

static void add_route(struct mp_nlbatch *nb, int family, const void *dst,
		      unsigned int plen, const struct nexthop *nh,
		      unsigned int nnh)
{
	static const struct route_extra none;

	add_route_extra(nb, family, dst, plen, nh, nnh, &none);
}

/* Keep the first @plen bits of @a (@len bytes). */
static void mask(void *a, size_t len, unsigned int plen)
{
	unsigned char *b = a;
	size_t i;

	for (i = 0; i < len; i++, plen = plen > 8 ? plen - 8 : 0)
		if (plen < 8)
			b[i] &= 0xff00 >> plen;
}

static void host_prefixes(const struct mp_fabric *f, unsigned int host,
			  int plane, struct host_prefixes *hp)
{
	const struct mp_fabric_port *rail = &f->nodes[host].ports[plane];

	hp->rail4 = rail->addr4;
	mask(&hp->rail4, 4, rail->plen4);
	hp->rail6 = rail->addr6;
	mask(&hp->rail6, 16, rail->plen6);
	fabric_mplane_addr4(host, &hp->mplane4);
	fabric_mplane_addr6(host, &hp->mplane6);
}

/* The IPv4 and IPv6 next hops of port @p: the addresses of its peer. */
static void nexthops_of(const struct mp_fabric *f,
			const struct mp_fabric_port *p, struct nexthop *nh4,
			struct nexthop *nh6)
{
	const struct mp_fabric_port *q;

	q = &f->nodes[p->peer_node].ports[p->peer_port];
	nh4->ifindex = nh6->ifindex = p->ifindex;
	nh4->gw = &q->addr4;
	nh6->gw = &q->addr6;
}

/* Both of a host's prefixes (rail subnet, mplane address) per family. */
static void add_host_routes(struct mp_nlbatch *nb,
			    const struct host_prefixes *hp, bool rail,
			    const struct nexthop *nh4,
			    const struct nexthop *nh6, unsigned int nnh)
{
	if (rail) {
		add_route(nb, AF_INET, &hp->rail4, 24, nh4, nnh);
		add_route(nb, AF_INET6, &hp->rail6, 64, nh6, nnh);
	}
	add_route(nb, AF_INET, &hp->mplane4, 32, nh4, nnh);
	add_route(nb, AF_INET6, &hp->mplane6, 128, nh6, nnh);
}

static void host_routes(struct mp_nlbatch *nb, const struct mp_fabric *f,
			const struct mp_fabric_node *n)
{
	struct in6_addr plane6 = IN6ADDR_ANY_INIT;
	struct nexthop nh4, nh6;
	struct in_addr plane4;
	unsigned int p;

	for (p = 0; p < n->nports; p++) {
		nexthops_of(f, &n->ports[p], &nh4, &nh6);
		inet_pton(AF_INET, "10.0.0.0", &plane4);
		((unsigned char *)&plane4)[1] = 100 + p;
		plane6.s6_addr[0] = 0xfd;
		plane6.s6_addr[1] = 0x10;
		plane6.s6_addr[2] = p >> 8;
		plane6.s6_addr[3] = p & 0xff;
		add_route(nb, AF_INET, &plane4, 16, &nh4, 1);
		add_route(nb, AF_INET6, &plane6, 32, &nh6, 1);
	}
}

static void mplane_prefixes(struct in_addr *a4, struct in6_addr *a6);

/* --host-multipath: the mplane addresses on lo, and one route over all
 * the rails to the others', from them. */
static void multipath_host_routes(struct mp_nlbatch *nb,
				  const struct mp_fabric *f,
				  const struct mp_fabric_node *n)
{
	struct nexthop nh4[FABRIC_MAX_PLANES], nh6[FABRIC_MAX_PLANES];
	const struct route_extra x4 = { 0, &n->mplane4 };
	const struct route_extra x6 = { 0, &n->mplane6 };
	const struct mp_fabric_port lo = {
		.ifname = "lo", .ifindex = FABRIC_LO_IFINDEX,
		.addr4 = n->mplane4, .plen4 = 32,
		.addr6 = n->mplane6, .plen6 = 128,
	};
	struct in6_addr all6;
	struct in_addr all4;
	unsigned int p;

	fabric_addr(nb, &lo, AF_INET);
	fabric_addr(nb, &lo, AF_INET6);
	for (p = 0; p < n->nports && p < FABRIC_MAX_PLANES; p++)
		nexthops_of(f, &n->ports[p], &nh4[p], &nh6[p]);
	mplane_prefixes(&all4, &all6);
	add_route_extra(nb, AF_INET, &all4, 16, nh4, p, &x4);
	add_route_extra(nb, AF_INET6, &all6, 64, nh6, p, &x6);
}

/*
 * --host-bond: one route per family to the others' mplane addresses, by
 * plane 0's leaf, on the bond's link.  The bond sends it out of any rail
 * by its hash, and the leaf of that plane takes it: its port has the
 * same MAC in every plane (fabric_plan.c).  The addresses themselves go
 * on the bond with its other settings (fabric_bond.c).
 */
void fabric_bond_routes(struct mp_nlbatch *nb, const struct mp_fabric *f,
			const struct mp_fabric_node *n, int bond)
{
	const struct mp_fabric_port *leaf =
		&f->nodes[n->ports[0].peer_node].ports[n->ports[0].peer_port];
	const struct mp_fabric_port dev = {
		.ifname = FABRIC_BOND_NAME, .ifindex = bond,
	};
	const struct nexthop nh4 = { bond, &leaf->addr4, true };
	const struct nexthop nh6 = { bond, &leaf->addr6, true };
	const struct route_extra x4 = { 0, &n->mplane4 };
	const struct route_extra x6 = { 0, &n->mplane6 };
	struct in6_addr all6;
	struct in_addr all4;

	fabric_neigh(nb, &dev, leaf, AF_INET);
	fabric_neigh(nb, &dev, leaf, AF_INET6);
	mplane_prefixes(&all4, &all6);
	add_route_extra(nb, AF_INET, &all4, 16, &nh4, 1, &x4);
	add_route_extra(nb, AF_INET6, &all6, 64, &nh6, 1, &x6);
}

/* 10.99.0.0/16 and fd99::/64: every host's mplane address. */
static void mplane_prefixes(struct in_addr *a4, struct in6_addr *a6)
{
	fabric_mplane_addr4(0, a4);
	fabric_mplane_addr6(0, a6);
	mask(a4, 4, 16);
	mask(a6, 16, 64);
}

/*
 * Through mp0 first (metric 10), from the host's own mplane address;
 * and through each rail (metric 100+P), which traffic only takes when
 * it is bound to the rail: mp0 looks those up, with the rail as the
 * output device, to send on that plane.
 */
void fabric_mp0_routes(struct mp_nlbatch *nb, const struct mp_fabric *f,
		       const struct mp_fabric_node *n, int mp0)
{
	const struct nexthop dev = { .ifindex = mp0 };
	const struct route_extra x4 = { 10, &n->mplane4 };
	const struct route_extra x6 = { 10, &n->mplane6 };
	struct nexthop nh4, nh6;
	struct route_extra rail = {};
	struct in6_addr all6;
	struct in_addr all4;
	unsigned int p;

	mplane_prefixes(&all4, &all6);
	for (p = 0; p < n->nports; p++) {
		nexthops_of(f, &n->ports[p], &nh4, &nh6);
		rail.metric = 100 + p;
		add_route_extra(nb, AF_INET, &all4, 16, &nh4, 1, &rail);
		add_route_extra(nb, AF_INET6, &all6, 64, &nh6, 1, &rail);
	}
	add_route_extra(nb, AF_INET, &all4, 16, &dev, 1, &x4);
	add_route_extra(nb, AF_INET6, &all6, 64, &dev, 1, &x6);
}

/*
 * The spines leaf @n may send host @dst_leaf's traffic to: every one, or
 * with @uplinks those whose links to both leaves are up.  How many.
 */
static unsigned int leaf_nexthops(const struct mp_fabric *f,
				  const struct mp_fabric_node *n,
				  unsigned int dst_leaf,
				  const unsigned char *uplinks,
				  struct nexthop *nh4, struct nexthop *nh6)
{
	const struct mp_fabric_port *p;
	unsigned int i, s, up = 0;

	/* The uplinks, s0 to s<S-1>, are the ECMP group of the plane. */
	for (i = 0; i < n->nports; i++) {
		p = &n->ports[i];
		if (f->nodes[p->peer_node].role != MP_NODE_SPINE)
			continue;
		s = f->nodes[p->peer_node].index;
		if (uplinks && (!uplinks[n->index * f->spines + s] ||
				!uplinks[dst_leaf * f->spines + s]))
			continue;
		nexthops_of(f, p, &nh4[up], &nh6[up]);
		up++;
	}
	return up;
}

void fabric_leaf_routes_over(struct mp_nlbatch *nb, const struct mp_fabric *f,
			     const struct mp_fabric_node *n,
			     const unsigned char *uplinks)
{
	/* One more than the spines: the last is for a host's own leaf. */
	struct nexthop nh4[FABRIC_MAX_SPINES + 1], nh6[FABRIC_MAX_SPINES + 1];
	const struct mp_fabric_port *p;
	struct host_prefixes hp;
	unsigned int i, up;

	for (i = 0; i < f->hosts; i++) {
		host_prefixes(f, i, n->plane, &hp);
		if (fabric_leaf_of(f, i) != (unsigned int)n->index) {
			up = leaf_nexthops(f, n, fabric_leaf_of(f, i), uplinks,
					   nh4, nh6);
			/* No spine reaches it: what it had stays. */
			if (up)
				add_host_routes(nb, &hp, true, nh4, nh6, up);
			continue;
		}
		up = 0;
		/* Our own host: its rail subnet is connected. */
		for (p = n->ports; strcmp(p->peer, f->nodes[i].name); p++)
			;
		nexthops_of(f, p, &nh4[up], &nh6[up]);
		add_host_routes(nb, &hp, false, &nh4[up], &nh6[up], 1);
	}
}

static void spine_routes(struct mp_nlbatch *nb, const struct mp_fabric *f,
			 const struct mp_fabric_node *n)
{
	struct host_prefixes hp;
	struct nexthop nh4, nh6;
	unsigned int i;

	for (i = 0; i < f->hosts; i++) {
		/* Port l<L> is the downlink to leaf L. */
		nexthops_of(f, &n->ports[fabric_leaf_of(f, i)], &nh4, &nh6);
		host_prefixes(f, i, n->plane, &hp);
		add_host_routes(nb, &hp, true, &nh4, &nh6, 1);
	}
}

void fabric_routes(struct mp_nlbatch *nb, const struct mp_fabric *f,
		   const struct mp_fabric_node *n)
{
	switch (n->role) {
	case MP_NODE_HOST:
		/* A bond's ports have no routes: its own are on it. */
		if (!f->host_bond)
			host_routes(nb, f, n);
		if (f->host_multipath)
			multipath_host_routes(nb, f, n);
		break;
	case MP_NODE_LEAF:
		fabric_leaf_routes_over(nb, f, n, NULL);
		break;
	case MP_NODE_SPINE:
		spine_routes(nb, f, n);
		break;
	}
}

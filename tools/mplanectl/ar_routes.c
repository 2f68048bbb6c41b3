// SPDX-License-Identifier: GPL-2.0
/*
 * The switch program's routes come from the kernel's own: every unicast
 * route of the main table that has gateways becomes one next-hop group,
 * each next hop resolved to its egress port, the port's MAC and the
 * gateway's MAC from the neighbour table.  Routes without a gateway
 * (connected subnets) are left to the kernel, which resolves them per
 * destination; so is any route whose gateway has no MAC yet, and the
 * kernel is asked to resolve that gateway (NTF_USE), so that the watcher,
 * seeing the neighbour appear, brings the route to ar.
 *
 * Two kinds of entry keep ar from forwarding what a router must answer
 * itself: the switch's own addresses and broadcast addresses (the local
 * table's) become entries without members, which ar hands to the kernel
 * whatever route covers them; and a default route is not copied, since
 * it would cover them all, and neighbour discovery with them.  The
 * kernel forwards what only a default route reaches.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>

#include "ar.h"
#include "mp_rtnl.h"
#include "mplane_maps.h"

#define AR_MAX_NEIGH	4096
#define AR_MAX_LINKS	256
#define AR_MAX_WANTED	64

struct ar_neigh {
	int family;
	int ifindex;
	unsigned char addr[16];
	unsigned char mac[6];
};

struct ar_link {
	int ifindex;
	unsigned char mac[6];
};

struct ar_tables {
	struct ar_neigh *neigh;
	unsigned int nneigh;
	struct ar_link links[AR_MAX_LINKS];
	unsigned int nlinks;
	ar_route_cb cb;
	void *data;
	unsigned int routes;
	unsigned int unresolved;
	unsigned int own;		/* local and broadcast entries */
	/* Gateways without a MAC, for the kernel to resolve. */
	struct ar_neigh wanted[AR_MAX_WANTED];
	unsigned int nwanted;
};

static int link_cb(const struct mp_link *l, int type, void *data)
{
	struct ar_tables *t = data;
	struct ar_link *al;

	(void)type;
	if (t->nlinks >= AR_MAX_LINKS || !l->has_addr)
		return 0;
	al = &t->links[t->nlinks++];
	al->ifindex = l->ifindex;
	memcpy(al->mac, l->addr, sizeof(al->mac));
	return 0;
}

static int neigh_attr(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(a);

	if (type <= NDA_MAX)
		tb[type] = a;
	return MNL_CB_OK;
}

static int neigh_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ndmsg *nd = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[NDA_MAX + 1] = {};
	struct ar_tables *t = data;
	struct ar_neigh *n;
	size_t alen = nd->ndm_family == AF_INET ? 4 : 16;

	if (nlh->nlmsg_type != RTM_NEWNEIGH || t->nneigh >= AR_MAX_NEIGH)
		return 0;
	if (nd->ndm_state & (NUD_INCOMPLETE | NUD_FAILED | NUD_NOARP))
		return 0;
	mnl_attr_parse(nlh, sizeof(*nd), neigh_attr, tb);
	if (!tb[NDA_DST] || !tb[NDA_LLADDR] ||
	    mnl_attr_get_payload_len(tb[NDA_DST]) != alen ||
	    mnl_attr_get_payload_len(tb[NDA_LLADDR]) != 6)
		return 0;
	n = &t->neigh[t->nneigh++];
	n->family = nd->ndm_family;
	n->ifindex = nd->ndm_ifindex;
	memcpy(n->addr, mnl_attr_get_payload(tb[NDA_DST]), alen);
	memcpy(n->mac, mnl_attr_get_payload(tb[NDA_LLADDR]), 6);
	return 0;
}

static const unsigned char *link_mac(const struct ar_tables *t, int ifindex)
{
	unsigned int i;

	for (i = 0; i < t->nlinks; i++)
		if (t->links[i].ifindex == ifindex)
			return t->links[i].mac;
	return NULL;
}

static const unsigned char *neigh_mac(const struct ar_tables *t, int family,
				      int ifindex, const void *gw)
{
	size_t alen = family == AF_INET ? 4 : 16;
	unsigned int i;

	for (i = 0; i < t->nneigh; i++)
		if (t->neigh[i].family == family &&
		    t->neigh[i].ifindex == ifindex &&
		    !memcmp(t->neigh[i].addr, gw, alen))
			return t->neigh[i].mac;
	return NULL;
}

static void want(struct ar_tables *t, int family, int ifindex,
		 const struct nlattr *gw)
{
	struct ar_neigh *n;

	if (t->nwanted >= AR_MAX_WANTED)
		return;
	n = &t->wanted[t->nwanted++];
	n->family = family;
	n->ifindex = ifindex;
	memcpy(n->addr, mnl_attr_get_payload(gw), family == AF_INET ? 4 : 16);
}

/* Add next hop (@ifindex, @gw) to @g; false if it cannot be resolved. */
static bool add_nh(struct ar_tables *t, int family, int ifindex,
		   const struct nlattr *gw, struct mplane_nh_group *g)
{
	const unsigned char *smac, *dmac;
	struct mplane_nh *nh;

	if (!gw || g->count >= MPLANE_NH_MAX)
		return false;
	smac = link_mac(t, ifindex);
	dmac = neigh_mac(t, family, ifindex, mnl_attr_get_payload(gw));
	if (smac && !dmac)
		want(t, family, ifindex, gw);
	if (!smac || !dmac)
		return false;
	nh = &g->nh[g->count++];
	nh->ifindex = ifindex;
	memcpy(nh->smac, smac, 6);
	memcpy(nh->dmac, dmac, 6);
	return true;
}

static int route_attr(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(a);

	if (type <= RTA_MAX)
		tb[type] = a;
	return MNL_CB_OK;
}

/* Every next hop of RTA_MULTIPATH; false if any of them is unresolved,
 * since a partial group would skew the choice. */
static bool add_multipath(struct ar_tables *t, int family,
			  const struct nlattr *mp, struct mplane_nh_group *g)
{
	const struct rtnexthop *rtnh = mnl_attr_get_payload(mp);
	int len = mnl_attr_get_payload_len(mp);
	bool ok = true;

	while (len >= (int)sizeof(*rtnh) && rtnh->rtnh_len >= sizeof(*rtnh) &&
	       rtnh->rtnh_len <= len) {
		const struct nlattr *tb[RTA_MAX + 1] = {};

		mnl_attr_parse_payload(RTNH_DATA(rtnh),
				       rtnh->rtnh_len - sizeof(*rtnh),
				       route_attr, tb);
		/* A next hop behind a down port is no member: its port
		 * gets nothing, and its gateway has no MAC anyway. */
		if (!(rtnh->rtnh_flags & (RTNH_F_DEAD | RTNH_F_LINKDOWN)) &&
		    !add_nh(t, family, rtnh->rtnh_ifindex, tb[RTA_GATEWAY], g))
			ok = false;
		len -= RTNH_ALIGN(rtnh->rtnh_len);
		rtnh = RTNH_NEXT(rtnh);
	}
	/* Every member is looked at, so that every missing MAC is asked
	 * for at once. */
	return ok && g->count > 0;
}

/* A local, broadcast or (IPv6 subnet-router) anycast address of the
 * switch: an entry with no member, which ar leaves to the kernel. */
static int own_address(struct ar_tables *t, const struct rtmsg *rt,
		       const struct nlattr *const *tb)
{
	static const struct mplane_nh_group none;
	unsigned char dst[16] = {};

	if (!tb[RTA_DST])
		return 0;
	memcpy(dst, mnl_attr_get_payload(tb[RTA_DST]),
	       rt->rtm_family == AF_INET ? 4 : 16);
	t->own++;
	return t->cb(rt->rtm_family, dst, rt->rtm_dst_len, &none, t->data);
}

static int route_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct rtmsg *rt = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[RTA_MAX + 1] = {};
	struct mplane_nh_group g = {};
	struct ar_tables *t = data;
	unsigned char dst[16] = {};
	__u32 table;
	bool ok;

	if (nlh->nlmsg_type != RTM_NEWROUTE)
		return 0;
	mnl_attr_parse(nlh, sizeof(*rt), route_attr, tb);
	table = tb[RTA_TABLE] ? mnl_attr_get_u32(tb[RTA_TABLE]) : rt->rtm_table;
	if (table == RT_TABLE_LOCAL &&
	    (rt->rtm_type == RTN_LOCAL || rt->rtm_type == RTN_BROADCAST ||
	     rt->rtm_type == RTN_ANYCAST))
		return own_address(t, rt, tb);
	if (table != RT_TABLE_MAIN || rt->rtm_type != RTN_UNICAST ||
	    !rt->rtm_dst_len)
		return 0;
	if (tb[RTA_MULTIPATH])
		ok = add_multipath(t, rt->rtm_family, tb[RTA_MULTIPATH], &g);
	else if (rt->rtm_flags & (RTNH_F_DEAD | RTNH_F_LINKDOWN))
		return 0;		/* behind a down port */
	else if (tb[RTA_GATEWAY] && tb[RTA_OIF])
		ok = add_nh(t, rt->rtm_family, mnl_attr_get_u32(tb[RTA_OIF]),
			    tb[RTA_GATEWAY], &g);
	else
		return 0;		/* connected: the kernel's */
	if (!ok) {
		t->unresolved++;
		return 0;
	}
	if (tb[RTA_DST])
		memcpy(dst, mnl_attr_get_payload(tb[RTA_DST]),
		       rt->rtm_family == AF_INET ? 4 : 16);
	t->routes++;
	return t->cb(rt->rtm_family, dst, rt->rtm_dst_len, &g, t->data);
}

static int dump(struct mp_rtnl *r, int type, int family, size_t hdrlen,
		mp_rtnl_cb cb, void *data)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct mp_nlerr e;
	struct rtgenmsg *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	/* rtmsg and ndmsg both begin with the family, like rtgenmsg. */
	g = mnl_nlmsg_put_extra_header(nlh, hdrlen);
	g->rtgen_family = family;
	return mp_rtnl_request(r, nlh, cb, data, &e);
}

/*
 * Ask the kernel to resolve a gateway, as if a packet were waiting for it
 * (NTF_USE): it sends the ARP request or neighbour solicitation itself.
 */
static void resolve(struct mp_rtnl *r, const struct ar_neigh *n)
{
	char buf[256];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct mp_nlerr e;
	struct ndmsg *nd;

	nlh->nlmsg_type = RTM_NEWNEIGH;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE;
	nd = mnl_nlmsg_put_extra_header(nlh, sizeof(*nd));
	nd->ndm_family = n->family;
	nd->ndm_ifindex = n->ifindex;
	nd->ndm_flags = NTF_USE;
	mnl_attr_put(nlh, NDA_DST, n->family == AF_INET ? 4 : 16, n->addr);
	mp_rtnl_request(r, nlh, NULL, NULL, &e);
}

int ar_read_routes(struct ar_route_stats *st, ar_route_cb cb, void *data)
{
	static const int families[] = { AF_INET, AF_INET6 };
	struct ar_tables *t;
	struct mp_nlerr e;
	struct mp_rtnl r;
	unsigned int i;
	int err;

	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->neigh = calloc(AR_MAX_NEIGH, sizeof(*t->neigh));
	t->cb = cb;
	t->data = data;
	err = t->neigh ? mp_rtnl_open(&r, 0) : -ENOMEM;
	if (err)
		goto out;
	err = mp_rtnl_dump_links(&r, link_cb, NULL, t, &e);
	for (i = 0; i < 2 && !err; i++)
		err = dump(&r, RTM_GETNEIGH, families[i], sizeof(struct ndmsg),
			   neigh_cb, t);
	for (i = 0; i < 2 && !err; i++)
		err = dump(&r, RTM_GETROUTE, families[i], sizeof(struct rtmsg),
			   route_cb, t);
	for (i = 0; i < t->nwanted && !err; i++)
		resolve(&r, &t->wanted[i]);
	mp_rtnl_close(&r);
	st->routes = t->routes;
	st->unresolved = t->unresolved;
	st->own = t->own;
out:
	free(t->neigh);
	free(t);
	return err;
}

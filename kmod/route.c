// SPDX-License-Identifier: GPL-2.0
/*
 * Each plane's routes to its peers, cached per CPU.
 *
 * mp0 sends every packet to the next hop that the FIB gives for its
 * destination through the plane's rail (oif = rail).  Looking that up
 * per packet cost two FIB walks for IPv4; a fabric host talks to a few
 * hundred peers at most, so the answers are kept: per plane and per CPU,
 * a direct-mapped table keyed by destination (and source, mark and TOS,
 * which the lookup also reads), holding a reference to each route.
 *
 * Per CPU, because transmit runs with bottom halves off and so owns its
 * CPU's table without a lock.  A route is checked on every use with
 * dst_check(), which fails once the FIB changed under it (IPv4's
 * generation id, IPv6's route cookie); the packet then looks it up again.
 * The table is emptied when the plane is freed, after a grace period, so
 * that packets still on their way never see a freed route.
 *
 * Packets take the cached route without a reference of their own
 * (skb_dst_set_noref): the stack takes one before the packet leaves this
 * RCU section (qdisc, neighbour queue), and a released route is freed
 * only after a grace period.
 */
#include <linux/hash.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <net/dst.h>
#include <net/ip.h>
#include <net/ip6_fib.h>
#include <net/ip6_route.h>
#include <net/ip_fib.h>
#include <net/route.h>

#include "compat.h"
#include "mplane.h"

/* Entries per plane and CPU: 64 * 40 bytes. */
#define MPLANE_ROUTE_BITS	6
#define MPLANE_ROUTE_SLOTS	BIT(MPLANE_ROUTE_BITS)

/* What the lookup reads, and so what a cached route is valid for. */
struct mplane_route_key {
	struct in6_addr daddr;	/* IPv4 as v4-mapped */
	__be32 saddr4;		/* IPv4: policy routes may match the source */
	u32 mark;
	u8 tos;
	u8 v4;
};

struct mplane_route {
	struct dst_entry *dst;	/* a reference, or NULL */
	u32 cookie;		/* IPv6: for dst_check() */
	struct mplane_route_key key;
};

struct mplane_routes {
	struct mplane_route slot[MPLANE_ROUTE_SLOTS];
};

int mplane_route_init(struct mplane_plane *plane)
{
	plane->routes = alloc_percpu(struct mplane_routes);
	return plane->routes ? 0 : -ENOMEM;
}

/* Drops every cached route.  Only once no packet can reach the table. */
void mplane_route_uninit(struct mplane_plane *plane)
{
	struct mplane_routes *routes;
	unsigned int i;
	int cpu;

	if (!plane->routes)
		return;
	for_each_possible_cpu(cpu) {
		routes = per_cpu_ptr(plane->routes, cpu);
		for (i = 0; i < MPLANE_ROUTE_SLOTS; i++)
			dst_release(routes->slot[i].dst);
	}
	free_percpu(plane->routes);
	plane->routes = NULL;
}

static void mplane_route_key_of(const struct sk_buff *skb,
				struct mplane_route_key *key)
{
	memset(key, 0, sizeof(*key));
	key->mark = skb->mark;
	if (skb->protocol == htons(ETH_P_IP)) {
		const struct iphdr *iph = ip_hdr(skb);

		key->v4 = 1;
		ipv6_addr_set_v4mapped(iph->daddr, &key->daddr);
		key->saddr4 = iph->saddr;
		key->tos = iph->tos & IPTOS_TOS_MASK;
	} else {
		key->daddr = ipv6_hdr(skb)->daddr;
	}
}

static struct mplane_route *mplane_route_slot(struct mplane_plane *plane,
					      const struct mplane_route_key *key)
{
	struct mplane_routes *routes = this_cpu_ptr(plane->routes);
	u32 h = (__force u32)(key->daddr.s6_addr32[3] ^ key->daddr.s6_addr32[1]);

	return &routes->slot[hash_32(h, MPLANE_ROUTE_BITS)];
}

/* Route out of @rail, as a reference; NULL when the rail has no route. */
static struct dst_entry *mplane_route_lookup_v4(struct net_device *rail,
						const struct sk_buff *skb,
						const struct mplane_route_key *key)
{
	const struct iphdr *iph = ip_hdr(skb);
	struct net *net = dev_net(rail);
	struct fib_result res;
	struct rtable *rt;
	struct flowi4 fl4 = {
		.flowi4_oif = rail->ifindex,
		.flowi4_flags = FLOWI_FLAG_ANYSRC,
		.flowi4_mark = key->mark,
		.flowi4_proto = iph->protocol,
		.daddr = iph->daddr,
		.saddr = iph->saddr,
	};

	mplane_compat_flowi4_set_tos(&fl4, key->tos);
	/*
	 * With an oif and no matching route, ip_route_output assumes the
	 * destination is on-link; the FIB alone says whether this plane
	 * really has a route.
	 */
	if (fib_lookup(net, &fl4, &res, 0) || res.type != RTN_UNICAST)
		return NULL;
	rt = ip_route_output_flow(net, &fl4, NULL);
	if (IS_ERR(rt))
		return NULL;
	if (rt->rt_type != RTN_UNICAST || rt->dst.dev != rail) {
		ip_rt_put(rt);
		return NULL;
	}
	return &rt->dst;
}

static struct dst_entry *mplane_route_lookup_v6(struct net_device *rail,
						const struct sk_buff *skb,
						const struct mplane_route_key *key,
						u32 *cookie)
{
	struct net *net = dev_net(rail);
	struct dst_entry *dst;
	struct flowi6 fl6 = {
		.flowi6_oif = rail->ifindex,
		.flowi6_flags = FLOWI_FLAG_ANYSRC,
		.flowi6_mark = key->mark,
		.flowi6_proto = ipv6_hdr(skb)->nexthdr,
		.daddr = key->daddr,
	};

	/*
	 * An oif makes IPv6 lookups strict (no route through the rail, no
	 * dst) only when no source is given, so the packet's own source,
	 * which lives on mp0, is left out of the lookup.
	 */
	dst = ip6_route_output(net, NULL, &fl6);
	if (dst->error || dst->dev != rail) {
		dst_release(dst);
		return NULL;
	}
	*cookie = rt6_get_cookie(container_of(dst, struct rt6_info, dst));
	return dst;
}

/*
 * Give @skb its route out of @plane's rail: 0, or -ENETUNREACH when the
 * rail has no route to the destination.  Under rcu_read_lock_bh() or
 * with bottom halves off, as transmit and the probe timer run.
 */
int mplane_route(struct mplane_plane *plane, struct sk_buff *skb)
{
	struct mplane_route_key key;
	struct mplane_route *slot;
	struct dst_entry *dst;
	u32 cookie = 0;

	mplane_route_key_of(skb, &key);
	slot = mplane_route_slot(plane, &key);
	dst = slot->dst;
	if (dst && !memcmp(&slot->key, &key, sizeof(key))) {
		if (likely(!dst->obsolete || dst_check(dst, slot->cookie)))
			goto found;
		/* The FIB changed: look again. */
	}

	if (key.v4)
		dst = mplane_route_lookup_v4(plane->rail, skb, &key);
	else
		dst = mplane_route_lookup_v6(plane->rail, skb, &key, &cookie);
	if (!dst)
		return -ENETUNREACH;
	dst_release(slot->dst);
	slot->dst = dst;
	slot->cookie = cookie;
	slot->key = key;
found:
	skb_dst_drop(skb);
	skb_dst_set_noref(skb, dst);
	if (key.v4)
		memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	else
		memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	return 0;
}

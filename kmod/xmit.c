// SPDX-License-Identifier: GPL-2.0
/*
 * Transmit: pick a plane for each packet and send it out of that plane's
 * rail, to the next hop that the kernel's FIB gives for the destination
 * through that rail (oif = rail), via the rail's neighbour table.
 *
 * Routing goes through the normal IP output path (ip_local_out), as
 * ipvlan's L3 mode does, so the rail's qdisc, netfilter, fragmentation
 * and neighbour resolution all apply.  A plane with no route to the
 * destination is not eligible for it: the packet tries the next choice.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ip_fib.h>
#include <net/route.h>
#include <net/sch_generic.h>

#include "balance.h"
#include "compat.h"
#include "mplane.h"
#include "trace.h"

/* Bytes waiting on @rail: qdisc backlog plus BQL bytes in flight. */
static u64 mplane_rail_queued(struct net_device *rail)
{
	__auto_type root = rcu_dereference_bh(rail->qdisc);
	bool per_queue = root && (root->flags & TCQ_F_MQROOT);
	u64 bytes = root && !per_queue ? READ_ONCE(root->qstats.backlog) : 0;
	unsigned int i;

	for (i = 0; i < rail->real_num_tx_queues; i++) {
		struct netdev_queue *txq = netdev_get_tx_queue(rail, i);

		if (per_queue) {
			__auto_type q = rcu_dereference_bh(txq->qdisc);

			if (q)
				bytes += READ_ONCE(q->qstats.backlog);
		}
#ifdef CONFIG_BQL
		bytes += READ_ONCE(txq->dql.num_queued) -
			 READ_ONCE(txq->dql.num_completed);
#endif
	}
	return bytes;
}

static u32 mplane_plane_load_of(struct mplane_plane *plane, u64 now,
				u64 queued)
{
	u64 sent = mplane_decay(READ_ONCE(plane->dre_bytes),
				now - READ_ONCE(plane->dre_stamp),
				MPLANE_DRE_HALFLIFE_NS);

	return mplane_load_score(queued, sent, READ_ONCE(plane->capacity),
				 READ_ONCE(plane->congested));
}

static u32 mplane_plane_load(struct mplane_plane *plane, u64 now)
{
	return mplane_plane_load_of(plane, now,
				    mplane_rail_queued(plane->rail));
}

/* For rtnetlink dumps, outside the transmit path. */
u32 mplane_plane_load_now(struct mplane_plane *plane)
{
	return mplane_plane_load(plane, ktime_get_ns());
}

/*
 * For the sampler: the load score and, in @queued, the rail's queue it
 * was computed from, read once so that the two agree.  Under
 * rcu_read_lock_bh().
 */
u32 mplane_plane_load_queued(struct mplane_plane *plane, u64 *queued)
{
	*queued = mplane_rail_queued(plane->rail);
	return mplane_plane_load_of(plane, ktime_get_ns(), *queued);
}

static void mplane_plane_loads(struct mplane_dev *mp, u32 eligible,
			       u64 now, u32 *load)
{
	struct mplane_plane *plane;
	int i;

	for (i = 0; i < MPLANE_MAX_PLANES; i++) {
		if (!(eligible & BIT(i)))
			continue;
		plane = rcu_dereference_bh(mp->planes[i]);
		load[i] = plane ? mplane_plane_load(plane, now) : MPLANE_LOAD_MAX;
	}
}

/*
 * Planes that may carry a packet now: usable by state, with carrier, and
 * not refusing packets.  The carrier bit is set by the driver the moment
 * the link goes, before the netdev notifier runs, and a rail drops
 * packets even before that; checking both here closes the window.  A
 * plane that only refuses stays a last resort rather than dropping all.
 */
static u32 mplane_live(struct mplane_dev *mp, u32 mask, u64 now)
{
	struct mplane_plane *plane;
	u32 refusing = 0;
	int i;

	for (i = 0; i < MPLANE_MAX_PLANES; i++) {
		if (!(mask & BIT(i)))
			continue;
		plane = rcu_dereference_bh(mp->planes[i]);
		if (!plane || !netif_carrier_ok(plane->rail))
			mask &= ~BIT(i);
		else if (READ_ONCE(plane->refused_until) > now)
			refusing |= BIT(i);
	}
	return mask & ~refusing ?: mask;
}

struct mplane_choice {
	u32 eligible;	/* planes for new choices */
	u32 carry;	/* planes that may keep a running flowlet */
	u32 hash;
	u64 now;
	bool fresh;	/* a new choice, not a flowlet that carries on */
};

static int mplane_choose(struct mplane_dev *mp, struct mplane_choice *c,
			 u8 policy)
{
	u32 load[MPLANE_MAX_PLANES] = {};
	struct mplane_pick_in in = {
		.eligible = c->eligible,
		.load = load,
		.hash = c->hash,
	};
	u64 *slot = NULL;
	int plane;

	c->fresh = false;
	if (policy == MPLANE_POLICY_FLOWLET) {
		slot = &mp->flowlets[c->hash & (MPLANE_FLOWLET_SLOTS - 1)];
		plane = mplane_flowlet_plane(READ_ONCE(*slot), c->now,
					     READ_ONCE(mp->flowlet_gap_ns),
					     c->carry);
		if (plane >= 0) {
			WRITE_ONCE(*slot, mplane_flowlet_pack(c->now, plane));
			return plane;
		}
	}
	if (policy == MPLANE_POLICY_RR)
		in.ticket = this_cpu_inc_return(*mp->rr_ticket);
	if (policy == MPLANE_POLICY_SPRAY || policy == MPLANE_POLICY_FLOWLET) {
		mplane_plane_loads(mp, c->eligible, c->now, load);
		in.rnd = get_random_u32();
	}
	plane = mplane_pick(policy, &in);
	if (plane < 0)
		return plane;
	if (slot)
		WRITE_ONCE(*slot, mplane_flowlet_pack(c->now, plane));
	c->fresh = true;
	trace_plane_select(mp->dev, plane, policy, c->hash, load[plane], true);
	return plane;
}

/* Route @skb out of @rail; 0 with the dst set, or -ENETUNREACH. */
static int mplane_route_v4(struct sk_buff *skb, struct net_device *rail)
{
	const struct iphdr *iph = ip_hdr(skb);
	struct net *net = dev_net(rail);
	struct fib_result res;
	struct rtable *rt;
	struct flowi4 fl4 = {
		.flowi4_oif = rail->ifindex,
		.flowi4_tos = iph->tos & IPTOS_TOS_MASK,
		.flowi4_flags = FLOWI_FLAG_ANYSRC,
		.flowi4_mark = skb->mark,
		.flowi4_proto = iph->protocol,
		.daddr = iph->daddr,
		.saddr = iph->saddr,
	};

	/*
	 * With an oif and no matching route, ip_route_output assumes the
	 * destination is on-link; the FIB alone says whether this plane
	 * really has a route.
	 */
	if (fib_lookup(net, &fl4, &res, 0) || res.type != RTN_UNICAST)
		return -ENETUNREACH;
	rt = ip_route_output_flow(net, &fl4, NULL);
	if (IS_ERR(rt))
		return -ENETUNREACH;
	if (rt->rt_type != RTN_UNICAST || rt->dst.dev != rail) {
		ip_rt_put(rt);
		return -ENETUNREACH;
	}
	skb_dst_drop(skb);
	skb_dst_set(skb, &rt->dst);
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	return 0;
}

static int mplane_route_v6(struct sk_buff *skb, struct net_device *rail)
{
	const struct ipv6hdr *ip6h = ipv6_hdr(skb);
	struct net *net = dev_net(rail);
	struct dst_entry *dst;
	struct flowi6 fl6 = {
		.flowi6_oif = rail->ifindex,
		.flowi6_flags = FLOWI_FLAG_ANYSRC,
		.flowi6_mark = skb->mark,
		.flowi6_proto = ip6h->nexthdr,
		.flowlabel = ip6_flowinfo(ip6h),
		.daddr = ip6h->daddr,
	};

	/*
	 * An oif makes IPv6 lookups strict (no route through the rail, no
	 * dst) only when no source is given, so the packet's own source,
	 * which lives on mp0, is left out of the lookup.
	 */
	dst = ip6_route_output(net, NULL, &fl6);
	if (dst->error || dst->dev != rail) {
		dst_release(dst);
		return -ENETUNREACH;
	}
	skb_dst_drop(skb);
	skb_dst_set(skb, dst);
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	return 0;
}

/* The rail dropped a packet: pass the plane over for a while. */
static void mplane_plane_refused(struct mplane_plane *plane)
{
	u64 until = ktime_get_ns() + MPLANE_REFUSED_NS;

	mplane_pstat_add(plane, IFLA_MPLANE_PSTAT_DROP_XMIT, 1);
	WRITE_ONCE(plane->refused_until, until);
}

/*
 * Send @skb on @plane.  Returns -ENETUNREACH, with @skb untouched, when
 * the plane has no route for it; otherwise the skb is consumed and the
 * result is 0 when the rail took it, -ENOBUFS when it dropped it.
 */
int mplane_xmit_on_plane(struct mplane_plane *plane, struct sk_buff *skb)
{
	struct net_device *rail = plane->rail;
	struct net *net = dev_net(rail);
	int err;

	if (skb->protocol == htons(ETH_P_IP))
		err = mplane_route_v4(skb, rail);
	else
		err = mplane_route_v6(skb, rail);
	if (err) {
		mplane_pstat_add(plane, IFLA_MPLANE_PSTAT_DROP_NO_ROUTE, 1);
		return err;
	}

	if (skb->protocol == htons(ETH_P_IP))
		err = ip_local_out(net, skb->sk, skb);
	else
		err = ip6_local_out(net, skb->sk, skb);
	if (unlikely(net_xmit_eval(err))) {
		mplane_plane_refused(plane);
		return -ENOBUFS;
	}
	return 0;
}

/* Only IP goes through an L3 device; anything else is dropped. */
static bool mplane_parse(struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		return pskb_network_may_pull(skb, sizeof(struct iphdr));
	if (skb->protocol == htons(ETH_P_IPV6))
		return pskb_network_may_pull(skb, sizeof(struct ipv6hdr));
	return false;
}

static void mplane_dre_add(struct mplane_plane *plane, u64 now,
			   unsigned int len)
{
	u64 sent = mplane_decay(READ_ONCE(plane->dre_bytes),
				now - READ_ONCE(plane->dre_stamp),
				MPLANE_DRE_HALFLIFE_NS);

	WRITE_ONCE(plane->dre_bytes, sent + len);
	WRITE_ONCE(plane->dre_stamp, now);
}

static void mplane_send(struct mplane_dev *mp, struct sk_buff *skb)
{
	u8 policy = READ_ONCE(mp->policy);
	struct mplane_choice c;
	struct mplane_plane *plane;
	unsigned int len = skb->len;
	int idx, err;

	if (unlikely(!mplane_parse(skb)))
		goto drop;
	c.now = ktime_get_ns();
	c.carry = mplane_live(mp, READ_ONCE(mp->carry_mask), c.now) &
		  ~mplane_probe_dead_planes(mp, skb);
	c.eligible = c.carry & READ_ONCE(mp->usable_mask);
	c.hash = skb_get_hash(skb);

	while ((idx = mplane_choose(mp, &c, policy)) >= 0) {
		plane = rcu_dereference_bh(mp->planes[idx]);
		if (plane) {
			if (c.fresh)
				mplane_pstat_add(plane,
						 IFLA_MPLANE_PSTAT_SELECTIONS, 1);
			mplane_dre_add(plane, c.now, len);
			err = mplane_xmit_on_plane(plane, skb);
			if (!err) {
				mplane_pstat_add(plane,
						 IFLA_MPLANE_PSTAT_TX_PACKETS, 1);
				mplane_pstat_add(plane,
						 IFLA_MPLANE_PSTAT_TX_BYTES, len);
				dev_sw_netstats_tx_add(mp->dev, 1, len);
				return;
			}
			if (err != -ENETUNREACH) {
				dev_core_stats_tx_dropped_inc(mp->dev);
				return;
			}
		}
		c.eligible &= ~BIT(idx);
		c.carry &= ~BIT(idx);
	}
drop:
	dev_core_stats_tx_dropped_inc(mp->dev);
	kfree_skb(skb);
}

/*
 * A GSO super-packet either goes out whole on one plane (the rail or
 * its driver segments it), or is segmented here so that each segment
 * gets its own choice: more spreading, at the cost of segmenting in
 * software and of reordering within the super-packet.
 */
netdev_tx_t mplane_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct mplane_dev *mp = netdev_priv(dev);
	struct sk_buff *segs, *next;

	if (!skb_is_gso(skb) ||
	    READ_ONCE(mp->gso_mode) != MPLANE_GSO_SEGMENT) {
		mplane_send(mp, skb);
		return NETDEV_TX_OK;
	}
	segs = skb_gso_segment(skb, 0);
	if (IS_ERR_OR_NULL(segs)) {
		dev_core_stats_tx_dropped_inc(dev);
		kfree_skb(skb);
		return NETDEV_TX_OK;
	}
	consume_skb(skb);
	skb_list_walk_safe(segs, segs, next) {
		skb_mark_not_on_list(segs);
		mplane_send(mp, segs);
	}
	return NETDEV_TX_OK;
}

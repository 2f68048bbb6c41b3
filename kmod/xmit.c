// SPDX-License-Identifier: GPL-2.0
/*
 * Transmit: pick a plane for each packet and send it out of that plane's
 * rail, to the next hop that the kernel's FIB gives for the destination
 * through that rail (route.c caches it), via the rail's neighbour table.
 *
 * Routing goes through the normal IP output path (ip_local_out), as
 * ipvlan's L3 mode does, so the rail's qdisc, netfilter, fragmentation
 * and neighbour resolution all apply.  A plane with no route to the
 * destination is not eligible for it: the packet tries the next choice,
 * and the plane is neither counted as chosen nor loaded with it.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/sch_generic.h>

#include "balance.h"
#include "compat.h"
#include "mplane.h"
#include "trace.h"

/*
 * A rail's queue is read at most this often per plane: the walk over its
 * qdisc and TX queues costs more than the rest of the choice, and in
 * between the rate estimate (DRE) counts what was sent.
 */
#define MPLANE_QUEUE_REFRESH_NS	(20 * NSEC_PER_USEC)

/*
 * Transmits of mplane devices nested on one CPU.  mp0 never sends from
 * within its own transmit unless a rail leads back into it (a redirect
 * on a rail towards a tunnel whose underlay is mp0): each level costs two
 * IP output paths of stack, so the second level is the last.
 */
#define MPLANE_XMIT_DEPTH_MAX	2
static DEFINE_PER_CPU(u8, mplane_xmit_depth);

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

/* The rail's queue, read again when the last reading is stale. */
static u64 mplane_plane_queued(struct mplane_plane *plane, u64 now)
{
	u64 queued;

	if (now - READ_ONCE(plane->queued_stamp) < MPLANE_QUEUE_REFRESH_NS)
		return READ_ONCE(plane->queued_bytes);
	queued = mplane_rail_queued(plane->rail);
	WRITE_ONCE(plane->queued_bytes, queued);
	WRITE_ONCE(plane->queued_stamp, now);
	return queued;
}

static u64 mplane_dre_now(struct mplane_plane *plane, u64 now)
{
	u64 stamp = READ_ONCE(plane->dre_stamp);

	/* Another CPU may have stamped it after this packet's clock read. */
	return mplane_decay_shift(READ_ONCE(plane->dre_bytes),
				  now > stamp ? now - stamp : 0,
				  MPLANE_DRE_HALFLIFE_SHIFT);
}

static u32 mplane_plane_load_of(struct mplane_plane *plane, u64 now,
				u64 queued)
{
	return mplane_load_score(queued, mplane_dre_now(plane, now),
				 READ_ONCE(plane->capacity),
				 READ_ONCE(plane->congested));
}

/* For rtnetlink dumps, outside the transmit path: a fresh reading. */
u32 mplane_plane_load_now(struct mplane_plane *plane)
{
	return mplane_plane_load_of(plane, ktime_get_ns(),
				    mplane_rail_queued(plane->rail));
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

struct mplane_choice {
	u64 spray_floor;	/* spray: the least virtual time a plane has */
	u32 eligible;	/* planes for new choices */
	u32 carry;	/* planes that may keep a running flowlet */
	u64 now;
	u64 *slot;	/* the flow's flowlet slot (flowlet policy only) */
	u32 hash;	/* the flow's hash (hash and flowlet policies) */
	bool fresh;	/* a new choice, not a flowlet that carries on */
};

/*
 * Spray's loads: each plane's virtual time, raised to the floor, over
 * the least of them.  The floor is the credit at the slowest plane's
 * rate: a time, so that a plane may fall behind by as many of a faster
 * plane's packets as its weight asks.
 */
static void mplane_spray_loads(struct mplane_dev *mp, struct mplane_choice *c,
			       u32 *load)
{
	struct mplane_plane *plane[MPLANE_MAX_PLANES] = {};
	u64 vtime[MPLANE_MAX_PLANES] = {}, most = 0, least = U64_MAX;
	u32 slowest = U32_MAX;
	int i;

	for (i = 0; i < MPLANE_MAX_PLANES; i++) {
		if (!(c->eligible & BIT(i)))
			continue;
		plane[i] = rcu_dereference_bh(mp->planes[i]);
		if (!plane[i])
			continue;
		vtime[i] = READ_ONCE(plane[i]->spray_vtime);
		most = max(most, vtime[i]);
		slowest = min(slowest, READ_ONCE(plane[i]->capacity));
	}
	c->spray_floor = mplane_spray_floor(most, slowest);
	for (i = 0; i < MPLANE_MAX_PLANES; i++) {
		if (!plane[i])
			continue;
		vtime[i] = max(vtime[i], c->spray_floor);
		least = min(least, vtime[i]);
	}
	for (i = 0; i < MPLANE_MAX_PLANES; i++) {
		if (!(c->eligible & BIT(i)))
			continue;
		load[i] = plane[i] ?
			  mplane_spray_load(vtime[i] - least,
					    mplane_plane_queued(plane[i], c->now),
					    READ_ONCE(plane[i]->capacity),
					    READ_ONCE(plane[i]->congested)) :
			  MPLANE_LOAD_MAX;
	}
}

/*
 * A CNP came back for a packet of @plane's.  Without a lock, as the
 * estimates above: a lost update under contention is one CNP fewer.
 */
void mplane_plane_mark(struct mplane_plane *plane)
{
	u64 sprayed = READ_ONCE(plane->mp->sprayed.count);

	WRITE_ONCE(plane->mark_share,
		   mplane_mark_share_add(READ_ONCE(plane->mark_share),
					 sprayed - READ_ONCE(plane->mark_sprayed)));
	WRITE_ONCE(plane->mark_sprayed, sprayed);
}

/*
 * @plane took @len bytes by spray: on from the floor, if behind it.  The
 * marks' clock (mp->sprayed) runs only while CC is on (@cc), the only
 * time a CNP can come: with it off no sprayed packet writes that
 * device-wide line, and the shares were cleared when it went off.
 */
static void mplane_spray_charge(struct mplane_dev *mp,
				struct mplane_plane *plane, u64 floor,
				unsigned int len, bool cc)
{
	u32 marks = 0;
	u64 sprayed;

	if (cc) {
		sprayed = READ_ONCE(mp->sprayed.count);
		marks = mplane_mark_share_now(READ_ONCE(plane->mark_share),
					      sprayed - READ_ONCE(plane->mark_sprayed));
		WRITE_ONCE(mp->sprayed.count, sprayed + 1);
	}
	WRITE_ONCE(plane->spray_vtime,
		   max(READ_ONCE(plane->spray_vtime), floor) +
		   mplane_spray_cost(len, READ_ONCE(plane->capacity), marks));
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
		load[i] = plane ? mplane_plane_load_of(plane, now,
						       mplane_plane_queued(plane, now)) :
				  MPLANE_LOAD_MAX;
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

static int mplane_choose(struct mplane_dev *mp, struct mplane_choice *c,
			 u8 policy)
{
	u32 load[MPLANE_MAX_PLANES] = {};
	struct mplane_pick_in in = {
		.eligible = c->eligible,
		.load = load,
		.hash = c->hash,
	};
	int plane;

	c->fresh = false;
	if (c->slot) {
		plane = mplane_flowlet_plane(READ_ONCE(*c->slot), c->now,
					     READ_ONCE(mp->flowlet_gap_ns),
					     c->carry);
		if (plane >= 0)
			return plane;
	}
	/*
	 * One ticket per choice: round robin's turn, and the tie-break
	 * among equally loaded planes (ties are common: idle planes all
	 * score 0), which then take turns.
	 */
	in.ticket = this_cpu_inc_return(*mp->rr_ticket);
	in.rnd = in.ticket;
	if (policy == MPLANE_POLICY_SPRAY)
		mplane_spray_loads(mp, c, load);
	else if (policy == MPLANE_POLICY_FLOWLET)
		mplane_plane_loads(mp, c->eligible, c->now, load);
	plane = mplane_pick(policy, &in);
	if (plane < 0)
		return plane;
	c->fresh = true;
	trace_plane_select(mp->dev, plane, policy, c->hash, load[plane], true);
	return plane;
}

/* The rail dropped a packet: pass the plane over for a while. */
static void mplane_plane_refused(struct mplane_plane *plane)
{
	u64 until = ktime_get_ns() + MPLANE_REFUSED_NS;

	mplane_pstat_add(plane, IFLA_MPLANE_PSTAT_DROP_XMIT, 1);
	WRITE_ONCE(plane->refused_until, until);
}

/*
 * Send @skb, routed on @plane, out of its rail.  The skb is consumed: 0
 * when the rail took it, -ENOBUFS when it dropped it.
 */
static int mplane_output(struct mplane_plane *plane, struct sk_buff *skb)
{
	struct net *net = dev_net(plane->rail);
	int err;

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

/*
 * Send @skb on @plane (the probes' path).  Returns -ENETUNREACH, with
 * @skb untouched, when the plane has no route for it; otherwise as
 * mplane_output().
 */
int mplane_xmit_on_plane(struct mplane_plane *plane, struct sk_buff *skb)
{
	if (mplane_route(plane, skb)) {
		mplane_pstat_add(plane, IFLA_MPLANE_PSTAT_DROP_NO_ROUTE, 1);
		return -ENETUNREACH;
	}
	return mplane_output(plane, skb);
}

/*
 * Only IP goes through an L3 device, and only with a header that holds
 * together: what a packet socket hands over is not checked by any stack
 * before the FIB, the checksum and the rails read it.
 */
static bool mplane_parse(struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP)) {
		const struct iphdr *iph;
		unsigned int len;

		if (!pskb_network_may_pull(skb, sizeof(*iph)))
			return false;
		iph = ip_hdr(skb);
		if (iph->version != 4 || iph->ihl < 5 ||
		    !pskb_network_may_pull(skb, iph->ihl * 4))
			return false;
		iph = ip_hdr(skb);
		len = ntohs(iph->tot_len);
		/* A GSO packet past 64 KiB (BIG TCP) says 0. */
		if (!len && skb_is_gso(skb))
			return true;
		return len >= iph->ihl * 4 &&
		       len <= skb->len - skb_network_offset(skb);
	}
	if (skb->protocol == htons(ETH_P_IPV6)) {
		const struct ipv6hdr *ip6h;

		if (!pskb_network_may_pull(skb, sizeof(*ip6h)))
			return false;
		ip6h = ipv6_hdr(skb);
		return ip6h->version == 6 &&
		       sizeof(*ip6h) + ntohs(ip6h->payload_len) <=
		       skb->len - skb_network_offset(skb);
	}
	return false;
}

static void mplane_dre_add(struct mplane_plane *plane, u64 now,
			   unsigned int len)
{
	WRITE_ONCE(plane->dre_bytes, mplane_dre_now(plane, now) + len);
	WRITE_ONCE(plane->dre_stamp, now);
}

/* A packet left on @plane: one per-CPU section for all its counters. */
static void mplane_count_tx(struct mplane_dev *mp, struct mplane_plane *plane,
			    unsigned int len, bool fresh)
{
	struct mplane_plane_pcpu *s = this_cpu_ptr(plane->pcpu);

	u64_stats_update_begin(&s->syncp);
	if (fresh)
		u64_stats_inc(&s->cnt[IFLA_MPLANE_PSTAT_SELECTIONS - 1]);
	u64_stats_inc(&s->cnt[IFLA_MPLANE_PSTAT_TX_PACKETS - 1]);
	u64_stats_add(&s->cnt[IFLA_MPLANE_PSTAT_TX_BYTES - 1], len);
	u64_stats_update_end(&s->syncp);
	dev_sw_netstats_tx_add(mp->dev, 1, len);
}

/*
 * Send @skb on the plane the policy chooses.  Returns true when that
 * plane's rail refused it (its queue was full): the one drop the sender
 * can act on, as it would on a NIC's own queue.  Other drops (no plane,
 * a malformed packet) are counted and not told.
 */
static bool mplane_send(struct mplane_dev *mp, struct sk_buff *skb)
{
	u8 policy = READ_ONCE(mp->policy);
	struct mplane_plane *plane;
	unsigned int len = skb->len;
	struct mplane_choice c;
	bool cc;
	int idx;

	if (unlikely(!mplane_parse(skb)))
		goto drop;
	/*
	 * The headers are rewritten below (tot_len and checksum, then the
	 * rail's link header): never into data shared with a clone, such
	 * as the copy that `tc mirred mirror` made.
	 */
	if (unlikely(skb_cow_head(skb, READ_ONCE(mp->dev->needed_headroom))))
		goto drop;
	c.now = ktime_get_ns();
	cc = rcu_access_pointer(mp->cc);
	if (cc)
		mplane_cc_xmit(mp, skb, c.now);
	c.carry = mplane_live(mp, READ_ONCE(mp->carry_mask), c.now) &
		  ~mplane_probe_dead_planes(mp, skb);
	c.eligible = c.carry & READ_ONCE(mp->usable_mask);
	/* Only hash and flowlet read the flow's hash: no dissection else. */
	c.hash = policy == MPLANE_POLICY_HASH || policy == MPLANE_POLICY_FLOWLET ?
		 skb_get_hash(skb) : skb->hash;
	c.slot = policy == MPLANE_POLICY_FLOWLET ?
		 &mp->flowlets[c.hash & (MPLANE_FLOWLET_SLOTS - 1)] : NULL;

	while ((idx = mplane_choose(mp, &c, policy)) >= 0) {
		plane = rcu_dereference_bh(mp->planes[idx]);
		if (plane && !mplane_route(plane, skb)) {
			/* Only a plane that takes the packet is charged. */
			if (c.slot)
				WRITE_ONCE(*c.slot, mplane_flowlet_pack(c.now, idx));
			mplane_dre_add(plane, c.now, len);
			if (policy == MPLANE_POLICY_SPRAY)
				mplane_spray_charge(mp, plane, c.spray_floor,
						    len, cc);
			if (mplane_output(plane, skb)) {
				dev_core_stats_tx_dropped_inc(mp->dev);
				return true;
			}
			mplane_count_tx(mp, plane, len, c.fresh);
			return false;
		}
		if (plane)
			mplane_pstat_add(plane, IFLA_MPLANE_PSTAT_DROP_NO_ROUTE, 1);
		c.eligible &= ~BIT(idx);
		c.carry &= ~BIT(idx);
	}
drop:
	dev_core_stats_tx_dropped_inc(mp->dev);
	kfree_skb(skb);
	return false;
}

/*
 * A GSO super-packet either goes out whole on one plane (the rail or
 * its driver segments it), or is segmented here so that each segment
 * gets its own choice: more spreading, at the cost of segmenting in
 * software and of reordering within the super-packet.  Returns how many
 * segments a rail refused.
 */
static unsigned int mplane_send_gso(struct mplane_dev *mp, struct sk_buff *skb)
{
	struct sk_buff *segs, *next;
	unsigned int refused = 0;

	segs = skb_gso_segment(skb, 0);
	if (IS_ERR_OR_NULL(segs)) {
		dev_core_stats_tx_dropped_inc(mp->dev);
		kfree_skb(skb);
		return 0;
	}
	consume_skb(skb);
	skb_list_walk_safe(segs, segs, next) {
		skb_mark_not_on_list(segs);
		refused += mplane_send(mp, segs);
	}
	return refused;
}

netdev_tx_t mplane_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct mplane_dev *mp = netdev_priv(dev);
	u8 depth = __this_cpu_read(mplane_xmit_depth);
	netdev_tx_t rc;

	if (unlikely(depth >= MPLANE_XMIT_DEPTH_MAX)) {
		net_warn_ratelimited("%s: transmit nested %u deep, dropped: does a rail lead back into an mplane device?\n",
				     dev->name, depth + 1);
		dev_core_stats_tx_dropped_inc(dev);
		kfree_skb(skb);
		return NETDEV_TX_OK;
	}
	__this_cpu_write(mplane_xmit_depth, depth + 1);
	/*
	 * A rail's full queue is told to the sender, as a device's own
	 * queue would tell it (mp0 has none): a UDP socket with IP_RECVERR
	 * gets ENOBUFS and sends again, TCP keeps the packet and eases off
	 * (CWR).  Otherwise the packet would be lost as if on the wire, and
	 * cost a retransmission a round trip later.  Of a super-packet that
	 * went out in segments, some may have left: congestion, not a drop.
	 */
	if (skb_is_gso(skb) && READ_ONCE(mp->gso_mode) == MPLANE_GSO_SEGMENT)
		rc = mplane_send_gso(mp, skb) ? NET_XMIT_CN : NETDEV_TX_OK;
	else
		rc = mplane_send(mp, skb) ? NET_XMIT_DROP : NETDEV_TX_OK;
	__this_cpu_write(mplane_xmit_depth, depth);
	return rc;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Liveness probes: catch the failures that keep carrier up (a dead switch
 * port further along, a filter, a broken optic on the far side).  Every
 * probe interval, each plane sends a small UDP request to each configured
 * peer; the peer's mplane device answers on the plane it came in on.  A
 * plane that misses N answers from a peer is not used for that peer, and
 * is marked down when every peer has gone quiet on it.  The first answer
 * back brings it back.
 *
 * An answer counts only when it is one: it must echo a sequence number
 * sent within the miss window, with the nonce this device made for that
 * sequence and plane (SipHash under a key drawn when the device was
 * made), so that nobody off the path can keep a dead plane in use.  And
 * the probes cost what they may: a device answers at most
 * MPLANE_PROBE_REPLY_BURST requests a plane per millisecond, and its
 * timer waits at least MPLANE_PROBE_NS_PER_PROBE per probe it sent, so
 * that 16 planes of 64 peers are not 1024 probes every 50 us.
 */
#include <linux/hrtimer.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/netlink.h>

#include "compat.h"
#include "mplane.h"
#include "probe_budget.h"

static u64 mplane_probe_nonce(const struct mplane_dev *mp, u32 plane, u64 seq)
{
	return siphash_2u64(seq, plane, &mp->probe_key);
}

static void mplane_probe_send(struct mplane_plane *plane,
			      const struct mplane_udp_addrs *a,
			      const struct mplane_probe_hdr *msg)
{
	mplane_udp_send(plane, a, htons(MPLANE_PROBE_PORT),
			htons(MPLANE_PROBE_PORT), 0, msg, sizeof(*msg));
}

/* The mplane device's own address to probe @peer from. */
static bool mplane_probe_saddr(struct mplane_dev *mp,
			       const struct mplane_peer *peer,
			       struct in6_addr *saddr)
{
	__be32 v4;

	if (peer->v4) {
		v4 = inet_select_addr(mp->dev, peer->addr.s6_addr32[3],
				      RT_SCOPE_UNIVERSE);
		ipv6_addr_set_v4mapped(v4, saddr);
		return v4 != 0;
	}
	return ipv6_dev_get_saddr(dev_net(mp->dev), mp->dev, &peer->addr, 0,
				  saddr) == 0;
}

/*
 * Has @plane stopped hearing from @peer?  Misses are counted in probes,
 * not time: a probe timer that fires late (a busy or virtual CPU) sends
 * fewer probes and so cannot declare a healthy plane dead.  The probe
 * sent last is still in flight, hence "more than @misses".
 */
static bool mplane_peer_lost(struct mplane_peer *peer, u32 i, u32 misses)
{
	if (READ_ONCE(peer->unanswered[i]) <= misses)
		return false;
	set_bit(i, &peer->dead_mask);
	return true;
}

/* Probes it sent, for the tick's floor. */
static u32 mplane_probe_plane(struct mplane_dev *mp,
			      struct mplane_plane *plane,
			      struct mplane_peers *peers, u64 now)
{
	u32 misses = READ_ONCE(mp->probe_misses);
	struct mplane_probe_hdr msg = {
		.magic = htonl(MPLANE_PROBE_MAGIC),
		.version = MPLANE_PROBE_VERSION,
		.type = MPLANE_PROBE_REQUEST,
		.plane = plane->index,
		.seq = cpu_to_be64(mp->probe_seq),
		.sent_ns = cpu_to_be64(now),
		.nonce = cpu_to_be64(mplane_probe_nonce(mp, plane->index,
							mp->probe_seq)),
	};
	struct mplane_udp_addrs a;
	bool all_lost = true;
	u32 i = plane->index, n, unanswered, sent = 0;

	for (n = 0; n < peers->count; n++) {
		struct mplane_peer *peer = &peers->peer[n];

		unanswered = READ_ONCE(peer->unanswered[i]);
		/* The previous probe had an interval to be answered. */
		if (unanswered)
			mplane_pstat_add(plane, IFLA_MPLANE_PSTAT_PROBES_LOST, 1);
		if (!mplane_peer_lost(peer, i, misses))
			all_lost = false;
		if (!mplane_probe_saddr(mp, peer, &a.saddr))
			continue;
		a.v4 = peer->v4;
		a.daddr = peer->addr;
		WRITE_ONCE(peer->unanswered[i], unanswered + 1);
		mplane_probe_send(plane, &a, &msg);
		mplane_pstat_add(plane, IFLA_MPLANE_PSTAT_PROBES_SENT, 1);
		sent++;
	}
	mplane_state_set_probes_lost(plane, all_lost);
	return sent;
}

static enum hrtimer_restart mplane_probe_tick(struct hrtimer *timer)
{
	struct mplane_dev *mp = container_of(timer, struct mplane_dev,
					     probe_timer);
	u64 now = ktime_get_ns();
	struct mplane_peers *peers;
	struct mplane_plane *plane;
	u64 interval, sent = 0;
	u32 n;
	int i;

	rcu_read_lock();
	peers = rcu_dereference(mp->peers);
	if (!peers || !netif_running(mp->dev)) {
		rcu_read_unlock();
		return HRTIMER_NORESTART;
	}
	WRITE_ONCE(mp->probe_seq, mp->probe_seq + 1);
	for (i = 0; i < MPLANE_MAX_PLANES; i++) {
		plane = rcu_dereference(mp->planes[i]);
		if (!plane)
			continue;
		if (netif_carrier_ok(plane->rail)) {
			sent += mplane_probe_plane(mp, plane, peers, now);
			continue;
		}
		/* Carrier covers it; start counting afresh when it is back. */
		for (n = 0; n < peers->count; n++)
			WRITE_ONCE(peers->peer[n].unanswered[i], 0);
	}
	rcu_read_unlock();
	interval = (u64)READ_ONCE(mp->probe_interval_us) * NSEC_PER_USEC;
	hrtimer_forward_now(timer,
			    ns_to_ktime(mplane_probe_next_tick_ns(interval, sent)));
	return HRTIMER_RESTART;
}

static struct mplane_peer *mplane_peer_find(struct mplane_peers *peers,
					    const struct in6_addr *addr)
{
	u32 n;

	for (n = 0; n < peers->count; n++)
		if (ipv6_addr_equal(&peers->peer[n].addr, addr))
			return &peers->peer[n];
	return NULL;
}

/*
 * Whether @plane may answer one more request in this window.  Exact
 * across CPUs: the budget is one word, taken from by compare-and-exchange.
 */
static bool mplane_probe_reply_allowed(struct mplane_plane *plane)
{
	s64 budget = atomic64_read(&plane->reply_budget);
	u64 now = ktime_get_ns();
	bool allowed;
	u64 taken;

	do {
		taken = mplane_probe_reply_take(budget, now, &allowed);
		if (!allowed)
			return false;
	} while (!atomic64_try_cmpxchg(&plane->reply_budget, &budget, taken));
	return true;
}

static void mplane_probe_reply(struct mplane_plane *plane,
			       const struct mplane_udp_addrs *req,
			       struct mplane_probe_hdr msg)
{
	struct mplane_udp_addrs a = {
		.v4 = req->v4,
		.saddr = req->daddr,
		.daddr = req->saddr,
	};

	if (!mplane_probe_reply_allowed(plane)) {
		mplane_pstat_add(plane, IFLA_MPLANE_PSTAT_PROBES_THROTTLED, 1);
		return;
	}
	msg.type = MPLANE_PROBE_REPLY;
	mplane_probe_send(plane, &a, &msg);
}

/*
 * Whether @msg answers a request of ours: a sequence sent within the
 * miss window, and the nonce we made for it on @plane.
 */
static bool mplane_probe_reply_ours(struct mplane_plane *plane,
				    const struct mplane_probe_hdr *msg)
{
	struct mplane_dev *mp = plane->mp;
	u64 seq = be64_to_cpu(msg->seq);

	if (msg->plane != plane->index ||
	    READ_ONCE(mp->probe_seq) - seq > READ_ONCE(mp->probe_misses) + 1)
		return false;
	return be64_to_cpu(msg->nonce) ==
	       mplane_probe_nonce(mp, plane->index, seq);
}

static void mplane_probe_answered(struct mplane_plane *plane,
				  const struct in6_addr *from)
{
	struct mplane_peers *peers = rcu_dereference(plane->mp->peers);
	struct mplane_peer *peer = peers ? mplane_peer_find(peers, from) : NULL;
	u32 i = plane->index;

	if (!peer)
		return;
	WRITE_ONCE(peer->unanswered[i], 0);
	/* Back for this peer, so the plane is no longer lost to all. */
	if (test_and_clear_bit(i, &peer->dead_mask))
		mplane_state_set_probes_lost(plane, false);
}

/* Planes that stopped answering the probed peer @skb is going to. */
u32 mplane_probe_dead_planes(struct mplane_dev *mp, struct sk_buff *skb)
{
	struct mplane_peers *peers = rcu_dereference_bh(mp->peers);
	struct mplane_peer *peer;
	struct in6_addr daddr;

	if (!peers)
		return 0;
	if (skb->protocol == htons(ETH_P_IP))
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr, &daddr);
	else
		daddr = ipv6_hdr(skb)->daddr;
	peer = mplane_peer_find(peers, &daddr);
	return peer ? READ_ONCE(peer->dead_mask) : 0;
}

/*
 * A probe arrived on @plane for the mplane device.  Returns true when it
 * was consumed, false to let the stack see it (it was not ours after all).
 */
bool mplane_probe_rx(struct mplane_plane *plane, struct sk_buff *skb)
{
	unsigned int off = skb_network_header_len(skb);
	struct mplane_udp_addrs a = {};
	struct mplane_probe_hdr msg;

	a.v4 = skb->protocol == htons(ETH_P_IP);
	if (a.v4) {
		off = ip_hdrlen(skb);
		ipv6_addr_set_v4mapped(ip_hdr(skb)->saddr, &a.saddr);
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr, &a.daddr);
	} else {
		off = sizeof(struct ipv6hdr);
		a.saddr = ipv6_hdr(skb)->saddr;
		a.daddr = ipv6_hdr(skb)->daddr;
	}
	if (skb_copy_bits(skb, off + sizeof(struct udphdr), &msg, sizeof(msg)) ||
	    msg.magic != htonl(MPLANE_PROBE_MAGIC) ||
	    msg.version != MPLANE_PROBE_VERSION)
		return false;

	if (msg.type == MPLANE_PROBE_REQUEST)
		mplane_probe_reply(plane, &a, msg);
	else if (msg.type == MPLANE_PROBE_REPLY && mplane_probe_reply_ours(plane, &msg))
		mplane_probe_answered(plane, &a.saddr);
	else if (msg.type == MPLANE_PROBE_REPLY)
		mplane_pstat_add(plane, IFLA_MPLANE_PSTAT_PROBES_REFUSED, 1);
	consume_skb(skb);
	return true;
}

/* (Re)start probing after a change of peers, interval or device state. */
void mplane_probe_restart(struct mplane_dev *mp)
{
	hrtimer_cancel(&mp->probe_timer);
	if (rtnl_dereference(mp->peers) && netif_running(mp->dev))
		hrtimer_start(&mp->probe_timer,
			      ns_to_ktime(READ_ONCE(mp->probe_interval_us) * NSEC_PER_USEC),
			      HRTIMER_MODE_REL_SOFT);
}

static const char *mplane_peer_parse(const struct nlattr *attr,
				     struct mplane_peer *peer)
{
	if (nla_type(attr) != IFLA_MPLANE_PEER)
		return "mplane: IFLA_MPLANE_PEERS holds only IFLA_MPLANE_PEER";
	if (nla_len(attr) == sizeof(__be32)) {
		peer->v4 = true;
		ipv6_addr_set_v4mapped(nla_get_in_addr(attr), &peer->addr);
	} else if (nla_len(attr) == sizeof(struct in6_addr)) {
		peer->addr = nla_get_in6_addr(attr);
		/* ::ffff:a.b.c.d is a.b.c.d: probed over IPv4, as given. */
		peer->v4 = ipv6_addr_v4mapped(&peer->addr);
	} else {
		return "mplane: a peer is a 4-byte IPv4 or 16-byte IPv6 address";
	}
	return NULL;
}

/* Planes failed by probes of the old peers are free again. */
static void mplane_probes_clear(struct mplane_dev *mp)
{
	struct mplane_plane *plane;
	int i;

	for (i = 0; i < MPLANE_MAX_PLANES; i++) {
		plane = rtnl_dereference(mp->planes[i]);
		if (plane)
			mplane_state_set_probes_lost(plane, false);
	}
}

/* Replace the probe peers with those in @nest; an empty nest clears. */
int mplane_peers_set(struct mplane_dev *mp, const struct nlattr *nest,
		     struct netlink_ext_ack *extack)
{
	struct mplane_peers *peers = NULL, *old;
	const struct nlattr *attr;
	const char *msg;
	int rem, count = 0;

	ASSERT_RTNL();
	nla_for_each_nested(attr, nest, rem)
		count++;
	if (count > MPLANE_MAX_PEERS) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "mplane: at most 64 probe peers (IFLA_MPLANE_PEERS)");
		return -E2BIG;
	}
	if (count) {
		peers = kzalloc(struct_size(peers, peer, count), GFP_KERNEL);
		if (!peers)
			return -ENOMEM;
		nla_for_each_nested(attr, nest, rem) {
			msg = mplane_peer_parse(attr, &peers->peer[peers->count]);
			if (msg) {
				mplane_extack_msg(extack, attr, msg);
				kfree(peers);
				return -EINVAL;
			}
			peers->count++;
		}
	}
	old = rtnl_dereference(mp->peers);
	rcu_assign_pointer(mp->peers, peers);
	if (old)
		kfree_rcu(old, rcu);
	mplane_probes_clear(mp);
	mplane_probe_restart(mp);
	return 0;
}

size_t mplane_peers_size(struct mplane_dev *mp)
{
	struct mplane_peers *peers = rcu_dereference_rtnl(mp->peers);

	return nla_total_size(0) +
	       (peers ? peers->count * nla_total_size(sizeof(struct in6_addr)) : 0);
}

int mplane_peers_fill(struct sk_buff *skb, struct mplane_dev *mp)
{
	struct mplane_peers *peers = rcu_dereference_rtnl(mp->peers);
	struct nlattr *nest;
	u32 n;
	int err;

	nest = nla_nest_start(skb, IFLA_MPLANE_PEERS);
	if (!nest)
		return -EMSGSIZE;
	for (n = 0; peers && n < peers->count; n++) {
		const struct mplane_peer *peer = &peers->peer[n];

		if (peer->v4)
			err = nla_put_in_addr(skb, IFLA_MPLANE_PEER,
					      peer->addr.s6_addr32[3]);
		else
			err = nla_put_in6_addr(skb, IFLA_MPLANE_PEER, &peer->addr);
		if (err) {
			nla_nest_cancel(skb, nest);
			return err;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

void mplane_probe_init(struct mplane_dev *mp)
{
	get_random_bytes(&mp->probe_key, sizeof(mp->probe_key));
	mplane_compat_hrtimer_setup(&mp->probe_timer, mplane_probe_tick,
				    CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
}

void mplane_probe_uninit(struct mplane_dev *mp)
{
	hrtimer_cancel(&mp->probe_timer);
}

void mplane_peers_free(struct mplane_dev *mp)
{
	struct mplane_peers *peers = rtnl_dereference(mp->peers);

	RCU_INIT_POINTER(mp->peers, NULL);
	if (peers)
		kfree_rcu(peers, rcu);
}

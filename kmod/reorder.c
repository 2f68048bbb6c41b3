// SPDX-License-Identifier: GPL-2.0
/*
 * RoCEv2 resequencing (IFLA_MPLANE_REORDER_US).  Spraying sends one QP's
 * packets over every plane, and the planes' queues differ, so they can
 * arrive out of order.  An RDMA NIC built for spraying places them out
 * of order; a transport that is not (rxe, and ConnectX before out-of-order
 * placement) takes a packet past a gap for a loss, NAKs it, and its peer
 * goes back.  mp0 is the NIC here, so it puts the packets back in order:
 * a request that comes past a gap waits, up to the window, for the ones
 * before it.
 *
 * One entry per (peer, QPN), found by a keyed hash in a table of fixed
 * size; a QP whose slot another QP takes loses only its held packets'
 * wait.  Every packet of a QP that is resequenced goes up through
 * netif_rx(), held or not, so that what this CPU lets go stays in order
 * behind what it let go before.
 */
#include <linux/hrtimer.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/siphash.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/ipv6.h>

#include "compat.h"
#include "mplane.h"
#include "reorder_psn.h"

/* Entries a device; a power of two. */
#define MPLANE_REORDER_QPS	256

struct mplane_reorder_qp {
	spinlock_t lock;		/* the rest, against the timer */
	struct hrtimer timer;		/* the window of the oldest gap */
	struct mplane_reorder_table *table;
	struct sk_buff_head held;	/* in PSN order; under @lock */
	struct in6_addr peer;		/* IPv4 as v4-mapped */
	u32 qpn;
	u32 expected;			/* the next PSN to go up */
	u64 last_ns;			/* when the QP was last seen */
	u64 expires_ns;			/* when the held ones give up */
	bool used;
	bool resync;			/* after a READ: expected unknown */
};

struct mplane_reorder_table {
	struct mplane_dev *mp;
	atomic_t held;			/* over every QP */
	siphash_key_t key;
	struct mplane_reorder_qp qps[MPLANE_REORDER_QPS];
};

/* What a held packet keeps in its control block. */
struct mplane_reorder_cb {
	u32 psn;
	u8 plane;		/* the index of the plane it came in on */
	bool resyncs;		/* mplane_reorder_resyncs() */
};

static struct mplane_reorder_cb *mplane_reorder_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct mplane_reorder_cb) > sizeof(skb->cb));
	return (struct mplane_reorder_cb *)skb->cb;
}

static void mplane_reorder_count(struct mplane_dev *mp, u8 index, int attr)
{
	struct mplane_plane *plane;

	rcu_read_lock();
	plane = rcu_dereference(mp->planes[index]);
	if (plane)
		mplane_pstat_add(plane, attr, 1);
	rcu_read_unlock();
}

/* Move every held packet to @out, in order; the QP expects what follows. */
static void mplane_reorder_release_all(struct mplane_reorder_qp *qp,
				       struct sk_buff_head *out)
{
	struct sk_buff *last = skb_peek_tail(&qp->held);

	if (!last)
		return;
	qp->expected = (mplane_reorder_cb(last)->psn + 1) & MPLANE_BTH_PSN_MASK;
	qp->resync = mplane_reorder_cb(last)->resyncs;
	atomic_sub(skb_queue_len(&qp->held), &qp->table->held);
	skb_queue_splice_tail_init(&qp->held, out);
}

/*
 * Move to @out the held packets that are now in order.  After a READ the
 * sequence cannot be followed, and whatever is held goes.
 */
static void mplane_reorder_release_ready(struct mplane_reorder_qp *qp,
					 struct sk_buff_head *out)
{
	struct sk_buff *skb;

	while ((skb = skb_peek(&qp->held))) {
		if (qp->resync) {
			mplane_reorder_release_all(qp, out);
			return;
		}
		if (mplane_psn_diff(mplane_reorder_cb(skb)->psn, qp->expected) > 0)
			return;
		__skb_unlink(skb, &qp->held);
		atomic_dec(&qp->table->held);
		if (mplane_reorder_cb(skb)->psn == qp->expected) {
			qp->expected = (qp->expected + 1) & MPLANE_BTH_PSN_MASK;
			qp->resync = mplane_reorder_cb(skb)->resyncs;
		}
		__skb_queue_tail(out, skb);
	}
}

/* Hold @skb in PSN order; a copy of a held PSN goes behind it. */
static void mplane_reorder_insert(struct mplane_reorder_qp *qp,
				  struct sk_buff *skb)
{
	u32 psn = mplane_reorder_cb(skb)->psn;
	struct sk_buff *at;

	skb_queue_reverse_walk(&qp->held, at)
		if (mplane_psn_diff(psn, mplane_reorder_cb(at)->psn) >= 0)
			break;
	if (at == (struct sk_buff *)&qp->held)
		__skb_queue_head(&qp->held, skb);
	else
		__skb_queue_after(&qp->held, at, skb);
	atomic_inc(&qp->table->held);
}

/* A new sequence starts at @psn. */
static void mplane_reorder_restart(struct mplane_reorder_qp *qp, u32 psn)
{
	qp->expected = psn;
	qp->resync = false;
}

/* (Re)start the window for the oldest gap held. */
static void mplane_reorder_arm(struct mplane_reorder_qp *qp, u64 now)
{
	qp->expires_ns = now + READ_ONCE(qp->table->mp->reorder_ns);
	if (!hrtimer_is_queued(&qp->timer))
		hrtimer_start(&qp->timer, ns_to_ktime(qp->expires_ns),
			      HRTIMER_MODE_ABS_SOFT);
}

static enum hrtimer_restart mplane_reorder_expire(struct hrtimer *timer)
{
	struct mplane_reorder_qp *qp =
		container_of(timer, struct mplane_reorder_qp, timer);
	struct sk_buff_head out;
	struct sk_buff *first;
	u8 plane = 0;

	__skb_queue_head_init(&out);
	spin_lock(&qp->lock);
	first = skb_peek(&qp->held);
	if (first && ktime_get_ns() < qp->expires_ns) {
		/*
		 * The gap filled and another opened since it was armed.  If
		 * a packet has started the timer again meanwhile, that stands:
		 * a queued timer's expiry must not be moved under it.
		 */
		if (hrtimer_is_queued(timer)) {
			spin_unlock(&qp->lock);
			return HRTIMER_NORESTART;
		}
		hrtimer_set_expires(timer, ns_to_ktime(qp->expires_ns));
		spin_unlock(&qp->lock);
		return HRTIMER_RESTART;
	}
	if (first) {
		plane = mplane_reorder_cb(first)->plane;
		mplane_reorder_release_all(qp, &out);
	}
	spin_unlock(&qp->lock);

	if (first)
		mplane_reorder_count(qp->table->mp, plane,
				     IFLA_MPLANE_PSTAT_REORDER_EXPIRED);
	while ((first = __skb_dequeue(&out)))
		netif_rx(first);
	return HRTIMER_NORESTART;
}

static struct mplane_reorder_qp *
mplane_reorder_slot(struct mplane_reorder_table *t, const struct in6_addr *peer,
		    u32 qpn)
{
	u64 h = siphash_3u32(peer->s6_addr32[0] ^ peer->s6_addr32[1],
			     peer->s6_addr32[2] ^ peer->s6_addr32[3], qpn,
			     &t->key);

	return &t->qps[h & (MPLANE_REORDER_QPS - 1)];
}

/*
 * Find @qp's state for (@peer, @qpn), taking the slot over when another
 * QP had it or the QP was idle long enough to be a new one.  Its held
 * packets go to @out.  Returns whether the entry is new.
 */
static bool mplane_reorder_claim(struct mplane_reorder_qp *qp,
				 const struct in6_addr *peer, u32 qpn, u64 now,
				 struct sk_buff_head *out)
{
	if (qp->used && qp->qpn == qpn && ipv6_addr_equal(&qp->peer, peer) &&
	    now - qp->last_ns < MPLANE_REORDER_IDLE_NS)
		return false;
	mplane_reorder_release_all(qp, out);
	qp->used = true;
	qp->peer = *peer;
	qp->qpn = qpn;
	return true;
}

struct mplane_reorder_pkt {
	struct in6_addr peer;
	u32 qpn;
	u32 psn;
	u8 opcode;
};

/*
 * Read what resequencing needs of @skb, a RoCEv2 packet for mp0 whose
 * IP header is at @ip_off (past VXLAN's, when it came in one) and BTH at
 * @bth_off.  The peer is the source of that IP header.
 */
static bool mplane_reorder_parse(struct sk_buff *skb, unsigned int ip_off,
				 unsigned int bth_off,
				 struct mplane_reorder_pkt *p)
{
	struct mplane_bth _bth;
	const struct mplane_bth *bth;
	const u8 *ip;
	u8 _ip[sizeof(struct ipv6hdr)];

	/* A GRO super-packet holds more than one BTH: not one PSN. */
	if (skb_is_gso(skb))
		return false;
	bth = skb_header_pointer(skb, bth_off, sizeof(_bth), &_bth);
	if (!bth || !mplane_reorder_sequenced(bth->opcode))
		return false;
	p->opcode = bth->opcode;
	p->qpn = ntohl(bth->dqpn) & MPLANE_BTH_QPN_MASK;
	p->psn = ntohl(bth->psn) & MPLANE_BTH_PSN_MASK;
	/* An IPv4 header with UDP and a BTH behind it is as long as IPv6's. */
	ip = skb_header_pointer(skb, ip_off, sizeof(_ip), _ip);
	if (!ip)
		return false;
	if ((ip[0] >> 4) == 4)
		ipv6_addr_set_v4mapped(((const struct iphdr *)ip)->saddr, &p->peer);
	else
		p->peer = ((const struct ipv6hdr *)ip)->saddr;
	return true;
}

/*
 * What one packet does to its QP, under its lock; what goes up now is
 * added to @out in order.  Returns the counter the packet moved, if any.
 */
static int mplane_reorder_step(struct mplane_reorder_qp *qp,
			       struct sk_buff *skb,
			       const struct mplane_reorder_pkt *p, u64 now,
			       struct sk_buff_head *out)
{
	bool gap = !skb_queue_empty(&qp->held);
	unsigned int held;
	int counted = 0;

	if (mplane_reorder_claim(qp, &p->peer, p->qpn, now, out)) {
		/* Another QP's gap, given up for this one. */
		if (gap)
			counted = IFLA_MPLANE_PSTAT_REORDER_OVERFLOWS;
		gap = false;
		qp->resync = true;
	}
	if (qp->resync)
		mplane_reorder_restart(qp, p->psn);
	qp->last_ns = now;

	switch (mplane_reorder_verdict(qp->expected, p->psn,
				       skb_queue_len(&qp->held),
				       atomic_read(&qp->table->held) <
				       MPLANE_REORDER_HELD_MAX)) {
	case MPLANE_REORDER_HOLD:
		mplane_reorder_insert(qp, skb);
		if (!gap)
			mplane_reorder_arm(qp, now);
		return IFLA_MPLANE_PSTAT_REORDER_HELD;
	case MPLANE_REORDER_GIVE_UP:
		/* It goes up in its place among the held ones. */
		mplane_reorder_insert(qp, skb);
		mplane_reorder_release_all(qp, out);
		return IFLA_MPLANE_PSTAT_REORDER_OVERFLOWS;
	case MPLANE_REORDER_RESTART:
		mplane_reorder_release_all(qp, out);
		mplane_reorder_restart(qp, p->psn);
		break;
	case MPLANE_REORDER_PASS:
		/*
		 * Behind the one expected, an RC request is where the
		 * responder's sequence goes on: a resend (go-back-N), or a
		 * straggler of a gap given up, which the responder takes as
		 * its next and after which everything is resent.  The sequence
		 * follows it back, to put the resent packets, sprayed as the
		 * first ones were, in order too.
		 */
		if (mplane_reorder_goes_back(p->opcode))
			qp->expected = p->psn;
		break;
	}
	if (p->psn == qp->expected) {
		qp->expected = (p->psn + 1) & MPLANE_BTH_PSN_MASK;
		qp->resync = mplane_reorder_resyncs(p->opcode);
	}
	__skb_queue_tail(out, skb);
	if (skb_queue_empty(&qp->held))
		return counted;
	held = skb_queue_len(&qp->held);
	mplane_reorder_release_ready(qp, out);
	if (skb_queue_len(&qp->held) == held)
		return counted;
	/* It filled the gap; one further on has a window of its own. */
	if (!skb_queue_empty(&qp->held))
		mplane_reorder_arm(qp, now);
	return counted ?: IFLA_MPLANE_PSTAT_REORDER_FILLED;
}

/*
 * A RoCEv2 packet for mp0 that arrived on @plane, its IP header at
 * @ip_off and BTH at @bth_off, already mp0's (skb->dev) and counted.
 * Returns true when resequencing took it: it has gone up, or will,
 * through netif_rx().
 */
bool mplane_reorder_rx(struct mplane_plane *plane, struct sk_buff *skb,
		       unsigned int ip_off, unsigned int bth_off)
{
	struct mplane_reorder_table *t = rcu_dereference(plane->mp->reorder);
	struct mplane_reorder_pkt p;
	struct mplane_reorder_qp *qp;
	struct sk_buff_head out;
	u64 now;
	int counted;

	if (!t || !mplane_reorder_parse(skb, ip_off, bth_off, &p))
		return false;
	*mplane_reorder_cb(skb) = (struct mplane_reorder_cb) {
		.psn = p.psn,
		.plane = plane->index,
		.resyncs = mplane_reorder_resyncs(p.opcode),
	};
	__skb_queue_head_init(&out);
	now = ktime_get_ns();
	qp = mplane_reorder_slot(t, &p.peer, p.qpn);

	spin_lock(&qp->lock);
	counted = mplane_reorder_step(qp, skb, &p, now, &out);
	spin_unlock(&qp->lock);

	if (counted)
		mplane_pstat_add(plane, counted, 1);
	while ((skb = __skb_dequeue(&out)))
		netif_rx(skb);
	return true;
}

static struct mplane_reorder_table *mplane_reorder_table_alloc(struct mplane_dev *mp)
{
	struct mplane_reorder_table *t = kvzalloc(sizeof(*t), GFP_KERNEL);
	int i;

	if (!t)
		return NULL;
	t->mp = mp;
	get_random_bytes(&t->key, sizeof(t->key));
	for (i = 0; i < MPLANE_REORDER_QPS; i++) {
		struct mplane_reorder_qp *qp = &t->qps[i];

		spin_lock_init(&qp->lock);
		__skb_queue_head_init(&qp->held);
		qp->table = t;
		mplane_compat_hrtimer_setup(&qp->timer, mplane_reorder_expire,
					    CLOCK_MONOTONIC,
					    HRTIMER_MODE_ABS_SOFT);
	}
	return t;
}

/*
 * Free @t, which no packet can reach any more.  What it held goes up
 * (turning resequencing off loses nothing) or, with @deliver false (the
 * device is going), is dropped.
 */
static void mplane_reorder_table_free(struct mplane_reorder_table *t,
				      bool deliver)
{
	struct sk_buff_head out;
	struct sk_buff *skb;
	int i;

	if (!t)
		return;
	__skb_queue_head_init(&out);
	for (i = 0; i < MPLANE_REORDER_QPS; i++) {
		struct mplane_reorder_qp *qp = &t->qps[i];

		hrtimer_cancel(&qp->timer);
		spin_lock_bh(&qp->lock);
		mplane_reorder_release_all(qp, &out);
		spin_unlock_bh(&qp->lock);
	}
	while ((skb = __skb_dequeue(&out))) {
		if (deliver)
			netif_rx(skb);
		else
			kfree_skb(skb);
	}
	kvfree(t);
}

/*
 * Set the window to @us (0: off), under RTNL.  Turning it on makes the
 * table; turning it off takes the table from the datapath, waits for
 * every packet that could still be using it, then frees it.
 */
int mplane_reorder_set(struct mplane_dev *mp, u32 us,
		       struct netlink_ext_ack *extack)
{
	struct mplane_reorder_table *t = rtnl_dereference(mp->reorder);

	ASSERT_RTNL();
	WRITE_ONCE(mp->reorder_ns, (u64)us * NSEC_PER_USEC);
	WRITE_ONCE(mp->reorder_us, us);
	if (us && !t) {
		t = mplane_reorder_table_alloc(mp);
		if (!t) {
			NL_SET_ERR_MSG_MOD(extack,
					   "no memory for the resequencing table");
			WRITE_ONCE(mp->reorder_us, 0);
			return -ENOMEM;
		}
		rcu_assign_pointer(mp->reorder, t);
	} else if (!us && t) {
		RCU_INIT_POINTER(mp->reorder, NULL);
		synchronize_net();
		mplane_reorder_table_free(t, true);
	}
	return 0;
}

/* The device is going: drop what is held, and the table. */
void mplane_reorder_uninit(struct mplane_dev *mp)
{
	struct mplane_reorder_table *t = rtnl_dereference(mp->reorder);

	if (!t)
		return;
	RCU_INIT_POINTER(mp->reorder, NULL);
	synchronize_net();
	mplane_reorder_table_free(t, false);
	WRITE_ONCE(mp->reorder_us, 0);
}

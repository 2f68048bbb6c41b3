// SPDX-License-Identifier: GPL-2.0
/*
 * Endpoint congestion control: mp0 is the NIC of the DCQCN loop.
 *
 * As the notification point, a RoCEv2 packet for mp0 that arrives with
 * CE makes it send a CNP back on the same plane, at most one per QP per
 * CNP interval.  As the reaction point, a CNP cuts the rate of the QP it
 * names (dcqcn.c holds the equations), and each limited QP's packets get
 * a departure time (EDT, skb->tstamp) that an fq qdisc on the rail keeps.
 * Under notify, only the CNPs go both ways: they are counted per QP and
 * weigh the planes, and no rate is cut.
 *
 * QPs live in one table per device: sets of MPLANE_QP_WAYS entries with a
 * lock each, found by a keyed hash of (peer, QPN, role).  The table never
 * grows: a QP that finds its set full takes the least recently used
 * entry, which is counted as an eviction unless that entry had been idle
 * for MPLANE_QP_IDLE_NS.  Its memory is fixed when CC is turned on.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/jhash.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/netlink.h>

#include "compat.h"
#include "dcqcn.h"
#include "mplane.h"
#include "trace.h"

#define MPLANE_QP_WAYS		4
/* An entry that saw no packet for this long is free for another QP. */
#define MPLANE_QP_IDLE_NS	NSEC_PER_SEC
/* CNPs go out with DSCP 48, ConnectX's cnp_dscp, and Not-ECT. */
#define MPLANE_CNP_TOS		(48 << 2)

enum mplane_qp_role {
	MPLANE_QP_FREE,
	MPLANE_QP_RP,		/* mp0 sends to the peer's QP */
	MPLANE_QP_NP,		/* the peer sends to mp0's QP */
};

struct mplane_qp {
	struct in6_addr peer;	/* IPv4 as v4-mapped */
	u32 qpn;
	u8 role;		/* enum mplane_qp_role */
	u64 last_ns;		/* the last packet either way */
	struct mplane_dcqcn rate;	/* RP */
	u64 next_tx_ns;		/* RP: the departure time of the next packet */
	u64 last_cnp_ns;	/* NP: the last CNP sent */
	u64 cnp_rx;
	u64 cnp_tx;
	u64 cuts;
	u64 tx_bytes;
};

struct mplane_qp_set {
	spinlock_t lock;	/* the ways and everything in them */
	struct mplane_qp way[MPLANE_QP_WAYS];
};

struct mplane_qp_table {
	struct rcu_head rcu;
	u32 mask;		/* sets - 1 */
	u32 salt;		/* keys the hash: no chosen collisions */
	struct mplane_qp_set set[];
};

/* The CNP's payload after UDP: a BTH, 16 reserved bytes and the ICRC. */
struct mplane_cnp {
	struct mplane_bth bth;
	u8 reserved[16];
	__be32 icrc;
};

/* A RoCEv2 packet as the datapath sees it. */
struct mplane_roce {
	struct mplane_udp_addrs addrs;	/* as it travels */
	__be16 sport;
	u8 opcode;
	u32 dqpn;
};

/* Sets of a table for @qp_max QPs: a power of two, as the hash masks. */
static u32 mplane_cc_table_sets(u32 qp_max)
{
	return rounddown_pow_of_two(max_t(u32, qp_max / MPLANE_QP_WAYS, 1));
}

/* The QPs it holds: @qp_max rounded down to a power of two. */
u32 mplane_cc_table_entries(u32 qp_max)
{
	return mplane_cc_table_sets(qp_max) * MPLANE_QP_WAYS;
}

/* Its bytes, as the kernel log says when CC is turned on. */
size_t mplane_cc_table_size(u32 qp_max)
{
	return struct_size_t(struct mplane_qp_table, set,
			     mplane_cc_table_sets(qp_max));
}

struct mplane_qp_table *mplane_cc_table_alloc(u32 qp_max)
{
	u32 sets = mplane_cc_table_sets(qp_max);
	struct mplane_qp_table *t;
	u32 i;

	t = kvzalloc(mplane_cc_table_size(qp_max), GFP_KERNEL);
	if (!t)
		return NULL;
	t->mask = sets - 1;
	t->salt = get_random_u32();
	for (i = 0; i < sets; i++)
		spin_lock_init(&t->set[i].lock);
	return t;
}

static void mplane_cc_table_free_rcu(struct rcu_head *head)
{
	kvfree(container_of(head, struct mplane_qp_table, rcu));
}

void mplane_cc_table_free(struct mplane_qp_table *t)
{
	if (t)
		call_rcu(&t->rcu, mplane_cc_table_free_rcu);
}

/* Under RTNL: the line rate is what the planes can carry together. */
void mplane_cc_line_update(struct mplane_dev *mp)
{
	struct mplane_plane *plane;
	u64 kbps = 0;
	int i;

	ASSERT_RTNL();
	for (i = 0; i < MPLANE_MAX_PLANES; i++) {
		plane = rtnl_dereference(mp->planes[i]);
		if (plane)
			kbps += (u64)READ_ONCE(plane->capacity) * 1000;
	}
	WRITE_ONCE(mp->cc_line_kbps,
		   (u32)clamp_t(u64, kbps, MPLANE_CC_RATE_KBPS_MIN,
				MPLANE_CC_RATE_KBPS_MAX));
}

/* The settings in force, with the line rate filled in; NULL when off. */
static const struct mplane_cc_params *
mplane_cc_params_get(struct mplane_dev *mp, struct mplane_dcqcn_params *p)
{
	const struct mplane_cc_params *cc = rcu_dereference_bh(mp->cc);

	if (!cc)
		return NULL;
	*p = cc->dcqcn;
	if (!p->max_kbps)
		p->max_kbps = READ_ONCE(mp->cc_line_kbps);
	p->min_kbps = min(p->min_kbps, p->max_kbps);
	return cc;
}

static bool mplane_qp_idle(const struct mplane_qp *qp, u64 now)
{
	return qp->role == MPLANE_QP_FREE || now - qp->last_ns > MPLANE_QP_IDLE_NS;
}

/* Which of two entries makes room first: an idle one, else the older. */
static bool mplane_qp_evicts_before(const struct mplane_qp *a,
				    const struct mplane_qp *b, u64 now)
{
	bool idle_a = mplane_qp_idle(a, now), idle_b = mplane_qp_idle(b, now);

	if (idle_a != idle_b)
		return idle_a;
	return a->last_ns < b->last_ns;
}

static struct mplane_qp_set *mplane_qp_set_of(struct mplane_qp_table *t,
					      const struct in6_addr *peer,
					      u32 qpn, u8 role)
{
	u32 h = jhash2(peer->s6_addr32, 4, t->salt ^ qpn ^ ((u32)role << 24));

	return &t->set[h & t->mask];
}

/*
 * The entry of (@peer, @qpn, @role), made when @create and not found.
 * Returns it with its set's lock held (release it with the set), or NULL.
 */
static struct mplane_qp *mplane_qp_get(struct mplane_dev *mp,
				       struct mplane_qp_table *t,
				       struct mplane_qp_set **setp,
				       const struct in6_addr *peer, u32 qpn,
				       u8 role, bool create, u64 now)
{
	struct mplane_qp_set *set = mplane_qp_set_of(t, peer, qpn, role);
	struct mplane_qp *qp, *victim = NULL;
	int i;

	spin_lock(&set->lock);
	for (i = 0; i < MPLANE_QP_WAYS; i++) {
		qp = &set->way[i];
		if (qp->role == role && qp->qpn == qpn &&
		    ipv6_addr_equal(&qp->peer, peer))
			goto found;
		if (!victim || mplane_qp_evicts_before(qp, victim, now))
			victim = qp;
	}
	if (!create) {
		spin_unlock(&set->lock);
		return NULL;
	}
	qp = victim;
	if (!mplane_qp_idle(qp, now))
		atomic64_inc(&mp->cc_evictions);
	memset(qp, 0, sizeof(*qp));
	qp->peer = *peer;
	qp->qpn = qpn;
	qp->role = role;
found:
	qp->last_ns = now;
	*setp = set;
	return qp;
}

/* Read the UDP header and the BTH at @off; false if they are not there. */
static bool mplane_roce_parse(struct sk_buff *skb, unsigned int off,
			      struct mplane_roce *r, struct mplane_dev *mp)
{
	struct {
		struct udphdr uh;
		struct mplane_bth bth;
	} h;

	if (skb_copy_bits(skb, off, &h, sizeof(h.uh)) ||
	    h.uh.dest != htons(MPLANE_ROCEV2_PORT))
		return false;
	if (!mplane_udp_has_bth(skb, off, &h.uh) ||
	    skb_copy_bits(skb, off, &h, sizeof(h))) {
		atomic64_inc(&mp->cc_bad_bth);
		return false;
	}
	r->sport = h.uh.source;
	r->opcode = h.bth.opcode;
	r->dqpn = ntohl(h.bth.dqpn) & MPLANE_BTH_QPN_MASK;
	return true;
}

/* Is @skb (network header set) RoCEv2?  Fills @r when it is. */
static bool mplane_roce_of(struct mplane_dev *mp, struct sk_buff *skb,
			   struct mplane_roce *r)
{
	unsigned int off = skb_network_offset(skb);

	if (skb->protocol == htons(ETH_P_IP)) {
		const struct iphdr *iph = ip_hdr(skb);

		if (iph->protocol != IPPROTO_UDP || ip_is_fragment(iph))
			return false;
		r->addrs.v4 = true;
		ipv6_addr_set_v4mapped(iph->saddr, &r->addrs.saddr);
		ipv6_addr_set_v4mapped(iph->daddr, &r->addrs.daddr);
		off += iph->ihl * 4;
	} else if (skb->protocol == htons(ETH_P_IPV6)) {
		const struct ipv6hdr *ip6h = ipv6_hdr(skb);

		/* Extension headers are not walked: RoCEv2 does not use them. */
		if (ip6h->nexthdr != IPPROTO_UDP)
			return false;
		r->addrs.v4 = false;
		r->addrs.saddr = ip6h->saddr;
		r->addrs.daddr = ip6h->daddr;
		off += sizeof(*ip6h);
	} else {
		return false;
	}
	return mplane_roce_parse(skb, off, r, mp);
}

/*
 * Reaction point, on transmit: account the bytes of a RoCEv2 packet to
 * its QP, let DCQCN's timers and byte counter raise a limited rate, and
 * give the packet its departure time.  Under notify, the QP is only
 * known, for the CNPs that name it.  Under rcu_read_lock_bh().
 */
void mplane_cc_xmit(struct mplane_dev *mp, struct sk_buff *skb, u64 now)
{
	const struct mplane_cc_params *cc;
	struct mplane_dcqcn_params p;
	struct mplane_qp_table *t;
	struct mplane_qp_set *set;
	struct mplane_roce r;
	struct mplane_qp *qp;
	u32 old, changed;
	u64 at;

	/* Most traffic is not RoCEv2: it leaves before the settings' copy. */
	if (!mplane_roce_of(mp, skb, &r) || r.opcode == MPLANE_BTH_OPCODE_CNP)
		return;
	t = rcu_dereference_bh(mp->qps);
	cc = mplane_cc_params_get(mp, &p);
	if (!t || !cc)
		return;
	qp = mplane_qp_get(mp, t, &set, &r.addrs.daddr, r.dqpn, MPLANE_QP_RP,
			   true, now);
	qp->tx_bytes += skb->len;
	if (!cc->rate_control) {
		spin_unlock(&set->lock);
		return;
	}
	if (!qp->rate.rc_kbps)
		mplane_dcqcn_init(&qp->rate, &p, now);
	old = qp->rate.rc_kbps;
	changed = mplane_dcqcn_sent(&qp->rate, &p, skb->len, now);
	if (mplane_dcqcn_limited(&qp->rate, &p)) {
		at = max(now, qp->next_tx_ns);
		qp->next_tx_ns = at + mplane_dcqcn_tx_ns(&qp->rate, skb->len);
		/* A later time the sender chose itself stands. */
		if (at > ktime_to_ns(skb->tstamp))
			mplane_compat_skb_set_mono_time(skb, at);
	}
	if (changed)
		trace_rate_update(mp->dev, U32_MAX, r.dqpn, qp->rate.rc_kbps,
				  old, qp->rate.last_cause);
	spin_unlock(&set->lock);
}

/* Notification point: answer CE on @r's QP with a CNP, if it is time. */
static void mplane_cc_notify(struct mplane_plane *plane,
			     const struct mplane_cc_params *cc,
			     struct mplane_qp_table *t,
			     const struct mplane_roce *r, u64 now)
{
	struct mplane_dev *mp = plane->mp;
	struct mplane_udp_addrs back = {
		.v4 = r->addrs.v4,
		.saddr = r->addrs.daddr,
		.daddr = r->addrs.saddr,
	};
	struct mplane_cnp cnp = {
		.bth = {
			.opcode = MPLANE_BTH_OPCODE_CNP,
			.pkey = htons(0xffff),
			.dqpn = htonl(r->dqpn),
		},
	};
	struct mplane_qp_set *set;
	struct mplane_qp *qp;
	bool due;

	qp = mplane_qp_get(mp, t, &set, &r->addrs.saddr, r->dqpn, MPLANE_QP_NP,
			   true, now);
	due = !qp->last_cnp_ns || now - qp->last_cnp_ns >= cc->cnp_interval_ns;
	if (due) {
		qp->last_cnp_ns = now;
		qp->cnp_tx++;
	}
	spin_unlock(&set->lock);
	if (!due)
		return;
	/* mplane_udp_send() fills in the ICRC, as a peer's RNIC checks it. */
	if (!mplane_udp_send(plane, &back, r->sport, htons(MPLANE_ROCEV2_PORT),
			     MPLANE_CNP_TOS, &cnp, sizeof(cnp)))
		mplane_pstat_add(plane, IFLA_MPLANE_PSTAT_CNP_SENT, 1);
}

/*
 * Reaction point: a CNP came in on @plane for the QP mp0 sends to.  It
 * cuts the QP's rate under DCQCN, and weighs the plane under both.
 */
static void mplane_cc_cnp(struct mplane_plane *plane, struct mplane_qp_table *t,
			  const struct mplane_cc_params *cc,
			  const struct mplane_dcqcn_params *p,
			  const struct mplane_roce *r, u64 now)
{
	struct mplane_dev *mp = plane->mp;
	struct mplane_qp_set *set;
	struct mplane_qp *qp;
	u32 old;

	qp = mplane_qp_get(mp, t, &set, &r->addrs.saddr, r->dqpn, MPLANE_QP_RP,
			   false, now);
	if (!qp) {
		atomic64_inc(&mp->cc_cnp_unknown);
		return;
	}
	qp->cnp_rx++;
	old = qp->rate.rc_kbps;
	if (cc->rate_control && mplane_dcqcn_cnp(&qp->rate, p, now)) {
		qp->cuts++;
		mplane_pstat_add(plane, IFLA_MPLANE_PSTAT_RATE_CUTS, 1);
		trace_rate_update(mp->dev, plane->index, r->dqpn,
				  qp->rate.rc_kbps, old, MPLANE_RATE_CUT);
	}
	spin_unlock(&set->lock);
	/*
	 * The plane's score hears of it too, in PLB's own loop, and spray
	 * weighs the plane by it (balance.h).
	 */
	mplane_congestion_event(plane, now);
	mplane_plane_mark(plane);
}

/*
 * A packet for mp0 came in on @plane, with CE set when @ce.  Returns true
 * when congestion control took it (a CNP: the NIC consumes its own).
 * Under rcu_read_lock().
 */
bool mplane_cc_rx(struct mplane_plane *plane, struct sk_buff *skb, bool ce)
{
	struct mplane_dev *mp = plane->mp;
	const struct mplane_cc_params *cc;
	struct mplane_dcqcn_params p;
	struct mplane_qp_table *t;
	struct mplane_roce r;

	cc = mplane_cc_params_get(mp, &p);
	t = rcu_dereference_bh(mp->qps);
	if (!cc || !t || !mplane_roce_of(mp, skb, &r))
		return false;
	/*
	 * The clock is read only for a CNP or CE, which most packets are
	 * not: where the clocksource is the HPET (a TCG guest), a read is
	 * an emulated device access, about 1 us.
	 */
	if (r.opcode == MPLANE_BTH_OPCODE_CNP) {
		mplane_cc_cnp(plane, t, cc, &p, &r, ktime_get_ns());
		consume_skb(skb);
		return true;
	}
	if (ce)
		mplane_cc_notify(plane, cc, t, &r, ktime_get_ns());
	return false;
}

/*
 * Would the QP show in IFLA_MPLANE_QPS?  Idle or not: a QP limited by a
 * cut stays limited until it sends again, and shows so.  Under notify,
 * a QP shows once a CNP came for it.
 */
static bool mplane_qp_shown(const struct mplane_qp *qp,
			    const struct mplane_cc_params *cc,
			    const struct mplane_dcqcn_params *p)
{
	if (qp->role == MPLANE_QP_FREE)
		return false;
	if (qp->role == MPLANE_QP_RP)
		return cc->rate_control ? mplane_dcqcn_limited(&qp->rate, p) :
					  qp->cnp_rx;
	return qp->cnp_tx;
}

/* A sending QP's rate state, which it has only under DCQCN. */
static int mplane_qp_fill_rate(struct sk_buff *skb, const struct mplane_qp *qp)
{
	if (!qp->rate.rc_kbps)
		return 0;
	if (nla_put_u32(skb, IFLA_MPLANE_QP_RATE_KBPS, qp->rate.rc_kbps) ||
	    nla_put_u32(skb, IFLA_MPLANE_QP_TARGET_KBPS, qp->rate.rt_kbps) ||
	    nla_put_u32(skb, IFLA_MPLANE_QP_ALPHA,
			qp->rate.alpha >> (MPLANE_DCQCN_ALPHA_SHIFT - 10)))
		return -EMSGSIZE;
	return 0;
}

static int mplane_qp_fill(struct sk_buff *skb, const struct mplane_qp *qp)
{
	struct nlattr *nest = nla_nest_start(skb, IFLA_MPLANE_QP);
	bool v4 = ipv6_addr_v4mapped(&qp->peer);
	int err;

	if (!nest)
		return -EMSGSIZE;
	err = nla_put(skb, IFLA_MPLANE_QP_PEER, v4 ? 4 : 16,
		      v4 ? (const void *)&qp->peer.s6_addr32[3] : &qp->peer) ||
	      nla_put_u32(skb, IFLA_MPLANE_QP_QPN, qp->qpn);
	if (!err && qp->role == MPLANE_QP_RP)
		err = mplane_qp_fill_rate(skb, qp) ||
		      nla_put_u64_64bit(skb, IFLA_MPLANE_QP_CNP_RX, qp->cnp_rx,
					IFLA_MPLANE_QP_PAD) ||
		      nla_put_u64_64bit(skb, IFLA_MPLANE_QP_RATE_CUTS, qp->cuts,
					IFLA_MPLANE_QP_PAD) ||
		      nla_put_u64_64bit(skb, IFLA_MPLANE_QP_TX_BYTES, qp->tx_bytes,
					IFLA_MPLANE_QP_PAD);
	else if (!err)
		err = nla_put_u64_64bit(skb, IFLA_MPLANE_QP_CNP_TX, qp->cnp_tx,
					IFLA_MPLANE_QP_PAD);
	if (err) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

size_t mplane_cc_qps_size(void)
{
	size_t one = nla_total_size(0) + nla_total_size(sizeof(struct in6_addr)) +
		     4 * nla_total_size(sizeof(u32)) +
		     4 * nla_total_size_64bit(sizeof(u64));

	return nla_total_size(0) + MPLANE_QPS_DUMP_MAX * one;
}

/*
 * IFLA_MPLANE_QPS, and in @count the QPs the table holds now.  Called by
 * fill_info, under RTNL or RCU.
 */
int mplane_cc_qps_fill(struct sk_buff *skb, struct mplane_dev *mp, u32 *count)
{
	const struct mplane_cc_params *cc;
	struct mplane_dcqcn_params p;
	struct mplane_qp_table *t;
	struct nlattr *nest;
	u32 i, w, shown = 0;
	int err = 0;

	*count = 0;
	rcu_read_lock_bh();
	t = rcu_dereference_bh(mp->qps);
	cc = mplane_cc_params_get(mp, &p);
	if (!t || !cc)
		goto out;
	nest = nla_nest_start(skb, IFLA_MPLANE_QPS);
	if (!nest) {
		err = -EMSGSIZE;
		goto out;
	}
	for (i = 0; i <= t->mask; i++) {
		struct mplane_qp_set *set = &t->set[i];

		spin_lock(&set->lock);
		for (w = 0; w < MPLANE_QP_WAYS; w++) {
			const struct mplane_qp *qp = &set->way[w];

			if (qp->role == MPLANE_QP_FREE)
				continue;
			(*count)++;
			if (!err && shown < MPLANE_QPS_DUMP_MAX &&
			    mplane_qp_shown(qp, cc, &p)) {
				err = mplane_qp_fill(skb, qp);
				shown++;
			}
		}
		spin_unlock(&set->lock);
	}
	if (err)
		nla_nest_cancel(skb, nest);
	else
		nla_nest_end(skb, nest);
out:
	rcu_read_unlock_bh();
	return err;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private state of mplane.ko and the calls between its files.
 *
 * Configuration runs under RTNL.  Plane state changes (from the netdev
 * notifier, timers and the receive path) take the device's state_lock.
 * The datapath takes no lock: it finds planes through RCU and reads the
 * masks and settings with READ_ONCE, so a plane is unpublished under RTNL
 * and freed only after a grace period.
 */
#ifndef _MPLANE_H
#define _MPLANE_H

#include <linux/hrtimer.h>
#include <linux/in6.h>
#include <linux/netdevice.h>
#include <linux/netlink.h>
#include <net/netlink.h>
#include <linux/rcupdate.h>
#include <linux/siphash.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/types.h>
#include <linux/udp.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>

#include "linux/mplane.h"
#include "dcqcn.h"

/* Flowlet slots per device, indexed by flow hash; a power of two. */
#define MPLANE_FLOWLET_SLOTS	4096
/*
 * How long a plane whose rail just dropped a packet is passed over.  A
 * link going down is seen first as drops (the peer stops taking packets
 * before the carrier goes), and a full qdisc is congestion: either way the
 * next packets are better off elsewhere until the notifier has spoken.
 */
#define MPLANE_REFUSED_NS	(10 * NSEC_PER_MSEC)
/*
 * Half-life of the rate estimate (DRE) that joins queue bytes in the
 * load: 2^17 ns (131 us), a power of two so that every packet's update
 * is shifts and no division.
 */
#define MPLANE_DRE_HALFLIFE_SHIFT	17
/* Congestion scores count events in 1/256ths, for a smooth decay. */
#define MPLANE_CONG_UNIT	256

/*
 * Does the UDP datagram with header @uh at @off of @skb hold a whole
 * BTH?  The datagram's own length says, not the frame's: Ethernet pads
 * a short frame to 60 bytes, and its padding could read as a BTH.
 */
static inline bool mplane_udp_has_bth(const struct sk_buff *skb,
				      unsigned int off,
				      const struct udphdr *uh)
{
	unsigned int need = sizeof(*uh) + sizeof(struct mplane_bth);

	return ntohs(uh->len) >= need && skb->len >= off + need;
}

/*
 * Per-plane counters live in this array, indexed IFLA_MPLANE_PSTAT_* - 1;
 * the slot of IFLA_MPLANE_PSTAT_PAD stays unused.
 */
#define MPLANE_PSTAT_COUNT	IFLA_MPLANE_PSTAT_MAX

struct mplane_dev;
struct mplane_routes;
struct mplane_qp_table;
struct mplane_reorder_table;

/* Congestion control's settings in force (cc_settings.c), RCU-swapped. */
struct mplane_cc_params {
	struct rcu_head rcu;
	struct mplane_dcqcn_params dcqcn;	/* max_kbps 0: the line rate */
	u64 cnp_interval_ns;
	bool rate_control;	/* DCQCN: CNPs cut, and limited QPs are paced */
};

struct mplane_plane_pcpu {
	u64_stats_t cnt[MPLANE_PSTAT_COUNT];
	struct u64_stats_sync syncp;
};

/* One rail (a lower Ethernet device) enslaved to an mplane device. */
struct mplane_plane {
	/* needed in fast-path */
	struct net_device *rail;
	struct mplane_dev *mp;
	struct mplane_plane_pcpu __percpu *pcpu;
	u32 index;		/* stable slot in mplane_dev.planes */
	u32 capacity;		/* weight, else link speed in Mbit/s */
	u8 state;		/* enum mplane_plane_state, WRITE_ONCE */
	u8 reason;		/* enum mplane_plane_reason, WRITE_ONCE */
	bool congested;		/* deprioritised by the load score */
	/*
	 * Decaying estimates, updated by every CPU without a lock: a lost
	 * update under contention only makes an estimate a little low.
	 */
	u64 dre_bytes;
	u64 dre_stamp;
	u64 cong_score;
	u64 cong_stamp;
	u64 spray_vtime;	/* mplane_spray_cost(): what spray gave it */
	u32 mark_share;		/* mplane_mark_share_add(), ... */
	u64 mark_sprayed;	/* ... when mplane_dev.sprayed was this */
	u64 refused_until;	/* the rail dropped a packet: avoid till then */
	u64 queued_bytes;	/* the rail's queue, as last read */
	u64 queued_stamp;
	struct mplane_routes __percpu *routes;	/* route.c */

	/* slow-path, under mp->state_lock */
	u8 admin;		/* enum mplane_plane_admin */
	bool was_running;	/* rail had carrier at the last event */
	bool holding_down;
	bool probes_lost;
	bool dying;		/* being released: timers must not re-arm */
	u32 weight;		/* as set by the operator; RTNL */
	struct timer_list holddown_timer;
	struct timer_list cong_timer;
	/* Probe requests answered: mplane_probe_reply_take()'s budget. */
	atomic64_t reply_budget;
	struct rcu_head rcu;
};

/* A liveness probe target, with what each plane has heard from it. */
struct mplane_peer {
	struct in6_addr addr;	/* IPv4 as v4-mapped */
	bool v4;
	unsigned long dead_mask;	/* planes that stopped answering */
	u32 unanswered[MPLANE_MAX_PLANES];	/* probes since the last reply */
};

struct mplane_peers {
	struct rcu_head rcu;
	u32 count;
	struct mplane_peer peer[];
};

/* netdev_priv() of an mplane device. */
struct mplane_dev {
	/* needed in fast-path */
	struct mplane_plane __rcu *planes[MPLANE_MAX_PLANES];
	u32 usable_mask;	/* planes that take new traffic */
	u32 carry_mask;		/* and those still finishing flowlets */
	u8 policy;		/* enum mplane_policy */
	u8 gso_mode;		/* enum mplane_gso_mode */
	u64 flowlet_gap_ns;
	u64 cong_halflife_ns;
	u64 cong_threshold;	/* in MPLANE_CONG_UNITs */
	u64 *flowlets;		/* MPLANE_FLOWLET_SLOTS packed slots */
	u32 __percpu *rr_ticket;
	struct mplane_peers __rcu *peers;
	struct mplane_cc_params __rcu *cc;	/* NULL: congestion control off */
	struct mplane_qp_table __rcu *qps;
	struct mplane_reorder_table __rcu *reorder;	/* NULL: off */
	u64 reorder_ns;			/* the window, for the datapath */
	u32 cc_line_kbps;		/* the planes' capacity together */
	atomic64_t cc_evictions;
	atomic64_t cc_cnp_unknown;
	atomic64_t cc_bad_bth;
	/*
	 * Packets spray sent, the marks' clock: every CPU that sprays
	 * writes it, so it has a cache line of its own, apart from what
	 * every packet reads above.
	 */
	struct {
		u64 count;
	} ____cacheline_aligned_in_smp sprayed;

	/* slow-path */
	struct net_device *dev;
	u32 plane_count;	/* RTNL; read locklessly by fill_info */
	u32 flowlet_gap_us;
	u32 probe_interval_us;
	u32 probe_misses;
	u32 holddown_ms;
	u32 cong_threshold_events;
	u32 cong_halflife_us;
	spinlock_t state_lock;		/* plane facts, states and masks */
	unsigned long notify_pending;	/* planes whose change to announce */
	struct delayed_work notify_work;
	struct hrtimer probe_timer;
	u64 probe_seq;		/* the timer writes, replies READ_ONCE */
	siphash_key_t probe_key;	/* makes each request's nonce */
	u32 sample_interval_us;	/* RTNL writes, the sampler READ_ONCE */
	u32 reorder_us;		/* as set; RTNL */
	struct hrtimer sample_timer;
	u32 cc_cfg[IFLA_MPLANE_CC_MAX + 1];	/* as set; RTNL */
};

static inline u64 mplane_pstat_read(const struct mplane_plane *plane,
				    int attr)
{
	u64 sum = 0, v;
	unsigned int start;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct mplane_plane_pcpu *s = per_cpu_ptr(plane->pcpu, cpu);

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			v = u64_stats_read(&s->cnt[attr - 1]);
		} while (u64_stats_fetch_retry(&s->syncp, start));
		sum += v;
	}
	return sum;
}

/* Count @n on @plane's counter IFLA_MPLANE_PSTAT_@attr, from any context. */
static inline void mplane_pstat_add(struct mplane_plane *plane, int attr,
				    u64 n)
{
	struct mplane_plane_pcpu *s = get_cpu_ptr(plane->pcpu);
	unsigned long flags;

	flags = u64_stats_update_begin_irqsave(&s->syncp);
	u64_stats_add(&s->cnt[attr - 1], n);
	u64_stats_update_end_irqrestore(&s->syncp, flags);
	put_cpu_ptr(plane->pcpu);
}

/*
 * NL_SET_ERR_MSG() takes only string literals; messages chosen at run
 * time (all static strings) are set the same way, with the bad attribute.
 */
static inline void mplane_extack_msg(struct netlink_ext_ack *extack,
				     const struct nlattr *attr,
				     const char *msg)
{
	do_trace_netlink_extack(msg);
	if (extack) {
		extack->_msg = msg;
		extack->bad_attr = attr;
	}
}

/* The two ends of a datagram mp0 sends itself (udp_out.c). */
struct mplane_udp_addrs {
	bool v4;
	struct in6_addr saddr;	/* IPv4 as v4-mapped */
	struct in6_addr daddr;
};

/* device.c */
void mplane_setup(struct net_device *dev);
bool mplane_is_mplane_dev(const struct net_device *dev);

/* xmit.c */
netdev_tx_t mplane_xmit(struct sk_buff *skb, struct net_device *dev);
int mplane_xmit_on_plane(struct mplane_plane *plane, struct sk_buff *skb);
u32 mplane_plane_load_now(struct mplane_plane *plane);
void mplane_plane_mark(struct mplane_plane *plane);
u32 mplane_plane_load_queued(struct mplane_plane *plane, u64 *queued);

/* udp_out.c */
int mplane_udp_send(struct mplane_plane *plane, const struct mplane_udp_addrs *a,
		    __be16 sport, __be16 dport, u8 tos, const void *body,
		    unsigned int len);

/* route.c */
int mplane_route_init(struct mplane_plane *plane);
void mplane_route_uninit(struct mplane_plane *plane);
int mplane_route(struct mplane_plane *plane, struct sk_buff *skb);

/* receive.c */
rx_handler_result_t mplane_handle_frame(struct sk_buff **pskb);
void mplane_congestion_event(struct mplane_plane *plane, u64 now);

/* plane.c */
int mplane_plane_add(struct mplane_dev *mp, struct net_device *rail,
		     struct netlink_ext_ack *extack);
int mplane_plane_del(struct mplane_dev *mp, struct net_device *rail);
void mplane_plane_release(struct mplane_plane *plane);
void mplane_plane_release_all(struct mplane_dev *mp);
struct mplane_plane *mplane_plane_of(const struct net_device *rail);
void mplane_plane_update_capacity(struct mplane_plane *plane);

/* state.c */
void mplane_state_init(struct mplane_dev *mp);
void mplane_state_uninit(struct mplane_dev *mp);
void mplane_state_plane_init(struct mplane_plane *plane);
void mplane_state_plane_uninit(struct mplane_plane *plane);
void mplane_state_rail_event(struct mplane_plane *plane);
void mplane_state_set_admin(struct mplane_plane *plane, u8 admin);
void mplane_state_set_probes_lost(struct mplane_plane *plane, bool lost);
void mplane_state_set_congested(struct mplane_plane *plane, bool congested);
void mplane_state_eval_all(struct mplane_dev *mp);

/* probe.c */
void mplane_probe_init(struct mplane_dev *mp);
void mplane_probe_uninit(struct mplane_dev *mp);
void mplane_probe_restart(struct mplane_dev *mp);
bool mplane_probe_rx(struct mplane_plane *plane, struct sk_buff *skb);
u32 mplane_probe_dead_planes(struct mplane_dev *mp, struct sk_buff *skb);
int mplane_peers_set(struct mplane_dev *mp, const struct nlattr *nest,
		     struct netlink_ext_ack *extack);
int mplane_peers_fill(struct sk_buff *skb, struct mplane_dev *mp);
size_t mplane_peers_size(struct mplane_dev *mp);
void mplane_peers_free(struct mplane_dev *mp);

/* sampler.c */
void mplane_sampler_init(struct mplane_dev *mp);
void mplane_sampler_uninit(struct mplane_dev *mp);
void mplane_sampler_restart(struct mplane_dev *mp);

/* stats.c */
extern const struct ethtool_ops mplane_ethtool_ops;
int mplane_pstats_fill(struct sk_buff *skb, const struct mplane_plane *plane);
size_t mplane_pstats_size(void);

/* cc.c */
u32 mplane_cc_table_entries(u32 qp_max);
size_t mplane_cc_table_size(u32 qp_max);
struct mplane_qp_table *mplane_cc_table_alloc(u32 qp_max);
void mplane_cc_table_free(struct mplane_qp_table *t);
void mplane_cc_line_update(struct mplane_dev *mp);
void mplane_cc_xmit(struct mplane_dev *mp, struct sk_buff *skb, u64 now);
bool mplane_cc_rx(struct mplane_plane *plane, struct sk_buff *skb, bool ce);

/* reorder.c */
bool mplane_reorder_rx(struct mplane_plane *plane, struct sk_buff *skb,
		       unsigned int ip_off, unsigned int bth_off);
int mplane_reorder_set(struct mplane_dev *mp, u32 us,
		       struct netlink_ext_ack *extack);
void mplane_reorder_uninit(struct mplane_dev *mp);
size_t mplane_cc_qps_size(void);
int mplane_cc_qps_fill(struct sk_buff *skb, struct mplane_dev *mp, u32 *count);

/* cc_settings.c */
void mplane_cc_init(struct mplane_dev *mp);
int mplane_cc_set(struct mplane_dev *mp, const struct nlattr *nest,
		  struct netlink_ext_ack *extack);
void mplane_cc_uninit(struct mplane_dev *mp);
size_t mplane_cc_size(void);
int mplane_cc_fill(struct sk_buff *skb, struct mplane_dev *mp);

/* netlink.c */
extern const struct nla_policy mplane_cc_policy[IFLA_MPLANE_CC_MAX + 1];
int mplane_netlink_init(void);
void mplane_netlink_uninit(void);

/* notifier.c */
int mplane_notifier_init(void);
void mplane_notifier_uninit(void);

#endif /* _MPLANE_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels that mplane.ko builds against is
 * handled here and only here, so that the rest of kmod/ reads as code for
 * a single kernel.  Each helper names the kernel that changed things.
 */
#ifndef _MPLANE_COMPAT_H
#define _MPLANE_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/timer.h>
#include <linux/version.h>
#include <linux/workqueue.h>
#include <net/flow.h>
#include <net/inet_dscp.h>
#include <net/rtnetlink.h>
#include <uapi/linux/ip.h>

/*
 * The version being built against.  This is LINUX_VERSION_CODE rebuilt
 * from its parts, which checkpatch does not flag: an out-of-tree module
 * cannot be "for the version to which it is merged".
 */
#define MPLANE_KERNEL_AT_LEAST(a, b, c)					\
	(KERNEL_VERSION(LINUX_VERSION_MAJOR, LINUX_VERSION_PATCHLEVEL,	\
			LINUX_VERSION_SUBLEVEL) >= KERNEL_VERSION(a, b, c))

/* 6.12 moved lockless transmit from NETIF_F_LLTX to dev->lltx. */
static inline void mplane_compat_set_lltx(struct net_device *dev)
{
#if MPLANE_KERNEL_AT_LEAST(6, 12, 0)
	dev->lltx = true;
#else
	dev->features |= NETIF_F_LLTX;
#endif
}

/*
 * 6.12 moved NETIF_F_NETNS_LOCAL to dev->netns_local, which 6.14 renamed
 * to dev->netns_immutable; the rename was backported to 6.12.114.
 */
#if MPLANE_KERNEL_AT_LEAST(6, 14, 0) || \
	(MPLANE_KERNEL_AT_LEAST(6, 12, 114) && !MPLANE_KERNEL_AT_LEAST(6, 13, 0))
#define MPLANE_COMPAT_NETNS_IMMUTABLE
#endif

static inline void mplane_compat_set_netns_local(struct net_device *dev)
{
#if defined(MPLANE_COMPAT_NETNS_IMMUTABLE)
	dev->netns_immutable = true;
#elif MPLANE_KERNEL_AT_LEAST(6, 12, 0)
	dev->netns_local = true;
#else
	dev->features |= NETIF_F_NETNS_LOCAL;
#endif
}

/*
 * 6.13 added hrtimer_setup(), which sets the callback with the clock and
 * mode, and deprecated hrtimer_init() (removed in 6.16) with a separate
 * assignment of ->function.
 */
static inline void
mplane_compat_hrtimer_setup(struct hrtimer *timer,
			    enum hrtimer_restart (*fn)(struct hrtimer *),
			    clockid_t clock, enum hrtimer_mode mode)
{
#if MPLANE_KERNEL_AT_LEAST(6, 13, 0)
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/*
 * 6.15 passes newlink's namespaces and attributes in struct
 * rtnl_newlink_params; mplane needs only the device's own attributes.
 */
int mplane_newlink(struct net_device *dev, struct nlattr *data[],
		   struct netlink_ext_ack *extack);

#if MPLANE_KERNEL_AT_LEAST(6, 15, 0)
static inline int mplane_compat_newlink(struct net_device *dev,
					struct rtnl_newlink_params *params,
					struct netlink_ext_ack *extack)
{
	return mplane_newlink(dev, params->data, extack);
}
#else
static inline int mplane_compat_newlink(struct net *src_net,
					struct net_device *dev,
					struct nlattr *tb[],
					struct nlattr *data[],
					struct netlink_ext_ack *extack)
{
	return mplane_newlink(dev, data, extack);
}
#endif

/* 6.16 renamed from_timer() to timer_container_of(). */
#if MPLANE_KERNEL_AT_LEAST(6, 16, 0)
#define mplane_timer_container_of(var, timer, field)			\
	timer_container_of(var, timer, field)
#else
#define mplane_timer_container_of(var, timer, field)			\
	from_timer(var, timer, field)
#endif

/*
 * 6.18 turned the flow key's TOS byte into a DSCP value (dscp_t) that
 * never carries ECN bits.
 */
static inline void mplane_compat_flowi4_set_tos(struct flowi4 *fl4, u8 tos)
{
#if MPLANE_KERNEL_AT_LEAST(6, 18, 0)
	fl4->flowi4_dscp = inet_dsfield_to_dscp(tos);
#else
	fl4->flowi4_tos = tos & IPTOS_TOS_MASK;
#endif
}

/*
 * 6.17 named the unbound system workqueue system_dfl_wq; later kernels
 * warn when work is queued on the old names.
 */
static inline struct workqueue_struct *mplane_compat_unbound_wq(void)
{
#if MPLANE_KERNEL_AT_LEAST(6, 17, 0)
	return system_dfl_wq;
#else
	return system_unbound_wq;
#endif
}

/*
 * A departure time on CLOCK_MONOTONIC, for fq (EDT).  6.11 replaced the
 * mono_delivery_time bit with skb->tstamp_type.
 */
static inline void mplane_compat_skb_set_mono_time(struct sk_buff *skb, u64 ns)
{
#if MPLANE_KERNEL_AT_LEAST(6, 11, 0)
	skb_set_delivery_time(skb, ns_to_ktime(ns), SKB_CLOCK_MONOTONIC);
#else
	skb_set_delivery_time(skb, ns_to_ktime(ns), true);
#endif
}

/* 6.4 moved skb_gso_segment() and friends to their own header. */
#if MPLANE_KERNEL_AT_LEAST(6, 4, 0)
#include <net/gso.h>
#else
#include <linux/netdevice.h>
#endif

#endif /* _MPLANE_COMPAT_H */

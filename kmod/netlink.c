// SPDX-License-Identifier: GPL-2.0
/*
 * rtnetlink for mplane: the "mplane" link kind, its attributes and the
 * per-plane attributes of its rails.  Everything here is read-only for
 * now; settings arrive with the datapath.
 */
#include <linux/cpumask.h>
#include <linux/if_link.h>
#include <linux/minmax.h>
#include <linux/netdevice.h>
#include <net/netlink.h>
#include <net/rtnetlink.h>

#include "mplane.h"

/* More transmit queues than this only costs memory. */
#define MPLANE_MAX_TX_QUEUES	64

/*
 * Strict from the first attribute on: the settings that the uapi names
 * but this version does not implement yet have no policy entry, so they
 * are refused ("Unsupported attribute") instead of silently ignored.
 */
static const struct nla_policy mplane_policy[IFLA_MPLANE_MAX + 1] = {
	[IFLA_MPLANE_UNSPEC] = {
		.strict_start_type = IFLA_MPLANE_PLANE_COUNT,
	},
	[IFLA_MPLANE_PLANE_COUNT] = {
		.type = NLA_REJECT,
		.reject_message = "mplane: the plane count is read-only",
	},
};

/* As strict: plane weight and admin state wait for the datapath too. */
static const struct nla_policy mplane_slave_policy[IFLA_MPLANE_PLANE_MAX + 1] = {
	[IFLA_MPLANE_PLANE_UNSPEC] = {
		.strict_start_type = IFLA_MPLANE_PLANE_ID,
	},
	[IFLA_MPLANE_PLANE_ID] = {
		.type = NLA_REJECT,
		.reject_message = "mplane: the plane index is read-only",
	},
	[IFLA_MPLANE_PLANE_STATE] = {
		.type = NLA_REJECT,
		.reject_message = "mplane: the plane state is read-only",
	},
	[IFLA_MPLANE_PLANE_REASON] = {
		.type = NLA_REJECT,
		.reject_message = "mplane: the plane reason is read-only",
	},
	[IFLA_MPLANE_PLANE_LOAD] = {
		.type = NLA_REJECT,
		.reject_message = "mplane: the plane load is read-only",
	},
	[IFLA_MPLANE_PLANE_CONG_SCORE] = {
		.type = NLA_REJECT,
		.reject_message = "mplane: the congestion score is read-only",
	},
	[IFLA_MPLANE_PLANE_STATS] = {
		.type = NLA_REJECT,
		.reject_message = "mplane: plane counters are read-only",
	},
	[IFLA_MPLANE_PLANE_PAD] = { .type = NLA_REJECT },
};

static int mplane_validate(struct nlattr *tb[], struct nlattr *data[],
			   struct netlink_ext_ack *extack)
{
	if (tb[IFLA_ADDRESS]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IFLA_ADDRESS],
				    "mplane: an mplane device has no link-layer address");
		return -EINVAL;
	}
	if (tb[IFLA_BROADCAST]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IFLA_BROADCAST],
				    "mplane: an mplane device has no link-layer broadcast address");
		return -EINVAL;
	}
	return 0;
}

static unsigned int mplane_get_num_tx_queues(void)
{
	return min_t(unsigned int, num_possible_cpus(), MPLANE_MAX_TX_QUEUES);
}

static size_t mplane_get_size(const struct net_device *dev)
{
	return nla_total_size(sizeof(u32));	/* IFLA_MPLANE_PLANE_COUNT */
}

static int mplane_fill_info(struct sk_buff *skb, const struct net_device *dev)
{
	const struct mplane_dev *mp = netdev_priv(dev);

	if (nla_put_u32(skb, IFLA_MPLANE_PLANE_COUNT,
			READ_ONCE(mp->plane_count)))
		return -EMSGSIZE;
	return 0;
}

static size_t mplane_get_slave_size(const struct net_device *dev,
				    const struct net_device *rail)
{
	return nla_total_size(sizeof(u32)) +	/* IFLA_MPLANE_PLANE_ID */
	       nla_total_size(sizeof(u8)) +	/* IFLA_MPLANE_PLANE_STATE */
	       nla_total_size(sizeof(u8));	/* IFLA_MPLANE_PLANE_REASON */
}

static int mplane_fill_plane(struct sk_buff *skb,
			     const struct mplane_plane *plane)
{
	if (nla_put_u32(skb, IFLA_MPLANE_PLANE_ID, plane->index) ||
	    nla_put_u8(skb, IFLA_MPLANE_PLANE_STATE, READ_ONCE(plane->state)) ||
	    nla_put_u8(skb, IFLA_MPLANE_PLANE_REASON, READ_ONCE(plane->reason)))
		return -EMSGSIZE;
	return 0;
}

static int mplane_fill_slave_info(struct sk_buff *skb,
				  const struct net_device *dev,
				  const struct net_device *rail)
{
	const struct mplane_plane *plane;
	int err = 0;

	/* Dumps may not hold RTNL on every kernel; the plane is RCU-freed. */
	rcu_read_lock();
	plane = mplane_plane_of(rail);
	if (plane)
		err = mplane_fill_plane(skb, plane);
	rcu_read_unlock();
	return err;
}

static struct rtnl_link_ops mplane_link_ops __read_mostly = {
	.kind			= MPLANE_LINK_KIND,
	.priv_size		= sizeof(struct mplane_dev),
	.setup			= mplane_setup,
	.maxtype		= IFLA_MPLANE_MAX,
	.policy			= mplane_policy,
	.validate		= mplane_validate,
	.get_num_tx_queues	= mplane_get_num_tx_queues,
	.get_size		= mplane_get_size,
	.fill_info		= mplane_fill_info,
	.slave_maxtype		= IFLA_MPLANE_PLANE_MAX,
	.slave_policy		= mplane_slave_policy,
	.get_slave_size		= mplane_get_slave_size,
	.fill_slave_info	= mplane_fill_slave_info,
};

int mplane_netlink_init(void)
{
	return rtnl_link_register(&mplane_link_ops);
}

/* Deletes every mplane device, in every namespace, under RTNL. */
void mplane_netlink_uninit(void)
{
	rtnl_link_unregister(&mplane_link_ops);
}

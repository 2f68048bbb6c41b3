// SPDX-License-Identifier: GPL-2.0
/*
 * Per-plane counters, shown two ways: as a nest of u64 attributes in each
 * rail's IFLA_MPLANE_PLANE_STATS, and as `ethtool -S mp0` lines named
 * planeN_NAME for every plane slot up to the highest in use.  Both walk
 * the same table, in IFLA_MPLANE_PSTAT_* order.
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <net/netlink.h>

#include "mplane.h"

static const char * const mplane_pstat_names[MPLANE_PSTAT_COUNT] = {
	"tx_packets", "tx_bytes", "rx_packets", "rx_bytes", "selections",
	"drop_no_route", "drop_xmit", "state_changes", "failovers",
	"ecn_ce", "cnp", "probes_sent", "probes_lost", NULL /* pad */,
	"cnp_sent", "rate_cuts", "probes_refused", "probes_throttled",
	"reorder_held", "reorder_filled", "reorder_expired", "reorder_overflows",
};

/* The counters shown: every slot but IFLA_MPLANE_PSTAT_PAD's. */
#define MPLANE_PSTAT_SHOWN	(MPLANE_PSTAT_COUNT - 1)

static bool mplane_pstat_is_pad(int attr)
{
	return attr == IFLA_MPLANE_PSTAT_PAD;
}

size_t mplane_pstats_size(void)
{
	return nla_total_size(0) +
	       MPLANE_PSTAT_SHOWN * nla_total_size_64bit(sizeof(u64));
}

int mplane_pstats_fill(struct sk_buff *skb, const struct mplane_plane *plane)
{
	struct nlattr *nest;
	int attr;

	nest = nla_nest_start(skb, IFLA_MPLANE_PLANE_STATS);
	if (!nest)
		return -EMSGSIZE;
	for (attr = 1; attr <= MPLANE_PSTAT_COUNT; attr++) {
		if (mplane_pstat_is_pad(attr))
			continue;
		if (nla_put_u64_64bit(skb, attr, mplane_pstat_read(plane, attr),
				      IFLA_MPLANE_PSTAT_PAD)) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* Slots 0..highest used: stable names while planes come and go above. */
static int mplane_stat_slots(struct mplane_dev *mp)
{
	int i;

	for (i = MPLANE_MAX_PLANES - 1; i >= 0; i--)
		if (rcu_access_pointer(mp->planes[i]))
			return i + 1;
	return 0;
}

static int mplane_get_sset_count(struct net_device *dev, int sset)
{
	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return mplane_stat_slots(netdev_priv(dev)) * MPLANE_PSTAT_SHOWN;
}

static void mplane_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	int slots = mplane_stat_slots(netdev_priv(dev));
	int i, s;

	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < slots; i++)
		for (s = 0; s < MPLANE_PSTAT_COUNT; s++)
			if (!mplane_pstat_is_pad(s + 1))
				ethtool_sprintf(&data, "plane%d_%s", i,
						mplane_pstat_names[s]);
}

static void mplane_get_ethtool_stats(struct net_device *dev,
				     struct ethtool_stats *stats, u64 *data)
{
	struct mplane_dev *mp = netdev_priv(dev);
	int slots = min_t(int, mplane_stat_slots(mp),
			  stats->n_stats / MPLANE_PSTAT_SHOWN);
	struct mplane_plane *plane;
	int i, s;

	rcu_read_lock();
	for (i = 0; i < slots; i++) {
		plane = rcu_dereference(mp->planes[i]);
		for (s = 1; s <= MPLANE_PSTAT_COUNT; s++)
			if (!mplane_pstat_is_pad(s))
				*data++ = plane ? mplane_pstat_read(plane, s) : 0;
	}
	rcu_read_unlock();
}

static void mplane_get_drvinfo(struct net_device *dev,
			       struct ethtool_drvinfo *info)
{
	strscpy(info->driver, "mplane", sizeof(info->driver));
}

const struct ethtool_ops mplane_ethtool_ops = {
	.get_drvinfo		= mplane_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_sset_count		= mplane_get_sset_count,
	.get_strings		= mplane_get_strings,
	.get_ethtool_stats	= mplane_get_ethtool_stats,
};

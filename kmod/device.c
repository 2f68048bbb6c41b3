// SPDX-License-Identifier: GPL-2.0
/*
 * The mplane net_device: an L3 point-to-point device with no link-layer
 * header, like a tunnel, whose lower devices are its planes.
 */
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>

#include "compat.h"
#include "mplane.h"

static int mplane_dev_init(struct net_device *dev)
{
	dev->tstats = netdev_alloc_pcpu_stats(struct pcpu_sw_netstats);
	if (!dev->tstats)
		return -ENOMEM;
	return 0;
}

/*
 * Runs on unregister and when register_netdevice() fails after
 * ndo_init.  Lower devices must be gone before the core checks that no
 * adjacency is left, so this is where the planes are released.
 */
static void mplane_dev_uninit(struct net_device *dev)
{
	mplane_plane_release_all(netdev_priv(dev));
}

/*
 * The stats are freed here rather than in ndo_uninit because sysfs can
 * still read them between ndo_uninit and the removal of the device's
 * kobject.
 */
static void mplane_dev_destruct(struct net_device *dev)
{
	free_percpu(dev->tstats);
}

static netdev_tx_t mplane_xmit(struct sk_buff *skb, struct net_device *dev)
{
	/*
	 * There is no datapath yet: plane selection replaces this drop.
	 * Until then, every packet counts as dropped so that a route that
	 * points at an mplane device is visibly black-holing.
	 */
	dev_core_stats_tx_dropped_inc(dev);
	kfree_skb(skb);
	return NETDEV_TX_OK;
}

static int mplane_add_slave(struct net_device *dev, struct net_device *rail,
			    struct netlink_ext_ack *extack)
{
	return mplane_plane_add(netdev_priv(dev), rail, extack);
}

static int mplane_del_slave(struct net_device *dev, struct net_device *rail)
{
	return mplane_plane_del(netdev_priv(dev), rail);
}

static const struct net_device_ops mplane_netdev_ops = {
	.ndo_init		= mplane_dev_init,
	.ndo_uninit		= mplane_dev_uninit,
	.ndo_start_xmit		= mplane_xmit,
	.ndo_get_stats64	= dev_get_tstats64,
	.ndo_add_slave		= mplane_add_slave,
	.ndo_del_slave		= mplane_del_slave,
};

bool mplane_is_mplane_dev(const struct net_device *dev)
{
	return dev->netdev_ops == &mplane_netdev_ops;
}

void mplane_setup(struct net_device *dev)
{
	struct mplane_dev *mp = netdev_priv(dev);

	dev->netdev_ops = &mplane_netdev_ops;
	dev->type = ARPHRD_NONE;
	dev->flags = IFF_POINTOPOINT | IFF_NOARP;
	dev->priv_flags |= IFF_NO_QUEUE;
	dev->hard_header_len = 0;
	dev->addr_len = 0;
	dev->mtu = ETH_DATA_LEN;
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = ETH_MAX_MTU;
	dev->needs_free_netdev = true;
	dev->priv_destructor = mplane_dev_destruct;

	/* Planes are picked per packet, not per queue: no tx lock needed. */
	mplane_compat_set_lltx(dev);
	/*
	 * Rails are looked up in the device's own namespace; moving the
	 * device would leave its planes behind in the old one.
	 */
	mplane_compat_set_netns_local(dev);

	mp->dev = dev;
}

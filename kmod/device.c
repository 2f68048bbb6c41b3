// SPDX-License-Identifier: GPL-2.0
/*
 * The mplane net_device: an L3 point-to-point device with no link-layer
 * header, like a tunnel, whose lower devices are its planes.
 */
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/netdevice.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <linux/slab.h>

#include "compat.h"
#include "mplane.h"

#define MPLANE_FEATURES	(NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_HIGHDMA | \
			 NETIF_F_GSO_SOFTWARE | NETIF_F_RXCSUM)

static int mplane_dev_init(struct net_device *dev)
{
	struct mplane_dev *mp = netdev_priv(dev);

	dev->tstats = netdev_alloc_pcpu_stats(struct pcpu_sw_netstats);
	if (!dev->tstats)
		goto err;
	mp->rr_ticket = alloc_percpu(u32);
	if (!mp->rr_ticket)
		goto err_tstats;
	mp->flowlets = kvcalloc(MPLANE_FLOWLET_SLOTS, sizeof(*mp->flowlets),
				GFP_KERNEL);
	if (!mp->flowlets)
		goto err_rr;
	/* Carrier comes with the first plane that can carry traffic. */
	netif_carrier_off(dev);
	return 0;

err_rr:
	free_percpu(mp->rr_ticket);
err_tstats:
	free_percpu(dev->tstats);
err:
	return -ENOMEM;
}

/*
 * Runs on unregister and when register_netdevice() fails after
 * ndo_init.  Lower devices must be gone before the core checks that no
 * adjacency is left, so this is where the planes are released.
 */
static void mplane_dev_uninit(struct net_device *dev)
{
	struct mplane_dev *mp = netdev_priv(dev);

	mplane_sampler_uninit(mp);
	mplane_probe_uninit(mp);
	mplane_plane_release_all(mp);
	mplane_peers_free(mp);
	mplane_cc_uninit(mp);
	mplane_reorder_uninit(mp);
	mplane_state_uninit(mp);
}

/*
 * The stats are freed here rather than in ndo_uninit because sysfs can
 * still read them between ndo_uninit and the removal of the device's
 * kobject; the flowlet table goes with them, past every xmit.
 */
static void mplane_dev_destruct(struct net_device *dev)
{
	struct mplane_dev *mp = netdev_priv(dev);

	kvfree(mp->flowlets);
	free_percpu(mp->rr_ticket);
	free_percpu(dev->tstats);
}

/* Planes follow mp0: down with it (MASTER_DOWN), back when it is up. */
static int mplane_open(struct net_device *dev)
{
	struct mplane_dev *mp = netdev_priv(dev);

	mplane_state_eval_all(mp);
	mplane_probe_restart(mp);
	return 0;
}

static int mplane_stop(struct net_device *dev)
{
	struct mplane_dev *mp = netdev_priv(dev);

	mplane_probe_restart(mp);
	mplane_state_eval_all(mp);
	return 0;
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
	.ndo_open		= mplane_open,
	.ndo_stop		= mplane_stop,
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
	dev->ethtool_ops = &mplane_ethtool_ops;
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

	/*
	 * Take super-packets and leave checksums to the rails: a rail that
	 * cannot offload them gets them done in software on its own xmit.
	 */
	dev->features |= MPLANE_FEATURES;
	dev->hw_features |= MPLANE_FEATURES;
	dev->hw_enc_features |= MPLANE_FEATURES;

	mp->dev = dev;
	mp->policy = MPLANE_POLICY_FLOWLET;
	mp->gso_mode = MPLANE_GSO_WHOLE;
	mp->flowlet_gap_us = MPLANE_FLOWLET_GAP_US_DEFAULT;
	mp->flowlet_gap_ns = mp->flowlet_gap_us * NSEC_PER_USEC;
	mp->probe_interval_us = MPLANE_PROBE_INTERVAL_US_DEFAULT;
	mp->probe_misses = MPLANE_PROBE_MISSES_DEFAULT;
	mp->holddown_ms = MPLANE_HOLDDOWN_MS_DEFAULT;
	mp->cong_threshold_events = MPLANE_CONG_THRESHOLD_DEFAULT;
	mp->cong_threshold = mp->cong_threshold_events * MPLANE_CONG_UNIT;
	mp->cong_halflife_us = MPLANE_CONG_HALFLIFE_US_DEFAULT;
	mp->cong_halflife_ns = mp->cong_halflife_us * NSEC_PER_USEC;
	mplane_cc_init(mp);
	mplane_state_init(mp);
	mplane_probe_init(mp);
	mplane_sampler_init(mp);
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private state of mplane.ko and the calls between its files.
 *
 * Configuration runs under RTNL.  The datapath will take no lock: it
 * finds planes through RCU, so a plane is unpublished under RTNL and
 * freed only after a grace period.
 */
#ifndef _MPLANE_H
#define _MPLANE_H

#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "linux/mplane.h"

struct mplane_dev;

/* One rail (a lower Ethernet device) enslaved to an mplane device. */
struct mplane_plane {
	/* needed in fast-path */
	struct net_device *rail;
	struct mplane_dev *mp;
	u8 state;		/* enum mplane_plane_state, WRITE_ONCE */
	u8 reason;		/* enum mplane_plane_reason, WRITE_ONCE */

	/* slow-path */
	u32 index;		/* stable slot in mplane_dev.planes */
	struct rcu_head rcu;
};

/* netdev_priv() of an mplane device. */
struct mplane_dev {
	/* needed in fast-path */
	struct mplane_plane __rcu *planes[MPLANE_MAX_PLANES];

	/* slow-path, written under RTNL */
	struct net_device *dev;
	u32 plane_count;	/* read locklessly by fill_info */
};

/* device.c */
void mplane_setup(struct net_device *dev);
bool mplane_is_mplane_dev(const struct net_device *dev);

/* plane.c */
int mplane_plane_add(struct mplane_dev *mp, struct net_device *rail,
		     struct netlink_ext_ack *extack);
int mplane_plane_del(struct mplane_dev *mp, struct net_device *rail);
void mplane_plane_release(struct mplane_plane *plane);
void mplane_plane_release_all(struct mplane_dev *mp);
struct mplane_plane *mplane_plane_of(const struct net_device *rail);
void mplane_plane_update_state(struct mplane_plane *plane);

/* netlink.c */
int mplane_netlink_init(void);
void mplane_netlink_uninit(void);

/* notifier.c */
int mplane_notifier_init(void);
void mplane_notifier_uninit(void);

#endif /* _MPLANE_H */

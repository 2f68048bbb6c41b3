// SPDX-License-Identifier: GPL-2.0
/*
 * Netdev events on rails.  Carrier and admin state arrive here as they
 * happen, so plane state needs no polling.
 */
#include <linux/netdevice.h>
#include <linux/notifier.h>

#include "mplane.h"

static int mplane_netdev_event(struct notifier_block *nb,
			       unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct mplane_plane *plane = mplane_plane_of(dev);

	if (!plane)
		return NOTIFY_DONE;

	switch (event) {
	case NETDEV_UNREGISTER:
		/* Also sent when the rail moves to another namespace. */
		mplane_plane_release(plane);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		/* Link speed may have changed with the carrier. */
		mplane_plane_update_capacity(plane);
		mplane_state_rail_event(plane);
		break;
	case NETDEV_PRE_TYPE_CHANGE:
		/* A rail must stay Ethernet, as it was when enslaved. */
		return NOTIFY_BAD;
	}
	return NOTIFY_DONE;
}

static struct notifier_block mplane_notifier = {
	.notifier_call = mplane_netdev_event,
};

int mplane_notifier_init(void)
{
	return register_netdevice_notifier(&mplane_notifier);
}

void mplane_notifier_uninit(void)
{
	unregister_netdevice_notifier(&mplane_notifier);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * mplane: a multi-plane L3 network device.  One mplane device spreads
 * traffic over several lower Ethernet devices (rails, one per network
 * plane of an AI fabric) and moves it off a plane that fails.
 */
#include <linux/module.h>
#include <net/rtnetlink.h>

#include "linux/mplane.h"
#include "mplane.h"

static int __init mplane_init(void)
{
	int err;

	/*
	 * Listen before devices can exist: a rail that is unregistered
	 * unseen would leave a dangling plane behind.
	 */
	err = mplane_notifier_init();
	if (err)
		return err;
	err = mplane_netlink_init();
	if (err)
		goto err_netlink;
	return 0;

err_netlink:
	mplane_notifier_uninit();
	return err;
}

static void __exit mplane_exit(void)
{
	/* Deleting the devices releases their rails while events still flow. */
	mplane_netlink_uninit();
	mplane_notifier_uninit();
	/* Planes are freed by RCU callbacks, which live in this module. */
	rcu_barrier();
}

module_init(mplane_init);
module_exit(mplane_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Multi-plane L3 network device");
MODULE_AUTHOR("mplane developers");
MODULE_VERSION(MPLANE_MODULE_VERSION);
MODULE_ALIAS_RTNL_LINK(MPLANE_LINK_KIND);

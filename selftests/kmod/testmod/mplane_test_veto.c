// SPDX-License-Identifier: GPL-2.0
/*
 * mplane_test_veto: refuses to link the rail named by rail= under an
 * mplane device, after delay_ms, from NETDEV_PRECHANGEUPPER.  mplane's
 * rx handler is live on the rail by then, so a test that floods the rail
 * with congestion marks meanwhile gets the failure path of enslaving with
 * the plane's timers armed: what must be torn down before it is freed.
 */
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/string.h>
#include <net/rtnetlink.h>

static char *rail = "";
module_param(rail, charp, 0444);
MODULE_PARM_DESC(rail, "the device whose enslaving to mplane is refused");

static unsigned int delay_ms = 200;
module_param(delay_ms, uint, 0444);
MODULE_PARM_DESC(delay_ms, "how long to hold the enslave before refusing");

static unsigned int vetoed;
module_param(vetoed, uint, 0444);
MODULE_PARM_DESC(vetoed, "enslaves refused so far");

static bool mplane_test_is_mplane(const struct net_device *dev)
{
	return dev->rtnl_link_ops && !strcmp(dev->rtnl_link_ops->kind, "mplane");
}

static int mplane_test_event(struct notifier_block *nb, unsigned long event,
			     void *ptr)
{
	struct netdev_notifier_changeupper_info *info = ptr;
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	if (event != NETDEV_PRECHANGEUPPER || !info->linking ||
	    strcmp(dev->name, rail) || !mplane_test_is_mplane(info->upper_dev))
		return NOTIFY_DONE;
	msleep(delay_ms);
	WRITE_ONCE(vetoed, vetoed + 1);
	NL_SET_ERR_MSG(info->info.extack, "mplane_test_veto: upper link refused");
	return notifier_from_errno(-EPERM);
}

static struct notifier_block mplane_test_nb = {
	.notifier_call = mplane_test_event,
};

static int __init mplane_test_init(void)
{
	return register_netdevice_notifier(&mplane_test_nb);
}

static void __exit mplane_test_exit(void)
{
	unregister_netdevice_notifier(&mplane_test_nb);
}

module_init(mplane_test_init);
module_exit(mplane_test_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mplane selftests: veto an enslave from PRECHANGEUPPER");

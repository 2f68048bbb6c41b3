// SPDX-License-Identifier: GPL-2.0
/*
 * Planes: enslaving a rail to an mplane device, releasing it, finding the
 * plane of a rail and tracking the rail's state.
 */
#include <linux/if_arp.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/net_namespace.h>

#include "mplane.h"
#include "rail_check.h"

/*
 * Registered so that the rail is claimed (no bridge or macvlan can take
 * it) and so that the datapath finds its plane in rx_handler_data.  The
 * receive path itself comes with the datapath; until then every frame
 * goes on up the rail's own stack.
 */
static rx_handler_result_t mplane_handle_frame(struct sk_buff **pskb)
{
	return RX_HANDLER_PASS;
}

/* The plane of @rail, or NULL.  Under RTNL or rcu_read_lock(). */
struct mplane_plane *mplane_plane_of(const struct net_device *rail)
{
	if (rcu_access_pointer(rail->rx_handler) != mplane_handle_frame)
		return NULL;
	return rcu_dereference_rtnl(rail->rx_handler_data);
}

void mplane_plane_update_state(struct mplane_plane *plane)
{
	bool up = netif_running(plane->rail) && netif_carrier_ok(plane->rail);

	WRITE_ONCE(plane->state, up ? MPLANE_PLANE_UP : MPLANE_PLANE_DOWN);
	WRITE_ONCE(plane->reason, up ? MPLANE_REASON_NONE :
				       MPLANE_REASON_CARRIER);
}

static void mplane_rail_facts_get(struct mplane_dev *mp,
				  struct net_device *rail,
				  struct mplane_rail_facts *facts)
{
	facts->is_self = rail == mp->dev;
	facts->is_mplane = mplane_is_mplane_dev(rail);
	facts->is_loopback = rail->flags & IFF_LOOPBACK;
	facts->is_ethernet = rail->type == ARPHRD_ETHER;
	facts->same_netns = net_eq(dev_net(rail), dev_net(mp->dev));
	facts->has_master = netdev_master_upper_dev_get(rail) ||
			    (rail->flags & IFF_SLAVE) || mplane_plane_of(rail);
	facts->plane_count = mp->plane_count;
}

/*
 * NL_SET_ERR_MSG() only takes string literals; the verdict messages are
 * static strings chosen at run time, so set the message the same way.
 */
static void mplane_rail_refuse_msg(struct netlink_ext_ack *extack,
				   const char *msg)
{
	do_trace_netlink_extack(msg);
	if (extack)
		extack->_msg = msg;
}

static int mplane_rail_check_dev(struct mplane_dev *mp,
				 struct net_device *rail,
				 struct netlink_ext_ack *extack)
{
	struct mplane_rail_facts facts;
	enum mplane_rail_verdict verdict;

	mplane_rail_facts_get(mp, rail, &facts);
	verdict = mplane_rail_check(&facts);
	if (verdict != MPLANE_RAIL_OK)
		mplane_rail_refuse_msg(extack, mplane_rail_verdict_msg(verdict));
	return mplane_rail_verdict_errno(verdict);
}

/* Planes keep their index for life: the lowest free slot is reused. */
static int mplane_plane_free_index(const struct mplane_dev *mp)
{
	int i;

	for (i = 0; i < MPLANE_MAX_PLANES; i++)
		if (!rcu_access_pointer(mp->planes[i]))
			return i;
	return -ENOSPC;
}

int mplane_plane_add(struct mplane_dev *mp, struct net_device *rail,
		     struct netlink_ext_ack *extack)
{
	struct mplane_plane *plane;
	int index, err;

	ASSERT_RTNL();
	err = mplane_rail_check_dev(mp, rail, extack);
	if (err)
		return err;
	/* Cannot fail while plane_count is below the maximum. */
	index = mplane_plane_free_index(mp);
	if (WARN_ON_ONCE(index < 0))
		return index;

	plane = kzalloc(sizeof(*plane), GFP_KERNEL);
	if (!plane)
		return -ENOMEM;
	plane->rail = rail;
	plane->mp = mp;
	plane->index = index;
	mplane_plane_update_state(plane);

	err = netdev_rx_handler_register(rail, mplane_handle_frame, plane);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack,
				   "device is already used by another rx handler");
		goto err_free;
	}
	err = netdev_master_upper_dev_link(rail, mp->dev, plane, NULL, extack);
	if (err)
		goto err_rx_handler;
	rail->flags |= IFF_SLAVE;

	/* Published last: the datapath must never see a half-made plane. */
	rcu_assign_pointer(mp->planes[index], plane);
	WRITE_ONCE(mp->plane_count, mp->plane_count + 1);
	netdev_info(mp->dev, "enslaved %s as plane %u\n", rail->name, index);
	return 0;

err_rx_handler:
	netdev_rx_handler_unregister(rail);
err_free:
	kfree(plane);
	return err;
}

/* Undoes mplane_plane_add() in reverse order. */
void mplane_plane_release(struct mplane_plane *plane)
{
	struct mplane_dev *mp = plane->mp;
	struct net_device *rail = plane->rail;

	ASSERT_RTNL();
	RCU_INIT_POINTER(mp->planes[plane->index], NULL);
	WRITE_ONCE(mp->plane_count, mp->plane_count - 1);
	rail->flags &= ~IFF_SLAVE;
	netdev_upper_dev_unlink(rail, mp->dev);
	netdev_rx_handler_unregister(rail);
	netdev_info(mp->dev, "released %s (plane %u)\n", rail->name,
		    plane->index);
	/* Readers of planes[] or rx_handler_data may still hold it. */
	kfree_rcu(plane, rcu);
}

int mplane_plane_del(struct mplane_dev *mp, struct net_device *rail)
{
	struct mplane_plane *plane;

	ASSERT_RTNL();
	plane = mplane_plane_of(rail);
	if (!plane || plane->mp != mp)
		return -EINVAL;
	mplane_plane_release(plane);
	return 0;
}

void mplane_plane_release_all(struct mplane_dev *mp)
{
	struct mplane_plane *plane;
	int i;

	ASSERT_RTNL();
	for (i = 0; i < MPLANE_MAX_PLANES; i++) {
		plane = rtnl_dereference(mp->planes[i]);
		if (plane)
			mplane_plane_release(plane);
	}
}

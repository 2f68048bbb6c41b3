// SPDX-License-Identifier: GPL-2.0
/*
 * Planes: enslaving a rail to an mplane device, releasing it, finding the
 * plane of a rail and tracking the rail's state.
 */
#include <linux/ethtool.h>
#include <linux/if_arp.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/net_namespace.h>
#include <net/rtnetlink.h>

#include "mplane.h"
#include "rail_check.h"

/* The plane of @rail, or NULL.  Under RTNL or rcu_read_lock(). */
struct mplane_plane *mplane_plane_of(const struct net_device *rail)
{
	if (rcu_access_pointer(rail->rx_handler) != mplane_handle_frame)
		return NULL;
	return rcu_dereference_rtnl(rail->rx_handler_data);
}

/*
 * A plane's capacity scales its load: the operator's weight when set,
 * else the rail's link speed in Mbit/s, else a 1 Gbit/s guess.  Under RTNL.
 */
void mplane_plane_update_capacity(struct mplane_plane *plane)
{
	struct ethtool_link_ksettings ks = {};
	u32 capacity = plane->weight;

	if (!capacity && !__ethtool_get_link_ksettings(plane->rail, &ks) &&
	    ks.base.speed && ks.base.speed != (u32)SPEED_UNKNOWN)
		capacity = ks.base.speed;
	WRITE_ONCE(plane->capacity, capacity ?: 1000);
}

/* Devices that aggregate others: their ports are the planes, not they. */
static bool mplane_dev_is_aggregate(const struct net_device *dev)
{
	return netif_is_bridge_master(dev) || netif_is_bond_master(dev) ||
	       netif_is_team_master(dev) || netif_is_ovs_master(dev) ||
	       netif_is_l3_master(dev);
}

/* Ethernet over IP: the tunnel's underlay is routed, possibly via mp0. */
static bool mplane_dev_is_tunnel(const struct net_device *dev)
{
	static const char * const kinds[] = {
		"vxlan", "geneve", "gretap", "ip6gretap", "erspan", "ip6erspan",
	};
	const char *kind = dev->rtnl_link_ops ? dev->rtnl_link_ops->kind : NULL;
	unsigned int i;

	for (i = 0; kind && i < ARRAY_SIZE(kinds); i++)
		if (!strcmp(kind, kinds[i]))
			return true;
	return false;
}

static int mplane_lower_is_tunnel(struct net_device *lower,
				  struct netdev_nested_priv *priv)
{
	return mplane_dev_is_tunnel(lower);
}

/*
 * A tunnel anywhere below the rail (a VLAN over a VXLAN, say) would send
 * mp0's packets back into the IP stack, and perhaps into mp0 again: a
 * loop that costs two IP output paths of stack per turn.  Under RTNL.
 */
static bool mplane_dev_over_tunnel(struct net_device *dev)
{
	struct netdev_nested_priv priv = {};

	return mplane_dev_is_tunnel(dev) ||
	       netdev_walk_all_lower_dev(dev, mplane_lower_is_tunnel, &priv);
}

static void mplane_rail_facts_get(struct mplane_dev *mp,
				  struct net_device *rail,
				  struct mplane_rail_facts *facts)
{
	facts->is_self = rail == mp->dev;
	facts->is_mplane = mplane_is_mplane_dev(rail);
	facts->is_loopback = rail->flags & IFF_LOOPBACK;
	facts->is_ethernet = rail->type == ARPHRD_ETHER;
	facts->is_aggregate = mplane_dev_is_aggregate(rail);
	facts->is_tunnel = mplane_dev_over_tunnel(rail);
	facts->same_netns = net_eq(dev_net(rail), dev_net(mp->dev));
	facts->has_master = netdev_master_upper_dev_get(rail) ||
			    (rail->flags & IFF_SLAVE) || mplane_plane_of(rail);
	facts->plane_count = mp->plane_count;
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
		mplane_extack_msg(extack, NULL, mplane_rail_verdict_msg(verdict));
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

/*
 * mp0's packets get their link header on the rail: room for the widest
 * rail's, so that sockets leave enough and nothing is copied to add it.
 */
static void mplane_update_headroom(struct mplane_dev *mp)
{
	struct mplane_plane *plane;
	unsigned int room = 0;
	int i;

	ASSERT_RTNL();
	for (i = 0; i < MPLANE_MAX_PLANES; i++) {
		plane = rtnl_dereference(mp->planes[i]);
		if (plane)
			room = max_t(unsigned int, room, LL_RESERVED_SPACE(plane->rail));
	}
	WRITE_ONCE(mp->dev->needed_headroom, room);
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
	plane->pcpu = netdev_alloc_pcpu_stats(struct mplane_plane_pcpu);
	if (!plane->pcpu) {
		err = -ENOMEM;
		goto err_free;
	}
	err = mplane_route_init(plane);
	if (err)
		goto err_free;
	plane->rail = rail;
	plane->mp = mp;
	plane->index = index;
	mplane_plane_update_capacity(plane);
	mplane_state_plane_init(plane);

	err = netdev_rx_handler_register(rail, mplane_handle_frame, plane);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack,
				   "device is already used by another rx handler");
		goto err_free;
	}
	/*
	 * No IFF_SLAVE, unlike a bond port: a rail is its own L2 segment and
	 * keeps its IPv6 link-local address for neighbour discovery.
	 */
	err = netdev_master_upper_dev_link(rail, mp->dev, plane, NULL, extack);
	if (err)
		goto err_rx_handler;

	/* Published last: the datapath must never see a half-made plane. */
	rcu_assign_pointer(mp->planes[index], plane);
	WRITE_ONCE(mp->plane_count, mp->plane_count + 1);
	mplane_update_headroom(mp);
	mplane_cc_line_update(mp);
	mplane_state_rail_event(plane);
	netdev_info(mp->dev, "enslaved %s as plane %u\n", rail->name, index);
	return 0;

err_rx_handler:
	/*
	 * The rx handler was live: a congestion mark that came meanwhile
	 * may have armed the plane's timers.  Waits for handlers in flight,
	 * then stops the timers before the plane is freed.
	 */
	netdev_rx_handler_unregister(rail);
	mplane_state_plane_uninit(plane);
err_free:
	mplane_route_uninit(plane);
	free_percpu(plane->pcpu);
	kfree(plane);
	return err;
}

static void mplane_plane_free_rcu(struct rcu_head *head)
{
	struct mplane_plane *plane = container_of(head, struct mplane_plane,
						  rcu);

	mplane_route_uninit(plane);
	free_percpu(plane->pcpu);
	kfree(plane);
}

/* Undoes mplane_plane_add() in reverse order. */
void mplane_plane_release(struct mplane_plane *plane)
{
	struct mplane_dev *mp = plane->mp;
	struct net_device *rail = plane->rail;

	ASSERT_RTNL();
	RCU_INIT_POINTER(mp->planes[plane->index], NULL);
	WRITE_ONCE(mp->plane_count, mp->plane_count - 1);
	mplane_update_headroom(mp);
	mplane_cc_line_update(mp);
	netdev_upper_dev_unlink(rail, mp->dev);
	/* Waits for receive handlers in flight: none can arm a timer after. */
	netdev_rx_handler_unregister(rail);
	mplane_state_plane_uninit(plane);
	netdev_info(mp->dev, "released %s (plane %u)\n", rail->name,
		    plane->index);
	/* Readers of planes[] may still hold it. */
	call_rcu(&plane->rcu, mplane_plane_free_rcu);
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

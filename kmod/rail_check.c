// SPDX-License-Identifier: GPL-2.0
/*
 * The enslave policy of mplane, kept free of kernel API so that the unit
 * tests can run it in user space.  errno values are the same numbers in
 * the kernel and in libc, so only the header that names them differs.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#else
#include <errno.h>
#endif

#include "linux/mplane.h"
#include "rail_check.h"

/*
 * What a device is comes before where it is, which comes before how it is
 * used, and capacity comes last: the first reason reported should be one
 * the operator can act on.  There is no point in saying "already
 * enslaved" about a TUN device that could never be a rail, nor "too many
 * planes" about a device that would be refused anyway.  The self check
 * precedes the mplane check because it names the actual mistake, and
 * loopback precedes the Ethernet check for the same reason.
 */
enum mplane_rail_verdict
mplane_rail_check(const struct mplane_rail_facts *facts)
{
	if (facts->is_self)
		return MPLANE_RAIL_SELF;
	if (facts->is_mplane)
		return MPLANE_RAIL_MPLANE;
	if (facts->is_loopback)
		return MPLANE_RAIL_LOOPBACK;
	if (!facts->is_ethernet)
		return MPLANE_RAIL_NOT_ETHERNET;
	if (facts->is_aggregate)
		return MPLANE_RAIL_AGGREGATE;
	if (facts->is_tunnel)
		return MPLANE_RAIL_TUNNEL;
	if (!facts->same_netns)
		return MPLANE_RAIL_OTHER_NETNS;
	if (facts->has_master)
		return MPLANE_RAIL_ENSLAVED;
	if (facts->plane_count >= MPLANE_MAX_PLANES)
		return MPLANE_RAIL_FULL;
	return MPLANE_RAIL_OK;
}

/* Returned through extack, so they must be static strings. */
static const char * const mplane_rail_msgs[__MPLANE_RAIL_VERDICT_MAX] = {
	[MPLANE_RAIL_OK] = "device can be enslaved",
	[MPLANE_RAIL_SELF] = "cannot enslave an mplane device to itself",
	[MPLANE_RAIL_MPLANE] = "cannot enslave an mplane device to another mplane device",
	[MPLANE_RAIL_LOOPBACK] = "cannot enslave a loopback device",
	[MPLANE_RAIL_NOT_ETHERNET] = "only Ethernet devices can be planes",
	[MPLANE_RAIL_AGGREGATE] =
		"bridges, bonds and teams cannot be planes: enslave their ports",
	[MPLANE_RAIL_TUNNEL] =
		"tunnels (and devices over them) cannot be planes: they may loop back",
	[MPLANE_RAIL_OTHER_NETNS] = "device is in another network namespace",
	[MPLANE_RAIL_ENSLAVED] = "device is already enslaved",
	[MPLANE_RAIL_FULL] = "no room for more planes on this mplane device",
};

const char *mplane_rail_verdict_msg(enum mplane_rail_verdict verdict)
{
	if ((unsigned int)verdict >= __MPLANE_RAIL_VERDICT_MAX)
		return "unknown enslave verdict";
	return mplane_rail_msgs[verdict];
}

/* A negative errno for the verdict, 0 for MPLANE_RAIL_OK. */
int mplane_rail_verdict_errno(enum mplane_rail_verdict verdict)
{
	switch (verdict) {
	case MPLANE_RAIL_OK:
		return 0;
	case MPLANE_RAIL_MPLANE:
	case MPLANE_RAIL_LOOPBACK:
	case MPLANE_RAIL_NOT_ETHERNET:
	case MPLANE_RAIL_AGGREGATE:
	case MPLANE_RAIL_TUNNEL:
		return -EOPNOTSUPP;
	case MPLANE_RAIL_ENSLAVED:
		return -EBUSY;
	case MPLANE_RAIL_FULL:
		return -ENOSPC;
	case MPLANE_RAIL_SELF:
	case MPLANE_RAIL_OTHER_NETNS:
	default:
		return -EINVAL;
	}
}

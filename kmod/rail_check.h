/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which devices may become a plane of an mplane device, as pure logic.
 *
 * rail_check.c is built both into mplane.ko and into the user-space unit
 * tests (selftests/unit), so it uses no kernel API: the caller gathers the
 * facts about a candidate rail and this code only decides.
 */
#ifndef _MPLANE_RAIL_CHECK_H
#define _MPLANE_RAIL_CHECK_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#endif

/* What the caller knows about a candidate rail. */
struct mplane_rail_facts {
	bool is_self;		/* the mplane device itself */
	bool is_mplane;		/* any mplane device */
	bool is_loopback;
	bool is_ethernet;
	bool is_aggregate;	/* a bridge, bond, team, OVS or VRF master */
	bool is_tunnel;		/* Ethernet over IP, or over such a device */
	bool same_netns;	/* as the mplane device */
	bool has_master;	/* enslaved anywhere, or already a plane */
	unsigned int plane_count;	/* planes the mplane device holds now */
};

/* Why a candidate is refused, in the order they are checked. */
enum mplane_rail_verdict {
	MPLANE_RAIL_OK,
	MPLANE_RAIL_SELF,
	MPLANE_RAIL_MPLANE,
	MPLANE_RAIL_LOOPBACK,
	MPLANE_RAIL_NOT_ETHERNET,
	MPLANE_RAIL_AGGREGATE,
	MPLANE_RAIL_TUNNEL,
	MPLANE_RAIL_OTHER_NETNS,
	MPLANE_RAIL_ENSLAVED,
	MPLANE_RAIL_FULL,
	__MPLANE_RAIL_VERDICT_MAX,
};

enum mplane_rail_verdict
mplane_rail_check(const struct mplane_rail_facts *facts);
const char *mplane_rail_verdict_msg(enum mplane_rail_verdict verdict);
int mplane_rail_verdict_errno(enum mplane_rail_verdict verdict);

#endif /* _MPLANE_RAIL_CHECK_H */

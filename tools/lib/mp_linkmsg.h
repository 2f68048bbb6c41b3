/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * rtnetlink messages of mplane links, without I/O: what an RTM_NEWLINK
 * says about an mplane device or one of its rails, the IFLA_LINKINFO that
 * sets them, and the error and extack text of an acknowledgement.  Tested
 * in selftests/unit/test_linkmsg.c on hand-made messages.
 *
 * The layout, from uapi/linux/mplane.h:
 *   mp0:  IFLA_LINKINFO { IFLA_INFO_KIND "mplane",
 *                         IFLA_INFO_DATA { IFLA_MPLANE_* } }
 *   rail: IFLA_MASTER mp0, IFLA_LINKINFO { IFLA_INFO_SLAVE_KIND "mplane",
 *                         IFLA_INFO_SLAVE_DATA { IFLA_MPLANE_PLANE_*,
 *                           IFLA_MPLANE_PLANE_STATS { IFLA_MPLANE_PSTAT_* } } }
 * mp0's IFLA_INFO_DATA also has IFLA_MPLANE_CC { IFLA_MPLANE_CC_* } (the
 * settings and, read-only, the counters) and IFLA_MPLANE_QPS
 * { IFLA_MPLANE_QP { IFLA_MPLANE_QP_* } ... } (the QPs rate-limited now).
 */
#ifndef MP_LINKMSG_H
#define MP_LINKMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>
#include <linux/if_link.h>
#include <linux/netlink.h>

#include "mp_names.h"

/* IFLA_INFO_SLAVE_DATA of a rail: IFLA_MPLANE_PLANE_*. */
struct mp_plane_info {
	uint32_t present;		/* bit n: IFLA_MPLANE_PLANE_n was there */
	uint32_t val[MP_ATTR_SLOTS];	/* ID, STATE, REASON, WEIGHT, ... */
	uint32_t stats_present;		/* bit n: IFLA_MPLANE_PSTAT_n was there */
	uint64_t stats[IFLA_MPLANE_PSTAT_MAX + 1];
};

/* One IFLA_MPLANE_QP: a QP whose DCQCN rate is below the maximum. */
struct mp_qp {
	uint32_t present;		/* bit n: IFLA_MPLANE_QP_n was there */
	struct mp_addr peer;		/* IFLA_MPLANE_QP_PEER */
	uint64_t val[IFLA_MPLANE_QP_MAX + 1];	/* QPN, RATE_KBPS, ... */
};

/*
 * One link as an RTM_NEWLINK describes it, reduced to what the mplane
 * tools show.  Attributes a kernel did not send are marked absent, never
 * zero: an older mplane.ko sends fewer.
 */
struct mp_link {
	int ifindex;
	unsigned int flags;		/* IFF_* */
	char name[IF_NAMESIZE];
	int master;			/* IFLA_MASTER, 0 for none */
	bool has_addr;			/* an Ethernet IFLA_ADDRESS */
	unsigned char addr[6];
	int operstate;			/* IF_OPER_*, -1 when absent */
	int carrier;			/* IFLA_CARRIER: 1, 0, or -1 when absent */
	char kind[32];			/* IFLA_INFO_KIND, "" for none */
	char slave_kind[32];		/* IFLA_INFO_SLAVE_KIND, "" for none */
	bool has_stats64;
	struct rtnl_link_stats64 stats64;

	/* An mplane device's IFLA_INFO_DATA: IFLA_MPLANE_*. */
	uint32_t present;		/* bit n: IFLA_MPLANE_n was there */
	uint32_t val[MP_ATTR_SLOTS];
	unsigned int npeers;
	struct mp_addr peers[MP_PEERS_MAX];
	/* IFLA_MPLANE_CC (bit IFLA_MPLANE_CC of @present): settings and
	 * counters, u64 wide for the counters. */
	uint32_t cc_present;		/* bit n: IFLA_MPLANE_CC_n was there */
	uint64_t cc_val[MP_CC_SLOTS];
	/* IFLA_MPLANE_QPS (bit IFLA_MPLANE_QPS of @present), kernel order. */
	unsigned int nqps;
	struct mp_qp qps[MPLANE_QPS_DUMP_MAX];

	/* A rail's IFLA_INFO_SLAVE_DATA. */
	struct mp_plane_info plane;
};

/* Of kind "mplane", and a rail enslaved to one. */
bool mp_link_is_mplane(const struct mp_link *l);
bool mp_link_is_plane(const struct mp_link *l);

/* Decode RTM_NEWLINK or RTM_DELLINK @nlh into @l: 0, or -EINVAL. */
int mp_link_parse(const struct nlmsghdr *nlh, struct mp_link *l);

/*
 * Decode one attribute of an IFLA_INFO_DATA (IFLA_MPLANE_*) into @l, or
 * of an IFLA_INFO_SLAVE_DATA (IFLA_MPLANE_PLANE_*) into @p, for callers
 * that split the nest themselves (iproute2 hands its plugins a table).
 * Unknown and malformed attributes are skipped.
 */
void mp_link_parse_device_attr(const struct nlattr *a, struct mp_link *l);
void mp_link_parse_plane_attr(const struct nlattr *a, struct mp_plane_info *p);

/*
 * Append to @nlh (in a buffer of @size bytes) the IFLA_LINKINFO that
 * carries @s: for a device IFLA_INFO_KIND "mplane" and IFLA_INFO_DATA
 * (none when @s is empty); for a plane IFLA_INFO_SLAVE_KIND "mplane" and
 * IFLA_INFO_SLAVE_DATA, without IFLA_INFO_KIND, which would name the
 * rail's own kind.  A device's @s->cc goes in an IFLA_MPLANE_CC nest,
 * with only the settings given.  0, or -EMSGSIZE.
 */
int mp_link_put_settings(struct nlmsghdr *nlh, size_t size,
			 const struct mp_settings *s);
int mp_link_put_plane_settings(struct nlmsghdr *nlh, size_t size,
			       const struct mp_settings *s);
/* Only what goes inside IFLA_INFO_DATA or IFLA_INFO_SLAVE_DATA, for a
 * caller that opened the nest (iproute2).  0, or -EMSGSIZE. */
int mp_link_put_data(struct nlmsghdr *nlh, size_t size,
		     const struct mp_settings *s);
int mp_link_put_plane_data(struct nlmsghdr *nlh, size_t size,
			   const struct mp_settings *s);

/*
 * The error (0 or a negative errno) of an NLMSG_ERROR or NLMSG_DONE @nlh
 * and the extack message in its TLVs (NLMSGERR_ATTR_MSG), or NULL.  The
 * TLVs follow the embedded request, whole or capped to its header
 * (NLM_F_CAPPED).  0, or -EINVAL when @nlh is neither or truncated.
 */
int mp_nlerr_parse(const struct nlmsghdr *nlh, int *error, const char **msg);
/* The same, and in @offs where in the request the attribute it refused
 * begins (NLMSGERR_ATTR_OFFS), or -1 when it names none. */
int mp_nlerr_parse_offs(const struct nlmsghdr *nlh, int *error,
			const char **msg, int *offs);

#endif /* MP_LINKMSG_H */

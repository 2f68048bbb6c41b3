/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * rtnetlink I/O for mplane tools, over libmnl: a socket that asks for
 * extended acks, requests that end in the kernel's ack (with its extack
 * text kept for the message people see), link dumps and link events.
 */
#ifndef MP_RTNL_H
#define MP_RTNL_H

#include <stddef.h>
#include <libmnl/libmnl.h>

#include "mp_linkmsg.h"

/* Room for any one message the kernel sends on an rtnetlink socket. */
#define MP_RTNL_BUF	32768

struct mp_rtnl {
	struct mnl_socket *nl;
	unsigned int portid;
	unsigned int seq;
	char *buf;			/* MP_RTNL_BUF bytes, for reading */
};

/* How a request failed, as the kernel told it. */
struct mp_nlerr {
	char msg[512];			/* the extack message; "" for none */
	int offs;			/* of the attribute refused in the
					 * request (NLMSGERR_ATTR_OFFS); -1 */
};

/*
 * Open a NETLINK_ROUTE socket with NETLINK_EXT_ACK and NETLINK_CAP_ACK,
 * subscribed to the multicast @groups (RTMGRP_*, or 0).  0 or -errno.
 */
int mp_rtnl_open(struct mp_rtnl *r, unsigned int groups);
void mp_rtnl_close(struct mp_rtnl *r);

/* A data message of an answer; 0 to go on, or a negative errno. */
typedef int (*mp_rtnl_cb)(const struct nlmsghdr *nlh, void *data);

/*
 * Send @nlh, built in a buffer by the caller, and read its answer to the
 * end: NLMSG_DONE for a dump (NLM_F_DUMP), else the ack, which is asked
 * for here (NLM_F_ACK).  Every data message goes to @cb (may be NULL).
 * 0, or a negative errno: the kernel's, with its extack text in @e, or
 * the first one @cb returned, or -EINTR when a dump was interrupted by a
 * change and should be run again.
 */
int mp_rtnl_request(struct mp_rtnl *r, struct nlmsghdr *nlh, mp_rtnl_cb cb,
		    void *data, struct mp_nlerr *e);

/*
 * "WHAT: <extack text> (<strerror>)", or "WHAT: <strerror>" when the
 * kernel gave no text, through mp_err().
 */
void mp_nlerr_report(const char *what, int err, const struct mp_nlerr *e);

/* A link of a dump or of an event; 0 to go on, or a negative errno. */
typedef int (*mp_link_cb)(const struct mp_link *l, int msg_type, void *data);

/*
 * Every link of the namespace, through @cb, which sees only a
 * consistent dump: one interrupted by a change is started again, up to
 * a few times, after @restart (may be NULL) has dropped what @cb kept.
 */
int mp_rtnl_dump_links(struct mp_rtnl *r, mp_link_cb cb,
		       void (*restart)(void *data), void *data,
		       struct mp_nlerr *e);

/* The link named @name into @l: 0, or a negative errno (-ENODEV). */
int mp_rtnl_get_link(struct mp_rtnl *r, const char *name, struct mp_link *l,
		     struct mp_nlerr *e);

/*
 * Read what is waiting on a subscribed socket (blocking) and pass each
 * RTM_NEWLINK and RTM_DELLINK to @cb.  0, -ENOBUFS when the kernel had
 * to drop events (dump again to catch up), or another negative errno.
 */
int mp_rtnl_read_links(struct mp_rtnl *r, mp_link_cb cb, void *data);

#endif /* MP_RTNL_H */

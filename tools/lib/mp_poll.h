/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Counter pollers: the counters operators read today (netdev statistics,
 * ethtool -S, RDMA hw_counters), read at a fixed rate and turned into
 * MPLANE_EV_COUNTER events on the events' clock.  Everything costly is
 * done once at open (names, file descriptors), so that a tick is one
 * rtnetlink dump, one ioctl per link and one pread per RDMA counter.
 */
#ifndef MP_POLL_H
#define MP_POLL_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/mplane.h>
#include "mplane_events.h"

struct mp_poll_opts {
	const char *ifaces;	/* comma-separated; NULL: every non-lo link */
	bool netdev;		/* rtnetlink link statistics */
	bool ethtool;		/* ethtool -S of those links */
	bool rdma;		/* every /sys/class/infiniband hw_counter */
};

struct mp_poller;

/*
 * Find the counters of the calling thread's network namespace.  0, or
 * -errno; -ENODEV names a link of @ifaces that is not there.  @err_what
 * (may be NULL) gets what failed, for the message.
 */
int mp_poll_open(struct mp_poller **p, const struct mp_poll_opts *o,
		 char *err_what, size_t what_size);

/* Every counter once: its id, kind, ifindex (0 for none) and name
 * ("va/tx_packets", "va/ethtool/peer_ifindex", "rxe0/1/rcvd_pkts"). */
typedef int (*mp_poll_name_cb)(void *data, uint32_t id, uint32_t kind,
			       uint32_t ifindex, const char *name);
int mp_poll_names(struct mp_poller *p, mp_poll_name_cb cb, void *data);

unsigned int mp_poll_count(const struct mp_poller *p);

/*
 * Read every counter now and hand over, as MPLANE_EV_COUNTER events, those
 * whose value changed since the last tick, or all of them when @all.  A
 * counter that cannot be read this tick keeps its old value.  0, or the
 * first non-zero of @cb.
 */
typedef int (*mp_poll_event_cb)(void *data, const struct mplane_event *e);
int mp_poll_tick(struct mp_poller *p, bool all, mp_poll_event_cb cb,
		 void *data);

void mp_poll_free(struct mp_poller *p);

#endif /* MP_POLL_H */

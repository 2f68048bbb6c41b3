/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The live telemetry feed: every event ring pinned under
 * MPLANE_BPF_PIN_ROOT (BPF programs, the kmod relay, the samplers, step
 * marks) and the counter pollers, handed over as capture frames
 * (tools/include/mplane_capture.h), so that a consumer treats a live
 * feed and a recorded file alike.  Frames come in arrival order: events of
 * different rings may be slightly out of timestamp order, and consumers
 * that need order put them through an mp_evq.
 */
#ifndef MP_FEED_H
#define MP_FEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/mplane.h>
#include "mplane_events.h"
#include "mplane_maps.h"

/* One frame: as mp_capture_put() takes it.  Non-zero stops the feed. */
typedef int (*mp_frame_cb)(void *data, unsigned int kind,
			   unsigned int source, const void *payload,
			   size_t len);

/* The pollers' highest rate: a tick every 100 us is already more than a
 * NIC's counters change. */
#define MP_FEED_POLL_HZ_MAX	10000

/* The label of the pollers' source (CF_SOURCE): this host's counters. */
#define MP_FEED_POLL_SOURCE	"poll"

struct mp_feed_opts {
	const char *root;	/* MPLANE_BPF_PIN_ROOT when NULL */
	const char *fabric;	/* only fabric/<this>/ of the fabric rings */
	uint32_t type_mask;	/* 1 << enum mplane_event_type; 0: all */
	unsigned int poll_hz;	/* counter pollers' rate; 0: no pollers */
	const char *poll_ifaces; /* comma-separated; NULL: every non-lo link */
	bool poll_ethtool;	/* ethtool -S of those links */
	bool poll_rdma;		/* hw_counters of every RDMA port */
	unsigned int throttle_us; /* sleep after each batch (tests) */
	bool no_names;		/* announce sources, not their interfaces */
	bool allow_empty;	/* open with no ring and no poller: a
				 * service that waits for rings to come
				 * (mp_feed_rescan) */
	bool own_rings;		/* read a ring of our own in each object's
				 * reader slots (lib/mp_ev_reader.h), not
				 * mp_events: for a reader beside others */
};

struct mp_feed;

/*
 * Open every source and announce it (CF_SOURCE, CF_IFNAME, ...).  A
 * source's interfaces are named in its namespace (a fabric node's, the
 * one of "dev/<inode>/"), but the kmod relay ("kmod") sees mplane
 * devices in every namespace: it gets a CF_NETNS for ours ("") and for
 * each one under /run/netns, and CF_IFNAME with netns set for the links
 * of each (entered with setns(), then left).
 */
int mp_feed_open(struct mp_feed **feed, const struct mp_feed_opts *opts,
		 mp_frame_cb cb, void *data);

/*
 * Add the rings pinned since the last look, and announce each as a new
 * source; rings already read are kept, even when their pins are gone
 * (the feed holds them open).  How many were added, or -errno.
 */
int mp_feed_rescan(struct mp_feed *feed);

/*
 * Wait up to @timeout_ms and deliver what the rings hold: how many
 * events, or -errno.  The pollers run on their own thread, on their own
 * schedule, from mp_feed_open() to mp_feed_finish(); frames of both come
 * to @cb one at a time, under a lock.  When @cb returned non-zero the
 * feed stops: this returns that value if negative, else -ECANCELED.
 */
int mp_feed_poll(struct mp_feed *feed, int timeout_ms);

/*
 * Deliver each ring's CF_STATS as it stands (produced and dropped since
 * mp_feed_open(), what was read): a live reader's running counts, which
 * mp_feed_finish() gives once more at the end.  0, or why it stopped.
 */
int mp_feed_stats(struct mp_feed *feed);

/*
 * Stop the pollers, read the producers' counts, drain the rings, emit
 * every counter once more and deliver each ring's CF_STATS (produced and
 * dropped since mp_feed_open()); free the feed.  0, or why it stopped.
 */
int mp_feed_finish(struct mp_feed *feed);

#endif /* MP_FEED_H */

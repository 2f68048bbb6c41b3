/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * mplane_capture.h: the telemetry capture file that 'mplanectl telemetry
 * record' writes and the views (report, dump, hist, export --from) read
 * (tools/lib/mp_capture.c).  Not kernel ABI.
 */
#ifndef MPLANE_CAPTURE_H
#define MPLANE_CAPTURE_H

#include <linux/mplane.h>
#include "mplane_events.h"

/*
 * Telemetry capture files ('mplanectl telemetry record -o FILE'): one
 * struct mplane_capture_hdr, then frames, each a struct
 * mplane_capture_frame and @len bytes of payload padded to 8 bytes.
 * Readers skip frame kinds they do not know.  All integers are in the
 * byte order of the host that recorded.
 */
#define MPLANE_CAPTURE_MAGIC	0x5043504d	/* "MPCP" */
#define MPLANE_CAPTURE_VERSION	1

struct mplane_capture_hdr {
	__u32	magic;
	__u16	version;
	__u16	hdr_len;	/* bytes of this header */
	__u64	start_mono_ns;	/* CLOCK_MONOTONIC when recording began */
	__u64	start_real_ns;	/* CLOCK_REALTIME at the same moment */
	char	host[64];	/* uname nodename */
};

enum mplane_capture_frame_kind {
	MPLANE_CF_NONE,
	MPLANE_CF_EVENT,	/* one event record, as its producer wrote it */
	MPLANE_CF_SOURCE,	/* the source's label, NUL-terminated */
	MPLANE_CF_IFNAME,	/* struct mplane_capture_ifname */
	MPLANE_CF_COUNTER_NAME,	/* struct mplane_capture_counter_name */
	MPLANE_CF_STATS,	/* struct mplane_capture_stats, at the end */
	MPLANE_CF_NETNS,	/* struct mplane_capture_netns */
	__MPLANE_CF_MAX,
};

struct mplane_capture_frame {
	__u32	len;		/* payload bytes, before padding */
	__u16	kind;		/* enum mplane_capture_frame_kind */
	__u16	source;		/* which ring or poller; named by CF_SOURCE */
};

/*
 * The name of an interface of a source.  @netns was added later: a
 * payload of 20 bytes (without it) means netns 0.
 */
struct mplane_capture_ifname {
	__u32	ifindex;
	char	name[16];
	__u32	netns;		/* its namespace's inode; 0: the source's */
};

/*
 * A network namespace the source's events may name (in hdr.flags of the
 * kmod relay's events, in CF_IFNAME's netns): its inode and its name
 * under /run/netns, "" for the recorder's own namespace.
 */
struct mplane_capture_netns {
	__u32	inode;
	char	name[];		/* NUL-terminated */
};

/* The name of a polled counter: "rail0/tx_bytes", "rxe0/1/rcvd_pkts". */
struct mplane_capture_counter_name {
	__u32	id;		/* as in the COUNTER events' hdr.flags */
	__u32	kind;		/* enum mplane_counter_kind */
	__u32	ifindex;	/* 0 when not a network device */
	char	name[];		/* NUL-terminated */
};

/*
 * What one source did while recording: produced and dropped are the
 * producers' own counts (struct mplane_event_stats, after minus before),
 * recorded what reached the file.  A lossless capture has dropped 0, and
 * produced == recorded + dropped exactly when the producers were quiet at
 * the start and the end; in_flight is recorded - (produced - dropped)
 * when records produced outside the window were recorded, else 0.
 */
struct mplane_capture_stats {
	__u64	produced;
	__u64	dropped;
	__u64	recorded;
	__u64	in_flight;
};

#endif /* MPLANE_CAPTURE_H */

/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Telemetry capture files (tools/include/mplane_capture.h): writing
 * frames as they come and reading them back in order.
 */
#ifndef MP_CAPTURE_H
#define MP_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/mplane.h>
#include "mplane_capture.h"

/*
 * The counters one poller names (ids 0 to this less one): a host's
 * links times their ethtool and RDMA counters stay far below it, and a
 * reader that keeps a table by id never needs more than 64 K entries,
 * whatever a file says.
 */
#define MP_CAPTURE_MAX_COUNTERS	(1U << 16)

struct mp_capture_writer {
	FILE *f;
	uint64_t frames;
	uint64_t bytes;
	int err;		/* the first write error, as -errno */
};

/* Create @path (truncating it) and write the header stamped now. */
int mp_capture_create(struct mp_capture_writer *w, const char *path);

/* Append one frame; errors are sticky and returned by close as well. */
int mp_capture_put(struct mp_capture_writer *w, unsigned int kind,
		   unsigned int source, const void *payload, size_t len);
int mp_capture_put_source(struct mp_capture_writer *w, unsigned int source,
			  const char *label);
/* An interface of the source's own namespace (netns 0). */
int mp_capture_put_ifname(struct mp_capture_writer *w, unsigned int source,
			  uint32_t ifindex, const char *name);
/* An interface of the namespace whose inode is @netns. */
int mp_capture_put_ifname_ns(struct mp_capture_writer *w, unsigned int source,
			     uint32_t netns, uint32_t ifindex,
			     const char *name);
/* Name the namespace @inode: its /run/netns name, "" for the recorder's. */
int mp_capture_put_netns(struct mp_capture_writer *w, unsigned int source,
			 uint32_t inode, const char *name);
int mp_capture_put_counter_name(struct mp_capture_writer *w,
				unsigned int source, uint32_t id,
				uint32_t kind, uint32_t ifindex,
				const char *name);

/* A CF_NETNS payload (malloc'd, @len bytes) naming namespace @inode. */
struct mplane_capture_netns *mp_capture_netns_new(uint32_t inode,
						  const char *name,
						  size_t *len);

/* Flush and close: 0, or the first error of any write. */
int mp_capture_finish(struct mp_capture_writer *w);

struct mp_capture_reader {
	FILE *f;
	struct mplane_capture_hdr hdr;
	void *buf;
	size_t cap;
	uint64_t frames;
};

/* 0; -EPROTO when @path is not a capture of a version this reader knows. */
int mp_capture_open(struct mp_capture_reader *r, const char *path);

/*
 * The next frame: 1 with @fr filled and @payload pointing at its bytes
 * (valid until the next call), 0 at a clean end, -EBADMSG for a file cut
 * inside a frame.
 */
int mp_capture_next(struct mp_capture_reader *r,
		    struct mplane_capture_frame *fr, const void **payload);

void mp_capture_close(struct mp_capture_reader *r);

#endif /* MP_CAPTURE_H */

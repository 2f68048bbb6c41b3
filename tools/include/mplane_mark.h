/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * mplane_mark.h: stamp a program's steps into the mplane event stream,
 * from any user, with no library to link.  'mplanectl mark serve' (run as
 * root) owns the socket; each call is one datagram, a few microseconds,
 * and never blocks the caller: when the server is gone or its queue is
 * full the mark is dropped and the call says so.
 *
 *	int fd = mplane_mark_open(NULL);
 *	for (step = 0; ; step++) {
 *		mplane_mark(fd, MPLANE_MARK_STEP, step);
 *		train_one_step();
 *		mplane_mark(fd, MPLANE_MARK_STEP_END, step);
 *	}
 */
#ifndef MPLANE_MARK_H
#define MPLANE_MARK_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "mplane_mark_proto.h"

/* A socket connected to the mark server at @path (NULL: the default):
 * an fd, or -errno. */
static inline int mplane_mark_open(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	if (!path)
		path = MPLANE_MARK_SOCKET;
	if (strlen(path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* Mark @step as @kind (enum mplane_mark_kind) now: 0, or -errno. */
static inline int mplane_mark(int fd, unsigned int kind, uint64_t step)
{
	struct mplane_mark_msg m = {
		.magic = MPLANE_MARK_MAGIC,
		.version = MPLANE_MARK_VERSION,
		.kind = kind,
		.step = step,
	};
	struct timespec ts;

	if (!clock_gettime(CLOCK_MONOTONIC, &ts))
		m.app_ts_ns = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	if (send(fd, &m, sizeof(m), MSG_DONTWAIT) != sizeof(m))
		return -errno;
	return 0;
}

#endif /* MPLANE_MARK_H */
